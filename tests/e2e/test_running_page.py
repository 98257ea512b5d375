"""A big experiment's page as its owner sees it (issue 31, the pages): results first, the runs
folded below them, counts that say what a cancel did, and a cancel that asks first."""

import re

import pytest
from django.contrib.auth.models import User

from hetsite.models import Run, Status
from hetsite.services import execution, submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_results_come_first_runs_fold_and_a_cancel_is_confirmed_and_counted(live_server, page,
                                                                          settings):
    settings.HETSITE_MAX_TRIALS = 1000
    page.set_viewport_size({"width": 1400, "height": 900})
    sub = submission.validate_submission(
        kind="uav", preset="small-baseline", policies=["random", "rbs", "max-value", "max-vpt"],
        trials=100)
    experiment = submission.create_experiment(sub, dispatch=False)
    first = list(experiment.runs.order_by("trial", "id")[:3])
    for run in first:
        execution.execute_run(run.pk)
    assert Run.objects.filter(experiment=experiment, status=Status.DONE).count() == 3
    experiment.owner = User.objects.create_user("ada", password="pw-123456789")
    experiment.save(update_fields=["owner"])
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "pw-123456789")
    page.click("main button.primary")
    page.wait_for_url(live_server.url + "/")
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")

    # The summary of the finished runs opens in the first screen; the 400 rows are folded under it.
    page.wait_for_selector("#summary-table")
    results = page.locator("#results-title").bounding_box()
    runs = page.locator("#runs summary").bounding_box()
    assert results["y"] < 900 and results["y"] < runs["y"]
    assert page.locator("#runs").get_attribute("open") is None
    assert not page.locator("#runs-table").is_visible()
    assert "Runs (400) · page 1 of 4" in page.inner_text("#runs summary")
    assert page.inner_text("#runs-finished") == "3 of 400 runs finished"
    page.click("#runs summary")
    assert page.locator("#runs-table tbody tr").count() == 100
    page.click("#runs-next")  # the next page of runs opens folded out at the runs
    page.wait_for_url(re.compile(r"runs_page=2#runs$"))
    assert page.locator("#runs").get_attribute("open") is not None
    assert page.inner_text("#runs-pager span") == "runs 101–200 of 400"

    # Cancel asks first: saying no changes nothing.
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.click("#cancel")
    assert asked and asked[0].startswith("Cancel this experiment?")
    experiment.refresh_from_db()
    assert experiment.status == Status.RUNNING and not experiment.cancel_requested
    page.once("dialog", lambda d: d.accept())
    page.click("#cancel")
    page.wait_for_selector("#exp-status:text('cancelled')")
    assert page.inner_text("#runs-finished") == "3 of 400 runs finished, 397 cancelled"
    assert page.locator("#summary-table").is_visible()


def test_the_live_count_says_failed_and_cancelled_runs_apart(live_server, page, settings):
    settings.HETSITE_MAX_TRIALS = 1000
    sub = submission.validate_submission(kind="uav", preset="small-baseline",
                                         policies=["random"], trials=20)
    experiment = submission.create_experiment(sub, dispatch=False)
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")
    assert page.inner_text("#runs-finished") == "0 of 20 runs finished"
    runs = list(experiment.runs.order_by("trial"))
    Run.objects.filter(pk__in=[r.pk for r in runs[:2]]).update(status=Status.FAILED,
                                                                error="synthetic")
    Run.objects.filter(pk__in=[r.pk for r in runs[2:7]]).update(status=Status.CANCELLED)
    page.wait_for_function("() => document.getElementById('runs-finished').textContent"
                           " === '2 of 20 runs finished (2 failed), 5 cancelled'")
