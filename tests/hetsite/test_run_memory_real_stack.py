"""HETSITE_RUN_MEMORY_MB on a real redis-server and a real Celery worker: a run over the limit
fails naming it, and the same pool process then takes the next run."""

from pathlib import Path

import pytest

from hetsite.models import Run, Status
from hetsite.permissions import STAFF, Account
from hetsite.services import submission

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]

LIMIT_MB = 400
# Peaks measured on such a worker (benchmarks/worker_memory.py, no limit; docs/reliability.md):
# UAV small-baseline with Random at 1,000 UAVs x 2,000 targets peaks at about 560 MB of
# VmData (its score matrices), and as it is, about 210 MB; the pool process starts at about
# 200 MB with OpenBLAS's buffers.
GREEDY = {"uavs_mean": 1000.0, "targets_mean": 2000.0}


def run_of(params: dict | None) -> Run:
    sub = submission.validate_submission(kind="uav", preset="small-baseline", params=params,
                                         policies=["random"], trials=1)
    return submission.create_experiment(sub, account=Account("site", STAFF)).runs.get()


def data_limit(pid: int) -> str:
    """The 'Max data size' soft limit of a process, as /proc says it."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max data size"):
            return line.split()[3]
    raise AssertionError(f"no data limit listed for {pid}")


def test_a_run_over_the_memory_limit_fails_naming_it_and_the_worker_takes_the_next(
        live_celery, start_worker, wait_for, tmp_path):
    worker = start_worker(concurrency=1, name="memory", HETSITE_RUN_MEMORY_MB=LIMIT_MB)
    ended = (Status.DONE, Status.FAILED, Status.CANCELLED)

    greedy = run_of(GREEDY)
    wait_for(lambda: Run.objects.filter(pk=greedy.pk, status__in=ended).exists(), 120,
             "the greedy run to end")
    small = run_of(None)
    wait_for(lambda: Run.objects.filter(pk=small.pk, status__in=ended).exists(), 60,
             "the small run to end")

    greedy.refresh_from_db()
    small.refresh_from_db()
    assert greedy.status == Status.FAILED
    assert greedy.error == (f"the run needed more memory than a run may use here "
                            f"(HETSITE_RUN_MEMORY_MB = {LIMIT_MB} MB); ask for a smaller "
                            f"scenario")
    assert greedy.result_gz is None and greedy.summary == {}
    assert small.status == Status.DONE and small.result_bytes > 0, small.error
    # One pool process ran both (claim tokens are host:pid:nonce): it survived the failure.
    pool_pid = int(greedy.worker.split(":")[1])
    assert int(small.worker.split(":")[1]) == pool_pid
    assert greedy.attempts == small.attempts == 1
    # The pool process is limited; the worker's main process (broker, reaper) is not.
    assert data_limit(pool_pid) == str(LIMIT_MB * 2**20)
    assert data_limit(worker.pid) == "unlimited"
    log = (tmp_path / "worker-memory.log").read_text()
    assert "needed more memory than a run may use here" in log and "Traceback" not in log
