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
