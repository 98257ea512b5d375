"""HETSITE_RUN_MEMORY_MB on a real redis-server and a real Celery worker: a run over the limit
fails naming it, its pool process is replaced, and the new one takes the next run."""

from pathlib import Path

import pytest

from hetsite.models import Run, Status
from hetsite.permissions import STAFF, Account
from hetsite.services import submission

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]

LIMIT_MB = 512
# Peaks measured on such a worker (benchmarks/worker_memory.py; docs/reliability.md "Memory of
# a run"): UAV small-baseline with Random at 1,000 UAVs x 2,000 targets needs about 600 MB of
# VmData (its score matrices), and as it is about 210 MB; a fresh pool process holds 200 MB.
# At 512 MB the greedy run fails past 350 MB resident, so its process, which once held more
# than 256 MB, is replaced after it (CELERY_WORKER_MAX_MEMORY_PER_CHILD).
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


def test_a_run_over_the_memory_limit_fails_naming_it_and_a_fresh_process_runs_the_next(
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
    # The greedy run's pool process was replaced (what it held must not shrink the next run's
    # memory); the new one took the small run, under the same limit. The worker's main
    # process (broker, reaper) is never limited.
    greedy_pid, small_pid = (int(r.worker.split(":")[1]) for r in (greedy, small))
    assert small_pid != greedy_pid
    assert greedy.attempts == small.attempts == 1
    assert data_limit(small_pid) == str(LIMIT_MB * 2**20)
    assert data_limit(worker.pid) == "unlimited"
    log = (tmp_path / "worker-memory.log").read_text()
    assert "needed more memory than a run may use here" in log and "Traceback" not in log
