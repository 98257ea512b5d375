"""Issue 27 (2, 8, 9) on the real stack (redis-server, Celery worker processes):

* one account's big experiment does not starve another's small one (fair dispatch);
* queued runs whose messages a Redis restart lost are sent again and finish;
* deleting a running experiment stops its run without an error in the worker;
* deleting an experiment whose runs wait in the database queue takes its upload along, and
  the messages already sent for it end without running.
"""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from hetsite.models import Experiment, ExperimentUpload, Run, Status, Upload, UploadOwner
from hetsite.permissions import STAFF, Account
from hetsite.services import submission

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]

FAST = {"HETSITE_REAP_SECONDS": 0.5, "HETSITE_LOST_AFTER_SECONDS": 2,
        "HETSITE_HEARTBEAT_SECONDS": 0.5, "HETSITE_STALE_RUN_SECONDS": 30}
CH3 = {"kind": "parallel-energy", "preset": "small", "policies": ["easy"]}


def test_a_big_experiment_does_not_starve_a_small_one_of_another_account(
        live_celery, start_worker, wait_for, settings):
    """Alice (a user) queues 300 runs, then an anonymous client 4: with one worker slot, the 4
    finish after at most the messages already waiting plus one turn each, not after the 300."""
    ahead = 2
    settings.HETSITE_DISPATCH_AHEAD = ahead
    start_worker(concurrency=1, name="fair", HETSITE_DISPATCH_AHEAD=ahead)
    big = submission.validate_submission(kind="uav", preset="small-baseline",
                                         policies=["random", "rbs", "max-value"], trials=100)
    alice = submission.create_experiment(big, account=Account("user:alice", STAFF))
    wait_for(lambda: Run.objects.filter(experiment=alice, status=Status.DONE).count() >= 3, 60,
             "alice's first runs to finish")
    response = APIClient().post("/api/experiments/", {
        "kind": "uav", "preset": "small-baseline", "policies": ["random"], "trials": 4},
        format="json")
    assert response.status_code == 202, response.content
    alice_done_before = Run.objects.filter(experiment=alice, status=Status.DONE).count()
    small = Experiment.objects.get(public_id=response.json()["id"])
    wait_for(lambda: Experiment.objects.filter(pk=small.pk, status=Status.DONE).exists(), 120,
             "the small experiment to finish")
    alice_done_after = Run.objects.filter(experiment=alice,
                                          status__in=[Status.DONE, Status.RUNNING]).count()
    # Alice's runs that went meanwhile: those already sent or running when the 4 arrived
    # (ahead + 1), then at most one of hers per one of theirs (4).
    assert alice_done_after - alice_done_before <= ahead + 1 + 4, (
        alice_done_before, alice_done_after)
    assert Run.objects.filter(experiment=alice, status=Status.QUEUED).count() > 200
    submission.cancel_experiment(alice)


def test_queued_runs_lost_by_a_redis_restart_are_sent_again(own_redis, settings, celery_config,
                                                            start_worker, wait_for, tmp_path):
    settings.CELERY_BROKER_URL = own_redis.url
    celery_config(broker_url=own_redis.url, result_backend=own_redis.url,
                  task_always_eager=False)
    start_worker(concurrency=1, name="restart", broker_url=own_redis.url, **FAST)
    # Four points, the longest (about 10 s) sent first: it runs while three messages wait.
    sub = submission.validate_submission(**CH3, trials=1,
                                         axes=[{"param": "time.sim_h",
                                                "values": [96, 20, 21, 22]}])
    experiment = submission.create_experiment(sub)
    long_run = Run.objects.get(experiment=experiment, overrides={"time.sim_h": 96})
    wait_for(lambda: Run.objects.filter(pk=long_run.pk, status=Status.RUNNING,
                                        progress__gt=0).exists(), 60, "the long run to start")
    waiting = Run.objects.filter(experiment=experiment, status=Status.QUEUED)
    assert waiting.count() == 3 and not waiting.filter(celery_id="").exists()
    own_redis.restart()  # no persistence: the three waiting messages are gone
    wait_for(lambda: not Run.objects.filter(experiment=experiment).exclude(
        status=Status.DONE).exists(), 180, "every run to finish after the restart")
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE and experiment.progress == 100.0
    assert {r.attempts for r in experiment.runs.all()} == {1}  # each ran exactly once
    log = (tmp_path / "worker-restart.log").read_text()
    assert "had lost their message" in log


def test_deleting_a_running_experiment_stops_its_run_without_an_error(
        live_celery, start_worker, wait_for, tmp_path):
    start_worker(concurrency=1, name="delete", **FAST)
    api = APIClient()
    response = api.post("/api/experiments/", {**CH3, "trials": 1,
                                              "params": {"time": {"sim_h": 96}}}, format="json")
    assert response.status_code == 202, response.content
    public_id = response.json()["id"]
    run = Run.objects.get(experiment__public_id=public_id)
    wait_for(lambda: Run.objects.filter(pk=run.pk, status=Status.RUNNING,
                                        progress__gt=0).exists(), 60, "the run to start")
    task_id = Run.objects.get(pk=run.pk).celery_id
    assert api.delete(f"/api/experiments/{public_id}/").status_code == 204
    assert not Run.objects.filter(pk=run.pk).exists()
    log_path = tmp_path / "worker-delete.log"
    line = wait_for(lambda: next((ln for ln in log_path.read_text().splitlines()
                                  if task_id in ln and ("succeeded" in ln or "raised" in ln)),
                                 None), 60, "the task to end")
    assert "succeeded" in line and "'superseded'" in line, line
    log = log_path.read_text()
    assert "DoesNotExist" not in log and "Traceback" not in log, log[-3000:]


def test_deleting_an_experiment_whose_runs_wait_in_the_database_queue_removes_its_upload(
        live_celery, start_worker, wait_for, settings, tmp_path):
    """An uploaded trace replayed by 12 runs, 2 sent to the broker and 10 waiting in the
    database; another client's experiment waits behind them. The owner deletes the experiment
    before any worker is up: its runs and its upload go at once; the two messages already in
    the broker end without running (and without a worker fetching the deleted upload), and
    the other client's runs are sent and finish."""
    settings.HETSITE_DISPATCH_AHEAD = 2
    settings.HETSITE_TRACE_CACHE_DIR = tmp_path / "web-cache"
    owner = Client()
    response = owner.post("/new/swf-replay/", {
        "p.trace": "lublin_256_small", "policies": ["fcfs", "easy", "conservative"],
        "trials": 4, "base_seed": 0, "p.cores_per_node": 1, "p.estimate_scale": 1.0,
        "p.use_requested_time": "on", "p.job_limit": 0, "p.bsld_tau": 10.0,
        "p.series_points": 3000, "trace_file": SimpleUploadedFile("mine.swf", (
            b"; MaxProcs: 4\n" + b"".join(f"{i} {i} -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1\n"
                                            .encode() for i in range(1, 30))))})
    assert response.status_code == 302, response.content.decode()[:2000]
    mine = Experiment.objects.get()
    sha = mine.scenario.params["trace"].removeprefix("upload:")
    assert Upload.objects.filter(sha256=sha).exists()
    sent = list(mine.runs.filter(celery_id__gt="").values_list("celery_id", flat=True))
    assert len(sent) == 2 and mine.runs.filter(status=Status.QUEUED, celery_id="").count() == 10
    response = APIClient(REMOTE_ADDR="10.9.8.7").post("/api/experiments/", {
        "kind": "uav", "preset": "small-baseline", "policies": ["random", "rbs"], "trials": 2},
        format="json")
    assert response.status_code == 202, response.content
    theirs = Experiment.objects.get(public_id=response.json()["id"])
    assert not theirs.runs.filter(celery_id__gt="").exists()  # the lookahead is full

    assert owner.delete(f"/api/experiments/{mine.public_id}/").status_code == 204
    assert not Run.objects.filter(experiment_id=mine.pk).exists()
    assert not Upload.objects.filter(sha256=sha).exists()
    assert not UploadOwner.objects.filter(sha256=sha).exists()
    assert not ExperimentUpload.objects.filter(sha256=sha).exists()

    worker_cache = tmp_path / "worker-cache"
    start_worker(concurrency=1, name="deleted", HETSITE_DISPATCH_AHEAD=2,
                 HETSITE_TRACE_CACHE_DIR=worker_cache)
    wait_for(lambda: Experiment.objects.filter(pk=theirs.pk, status=Status.DONE).exists(), 120,
             "the other client's experiment to finish")
    assert {(r.status, r.attempts) for r in theirs.runs.all()} == {(Status.DONE, 1)}
    log_path = tmp_path / "worker-deleted.log"
    for task_id in sent:
        line = wait_for(lambda task_id=task_id: next(
            (ln for ln in log_path.read_text().splitlines()
             if task_id in ln and ("succeeded" in ln or "raised" in ln)), None), 60,
            "the deleted experiment's message to be taken")
        assert "succeeded" in line and "'skipped'" in line, line
    assert "Traceback" not in log_path.read_text()
    assert not worker_cache.exists() or not any(worker_cache.iterdir())
