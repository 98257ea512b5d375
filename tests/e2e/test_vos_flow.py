"""Value of Service in headless Chromium through a real worker: form -> charts -> VM timeline."""


import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_vos_form_to_charts_and_vm_timeline(live_celery, start_worker, page, submit_experiment):
    start_worker(concurrency=2)
    page.set_default_timeout(60_000)
    submit_experiment(page, "value-of-service", "vos-small", ("simple-dp", "max-vptr"), 2,
                      done_within=180)
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
