"""Figures of experiments and runs, built from stored chart data by the kinds' chart functions."""

from __future__ import annotations

import json

from scheduling.charts.common import facet

from . import kinds, selectors, services
from .models import Experiment, Run, Status


class UnknownChart(LookupError):
    pass


def experiment_charts(experiment: Experiment, groups: dict) -> list[kinds.ChartSpec]:
    ui = kinds.get_kind(experiment.kind)
    if ui is None:
        return []
    return [c for c in ui.experiment_charts if c.applies is None or c.applies(groups)]


def experiment_figures(experiment: Experiment, policies: list[str] | None = None,
                       side_by_side: bool = False, groups: dict | None = None) -> list[dict]:
    """Every applicable experiment chart as {id, title, figure}."""
    groups = groups if groups is not None else selectors.run_groups(experiment, policies)
    out = []
    for spec in experiment_charts(experiment, groups):
        figure = spec.build(groups)
        if side_by_side and spec.facetable and figure.get("data"):
            figure = facet(figure, list(groups))
        out.append({"id": spec.id, "title": spec.title, "figure": figure})
    return out


def experiment_figure(experiment: Experiment, chart_id: str, policies: list[str] | None = None,
                      side_by_side: bool = False) -> dict:
    groups = selectors.run_groups(experiment, policies)
    for spec in experiment_charts(experiment, groups):
        if spec.id == chart_id:
            figure = spec.build(groups)
            if side_by_side and spec.facetable and figure.get("data"):
                return facet(figure, list(groups))
            return figure
    raise UnknownChart(chart_id)


def run_figure(run: Run, chart_id: str) -> dict:
    ui = kinds.get_kind(run.experiment.kind)
    spec = next((c for c in (ui.run_charts if ui else []) if c.id == chart_id), None)
    if spec is None:
        raise UnknownChart(chart_id)
    if run.status != Status.DONE:
        raise UnknownChart(f"{chart_id}: the run has not finished")
    data = services.result_json(run)
    return spec.build(ui.engine.Result.from_dict(json.loads(data)))


def compare_runs_figures(runs: list[Run]) -> list[dict]:
    """Side-by-side charts of runs picked from any experiments of one kind."""
    if not runs:
        return []
    kind = runs[0].experiment.kind
    groups = {}
    for run in runs:
        label = f"{run.policy} · {run.experiment.name[:30]} #{run.trial}"
        groups[label] = [selectors.run_data(run, label)]
    ui = kinds.get_kind(kind)
    out = []
    for spec in ui.experiment_charts if ui else []:
        if spec.applies is not None and not spec.applies(groups):
            continue
        figure = spec.build(groups)
        if spec.facetable and figure.get("data"):
            figure = facet(figure, list(groups))
        out.append({"id": spec.id, "title": spec.title, "figure": figure})
    return out
