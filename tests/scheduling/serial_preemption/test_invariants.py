"""Preemption semantics, accounting and determinism of the ch4 simulator (preemption model
(ch. 4 spec §6), metric and accounting (ch. 4 spec §7), simulation procedure (ch. 4 spec §10))."""

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.engine import list_policies, preset_scenario, simulate
from scheduling.serial_preemption.policies.baseline import FcfsPolicy, RandomPolicy
from scheduling.serial_preemption.policies.greedy import GreedyPolicy
from scheduling.serial_preemption.policies.pair import PairPolicy
from scheduling.serial_preemption.result import max_utility
from scheduling.serial_preemption.sim import DONE, DROPPED, RUNNING, run_simulation
from scheduling.serial_preemption.workload import Workload
from simcore.sampling import rng
from simcore.value import UtilityTable, step

EPS = 1e-7
POLICIES = {
    "random": lambda: RandomPolicy(rng=rng(1, "p")),
    "fcfs": lambda: FcfsPolicy(rng=rng(1, "p")),
    "max-util": lambda: GreedyPolicy(mode="util", technique="none"),
    "max-upt-greedy": lambda: GreedyPolicy(mode="upt", technique="greedy"),
    "max-util-diff": lambda: GreedyPolicy(mode="util", technique="diff"),
    "max-upt-diff": lambda: GreedyPolicy(mode="upt", technique="diff"),
    "max-util-pair": lambda: PairPolicy(mode="util"),
    "max-upt-pair": lambda: PairPolicy(mode="upt"),
}


def check_invariants(rec, wl):
    sim = rec.sim
    by_core = defaultdict(list)
    by_task = defaultdict(list)
    for task, core, s, e in sim.trace:
        assert e >= s
        by_core[core].append((s, e, task))
        by_task[task].append((s, e, core))
    # No core runs two tasks at once.
    for segs in by_core.values():
        segs.sort()
        for (_, e0, _), (s1, _, _) in zip(segs, segs[1:], strict=False):
            assert s1 >= e0 - EPS
    interval = sim.interval
    for task, segs in by_task.items():
        segs.sort()
        assert segs[0][0] >= wl.arrival[task] - EPS
        for (_, e0, _), (s1, _, _) in zip(segs, segs[1:], strict=False):
            assert s1 >= e0 - EPS
        for s, _, _ in segs:  # tasks start only at mapping events
            assert abs(s / interval - round(s / interval)) < 1e-6
        # Once it has progress, a task runs only on its own cluster (resume on the same one).
        clusters = {int(sim.core_cluster[c]) for s, e, c in segs if e > s}
        assert len(clusters) <= 1
        done = sum(e - s for s, e, _ in segs)
        if sim.status[task] in (DONE, RUNNING):
            # No progress is lost: the segments add up to exactly one execution.
            (cluster,) = clusters
            assert done == pytest.approx(wl.etc[wl.type[task], cluster], abs=1e-6)
            x = sim.end[task] - wl.arrival[task]
            expected = wl.table.value(wl.urow[task], wl.scale[task], 1.0, x)
            assert sim.util[task] == pytest.approx(float(expected), rel=1e-9)
            assert sim.util[task] > sim.min_utility
            w0, w1 = sim.window
            inside = sum(max(0.0, min(e, w1) - max(s, w0)) for s, e, _ in segs)
            assert sim.credit[task] == pytest.approx(sim.util[task] * inside / done, abs=1e-9)
        else:
            assert sim.credit[task] == 0.0
            assert done < wl.etc[wl.type[task]].max()
    # Suspensions and resumptions alternate per task; a task with progress resumes on the
    # cluster where it was suspended.
    suspended_on = {}
    for task, core, kind in zip(sim.log_task, sim.log_core, sim.log_kind, strict=True):
        j = int(sim.core_cluster[core])
        if kind == 0:
            assert task not in suspended_on
            suspended_on[task] = j
        else:
            where = suspended_on.pop(task)
            if sim.bound[task] >= 0:
                assert j == where == sim.bound[task]
    assert int(np.sum(sim.npre)) == sim.preemptions == sum(rec.preempted)
    assert sim.dropped == int(np.count_nonzero(sim.status == DROPPED)) == sum(rec.dropped)
    assert all(b <= sim.M for b in rec.running)


@settings(max_examples=14, deadline=None)
@given(seed=st.integers(0, 10_000), policy=st.sampled_from(sorted(POLICIES)),
       family=st.sampled_from(["step", "decay", "classes"]), p=st.sampled_from([1.0, 0.5]),
       interval=st.sampled_from([1.0, 2.5]))
def test_simulation_invariants(ref, seed, policy, family, p, interval):
    cfg = ref.tiny_config(utility={"family": family},
                          workload={"p_can_preempt": p, "p_preemptible": p},
                          scheduler={"mapping_interval_min": interval})
    rec, wl = ref.simulate_raw(cfg, POLICIES[policy](), seed)
    check_invariants(rec, wl)


@pytest.mark.parametrize("policy", ["max-upt-greedy", "max-upt-pair", "random"])
def test_invariants_on_the_small_preset(ref, small, policy):
    rec, wl = ref.simulate_raw(small.params, POLICIES[policy](), 3)
    check_invariants(rec, wl)
    assert rec.sim.preemptions > 0 or policy == "random"


def test_window_proration_70_30():
    """System utility of an interval (ch. 4 spec §7.1): a task with 30% of its execution inside the
    window credits 30% of its utility; MaxU is pro-rated the same way (maximum-utility window
    (ch. 4 spec A13))."""
    etc = np.array([[10.0]])
    wl = Workload(cores=np.array([1]), etc=etc, critical_type=np.array([False]),
                  table=UtilityTable([step(100.0)]), type=np.array([0, 0]),
                  arrival=np.array([3.0, 36.0]), urow=np.array([0, 0]),
                  scale=np.array([2.0, 2.0]), can_preempt=np.array([True, True]),
                  preemptible=np.array([True, True]), burst=np.array([0, 1]),
                  group_start=np.array([0, 1]), group_end=np.array([1, 2]))
    rec = run_simulation(wl, GreedyPolicy(mode="util", technique="none"), warmup=10.0,
                         duration=40.0, trace=True)
    sim = rec.sim
    # Task 0 runs [3, 13): 7 of 10 minutes inside [10, 40) ... 3 before the window.
    assert sim.credit[0] == pytest.approx(2.0 * 0.3)
    # Task 1 runs [36, 46): projected at the horizon (end-of-run credit (ch. 4 spec A12)), 4 minutes
    # inside.
    assert sim.status[1] == RUNNING and sim.credit[1] == pytest.approx(2.0 * 0.4)
    assert max_utility(wl, 10.0, 40.0) == pytest.approx(2.0 * 0.3 + 2.0 * 0.4)


def test_result_contract_and_determinism(small):
    a = simulate(small, "max-upt-diff", seed=4)
    b = simulate(small, "max-upt-diff", seed=4)
    assert a.to_json() == b.to_json()
    assert a.timing["events"] == 1680 and len(a.timing["event_ms"]) == 1680
    s = a.summary
    for key in ("utility", "max_utility", "pct_max_utility", "utility_critical",
                "utility_noncritical", "critical_completed", "critical_total",
                "pct_critical_completed", "tasks_total", "tasks_completed",
                "pct_tasks_completed", "tasks_dropped", "preemptions", "mapping_events"):
        assert key in s
    assert s["utility"] == pytest.approx(s["utility_critical"] + s["utility_noncritical"])
    assert 0 < s["pct_max_utility"] < 100
    assert s["pct_max_utility"] == pytest.approx(100 * s["utility"] / s["max_utility"])
    assert s["critical_completed"] <= s["critical_total"]
    assert s["mapping_events"] == 1680
    series = a.series
    assert series["t_min"] == list(range(1681))
    for key in ("utility_cum", "mappable", "running", "preemptions", "critical_running"):
        assert len(series[key]) == 1681, key
    assert sum(series["preemptions"]) == s["preemptions"]
    assert series["utility_cum"][-1] == pytest.approx(s["utility"])
    assert all(x <= y + 1e-9 for x, y in zip(series["utility_cum"], series["utility_cum"][1:],
                                             strict=False))
    assert max(series["running"]) <= 40
    tasks = a.tasks
    n = len(tasks["id"])
    assert all(len(col) == n for col in tasks.values())
    assert sum(tasks["credit"]) == pytest.approx(s["utility"])
    assert sum(tasks["preemptions"]) == s["preemptions"]
    log = a.extra["preemption_log"]
    assert log["kind"].count("suspend") == s["preemptions"]
    assert set(log) == {"t", "task", "cluster", "core", "kind"}
    assert len(a.extra["clusters"]) == 5 and len(a.extra["utility_classes"]) == 20
    assert set(a.events) == {"t_min", "mappable", "dropped", "assigned", "preempted"}
    assert sum(a.events["dropped"]) == s["tasks_dropped"]


def test_every_policy_sees_the_same_workload():
    short = preset_scenario("ch4-small", {"scheduler.duration_min": 480,
                                          "scheduler.warmup_min": 60})
    runs = [simulate(short, p.name, seed=2) for p in list_policies("serial-preemption")]
    assert len(runs) == 10
    for r in runs[1:]:
        assert r.tasks["arrival"] == runs[0].tasks["arrival"]
        assert r.tasks["type"] == runs[0].tasks["type"]
        assert r.summary["max_utility"] == runs[0].summary["max_utility"]
    other = simulate(short, "max-util", seed=3)
    assert other.tasks["arrival"] != runs[0].tasks["arrival"]
