"""A run's downloads read its stored result a part at a time (``hetsite.result_parts``; an
outside audit: one anonymous tasks.csv of a 500,000-job replay parsed all 66 MB of its result).

* tasks and series, as CSV and Parquet, read with their numbers packed, equal byte for byte
  what the same code makes of the columns as plain lists (as ``json.loads`` reads them), for a
  run of every kind, for a stored result with every odd column, and for any columns Hypothesis
  makes up. (At the change, the same tests held against a verbatim copy of the code before
  it, byte for byte.)
* ``result.json`` and the API's result stream the stored bytes (the stored gzip itself to a
  client that takes gzip);
* a run chart that declares what it reads (the replays' Gantt) draws what it drew from the
  whole result;
* none of them holds the whole result: on a result whose ``timing`` is large, their traced peak
  stays under a tenth of the JSON's size (reading it whole holds more than all of the JSON).
"""

import contextlib
import gc
import gzip
import io
import json
import tracemalloc
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.cache import cache
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from hetsite import exports, figures, kinds, notebook, result_parts, selectors
from hetsite.models import Experiment, Run, Scenario, Status
from hetsite.result_parts import Packed, pack
from hetsite.services import execution, submission
from simcore.charts import place_header
from simcore.result import Result

pytestmark = pytest.mark.django_db

KINDS = ["parallel-energy", "swf-replay", "swf-preemptive", "serial-preemption",
         "value-of-service", "grid", "many-task", "uav"]


def body(response) -> bytes:
    assert response.status_code == 200, response
    return b"".join(response.streaming_content) if response.streaming else response.content


def finished_run(kind: str, preset: str | None = None, policy: str | None = None) -> Run:
    """A finished run of the kind's default preset and first default policy (or those
    given), loaded as the export views load it."""
    kind_lab = kinds.get_kind(kind)
    sub = submission.validate_submission(
        kind=kind, preset=preset or kind_lab.default_preset,
        policies=[policy] if policy else kind_lab.default_policies[:1], trials=1)
    run = submission.create_experiment(sub, dispatch=False).runs.get()
    execution.execute_run(run.pk)
    run = selectors.run_by_public_id(run.public_id, with_result=True)
    assert run.status == Status.DONE, run.error
    return run


def stored_run(result: dict, kind: str = "serial-preemption", sort_keys: bool = True) -> Run:
    scenario = Scenario.objects.create(kind=kind, name="s", params={})
    experiment = Experiment.objects.create(name="e", kind=kind, scenario=scenario,
                                           policies=["fcfs"], trials=1)
    payload = json.dumps(result, sort_keys=sort_keys).encode()
    Run.objects.create(experiment=experiment, policy="fcfs", trial=0, seed=5, summary={},
                       status=Status.DONE, result_gz=gzip.compress(payload),
                       result_bytes=len(payload))
    return selectors.run_by_public_id(experiment.runs.get().public_id, with_result=True)


def assert_same_parquet(got: bytes, expected: bytes):
    new, old = pq.ParquetFile(io.BytesIO(got)), pq.ParquetFile(io.BytesIO(expected))
    assert new.schema_arrow == old.schema_arrow
    assert new.num_row_groups == old.num_row_groups
    assert new.read().to_pylist() == old.read().to_pylist()
    assert got == expected  # the very file


@contextlib.contextmanager
def unpacked():
    """Columns read as plain lists, as ``json.loads`` gives them (no column packed)."""
    packing = result_parts.pack
    result_parts.pack = lambda values: values
    try:
        yield
    finally:
        result_parts.pack = packing


TABLES = (("tasks", notebook.tasks_table), ("series", notebook.series_table))


def assert_exports_as_lists(run: Run):
    """The four downloads of the run through its routes equal what the same code makes of
    its columns as plain lists."""
    client = Client()
    for records, table in TABLES:
        csv_new = body(client.get(f"/r/{run.public_id}/{records}.csv"))
        parquet_new = body(client.get(f"/r/{run.public_id}/{records}.parquet"))
        with unpacked():
            assert csv_new == body(notebook.csv_response(table(run))), records
            assert_same_parquet(parquet_new, body(notebook.parquet_response(table(run))))


def test_the_kinds_compared_are_every_kind():
    assert sorted(KINDS) == sorted(k.kind for k in kinds.all_kinds())


@pytest.mark.parametrize("kind", KINDS)
def test_every_kinds_tasks_and_series_export_as_they_did(kind):
    assert_exports_as_lists(finished_run(kind))


def test_the_kinds_results_have_the_columns_that_matter():
    """What the comparison above covers, so that a preset's change cannot quietly take it
    away: missing values, truth values, lists, status codes as words, a series per UAV, a
    kind that derives its task records from the whole result."""
    def whole(kind):
        return json.loads(selectors.result_json(finished_run(kind)))

    ch4, uav, energy = whole("serial-preemption"), whole("uav"), whole("parallel-energy")
    assert ch4["extra"]["status_codes"] and "status" in ch4["tasks"]
    assert None in ch4["tasks"]["start"] and {type(v) for v in ch4["tasks"]["critical"]} == {bool}
    assert any(isinstance(v, list) for v in energy["tasks"]["node_ids"])
    assert None in energy["tasks"]["cluster"]  # a column of ints with gaps
    assert isinstance(uav["series"]["energy_remaining"], dict)
    assert {type(v) for v in uav["tasks"]["preempted"]} == {bool}
    assert kinds.get_kind("value-of-service").task_records is not None


ODD = {
    "tasks": {
        "ints": [1, None, 3, 2**40, -7, 0],
        "floats": [1.5, None, -0.0, 5e-324, 1.7976931348623157e308, 0.1],
        "mixed": [1, 2.5, None, 3, 4.0, 0],  # ints and floats: FLOAT, ints written as ints
        "none": [None] * 6,
        "flags": [True, False, None, True, False, True],
        "words": ["a", "b,c", None, 'say "x"', "é😀", ""],
        "lists": [[1, 2], None, [], [3, "x"], [0.5], [True]],
        "status": [0, 1, 2, 9, None, 1],  # 9: no word for it
        "short": [1.25, 2.5],  # shorter than the others: empty below its end
        "int64": [2**63 - 1, -2**63, 0, 1, 2, 3],  # yajl's fast mode refuses these
        "huge": [1, 2**70, "x", 3, None, 4],  # past 64 bits, in a text column
        "seed": [7, 8, 9, 10, 11, 12],  # named like a run column
        "scalar": 5,
        "nested": {"a": [1, 2], "b": [None, 2.5, 3.0]},
    },
    "extra": {"status_codes": {"0": "done", "1": "dropped", "2": "running"}},
    "series": {"t_min": [0, 1, 2, 3], "energy": {"uav 1": [1.0, None, 2.0, 3.0], "uav 2": [3, 4]},
               "pace": [0.5, 0.25, None, 1.0]},
    "timing": {"event_ms": [0.001 * i for i in range(50)]},
}


@pytest.mark.parametrize("sort_keys", [True, False])
@pytest.mark.parametrize("chunk", [2, 4, 2000])
def test_a_result_with_every_odd_column_exports_as_it_did(monkeypatch, sort_keys, chunk):
    """Chunk boundaries inside and at the end of the columns; keys sorted as stored, or not
    (``extra`` after ``tasks``)."""
    monkeypatch.setattr(notebook, "CHUNK", chunk)
    run = stored_run(ODD, sort_keys=sort_keys)
    assert_exports_as_lists(run)
    rows = list(body(Client().get(f"/r/{run.public_id}/tasks.csv")).decode().splitlines())
    assert "status (" not in rows[0] and ",dropped," in rows[2]  # codes as words


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_too(database):
    """Where the stored gzip comes out of the database as a memoryview, not bytes."""
    run = stored_run(ODD)
    assert isinstance(run.result_gz, memoryview if database == "postgresql" else bytes)
    assert_exports_as_lists(run)
    stored = bytes(run.result_gz)
    for accept, expected in (("", gzip.decompress(stored)), ("gzip", stored)):
        assert body(Client().get(f"/r/{run.public_id}/result.json",
                                 HTTP_ACCEPT_ENCODING=accept)) == expected
    assert figures.run_figure(with_large_timing(finished_run("swf-replay")), "gantt")["data"]


def test_the_parts_are_read_as_json_loads_reads_them():
    gz = gzip.compress(json.dumps(ODD).encode())
    whole = json.loads(gzip.decompress(gz))
    columns = result_parts.columns(gz, "tasks")
    assert list(columns) == list(whole["tasks"])
    unpacked = {k: v.tolist() if isinstance(v, Packed) else
                {i: w.tolist() if isinstance(w, Packed) else w for i, w in v.items()}
                if isinstance(v, dict) else v for k, v in columns.items()}
    assert_same(unpacked, whole["tasks"])
    assert isinstance(columns["ints"], Packed) and isinstance(columns["floats"], Packed)
    assert isinstance(columns["int64"], Packed) and not isinstance(columns["mixed"], Packed)
    assert isinstance(columns["nested"]["b"], Packed)
    assert_same(result_parts.parts(gz, ["extra", "series", "nope", "timing"]),
                {k: whole[k] for k in ("extra", "series", "timing")})
    assert result_parts.columns(None, "tasks") == {} and result_parts.parts(b"", ["a"]) == {}
    assert b"".join(result_parts.chunks(gz)) == gzip.decompress(gz)
    assert b"".join(result_parts.stored_chunks(gz)) == gz


def same(a, b) -> bool:
    """Equal values of the same types (a float by its repr: -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return repr(a) == repr(b) if isinstance(a, float) else a == b


def assert_same(a, b):
    assert same(a, b), (a, b)


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=4)  # no lone surrogates
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
VALUE = st.one_of(st.none(), st.integers(), FLOATS, st.booleans(), TEXT,
                  st.lists(st.one_of(st.integers(), TEXT, FLOATS), max_size=3))
COLUMN = st.one_of(st.lists(st.one_of(st.none(), st.integers(-2**63, 2**63 - 1)), max_size=12),
                   st.lists(st.one_of(st.none(), FLOATS), max_size=12),
                   st.lists(st.one_of(st.none(), st.integers(), FLOATS), max_size=12),
                   st.lists(VALUE, max_size=12))


@given(values=COLUMN, cut=st.tuples(st.integers(0, 14), st.integers(0, 14)))
@settings(max_examples=300, deadline=None)
def test_a_packed_column_gives_back_the_values_it_was_made_of(values, cut):
    packed = pack(list(values))
    start, stop = sorted(cut)
    if isinstance(packed, Packed):
        kinds_of = {type(v) for v in values} - {type(None)}
        assert kinds_of in ({int}, {float})  # only all-int or all-float columns are packed
        assert_same(packed.cells(start, stop), values[start:stop])
        assert_same(packed.tolist(), values)
        assert_same(packed.slice(start, stop).tolist(), values[start:stop])
    else:
        assert packed == values


@given(values=COLUMN)
@settings(max_examples=200, deadline=None)
def test_a_column_reads_back_as_json_loads_reads_it(values):
    gz = gzip.compress(json.dumps({"a": {"x": 1}, "tasks": {"c": values, "d": [1]}}).encode())
    read = result_parts.columns(gz, "tasks")["c"]
    assert_same(read.tolist() if isinstance(read, Packed) else read,
                json.loads(gzip.decompress(gz))["tasks"]["c"])


def made_up_run(result: dict) -> Run:
    """A run in memory only (nothing saved: Hypothesis calls this many times in one test)."""
    experiment = Experiment(name="e", kind="serial-preemption", axes=[])
    return Run(experiment=experiment, public_id=uuid.uuid4(), policy="fcfs", trial=0, seed=3,
               point=0, overrides={}, status=Status.DONE,
               result_gz=gzip.compress(json.dumps(result).encode()))


def outcome(make):
    """The bytes made, or the type of the error raised."""
    try:
        return body(make())
    except (OverflowError, TypeError, ValueError) as err:  # pyarrow's too, for ints past 64 bits
        return type(err)


@given(columns=st.dictionaries(st.sampled_from(["id", "start", "status", "run", "x.y", "b"]),
                               COLUMN, max_size=4),
       codes=st.booleans(), chunk=st.integers(1, 5))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_columns_export_as_they_did(columns, codes, chunk):
    result = {"tasks": columns, "series": columns,
              "extra": {"status_codes": {"0": "done", "1": "x"}} if codes else {}}
    run = made_up_run(result)
    old_chunk = notebook.CHUNK
    notebook.CHUNK = chunk
    try:
        for _, table in TABLES:
            csv_packed = notebook.csv_response(table(run)).getvalue()
            parquet_packed = outcome(lambda table=table: notebook.parquet_response(table(run)))
            with unpacked():
                assert csv_packed == notebook.csv_response(table(run)).getvalue()
                assert parquet_packed == outcome(
                    lambda table=table: notebook.parquet_response(table(run)))
    finally:
        notebook.CHUNK = old_chunk


def test_value_type_is_the_narrowest_that_holds_every_value():
    INT, FLOAT, BOOL, TEXT = notebook.INT, notebook.FLOAT, notebook.BOOL, notebook.TEXT
    cases = [([], INT), ([None], INT), ([True, None], BOOL), ([1, True], TEXT),
             ([1, 2.0], FLOAT), ([1.0, "a"], TEXT), ([1, None, 3], INT), ([False, 0.5], TEXT),
             ([[1], 1], TEXT), (["a"], TEXT), ((v for v in [1, 2]), INT)]
    for values, expected in cases:
        assert notebook.value_type(values) == expected, values


# --- result.json and the API's result -------------------------------------------------------


def test_result_json_and_the_api_stream_the_stored_bytes():
    run = stored_run(ODD)
    whole = gzip.decompress(bytes(run.result_gz))
    page = Client().get(f"/r/{run.public_id}/result.json")
    api = APIClient().get(f"/api/runs/{run.public_id}/result/")
    for response, disposition in ((page, "attachment"), (api, "inline")):
        assert response.streaming and body(response) == whole
        assert response["Content-Type"] == "application/json"
        assert response["Content-Disposition"] == \
            f'{disposition}; filename="run-{run.public_id}.json"'
        assert "Content-Encoding" not in response and "Accept-Encoding" in response["Vary"]
    assert len(list(exports.result_json(run, True).streaming_content)) == \
        -(-len(whole) // result_parts.READ)  # 64 KB at a time


@pytest.mark.parametrize("accept, gzipped", [
    ("gzip", True), ("gzip, deflate, br", True), ("br;q=1.0, gzip;q=0.5", True), ("*", True),
    ("x-gzip", True), ("GZIP", True), ("gzip;q=0", False), ("*;q=0", False), ("br", False),
    ("identity", False), ("", False), ("gzip;q=0, *", False), ("gzip;q=x", False)])
def test_a_client_that_takes_gzip_gets_the_stored_gzip(accept, gzipped):
    run = stored_run(ODD)
    for client, url in ((Client(), f"/r/{run.public_id}/result.json"),
                        (APIClient(), f"/api/runs/{run.public_id}/result/")):
        response = client.get(url, HTTP_ACCEPT_ENCODING=accept)
        got = body(response)
        assert "Accept-Encoding" in response["Vary"]
        if gzipped:
            assert response["Content-Encoding"] == "gzip" and got == bytes(run.result_gz)
        else:
            assert "Content-Encoding" not in response
            assert got == gzip.decompress(bytes(run.result_gz))


def test_a_run_without_a_result_has_none_to_download():
    run = stored_run(ODD)
    Run.objects.filter(pk=run.pk).update(status=Status.RUNNING)
    assert Client().get(f"/r/{run.public_id}/result.json").status_code == 404
    assert APIClient().get(f"/api/runs/{run.public_id}/result/").status_code == 404
    Run.objects.filter(pk=run.pk).update(status=Status.DONE, result_gz=None)
    assert body(Client().get(f"/r/{run.public_id}/result.json",
                             HTTP_ACCEPT_ENCODING="gzip")) == b""
    assert body(Client().get(f"/r/{run.public_id}/tasks.csv")).startswith(b"run,policy,")


# --- run charts -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind, preset, policy", [
    ("swf-replay", None, None), ("swf-preemptive", None, None),
    ("swf-preemptive", "pbb-small-mix-a", "duration-remaining")])  # with killed runs
def test_the_gantt_reads_its_parts_and_draws_what_it_drew_from_the_whole(kind, preset, policy):
    """Its columns of numbers come as arrays (ChartSpec.reads), and it draws what it drew from
    the whole result's lists."""
    run = finished_run(kind, preset, policy)
    spec = kinds.get_kind(kind).run_charts[0]
    assert spec.id == "gantt" and set(spec.reads) == {"tasks", "events", "extra"}
    read = result_parts.result(run.result_gz, spec.reads)
    assert isinstance(read.tasks["start"], np.ndarray) and read.summary == {}
    whole = Result.from_json(selectors.result_json(run))
    killed = len(whole.events.get("t", []))
    assert len(read.events.get("t", [])) == killed and (preset is None or killed > 0)
    cache.clear()
    drawn = figures.run_figure(run, "gantt")
    assert drawn == place_header(spec.build(whole)) and drawn["data"]


# --- never the whole result -----------------------------------------------------------------


def with_large_timing(run: Run) -> Run:
    """The run, its stored result given a timing of 400,000 event times and 20,000 decisions
    (an explained run's default limit, simcore.decisions): over 7 MB of JSON, 40 times the
    rest of the result."""
    rest = len(selectors.result_json(run))
    result = json.loads(selectors.result_json(run))
    result["timing"]["event_ms"] = [i / 7 for i in range(400_000)]
    result["decisions"] = [{"t": i, "job": i % 31} for i in range(20_000)]
    payload = json.dumps(result, sort_keys=True, separators=(",", ":")).encode()
    Run.objects.filter(pk=run.pk).update(result_gz=gzip.compress(payload),
                                         result_bytes=len(payload))
    run = selectors.run_by_public_id(run.public_id, with_result=True)
    assert len(payload) > max(7_000_000, 40 * rest)
    return run


def traced_peak(fetch) -> int:
    """The peak of Python's traced memory while ``fetch()`` runs and its answer is consumed a
    piece at a time, as a server sends it."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        response = fetch()
        for _ in response.streaming_content if getattr(response, "streaming", False) else ():
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_downloads_of_a_result_with_a_large_timing_never_hold_all_of_it(monkeypatch):
    """What a download holds is one column read and a chunk of rows made (500 here, so that
    a chunk of the series is well under the bound), never the result."""
    monkeypatch.setattr(notebook, "CHUNK", 500)
    run = with_large_timing(finished_run("swf-replay"))
    bound = run.result_bytes // 10
    kinds.get_kind(run.experiment.kind)  # the kinds loaded before, as in a serving process
    new = {
        "tasks.csv": lambda: notebook.csv_response(notebook.tasks_table(run)),
        "tasks.parquet": lambda: notebook.parquet_response(notebook.tasks_table(run)),
        "series.csv": lambda: notebook.csv_response(notebook.series_table(run)),
        "result.json": lambda: exports.result_json(run, attachment=True),
    }
    pa.array([1])  # what pyarrow imports at its first array (pandas), out of the way
    for what in new:
        peak = traced_peak(new[what])
        assert peak < bound, (what, peak, bound)
    # The bound tells them apart from a download that reads the result whole, as they did.
    assert traced_peak(lambda: json.loads(selectors.result_json(run))) > run.result_bytes


def test_the_gantt_of_a_result_with_a_large_timing_reads_none_of_it():
    """The chart takes what it takes (its figure, the tasks it draws) whatever the timing."""
    run = finished_run("swf-replay")
    figures.run_figure(run, "gantt")  # imports and the code version out of the way
    cache.clear()
    alone = traced_peak(lambda: figures.run_figure(run, "gantt"))
    run = with_large_timing(run)
    cache.clear()
    peak = traced_peak(lambda: figures.run_figure(run, "gantt"))
    assert peak < alone * 1.25 < run.result_bytes // 5, (peak, alone)
    spec = kinds.get_kind("swf-replay").run_charts[0]
    assert traced_peak(lambda: spec.build(Result.from_json(selectors.result_json(run)))) > \
        run.result_bytes


def test_a_kind_that_makes_its_own_task_records_reads_only_their_parts():
    """value-of-service's records (LabKind.task_records) come from its tasks and extra, read
    alone: the download holds neither the timing nor the decisions."""
    run = with_large_timing(finished_run("value-of-service"))
    rows = body(Client().get(f"/r/{run.public_id}/tasks.csv")).decode().splitlines()
    assert "arrived_in_window" in rows[0] and len(rows) > 1
    peak = traced_peak(lambda: notebook.csv_response(notebook.tasks_table(run)))
    assert peak < run.result_bytes // 10, (peak, run.result_bytes)
