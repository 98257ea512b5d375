"""The SWF reader: fields, header, gzip by magic bytes, streaming, validation, limits."""

import gzip
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.hpc.swf import FIELD_NAMES, SwfJob, read_swf, read_swf_arrays
from simcore.errors import ScenarioError

HEADER = """; Version: 2.2
; Computer: test machine
; MaxNodes: 64
; MaxProcs: 128
; UnixStartTime: 1700000000
; TimeZoneString: Europe/Paris
; Note: first note
; Note: second note
;
; free text without a key
"""
LINES = [
    "1 0 5 100 4 -1 -1 4 120 -1 1 7 2 -1 1 -1 -1 -1",
    "2 10 0 50.5 1 45.5 1024 -1 -1 -1 0 8 2 3 1 -1 1 12.5",
    "3 12 -1 0 0 -1 -1 2 60 -1 5 9 -1 -1 -1 -1 -1 -1",
]
TEXT = HEADER + "\n".join(LINES) + "\n; trailing comment\n"


def jobs_of(source, **kw):
    header, jobs = read_swf(source, **kw)
    return header, list(jobs)


def test_fields_in_order_and_types():
    header, jobs = jobs_of(io.StringIO(TEXT))
    assert len(jobs) == 3
    j = jobs[1]
    assert isinstance(j, SwfJob)
    assert [getattr(j, f) for f in FIELD_NAMES] == [2, 10.0, 0.0, 50.5, 1, 45.5, 1024.0, -1,
                                                    -1.0, -1.0, 0, 8, 2, 3, 1, -1, 1, 12.5]
    assert isinstance(j.job_id, int) and isinstance(j.submit, float)
    assert jobs[0].procs == 4 and jobs[2].procs == 0
    # -1 is kept as "unknown": the allocated count falls back to the requested one
    assert SwfJob(*([1, 0, 0, 1, -1, 0, 0, 6] + [0] * 10)).procs == 6


def test_header_fields_and_comments():
    header, _ = jobs_of(io.StringIO(TEXT))
    assert header.max_nodes == 64 and header.max_procs == 128
    assert header.unix_start_time == 1700000000
    assert header.time_zone_string == "Europe/Paris"
    assert header.fields["Computer"] == "test machine"
    assert header.fields["Note"] == "first note\nsecond note"
    assert "free text without a key" in header.comments
    # comments after the jobs are kept as comments, not header fields
    assert header.comments[-1] == "trailing comment"
    assert "trailing comment" not in header.fields


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("name", ["trace.swf", "trace.swf.gz", "trace.txt"])
def test_gzip_is_detected_by_magic_bytes_not_by_name(tmp_path, compress, name):
    data = TEXT.encode()
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if compress else data)
    for source in (path, str(path), io.BytesIO(path.read_bytes())):
        header, jobs = jobs_of(source)
        assert [j.job_id for j in jobs] == [1, 2, 3] and header.max_nodes == 64
        header, cols = read_swf_arrays(source if not isinstance(source, io.BytesIO)
                                       else io.BytesIO(path.read_bytes()))
        assert cols["job_id"].tolist() == [1, 2, 3]


def test_streaming_yields_jobs_before_a_bad_line():
    text = HEADER + "\n".join(LINES) + "\n4 20 -1 x 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
    header, jobs = read_swf(io.StringIO(text))  # the header alone is read eagerly
    assert header.max_nodes == 64
    got = [next(jobs).job_id for _ in range(3)]
    assert got == [1, 2, 3]
    with pytest.raises(ScenarioError) as err:
        next(jobs)
    assert err.value.field == f"trace:{HEADER.count(chr(10)) + 4}:run_time"


BAD = [
    ("1 0 -1 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1", "fields", "18"),
    ("1 0 -1 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1 7", "fields", "got 19"),
    ("1 0 -1 ten 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1", "run_time", "not a number"),
    ("1 0 -1 10 -4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1", "allocated_procs", ">= 0 or -1"),
    ("1 -5 -1 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1", "submit", ">= 0 or -1"),
    ("1 0 -1 -2 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1", "run_time", ">= 0 or -1"),
    ("1 0 -1 10 0 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1", "allocated_procs", "zero processors"),
    ("1 0 -1 10 -1 -1 -1 0 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1", "requested_procs",
     "zero processors"),
    ("1 0 -1 10 2.5 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1", "allocated_procs", "integer"),
    ("1 0 -1 nan 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1", "run_time", "finite"),
    ("1 0 -1 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -3.5", "think_time", ">= 0 or -1"),
]


@pytest.mark.parametrize("reader", [read_swf, read_swf_arrays])
@pytest.mark.parametrize("line, field, words", BAD)
def test_bad_lines_name_line_and_field(reader, line, field, words):
    text = HEADER + LINES[0] + "\n\n" + line + "\n"
    with pytest.raises(ScenarioError) as err:
        header, jobs = reader(io.StringIO(text))
        list(jobs)
    line_no = HEADER.count("\n") + 3
    assert err.value.field == f"trace:{line_no}:{field}"
    assert words in err.value.message


def test_zero_processors_allowed_for_cancelled_and_failed_jobs():
    _, jobs = jobs_of(io.StringIO(LINES[2] + "\n"))
    assert jobs[0].allocated_procs == 0 and jobs[0].status == 5


def test_limits_name_the_limit():
    with pytest.raises(ScenarioError, match="max_jobs limit of 2"):
        jobs_of(io.StringIO(TEXT), max_jobs=2)
    with pytest.raises(ScenarioError, match="max_jobs"):
        read_swf_arrays(io.StringIO(TEXT), max_jobs=2)
    assert len(jobs_of(io.StringIO(TEXT), max_jobs=3)[1]) == 3
    # the byte limit applies to the decompressed text: a small .gz cannot smuggle a big trace
    big = (HEADER + "\n".join(LINES * 2000)).encode()
    packed = gzip.compress(big)
    assert len(packed) < 20_000 < len(big)
    for reader in (read_swf, read_swf_arrays):
        with pytest.raises(ScenarioError, match="max_bytes limit of 20000"):
            header, jobs = reader(io.BytesIO(packed), max_bytes=20_000)
            list(jobs)
    assert len(read_swf_arrays(io.BytesIO(packed), max_bytes=len(big))[1]["job_id"]) == 6000


class Endless(io.RawIOBase):
    """A stream of one byte repeated, far longer than any limit; counts what was read."""

    def __init__(self, byte: bytes = b"0"):
        self.byte, self.read_bytes = byte, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = self.byte * len(buffer)
        self.read_bytes += len(buffer)
        return len(buffer)


@pytest.mark.parametrize("packed", [False, True])
def test_a_line_longer_than_any_trace_line_stops_the_reader_early(packed):
    """No newline for ever (a file without line breaks, a decompression bomb of one byte):
    the readers stop after the 64 KiB line limit, having read next to nothing of the rest."""
    from scheduling.hpc.runtimes import read_runtime_list, sniff
    from scheduling.hpc.swf import MAX_LINE_BYTES

    for reader in (read_swf, read_swf_arrays, sniff, read_runtime_list):
        source = Endless()
        stream = io.BufferedReader(source)
        if packed:  # ~1000 to 1 when compressed: the reader sees the decompressed bytes
            stream = io.BytesIO(gzip.compress(b"0" * (4 * MAX_LINE_BYTES)))
        with pytest.raises(ScenarioError, match="longer than 65,536 bytes") as err:
            reader(stream)
        assert err.value.field.endswith(":1")
        if not packed:
            assert source.read_bytes < 4 * MAX_LINE_BYTES


def test_missing_file_and_empty_trace(tmp_path):
    with pytest.raises(ScenarioError) as err:
        read_swf(tmp_path / "nope.swf")
    assert err.value.field == "trace"
    (tmp_path / "empty.swf").write_text("")
    header, jobs = jobs_of(tmp_path / "empty.swf")
    assert jobs == [] and header.fields == {} and header.max_nodes is None
    assert read_swf_arrays(tmp_path / "empty.swf")[1]["job_id"].shape == (0,)


def test_lublin_trace(lublin_path):
    header, jobs = jobs_of(lublin_path)
    assert len(jobs) == 10_000 and header.max_nodes == 256
    assert header.fields["MaxJobs"] == "10000"
    _, cols = read_swf_arrays(lublin_path)
    for name in FIELD_NAMES:
        assert cols[name].tolist() == [getattr(j, name) for j in jobs]
    assert np.all(np.diff(cols["submit"]) >= 0)


token = st.one_of(st.integers(-3, 40).map(str), st.sampled_from(["1.5", "-1", "0", "x", "nan",
                                                                    "1e3", "2.0", "-0.5"]))
line = st.lists(token, min_size=16, max_size=19).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(line, min_size=1, max_size=6))
def test_both_readers_agree_on_any_input(lines):
    text = "; MaxNodes: 8\n" + "\n".join(lines) + "\n"
    try:
        _, jobs = jobs_of(io.StringIO(text))
        want = ("ok", [[getattr(j, f) for f in FIELD_NAMES] for j in jobs])
    except ScenarioError as exc:
        want = ("error", exc.field, exc.message)
    try:
        _, cols = read_swf_arrays(io.StringIO(text))
        got = ("ok", [list(row) for row in zip(*(cols[f].tolist() for f in FIELD_NAMES),
                                               strict=True)])
    except ScenarioError as exc:
        got = ("error", exc.field, exc.message)
    assert got == want


def _damaged_gzips(payload: bytes) -> dict[str, bytes]:
    """A gzip of ``payload`` cut in half, with a bad header, with its checksum zeroed, and
    with its deflate blocks overwritten."""
    packed = gzip.compress(payload)
    middle = len(packed) // 2
    return {"cut in half": packed[:middle],
            "bad header": packed[:2] + b"\x00" * 16,
            "bad checksum": packed[:-8] + b"\x00" * 8,
            "bad blocks": packed[:10] + b"\xff" * (len(packed) - 18) + packed[-8:]}


@pytest.mark.parametrize("damage", ["cut in half", "bad header", "bad checksum", "bad blocks"])
def test_a_damaged_gzip_is_a_scenario_error_naming_the_trace(damage):
    """Was EOFError (cut short) or zlib.error (bad blocks) from gzip's readline: a 500 on the
    upload form, a traceback from the CLI."""
    text = (HEADER + "\n".join(LINES * 400) + "\n").encode()
    data = _damaged_gzips(text)[damage]
    for read in (lambda s: list(read_swf(s)[1]), read_swf_arrays):
        with pytest.raises(ScenarioError) as caught:
            read(io.BytesIO(data))
        assert caught.value.field.startswith("trace")
        if caught.value.field == "trace":
            assert "gzip" in caught.value.message
