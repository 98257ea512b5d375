"""Run-time files: plain lists and SWF run-time columns, with errors that name the line."""

import gzip
import io

import numpy as np
import pytest

from scheduling.hpc.runtimes import read_runtime_list, read_runtimes, sniff
from scheduling.hpc.traces import TraceLibrary, UploadDir
from simcore.errors import ScenarioError

SWF = b"""; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1
2 5 -1 -1 4 -1 -1 4 60 -1 0 1 1 1 1 -1 -1 -1
3 6 -1 10 1 -1 -1 1 10 -1 5 1 1 1 1 -1 -1 -1
"""


def test_list_with_comments_blank_lines_and_gzip(tmp_path):
    text = b"# run times (s)\n1.5\n\n  2 \n; also a comment\n3e2\n"
    for name, data in (("a.txt", text), ("b.txt.gz", gzip.compress(text))):
        path = tmp_path / name
        path.write_bytes(data)
        assert sniff(path) == "list"
        assert read_runtime_list(path).tolist() == [1.5, 2.0, 300.0]


@pytest.mark.parametrize("body, line, words", [
    (b"1\n2\nfast\n", 3, "not a run time"),
    (b"1\n-2\n", 2, ">= 0"),
    (b"1\nnan\n", 2, "finite"),
    (b"1\ninf\n", 2, "finite"),
])
def test_bad_values_name_their_line(body, line, words):
    with pytest.raises(ScenarioError) as err:
        read_runtime_list(io.BytesIO(body))
    assert err.value.field == f"runtimes:{line}" and words in err.value.message


def test_limits_and_empty_files():
    with pytest.raises(ScenarioError, match="limit of 2"):
        read_runtime_list(io.BytesIO(b"1\n2\n3\n"), max_values=2)
    with pytest.raises(ScenarioError, match="no run times"):
        read_runtime_list(io.BytesIO(b"# nothing\n\n"))
    with pytest.raises(ScenarioError) as err:
        sniff(io.BytesIO(b"1 2 3\n"))
    assert err.value.field == "runtimes:1" and "3 fields" in err.value.message


def test_swf_gives_the_known_run_times_in_file_order(tmp_path):
    path = tmp_path / "t.swf"
    path.write_bytes(SWF)
    kind, values = read_runtimes(path)
    assert kind == "swf" and values.tolist() == [100.0, 10.0]  # -1 (unknown) is left out


def test_trace_library_reads_run_times_of_uploads_and_library_traces(tmp_path):
    sha = "c" * 64
    (tmp_path / f"{sha}.txt").write_text("4\n5\n")
    lib = TraceLibrary(uploads=UploadDir(tmp_path))
    values = lib.load_runtimes(f"upload:{sha}")
    assert values.tolist() == [4.0, 5.0] and not values.flags.writeable
    lublin = lib.load_runtimes("lublin_256_small")
    cols = lib.load("lublin_256_small").columns
    assert np.array_equal(lublin, cols["run_time"][cols["run_time"] >= 0])


def test_a_truncated_gzip_list_is_an_error_naming_the_run_times(tmp_path):
    """Was an EOFError out of gzip (a 500 on the many-task form)."""
    packed = gzip.compress(b"".join(b"%d\n" % (i % 97) for i in range(20_000)))
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(ScenarioError) as caught:
        read_runtime_list(path)
    assert caught.value.field == "runtimes" and "gzip" in caught.value.message
