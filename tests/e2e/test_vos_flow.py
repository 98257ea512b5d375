"""Value of Service in headless Chromium through a real worker: form -> charts -> VM timeline."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_vos_form_to_charts_and_vm_timeline(live_server, live_celery, start_worker, page):
    start_worker(concurrency=2)
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/new/value-of-service/?preset=vos-small")
    for box in page.locator("input[name=policies]").all():
        box.uncheck()
    for policy in ("simple-dp", "max-vptr"):
        page.check(f"input[name=policies][value='{policy}']")
    page.fill("input[name=trials]", "2")
    page.click("#submit")
    page.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}/$"))
    page.wait_for_selector("#exp-status:text('done')", timeout=180_000)
    summary = page.locator("#summary-table").inner_text()
    assert "max-vptr" in summary and "simple-dp" in summary
    titles = page.eval_on_selector_all("#summary-table tr[data-policy] th",
                                       "cells => cells.map(c => c.title)")
    assert sorted(titles) == ["Max VPTR", "Simple w/ d&p"]
    assert "% of maximum VoS" in summary
    # % of maximum VoS with CIs, the performance / energy split, cores and memory over time.
    for chart in ("pct-max-vos", "value-split", "resources"):
        page.wait_for_selector(f"#chart-{chart}.js-plotly-plot g.trace")
    bars = page.evaluate("() => document.getElementById('chart-pct-max-vos').data[0].x")
    assert sorted(bars) == ["Max VPTR", "Simple w/ d&p"] or sorted(bars) == [
        "max-vptr", "simple-dp"]
    # One run in detail: the VM timeline, a bar per VM core block.
    page.select_option("#run-chart-id", "vm-timeline")
    page.click("#run-chart-form button")
    page.wait_for_selector("#run-chart.js-plotly-plot g.trace")
    n_bars = page.evaluate("() => document.getElementById('run-chart').data[0].y.length")
    assert n_bars > 10
    hover = page.evaluate("() => document.getElementById('run-chart').data[0].hovertext[0]")
    assert "cores x" in hover and "GB" in hover
