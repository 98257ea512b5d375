"""The whole lab in headless Chromium: form -> live progress -> charts -> share link."""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_form_to_charts_to_share_link(live_server, live_celery, start_worker, browser, small,
                                      charts_drawn):
    start_worker(concurrency=2)
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(60_000)
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(f"{live_server.url}/new/{small['kind']}/")
    # Pick the preset (the picker reloads the form prefilled with it).
    page.select_option("#preset-select", small["preset"])
    page.wait_for_url(re.compile(rf"preset={re.escape(small['preset'])}"))
    # Exactly the two policies of the small setup, one trial.
    for box in page.locator("input[name=policies]").all():
        box.uncheck()
    for policy in small["policies"]:
        page.check(f"input[name=policies][value='{policy}']")
    page.fill("input[name=trials]", "1")
    page.fill("input[name=name]", "browser flow")
    page.click("#submit")
    page.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}/$"))
    share_url = page.url
    assert page.locator("#experiment-name").inner_text() == "browser flow"
    # Progress moves without a manual reload and reaches 100%.
    page.wait_for_selector("#exp-status:text('done')", timeout=240_000)
    page.wait_for_selector("#summary-table")
    assert page.locator("#overall-text").inner_text() == "100%"
    # Plotly drew the charts: trace groups exist in the DOM.
    page.wait_for_selector(".chart.js-plotly-plot")
    charts_drawn(page)  # the first chart drawn does not mean the others are
    charts = page.locator(".chart.js-plotly-plot").count()
    traces = page.locator(".chart.js-plotly-plot g.trace").count()
    assert charts >= 3 and traces >= 2
    assert not [p for p in problems if "Content Security Policy" in p or "Error" in p], problems
    summary = page.locator("#summary-table").inner_text()
    for policy_row in small["policies"]:
        assert policy_row in summary or page.locator(
            f"#summary-table td[title='{policy_row}']").count() == 1
    context.close()

    # The share link, in a fresh browser context (no session), shows the same summary.
    other = browser.new_context()
    shared = other.new_page()
    shared.goto(share_url)
    assert shared.locator("#summary-table").inner_text() == summary
    assert shared.locator("#cancel").count() == 0  # read-only for anonymous visitors
    other.close()


@pytest.mark.django_db(transaction=True)
def test_api_docs_and_admin_render_under_the_csp(live_server, page, admin_user):
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    response = page.goto(f"{live_server.url}/api/docs/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector(".swagger-ui .info .title")  # Swagger UI ran from local files
    assert "hetsite API" in page.locator(".swagger-ui .info .title").inner_text()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "password")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    assert not [p for p in problems if "Content Security Policy" in p], problems
