"""Preemption-based backfill in headless Chromium through a real worker: form -> per-size bars
with CIs -> the job Gantt of one run with its killed runs; and the Gantt of a plain replay."""


import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def show_run_chart(page, chart_id, index=1):
    page.select_option("#run-chart-run", index=index)
    page.select_option("#run-chart-id", chart_id)
    page.click("#run-chart-form button")
    page.wait_for_selector("#run-chart.js-plotly-plot g.trace")


def test_pbb_form_to_size_bars_and_job_gantt(live_celery, start_worker, page, submit_experiment):
    start_worker(concurrency=2)
    page.set_default_timeout(60_000)
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    submit_experiment(page, "swf-preemptive", "pbb-small-mix-b",
                      ("first-fit", "duration-remaining"), 2, done_within=120)
    summary = page.locator("#summary-table").inner_text()
    assert "mean expansion factor" in summary and "jobs killed" in summary
    # Fig. 6 style: one bar trace per policy over the size classes, with CI error bars.
    page.wait_for_selector("#chart-xf-size.js-plotly-plot g.trace")
    bars = page.evaluate("() => document.getElementById('chart-xf-size').data.map("
                         "t => [t.name, t.x.length, t.error_y.visible])")
    assert [b[0] for b in bars] == ["first-fit", "duration-remaining"]
    assert all(b[1] == 7 and b[2] for b in bars)  # "all" + 6 size classes
    page.wait_for_selector("#chart-xf-high.js-plotly-plot g.trace")  # Mix B: High jobs apart
    assert page.locator("#chart-xf-medium").count() == 0  # no Medium jobs in Mix B
    # One preemptive run in detail: the job Gantt, killed runs drawn apart.
    index = page.evaluate("() => [...document.querySelectorAll('#run-chart-run option')]"
                          ".findIndex(o => o.textContent.startsWith('duration-remaining'))")
    show_run_chart(page, "gantt", index)
    names = page.evaluate("() => document.getElementById('run-chart').data.map(t => t.name)")
    assert "killed runs (work lost)" in names and "High jobs" in names and "Low jobs" in names
    processors = page.evaluate("() => document.getElementById('run-chart').layout.yaxis.range")
    assert processors == [0, 64]
    assert not problems, problems


def test_replay_has_a_job_gantt(live_celery, start_worker, page, submit_experiment):
    start_worker(concurrency=1)
    page.set_default_timeout(60_000)
    submit_experiment(page, "swf-replay", "swf-small", ("easy",), 1, done_within=120)
    show_run_chart(page, "gantt", 0)
    fills = page.evaluate("() => document.getElementById('run-chart').data"
                          ".filter(t => t.fill === 'toself').map(t => t.name)")
    assert fills == ["jobs", "jobs"]  # two shades
    hover = page.evaluate("() => document.getElementById('run-chart').data"
                          ".filter(t => t.mode === 'markers')[0].customdata.length")
    assert hover == 500  # one hover point per job of the trace
