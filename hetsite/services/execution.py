"""The worker side: claim a run, keep its heartbeat, report progress, store its result, reap
runs whose worker was lost, and recompute the experiment's state from its runs.

Every status change is a conditional update, so a redelivered message, a reaper and a late
executor never undo each other's work.
"""

from __future__ import annotations

import gc
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
from django.db.models import Count, Exists, F, OuterRef, Sum
from django.utils import timezone

from simcore.errors import PolicyViolation, RunCancelled, ScenarioError
from simcore.params import with_overrides
from simcore.result import Result
from simcore.stats import mean_ci

from .. import decisions, kinds, run_memory
from ..models import FINAL_STATUSES, Experiment, Run, Status, SummaryRow
from ..uploads import upload_store
from . import dispatch

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
    run = Run.objects.select_related("experiment__scenario").filter(pk=run_id).first()
    if run is None:
        return None  # deleted with its experiment right after the claim
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
    """Requeue runs whose worker stopped beating (fail them after too many attempts), put back
    queued runs whose message the broker lost, and run a dispatch pass.

    Safe to call from every worker at once: each row changes with a conditional update.
    """
    now = timezone.now()
    stale = now - timezone.timedelta(seconds=settings.HETSITE_STALE_RUN_SECONDS)
    counts = {"requeued": 0, "failed": 0, "lost": 0, "dispatched": 0}
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
        elif still.update(status=Status.QUEUED, progress=0.0, worker="", celery_id="", sent=None,
                          error=f"requeued after its worker was lost (attempt {run.attempts})"):
            counts["requeued"] += 1
            touched.add(run.experiment_id)
    for experiment_id in touched:
        refresh_experiment(experiment_id)
    try:
        counts["lost"] = dispatch.resend_lost()
    except Exception as exc:  # kombu/redis errors: the next pass checks again
        log.warning("reaper: could not read the broker (%s)", exc)
    counts["dispatched"] = dispatch.top_up()
    return counts


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
        # Cancelled, or deleted (its delete cancelled it first): stop at this event.
        if not Experiment.objects.filter(pk=self.experiment_id, cancel_requested=False).exists():
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
    kind_lab = kinds.get_kind(experiment.kind)
    try:
        if kind_lab is None:
            raise ScenarioError("kind", f"scenario kind {experiment.kind!r} is not available")
        params = experiment.scenario.params
        if run.overrides:
            params = with_overrides(params, run.overrides)
        # Asked only of explained runs: an engine a plugin brings may predate ``explain``.
        told = ({"explain": decisions.decision_log(experiment.explain_tasks)}
                if experiment.explain else {})
        with Heartbeat(run):
            result = kind_lab.engine.simulate({"kind": experiment.kind, "params": params},
                                         policy=run.policy, seed=run.seed,
                                         progress=ProgressReporter(run), inputs=upload_store(),
                                         **told)
    except RunCancelled:
        return end_run(run, Status.CANCELLED, "cancelled by request")
    except (ScenarioError, PolicyViolation) as err:
        return end_run(run, Status.FAILED, str(err))
    except MemoryError:  # over HETSITE_RUN_MEMORY_MB (numpy's _ArrayMemoryError too)
        result = None  # failed below, once this block's traceback lets the run's memory go
    except Exception as err:
        if type(err).__name__ == "SoftTimeLimitExceeded":
            limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
            return end_run(run, Status.FAILED, f"time limit of {limit} s exceeded")
        log.exception("run %s failed", run.public_id)
        return end_run(run, Status.FAILED, f"engine error: {_one_line(err)}")
    if result is None:
        return out_of_memory(run)
    try:
        return finish_run(run, kind_lab, result)
    except MemoryError:  # serializing the result: nothing was written yet
        pass
    except Exception as err:  # never leave a run "running" because its result could not be saved
        log.exception("run %s: result not stored", run.public_id)
        return end_run(run, Status.FAILED, f"could not store the result: {_one_line(err)}")
    del result
    return out_of_memory(run)


def run_timing(timing: dict) -> dict:
    """The timing a run's row keeps: its figures, not the per-event lists (``event_ms``, one
    number per event), which the full result keeps. Every run list and detail serves the row:
    a 500,000-job replay's list was 11 MB of JSON a run, and 15 such runs made one anonymous
    GET of an experiment 160 MB and 640 MB of the web process's memory (outside audit)."""
    return {k: v for k, v in timing.items() if not isinstance(v, list | dict)}


def out_of_memory(run: Run) -> str:
    """Fail a run that hit the memory limit (``hetsite.run_memory``) once its memory is free.

    Called after the ``except`` block: a MemoryError's traceback holds the run's frames and so
    its arrays, and with them alive the small allocations of this final write could fail too
    and leave the run "running" for the reaper. No part of a result was written: it is stored
    in one update, after it is serialized."""
    gc.collect()  # frames and arrays caught in reference cycles
    log.warning("run %s: %s", run.public_id, run_memory.failure_message())
    return end_run(run, Status.FAILED, run_memory.failure_message())


def _one_line(err: BaseException) -> str:
    return traceback.format_exception_only(type(err), err)[-1].strip()


def finish_run(run: Run, kind_lab: kinds.LabKind, result) -> str:
    data = result.to_dict(timing=True)  # plain JSON data: lists, no numpy
    compact = kind_lab.compact(Result.from_dict(data))
    payload = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    decisions_gz, decisions_info = decisions.packed(data)
    # One transaction with the experiment's refresh: nobody sees a finished run beside an
    # experiment that still says queued or running (a reaper's refresh may have just said so).
    with transaction.atomic():
        updated = Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
            status=Status.DONE, progress=100.0, finished=timezone.now(),
            summary=data["summary"], timing=run_timing(data.get("timing", {})),
            series=compact.get("series", {}), dist=compact.get("dist", {}),
            result_gz=gzip.compress(payload, compresslevel=6), result_bytes=len(payload),
            decisions_gz=decisions_gz, decisions_info=decisions_info,
            code_version=data["meta"].get("code_version", "")[:40],
            plugin=data["meta"].get("plugin"), error="")
        refresh_experiment(run.experiment_id, cell=(run.point, run.policy))
    return Status.DONE if updated else "superseded"


def end_run(run: Run, status: str, message: str) -> str:
    """The run's final status (or "superseded": reaped and claimed again, or deleted)."""
    with transaction.atomic():
        updated = Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
            status=status, error=message[:4000], finished=timezone.now())
        refresh_experiment(run.experiment_id)
    return status if updated else "superseded"


# --- experiment-level state ----------------------------------------------------------------------
# Kept incrementally: status and progress come from counts over the (experiment, status) index
# and the progress of the runs in flight; a finished run recomputes its own summary cell. No
# step reads every run of an experiment, so a run of a 20,000-run sweep finishes as fast as one
# of a 2-run experiment.

def _state(experiment_id: int) -> tuple[str, float]:
    """(status, progress) of an experiment from its runs."""
    runs = Run.objects.filter(experiment_id=experiment_id)
    counts = dict(runs.order_by().values_list("status").annotate(n=Count("id")))
    total = sum(counts.values())
    if set(counts) <= set(FINAL_STATUSES):
        if counts.get(Status.FAILED):
            status = Status.FAILED  # partial results are still shown
        elif counts.get(Status.CANCELLED):
            status = Status.CANCELLED
        else:
            status = Status.DONE
    else:
        status = Status.RUNNING if set(counts) - {Status.QUEUED} else Status.QUEUED
    # A cancelled run counts with the progress it had made, so a cancelled experiment never
    # shows a full bar.
    partial = runs.filter(status__in=(Status.RUNNING, Status.CANCELLED)).aggregate(
        p=Sum("progress"))["p"] or 0.0
    done = 100.0 * (counts.get(Status.DONE, 0) + counts.get(Status.FAILED, 0)) + partial
    return status, round(done / max(total, 1), 1)


def _refresh_progress(experiment_id: int) -> None:
    Experiment.objects.filter(pk=experiment_id).update(progress=_state(experiment_id)[1])


def refresh_experiment(experiment_id: int, cell: tuple[int, str] | None = None
                       ) -> Experiment | None:
    """Recompute status and progress from the runs, and the summary cell ``(point, policy)``
    when a run of it finished; None when the experiment was deleted meanwhile.

    Workers finish runs and reapers requeue them concurrently, so the read of the runs and the
    write of the experiment happen under a lock on the experiment row (SQLite: the IMMEDIATE
    transaction's write lock), never from a stale read.
    """
    with transaction.atomic():
        experiment = Experiment.objects.select_for_update().filter(pk=experiment_id).first()
        if experiment is None:
            return None
        status, progress = _state(experiment_id)
        finished = (experiment.finished or timezone.now()) if status in FINAL_STATUSES else None
        if cell is not None:
            kind_lab = kinds.get_kind(experiment.kind)
            if kind_lab is not None:
                refresh_cell(kind_lab, experiment_id, *cell)
        Experiment.objects.filter(pk=experiment_id).update(
            status=status, progress=progress, finished=finished)
    experiment.refresh_from_db()
    experiment.__dict__.pop("summary", None)
    return experiment


def refresh_cell(kind_lab: kinds.LabKind, experiment_id: int, point: int, policy: str) -> None:
    """The summary row of one (point, policy): its finished runs and the mean with its 95% CI
    of every headline metric over them."""
    summaries = list(Run.objects.filter(experiment_id=experiment_id, point=point, policy=policy,
                                        status=Status.DONE).values_list("summary", flat=True))
    SummaryRow.objects.filter(experiment_id=experiment_id, point=point, policy=policy).update(
        runs=len(summaries), metrics=cell_metrics(kind_lab, summaries))


def cell_metrics(kind_lab: kinds.LabKind, summaries: list[dict]) -> dict:
    return {m.key: mean_ci([s.get(m.key) for s in summaries
                            if isinstance(s.get(m.key), (int, float))]) for m in kind_lab.metrics}
