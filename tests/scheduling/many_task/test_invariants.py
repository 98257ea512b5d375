"""Spec invariants, property-based: the engine against the literal loop of tail-chopping
(trailing-tasks spec §6), the accounting identities, greedy list scheduling against a heap, the LPT
bound."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.many_task.sim import greedy_starts

SETTINGS = settings(max_examples=120, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))

menus = st.lists(st.integers(1, 64), min_size=1, max_size=5, unique=True).map(sorted)
durations = st.lists(st.integers(1, 60).map(float) | st.floats(0.5, 60.0), min_size=1,
                     max_size=120)


@SETTINGS
@given(d=st.lists(st.floats(0.0, 100.0) | st.integers(0, 20).map(float), max_size=400),
       m=st.integers(1, 70))
def test_greedy_starts_match_a_heap(ref, d, m):
    arr = np.asarray(d, dtype=float)
    assert greedy_starts(arr, m).tolist() == ref.greedy_starts(d, m)


@pytest.mark.parametrize("m", [1, 7, 256, 5000])
@pytest.mark.parametrize("cov", [0.1, 1.0, 3.0])
def test_greedy_starts_match_a_heap_on_long_queues(ref, m, cov):
    # Long queues take the block path, short blocks fall back to the heap.
    rng = np.random.default_rng(int(cov * 10) + m)
    s2 = math.log1p(cov * cov)
    d = rng.lognormal(5.0 - s2 / 2, math.sqrt(s2), 20_000)
    for arr in (d, np.sort(d)[::-1].copy()):
        assert greedy_starts(arr, m).tolist() == ref.greedy_starts(arr.tolist(), m)


@SETTINGS
@given(d=durations, menu=menus, r=st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0, 5.0]),
       f=st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.8, 0.95, 1.0]),
       order=st.sampled_from(["random", "sorted"]), teardown_first=st.booleans(),
       seed=st.integers(0, 3))
def test_engine_matches_the_literal_loop(ref, run_list, d, menu, r, f, order, teardown_first,
                                         seed):
    res = run_list(d, policy=f"{order}+chop", seed=seed, machine__partitions=menu,
                   machine__teardown_first=teardown_first, chop__r=r, chop__f=f)
    queue = sorted(range(len(d)), key=lambda i: res.tasks["dispatch"][i])
    want = ref.simulate([d[i] for i in queue], menu, r, f, teardown_first=teardown_first)
    s = res.summary
    assert s["tts_s"] == pytest.approx(want["tts_s"], rel=1e-12)
    assert s["allocated_cpu_h"] * 3600 == pytest.approx(want["alloc"], rel=1e-9)
    assert s["wasted_cpu_h"] * 3600 == pytest.approx(want["wasted"], rel=1e-9, abs=1e-9)
    assert s["partitions"] == len(want["partitions"])
    assert res.events["workers"] == [p[0] for p in want["partitions"]]
    assert [res.tasks["restarts"][i] for i in queue] == want["restarts"]
    assert [res.tasks["end_s"][i] for i in queue] == pytest.approx(want["final_end"])


@SETTINGS
@given(d=durations, menu=menus, r=st.floats(0.3, 8.0), f=st.floats(0.0, 1.0),
       order=st.sampled_from(["random", "sorted"]), seed=st.integers(0, 5))
def test_accounting_identities(run_list, d, menu, r, f, order, seed):
    res = run_list(d, policy=f"{order}+chop", seed=seed, machine__partitions=menu, chop__r=r,
                   chop__f=f)
    s, ev, t = res.summary, res.events, res.tasks
    h = 3600.0
    useful = sum(d)
    assert s["useful_cpu_h"] * h == pytest.approx(useful, rel=1e-12)
    assert s["utilization"] * s["allocated_cpu_h"] == pytest.approx(s["useful_cpu_h"], rel=1e-12)
    assert s["active_cpu_h"] == pytest.approx(s["useful_cpu_h"] + s["wasted_cpu_h"], rel=1e-12)
    assert s["idle_cpu_h"] == pytest.approx(s["allocated_cpu_h"] - s["active_cpu_h"],
                                            rel=1e-9, abs=1e-12)
    assert s["idle_cpu_h"] >= -1e-9 and s["wasted_cpu_h"] >= 0 and s["utilization"] <= 1 + 1e-12
    # The partition table adds up to the run.
    assert sum(ev["alloc_cpu_h"]) == pytest.approx(s["allocated_cpu_h"], rel=1e-12)
    assert sum(ev["wasted_cpu_h"]) == pytest.approx(s["wasted_cpu_h"], rel=1e-9, abs=1e-12)
    assert sum(ev["completed"]) == len(d) and sum(ev["cancelled"]) == s["restarts"]
    # Every task completes once, with its full run time, inside a partition's allocation.
    end = np.asarray(t["end_s"])
    start = np.asarray(t["start_s"])
    assert np.allclose(end - start, t["runtime_s"])
    assert start.min() >= ev["ready_s"][0] and end.max() == pytest.approx(s["tts_s"])
    # A chop always moves to a smaller partition; partitions do not overlap.
    for k in range(len(ev["workers"]) - 1):
        assert ev["chopped"][k] and ev["workers"][k + 1] < ev["workers"][k]
        assert ev["ready_s"][k + 1] >= ev["release_s"][k]
    # The busy-worker series integrates to the active CPU time and never exceeds the allocation.
    ser = res.series
    width = np.diff(np.append(np.asarray(ser["t_min"]) * 60.0, s["tts_s"]))
    busy = np.asarray(ser["busy_workers"])
    alloc = np.asarray(ser["allocated_workers"])
    assert float(busy @ width) == pytest.approx(s["active_cpu_h"] * h, rel=1e-6)
    assert float(alloc @ width) == pytest.approx(s["allocated_cpu_h"] * h, rel=1e-6)
    assert np.all(busy <= alloc + 1e-6)


@SETTINGS
@given(d=durations, menu=menus, r=st.floats(0.3, 8.0), seed=st.integers(0, 5),
       order=st.sampled_from(["random", "sorted"]))
def test_f_one_is_plain_greedy(run_list, d, menu, r, seed, order):
    plain = run_list(d, policy=order, seed=seed, machine__partitions=menu, chop__r=r)
    never = run_list(d, policy=f"{order}+chop", seed=seed, machine__partitions=menu, chop__r=r,
                     chop__f=1.0)
    a, b = plain.to_dict(), never.to_dict()
    a["meta"].pop("policy")
    b["meta"].pop("policy")
    b["meta"]["scenario"]["params"]["chop"]["f"] = a["meta"]["scenario"]["params"]["chop"]["f"]
    assert a == b


def _optimum(d, m):
    """Brute force P||Cmax: every assignment of tasks to m machines."""
    best = math.inf
    for assign in itertools.product(range(m), repeat=len(d)):
        loads = [0.0] * m
        for task, machine in zip(d, assign, strict=True):
            loads[machine] += task
        best = min(best, max(loads))
    return best


@settings(max_examples=60, deadline=None, database=None)
@given(d=st.lists(st.integers(1, 30).map(float), min_size=2, max_size=8),
       m=st.integers(2, 3), seed=st.integers(0, 9))
def test_sorted_greedy_is_within_the_lpt_bound(run_list, d, m, seed):
    opt = _optimum(d, m)
    params = dict(machine__partitions=[m], machine__startup_s=0.0)
    lpt = run_list(d, policy="sorted", **params).summary["makespan_s"]
    assert lpt <= (4 / 3 - 1 / (3 * m)) * opt + 1e-9  # Graham's bound for LPT
    any_order = run_list(d, policy="random", seed=seed, **params).summary["makespan_s"]
    assert any_order <= (2 - 1 / m) * opt + 1e-9  # list scheduling in any order
