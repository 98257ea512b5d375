"""A sweep in headless Chromium through a real worker: the form, the lines with confidence
bands, and a click on a point that opens the point's own view."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_sweep_form_to_lines_bands_and_a_point(live_server, live_celery, start_worker, page):
    start_worker(concurrency=2)
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/new/uav/?preset=small-baseline")
    for box in page.locator("input[name=policies]").all():
        box.uncheck()
    for policy in ("random", "max-vpe"):
        page.check(f"input[name=policies][value='{policy}']")
    page.fill("input[name=trials]", "2")
    horizon = page.locator("input[name='p.horizon_h']")
    if not horizon.is_visible():
        page.click("#advanced summary")  # a folded parameter
    horizon.fill("3")
    page.select_option("#id_sweep_param1", "uavs_mean")
    page.fill("#id_sweep_values1", "3, 6, 9")
    page.click("#submit")
    page.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}/$"))
    assert "Sweep over" in page.locator("#sweep-meta").inner_text()
    page.wait_for_selector("#exp-status:text('done')", timeout=180_000)
    page.wait_for_selector("#chart-sweep-value.js-plotly-plot g.trace")
    traces = page.evaluate("() => document.getElementById('chart-sweep-value').data.map("
                           "t => ({name: t.name, fill: t.fill || '', n: (t.x || []).length}))")
    lines = [t for t in traces if not t["fill"]]
    bands = [t for t in traces if t["fill"] == "toself"]
    assert len(lines) == 2 and all(t["n"] == 3 for t in lines) and len(bands) == 2
    assert page.locator("details.point-table").count() == 3
    # A click on a marker of the chart opens that point.
    marker = page.locator("#chart-sweep-value .scatterlayer .trace .points path").last
    marker.scroll_into_view_if_needed()
    marker.click(force=True)
    page.wait_for_url(re.compile(r"\?point=\d$"))
    index = int(page.url.rsplit("=", 1)[1])
    banner = page.locator("#point-banner").inner_text()
    # People count points from 1; the query keeps the index from 0.
    assert re.search(r"Point (\d) of 3 of the sweep", banner).group(1) == str(index + 1)
    assert f"= {(3, 6, 9)[index]}" in banner
    # The point's page counts the point's runs: 2 policies x 2 trials.
    assert "(4 of 4 runs)" in page.locator("#results-title").inner_text()
    page.wait_for_selector("#chart-value.js-plotly-plot")  # the kind's own charts, one point
    # The paired comparison against Random, at that point.
    page.select_option("#baseline-select", "random")
    page.click("#baseline-form button")
    page.wait_for_selector("#chart-paired-value.js-plotly-plot")
    page.click("#back-to-sweep")
    page.wait_for_selector("#chart-paired-value.js-plotly-plot g.trace")
