"""Where a scenario's trace comes from: the shipped library or an uploaded file.

A scenario names its trace, never a path: ``"lublin_256"`` (a file of ``scheduling/traces``) or
``"upload:<sha256 hex>"`` (a file in ``scheduling.engine.replay.UPLOAD_DIR``). Web input thus
never reaches the file system by path. Parsed traces are cached per (file, size, mtime), so the
runs of one experiment parse a trace once per worker process.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ScenarioError
from ..swf import SwfHeader, read_swf_arrays

LIBRARY_DIR = Path(__file__).resolve().parents[2] / "traces"
_SUFFIXES = (".swf.gz", ".swf")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,63}$")
_UPLOAD_RE = re.compile(r"^upload:([0-9a-f]{64})$")

#: One line per library trace, for the web form and ``docs/replay.md``.
DESCRIPTIONS = {
    "lublin_256": "Lublin-Feitelson model, 10,000 jobs on 256 nodes, over-saturated "
                  "(offered load 1.06); no requested times.",
    "lublin_256_small": "First 500 jobs of lublin_256 (about 5.5 days, load 0.74).",
    "example_8": "Hand-made: 16 jobs on 8 nodes with requested times, a failed, a cancelled "
                 "and an oversized job; small enough to check schedules by hand.",
}


@dataclass(frozen=True)
class LoadedTrace:
    name: str
    header: SwfHeader
    columns: dict[str, np.ndarray]


def library() -> dict[str, Path]:
    """Library trace names and their files."""
    out = {}
    if LIBRARY_DIR.is_dir():
        for path in sorted(LIBRARY_DIR.iterdir()):
            for suffix in _SUFFIXES:
                if path.name.endswith(suffix):
                    out[path.name[: -len(suffix)]] = path
                    break
    return out


def list_traces() -> list[dict]:
    """Library traces with their description (for forms and the API)."""
    return [{"name": name, "description": DESCRIPTIONS.get(name, ""), "file": path.name}
            for name, path in library().items()]


def upload_dir() -> Path | None:
    from . import UPLOAD_DIR  # read at call time so tests and settings can change it

    return Path(UPLOAD_DIR) if UPLOAD_DIR else None


def check_trace_name(value: str) -> None:
    """Validate the form of a trace reference (raises ScenarioError("trace", ...))."""
    if _UPLOAD_RE.match(value):
        if upload_dir() is None:
            raise ScenarioError("trace", "uploaded traces are not enabled (no upload "
                                         "directory is configured)")
        return
    if not _NAME_RE.match(value) or value not in library():
        known = ", ".join(library()) or "none"
        raise ScenarioError("trace", f"must be a library trace ({known}) or "
                                     f"'upload:<sha256 hex>'; got {value!r}")


def resolve(value: str) -> Path:
    """The file behind a trace reference; never accepts a path."""
    check_trace_name(value)
    m = _UPLOAD_RE.match(value)
    if m is None:
        return library()[value]
    base = upload_dir()
    for name in (m.group(1), m.group(1) + ".swf", m.group(1) + ".swf.gz"):
        path = base / name
        if path.is_file():
            return path
    raise ScenarioError("trace", f"uploaded trace {m.group(1)[:12]}... was not found")


def load(value: str) -> LoadedTrace:
    """Parse (or fetch from the cache) the trace a scenario names."""
    path = resolve(value)
    st = path.stat()
    return _load_file(str(path), st.st_size, st.st_mtime_ns, value)


def load_path(path: str | os.PathLike) -> LoadedTrace:
    """Parse any file (the CLI's ``--trace PATH``; not reachable from a scenario)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ScenarioError("trace", f"cannot open {os.fspath(path)!r}: "
                                     f"{exc.strerror or exc}") from exc
    return _load_file(os.fspath(path), st.st_size, st.st_mtime_ns, os.fspath(path))


@functools.lru_cache(maxsize=8)
def _load_file(path: str, size: int, mtime_ns: int, name: str) -> LoadedTrace:
    header, columns = read_swf_arrays(path)
    for column in columns.values():
        column.setflags(write=False)  # shared by every run that hits the cache
    return LoadedTrace(name, header, columns)
