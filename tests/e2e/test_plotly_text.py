"""Names people type are drawn as text in charts, never as markup (issue 27, item 10): Plotly
reads a little HTML in every label, so an experiment named with an ``<a href>`` became a live
link in the legends of /compare/."""

import pytest

from hetsite.services import submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAME = '<a href="//e.x">go</a><b>!</b>'  # 30 characters: the label keeps all of them


def test_an_experiment_name_with_markup_is_shown_as_typed(live_server, page, charts_drawn):
    runs = []
    for policy in ("random", "rbs"):
        sub = submission.validate_submission(kind="uav", preset="small-baseline",
                                             policies=[policy], trials=1, name=NAME,
                                             visibility="public")
        runs.append(submission.create_experiment(sub).runs.get())
    query = "&".join(f"run={r.public_id}" for r in runs)
    page.goto(f"{live_server.url}/compare/?{query}")
    page.wait_for_selector(".chart.js-plotly-plot")
    charts_drawn(page)
    # No link anywhere in the drawn charts, and the legends and panel titles read the name.
    assert page.locator(".chart.js-plotly-plot a").count() == 0
    assert page.locator(".chart.js-plotly-plot b").count() == 0
    shown = page.evaluate(
        "() => [...document.querySelectorAll('.chart.js-plotly-plot .legendtext,"
        " .chart.js-plotly-plot .annotation-text')].map(e => e.textContent)")
    expected = {f"{p} · {NAME} #0" for p in ("random", "rbs")}
    assert expected <= set(shown), shown
