"""The grid kind in headless Chromium through a real worker: form -> wait curves -> one run's
node load map and migrations."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_grid_form_to_wait_curves_and_migration_map(live_celery, start_worker, page,
                                                    submit_experiment):
    start_worker(concurrency=2)
    page.set_default_timeout(60_000)
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    submit_experiment(page, "grid", "grid-small", ("fcfs", "internode-can"), 2, done_within=180)
    summary = page.locator("#summary-table").inner_text()
    assert "median wait" in summary
    assert "Internode CAN'" in summary or "internode-can" in summary
    # Fig. 5 and Fig. 6 curves: one line per scheduler, ranks up to the 500 jobs.
    page.wait_for_selector("#chart-wait-curve.js-plotly-plot g.trace")
    ranks = page.evaluate("() => document.getElementById('chart-wait-curve').data"
                          ".map(t => t.y[t.y.length - 1])")
    assert ranks == [500, 500]
    page.wait_for_selector("#chart-wait-tail.js-plotly-plot g.trace")
    # One internode run in detail: which job moved where, when.
    page.select_option("#run-chart-run", label="internode-can · trial 1")
    page.select_option("#run-chart-id", "migrations")
    page.click("#run-chart-form button")
    page.wait_for_function(
        "() => (document.getElementById('run-chart').data || []).some("
        "t => ['push', 'pull'].includes(t.name) && t.x.length > 0)")
    hover = page.evaluate("() => document.getElementById('run-chart').data"
                          ".find(t => t.name === 'push' || t.name === 'pull').text[0]")
    assert re.search(r"job \d+ (push|pull)ed<br>from node \d+", hover)
    page.select_option("#run-chart-id", "load")
    page.click("#run-chart-form button")
    page.wait_for_function(
        "() => (document.getElementById('run-chart').data || []).filter("
        "t => t.type === 'heatmap').length === 2")
    assert not problems, problems
