"""What the web lab knows about each scenario kind: its engine, metrics, charts, limits and
form hooks (:class:`LabKind`).

The apps describe their kinds in ``<app>/lab.py`` (``scheduling.lab``, ``uav.lab``); this module
collects them. Everything here is plain Python: charts are pure functions from run data to
Plotly figure dicts, so they are unit-tested without Django or a browser. Nothing here or in
``frontend/`` is specific to one kind: a kind's own form behaviour is its ``form_hook``.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from types import ModuleType
from typing import Any, Protocol

from simcore.bounds import Bounds

# Imported explicitly: a missing or broken lab module fails loudly at the first request.
LAB_MODULES = ["scheduling.lab", "uav.lab"]
# Scenario parameters appear in forms as fields named PARAM_PREFIX + dotted name.
PARAM_PREFIX = "p."


class _Unitless(str):
    """The unit of a count or a ratio: it reads as "" but says it was declared, not forgotten."""


UNITLESS = _Unitless()


@dataclass(frozen=True)
class Metric:
    """A headline metric, declared once with everything every table, chart and export needs.

    ``unit`` is the unit of the stored value, ``UNITLESS`` for a count or a ratio (never left
    empty); ``scale`` turns it into the shown one (utilization 0-1 shown in %: ``scale=100,
    shown_unit="%"``); a unit of ``s`` is shown in minutes, hours or days as the values' size
    asks. ``higher_is_better`` is required: True or False where the kind's paper counts one side
    better, None for a quantity with no better side (the energy of the tasks that completed
    grows with the work done; a diagnostic count such as tasks dropped), never ranked.
    ``lower``/``upper`` bound the metric's range (stored units): every interval of it, in
    tables, bars, bands and hovers, is clipped there (simcore.bounds), and says so."""

    key: str
    label: str
    unit: str
    _: KW_ONLY
    higher_is_better: bool | None
    digits: int = 2
    scale: float = 1.0
    shown_unit: str | None = None
    lower: float | None = None
    upper: float | None = None

    def __post_init__(self):
        if not (self.higher_is_better is None or isinstance(self.higher_is_better, bool)):
            raise ValueError(f"metric {self.key!r}: higher_is_better must be True, False or "
                             f"None, got {self.higher_is_better!r}")
        if not self.unit and self.unit is not UNITLESS:
            raise ValueError(f"metric {self.key!r}: declare its unit, or UNITLESS for a count "
                             "or a ratio")

    @property
    def display_unit(self) -> str:
        return self.unit if self.shown_unit is None else self.shown_unit

    @property
    def bounds(self) -> Bounds:
        return Bounds(self.lower, self.upper)


@dataclass(frozen=True)
class RunData:
    """The compact, chart-sized data of one finished run."""

    policy: str
    trial: int
    seed: int
    summary: dict
    series: dict
    dist: dict
    label: str = ""
    color: str = ""  # the policy's colour (LabKind.policy_color), the same on every chart


@dataclass(frozen=True)
class ChartSpec:
    """Experiment charts build from {policy label: [RunData, ...]} in display order; run charts
    from one full engine Result."""

    id: str
    title: str
    build: Callable[..., dict]
    # Split into one panel per policy in side-by-side views (bar charts already compare).
    facetable: bool = True
    # Shown only when this returns True for the experiment's groups (e.g. metaheuristic runs).
    applies: Callable[[dict[str, list[RunData]]], bool] | None = None


@dataclass(frozen=True)
class Limit:
    """A site limit on scenario size: ``measure(params)`` must not exceed the configured value
    ``settings.HETSITE_LIMITS[name]``; ``field`` is the parameter the error names. When the
    measure is that parameter alone times ``field_scale``, the form bounds the field by the
    limit too (cap / field_scale)."""

    name: str
    field: str
    measure: Callable[[dict], float]
    what: str
    field_scale: float | None = None

    def field_max(self, cap: float) -> float | None:
        return None if self.field_scale is None else cap / self.field_scale


@dataclass(frozen=True)
class Condition:
    """Parameters that apply only when another one has one of ``values`` (e.g. the trace
    fields only under ``workload.source = trace``): hidden in the form, folded on the result
    page. ``params`` are dotted names or group prefixes ending in a dot."""

    params: tuple[str, ...]
    control: str
    values: tuple

    def covers(self, name: str) -> bool:
        return name != self.control and any(
            name == p or (p.endswith(".") and name.startswith(p)) for p in self.params)


class FormHook(Protocol):
    """A kind's own form behaviour (e.g. the replay's trace upload): ``customize(form)`` adds or
    replaces fields, ``clean(form, data)`` turns them into scenario parameters."""

    def customize(self, form) -> None: ...

    def clean(self, form, data: dict) -> None: ...


# What a run costs a worker besides its simulation: claiming it, its messages, storing and
# compressing its result, the experiment's refresh (docs/reliability.md, "Pricing").
RUN_OVERHEAD_S = 0.05


@dataclass(frozen=True)
class LabKind:
    """One scenario kind as the lab shows it."""

    kind: str
    title: str
    engine: ModuleType  # the engine package (``scheduling.engine``, ``uav.engine``)
    metrics: list[Metric]
    primary_metric: str
    compact: Callable[[Any], dict]  # Result -> {"series": ..., "dist": ...}
    experiment_charts: list[ChartSpec] = field(default_factory=list)
    run_charts: list[ChartSpec] = field(default_factory=list)
    default_policies: list[str] = field(default_factory=list)
    default_preset: str = ""
    limits: list[Limit] = field(default_factory=list)
    form_hook: FormHook | None = None
    # Deterministic kinds (trace replay) gain nothing from more than one trial.
    deterministic: bool = False
    # Trials the new-experiment form suggests (the many-task kind: the paper's 100 shuffles).
    default_trials: int = 3
    # Parameters that apply only under a setting of another one (see Condition).
    conditions: list[Condition] = field(default_factory=list)
    # Facts about a scenario's inputs beyond its parameters, as (label, text) pairs, e.g. the
    # replayed trace's name and size; shown on the result page.
    describe_inputs: Callable[[dict], list[tuple[str, str]]] | None = None
    # Units of the per-task record columns, for export headers ({"arrival": "s", ...}).
    task_units: dict[str, str] = field(default_factory=dict)
    # Worker-seconds per unit of the engine's cost estimate (``Kind.cost``), measured on one
    # stated run of the kind (benchmarks/cost_estimates.py): budgets are priced in seconds.
    seconds_per_cost: float = 1.0
    # A run's cost in those units when the engine has no estimate that sees the inputs (a
    # replay's job count needs the trace): ``work(params) -> float``.
    work: Callable[[dict], float] | None = None

    def policy_color(self, policy: str) -> str:
        """A policy's colour, keyed on its name (simcore.charts.policy_color)."""
        from simcore.charts import policy_color

        # The kind's default policies claim their colours first (they are the most used).
        names = [p.name for p in self.engine.list_policies(self.kind)]
        peers = [p for p in self.default_policies if p in names]
        return policy_color(policy, peers + [p for p in names if p not in peers])

    def run_seconds(self, params: dict, policy: str, scenario=None) -> float:
        """Estimated worker-seconds of one run of ``policy`` on these (normalized) parameters;
        ``scenario``, the engine's scenario of them when the caller has it, saves building it
        again (a sweep prices every point for every policy)."""
        if self.work is not None:
            units = self.work(params)
        else:
            units = self.engine.ENGINE.cost(scenario or self.engine.scenario(self.kind, params),
                                            policy)
        return float(units) * self.seconds_per_cost + RUN_OVERHEAD_S

    def condition_for(self, name: str) -> Condition | None:
        return next((c for c in self.conditions if c.covers(name)), None)

    def applies(self, name: str, params: dict) -> bool:
        """Does parameter ``name`` take effect under these (nested) parameters?"""
        cond = self.condition_for(name)
        if cond is None:
            return True
        node = params
        for part in cond.control.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node in cond.values

    @property
    def environment(self):
        """The engine's registration of this kind (config class, run function, ...)."""
        return self.engine.ENGINE.get_kind(self.kind)


_KINDS: dict[str, LabKind] = {}
_loaded = False
_lock = threading.Lock()


def register(lab: LabKind) -> LabKind:
    if lab.kind in _KINDS:
        raise RuntimeError(f"lab kind {lab.kind!r} registered twice")
    lab.environment  # noqa: B018  (fails loudly when the engine does not know the kind)
    for chart in lab.experiment_charts:
        bind = getattr(chart.build, "bind", None)
        if bind is not None:
            bind(lab)  # a chart of one declared metric takes the kind's own declaration
    _KINDS[lab.kind] = lab
    return lab


def _load():
    """Import the apps' lab modules once; concurrent requests wait until they are in."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            for module in LAB_MODULES:
                importlib.import_module(module)
            _loaded = True


def all_kinds() -> list[LabKind]:
    _load()
    return list(_KINDS.values())


def get_kind(kind: str) -> LabKind | None:
    _load()
    return _KINDS.get(kind)


def all_figures() -> list:
    """Every figure preset of every kind the lab offers, kind by kind."""
    return [f for lab in all_kinds() for f in lab.engine.ENGINE.list_figures(lab.kind)]


def get_figure(name: str):
    """The figure preset called ``name``, or None."""
    return next((f for f in all_figures() if f.name == name), None)
