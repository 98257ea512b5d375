"""Figures of experiments and runs, built from stored chart data by the kinds' chart functions.

A finished experiment's figures and a finished run's figures never change, so they are
computed once and kept in Django's cache (keyed on the experiment and its finish time, or the
run, and the code version): a result page then skips loading every run's chart data. A
running experiment's are kept a few seconds once it has many finished runs (:func:`kept`,
which keeps the page's tables too).
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.core.cache import cache

from simcore import charts
from simcore.charts import facet, place_header
from simcore.errors import ScenarioError
from simcore.result import Result, code_version
from simcore.sweep import table
from simcore.sweep_charts import paired_bars, sweep_lines

from . import kinds, presenters, result_parts, selectors
from .models import FINAL_STATUSES, Experiment, Run, Status

CACHE_SECONDS = 24 * 3600
LIVE_EXACT = 200


class UnknownChart(LookupError):
    pass


def _charts(kind: str, groups: dict) -> list[kinds.ChartSpec]:
    kind_lab = kinds.get_kind(kind)
    if kind_lab is None:
        return []
    return [c for c in kind_lab.experiment_charts if c.shows(groups)]


def _draw(spec: kinds.ChartSpec, groups: dict, side_by_side: bool) -> dict:
    figure = spec.build(groups)
    if side_by_side and spec.facetable and figure.get("data"):
        figure = facet(figure, list(groups))
    return place_header(figure)


def figures_for(kind: str, groups: dict, side_by_side: bool = False) -> list[dict]:
    """Every applicable chart of a kind for these groups, as {id, title, figure}."""
    return [{"id": spec.id, "title": spec.title, "figure": _draw(spec, groups, side_by_side)}
            for spec in _charts(kind, groups)]


def experiment_figures(experiment: Experiment, policies: list[str] | None = None,
                       side_by_side: bool = False, groups: dict | None = None,
                       point: int | None = None) -> list[dict]:
    """The kind's experiment charts; of one sweep point when ``point`` is given.

    Kept in the cache under the selection (policies in the order asked: the side-by-side
    page's panels, whose first is its A). A selection of more finished runs than an
    experiment may hold (``HETSITE_MAX_RUNS``: only a published figure's preset holds more)
    is drawn only as the page draws it, every policy together, once; another view of it
    (some of its policies, side by side; a sweep's points pooled, which its page never draws)
    is a ScenarioError naming ``policies`` (``point``): each would read tens of thousands of
    runs again (outside audit: 36 s and 2.9 GB a request)."""
    if groups is not None:
        return figures_for(experiment.kind, groups, side_by_side)
    chosen = [p for p in dict.fromkeys(policies or experiment.policies)
              if p in experiment.policies]
    whole = chosen == experiment.policies and not side_by_side
    limit = settings.HETSITE_MAX_RUNS
    pooled = bool(experiment.axes) and point is None  # every point's runs together
    if (pooled or not whole) and (
            found := selectors.finished_runs(experiment, chosen, point)) > limit:
        where = "" if point is None else f" at point {point}"
        raise ScenarioError("point" if pooled else "policies", (
            f"these policies have {found:,} finished runs{where}; a chart of more than "
            f"{limit:,} (HETSITE_MAX_RUNS) is drawn only as the experiment's page draws it"
            + ("; a sweep point's runs are fewer: choose one (point)" if pooled else
               ": every policy, not side by side")))
    key = f"figures:{side_by_side}:{'*' if whole or not policies else ','.join(chosen)}:{point}"
    return kept(experiment, key, lambda: figures_for(
        experiment.kind, selectors.run_groups(experiment, chosen, point=point), side_by_side))


def kept(experiment: Experiment, view: str, build):
    """``build()``, what an experiment's page shows of its finished runs (charts, tables),
    kept in the cache. A finished experiment's never changes: kept a day. A running one's page
    is fetched again whenever a run finishes, and rebuilding from thousands of runs on every
    fetch would cost more the bigger the experiment: up to LIVE_EXACT finished runs it is
    rebuilt as each finishes, beyond that at most every HETSITE_LIVE_FIGURES_SECONDS."""
    view = f"{_code()}:{view}"
    if experiment.status not in FINAL_STATUSES or experiment.finished is None:
        done = sum(row["runs"] for row in experiment.summary)
        fresh = f":{done}" if done <= LIVE_EXACT else ""
        key = f"live:{experiment.public_id}:{view}{fresh}"
        seconds = settings.HETSITE_LIVE_FIGURES_SECONDS
    else:
        key, seconds = f"final:{experiment.public_id}:{experiment.finished.timestamp()}:{view}", (
            CACHE_SECONDS)
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found, seconds)
    return found


@functools.cache
def _code() -> str:
    return code_version()  # asks git: once per process


def experiment_figure(experiment: Experiment, chart_id: str, policies: list[str] | None = None,
                      side_by_side: bool = False, point: int | None = None) -> dict:
    """One of the kind's experiment charts (of one sweep point when ``point`` is given), from
    the charts :func:`experiment_figures` keeps; ScenarioError as it raises."""
    for drawn in experiment_figures(experiment, policies, side_by_side, point=point):
        if drawn["id"] == chart_id:
            return drawn["figure"]
    raise UnknownChart(chart_id)


def run_figure(run: Run, chart_id: str) -> dict:
    kind_lab = kinds.get_kind(run.experiment.kind)
    spec = next((c for c in (kind_lab.run_charts if kind_lab else []) if c.id == chart_id), None)
    if spec is None:
        raise UnknownChart(chart_id)
    if run.status != Status.DONE:
        raise UnknownChart(f"{chart_id}: the run has not finished")
    key = f"run-figure:{run.public_id}:{chart_id}:{_code()}"  # a finished run never changes
    figure = cache.get(key)
    if figure is None:
        result = (Result.from_json(selectors.result_json(run)) if spec.reads is None
                  else result_parts.result(run.result_gz, spec.reads))  # only what it reads
        figure = place_header(spec.build(result))
        cache.set(key, figure, CACHE_SECONDS)
    return figure


def compare_runs_figures(runs: list[Run]) -> list[dict]:
    """Side-by-side charts of runs picked from any experiments of one kind."""
    if not runs:
        return []
    groups = {}
    for run in runs:
        label = f"{run.policy} · {charts.plain(run.experiment.name[:30])} #{run.trial}"
        groups[label] = [selectors.run_data(run, label)]
    return figures_for(runs[0].experiment.kind, groups, side_by_side=True)


# --- sweeps and paired comparisons ----------------------------------------------------------------

def _colour_of(experiment: Experiment):
    kind_lab = kinds.get_kind(experiment.kind)
    return kind_lab.policy_color if kind_lab else (lambda policy: charts.policy_color(policy))


def _axis_titles(kind_lab: kinds.LabKind, experiment: Experiment) -> dict[str, str]:
    """The swept parameters in words with their units (the x axis and second-axis legends)."""
    return {a["param"]: presenters.param_title(kind_lab, a["param"]) for a in experiment.axes}


def sweep_figures(experiment: Experiment) -> list[dict]:
    """A sweep's headline metrics against its (first) swept parameter, one line per policy with
    its 95% CI band; every point carries its index for the page to open."""
    kind_lab = kinds.get_kind(experiment.kind)
    if kind_lab is None or not experiment.axes:
        return []
    colour_of, titles = _colour_of(experiment), _axis_titles(kind_lab, experiment)
    bounds = presenters.experiment_bounds(kind_lab, experiment)
    return [{"id": f"sweep-{m.key}", "title": m.label, "point_link": True,
             "figure": place_header(sweep_lines(
                 experiment.summary, experiment.axes, m.key, m.label, m.unit,
                 experiment.policies, colour_of, bounds=bounds[m.key], axis_titles=titles))}
            for m in kind_lab.metrics if _measured(experiment.summary, m.key)]


def _measured(rows: list[dict], key: str) -> bool:
    """Whether any summary row has a mean of ``key`` (a chart of it has something to draw)."""
    return any((row.get(key) or {}).get("mean") is not None for row in rows)


def not_drawn(experiment: Experiment, point: int | None = None,
              every_metric: bool = False, policies: list[str] | None = None) -> list[dict]:
    """The charts of one headline metric that a page leaves out because no finished run (of
    the point shown, or of any point) has a value of it, each ``{"title", "why"}`` for the page
    to say so in their place (the metric's own words on when a run has one, Metric.missing).
    ``every_metric``: the page charts every headline metric (a whole sweep, paired
    differences), not only the kind's bar charts of one; ``policies``: only these shown."""
    kind_lab = kinds.get_kind(experiment.kind)
    if kind_lab is None:
        return []
    rows = [r for r in experiment.summary if (point is None or r.get("point") == point)
            and (policies is None or r.get("policy") in policies)]
    if not rows:
        return []
    titles = {c.build.key: c.title for c in kind_lab.experiment_charts
              if isinstance(c.build, kinds.MetricBars)}
    return [{"title": titles.get(m.key, m.label), "why": m.missing}
            for m in kind_lab.metrics
            if (every_metric or m.key in titles) and not _measured(rows, m.key)]


def paired_figures(experiment: Experiment, baseline: str,
                   point: int | None = None) -> list[dict]:
    """Every headline metric as each policy's per-trial difference to ``baseline`` (same seed,
    common random numbers): bars with 95% CIs, or lines against the swept parameter (a sweep
    seen as a whole, ``point`` None). Kept in the cache: it reads every finished run's
    summary (7.9 s a view of a 72,000-run sweep before, outside audit)."""
    kind_lab = kinds.get_kind(experiment.kind)
    if kind_lab is None or baseline not in experiment.policies:
        raise UnknownChart(f"paired:{baseline}")
    return kept(experiment, f"paired:{baseline}:{point}",
                lambda: _paired_figures(kind_lab, experiment, baseline, point))


def _paired_figures(kind_lab, experiment: Experiment, baseline: str,
                    point: int | None) -> list[dict]:
    runs = selectors.sweep_runs(experiment, point)
    lines = bool(experiment.axes) and point is None
    rows = table(runs, [m.key for m in kind_lab.metrics], baseline=baseline)
    colour_of = _colour_of(experiment)
    titles = _axis_titles(kind_lab, experiment) if lines else {}
    others = [p for p in experiment.policies if p != baseline]
    bounds = presenters.experiment_bounds(kind_lab, experiment, runs)
    out = []
    for m in kind_lab.metrics:
        if not any(isinstance(r.summary.get(m.key), (int, float)) for r in runs):
            continue  # no run has a value of it: nothing to draw (not_drawn says so)
        if lines:
            fig = sweep_lines(rows, experiment.axes, f"{m.key}:diff",
                              f"{m.label}: difference to {baseline}", m.unit, others, colour_of,
                              bounds=bounds[m.key].difference(), axis_titles=titles)
        else:
            fig = paired_bars(rows, m.key, baseline, m.label, m.unit, experiment.policies,
                              colour_of, bounds=bounds[m.key])
        out.append({"id": f"paired-{m.key}", "title": f"{m.label} vs {baseline}",
                    "figure": place_header(fig), "point_link": lines})
    return out
