"""What result pages and exports show, computed once: the summary table in readable units with
the best value per column marked and confidence intervals kept inside each metric's range,
the scenario's parameters against its preset, and timing.

Plain functions of models and kinds (no request), so the pages, the CSV/LaTeX exports and the
API agree to the digit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from django.utils import timezone

from simcore.charts import policy_color
from simcore.errors import ScenarioError
from simcore.params import describe

from . import kinds, labels
from .models import FINAL_STATUSES, Experiment, Status

# Durations are shown in the largest unit that keeps the column's values >= about 2.
DURATION_UNITS = [("days", 86400.0, 3 * 86400.0), ("h", 3600.0, 2 * 3600.0),
                  ("min", 60.0, 120.0), ("s", 1.0, 0.0)]
TO_SECONDS = {"s": 1.0, "min": 60.0, "h": 3600.0}


@dataclass
class Column:
    metric: kinds.Metric
    unit: str  # shown unit
    factor: float  # stored value x factor = shown value
    digits: int

    @property
    def header(self) -> str:
        return f"{self.metric.label} ({self.unit})" if self.unit else self.metric.label

    def bounds(self) -> tuple[float, float]:
        lo = -math.inf if self.metric.lower is None else self.metric.lower * self.factor
        hi = math.inf if self.metric.upper is None else self.metric.upper * self.factor
        return lo, hi


@dataclass
class Cell:
    mean: float | None = None
    half_width: float | None = None
    low: float | None = None
    high: float | None = None
    clipped: bool = False
    best: bool = False
    text: str = "–"


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


def number(value: float | None, digits: int) -> str:
    """Thousands separators; integers without decimals; else ``digits`` decimals."""
    if value is None or not math.isfinite(value):
        return "–"
    if abs(value - round(value)) < 1e-9 * max(1.0, abs(value)):
        return f"{round(value):,}"
    return f"{value:,.{digits}f}"


def column_for(metric: kinds.Metric, means: list[float]) -> Column:
    seconds = TO_SECONDS.get(metric.unit)
    if seconds is not None and metric.shown_unit is None:
        biggest = max((abs(m) * seconds for m in means), default=0.0)
        for unit, size, threshold in DURATION_UNITS:
            if biggest >= threshold:
                return Column(metric, unit, seconds / size, 0 if unit == "s" else 1)
    return Column(metric, metric.display_unit, metric.scale, metric.digits)


def _cell(stats: dict | None, col: Column) -> Cell:
    if not stats or stats.get("mean") is None:
        return Cell()
    mean = stats["mean"] * col.factor
    cell = Cell(mean=mean)
    lo_b, hi_b = col.bounds()
    if stats.get("half_width") is None:
        cell.text = number(mean, col.digits)
        return cell
    half = stats["half_width"] * col.factor
    low, high = mean - half, mean + half
    cell.half_width = half
    cell.low, cell.high = max(low, lo_b), min(high, hi_b)
    cell.clipped = low < lo_b or high > hi_b
    if cell.clipped:
        cell.text = (f"{number(mean, col.digits)} "
                     f"({number(cell.low, col.digits)} – {number(cell.high, col.digits)})")
    else:
        cell.text = f"{number(mean, col.digits)} ± {number(half, col.digits)}"
    return cell


def policy_label(ui: kinds.LabKind | None, policy: str) -> str:
    try:
        return ui.engine.get_policy(ui.kind, policy).label if ui else policy
    except ScenarioError:
        return policy


def policy_colors(ui: kinds.LabKind | None, policies) -> dict[str, str]:
    """One colour per policy name, the same on every page (see simcore.charts.policy_color)."""
    return {p: ui.policy_color(p) if ui else policy_color(p, list(policies)) for p in policies}


def summary_table(ui: kinds.LabKind | None, experiment: Experiment, point: int = 0
                  ) -> SummaryTable:
    metrics = ui.metrics if ui else []
    by_policy = experiment.summary_by_policy(point)
    columns = [column_for(m, [row[m.key]["mean"] for row in by_policy.values()
                              if (row.get(m.key) or {}).get("mean") is not None])
               for m in metrics]
    colors = policy_colors(ui, experiment.policies)
    rows = []
    for policy in experiment.policies:
        row = by_policy.get(policy, {})
        rows.append(Row(policy, policy_label(ui, policy), colors[policy], row.get("runs", 0),
                        [_cell(row.get(c.metric.key), c) for c in columns]))
    for k, col in enumerate(columns):
        means = [r.cells[k].mean for r in rows if r.cells[k].mean is not None]
        if len(means) < 2 or len(set(means)) < 2:
            continue
        best = max(means) if col.metric.higher_is_better else min(means)
        for r in rows:
            r.cells[k].best = r.cells[k].mean == best
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


def scenario_description(ui: kinds.LabKind | None, experiment: Experiment) -> dict:
    """The parameters as run, those that differ from the preset (or the kind's defaults) first,
    each with its label in words, the preset's value, ours and the unit; plus seeds, code
    version and the kind's own input facts (e.g. the replayed trace and its size)."""
    scenario = experiment.scenario
    params = scenario.params
    out = {"changed": [], "same": [], "inapplicable": [], "facts": [], "baseline": "",
           "seeds": [experiment.base_seed + t for t in range(experiment.trials)],
           "code_version": experiment.code_version}
    if ui is None:
        return out
    described = describe(ui.environment.config_cls)
    names = {d["name"] for d in described}
    baseline = None
    if scenario.preset:
        from .services.submission import validate_scenario

        try:
            baseline = _flat(validate_scenario(kind=ui.kind, preset=scenario.preset))
            out["baseline"] = f"preset “{scenario.preset}”"
        except ScenarioError:
            baseline = None
    if baseline is None:
        baseline = {d["name"]: d["default"] for d in described}
        out["baseline"] = "the kind's defaults"
    ours = _flat(params)
    for d in described:
        name = d["name"]
        row = {"name": name, "label": labels.param_label(name, d["label"], d["unit"], names),
               "group": labels.group_title(name), "unit": d["unit"],
               "preset": _show(baseline.get(name)), "value": _show(ours.get(name))}
        if not ui.applies(name, params):
            out["inapplicable"].append(row)
        elif _differs(baseline.get(name), ours.get(name)):
            out["changed"].append(row)
        else:
            out["same"].append(row)
    if ui.describe_inputs is not None:
        out["facts"] = ui.describe_inputs(params)
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


def timing(experiment: Experiment, runs) -> dict:
    """Elapsed wall time and, while running, an estimate of the time left."""
    end = experiment.finished if experiment.status in FINAL_STATUSES else timezone.now()
    elapsed = (end - experiment.created).total_seconds() if end else None
    eta = None
    if experiment.status not in FINAL_STATUSES and experiment.progress > 0:
        eta = elapsed * (100.0 - experiment.progress) / experiment.progress
    finished_runs = sum(1 for r in runs if r.status in FINAL_STATUSES)
    return {"elapsed": duration(elapsed), "eta": duration(eta) if eta is not None else "",
            "finished_runs": finished_runs, "total_runs": len(runs),
            "done_runs": sum(1 for r in runs if r.status == Status.DONE)}


# --- sweeps and figure presets ---------------------------------------------------------------

def point_label(ui: kinds.LabKind | None, setting: dict) -> str:
    """``uavs_mean = 3, priority_cv = 0.2`` in words: the setting of one sweep point."""
    return ", ".join(f"{labels.param_label(k)} = {_show(v)}" for k, v in setting.items())


@dataclass
class PointTable:
    point: int
    label: str
    table: SummaryTable

    @property
    def dom_id(self) -> str:
        return f"summary-table-{self.point}"


def point_tables(ui: kinds.LabKind | None, experiment: Experiment) -> list[PointTable]:
    """One summary table per sweep point, in point order."""
    settings = {row["point"]: row["setting"] for row in experiment.summary}
    return [PointTable(p, point_label(ui, settings[p]), summary_table(ui, experiment, p))
            for p in sorted(settings)]


def sweep_axes(experiment: Experiment) -> str:
    """``uavs_mean (3 values) × priority_cv (2 values)``."""
    return " × ".join(f"{' = '.join(map(labels.param_label, a['param'].split('+')))} "
                      f"({len(a['values'])} values)"
                      for a in experiment.axes)


def published(experiment: Experiment) -> dict | None:
    """For an experiment made from a figure preset: the figure, the published claim and, from
    the finished runs, each claim's verdict (the rule and record of hetsite.scoreboard)."""
    from . import scoreboard, selectors

    figure = kinds.get_figure(experiment.figure) if experiment.figure else None
    if figure is None:
        return None
    runs = selectors.sweep_runs(experiment)
    return {"figure": figure, "checks": scoreboard.live(figure, runs) if runs else []}
