"""A big experiment's page in Chromium (issue 27, item 6): one page of runs with a pager, the
counts of every run, and live progress for the rows of the page shown."""

import re

import pytest

from hetsite.models import Run, Status
from hetsite.services import execution, submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_runs_come_a_page_at_a_time_and_the_page_shown_stays_live(live_server, page, settings):
    settings.HETSITE_MAX_TRIALS = 1000
    sub = submission.validate_submission(kind="uav", preset="small-baseline",
                                         policies=["random"], trials=250)
    experiment = submission.create_experiment(sub, dispatch=False)
    runs = list(experiment.runs.order_by("trial"))
    Run.objects.filter(pk__in=[r.pk for r in runs[:30]]).update(status=Status.FAILED,
                                                                  error="synthetic")
    execution.refresh_experiment(experiment.pk)
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")
    assert "Runs (250) · page 1 of 3" in page.inner_text("#runs summary")
    page.click("#runs summary")
    assert page.locator("#runs-table tbody tr").count() == 100
    assert page.inner_text("#runs-finished") == "30 of 250 runs finished (30 failed)"
    page.click("#runs-next")
    page.wait_for_url(re.compile(r"runs_page=2#runs$"))
    rows = page.locator("#runs-table tbody tr")
    assert rows.count() == 100
    assert rows.first.get_attribute("data-run") == str(runs[100].public_id)
    assert page.inner_text("#runs-pager span") == "runs 101–200 of 250"
    # A run of this page starts: the poll of this page's runs shows it.
    target = runs[150]
    Run.objects.filter(pk=target.pk).update(status=Status.RUNNING, progress=42.0)
    row = f'tr[data-run="{target.public_id}"]'
    page.wait_for_function(
        f"() => document.querySelector('{row} .run-text').textContent === '42%'")
    assert page.inner_text(f"{row} .run-status") == "running"
    # Counts cover every run, not only the page's.
    Run.objects.filter(pk__in=[r.pk for r in runs[200:210]]).update(status=Status.CANCELLED)
    page.wait_for_function("() => document.getElementById('runs-finished').textContent"
                           " === '30 of 250 runs finished (30 failed), 10 cancelled'")
