"""Where a scenario's trace comes from: the shipped library or an uploaded file.

A scenario names its trace, never a path: ``"lublin_256"`` (a file in this folder) or
``"upload:<sha256 hex>"`` (a file an upload store holds). Web input thus never reaches the file
system by path. Which uploads exist is the caller's business: the engine gets a
:class:`TraceLibrary` with an upload store (the web app passes its own; the command line has
none), rather than reading a folder from a module global. Parsed traces are cached per
(file, size, mtime), so the runs of one experiment parse a trace once per worker process.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simcore.errors import ScenarioError
from simcore.inputs import UploadStore, upload_sha

from ..runtimes import read_runtimes
from ..swf import SwfHeader, read_swf_arrays

LIBRARY_DIR = Path(__file__).resolve().parent
_SUFFIXES = (".swf.gz", ".swf")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_\-]{0,63}$")

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


@dataclass(frozen=True)
class UploadDir:
    """Uploads kept as ``<sha256>[.swf|.swf.gz|.txt|.txt.gz]`` files in one folder."""

    directory: Path

    def locate(self, sha256: str) -> Path | None:
        for name in (sha256, sha256 + ".swf", sha256 + ".swf.gz", sha256 + ".txt",
                     sha256 + ".txt.gz"):
            path = Path(self.directory) / name
            if path.is_file():
                return path
        return None


def library() -> dict[str, Path]:
    """Library trace names and their files."""
    out = {}
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


def check_trace_name(value: str) -> None:
    """Validate the form of a trace reference (raises ScenarioError("trace", ...))."""
    if upload_sha(value) is not None:
        return
    if not _NAME_RE.match(value) or value not in library():
        known = ", ".join(library()) or "none"
        raise ScenarioError("trace", f"must be a library trace ({known}) or "
                                     f"'upload:<sha256 hex>'; got {value!r}")


@dataclass(frozen=True)
class TraceLibrary:
    """The shipped traces plus, when given, an upload store."""

    uploads: UploadStore | None = None

    def locate(self, sha256: str) -> Path | None:
        """The upload store's file (a library is itself a store: scripts that pass one to
        ``simulate(..., traces=...)`` keep working)."""
        return self.uploads.locate(sha256) if self.uploads is not None else None

    def resolve(self, value: str) -> Path:
        """The file behind a trace reference; never accepts a path."""
        check_trace_name(value)
        sha = upload_sha(value)
        if sha is None:
            return library()[value]
        if self.uploads is None:
            raise ScenarioError("trace", "uploaded traces are not available here (no upload "
                                         "store is configured)")
        path = self.uploads.locate(sha)
        if path is None:
            raise ScenarioError("trace", f"uploaded trace {sha[:12]}... was not found")
        return path

    def load(self, value: str) -> LoadedTrace:
        """Parse (or fetch from the cache) the trace a scenario names."""
        path = self.resolve(value)
        st = path.stat()
        return _load_file(str(path), st.st_size, st.st_mtime_ns, value)

    def load_runtimes(self, value: str) -> np.ndarray:
        """The task run times a reference names: a run-time list (one per line) or an SWF
        trace's run-time column (see ``scheduling.hpc.runtimes``); read-only, cached."""
        path = self.resolve(value)
        st = path.stat()
        return _load_runtimes(str(path), st.st_size, st.st_mtime_ns)


def load_path(path: str | os.PathLike) -> LoadedTrace:
    """Parse any file (the CLI's ``--trace PATH``; not reachable from a scenario)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ScenarioError("trace", f"cannot open {os.fspath(path)!r}: "
                                     f"{exc.strerror or exc}") from exc
    return _load_file(os.fspath(path), st.st_size, st.st_mtime_ns, os.fspath(path))


@functools.lru_cache(maxsize=8)
def _load_runtimes(path: str, size: int, mtime_ns: int) -> np.ndarray:
    _, values = read_runtimes(path)
    values.setflags(write=False)
    return values


@functools.lru_cache(maxsize=8)
def _load_file(path: str, size: int, mtime_ns: int, name: str) -> LoadedTrace:
    header, columns = read_swf_arrays(path)
    for column in columns.values():
        column.setflags(write=False)  # shared by every run that hits the cache
    return LoadedTrace(name, header, columns)
