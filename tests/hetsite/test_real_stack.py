"""API call to finished runs through a real redis-server and a real Celery worker process."""

import pytest
from rest_framework.test import APIClient

from hetsite.models import Experiment, Status

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]



def test_small_experiment_from_api_call_to_all_runs_done(database, small, live_celery,
                                                         start_worker, wait_for):
    start_worker(concurrency=2)
    response = APIClient().post("/api/experiments/", {
        "kind": small["kind"], "preset": small["preset"], "policies": small["policies"],
        "trials": 1}, format="json")
    assert response.status_code == 202, response.content
    experiment = Experiment.objects.get(public_id=response.json()["id"])
    assert all(r.celery_id for r in experiment.runs.all())  # enqueued, not run inline
    wait_for(lambda: Experiment.objects.get(pk=experiment.pk).status in (
        Status.DONE, Status.FAILED), 240, "the experiment to finish")
    experiment.refresh_from_db()
    runs = list(experiment.runs.all())
    assert [r.status for r in runs] == [Status.DONE] * len(runs), [r.error for r in runs]
    assert all(r.worker and r.attempts == 1 and r.result_bytes > 0 for r in runs)
    assert experiment.progress == 100.0
    assert set(experiment.summary_by_policy()) == set(small["policies"])


def test_reproduce_records_a_figure_on_the_workers_as_in_process(tmp_path, live_celery,
                                                                  start_worker, monkeypatch):
    """``reproduce --record`` runs on the workers when they answer; the record, CPU time aside,
    is the one a run in this process gives (same seeds, same verdicts)."""
    from django.core.management import call_command

    from hetsite import scoreboard
    from hetsite.management.commands import reproduce as command

    monkeypatch.setattr(command, "code_version", lambda: "0123456789ab")
    start_worker(concurrency=2)
    records = {}
    for where, extra in (("workers", ()), ("here", ("--in-process", "--jobs", "1"))):
        status = tmp_path / f"{where}.json"
        call_command("reproduce", "ch4-quick", "--record", "--no-png", *extra,
                     "--out", str(tmp_path / where), "--status", str(status))
        records[where] = scoreboard.load(status)["figures"]["ch4-quick"]
    assert records["workers"]["where"] == "2 worker processes"
    assert records["here"]["where"] == "1 processes here"
    assert records["workers"]["checks"] == records["here"]["checks"]
    assert records["workers"]["cpu_s"] > 0 and records["workers"]["runs"] == 16
    assert Experiment.objects.get().figure == "ch4-quick"  # the lab shows it too
