"""What result pages and exports show, computed once: the summary table in readable units with
the best value per column marked and confidence intervals kept inside each metric's range,
the scenario's parameters against its preset, and timing.

Plain functions of models and kinds (no request), so the pages, the CSV/LaTeX exports and the
API agree to the digit.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

from django.utils import timezone

from simcore.bounds import Bounds, PerPoint, interval, trials_for, useful_half_width
from simcore.charts import policy_color
from simcore.errors import ScenarioError
from simcore.lab import Column, MetricBars, column_for, metric_bars  # noqa: F401
from simcore.params import describe
from simcore.stats import paired_diff, verdict

from . import kinds
from .models import FINAL_STATUSES, Experiment, Status

# What a cell says about its place in the column.
BEST, INDISTINGUISHABLE = "best", "indistinguishable"


@dataclass
class Cell:
    mean: float | None = None
    half_width: float | None = None
    low: float | None = None
    high: float | None = None
    clipped: bool = False
    n: int = 0
    rank: str = ""  # BEST, INDISTINGUISHABLE or ""
    # With an interval too wide to say anything: about how many trials would make it useful
    # (see simcore.bounds.trials_for), and the half-width they would reach.
    trials_needed: int | None = None
    useful_half_width: float | None = None
    note: str = ""  # the cell's tooltip: the interval's ends, why it is (not) ranked
    text: str = "–"

    @property
    def best(self) -> bool:
        return self.rank == BEST


@dataclass
class Row:
    policy: str
    label: str
    color: str
    runs: int
    cells: list[Cell] = field(default_factory=list)


@dataclass
class SummaryTable:
    columns: list[Column]
    rows: list[Row]

    @property
    def clipped(self) -> bool:
        return any(c.clipped for r in self.rows for c in r.cells)

    @property
    def indistinguishable(self) -> bool:
        return any(c.rank == INDISTINGUISHABLE for r in self.rows for c in r.cells)

    @property
    def trials_needed(self) -> int | None:
        """The most trials any clipped cell asks for (None when none asks)."""
        asked = [c.trials_needed for r in self.rows for c in r.cells if c.trials_needed]
        return max(asked) if asked else None


def number(value: float | None, digits: int) -> str:
    """Thousands separators; integers without decimals; else ``digits`` decimals."""
    if value is None or not math.isfinite(value):
        return "–"
    if abs(value - round(value)) < 1e-9 * max(1.0, abs(value)):
        return f"{round(value):,}"
    return f"{value:,.{digits}f}"


def _cell(stats: dict | None, col: Column) -> Cell:
    """A table cell: mean ± the t interval's half-width over the trials; when the interval
    reaches past the metric's range, its ends are clipped there (marked) and the cell says
    about how many trials would make it useful."""
    ci = interval(stats, col.bounds, col.factor)
    if ci.mean is None:
        return Cell()
    cell = Cell(mean=ci.mean, n=ci.n, text=number(ci.mean, col.digits))
    if ci.half_width is None:
        cell.note = "one trial: no interval"
        return cell
    cell.half_width, cell.low, cell.high, cell.clipped = (ci.half_width, ci.low, ci.high,
                                                          ci.clipped)
    digits = col.digits
    cell.text = f"{number(ci.mean, digits)} ± {number(ci.half_width, digits)}"
    cell.note = (f"95% CI {number(ci.low, digits)} – {number(ci.high, digits)} over "
                 f"n = {ci.n} trials")
    if ci.clipped:
        target = useful_half_width(ci.mean, col.bounds)
        need = trials_for(ci.half_width, ci.n, target)
        cell.note += f", clipped to the metric's range ({range_text(col.bounds, digits)})"
        if need and need > ci.n:
            cell.trials_needed, cell.useful_half_width = need, target
            cell.note += (f"; about {need:,} trials would narrow it to "
                          f"± {number(target, digits)}")
    return cell


def policy_label(kind_lab: kinds.LabKind | None, policy: str) -> str:
    """A policy's description in words (the tooltip of its name)."""
    try:
        return kind_lab.engine.get_policy(kind_lab.kind, policy).label if kind_lab else policy
    except ScenarioError:
        return policy


def policy_colors(kind_lab: kinds.LabKind | None, policies) -> dict[str, str]:
    """One colour per policy name, the same on every page (see simcore.charts.policy_color)."""
    return {p: kind_lab.policy_color(p) if kind_lab else policy_color(p, list(policies))
            for p in policies}


def per_seed(runs, key: str) -> dict[str, dict[int, float]]:
    """``{policy: {seed: value}}`` of one metric over finished runs (simcore.sweep.SweepRun)."""
    out: dict[str, dict[int, float]] = {}
    for r in runs:
        value = r.summary.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out.setdefault(r.policy, {})[r.seed] = float(value)
    return out


def rank_column(metric: kinds.Metric, cells: dict[str, Cell],
                values: dict[str, dict[int, float]]) -> None:
    """Mark the best cell of a column, only where the trials say so.

    A policy is "best" when the paired 95% interval (same seeds) of its difference to every
    other policy lies wholly on the better side (simcore.stats.verdict "holds"); at most one
    can be. Every policy with a mean competes, whatever its values: a policy that waits 0 min
    in every trial is compared like any other and can win. Without a best, the best mean and
    the policies it cannot be told from are all "indistinguishable". Quantities with no better
    side (``higher_is_better=None``: diagnostic counts such as tasks dropped) are never
    ranked."""
    if metric.higher_is_better is None:
        return
    better = metric.higher_is_better
    contenders = [p for p, cell in cells.items() if cell.mean is not None]
    if len(contenders) < 2:
        return
    order = sorted(contenders, key=lambda p: cells[p].mean, reverse=better)
    verdicts: dict[tuple[str, str], bool] = {}

    def beats(a: str, b: str) -> bool:
        if (a, b) not in verdicts:
            diff = paired_diff(values.get(a, {}), values.get(b, {}))
            verdicts[a, b] = verdict(diff["low"], diff["high"], better) == "holds"
        return verdicts[a, b]

    # The best mean first; any other can be best only over seeds the means do not share
    # (a run that failed), and its first comparison, with the best mean, settles it.
    for policy in order:
        if all(beats(policy, other) for other in order if other != policy):
            cells[policy].rank = BEST
            return
    top = order[0]
    for policy in [top, *(other for other in order[1:] if not beats(top, other))]:
        cells[policy].rank = INDISTINGUISHABLE


def metric_bounds(kind_lab: kinds.LabKind | None, params: dict | None,
                  runs: list) -> dict[str, Bounds | PerPoint]:
    """Each headline metric's range over finished runs (SweepRuns: point, setting, summary) of
    a scenario of these ``params``, point by point: the declared range, or the one the scenario
    sets where a metric has one (Metric.upper_of: the energy a run's budget allows), at each
    point its own (a swept budget bounds each point's energy by its value)."""
    metrics = kind_lab.metrics if kind_lab else []
    out: dict[str, Bounds | PerPoint] = {m.key: m.bounds for m in metrics}
    scenario_set = [m for m in metrics if m.upper_of is not None]
    if not scenario_set or params is None:
        return out
    by_point: dict[int, list] = {}
    for run in runs:
        by_point.setdefault(run.point, []).append(run)
    from . import selectors

    # (the runs of a point share its overrides; None: they no longer apply, no bound read)
    at = {point: selectors.params_at(params, mine[0].setting)
          for point, mine in by_point.items()}
    for m in scenario_set:
        out[m.key] = PerPoint(m.bounds, {
            point: m.bounds_for((at[point], r.summary) for r in mine)
            for point, mine in by_point.items()})
    return out


def experiment_bounds(kind_lab: kinds.LabKind | None, experiment: Experiment,
                      runs: list | None = None, point: int | None = None
                      ) -> dict[str, Bounds | PerPoint]:
    """:func:`metric_bounds` of an experiment's finished runs (of one point when ``point`` is
    given): ``runs``, SweepRuns if already loaded, else read, only when a metric's range
    depends on them."""
    from . import selectors

    if not kind_lab or not any(m.upper_of is not None for m in kind_lab.metrics):
        return metric_bounds(kind_lab, None, [])
    scenario = getattr(experiment, "scenario", None) if experiment.pk else None
    if runs is None:
        runs = selectors.sweep_runs(experiment, point) if experiment.pk else []
    return metric_bounds(kind_lab, scenario.params if scenario else None, runs)


def range_text(bounds: Bounds, digits: int) -> str:
    """A range in words: "0 – 0.90", "at least 1", "at most 100"."""
    if bounds.lower is not None and bounds.upper is not None:
        return f"{number(bounds.lower, digits)} – {number(bounds.upper, digits)}"
    if bounds.lower is not None:
        return f"at least {number(bounds.lower, digits)}"
    return f"at most {number(bounds.upper, digits)}" if bounds.upper is not None else ""


def summary_table(kind_lab: kinds.LabKind | None, experiment: Experiment, point: int = 0,
                  runs: list | None = None) -> SummaryTable:
    """The summary of one point; ``runs``: its finished runs as SweepRuns, if already loaded
    (the ranking pairs them by seed; a range the scenario sets is read from them)."""
    from . import selectors

    metrics = kind_lab.metrics if kind_lab else []
    if runs is None:
        runs = selectors.sweep_runs(experiment, point) if experiment.pk else []
    runs = [r for r in runs if r.point == point]
    bounds = experiment_bounds(kind_lab, experiment, runs)
    by_policy = experiment.summary_by_policy(point)
    columns = [column_for(m, [row[m.key]["mean"] for row in by_policy.values()
                              if (row.get(m.key) or {}).get("mean") is not None],
                          bounds[m.key].at(point))
               for m in metrics]
    colors = policy_colors(kind_lab, experiment.policies)
    rows = []
    for policy in experiment.policies:
        row = by_policy.get(policy, {})
        rows.append(Row(policy, policy_label(kind_lab, policy), colors[policy], row.get("runs", 0),
                        [_cell(row.get(c.metric.key), c) for c in columns]))
    for k, col in enumerate(columns):
        rank_column(col.metric, {r.policy: r.cells[k] for r in rows},
                    per_seed(runs, col.metric.key))
    return SummaryTable(columns, rows)


# --- what was run ----------------------------------------------------------------------------

def _flat(params: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in params.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, f"{name}."))
        else:
            out[name] = value
    return out


def _show(value) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.6g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (list, dict)):
        text = str(value)
        return text if len(text) <= 160 else text[:157] + "…"
    return str(value)


def plugins_run(experiment: Experiment) -> list[str]:
    """"policy: plugin version" for each plugin policy the experiment's finished runs used,
    as their results recorded it (one experiment runs a handful of policies)."""
    rows = (experiment.runs.filter(plugin__isnull=False).order_by()
            .values_list("policy", "plugin").distinct()[:50])
    return sorted({f"{policy}: {p.get('name')} {p.get('version')}" for policy, p in rows
                   if isinstance(p, dict)})


def scenario_description(kind_lab: kinds.LabKind | None, experiment: Experiment) -> dict:
    """The parameters as run, those that differ from the preset (or the kind's defaults) first,
    each with its label in words, the preset's value, ours and the unit; plus seeds, code
    version and the kind's own input facts (e.g. the replayed trace and its size)."""
    scenario = experiment.scenario
    params = scenario.params
    out = {"changed": [], "same": [], "inapplicable": [], "facts": [], "baseline": "",
           "seeds": [experiment.base_seed + t for t in range(experiment.trials)],
           "code_version": experiment.code_version, "plugins": plugins_run(experiment)}
    if kind_lab is None:
        return out
    described = describe(kind_lab.engine_kind.config_cls)
    baseline = None
    if scenario.preset:
        from .services.submission import validate_scenario

        try:
            baseline = _flat(validate_scenario(kind=kind_lab.kind, preset=scenario.preset))
            out["baseline"] = f"preset “{scenario.preset}”"
        except ScenarioError:
            baseline = None
    if baseline is None:
        baseline = {d["name"]: d["default"] for d in described}
        out["baseline"] = "the kind's defaults"
    ours = _flat(params)
    swept = swept_values(experiment)
    for d in described:
        name = d["name"]
        row = {"name": name, "label": d["label"], "group": d["group"], "unit": d["unit"],
               "preset": _show(baseline.get(name)), "value": _show(ours.get(name))}
        if name in swept:
            # A swept parameter took every value of its axis, not the scenario's one.
            row["value"] = "swept " + ", ".join(_show(v) for v in swept[name])
            out["changed"].append(row)
        elif not kind_lab.applies(name, params):
            out["inapplicable"].append(row)
        elif _differs(baseline.get(name), ours.get(name)):
            out["changed"].append(row)
        else:
            out["same"].append(row)
    if kind_lab.describe_inputs is not None:
        out["facts"] = kind_lab.describe_inputs(params)
    return out


def _differs(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return not math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0.0)
    return a != b


# --- timing ----------------------------------------------------------------------------------

def duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = max(0, int(round(seconds)))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    if h:
        return f"{h} h {m:02d} min"
    if m:
        return f"{m} min {s:02d} s"
    return f"{s} s"


def timing(experiment: Experiment, counts: dict[str, int]) -> dict:
    """Elapsed wall time and, while running, an estimate of the time left; ``counts`` are the
    runs by status."""
    end = experiment.finished if experiment.status in FINAL_STATUSES else timezone.now()
    elapsed = (end - experiment.created).total_seconds() if end else None
    eta = None
    if experiment.status not in FINAL_STATUSES and experiment.progress > 0:
        eta = elapsed * (100.0 - experiment.progress) / experiment.progress
    return {"elapsed": duration(elapsed), "eta": duration(eta) if eta is not None else "",
            "counts_text": counts_text(counts), "done_runs": counts.get(Status.DONE, 0)}


def counts_text(counts: dict[str, int]) -> str:
    """"3 of 400 runs finished, 397 cancelled": finished are the runs that ran to their end
    (failed ones among them, said so); a cancelled run never finished. The page's poll writes
    the same words (app.js ``countsText``)."""
    total = sum(counts.values())
    failed, cancelled = counts.get(Status.FAILED, 0), counts.get(Status.CANCELLED, 0)
    finished = counts.get(Status.DONE, 0) + failed
    text = f"{finished} of {total} run{'s' if total != 1 else ''} finished"
    if failed:
        text += f" ({failed} failed)"
    if cancelled:
        text += f", {cancelled} cancelled"
    return text


# --- sweeps and figure presets ---------------------------------------------------------------

def swept_values(experiment: Experiment) -> dict[str, list]:
    """``{dotted parameter: its values}`` of a sweep (each part of a linked ``a+b`` axis)."""
    return {name: list(axis["values"]) for axis in experiment.axes or []
            for name in axis["param"].split("+")}


def _described(kind_lab: kinds.LabKind | None) -> dict[str, dict]:
    return _declarations(kind_lab.engine_kind.config_cls) if kind_lab else {}


# The same cells, values and parameters as the result page, for hetsite.comparing.
metric_cell, differs, flat, shown, declared = _cell, _differs, _flat, _show, _described


@functools.cache
def _declarations(config_cls) -> dict[str, dict]:
    """A config's parameters by name (read-only). Kept: reflecting a config takes a few ms,
    and a sweep's page labels every point with it."""
    return {d["name"]: d for d in describe(config_cls)}


def param_title(kind_lab: kinds.LabKind | None, name: str, with_unit: bool = True) -> str:
    """A (dotted, or linked ``a+b``) parameter by its declared label, with its unit: "Daily
    energy budget (GJ/day)"; axis titles, point labels and exports use it. A name the kind does
    not declare (an experiment stored before a parameter was renamed) stays as it is."""
    described = _described(kind_lab)
    parts = []
    for part in name.split("+"):
        d = described.get(part, {})
        text = d.get("label", part)
        if with_unit and d.get("unit"):
            text += f" ({d['unit']})"
        parts.append(text)
    return " = ".join(parts)


def point_label(kind_lab: kinds.LabKind | None, setting: dict) -> str:
    """``Mean number of UAVs = 3, ...`` in words: the setting of one sweep point."""
    described = _described(kind_lab)
    out = []
    for key, value in setting.items():
        unit = (described.get(key) or {}).get("unit", "")
        out.append(f"{param_title(kind_lab, key, with_unit=False)} = {_show(value)}"
                   + (f" {unit}" if unit else ""))
    return ", ".join(out)


@dataclass
class PointTable:
    point: int
    label: str
    table: SummaryTable

    @property
    def number(self) -> int:
        """The point as people count it (the first is 1; ``?point=`` and exports keep the
        index from 0)."""
        return self.point + 1

    @property
    def dom_id(self) -> str:
        return f"summary-table-{self.point}"


def point_tables(kind_lab: kinds.LabKind | None, experiment: Experiment,
                 runs: list | None = None) -> list[PointTable]:
    """One summary table per sweep point, in point order; ``runs``: the finished runs as
    SweepRuns, if already loaded."""
    from . import selectors

    settings = {row["point"]: row["setting"] for row in experiment.summary}
    by_point: dict[int, list] = {}
    for run in selectors.sweep_runs(experiment) if runs is None else runs:
        by_point.setdefault(run.point, []).append(run)
    return [PointTable(p, point_label(kind_lab, settings[p]),
                       summary_table(kind_lab, experiment, p, by_point.get(p, [])))
            for p in sorted(settings)]


def sweep_axes(kind_lab: kinds.LabKind | None, experiment: Experiment) -> str:
    """``Mean number of UAVs (3 values) × ...``."""
    return " × ".join(f"{param_title(kind_lab, a['param'])} ({len(a['values'])} values)"
                      for a in experiment.axes)


def published(experiment: Experiment, runs: list | None = None) -> dict | None:
    """For an experiment made from a figure preset: the figure, the published claim and, from
    the finished runs (SweepRuns, if already loaded), each claim's verdict (the rule and record
    of hetsite.scoreboard), and where each policy added to the figure stands against each
    published one."""
    from . import scoreboard, selectors

    figure = kinds.get_figure(experiment.figure) if experiment.figure else None
    if figure is None:
        return None
    runs = selectors.sweep_runs(experiment) if runs is None else runs
    return {"figure": figure, "checks": scoreboard.live(figure, runs) if runs else [],
            "added": [p for p in experiment.policies if p not in figure.policies],
            "standing": scoreboard.standing_rows(figure, runs) if runs else []}
