"""What the web lab knows about each scenario kind: its engine, metrics, charts and storage.

The apps describe their kinds in ``<app>/lab.py`` (``scheduling.lab``, ``uav.lab``); this module
collects them. Everything here is plain Python: charts are pure functions from run data to
Plotly figure dicts, so they are unit-tested without Django or a browser.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

LAB_MODULES = ["scheduling.lab", "uav.lab"]


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


@dataclass(frozen=True)
class KindUI:
    kind: str
    title: str
    engine: ModuleType
    metrics: list[Metric]
    primary_metric: str
    compact: Callable[[Any], dict]  # Result -> {"series": ..., "dist": ...}
    experiment_charts: list[ChartSpec] = field(default_factory=list)
    run_charts: list[ChartSpec] = field(default_factory=list)
    default_policies: list[str] = field(default_factory=list)
    default_preset: str = ""
    limits: list[Limit] = field(default_factory=list)

    @property
    def environment(self):
        return self.engine.ENGINE.get_environment(self.kind)


_KINDS: dict[str, KindUI] = {}
_loaded = False
_lock = threading.Lock()


def register(ui: KindUI) -> KindUI:
    _KINDS[ui.kind] = ui
    return ui


def _load():
    """Import the apps' lab modules once; concurrent requests wait until they are in."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            for module in LAB_MODULES:
                if importlib.util.find_spec(module) is not None:
                    importlib.import_module(module)
            _loaded = True


def all_kinds() -> list[KindUI]:
    _load()
    return [k for k in _KINDS.values() if _available(k)]


def get_kind(kind: str) -> KindUI | None:
    _load()
    ui = _KINDS.get(kind)
    return ui if ui is not None and _available(ui) else None


def _available(ui: KindUI) -> bool:
    """A kind is offered once its engine environment is actually registered."""
    return any(env.kind == ui.kind for env in ui.engine.ENGINE.list_environments())
