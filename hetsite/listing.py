"""The rows of the experiment list (home page): who owns each experiment in words, what it
started from, and its headline result so far.

One page of experiments costs the same few queries whatever its length: the results of every
row come from one query of their summary cells, never one per row."""

from __future__ import annotations

from dataclasses import dataclass

from . import kinds, permissions
from .models import Experiment, SummaryRow
from .presenters import column_for, number


@dataclass(frozen=True)
class ListRow:
    experiment: Experiment
    owner: str  # "you", a username or "anonymous": never another visitor's cookie
    mine: bool
    origin: str  # "preset small · figure fig7"
    result: str  # "max-vpt: highest Value earned, 1,234 (3 runs done)" or "no run done yet"


def owner_words(who: permissions.Viewer, experiment: Experiment) -> str:
    if permissions.is_owner(who, experiment):
        return "you"
    if experiment.owner_id is not None:
        return experiment.owner.get_username()
    return "anonymous"


def origin(experiment: Experiment) -> str:
    parts = []
    if experiment.scenario.preset:
        parts.append(f"preset {experiment.scenario.preset}")
    if experiment.figure:
        parts.append(f"figure {experiment.figure}")
    return " · ".join(parts)


def headline(experiment: Experiment, cells: list[SummaryRow]) -> str:
    """The policy with the best mean of the kind's first ranked metric (of a plain experiment;
    a sweep has one per point, so it says how many runs are done), and the runs done."""
    done = sum(c.runs for c in cells)
    if not done:
        return "no run done yet"
    runs = f"{done:,} run{'s' if done != 1 else ''} done"
    kind_lab = kinds.get_kind(experiment.kind)
    metric = next((m for m in (kind_lab.metrics if kind_lab else [])
                   if m.higher_is_better is not None), None)
    if experiment.axes or metric is None:
        return runs
    means = {c.policy: (c.metrics.get(metric.key) or {}).get("mean") for c in cells}
    means = {p: v for p, v in means.items() if isinstance(v, (int, float))}
    if not means:
        return runs
    pick = max if metric.higher_is_better else min
    best = pick(means, key=means.get)
    col = column_for(metric, list(means.values()))
    unit = f" {col.unit}" if col.unit else ""
    side = "highest" if metric.higher_is_better else "lowest"
    return (f"{best}: {side} mean {metric.label}, {number(means[best] * col.factor, col.digits)}"
            f"{unit} ({runs})")


def list_rows(who: permissions.Viewer, experiments) -> list[ListRow]:
    """The rows of one page of experiments (loaded with their scenario and owner)."""
    experiments = list(experiments)
    cells: dict[int, list[SummaryRow]] = {e.pk: [] for e in experiments}
    for cell in SummaryRow.objects.filter(experiment_id__in=list(cells)).only(
            "experiment_id", "point", "policy", "runs", "metrics"):
        cells[cell.experiment_id].append(cell)
    return [ListRow(e, owner_words(who, e), permissions.is_owner(who, e), origin(e),
                    headline(e, cells[e.pk])) for e in experiments]
