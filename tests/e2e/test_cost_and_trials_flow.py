"""Know the cost before you run, add trials later (issue 31), in headless Chromium.

Runs execute eagerly inside the request (the test settings): the small UAV preset takes well
under a second per run.
"""

import pytest
from rest_framework.test import APIClient

from hetsite.models import Experiment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
UAV = "small-baseline"
POLICIES = ("random", "rbs")


def shown_price(page) -> dict:
    """The numbers the price panel holds, and its text as the user reads it."""
    page.wait_for_function(
        "() => ['ok', 'refused'].includes(document.getElementById('price').dataset.state)")
    panel = page.locator("#price")
    return {"runs": int(panel.get_attribute("data-runs")),
            "cpu_s": float(panel.get_attribute("data-cpu-s")),
            "runs_text": page.locator("#price-runs").inner_text(),
            "cpu_text": page.locator("#price-cpu").inner_text(),
            "warnings": page.locator("#price-warnings li").all_inner_texts()}


def dry_run(trials: int) -> dict:
    return APIClient().post("/api/experiments/", {
        "kind": "uav", "preset": UAV, "policies": list(POLICIES), "trials": trials,
        "dry_run": True}, format="json").json()


def duration(seconds: float) -> str:
    from hetsite.presenters import duration as words

    return words(seconds)


def test_the_price_follows_the_trials_field(live_server, page, fill_form):
    fill_form(page, "uav", UAV, POLICIES, 2)
    # Wait for the quote of what is typed now (an earlier one may still be on screen).
    page.wait_for_function("() => document.getElementById('price').dataset.runs === '4'")
    two = shown_price(page)
    api = dry_run(2)
    assert two["runs"] == api["runs"] == 4
    assert two["cpu_s"] == pytest.approx(api["estimated_cpu_s"], abs=1e-3)
    assert two["runs_text"] == "4 runs"
    assert two["cpu_text"] == f"about {duration(api['estimated_cpu_s'])} of CPU"

    page.fill("input[name=trials]", "30")
    page.wait_for_function("() => document.getElementById('price').dataset.runs === '60'")
    thirty = shown_price(page)
    api = dry_run(30)
    assert thirty["runs"] == api["runs"] == 60
    assert thirty["cpu_s"] == pytest.approx(api["estimated_cpu_s"], abs=1e-3)
    assert thirty["cpu_s"] == pytest.approx(15 * two["cpu_s"], abs=1e-2)
    assert thirty["runs_text"] == "60 runs"

    # An invalid field says so instead of a price; the browser never submitted anything.
    page.fill("input[name=trials]", "0")
    page.wait_for_function("() => document.getElementById('price').dataset.state === 'invalid'")
    assert "Trials" in page.locator("#price-text").inner_text()
    assert Experiment.objects.count() == 0


def test_the_price_warns_past_the_budget(live_server, page, settings, fill_form):
    settings.HETSITE_BUDGET_ANONYMOUS_S = dry_run(1)["estimated_cpu_s"] * 3
    fill_form(page, "uav", UAV, POLICIES, 5)
    page.wait_for_function("() => document.getElementById('price').dataset.state === 'refused'")
    assert any("budget" in w for w in shown_price(page)["warnings"])


def test_adding_trials_grows_the_table(live_server, page, submit_experiment):
    url = submit_experiment(page, "uav", UAV, POLICIES, 2, done_within=120)
    rows = page.locator("#summary-table tbody tr")

    def runs_column() -> dict:
        return {r.get_attribute("data-policy"): int(r.locator("td").first.inner_text())
                for r in rows.all()}

    assert runs_column() == {p: 2 for p in POLICIES}
    assert page.locator("#clone").count() == 1  # kept for changed parameters
    page.fill("#add-trials", "3")
    page.click("#add-trials-button")
    page.wait_for_url(url)
    page.wait_for_selector("#exp-status:text('done')", timeout=120_000)
    assert "Added 3 trials" in page.locator("body").inner_text()
    assert runs_column() == {p: 5 for p in POLICIES}
    assert page.locator("#runs-finished").inner_text() == "10 of 10 runs finished"
    experiment = Experiment.objects.get()
    assert sorted(experiment.runs.filter(policy="random").values_list("seed", flat=True)) == [
        0, 1, 2, 3, 4]

    # A visitor with the link sees the grown table but no button.
    other = page.context.browser.new_context()
    visitor = other.new_page()
    visitor.goto(url)
    assert visitor.locator("#add-trials-form").count() == 0
    other.close()
