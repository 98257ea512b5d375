"""What the owner cookie means, said once to the anonymous visitor it was made for, and who
owns what in the admin (issue 31, the pages)."""

import hashlib

import pytest
from django.contrib.auth.models import User

from hetsite.models import Experiment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

UAV = dict(kind="uav", preset="small-baseline", policies=["random"], trials=1)


def test_the_first_experiment_of_a_browser_says_whose_it_is_once(live_server, browser,
                                                                  submit_experiment):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(30_000)
    submit_experiment(page, **UAV, name="first")
    flash = page.locator(".flash").inner_text()
    assert "yours on this browser" in flash and "Log in to keep it" in flash
    page.reload()
    assert "yours on this browser" not in page.inner_text("main")
    submit_experiment(page, **UAV, name="second")  # the cookie is there: nothing new to say
    assert "yours on this browser" not in page.inner_text("main")
    assert page.locator("#cancel, #delete").count() >= 1  # and it is theirs
    context.close()

    # A logged-in user owns by their account: no cookie to explain.
    User.objects.create_user("ada", password="pw-123456789")
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "pw-123456789")
    page.click("main button.primary")
    page.wait_for_url(live_server.url + "/")
    submit_experiment(page, **UAV, name="ada's")
    assert "yours on this browser" not in page.inner_text("main")
    context.close()


def test_the_admin_names_a_cookie_owner_by_a_short_digest_never_the_cookie(
        live_server, browser, submit_experiment, admin_user):
    visitor = browser.new_context()
    page = visitor.new_page()
    page.set_default_timeout(30_000)
    submit_experiment(page, **UAV, name="anonymous study")
    token = Experiment.objects.get(name="anonymous study").owner_token
    assert token
    staff = browser.new_context()
    admin = staff.new_page()
    admin.set_default_timeout(30_000)
    admin.goto(live_server.url + "/admin/login/")
    admin.fill("#id_username", "admin")
    admin.fill("#id_password", "password")
    admin.click("input[type=submit]")
    admin.wait_for_selector("#site-name")
    admin.goto(live_server.url + "/admin/hetsite/experiment/")
    row = admin.locator("#result_list tbody tr", has_text="anonymous study")
    digest = hashlib.sha256(token.encode()).hexdigest()[:8]
    assert row.locator("td.field-owned_by").inner_text() == f"cookie {digest}"
    assert token not in admin.content()
    row.locator("th a").click()
    admin.wait_for_selector(".field-owned_by")
    assert f"cookie {digest}" in admin.inner_text(".field-owned_by")
    assert token not in admin.content()
    visitor.close()
    staff.close()
