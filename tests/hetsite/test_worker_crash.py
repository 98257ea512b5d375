"""A worker SIGKILLed mid-run: the run is requeued by the reaper and finishes elsewhere."""

import os
import signal

import pytest
from rest_framework.test import APIClient

from hetsite.models import Experiment, Run, Status

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]

# Fast heartbeats so the test sees the recovery in seconds (production: 10 s / 60 s / 15 s).
# Staleness is 12 heartbeats: on a loaded machine a live worker's beat can lag a few seconds,
# and it must never be mistaken for a dead one (the run would then count a third attempt).
FAST = {"HETSITE_HEARTBEAT_SECONDS": 0.5, "HETSITE_STALE_RUN_SECONDS": 6,
        "HETSITE_REAP_SECONDS": 0.5}


def test_killed_worker_run_is_requeued_and_finishes(database, live_celery, start_worker,
                                                    wait_for):
    first = start_worker(concurrency=1, name="doomed", **FAST)
    response = APIClient().post("/api/experiments/", {
        "kind": "swf-replay", "preset": "lublin-256", "policies": ["conservative"],
        "params": {"estimate_scale": 3.0, "job_limit": 4000}, "trials": 1}, format="json")
    assert response.status_code == 202, response.content
    run_id = Run.objects.get(experiment__public_id=response.json()["id"]).pk
    wait_for(lambda: Run.objects.filter(pk=run_id, status=Status.RUNNING,
                                        progress__gt=0).exists(), 60, "the run to start")
    first_claim = Run.objects.get(pk=run_id).worker
    os.killpg(first.pid, signal.SIGKILL)  # worker and pool child die without a word
    first.wait()
    assert Run.objects.get(pk=run_id).status == Status.RUNNING  # nobody noticed yet

    start_worker(concurrency=1, name="rescuer", **FAST)
    run = wait_for(lambda: Run.objects.filter(
        pk=run_id, status__in=[Status.DONE, Status.FAILED]).first(), 120, "the run to end")
    assert run.status == Status.DONE, run.error
    assert run.attempts == 2
    assert run.worker and run.worker != first_claim  # claimed again, by another process
    assert run.error == ""  # the requeue note is cleared once the run succeeds
    assert run.summary["jobs_total"] == 4000
    experiment = Experiment.objects.get(public_id=response.json()["id"])
    assert experiment.status == Status.DONE and experiment.progress == 100.0
