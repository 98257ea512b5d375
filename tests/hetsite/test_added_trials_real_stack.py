"""Added trials through a real redis-server and a real Celery worker process: the new runs are
dispatched, run on the worker, and the finished experiment's summary and cached tables grow."""

import pytest
from rest_framework.test import APIClient

from hetsite import figures, kinds, presenters
from hetsite.models import Experiment, Status

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_trials_added_to_a_finished_experiment_run_on_the_worker(small, live_celery,
                                                                start_worker, wait_for):
    start_worker(concurrency=2)
    api = APIClient()
    response = api.post("/api/experiments/", {
        "kind": small["kind"], "preset": small["preset"], "policies": small["policies"],
        "trials": 1, "base_seed": 3}, format="json")
    assert response.status_code == 202, response.content
    eid = response.json()["id"]

    def finished():
        return Experiment.objects.get(public_id=eid).status in (Status.DONE, Status.FAILED)

    wait_for(finished, 240, "the first trial to finish")
    experiment = Experiment.objects.get(public_id=eid)
    first_end = experiment.finished
    ui = kinds.get_kind(experiment.kind)
    # The page's tables of the finished experiment are kept (keyed on its end time).
    table = figures.kept(experiment, "tables:test", lambda: presenters.summary_table(
        ui, experiment, 0))
    assert [row.runs for row in table.rows] == [1] * len(small["policies"])

    added = api.post(f"/api/experiments/{eid}/trials/", {"add": 2}, format="json")
    assert added.status_code == 202, added.content
    assert added.json()["status"] in (Status.QUEUED, Status.RUNNING)
    assert added.json()["finished"] is None
    wait_for(finished, 240, "the added trials to finish")
    experiment = Experiment.objects.get(public_id=eid)
    runs = list(experiment.runs.order_by("policy", "trial"))
    assert [r.status for r in runs] == [Status.DONE] * 3 * len(small["policies"])
    assert all(r.worker for r in runs)  # ran on the worker, not inline
    assert sorted({r.seed for r in runs}) == [3, 4, 5]
    assert experiment.finished > first_end
    assert all(row["runs"] == 3 for row in experiment.summary)
    table = figures.kept(experiment, "tables:test", lambda: presenters.summary_table(
        ui, experiment, 0))
    assert [row.runs for row in table.rows] == [3] * len(small["policies"])
