"""Reads for pages and the API: what to show, loaded with only the columns it needs."""

from __future__ import annotations

import gzip

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from . import kinds
from .models import Experiment, Run, Scenario, Status

# The compressed full result is large; pages never load it.
HEAVY = ("result_gz",)


def experiments_newest_first(limit: int = 100) -> QuerySet[Experiment]:
    return Experiment.objects.select_related("scenario").order_by("-created")[:limit]


def preset_scenarios() -> QuerySet[Scenario]:
    return Scenario.objects.filter(is_preset=True).order_by("kind", "preset")


def experiment_by_public_id(public_id) -> Experiment:
    return get_object_or_404(Experiment.objects.select_related("scenario"), public_id=public_id)


def run_by_public_id(public_id, with_result: bool = False) -> Run:
    qs = Run.objects.select_related("experiment")
    if not with_result:
        qs = qs.defer(*HEAVY)
    return get_object_or_404(qs, public_id=public_id)


def _in_policy_order(experiment: Experiment, runs) -> list[Run]:
    order = {p: i for i, p in enumerate(experiment.policies)}
    return sorted(runs, key=lambda r: (order.get(r.policy, len(order)), r.trial))


def runs_of(experiment: Experiment) -> list[Run]:
    """Runs in the experiment's policy order, then by trial."""
    return _in_policy_order(experiment, experiment.runs.defer(*HEAVY))


def progress_of(experiment: Experiment) -> dict:
    runs = _in_policy_order(experiment, experiment.runs.only(
        "public_id", "policy", "trial", "status", "progress", "error"))
    return {
        "status": experiment.status,
        "progress": experiment.progress,
        "runs": [{"id": str(r.public_id), "policy": r.policy, "trial": r.trial,
                  "status": r.status, "progress": r.progress, "error": r.error} for r in runs],
    }


def run_groups(experiment: Experiment, policies: list[str] | None = None,
               runs: list[Run] | None = None) -> dict[str, list[kinds.RunData]]:
    """Finished runs grouped by policy label (experiment order), as chart input."""
    runs = runs if runs is not None else runs_of(experiment)
    wanted = policies or experiment.policies
    groups: dict[str, list[kinds.RunData]] = {p: [] for p in wanted}
    for r in runs:
        if r.status == Status.DONE and r.policy in groups:
            groups[r.policy].append(run_data(r))
    return {p: g for p, g in groups.items() if g}


def run_data(run: Run, label: str = "") -> kinds.RunData:
    return kinds.RunData(policy=run.policy, trial=run.trial, seed=run.seed, summary=run.summary,
                         series=run.series, dist=run.dist, label=label or run.policy)


def result_json(run: Run) -> bytes:
    """The full stored result of a run (JSON bytes)."""
    return gzip.decompress(bytes(run.result_gz)) if run.result_gz else b""


def sweep_runs(experiment: Experiment) -> list:
    """The finished runs of an experiment as ``simcore.sweep.SweepRun`` (point, setting, policy,
    seed, summary): the input of per-point tables and paired differences."""
    from simcore.sweep import SweepRun

    return [SweepRun(r.point, r.overrides, r.policy, r.seed, r.summary)
            for r in experiment.runs.filter(status=Status.DONE).only(
                "point", "overrides", "policy", "seed", "summary").order_by("point", "id")]
