"""Fast and reachable (issue 13): narrow screens, keyboard, screen readers, dark mode and an
axe-core check of the home, form and result pages (compressed static files: tests/hetsite)."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from hetsite.services import submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def experiment():
    sub = submission.validate_submission(kind="uav", preset="small-baseline",
                                         policies=["random", "rbs", "max-vpe"], trials=2,
                                         visibility="public", name="reachable")
    return submission.create_experiment(sub)


def pages(base, experiment):
    return {"home": f"{base}/", "form": f"{base}/new/uav/",
            "result": f"{base}/e/{experiment.public_id}/"}


def test_no_horizontal_overflow_at_390_px(live_server, browser, experiment, charts_drawn):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = context.new_page()
    for name, url in pages(live_server.url, experiment).items():
        page.goto(url)
        charts_drawn(page)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{name} is {width} px wide at a 390 px window"
    context.close()


def test_keyboard_reaches_run_through_the_skip_link(live_server, page):
    page.goto(f"{live_server.url}/new/uav/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    focused = page.evaluate("[document.activeElement.tagName, document.activeElement.textContent]")
    assert focused == ["BUTTON", "Run experiment"]


def test_progress_is_a_live_region_and_a_progressbar(live_server, page, experiment):
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")
    assert page.locator("#live-status").get_attribute("aria-live") == "polite"
    bar = page.locator("#overall-bar")
    assert bar.get_attribute("role") == "progressbar"
    assert bar.get_attribute("aria-valuenow") == "100"


def test_dark_mode_follows_the_system(live_server, browser, experiment, charts_drawn):
    for scheme, dark in (("dark", True), ("light", False)):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{live_server.url}/e/{experiment.public_id}/")
        charts_drawn(page)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        channels = [int(c) for c in background[background.index("(") + 1:-1].split(",")[:3]]
        assert (sum(channels) / 3 < 80) is dark, background
        paper = page.evaluate("document.querySelector('.chart[id^=chart-]')"
                              "._fullLayout.paper_bgcolor")
        assert (paper.lower() != "#fff" and paper != "rgb(255, 255, 255)") is dark, paper
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_or_critical_violations(live_server, browser, experiment, scheme,
                                                     charts_drawn):
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    axe = Axe()
    problems = {}
    for name, url in pages(live_server.url, experiment).items():
        page.goto(url)
        charts_drawn(page)
        result = axe.run(page)
        bad = [f"{v['id']}: {v['help']} ({len(v['nodes'])}x, e.g. {v['nodes'][0]['target']})"
               for v in result.response["violations"] if v["impact"] in ("serious", "critical")]
        if bad:
            problems[name] = bad
    assert problems == {}
    context.close()


def test_a_figure_of_another_trace_type_loads_the_full_plotly(live_server, page, experiment,
                                                               charts_drawn):
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")
    charts_drawn(page)
    assert page.evaluate("Plotly.__full") is None  # the page started with the small bundle
    page.evaluate("""() => { const el = document.createElement('div'); el.id = 'gl';
        document.body.appendChild(el);
        return hetsite.draw(el, {data: [{type: 'scattergl', x: [1, 2], y: [3, 4]}],
                                 layout: {height: 300}}); }""")
    page.wait_for_function("document.getElementById('gl').dataset.drawn === '1'")
    assert page.evaluate("Plotly.__full") is True
    assert page.evaluate("document.getElementById('gl')._fullData[0].type") == "scattergl"
