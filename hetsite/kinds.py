"""The scenario kinds the web lab offers, as they declare themselves (``simcore.lab``).

A kind's lab face (``<kind>/lab.py``) is plain declarations on the core; this module finds the
kinds (``hetsite.inputs`` renders their file inputs). Nothing here or in ``frontend/`` is
specific to one kind.
"""

from __future__ import annotations

import importlib
import threading

from simcore.lab import (  # noqa: F401  (the names the web side reads kinds by)
    RUN_OVERHEAD_S,
    UNITLESS,
    ChartSpec,
    Condition,
    FileInput,
    FormHook,
    LabKind,
    Limit,
    Metric,
    RunData,
    register,
    registered,
)

# Imported explicitly: a missing or broken lab module fails loudly at the first request.
LAB_MODULES = ["scheduling.lab", "uav.lab"]
# Scenario parameters appear in forms as fields named PARAM_PREFIX + dotted name.
PARAM_PREFIX = "p."

_loaded = False
_lock = threading.Lock()


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
    return registered()


def get_kind(kind: str) -> LabKind | None:
    _load()
    return next((lab for lab in registered() if lab.kind == kind), None)


def all_figures() -> list:
    """Every figure preset of every kind the lab offers, kind by kind."""
    return [f for lab in all_kinds() for f in lab.engine.ENGINE.list_figures(lab.kind)]


def get_figure(name: str):
    """The figure preset called ``name``, or None."""
    return next((f for f in all_figures() if f.name == name), None)
