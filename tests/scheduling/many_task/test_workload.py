"""Workloads: the calibrated surrogates (trailing-tasks spec §4), files, lists; fixed instances and
determinism."""

import gzip

import numpy as np
import pytest

from scheduling.engine import scenario, simulate
from scheduling.many_task.config import WorkloadParams
from scheduling.many_task.workload import SURROGATES, load, lognormal
from simcore.errors import ScenarioError
from simcore.params import from_dict
from simcore.sampling import rng
from simcore.traces import TraceLibrary, UploadDir


def params(**kw):
    return from_dict(WorkloadParams, kw)


@pytest.mark.parametrize("name, n, mean, cov", [("real15k", 15_000, 251.5, 0.25),
                                                ("synth15k", 15_000, 251.5, 1.0)])
def test_15k_surrogates_have_the_papers_mean_and_spread(name, n, mean, cov):
    d = load(params(source=name), 0).runtimes
    assert d.size == n
    assert d.mean() == pytest.approx(mean, rel=0.03)
    assert d.std() / d.mean() == pytest.approx(cov, rel=0.08)
    assert d.min() > 0


def test_synth15k_has_four_times_real15ks_standard_deviation():
    real = load(params(source="real15k"), 0).runtimes
    synth = load(params(source="synth15k"), 0).runtimes
    assert synth.std() / real.std() == pytest.approx(4.0, rel=0.1)


def test_real935k_is_truncated_at_the_longest_recorded_task():
    d = load(params(source="real935k"), 0).runtimes
    assert d.size == 934_710
    assert d.max() <= 5030.0 and d.max() > 4800.0  # the tail reaches the cut
    assert d.mean() == pytest.approx(700.0, rel=0.01)


def test_truncation_redraws_instead_of_clipping():
    d = lognormal(rng(1, "t"), 50_000, 100.0, 1.0, truncate=150.0)
    assert d.max() <= 150.0
    assert np.sum(d == 150.0) == 0  # clipping would pile mass at the cut


def test_a_truncation_that_keeps_nothing_is_refused():
    with pytest.raises(ScenarioError) as err:
        load(params(source="lognormal", tasks=10, mean_s=700.0, cov=0.5, truncate_s=10.0), 0)
    assert err.value.field == "workload.truncate_s"


def test_one_fixed_instance_unless_redraw():
    a = load(params(source="synth15k"), 1).runtimes
    b = load(params(source="synth15k"), 2).runtimes
    assert np.array_equal(a, b)
    c = load(params(source="synth15k", redraw=True), 1).runtimes
    d = load(params(source="synth15k", redraw=True), 2).runtimes
    assert not np.array_equal(c, d) and not np.array_equal(a, c)
    e = load(params(source="synth15k", instance_seed=5), 1).runtimes
    assert not np.array_equal(a, e)


def test_tasks_and_scale():
    d = load(params(source="real15k", tasks=100, scale=2.0), 0).runtimes
    full = load(params(source="real15k", tasks=100), 0).runtimes
    assert d.size == 100 and np.array_equal(d, 2.0 * full)


def test_library_swf_gives_its_run_time_column():
    trace = TraceLibrary().load("example_8")
    want = trace.columns["run_time"][trace.columns["run_time"] >= 0]
    got = load(params(source="runtimes", runtimes="example_8"), 0).runtimes
    assert got.tolist() == want.astype(float).tolist()


@pytest.mark.parametrize("compress", [False, True])
def test_uploaded_run_time_lists(tmp_path, compress):
    text = b"# seconds\n12.5\n\n7\n; comment\n100\n"
    sha = "a" * 64
    (tmp_path / f"{sha}.txt").write_bytes(gzip.compress(text) if compress else text)
    lib = TraceLibrary(uploads=UploadDir(tmp_path))
    wl = load(params(source="runtimes", runtimes=f"upload:{sha}"), 0, lib)
    assert wl.runtimes.tolist() == [12.5, 7.0, 100.0]
    assert wl.label == "uploaded file (run times)"


def test_a_bad_line_is_named(tmp_path):
    sha = "b" * 64
    (tmp_path / f"{sha}.txt").write_text("1\n2\n-3\n")
    lib = TraceLibrary(uploads=UploadDir(tmp_path))
    with pytest.raises(ScenarioError) as err:
        load(params(source="runtimes", runtimes=f"upload:{sha}"), 0, lib)
    assert err.value.field == "workload.runtimes" and "3" in err.value.message


def test_runtimes_must_name_a_library_trace_or_an_upload():
    with pytest.raises(ScenarioError) as err:
        scenario("many-task", {"workload": {"source": "runtimes", "runtimes": "../etc/passwd"}})
    assert err.value.field == "workload.runtimes"


def test_list_source_needs_values():
    with pytest.raises(ScenarioError) as err:
        scenario("many-task", {"workload": {"source": "list"}})
    assert err.value.field == "workload.values"


def test_partition_menu_must_ascend():
    with pytest.raises(ScenarioError) as err:
        scenario("many-task", {"machine": {"partitions": [512, 256]}})
    assert err.value.field == "machine.partitions"


def test_same_seed_same_json_and_orders_differ_only_when_random():
    sc = scenario("many-task", {"workload": {"source": "real15k", "tasks": 2000},
                                "tradeoff": {"ratios": [1, 5]}})
    for policy in ("random+chop", "sorted+chop"):
        a = simulate(sc, policy, seed=4).to_json()
        assert a == simulate(sc, policy, seed=4).to_json()
    r1 = simulate(sc, "random", seed=1).summary
    r2 = simulate(sc, "random", seed=2).summary
    assert r1["tts_s"] != r2["tts_s"]
    s1 = simulate(sc, "sorted", seed=1).summary
    s2 = simulate(sc, "sorted", seed=2).summary
    assert s1 == s2  # one fixed instance, sorted: nothing random left


def test_surrogate_names_and_counts_are_the_papers():
    assert {k: v.tasks for k, v in SURROGATES.items()} == {
        "real935k": 934_710, "real15k": 15_000, "synth15k": 15_000}
