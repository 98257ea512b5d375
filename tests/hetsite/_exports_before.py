"""The per-run exports as they were before they read the stored result a part at a time: the
code of hetsite/notebook.py at cb00385, copied verbatim (the module's imports aside), the
reference that tests/hetsite/test_result_parts.py holds the streamed exports to: the same CSV
bytes and the same Parquet files for every kind."""

# ruff: noqa
from __future__ import annotations

import csv
import json
import tempfile
from collections.abc import Iterable, Iterator

from django.http import FileResponse, StreamingHttpResponse

from hetsite import kinds, selectors
from hetsite.exports import header
from hetsite.notebook import BOOL, FLOAT, INT, TEXT, Column, Table, _run_cells

CHUNK = 2000  # rows read from the database, and written as one Parquet row group, at a time

def value_type(values: Iterable) -> str:
    """BOOL when every value is a truth value, else the narrowest of INT, FLOAT and TEXT that
    holds every value (missing values aside; INT when all are missing)."""
    seen = None
    for v in values:
        seen = _merge(seen, _type_of(v))
    return seen or INT


def _type_of(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return BOOL
    return INT if isinstance(v, int) else FLOAT if isinstance(v, float) else TEXT


def _merge(a: str | None, b: str | None) -> str | None:
    """The type that holds values of both (None: nothing seen yet)."""
    if a is None or b is None or a == b:
        return a or b
    return FLOAT if {a, b} == {INT, FLOAT} else TEXT


def records_table(run, records: dict[str, list], units: dict[str, str], name: str,
                  words: dict[str, dict] | None = None, shown: dict[str, str] | None = None,
                  what: str = "task") -> Table:
    """A row per record of a column-wise table (a run's tasks, or its series' samples): the
    run's id, sweep point, policy, trial and seed, then each column with its unit. Columns
    shorter than the longest are left empty below their end; a list inside a cell is written
    as its items joined by spaces; a column of columns (``{"uav 1": [...], ...}``, one series
    per UAV) gives a column each (``energy_remaining.1``); ``words`` maps a column's codes to
    words; ``shown`` exports a column under another name (LabKind.task_names). No two columns
    share a header: a record column named like one before it is exported as ``<what> <name>``
    (a task's own ``seed`` beside the run's)."""
    words = words or {}
    shown = shown or {}
    records = {**{c: v for c, v in records.items() if isinstance(v, list)},
               **{f"{c}.{k}": v for c, inner in records.items() if isinstance(inner, dict)
                  for k, v in inner.items() if isinstance(v, list)}}
    names = list(records)
    length = max((len(records[c]) for c in names), default=0)

    def cell(column: str, i: int):
        values = records[column]
        v = values[i] if i < len(values) else None
        if isinstance(v, list):
            return " ".join(map(str, v))
        return words[column].get(str(v), v) if column in words and v is not None else v

    def column_type(column: str) -> str:
        values = records[column]
        if column in words or any(isinstance(v, list) for v in values):
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
    rows = ([*ids, *[cell(c, i) for c in names]] for i in range(length))
    return Table(columns, _chunked(rows), name)


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
            yield "".join(writer.writerow(["" if v is None else v for v in row])
                          for row in chunk)

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
    with pq.ParquetWriter(spool, schema) as writer:
        for chunk in table.chunks:
            columns = [_arrow_values(col, [row[i] for row in chunk])
                       for i, col in enumerate(table.columns)]
            writer.write_table(pa.Table.from_arrays(
                [pa.array(values, type=arrow[col.type])
                 for values, col in zip(columns, table.columns, strict=True)], schema=schema))
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, filename=f"{table.name}.parquet",
                        content_type="application/vnd.apache.parquet")


def _arrow_values(column: Column, values: list) -> list:
    if column.type == TEXT:
        return [None if v is None else str(v) for v in values]
    if column.type == FLOAT:
        return [None if v is None else float(v) for v in values]
    return values


def response(table: Table, fmt: str):
    return parquet_response(table) if fmt == "parquet" else csv_response(table)


def _result(run) -> dict:
    return json.loads(selectors.result_json(run) or b"{}")


def tasks_table(run) -> Table:
    """The per-task (or per-surveil) records of a finished run, a row per task; status codes
    written as words, units in the header."""
    result = _result(run)
    kind_lab = kinds.get_kind(run.experiment.kind)
    codes = (result.get("extra") or {}).get("status_codes") or {}
    records = result.get("tasks") or {}
    if kind_lab is not None and kind_lab.task_records is not None and records:
        records = kind_lab.task_records(result)
    return records_table(run, records, kind_lab.task_units if kind_lab else {},
                         f"tasks-{run.public_id}", {"status": codes} if codes else None,
                         kind_lab.task_names if kind_lab else None)


def series_table(run) -> Table:
    """The time series of a finished run as stored in its full result (per minute: ``t_min``
    is the time axis), a row per sample."""
    return records_table(run, _result(run).get("series") or {}, {}, f"series-{run.public_id}",
                         what="series")
