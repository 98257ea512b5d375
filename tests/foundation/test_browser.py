import pytest

pytestmark = pytest.mark.browser


@pytest.mark.django_db
def test_home_page_title_in_chromium(live_server, page):
    page.goto(live_server.url + "/")
    assert "hetsite" in page.title()
