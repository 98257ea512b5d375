"""The new-run form as a person reads it in headless Chromium: a policy's spec and the preset's
source name their section with its title and document, the code kept."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_form_shows_spec_codes_in_words(live_server, page):
    page.goto(f"{live_server.url}/new/value-of-service/")
    simple = page.locator("label.policy", has=page.locator("code", has_text="simple")).first
    assert simple.is_visible()
    assert simple.locator("span.muted").inner_text().endswith(
        "(Simple and its variants (ch. 2 spec §7.2))")
    page.goto(f"{live_server.url}/new/grid/?preset=grid-main")
    about = page.locator("#preset-about")
    assert about.is_visible()
    assert "Source: Workload (grid spec §3), experiments (grid spec §8)." in about.inner_text()
