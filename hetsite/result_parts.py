"""A run's stored result read a part at a time, never whole.

A run's full result is stored gzip-compressed (``Run.result_gz``: the JSON of
``Result.to_dict(timing=True)``, keys sorted; ``services.execution.finish_run``). For a
500,000-job replay that is 16 MB stored and 66 MB of JSON, and decompressing and parsing all of
it cost the web process 150-330 MB for one anonymous download (an outside audit;
``benchmarks/export_memory.py``, docs/reliability.md). So what sends or reads a stored result
goes through here, and none of it builds the decompressed whole or the whole parsed result:

* :func:`chunks` and :func:`stored_chunks`: the JSON decompressed 64 KB at a time, or the stored
  gzip as it is (``/r/<id>/result.json``, ``/api/runs/<id>/result/``);
* :func:`columns`: one column-wise part (``tasks``, ``series``) a column at a time, each column
  of numbers packed into numpy arrays (:class:`Packed`) as soon as it is read, so that about one
  column is held as Python objects at a time (tasks.csv, series.parquet, ...);
* :func:`parts`: whole top-level parts (a run chart's ``tasks``, ``events`` and ``extra``), the
  parse of each stopped as soon as its part is read (the stored keys are sorted, so ``extra``
  ends early in the document).

Parsed by ijson's C backend (yajl2) over a streaming gzip reader. Its fast mode reads numbers as
Python ints and floats as ``json.loads`` does, except that it refuses integers beyond 64 bits
(even 2**63 - 1) and floats beyond the double range: on such a refusal the read starts again in
its exact mode (every non-integer a ``Decimal``, turned into the float ``json.loads`` gives;
slower, as bounded). One difference remains: a string holding a lone UTF-16 surrogate escape
(``"\\ud800"``: no engine writes one, and PostgreSQL's JSON fields, where a scenario's text is
kept, refuse it) reads as ``"?"``. NaN and Infinity, which ``json.loads`` takes and stored
results never hold (``simcore.result.plain`` writes None), are a parse error.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from decimal import Decimal

import ijson
import numpy as np

from simcore.result import Result

READ = 64 * 1024  # bytes decompressed (or sent) at a time
# ijson's C backend by name: its pure-Python fallback would parse several times slower, and
# what the docstring says of numbers and strings is yajl's.
yajl = ijson.get_backend("yajl2_c")


def chunks(result_gz) -> Iterator[bytes]:
    """The stored result's JSON, decompressed ``READ`` bytes at a time (nothing for none)."""
    if not result_gz:
        return
    with _reader(result_gz) as stream:
        while chunk := stream.read(READ):
            yield chunk


def stored_chunks(result_gz) -> Iterator[memoryview]:
    """The stored gzip itself, ``READ`` bytes at a time."""
    view = memoryview(result_gz or b"")
    for start in range(0, len(view), READ):
        yield view[start:start + READ]


def _reader(result_gz) -> gzip.GzipFile:
    return gzip.GzipFile(fileobj=io.BytesIO(result_gz), mode="rb")


@dataclass(frozen=True, eq=False)
class Packed:
    """A column whose values are all ints or all floats, None among them or not: the numbers as
    one int64 or float64 array, and where the None were (``missing``; None when nowhere).
    A column of 500,000 floats is 4 MB here and 16 MB as a list of Python floats."""

    values: np.ndarray
    missing: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.values)

    @property
    def floats(self) -> bool:
        return self.values.dtype.kind == "f"

    def cells(self, start: int, stop: int) -> list:
        """The values ``start`` to ``stop`` as the list they were read from (ints, floats and
        None)."""
        out = self.values[start:stop].tolist()
        if self.missing is not None:
            for i in np.flatnonzero(self.missing[start:stop]).tolist():
                out[i] = None
        return out

    def slice(self, start: int, stop: int) -> Packed:
        """The values ``start`` to ``stop`` (views, no copy)."""
        return Packed(self.values[start:stop],
                      None if self.missing is None else self.missing[start:stop])

    def tolist(self) -> list:
        return self.cells(0, len(self))


_NONE = type(None)


def pack(values):
    """A list of numbers as a :class:`Packed` when every value is an int (a bool is not) or
    every value is a float, None allowed; anything else as it is (text, truth values, lists,
    ints mixed with floats, all None, an int past 64 bits)."""
    if type(values) is not list or not values:
        return values
    types = set(map(type, values))
    gaps = _NONE in types
    types.discard(_NONE)
    if types == {float}:
        dtype = np.float64
    elif types == {int}:
        dtype = np.int64
    else:
        return values
    missing = None
    numbers = values
    if gaps:
        missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
        numbers = [0 if v is None else v for v in values]
    try:
        return Packed(np.array(numbers, dtype=dtype), missing)
    except OverflowError:
        return values


def _packed(value):
    """A column packed; a column of columns (``{"uav 1": [...]}``) each of its columns."""
    if isinstance(value, dict):
        return {k: pack(v) for k, v in value.items()}
    return pack(value)


def _exact(value):
    """A value read in ijson's exact mode as ``json.loads`` reads it (Decimal to float)."""
    if type(value) is Decimal:
        return float(value)
    if type(value) is list:
        return [_exact(v) for v in value]
    if type(value) is dict:
        return {k: _exact(v) for k, v in value.items()}
    return value


def _with_fallback(read):
    """``read(use_float=True)``, or ``read(use_float=False)`` if yajl refused a number in its
    fast mode (see the module's docstring)."""
    try:
        return read(True)
    except ijson.JSONError:
        return read(False)


def columns(result_gz, part: str) -> dict:
    """The column-wise top-level ``part`` of a stored result (``{name: column}``, in stored
    order), each column of numbers a :class:`Packed` (:func:`pack`), other values as
    ``json.loads`` gives them; empty without a result or without the part."""
    if not result_gz:
        return {}

    def read(fast: bool) -> dict:
        out = {}
        with _reader(result_gz) as stream:
            for key, value in yajl.kvitems(stream, part, use_float=fast, buf_size=READ):
                out[key] = _packed(value if fast else _exact(value))
        return out

    return _with_fallback(read)


def parts(result_gz, names: Iterable[str]) -> dict:
    """The top-level parts ``names`` of a stored result that it has, each as ``json.loads``
    gives it, in one decompression: a parser per part, each stopped once its part is whole."""
    names = list(dict.fromkeys(names))
    if not result_gz or not names:
        return {}

    def read(fast: bool) -> dict:
        found: dict = {}
        got = {name: ijson.sendable_list() for name in names}
        parsers = {name: yajl.items_coro(got[name], name, use_float=fast) for name in names}
        with _reader(result_gz) as stream:
            while parsers:
                chunk = stream.read(READ)
                for name, parser in list(parsers.items()):
                    if chunk:
                        parser.send(chunk)
                    else:
                        parser.close()  # the end of the document: what it still holds
                    if got[name] or not chunk:
                        if got[name]:
                            found[name] = got[name][0] if fast else _exact(got[name][0])
                        del parsers[name]
        return found

    return _with_fallback(read)


#: The column-wise parts of a result: ``{column: [value per record]}``.
COLUMN_WISE = ("tasks", "events", "series")


def array(column):
    """A column as a chart takes it: numbers as one numpy array (float with NaN where a value
    is missing, else as read), anything else as it is."""
    if not isinstance(column, Packed):
        return column
    if column.missing is None:
        return column.values
    values = column.values.astype(float)
    values[column.missing] = np.nan
    return values


def result(result_gz, names: Iterable[str]) -> Result:
    """A stored result with only its parts ``names`` read (fields of ``Result``: "tasks",
    "events", ...), the others empty: what a run chart that declares what it reads
    (``ChartSpec.reads``) is built from. A column-wise part is read a column at a time, each
    column of numbers an :func:`array` (a 500,000-job replay's tasks as lists held 160 MB)."""
    names = tuple(names)
    unknown = set(names) - {f.name for f in fields(Result)}
    if unknown:
        raise ValueError(f"a Result has no part {sorted(unknown)}")
    found = parts(result_gz, [name for name in names if name not in COLUMN_WISE])
    for name in names:
        if name in COLUMN_WISE:
            read = columns(result_gz, name)
            if read:
                found[name] = {k: {i: array(c) for i, c in v.items()} if isinstance(v, dict)
                               else array(v) for k, v in read.items()}
    return Result(summary=found.pop("summary", {}), **found)
