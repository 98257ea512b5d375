"""Figures of experiments and runs, built from stored chart data by the kinds' chart functions.

A finished experiment's figures and a finished run's figures never change, so they are
computed once and kept in Django's cache (keyed on the experiment and its finish time, or the
run, and the code version): a result page then skips loading every run's chart data.
"""

from __future__ import annotations

import functools

from django.core.cache import cache

from simcore.charts import facet
from simcore.result import Result, code_version

from . import kinds, selectors
from .models import FINAL_STATUSES, Experiment, Run, Status

CACHE_SECONDS = 24 * 3600


class UnknownChart(LookupError):
    pass


def _charts(kind: str, groups: dict) -> list[kinds.ChartSpec]:
    ui = kinds.get_kind(kind)
    if ui is None:
        return []
    return [c for c in ui.experiment_charts if c.applies is None or c.applies(groups)]


def _draw(spec: kinds.ChartSpec, groups: dict, side_by_side: bool) -> dict:
    figure = spec.build(groups)
    if side_by_side and spec.facetable and figure.get("data"):
        figure = facet(figure, list(groups))
    return figure


def figures_for(kind: str, groups: dict, side_by_side: bool = False) -> list[dict]:
    """Every applicable chart of a kind for these groups, as {id, title, figure}."""
    return [{"id": spec.id, "title": spec.title, "figure": _draw(spec, groups, side_by_side)}
            for spec in _charts(kind, groups)]


def experiment_figures(experiment: Experiment, policies: list[str] | None = None,
                       side_by_side: bool = False, groups: dict | None = None) -> list[dict]:
    key = _cache_key(experiment, policies, side_by_side) if groups is None else None
    if key is not None:
        found = cache.get(key)
        if found is not None:
            return found
    groups = groups if groups is not None else selectors.run_groups(experiment, policies)
    figures = figures_for(experiment.kind, groups, side_by_side)
    if key is not None:
        cache.set(key, figures, CACHE_SECONDS)
    return figures


def _cache_key(experiment: Experiment, policies, side_by_side: bool) -> str | None:
    if experiment.status not in FINAL_STATUSES or experiment.finished is None:
        return None
    chosen = ",".join(policies) if policies else "*"
    return (f"figures:{experiment.public_id}:{experiment.finished.timestamp()}:"
            f"{_code()}:{side_by_side}:{chosen}")


@functools.cache
def _code() -> str:
    return code_version()  # asks git: once per process


def experiment_figure(experiment: Experiment, chart_id: str, policies: list[str] | None = None,
                      side_by_side: bool = False) -> dict:
    groups = selectors.run_groups(experiment, policies)
    for spec in _charts(experiment.kind, groups):
        if spec.id == chart_id:
            return _draw(spec, groups, side_by_side)
    raise UnknownChart(chart_id)


def run_figure(run: Run, chart_id: str) -> dict:
    ui = kinds.get_kind(run.experiment.kind)
    spec = next((c for c in (ui.run_charts if ui else []) if c.id == chart_id), None)
    if spec is None:
        raise UnknownChart(chart_id)
    if run.status != Status.DONE:
        raise UnknownChart(f"{chart_id}: the run has not finished")
    key = f"run-figure:{run.public_id}:{chart_id}:{_code()}"  # a finished run never changes
    figure = cache.get(key)
    if figure is None:
        figure = spec.build(Result.from_json(selectors.result_json(run)))
        cache.set(key, figure, CACHE_SECONDS)
    return figure


def compare_runs_figures(runs: list[Run]) -> list[dict]:
    """Side-by-side charts of runs picked from any experiments of one kind."""
    if not runs:
        return []
    groups = {}
    for run in runs:
        label = f"{run.policy} · {run.experiment.name[:30]} #{run.trial}"
        groups[label] = [selectors.run_data(run, label)]
    return figures_for(runs[0].experiment.kind, groups, side_by_side=True)
