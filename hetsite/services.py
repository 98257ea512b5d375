"""Every write to scenarios, experiments and runs, and every status change, happens here.

Submitting an experiment validates it with the engine, creates the scenario, the experiment and
its runs in one transaction and, once committed, enqueues one Celery task per run as a group.
If the broker refuses the group, the experiment is deleted again and ``BrokerUnavailable``
raised: nothing half-made is left behind.
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
from dataclasses import dataclass

from django.conf import settings
from django.db import connections, transaction
from django.db.models import Avg, F
from django.utils import timezone

from scheduling.engine.errors import RunCancelled, ScenarioError
from scheduling.engine.params import to_dict
from scheduling.engine.result import Result, code_version
from scheduling.engine.stats import mean_ci

from . import kinds
from .models import FINAL_STATUSES, Experiment, Run, Scenario, Status

log = logging.getLogger(__name__)


class BrokerUnavailable(Exception):
    """The task broker could not take the experiment's runs."""


@dataclass(frozen=True)
class Submission:
    """A validated experiment request, ready to be stored."""

    ui: kinds.KindUI
    params: dict  # normalized by the engine (defaults filled in)
    policies: list[str]
    trials: int
    base_seed: int
    name: str
    preset: str


def limits() -> dict:
    return {"max_trials": settings.HETSITE_MAX_TRIALS,
            "max_policies": settings.HETSITE_MAX_POLICIES,
            "max_runs": settings.HETSITE_MAX_RUNS}


def _kind(kind: str) -> kinds.KindUI:
    ui = kinds.get_kind(kind)
    if ui is None:
        known = ", ".join(k.kind for k in kinds.all_kinds())
        raise ScenarioError("kind", f"unknown scenario kind {kind!r}; known: {known}")
    return ui


def validate_scenario(*, kind: str, params: dict | None = None, preset: str = "") -> dict:
    """The engine-normalized parameters (defaults filled in); raises ScenarioError."""
    ui = _kind(kind)
    if preset:
        preset_info = ui.engine.get_preset(preset)
        if preset_info.kind != kind:
            raise ScenarioError("preset", f"preset {preset!r} is for {preset_info.kind!r}, "
                                          f"not {kind!r}")
        params = _merge(to_dict(ui.engine.scenario(kind, preset_info.params).params),
                        params or {})
    return to_dict(ui.engine.scenario(kind, params or {}).params)


def _merge(base: dict, overlay: dict) -> dict:
    """``overlay`` on top of ``base``, recursing into nested parameter groups."""
    out = dict(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def validate_submission(*, kind: str, params: dict | None = None, preset: str = "",
                        policies: list[str], trials: int, base_seed: int = 0,
                        name: str = "") -> Submission:
    """Check an experiment request against the engine; raises ScenarioError naming the field."""
    normalized = validate_scenario(kind=kind, params=params, preset=preset)
    ui = _kind(kind)
    engine = ui.engine
    check_site_limits(ui, normalized)
    lim = limits()
    if not policies:
        raise ScenarioError("policies", "choose at least one policy")
    if len(policies) > lim["max_policies"]:
        raise ScenarioError("policies", f"at most {lim['max_policies']} policies per experiment")
    if len(set(policies)) != len(policies):
        raise ScenarioError("policies", "each policy may be chosen once")
    for policy in policies:
        try:
            engine.get_policy(kind, policy)
        except ScenarioError as err:
            raise ScenarioError("policies", err.message) from None
    if isinstance(trials, bool) or not isinstance(trials, int) or not (
            1 <= trials <= lim["max_trials"]):
        raise ScenarioError("trials", f"must be an integer >= 1 and <= {lim['max_trials']}")
    if len(policies) * trials > lim["max_runs"]:
        raise ScenarioError("trials", f"policies x trials must be <= {lim['max_runs']} runs")
    if isinstance(base_seed, bool) or not isinstance(base_seed, int) or not (
            0 <= base_seed < 2**62):
        raise ScenarioError("base_seed", "must be an integer >= 0 and < 2^62")
    name = (name or "").strip()[:200] or _default_name(ui, preset, policies)
    return Submission(ui, normalized, list(policies), trials, base_seed, name, preset)


def check_site_limits(ui: kinds.KindUI, params: dict) -> None:
    """Refuse scenarios larger than this site allows (``HETSITE_LIMITS``)."""
    configured = settings.HETSITE_LIMITS
    for limit in ui.limits:
        cap = configured.get(limit.name)
        value = limit.measure(params)
        if cap is not None and value > cap:
            raise ScenarioError(limit.field, f"{limit.what} is {value:,.0f}, above this site's "
                                             f"limit {limit.name} = {cap:,} "
                                             f"(HETSITE_LIMIT_{limit.name.upper()})")


def _default_name(ui, preset, policies) -> str:
    head = preset or ui.title
    more = f" +{len(policies) - 2}" if len(policies) > 2 else ""
    return f"{head}: {', '.join(policies[:2])}{more}"


def _scenario_row(sub: Submission) -> Scenario:
    """The preset's own row when the parameters are the preset's, else a new scenario."""
    if sub.preset:
        preset = sub.ui.engine.get_preset(sub.preset)
        if validate_scenario(kind=sub.ui.kind, preset=sub.preset) == sub.params:
            row, _ = Scenario.objects.get_or_create(
                is_preset=True, preset=sub.preset,
                defaults={"kind": sub.ui.kind, "name": sub.preset, "params": sub.params,
                          "description": preset.description})
            return row
        name = f"{sub.preset} (edited)"
    else:
        name = sub.ui.title
    return Scenario.objects.create(kind=sub.ui.kind, name=name, preset=sub.preset,
                                   params=sub.params)


def create_scenario(*, kind: str, name: str, params: dict, description: str = "",
                    preset: str = "") -> Scenario:
    """Save a named scenario; ``params`` must come from validate_scenario."""
    return Scenario.objects.create(kind=kind, name=name, params=params, preset=preset,
                                   description=description)


def create_experiment(sub: Submission, owner=None, dispatch: bool = True) -> Experiment:
    with transaction.atomic():
        scenario = _scenario_row(sub)
        experiment = Experiment.objects.create(
            name=sub.name, kind=sub.ui.kind, scenario=scenario, policies=sub.policies,
            trials=sub.trials, base_seed=sub.base_seed,
            owner=owner if owner is not None and owner.is_authenticated else None,
            code_version=code_version())
        Run.objects.bulk_create([
            Run(experiment=experiment, policy=policy, trial=trial, seed=sub.base_seed + trial)
            for policy in sub.policies for trial in range(sub.trials)
        ])
    if dispatch:
        dispatch_experiment(experiment)
    return experiment


def dispatch_experiment(experiment: Experiment) -> None:
    """Enqueue one task per queued run; on broker failure remove the experiment entirely."""
    from celery import group

    from .tasks import run_simulation

    runs = list(experiment.runs.filter(status=Status.QUEUED).only("id"))
    if not runs:
        return
    try:
        result = group(run_simulation.s(run.id) for run in runs).apply_async()
    except Exception as exc:  # kombu raises transport-specific errors
        log.warning("broker refused experiment %s: %s", experiment.public_id, exc)
        # Tasks of a partly sent group find their rows gone and skip (claim_run).
        if not experiment.runs.exclude(status=Status.QUEUED).exists():
            _delete_with_scenario(experiment)
        raise BrokerUnavailable(f"the task broker is unreachable ({type(exc).__name__}); "
                                "nothing was saved, please try again shortly") from exc
    for run, task in zip(runs, result.results, strict=True):
        Run.objects.filter(pk=run.pk, status=Status.QUEUED).update(celery_id=task.id)


# --- the worker side -----------------------------------------------------------------------------

def claim_run(run_id: int) -> Run | None:
    """Take a queued run for execution with a conditional update; None if it is not queued.

    Only a queued run can be claimed, so a redelivered or duplicated message never runs a run
    twice. A run whose worker died is put back in the queue by :func:`reap_stale_runs`.
    """
    now = timezone.now()
    token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"[:200]
    claimed = (Run.objects.filter(pk=run_id, status=Status.QUEUED,
                                  experiment__cancel_requested=False)
               .update(status=Status.RUNNING, started=now, heartbeat=now, progress=0.0,
                       attempts=F("attempts") + 1, worker=token))
    if not claimed:
        return None
    Experiment.objects.filter(runs__pk=run_id, status=Status.QUEUED).update(
        status=Status.RUNNING)
    return Run.objects.select_related("experiment__scenario").get(pk=run_id)


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
    from .tasks import run_simulation

    try:
        task = run_simulation.apply_async((run_id,))
    except Exception as exc:
        log.warning("could not dispatch run %s: %s", run_id, exc)
        return False
    Run.objects.filter(pk=run_id, status=Status.QUEUED, celery_id="").update(celery_id=task.id)
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
    ui = kinds.get_kind(experiment.kind)
    try:
        if ui is None:
            raise ScenarioError("kind", f"scenario kind {experiment.kind!r} is not available")
        with Heartbeat(run):
            result = ui.engine.simulate(
                {"kind": experiment.kind, "params": experiment.scenario.params},
                policy=run.policy, seed=run.seed, progress=ProgressReporter(run))
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
        return finish_run(run, ui, result)
    except Exception as err:  # never leave a run "running" because its result could not be saved
        log.exception("run %s: result not stored", run.public_id)
        return end_run(run, Status.FAILED, f"could not store the result: {_one_line(err)}")


def _one_line(err: BaseException) -> str:
    return traceback.format_exception_only(type(err), err)[-1].strip()


def finish_run(run: Run, ui: kinds.KindUI, result) -> str:
    data = result.to_dict(timing=True)  # plain JSON data: lists, no numpy
    compact = ui.compact(Result.from_dict(data))
    payload = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    updated = Run.objects.filter(pk=run.pk, status=Status.RUNNING, worker=run.worker).update(
        status=Status.DONE, progress=100.0, finished=timezone.now(),
        summary=data["summary"], timing=data.get("timing", {}),
        series=compact.get("series", {}), dist=compact.get("dist", {}),
        result_gz=gzip.compress(payload, compresslevel=6), result_bytes=len(payload),
        code_version=data["meta"].get("code_version", "")[:40], error="")
    refresh_experiment(run.experiment_id)
    return Status.DONE if updated else "superseded"


def end_run(run: Run, status: str, message: str) -> str:
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
        runs = list(experiment.runs.only("policy", "status", "progress", "summary"))
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
        done = sum(100.0 if r.status in FINAL_STATUSES else r.progress for r in runs)
        progress = done / max(len(runs), 1)
        ui = kinds.get_kind(experiment.kind)
        summary = summarize(ui, experiment.policies, runs) if ui else {}
        Experiment.objects.filter(pk=experiment_id).update(
            status=status, progress=round(progress, 1), finished=finished, summary=summary)
    experiment.refresh_from_db()
    return experiment


def summarize(ui: kinds.KindUI, policies: list[str], runs) -> dict:
    """Mean and 95% CI of every headline metric per policy, over the runs that finished."""
    table = {}
    for policy in policies:
        done = [r.summary for r in runs if r.policy == policy and r.status == Status.DONE]
        row = {"runs": len(done)}
        for metric in ui.metrics:
            values = [s.get(metric.key) for s in done
                      if isinstance(s.get(metric.key), (int, float))]
            row[metric.key] = mean_ci(values)
        table[policy] = row
    return table


def cancel_experiment(experiment: Experiment) -> Experiment:
    """Queued runs are revoked now; running ones stop at their next mapping event."""
    from .celery import app

    with transaction.atomic():
        Experiment.objects.filter(pk=experiment.pk).update(cancel_requested=True)
        queued = list(experiment.runs.filter(status=Status.QUEUED)
                      .values_list("celery_id", flat=True))
        experiment.runs.filter(status=Status.QUEUED).update(
            status=Status.CANCELLED, error="cancelled before it started",
            finished=timezone.now())
    ids = [task_id for task_id in queued if task_id]
    if ids:
        try:
            app.control.revoke(ids)
        except Exception as exc:  # the run rows are already cancelled; revoke is an optimization
            log.warning("could not revoke %d tasks: %s", len(ids), exc)
    return refresh_experiment(experiment.pk)


def rerun_experiment(experiment: Experiment, owner=None) -> Experiment:
    """A new experiment with the same scenario, policies, trials and seeds."""
    sub = validate_submission(kind=experiment.kind, params=experiment.scenario.params,
                              policies=list(experiment.policies), trials=experiment.trials,
                              base_seed=experiment.base_seed,
                              name=f"{experiment.name} (re-run)"[:200],
                              preset=experiment.scenario.preset)
    return create_experiment(sub, owner=owner)


def delete_experiment(experiment: Experiment) -> None:
    if experiment.status not in FINAL_STATUSES:
        cancel_experiment(experiment)
    _delete_with_scenario(experiment)


def _delete_with_scenario(experiment: Experiment) -> None:
    """Delete an experiment and its runs, and its scenario unless a preset or shared."""
    scenario = experiment.scenario
    experiment.delete()
    if not scenario.is_preset and not scenario.experiments.exists():
        scenario.delete()


def load_presets() -> int:
    """Create or update one Scenario row per engine preset; returns how many exist."""
    count = 0
    for ui in kinds.all_kinds():
        for preset in ui.engine.list_presets(ui.kind):
            params = to_dict(ui.engine.scenario(ui.kind, preset.params).params)
            Scenario.objects.update_or_create(
                is_preset=True, preset=preset.name,
                defaults={"kind": ui.kind, "name": preset.name, "params": params,
                          "description": preset.description})
            count += 1
    return count


def result_json(run: Run) -> bytes:
    """The full stored result of a run (JSON bytes)."""
    return gzip.decompress(bytes(run.result_gz)) if run.result_gz else b""
