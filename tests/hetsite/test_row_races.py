"""Workers racing on the rows they share, on SQLite and on PostgreSQL.

Threads of this process stand in for worker processes: each has its own database connection, so
on PostgreSQL the conditional updates and the experiment's row lock meet real concurrent
transactions (on SQLite, the database's single write lock). A barrier releases all of them at
once, and each race is repeated a few times.
"""

import threading

import pytest
from django.db import connections

from hetsite.models import Experiment, Run, Status
from hetsite.services import execution, submission

pytestmark = pytest.mark.django_db(transaction=True)
ROUNDS = 4


def race(count: int, work) -> list:
    """``work(i)`` for i in range(count), all threads released together; their results."""
    barrier = threading.Barrier(count)
    results, errors = [None] * count, []

    def run(i):
        try:
            barrier.wait(timeout=30)
            results[i] = work(i)
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()  # this thread's connection

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    return results


def new_experiment(small, trials):
    sub = submission.validate_submission(kind=small["kind"], preset=small["preset"],
                                         policies=small["policies"], trials=trials)
    return submission.create_experiment(sub, dispatch=False)


def test_of_many_simultaneous_claims_of_a_run_exactly_one_wins(database, small):
    for _ in range(ROUNDS):
        run = new_experiment(small, trials=1).runs.first()
        claims = race(8, lambda i, pk=run.pk: execution.claim_run(pk))
        winners = [c for c in claims if c is not None]
        assert len(winners) == 1
        run.refresh_from_db()
        assert (run.status, run.attempts, run.worker) == (Status.RUNNING, 1, winners[0].worker)


def test_finishing_workers_and_a_reaper_leave_every_experiment_as_its_runs_say(
        database, small, settings, monkeypatch):
    """Every run ends (here: fails) in its own thread while a reaper requeues the same runs as
    stale: each run is won by exactly one side, and the experiment row, refreshed by all of
    them concurrently, equals a fresh recomputation from the final runs (a refresh from a stale
    read, the race the crash test once found, would leave it behind)."""
    settings.HETSITE_STALE_RUN_SECONDS = 0  # every running run looks lost to the reaper
    requeued = []
    # The reaper's dispatch goes to the broker, which this test does not need.
    monkeypatch.setattr(execution, "_dispatch_one", lambda pk: requeued.append(pk) or True)
    for _ in range(ROUNDS):
        experiment = new_experiment(small, trials=3)
        runs = [execution.claim_run(r.pk) for r in experiment.runs.all()]
        requeued.clear()

        def work(i, runs=runs):
            if i == len(runs):
                return execution.reap_stale_runs()
            return execution.end_run(runs[i], Status.FAILED, "engine error: boom")

        counts = race(len(runs) + 1, work)[-1]
        final = {r.pk: r.status for r in Run.objects.filter(experiment=experiment)}
        assert set(final.values()) <= {Status.FAILED, Status.QUEUED}
        assert sorted(pk for pk, s in final.items() if s == Status.QUEUED) == sorted(requeued)
        assert counts["requeued"] == len(requeued)
        stored = Experiment.objects.get(pk=experiment.pk)
        fresh = execution.refresh_experiment(experiment.pk)
        assert (stored.status, stored.progress, stored.finished is None, stored.summary) == (
            fresh.status, fresh.progress, fresh.finished is None, fresh.summary)
