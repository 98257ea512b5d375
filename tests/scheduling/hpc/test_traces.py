"""Scenario traces: library names and uploads by hash, never file paths."""

import gzip
import hashlib

import pytest

from scheduling.engine import ENGINE
from scheduling.hpc import traces
from scheduling.hpc.traces import TraceLibrary, UploadDir, list_traces
from simcore.errors import ScenarioError

KIND = "swf-replay"
SMALL = (traces.LIBRARY_DIR / "lublin_256_small.swf").read_bytes()


def test_library_lists_the_shipped_traces():
    names = {t["name"] for t in list_traces()}
    assert {"lublin_256", "lublin_256_small", "example_8"} <= names
    assert all(t["description"] for t in list_traces())


@pytest.mark.parametrize("value", [
    "/etc/passwd", "../traces/lublin_256", "scheduling/traces/lublin_256.swf.gz",
    "lublin_256.swf.gz", "upload:../../etc/passwd", "upload:" + "g" * 64, "", "LUBLIN_256",
    "file:lublin_256",
])
def test_paths_and_unknown_names_are_refused(value, tmp_path):
    with pytest.raises(ScenarioError) as err:
        ENGINE.scenario(KIND, {"trace": value})
    assert err.value.field == "trace"
    with pytest.raises(ScenarioError):
        TraceLibrary(uploads=UploadDir(tmp_path)).resolve(value)


def test_uploads_need_an_upload_store():
    scenario = ENGINE.scenario(KIND, {"trace": "upload:" + "a" * 64})  # well-formed
    with pytest.raises(ScenarioError, match="no upload store"):
        ENGINE.simulate(scenario, "fcfs")


@pytest.mark.parametrize("suffix, data", [("", SMALL), (".swf", SMALL),
                                          (".swf.gz", gzip.compress(SMALL))])
def test_an_uploaded_trace_runs_by_hash(tmp_path, suffix, data):
    digest = hashlib.sha256(data).hexdigest()
    (tmp_path / f"{digest}{suffix}").write_bytes(data)
    store = UploadDir(tmp_path)
    scenario = {"kind": KIND, "params": {"trace": f"upload:{digest}"}}
    result = ENGINE.simulate(scenario, "fcfs", inputs=store)
    library = ENGINE.simulate(ENGINE.preset_scenario("swf-small"), "fcfs")
    assert result.tasks["start"].tolist() == library.tasks["start"].tolist()
    # A script of an earlier release passes a trace library as ``traces``: the same run.
    older = ENGINE.simulate(scenario, "fcfs", traces=TraceLibrary(uploads=store))
    assert older.to_json() == result.to_json()
    missing = "upload:" + "b" * 64
    with pytest.raises(ScenarioError, match="not found"):
        ENGINE.simulate({"kind": KIND, "params": {"trace": missing}}, "fcfs", inputs=store)
    with pytest.raises(ScenarioError, match="no upload store"):
        ENGINE.simulate(scenario, "fcfs")


def test_parsed_traces_are_cached_and_read_only():
    a = TraceLibrary().load("example_8")
    assert TraceLibrary().load("example_8") is a
    with pytest.raises(ValueError):
        a.columns["submit"][0] = 1.0
