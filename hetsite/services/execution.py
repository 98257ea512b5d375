"""The worker side: claim a run, keep its heartbeat, report progress, store its result, reap
runs whose worker was lost, and recompute the experiment's state from its runs.

Every status change is a conditional update, so a redelivered message, a reaper and a late
executor never undo each other's work.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import socket
import threading
import time
import traceback
import uuid

from django.conf import settings
from django.db import connections, transaction
from django.db.models import Avg, Exists, F, OuterRef
from django.utils import timezone

from simcore.errors import RunCancelled, ScenarioError
from simcore.result import Result
from simcore.stats import mean_ci

from .. import kinds
from ..models import FINAL_STATUSES, Experiment, Run, Status
from ..uploads import trace_library

log = logging.getLogger(__name__)


def claim_run(run_id: int) -> Run | None:
    """Take a queued run for execution with a conditional update; None if it is not queued.

    Only a queued run can be claimed, so a redelivered or duplicated message never runs a run
    twice. A run whose worker died is put back in the queue by :func:`reap_stale_runs`.
    """
    now = timezone.now()
    token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"[:200]
    # The cancel flag is tested in an EXISTS, not through a join: Django turns an update
    # filtered across a join into "WHERE id IN (subquery)", and PostgreSQL, after waiting for a
    # concurrent claim's row lock, does not re-evaluate that subquery's "status = queued", so
    # several workers would claim the same run (tests/hetsite/test_row_races.py).
    cancelled = Experiment.objects.filter(pk=OuterRef("experiment_id"), cancel_requested=True)
    claimed = (Run.objects.filter(~Exists(cancelled), pk=run_id, status=Status.QUEUED)
               .update(status=Status.RUNNING, started=now, heartbeat=now, progress=0.0,
                       attempts=F("attempts") + 1, worker=token))
    if not claimed:
        return None
    run = Run.objects.select_related("experiment__scenario").get(pk=run_id)
    Experiment.objects.filter(pk=run.experiment_id, status=Status.QUEUED).update(
        status=Status.RUNNING)
    return run


class Heartbeat:
    """Touches the run's heartbeat from a background thread while the engine computes.

    A run whose heartbeat stops (worker killed, machine lost) is requeued by the reaper. The
    updates are filtered by the claim token, so a run that was reaped and claimed again is
    never written by its old executor.
    """

    def __init__(self, run: Run, interval: float | None = None):
        self.run = run
        self.interval = interval or settings.HETSITE_HEARTBEAT_SECONDS
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True,
                                        name=f"heartbeat-{run.pk}")

    def _beat(self):
        try:
            while not self._stop.wait(self.interval):
                Run.objects.filter(pk=self.run.pk, status=Status.RUNNING,
                                   worker=self.run.worker).update(heartbeat=timezone.now())
        finally:
            connections.close_all()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def reap_stale_runs() -> dict[str, int]:
    """Requeue runs whose worker stopped beating; fail them after too many attempts.

    Also dispatches queued runs whose message never reached the broker. Safe to call from
    every worker at once: each row changes with a conditional update.
    """
    now = timezone.now()
    stale = now - timezone.timedelta(seconds=settings.HETSITE_STALE_RUN_SECONDS)
    counts = {"requeued": 0, "failed": 0, "dispatched": 0}
    touched = set()
    for run in Run.objects.filter(status=Status.RUNNING, heartbeat__lt=stale).only(
            "pk", "attempts", "experiment_id"):
        still = Run.objects.filter(pk=run.pk, status=Status.RUNNING, heartbeat__lt=stale)
        if run.attempts >= settings.HETSITE_MAX_ATTEMPTS:
            if still.update(status=Status.FAILED, finished=now, error=(
                    f"its worker was lost {run.attempts} times (killed, crashed or over the "
                    "hard time limit); not retried again")):
                counts["failed"] += 1
                touched.add(run.experiment_id)
        elif still.update(status=Status.QUEUED, progress=0.0, worker="", celery_id="",
                          error=f"requeued after its worker was lost (attempt {run.attempts})"):
            counts["requeued"] += 1
            touched.add(run.experiment_id)
            _dispatch_one(run.pk)
    orphans = Run.objects.filter(status=Status.QUEUED, celery_id="",
                                 created__lt=now - timezone.timedelta(seconds=30),
                                 experiment__cancel_requested=False)
    for run in orphans.only("pk", "experiment_id"):
        if _dispatch_one(run.pk):
            counts["dispatched"] += 1
            touched.add(run.experiment_id)
    for experiment_id in touched:
        refresh_experiment(experiment_id)
    return counts


def _dispatch_one(run_id: int) -> bool:
    from ..tasks import run_simulation

    try:
        task = run_simulation.apply_async((run_id,))
    except Exception as exc:
        log.warning("could not dispatch run %s: %s", run_id, exc)
        return False
    # Not only while queued: a worker may have claimed the run already.
    Run.objects.filter(pk=run_id, celery_id="").update(celery_id=task.id)
    return True


class ProgressReporter:
    """The engine's progress callback: throttled writes, and cancellation at the next event."""

    def __init__(self, run: Run, min_interval: float = 0.5):
        self.run_id = run.pk
        self.token = run.worker
        self.experiment_id = run.experiment_id
        self.min_interval = min_interval
        self._last_write = 0.0
        self._last_frac = -1.0

    def __call__(self, frac: float) -> None:
        now = time.monotonic()
        if frac < 1.0 and (now - self._last_write < self.min_interval
                           or frac - self._last_frac < 0.005):
            return
        self._last_write, self._last_frac = now, frac
        if Experiment.objects.filter(pk=self.experiment_id, cancel_requested=True).exists():
            raise RunCancelled()
        Run.objects.filter(pk=self.run_id, status=Status.RUNNING, worker=self.token).update(
            progress=round(100.0 * frac, 1), heartbeat=timezone.now())
        _refresh_progress(self.experiment_id)


def execute_run(run_id: int) -> str:
    """Claim, simulate and store one run; returns the final status (or 'skipped')."""
    run = claim_run(run_id)
    if run is None:
        return "skipped"
    experiment = run.experiment
    lab = kinds.get_kind(experiment.kind)
    try:
        if lab is None:
            raise ScenarioError("kind", f"scenario kind {experiment.kind!r} is not available")
        params = experiment.scenario.params
        if run.overrides:
            from .submission import with_overrides

            params = with_overrides(params, run.overrides)
        with Heartbeat(run):
            result = lab.engine.simulate({"kind": experiment.kind, "params": params},
                                         policy=run.policy, seed=run.seed,
                                         progress=ProgressReporter(run), traces=trace_library())
    except RunCancelled:
        return end_run(run, Status.CANCELLED, "cancelled by request")
    except ScenarioError as err:
        return end_run(run, Status.FAILED, str(err))
    except Exception as err:
        if type(err).__name__ == "SoftTimeLimitExceeded":
            limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
            return end_run(run, Status.FAILED, f"time limit of {limit} s exceeded")
        log.exception("run %s failed", run.public_id)
        return end_run(run, Status.FAILED, f"engine error: {_one_line(err)}")
    try:
        return finish_run(run, lab, result)
    except Exception as err:  # never leave a run "running" because its result could not be saved
        log.exception("run %s: result not stored", run.public_id)
        return end_run(run, Status.FAILED, f"could not store the result: {_one_line(err)}")


def _one_line(err: BaseException) -> str:
    return traceback.format_exception_only(type(err), err)[-1].strip()


def finish_run(run: Run, lab: kinds.LabKind, result) -> str:
    data = result.to_dict(timing=True)  # plain JSON data: lists, no numpy
    compact = lab.compact(Result.from_dict(data))
    payload = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    # One transaction with the experiment's refresh: nobody sees a finished run beside an
    # experiment that still says queued or running (a reaper's refresh may have just said so).
    with transaction.atomic():
        updated = Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
            status=Status.DONE, progress=100.0, finished=timezone.now(),
            summary=data["summary"], timing=data.get("timing", {}),
            series=compact.get("series", {}), dist=compact.get("dist", {}),
            result_gz=gzip.compress(payload, compresslevel=6), result_bytes=len(payload),
            code_version=data["meta"].get("code_version", "")[:40], error="")
        refresh_experiment(run.experiment_id)
    return Status.DONE if updated else "superseded"


def end_run(run: Run, status: str, message: str) -> str:
    with transaction.atomic():
        Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
            status=status, error=message[:4000], finished=timezone.now())
        refresh_experiment(run.experiment_id)
    return status


# --- experiment-level state ----------------------------------------------------------------------

def _refresh_progress(experiment_id: int) -> None:
    avg = Run.objects.filter(experiment_id=experiment_id).aggregate(p=Avg("progress"))["p"]
    Experiment.objects.filter(pk=experiment_id).update(progress=round(avg or 0.0, 1))


def refresh_experiment(experiment_id: int) -> Experiment:
    """Recompute status, progress and the per-policy summary table from the runs.

    Workers finish runs and reapers requeue them concurrently, so the read of the runs and the
    write of the experiment happen under a lock on the experiment row (SQLite: the IMMEDIATE
    transaction's write lock), never from a stale read.
    """
    with transaction.atomic():
        experiment = Experiment.objects.select_for_update().get(pk=experiment_id)
        runs = list(experiment.runs.only("point", "overrides", "policy", "status", "progress",
                                         "summary"))
        statuses = {r.status for r in runs}
        if statuses <= set(FINAL_STATUSES):
            if Status.FAILED in statuses:
                status = Status.FAILED  # partial results are still shown
            elif Status.CANCELLED in statuses:
                status = Status.CANCELLED
            else:
                status = Status.DONE
            finished = experiment.finished or timezone.now()
        else:
            started = statuses - {Status.QUEUED}
            status = Status.RUNNING if started else Status.QUEUED
            finished = None
        # A cancelled run counts with the progress it had made, so a cancelled experiment
        # never shows a full bar.
        done = sum(100.0 if r.status in (Status.DONE, Status.FAILED) else r.progress
                   for r in runs)
        progress = done / max(len(runs), 1)
        lab = kinds.get_kind(experiment.kind)
        summary = summary_table(lab, experiment, runs) if lab else []
        Experiment.objects.filter(pk=experiment_id).update(
            status=status, progress=round(progress, 1), finished=finished, summary=summary)
    experiment.refresh_from_db()
    return experiment


def summary_table(lab: kinds.LabKind, experiment: Experiment, runs) -> list[dict]:
    """One row per (sweep point, policy): the point's overrides, the number of finished runs
    and the mean with its 95% CI of every headline metric over them."""
    done: dict[tuple[int, str], list[dict]] = {}
    overrides: dict[int, dict] = {}
    for r in runs:
        overrides.setdefault(r.point, r.overrides)
        if r.status == Status.DONE:
            done.setdefault((r.point, r.policy), []).append(r.summary)
    table = []
    for point in sorted(overrides):
        for policy in experiment.policies:
            summaries = done.get((point, policy), [])
            row = {"point": point, "setting": overrides[point], "policy": policy,
                   "runs": len(summaries)}
            for metric in lab.metrics:
                row[metric.key] = mean_ci([s.get(metric.key) for s in summaries
                                           if isinstance(s.get(metric.key), (int, float))])
            table.append(row)
    return table
