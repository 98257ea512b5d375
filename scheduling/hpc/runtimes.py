"""Task run times from a file: a plain list (one run time per line) or an SWF trace.

A *run-time list* holds one non-negative number (seconds) per line; blank lines and lines
starting with ``#`` or ``;`` are comments. Gzip is detected by its magic bytes. Errors are
``ScenarioError(f"runtimes:{line}", message)``, naming the line.

An SWF trace gives its run-time column: every job whose run time is known (not -1), in file
order; processors and status are ignored (each job becomes one single-worker task).

:func:`sniff` tells the two apart by the first data line: one field is a list, 18 are SWF.
"""

from __future__ import annotations

import os
from typing import IO

import numpy as np

from simcore.errors import ScenarioError

from .swf import _open, read_swf_arrays

LIST = "list"
SWF = "swf"


def _data_lines(reader):
    while True:
        line = reader.readline()
        if not line:
            return
        stripped = line.strip()
        if not stripped or stripped[:1] in (b"#", b";"):
            continue
        yield reader.line_no, stripped


def sniff(source: str | os.PathLike | IO[bytes], max_bytes: int | None = None) -> str:
    """``"list"`` or ``"swf"`` from the first data line (ScenarioError when neither)."""
    reader = _open(source, max_bytes)
    try:
        for line_no, stripped in _data_lines(reader):
            fields = len(stripped.split())
            if fields == 1:
                return LIST
            if fields == 18:
                return SWF
            raise ScenarioError(f"runtimes:{line_no}",
                                f"expected one run time per line (or an SWF trace with 18 "
                                f"fields per job), got {fields} fields")
        raise ScenarioError("runtimes", "holds no run times")
    finally:
        reader.close()


def read_runtime_list(source: str | os.PathLike | IO[bytes], *, max_bytes: int | None = None,
                      max_values: int | None = None) -> np.ndarray:
    """The run times of a run-time list, in file order (float64, seconds)."""
    reader = _open(source, max_bytes)
    tokens: list[bytes] = []
    lines: list[int] = []
    try:
        for line_no, stripped in _data_lines(reader):
            tokens.append(stripped)
            lines.append(line_no)
            if max_values is not None and len(tokens) > max_values:
                raise ScenarioError("runtimes", f"has more than the limit of {max_values:,} "
                                                "run times")
    except ScenarioError as err:
        if err.field.startswith("trace"):  # the byte and line limits of the shared opener
            raise type(err)(err.field.replace("trace", "runtimes", 1), err.message) from None
        raise
    finally:
        reader.close()
    if not tokens:
        raise ScenarioError("runtimes", "holds no run times")
    try:
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        values = None
    if values is not None:
        bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
        if bad.size == 0:
            return values
        first = int(bad[0])
    else:
        first = 0
    for i in range(first, len(tokens)):
        text = tokens[i].decode("utf-8", "replace")
        try:
            v = float(text)
        except ValueError:
            raise ScenarioError(f"runtimes:{lines[i]}",
                                f"is not a run time (one number per line): {text[:40]!r}"
                                ) from None
        if not np.isfinite(v) or v < 0:
            raise ScenarioError(f"runtimes:{lines[i]}",
                                f"must be a finite number >= 0 (seconds), got {text[:40]!r}")
    raise AssertionError("unreachable: a bad value was flagged but not found")  # pragma: no cover


def swf_runtimes(columns: dict[str, np.ndarray]) -> np.ndarray:
    """The known run times of SWF columns (``read_swf_arrays``), in file order."""
    run = np.asarray(columns["run_time"], dtype=np.float64)
    return run[run >= 0]


def read_runtimes(path: str | os.PathLike, *, max_bytes: int | None = None,
                  max_values: int | None = None) -> tuple[str, np.ndarray]:
    """(format, run times) of a run-time list or SWF file."""
    kind = sniff(path, max_bytes)
    if kind == LIST:
        return kind, read_runtime_list(path, max_bytes=max_bytes, max_values=max_values)
    try:
        _, columns = read_swf_arrays(path, max_bytes=max_bytes, max_jobs=max_values)
    except ScenarioError as err:
        field = err.field.replace("trace", "runtimes", 1)
        raise ScenarioError(field, err.message) from None
    values = swf_runtimes(columns)
    if values.size == 0:
        raise ScenarioError("runtimes", "the SWF trace has no job with a known run time")
    return kind, values
