"""UAV missions in headless Chromium through a real worker: form -> mission timeline."""


import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_uav_form_to_mission_timeline(live_celery, start_worker, page, submit_experiment):
    start_worker(concurrency=2)
    page.set_default_timeout(60_000)
    submit_experiment(page, "uav", "small-baseline", ("rbs", "meta+pf"), 2, done_within=120)
    page.wait_for_selector("#summary-table")
    summary = page.locator("#summary-table").inner_text()
    assert "Random Best Sensor" in summary or "rbs" in summary
    page.wait_for_selector("#chart-value.js-plotly-plot")  # comparison bars with CIs
    # One run in detail: the mission timeline, a lane per UAV.
    page.select_option("#run-chart-run", index=1)
    page.select_option("#run-chart-id", "timeline")
    page.click("#run-chart-form button")
    page.wait_for_selector("#run-chart.js-plotly-plot g.trace")
    lanes = page.evaluate(
        "() => document.getElementById('run-chart').layout.yaxis.categoryarray"
        " || document.getElementById('run-chart').layout.yaxis.ticktext || []")
    uav_lanes = [lane for lane in lanes if str(lane).startswith("UAV ")]
    assert len(uav_lanes) >= 2 and "target events" in lanes  # dynamic events are marked
    page.select_option("#run-chart-id", "energy")
    page.click("#run-chart-form button")
    page.wait_for_function(
        "() => (document.getElementById('run-chart').data || []).some("
        "t => (t.name || '').toLowerCase().includes('pace'))")
