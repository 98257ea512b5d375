"""What the owner cookie means, said once to the anonymous visitor it was made for, and who
owns what in the admin (issue 31, the pages)."""

import hashlib

import pytest
from django.contrib.auth.models import User

from hetsite.models import Experiment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

UAV = dict(kind="uav", preset="small-baseline", policies=["random"], trials=1)


def fresh_page(browser, base="", username="", password=""):
    """A page of a new browser context, logged in when a username is given."""
    page = browser.new_context().new_page()
    page.set_default_timeout(30_000)
    if username:
        page.goto(base + "/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", password)
        page.click("main button.primary")
        page.wait_for_url(base + "/")
    return page


def test_the_first_experiment_of_a_browser_says_whose_it_is_once(live_server, browser,
                                                                  submit_experiment):
    page = fresh_page(browser)
    submit_experiment(page, **UAV, name="first")
    flash = page.locator(".flash").inner_text()
    assert "yours on this browser" in flash and "Log in to keep it" in flash
    page.reload()
    assert "yours on this browser" not in page.inner_text("main")
    submit_experiment(page, **UAV, name="second")  # the cookie is there: nothing new to say
    assert "yours on this browser" not in page.inner_text("main")
    assert page.locator("#cancel, #delete").count() >= 1  # and it is theirs
    page.context.close()

    # A logged-in user owns by their account: no cookie to explain.
    User.objects.create_user("ada", password="pw-123456789")
    page = fresh_page(browser, live_server.url, "ada", "pw-123456789")
    submit_experiment(page, **UAV, name="ada's")
    assert "yours on this browser" not in page.inner_text("main")
    page.context.close()


def test_the_admin_names_a_cookie_owner_by_a_short_digest_never_the_cookie(
        live_server, browser, submit_experiment, admin_user):
    page = fresh_page(browser)
    submit_experiment(page, **UAV, name="anonymous study")
    token = Experiment.objects.get(name="anonymous study").owner_token
    assert token
    admin = fresh_page(browser, live_server.url, "admin", "password")
    admin.goto(live_server.url + "/admin/hetsite/experiment/")
    row = admin.locator("#result_list tbody tr", has_text="anonymous study")
    digest = hashlib.sha256(token.encode()).hexdigest()[:8]
    assert row.locator("td.field-owned_by").inner_text() == f"cookie {digest}"
    assert token not in admin.content()
    row.locator("th a").click()
    admin.wait_for_selector(".field-owned_by")
    assert f"cookie {digest}" in admin.inner_text(".field-owned_by")
    assert token not in admin.content()
    page.context.close()
    admin.context.close()
