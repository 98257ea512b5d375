"""Many-task workloads in headless Chromium through a real worker: an uploaded run-time list ->
the TTS-vs-utilization trade-off with one curve per f -> one run's active and idle workers."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_upload_to_tradeoff_and_worker_timeline(live_server, live_celery, start_worker, page,
                                                 tmp_path, settings):
    settings.HETSITE_TRACE_UPLOAD_DIR = tmp_path / "uploads"
    start_worker(concurrency=2, HETSITE_TRACE_UPLOAD_DIR=str(tmp_path / "uploads"))
    page.set_default_timeout(60_000)
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(f"{live_server.url}/new/many-task/?preset=many-task-small")
    assert page.input_value("input[name=trials]") == "100"  # the paper's 100 shuffles
    for box in page.locator("input[name=policies]").all():
        box.uncheck()
    for policy in ("random", "random+chop"):
        page.check(f"input[name=policies][value='{policy}']")
    page.fill("input[name=trials]", "3")
    # 400 run times, long-tailed: every 20th task is 20x longer.
    times = "\n".join(str(600 if i % 20 == 0 else 30 + i % 11) for i in range(400))
    runtimes = tmp_path / "my_tasks.txt"
    runtimes.write_text("# seconds\n" + times + "\n")
    page.set_input_files("input[name=runtimes_file]", str(runtimes))
    page.click("#submit")
    page.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}/$"))
    page.wait_for_selector("#exp-status:text('done')", timeout=180_000)
    page.wait_for_selector("#summary-table")
    # The headline chart: one curve per idle fraction of the grid, and no chopping.
    page.wait_for_selector("#chart-tradeoff-random.js-plotly-plot g.trace")
    names = page.evaluate(
        "() => document.getElementById('chart-tradeoff-random').data.map(t => t.name)")
    assert names == ["f = 0.2", "f = 0.5", "f = 0.8", "no chopping"]
    xaxis = page.evaluate(
        "() => document.getElementById('chart-tradeoff-random').layout.xaxis.type")
    assert xaxis == "log"
    page.wait_for_selector("#chart-histogram[data-drawn='1']")  # charts draw one at a time
    hist = page.evaluate(
        "() => document.getElementById('chart-histogram').data[0].y.reduce((a, b) => a + b)")
    assert hist == 400
    # One run in detail: active and idle workers with its partitions.
    page.select_option("#run-chart-run", index=1)
    page.select_option("#run-chart-id", "workers")
    page.click("#run-chart-form button")
    page.wait_for_function(
        "() => (document.getElementById('run-chart').data || []).map(t => t.name).join()"
        " === 'active workers,idle workers'")
    notes = page.evaluate(
        "() => document.getElementById('run-chart').layout.annotations.map(a => a.text)")
    assert notes and all("workers" in n for n in notes)
    assert not problems, problems
