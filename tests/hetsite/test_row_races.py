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
    them concurrently, equals a fresh recomputation from the final runs. (Whether a stale
    refresh happens to land last here is up to the scheduler; the next test forces it.)"""
    settings.HETSITE_STALE_RUN_SECONDS = 0  # every running run looks lost to the reaper
    # The reaper's dispatch pass goes to the broker, which this test does not need.
    monkeypatch.setattr(execution.dispatch, "top_up", lambda: 0)
    monkeypatch.setattr(execution.dispatch, "resend_lost", lambda: 0)
    for _ in range(ROUNDS):
        experiment = new_experiment(small, trials=3)
        runs = [execution.claim_run(r.pk) for r in experiment.runs.all()]

        def work(i, runs=runs):
            if i == len(runs):
                return execution.reap_stale_runs()
            return execution.end_run(runs[i], Status.FAILED, "engine error: boom")

        counts = race(len(runs) + 1, work)[-1]
        final = {r.pk: r.status for r in Run.objects.filter(experiment=experiment)}
        assert set(final.values()) <= {Status.FAILED, Status.QUEUED}
        requeued = Run.objects.filter(experiment=experiment, status=Status.QUEUED)
        assert counts["requeued"] == requeued.count()
        assert not requeued.exclude(celery_id="").exists()  # back in the database queue
        stored = Experiment.objects.get(pk=experiment.pk)
        fresh = execution.refresh_experiment(experiment.pk)
        assert (stored.status, stored.progress, stored.finished is None, stored.summary) == (
            fresh.status, fresh.progress, fresh.finished is None, fresh.summary)


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_a_refresh_never_writes_what_it_read_before_a_concurrent_finish(database, small):
    """The interleaving that once put a finished experiment back to "running", forced step by
    step: worker A's refresh has read the runs when worker B finishes the other run. B's
    refresh must wait for A's lock on the experiment row and then write the final state; if it
    could go first, A would write its earlier reading over it. (SQLite cannot interleave here:
    A's transaction holds the database's write lock, so B's run update itself waits.)"""
    import psycopg2

    experiment = new_experiment(small, trials=1)
    run_a, run_b = (execution.claim_run(r.pk) for r in experiment.runs.all())
    db = connections["default"].settings_dict
    observer = psycopg2.connect(host=db["HOST"], port=db["PORT"], user=db["USER"],
                                dbname=db["NAME"])
    observer.autocommit = True
    a_has_read, b_ready, b_done = threading.Event(), threading.Event(), threading.Event()
    b_pid, b_errors = [], []

    def worker_b():
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                b_pid.append(cursor.fetchone()[0])
            b_ready.set()
            a_has_read.wait(30)
            execution.end_run(run_b, Status.FAILED, "engine error: b")
        except Exception as exc:  # reported by the main thread
            b_errors.append(exc)
        finally:
            b_done.set()
            connections.close_all()

    def b_waits_for_a_lock() -> bool:
        with observer.cursor() as cursor:
            cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                           b_pid)
            row = cursor.fetchone()
        return bool(row) and row[0] == "Lock"

    def pause_after_reading_runs(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if (sql.startswith("SELECT") and 'FROM "hetsite_run"' in sql
                and connections["default"].in_atomic_block and not a_has_read.is_set()):
            a_has_read.set()  # B may go now; A goes on once B is done or waits for A
            for _ in range(600):
                if b_done.wait(0.05) or b_waits_for_a_lock():
                    break
            else:
                raise AssertionError("worker B neither finished nor waited for a lock")
        return result

    b = threading.Thread(target=worker_b)
    b.start()
    assert b_ready.wait(30), b_errors
    try:
        with connections["default"].execute_wrapper(pause_after_reading_runs):
            execution.end_run(run_a, Status.FAILED, "engine error: a")
    finally:
        b.join(60)
        observer.close()
    assert a_has_read.is_set() and not b_errors, b_errors
    stored = Experiment.objects.get(pk=experiment.pk)
    assert {r.status for r in stored.runs.all()} == {Status.FAILED}
    assert (stored.status, stored.progress) == (Status.FAILED, 100.0)
    assert stored.finished is not None
