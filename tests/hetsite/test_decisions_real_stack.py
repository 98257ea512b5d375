"""An explained run through a real redis-server and a real Celery worker process (issue 32):
the worker records the decisions with the site's bounds (its own environment's settings), the
web side reads them back page by page and finds where the two policies part ways."""

import json

import pytest
from rest_framework.test import APIClient

from hetsite import selectors
from hetsite.models import Experiment, Status
from simcore import explain

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def test_an_explained_experiment_on_the_workers_reads_back_its_decisions(
        database, live_celery, start_worker, wait_for):
    # The bounds are the worker's settings: a log of 600 decisions, 5 per task.
    start_worker(concurrency=2, HETSITE_EXPLAIN_LIMIT=600, HETSITE_EXPLAIN_PER_TASK=5)
    api = APIClient()
    response = api.post("/api/experiments/", {
        "kind": "swf-replay", "preset": "swf-small", "policies": ["easy", "fcfs"],
        "trials": 1, "explain": True}, format="json")
    assert response.status_code == 202, response.content
    experiment = Experiment.objects.get(public_id=response.json()["id"])
    assert all(r.celery_id for r in experiment.runs.all())  # sent to the worker
    wait_for(lambda: Experiment.objects.get(pk=experiment.pk).status in (
        Status.DONE, Status.FAILED), 240, "the experiment to finish")
    runs = {r.policy: r for r in experiment.runs.all()}
    assert [r.status for r in runs.values()] == [Status.DONE] * 2, [r.error for r in runs.values()]
    results = {p: json.loads(selectors.result_json(r)) for p, r in runs.items()}
    easy = results["easy"]
    assert (easy["meta"]["decisions"]["limit"], easy["meta"]["decisions"]["per_task"]) == (600, 5)
    assert 0 < len(easy["decisions"]) <= 600

    run_id = runs["easy"].public_id
    listed = api.get(f"/api/runs/{run_id}/").json()
    assert listed["explain"] is True
    assert listed["decisions"]["counts"] == explain.counts(easy["decisions"])
    walked, page = [], 1
    while True:
        body = api.get(f"/api/runs/{run_id}/decisions/", {"page": page}).json()
        walked += body["decisions"]
        if page == body["pages"]:
            break
        page += 1
    assert walked == easy["decisions"]
    task = easy["decisions"][-1]["task"]  # a kept task (sampling keeps whole stories)
    story = api.get(f"/api/runs/{run_id}/decisions/", {"task": str(task)}).json()
    assert story["decisions"] == explain.story(easy["decisions"], task)
    found = api.get(f"/api/runs/{run_id}/decisions/divergence/",
                    {"with": str(runs["fcfs"].public_id)}).json()["found"]
    # Both logs sampled the same tasks by their ids, so they compare decision by decision.
    assert found == explain.divergence(easy, results["fcfs"]) | {
        "time_unit": "s"}
