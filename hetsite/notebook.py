"""Long-format tables for notebooks: a row per run (or per task, per sample of a series), every
column named with its unit, written as CSV or Parquet a chunk of rows at a time.

An experiment may hold tens of thousands of runs, so its table is never built whole: runs are
read from the database in chunks (``values_list(...).iterator``), the CSV is streamed, and the
Parquet file is written one row group per chunk to a temporary file that is then streamed.
"""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.http import FileResponse, StreamingHttpResponse

from simcore.sweep import axis_value

from . import kinds, result_parts
from .exports import header, natural_key, swept
from .result_parts import Packed

CHUNK = 2000  # rows read from the database, and written as one Parquet row group, at a time

# A column's type, as Parquet stores it and pandas reads it back.
BOOL, INT, FLOAT, TEXT = "bool", "int64", "float64", "string"


@dataclass(frozen=True)
class Column:
    name: str  # with its unit: "wait_mean_s (s)"
    type: str  # INT, FLOAT or TEXT


@dataclass(frozen=True)
class Table:
    """A long table: its columns, and its rows a chunk (a list of lists) at a time; a table
    kept column-wise (a run's records) gives the same chunks as columns too (``by_column``:
    per chunk a list of the values of each column, or a ``result_parts.Packed`` slice), which
    Parquet takes as they are."""

    columns: list[Column]
    chunks: Iterable[list[list]]
    name: str  # the file's name without its extension
    by_column: Iterable[list] | None = None


def value_type(values: Iterable) -> str:
    """BOOL when every value is a truth value, else the narrowest of INT, FLOAT and TEXT that
    holds every value (missing values aside; INT when all are missing)."""
    seen = None
    for kind in set(map(type, values)):  # a type's values are all of one column type
        seen = _merge(seen, _type_of_class(kind))
    return seen or INT


def _type_of(v) -> str | None:
    return _type_of_class(type(v))


def _type_of_class(kind: type) -> str | None:
    if kind is type(None):
        return None
    if issubclass(kind, bool):
        return BOOL
    return INT if issubclass(kind, int) else FLOAT if issubclass(kind, float) else TEXT


def _merge(a: str | None, b: str | None) -> str | None:
    """The type that holds values of both (None: nothing seen yet)."""
    if a is None or b is None or a == b:
        return a or b
    return FLOAT if {a, b} == {INT, FLOAT} else TEXT


def _swept_types(axes) -> dict[str, str]:
    return {name: value_type(axis["values"]) for axis in axes or []
            for name in axis["param"].split("+")}


def _where(axes) -> list[Column]:
    """The columns that say which sweep point a row belongs to (none without a sweep)."""
    if not axes:
        return []
    types = _swept_types(axes)
    return [Column("point", INT), *[Column(p, types[p]) for p in swept(axes)]]


def _where_cells(point: int, overrides: dict, axes) -> list:
    return [point, *[axis_value(overrides, p) for p in swept(axes)]] if axes else []


def _metric_units(kind_names) -> dict[str, str]:
    units: dict[str, str] = {}
    for kind in sorted(kind_names):
        kind_lab = kinds.get_kind(kind)
        units.update({m.key: m.unit for m in kind_lab.metrics} if kind_lab else {})
    return units


def _metric_keys(summaries: Iterable[dict]) -> dict[str, str]:
    """Every scalar key of the summaries with its type (one pass; only the keys are kept)."""
    types: dict[str, str | None] = {}
    for summary in summaries:
        for key, v in summary.items():
            if not isinstance(v, (list, dict)):
                types[key] = _merge(types.get(key), _type_of(v))
    return {k: types[k] or INT for k in sorted(types, key=natural_key)}


RUN_FIELDS = ("experiment__kind", "experiment__public_id", "public_id", "point", "overrides",
              "policy", "trial", "seed", "status", "error", "summary")


def runs_table(runs, name: str, axes=None) -> Table:
    """A row per run of ``runs`` (an ordered queryset): kind, experiment, run, the sweep point
    and each swept parameter's value (a sweep), policy, trial, seed, status, error and every
    scalar metric of the runs' summaries, in natural order with its unit in the header.

    Two passes over the summaries, both in chunks: one for the metric columns, one for the rows.
    """
    keys = _metric_keys(runs.values_list("summary", flat=True).iterator(chunk_size=CHUNK))
    units = _metric_units(runs.order_by().values_list("experiment__kind", flat=True).distinct())
    columns = [Column("kind", TEXT), Column("experiment", TEXT), Column("run", TEXT),
               *_where(axes), Column("policy", TEXT), Column("trial", INT),
               Column("seed", INT), Column("status", TEXT), Column("error", TEXT),
               *[Column(header(k, units), t) for k, t in keys.items()]]

    def rows():
        for kind, experiment, run, point, overrides, policy, trial, seed, status, error, \
                summary in runs.values_list(*RUN_FIELDS).iterator(chunk_size=CHUNK):
            yield [kind, str(experiment), str(run), *_where_cells(point, overrides, axes),
                   policy, trial, seed, status, error, *[summary.get(k) for k in keys]]

    return Table(columns, _chunked(rows()), name)


def _run_cells(run) -> tuple[list[Column], list]:
    """The columns that tie a task's or a sample's row to its run."""
    axes = run.experiment.axes
    columns = [Column("run", TEXT), *_where(axes), Column("policy", TEXT),
               Column("trial", INT), Column("seed", INT)]
    return columns, [str(run.public_id), *_where_cells(run.point, run.overrides, axes),
                     run.policy, run.trial, run.seed]


def records_table(run, records: dict, units: dict[str, str], name: str,
                  words: dict[str, dict] | None = None, shown: dict[str, str] | None = None,
                  what: str = "task") -> Table:
    """A row per record of a column-wise table (a run's tasks, or its series' samples): the
    run's id, sweep point, policy, trial and seed, then each column with its unit. Columns
    shorter than the longest are left empty below their end; a list inside a cell is written
    as its items joined by spaces; a column of columns (``{"uav 1": [...], ...}``, one series
    per UAV) gives a column each (``energy_remaining.1``); ``words`` maps a column's codes to
    words; ``shown`` exports a column under another name (LabKind.task_names). No two columns
    share a header: a record column named like one before it is exported as ``<what> <name>``
    (a task's own ``seed`` beside the run's).

    A column is a list, or a column of numbers packed as read (``result_parts.Packed``); the
    rows are made a chunk at a time from slices of the columns."""
    words = words or {}
    shown = shown or {}
    records = {**{c: v for c, v in records.items() if _is_column(v)},
               **{f"{c}.{k}": v for c, inner in records.items() if isinstance(inner, dict)
                  for k, v in inner.items() if _is_column(v)}}
    names = list(records)
    length = max((len(records[c]) for c in names), default=0)

    def cells(column: str, start: int, stop: int) -> list:
        values = records[column]
        named = words.get(column) if column in words else None
        if isinstance(values, Packed):
            out = values.cells(start, stop)
            if named is not None:
                out = [named.get(str(v), v) if v is not None else v for v in out]
        else:
            out = [" ".join(map(str, v)) if isinstance(v, list)
                   else named.get(str(v), v) if named is not None and v is not None else v
                   for v in values[start:stop]]
        return out + [None] * (stop - start - len(out))  # below the column's end

    def piece(column: str, start: int, stop: int):
        """The column's values ``start`` to ``stop`` for Parquet: a slice of a packed column
        that needs no words and reaches ``stop``, else its cells."""
        values = records[column]
        if isinstance(values, Packed) and column not in words and stop <= len(values):
            return values.slice(start, stop)
        return cells(column, start, stop)

    def column_type(column: str) -> str:
        values = records[column]
        if column in words:
            return TEXT
        if isinstance(values, Packed):
            return FLOAT if values.floats else INT
        if any(issubclass(kind, list) for kind in set(map(type, values))):
            return TEXT
        return value_type(values)

    head, ids = _run_cells(run)
    taken = {c.name for c in head}
    columns = list(head)
    for c in names:
        text = header(c, units, shown.get(c))
        if text in taken:
            text = header(c, units, f"{what} {shown.get(c, c)}")
        taken.add(text)
        columns.append(Column(text, column_type(c)))

    def bounds():
        for start in range(0, length, CHUNK):
            yield start, min(start + CHUNK, length)

    def rows():
        for start, stop in bounds():
            yield [[*ids, *row]
                   for row in zip(*[cells(c, start, stop) for c in names], strict=True)]

    def by_column():
        for start, stop in bounds():
            yield [*[[v] * (stop - start) for v in ids], *[piece(c, start, stop) for c in names]]

    return Table(columns, rows(), name, by_column())


def _is_column(values) -> bool:
    return isinstance(values, (list, Packed))


def _chunked(rows: Iterator[list]) -> Iterator[list[list]]:
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class _Echo:
    """A file-like object whose ``write`` hands back what it was given (csv.writer into a
    stream of strings)."""

    def write(self, value):
        return value


def csv_response(table: Table) -> StreamingHttpResponse:
    writer = csv.writer(_Echo())

    def lines():
        yield writer.writerow([c.name for c in table.columns])
        for chunk in table.chunks:
            yield "".join(map(writer.writerow, chunk))  # the csv module writes None as ""

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{table.name}.csv"'
    return response


def parquet_response(table: Table) -> FileResponse:
    """The table as a Parquet file: a row group per chunk, written to a temporary file (on
    disk past a few MB) that the response streams and then closes, which removes it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = {BOOL: pa.bool_(), INT: pa.int64(), FLOAT: pa.float64(), TEXT: pa.string()}
    schema = pa.schema([(c.name, arrow[c.type]) for c in table.columns])
    # Not a context manager: the response closes (and so removes) it once it has been sent.
    spool = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115
    by_column = table.by_column if table.by_column is not None else (
        [[row[i] for row in chunk] for i in range(len(table.columns))] for chunk in table.chunks)
    with pq.ParquetWriter(spool, schema) as writer:
        for columns in by_column:
            writer.write_table(pa.Table.from_arrays(
                [_arrow_array(pa, col, values, arrow[col.type])
                 for values, col in zip(columns, table.columns, strict=True)], schema=schema))
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, filename=f"{table.name}.parquet",
                        content_type="application/vnd.apache.parquet")


def _arrow_array(pa, column: Column, values, arrow_type):
    """A column's values in a chunk as an Arrow array: a packed slice (numbers of the column's
    own type) as it is, a list as ``_arrow_values`` makes it."""
    if isinstance(values, Packed):
        return pa.array(values.values, mask=values.missing, type=arrow_type)
    return pa.array(_arrow_values(column, values), type=arrow_type)


def _arrow_values(column: Column, values: list) -> list:
    if column.type == TEXT:
        return [None if v is None else str(v) for v in values]
    if column.type == FLOAT:
        return [None if v is None else float(v) for v in values]
    return values


def response(table: Table, fmt: str):
    return parquet_response(table) if fmt == "parquet" else csv_response(table)


def tasks_table(run) -> Table:
    """The per-task (or per-surveil) records of a finished run, a row per task; status codes
    written as words, units in the header.

    Only the result's ``tasks`` are read, a column at a time (``result_parts.columns``), and
    ``extra`` when there is a status column to write as words; never the whole result. A kind
    that derives its records from them (``LabKind.task_records``: value-of-service) is given
    those two parts as ``json.loads`` reads them."""
    kind_lab = kinds.get_kind(run.experiment.kind)
    if kind_lab is not None and kind_lab.task_records is not None:
        found = result_parts.parts(run.result_gz, ["tasks", "extra"])
        codes = (found.get("extra") or {}).get("status_codes") or {}
        records = found.get("tasks") or {}
        if records:
            records = kind_lab.task_records(found)
    else:
        records = result_parts.columns(run.result_gz, "tasks")
        codes = {}
        if "status" in records:
            extra = result_parts.parts(run.result_gz, ["extra"]).get("extra")
            codes = (extra or {}).get("status_codes") or {}
    return records_table(run, records, kind_lab.task_units if kind_lab else {},
                         f"tasks-{run.public_id}", {"status": codes} if codes else None,
                         kind_lab.task_names if kind_lab else None)


def series_table(run) -> Table:
    """The time series of a finished run as stored in its full result (per minute: ``t_min``
    is the time axis), a row per sample; only the result's ``series`` read, a column at a
    time."""
    return records_table(run, result_parts.columns(run.result_gz, "series"), {},
                         f"series-{run.public_id}", what="series")
