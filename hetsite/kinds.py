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
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

# Imported explicitly: a missing or broken lab module fails loudly at the first request.
LAB_MODULES = ["scheduling.lab", "uav.lab"]
# Scenario parameters appear in forms as fields named PARAM_PREFIX + dotted name.
PARAM_PREFIX = "p."


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str = ""
    higher_is_better: bool = True
    digits: int = 2


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
    ``settings.HETSITE_LIMITS[name]``; ``field`` is the parameter the error names."""

    name: str
    field: str
    measure: Callable[[dict], float]
    what: str


class FormHook(Protocol):
    """A kind's own form behaviour (e.g. the replay's trace upload): ``customize(form)`` adds or
    replaces fields, ``clean(form, data)`` turns them into scenario parameters."""

    def customize(self, form) -> None: ...

    def clean(self, form, data: dict) -> None: ...


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
