"""The result of one simulation: the contract between engines, storage, charts and the API.

Everything outside ``timing`` is a pure function of (scenario, policy, seed, code version), so
``to_json()`` is byte-identical across repeated runs; wall-clock measurements live in ``timing``
and are written only when asked for.
"""

from __future__ import annotations

import functools
import json
import math
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA_VERSION = 1
_REPO = Path(__file__).resolve().parents[1]


@functools.cache
def code_version() -> str:
    """The git commit of the code (``+dirty`` for local edits); images set HETSITE_CODE_VERSION."""
    if os.environ.get("HETSITE_CODE_VERSION"):
        return os.environ["HETSITE_CODE_VERSION"]
    try:
        rev = subprocess.run(["git", "-C", str(_REPO), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(_REPO), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=5).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _array(a: np.ndarray) -> list:
    """A numeric numpy array as (nested) Python lists, non-finite floats as None."""
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a)
        if bad.any():
            out = a.astype(object)
            out[bad] = None
            return out.tolist()
    return a.tolist()


def plain(value: Any) -> Any:
    """JSON-ready copy: numpy scalars and arrays become Python numbers and lists.

    Non-finite floats become None. Long flat numeric lists go through numpy in one step (the
    per-task tables of a run hold hundreds of thousands of numbers); floats keep their full
    precision, so results are exact and identical from run to run.
    """
    if type(value) is dict:
        # Plain values inline, without a call each: a decision trace is tens of thousands of
        # small dicts of ints, floats and text, and a call per value tripled its writing time.
        out = {}
        for k, v in value.items():
            kind = type(v)
            if kind is str or kind is int or kind is bool or v is None:
                out[k if type(k) is str else str(k)] = v
            elif kind is float:
                out[k if type(k) is str else str(k)] = v if math.isfinite(v) else None
            else:
                out[k if type(k) is str else str(k)] = plain(v)
        return out
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return _array(value) if value.dtype.kind in "biuf" else [plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        if len(value) > 16 and isinstance(value[0], (int, float, np.number)):
            try:
                arr = np.asarray(value)
            except (ValueError, TypeError):  # ragged or mixed: element by element
                arr = None
            if arr is not None and arr.dtype.kind in "biuf":
                return _array(arr)
        return [plain(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if math.isfinite(v) else None
    return value


@dataclass
class Result:
    """Outcome of ``simulate``.

    summary: headline metrics (flat dict of numbers/strings).
    series:  per-minute time series; ``series["t_min"]`` is the time axis in minutes.
    tasks:   per-task (or per-surveil) records, column-wise: ``{"id": [...], "start": [...]}``.
    events:  per mapping event, column-wise (e.g. ``t_min``, ``chosen`` heuristic).
    extra:   anything else a chart or reader needs (utility class table, trace header, ...).
    meta:    kind, policy, seed, scenario parameters, code version, schema version.
    timing:  wall-clock figures (per-event ms, whole run s); excluded from ``to_json()``.
    decisions: what the run decided and why (``simcore.decisions``), only when it was asked
             to explain itself; None (and no ``decisions`` key in the JSON) otherwise.
    """

    summary: dict[str, Any]
    series: dict[str, Any] = field(default_factory=dict)
    tasks: dict[str, Any] = field(default_factory=dict)
    events: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    timing: dict[str, Any] = field(default_factory=dict)
    decisions: list[dict] | None = None

    def to_dict(self, timing: bool = False) -> dict[str, Any]:
        out = {
            "schema": SCHEMA_VERSION,
            "meta": self.meta,
            "summary": self.summary,
            "series": self.series,
            "tasks": self.tasks,
            "events": self.events,
            "extra": self.extra,
        }
        if self.decisions is not None:
            out["decisions"] = self.decisions
        if timing:
            out["timing"] = self.timing
        return plain(out)

    def to_json(self, timing: bool = False, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(timing=timing), sort_keys=True, indent=indent,
                          separators=(",", ":") if indent is None else None,
                          allow_nan=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        if data.get("schema") != SCHEMA_VERSION:
            raise ValueError(f"unsupported result schema {data.get('schema')!r}")
        return cls(summary=data["summary"], series=data.get("series", {}),
                   tasks=data.get("tasks", {}), events=data.get("events", {}),
                   extra=data.get("extra", {}), meta=data.get("meta", {}),
                   timing=data.get("timing", {}), decisions=data.get("decisions"))

    @classmethod
    def from_json(cls, text: str) -> Result:
        return cls.from_dict(json.loads(text))
