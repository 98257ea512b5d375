"""Experiments side by side: each one's policy means with their 95% intervals (clipped to each
metric's range) per headline metric, and the parameters in which their scenarios differ.

A sweep takes part at one of its points (``<id>:<k>``, k from 0 as in ``?point=k``; its first
point when none is named), so that every side is one scenario. Plain functions of models and
kinds, like ``presenters``; the caller's visibility is checked where the experiments are read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from simcore.charts import layout, note, place_header, rounded
from simcore.errors import ScenarioError

from . import kinds, presenters, selectors
from .models import Experiment

MAX_SIDES = 6  # experiments (or sweep points) in one comparison
CLIP_NOTE = "95% intervals cut at the metric's range"


class Refused(ValueError):
    """A comparison that cannot be made, with words for the page (a 400)."""


@dataclass
class Side:
    experiment: Experiment
    point: int | None  # the sweep point compared (None: not a sweep)
    letter: str  # "A", "B", ... in the order asked

    @property
    def key(self) -> str:
        at = f":{self.point}" if self.point is not None else ""
        return f"{self.experiment.public_id}{at}"

    @property
    def title(self) -> str:
        at = f" · point {self.point + 1}" if self.point is not None else ""
        return f"{self.letter}: {self.experiment.name}{at}"

    def summary(self) -> dict[str, dict]:
        """The summary rows of the point compared, by policy (one point's rows only: a sweep
        may have thousands)."""
        rows = self.experiment.summary_rows.filter(point=self.point or 0)
        return {row.policy: row.as_dict() for row in rows}

    def params(self) -> dict:
        """Every parameter as this side ran it, by dotted name (a sweep point's overrides
        over the scenario's)."""
        setting = next(iter(self.summary().values()), {}).get("setting") or {}
        return {**presenters.flat(self.experiment.scenario.params), **setting}


def read_sides(asked: list[str], who) -> list[Side]:
    """The experiments (``<id>`` or ``<id>:<point>``) the viewer asked for and may read, in the
    order asked, repeats dropped. Refused when more than MAX_SIDES or of different kinds; an
    unknown or unreadable id is a 404, as on its own page."""
    asked = list(dict.fromkeys(a.strip() for a in asked if a.strip()))
    if len(asked) > MAX_SIDES:
        raise Refused(f"Compare at most {MAX_SIDES} experiments at a time "
                      f"({len(asked)} were asked).")
    sides = []
    for text in asked:
        found = re.fullmatch(r"([0-9a-fA-F-]{32,36})(?::(.*))?", text, re.ASCII | re.DOTALL)
        experiment = selectors.experiment_by_public_id(found.group(1) if found else text, who)
        try:
            point = selectors.point_of(experiment, found.group(2) if found else None)
        except ScenarioError as err:  # ":99" past the sweep, ":٣", ":x": named, never point 0
            raise Refused(f"e={text[:80]}: {err.field} {err.message}.") from None
        if experiment.axes and point is None:
            point = 0
        side = Side(experiment, point, chr(ord("A") + len(sides)))
        if all(s.key != side.key for s in sides):  # "<id>:0" and "<id>:00" are one side
            sides.append(side)
    kinds_asked = sorted({s.experiment.kind for s in sides})
    if len(kinds_asked) > 1:
        raise Refused("Experiments of different kinds measure different things and cannot "
                      f"share a table: these are of {', '.join(kinds_asked)}. Pick experiments "
                      "of one kind.")
    return sides


@dataclass
class MetricRow:
    policy: str
    color: str
    cells: list[presenters.Cell]  # one per side, in the shown unit
    digits: int = 2

    @property
    def shown(self) -> list[tuple[presenters.Cell, str]]:
        """Each cell with its clipped 95% interval in words ("[1.2, 3.4]"; "" without one)."""
        return [(c, f"[{presenters.number(c.low, self.digits)}, "
                    f"{presenters.number(c.high, self.digits)}]" if c.low is not None else "")
                for c in self.cells]


@dataclass
class MetricTable:
    column: presenters.Column
    rows: list[MetricRow] = field(default_factory=list)

    @property
    def clipped(self) -> bool:
        return any(c.clipped for r in self.rows for c in r.cells)


def policies(sides: list[Side]) -> list[str]:
    """Every policy of any side, in the order the sides list them."""
    return list(dict.fromkeys(p for s in sides for p in s.experiment.policies))


def tables(kind_lab: kinds.LabKind, sides: list[Side]) -> list[MetricTable]:
    """Per headline metric: a row per policy, a cell per side (mean, its 95% interval clipped to
    the metric's range as that side's scenario sets it: each its own energy budget), all sides
    in one unit."""
    stats = [s.summary() for s in sides]
    ranges = [presenters.experiment_bounds(kind_lab, s.experiment, point=s.point or 0)
              for s in sides]
    names = policies(sides)
    out = []
    for metric in kind_lab.metrics:
        means = [row[metric.key]["mean"] for by in stats for row in by.values()
                 if (row.get(metric.key) or {}).get("mean") is not None]
        column = presenters.column_for(metric, means)
        columns = [replace(column, range=r[metric.key].at(s.point or 0))
                   for s, r in zip(sides, ranges, strict=True)]
        table = MetricTable(column)
        for policy in names:
            table.rows.append(MetricRow(policy, kind_lab.policy_color(policy), [
                presenters.metric_cell((by.get(policy) or {}).get(metric.key), col)
                for by, col in zip(stats, columns, strict=True)], column.digits))
        out.append(table)
    return out


def figure(table: MetricTable, sides: list[Side]) -> dict:
    """One metric: a group of bars per side, a bar per policy (its colour, its name) with its
    clipped 95% interval."""
    column = table.column
    data = []
    for row in table.rows:
        present = [c.mean is not None for c in row.cells]
        if not any(present):
            continue
        data.append({
            "type": "bar", "name": row.policy, "legendgroup": row.policy,
            "x": [s.letter for s in sides],
            "y": rounded([c.mean for c in row.cells]),
            "marker": {"color": row.color},
            "error_y": {"type": "data", "symmetric": False, "visible": True,
                        "array": rounded([_minus(c.high, c.mean) for c in row.cells]),
                        "arrayminus": rounded([_minus(c.mean, c.low) for c in row.cells])},
            "customdata": [[s.title, c.n] for s, c in zip(sides, row.cells, strict=True)],
            "hovertemplate": (f"{row.policy}<br>%{{customdata[0]}}<br>%{{y:.4g}} (95% CI "
                              "−%{error_y.arrayminus:.3g} +%{error_y.array:.3g}, "
                              "n = %{customdata[1]})<extra></extra>"),
        })
    lay = layout(column.metric.label, "experiment", column.header, barmode="group")
    if table.clipped:
        note(lay, CLIP_NOTE)
    return place_header({"data": data, "layout": lay})


def _minus(a: float | None, b: float | None) -> float:
    return 0.0 if a is None or b is None else a - b


@dataclass
class Difference:
    name: str  # dotted
    label: str  # declared label with its unit
    values: list[str]  # one per side, in words
    text: str  # "Mean number of UAVs: 3 in A, 6 in B"


def differences(kind_lab: kinds.LabKind, sides: list[Side]) -> list[Difference]:
    """The parameters (by their declared labels and units), the trials and the first seed in
    which the sides differ, each side's value in words."""
    runs = [s.params() for s in sides]
    out = []
    for name in presenters.declared(kind_lab):
        values = [r.get(name) for r in runs]
        if any(presenters.differs(values[0], v) for v in values[1:]):
            out.append(_difference(name, presenters.param_title(kind_lab, name),
                                   [presenters.shown(v) for v in values], sides))
    for name, label in (("trials", "Trials"), ("base_seed", "First seed")):
        values = [getattr(s.experiment, name) for s in sides]
        if len(set(values)) > 1:
            out.append(_difference(name, label, [f"{v:,}" for v in values], sides))
    return out


def _difference(name: str, label: str, values: list[str], sides: list[Side]) -> Difference:
    text = f"{label}: " + ", ".join(f"{v} in {s.letter}"
                                    for v, s in zip(values, sides, strict=True))
    return Difference(name, label, values, text)



POINT_CHOICES = 12  # the points of a sweep the picker offers


def point_choices(kind_lab: kinds.LabKind | None, experiment: Experiment) -> list[tuple[str, str]]:
    """A sweep's points as the picker offers them: (``<id>:<k>``, "point 2: ... = 6");
    empty for an experiment without a sweep."""
    if not experiment.axes:
        return []
    rows = experiment.summary_rows.filter(policy=experiment.policies[0]).order_by("point")
    return [(f"{experiment.public_id}:{row.point}",
             f"point {row.point + 1}: {presenters.point_label(kind_lab, row.setting)}")
            for row in rows[:POINT_CHOICES]]
