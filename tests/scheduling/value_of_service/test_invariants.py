"""Spec invariants on random scenarios: no core or memory over-commitment, the maximum-VoS
bound above the earned VoS, values as the equations say, tasks only where they may run."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.engine import list_policies, scenario, simulate
from scheduling.value_of_service.result import maximum
from scheduling.value_of_service.workload import generate

POLICIES = [p.name for p in list_policies("value-of-service")]


def pool_params(cores, memory, tasks, types, hours, warmup, start):
    return {"system": {"cores": cores, "memory_gb": float(memory)},
            "workload": {"tasks_min": tasks, "tasks_max": tasks + 10, "types_min": types,
                         "types_max": types + 2},
            "arrivals": {"start_hour": float(start)},
            "scheduler": {"duration_h": float(hours), "warmup_h": float(warmup)}}


def node_params(nodes, rate, phases):
    return {"system": {"layout": "nodes", "nodes": nodes},
            "workload": {"source": "npb"},
            "arrivals": {"pattern": "phases", "phases": phases, "rate_per_core_h": rate},
            "value": {"categories": "per-task"},
            "scheduler": {"duration_h": float(len(phases)), "warmup_h": 0.0}}


scenarios = st.one_of(
    st.builds(pool_params, st.integers(32, 64), st.integers(40, 80), st.integers(10, 60),
              st.integers(2, 6), st.integers(3, 6), st.integers(0, 2), st.integers(0, 23)),
    st.builds(node_params, st.integers(1, 3), st.floats(0.5, 4.0),
              st.lists(st.sampled_from(["low", "medium", "high"]), min_size=1, max_size=2)),
)


@settings(max_examples=30, deadline=None)
@given(scenarios, st.sampled_from(POLICIES), st.integers(0, 1000),
       st.sampled_from([0.0, 0.1]))
def test_schedule_is_feasible_and_bounded(ref, params, policy, seed, noise):
    params.setdefault("scheduler", {})["energy_noise_cov"] = noise
    spec = scenario("value-of-service", params)
    result = simulate(spec, policy=policy, seed=seed)
    ref.check_schedule(result)
    s, tasks = result.summary, result.tasks
    # The maximum-VoS bound holds per task, hence for every population (simulation experiment
    # (ch. 2 spec §8.1)).
    wl = generate(spec.params, seed)
    bound = maximum(wl, spec.params)["vos"]
    credit = np.array(tasks["credit"])
    assert (credit <= bound + 1e-9).all()
    assert s["vos"] <= s["max_vos_all_arrivals"] + 1e-9
    w0, w1 = result.extra["window_min"]
    arrival = np.array(tasks["arrival"])
    inside = (arrival >= w0) & (arrival < w1)
    assert credit[inside].sum() <= s["max_vos_window_arrivals"] + 1e-9
    assert s["vos"] == pytest.approx(s["perf_value"] + s["energy_value"])
    assert s["pct_max_perf_value"] >= 0 and s["pct_max_energy_value"] >= 0
    # Without dropping only Simple and Simple w/ place-holders run tasks worth nothing (with
    # noise, a realised energy above the estimate may still cost a task its value).
    started = np.array([x is not None for x in tasks["start"]])
    value = np.array(tasks["value"])
    if policy not in ("simple", "simple-p") and noise == 0:
        assert (value[started] > 0).all()
    # Place-holder policies start tasks only at mapping events (never a reservation).
    if policy not in ("simple", "simple-d"):
        starts = np.array([x for x in tasks["start"] if x is not None])
        assert np.allclose(starts, np.round(starts))
        assert s["reservations_made"] == 0
    else:
        assert s["placeholders_made"] == 0


@settings(max_examples=15, deadline=None)
@given(scenarios, st.sampled_from(POLICIES), st.integers(0, 1000))
def test_values_follow_the_equations(ref, params, policy, seed):
    spec = scenario("value-of-service", params)
    result = simulate(spec, policy=policy, seed=seed)
    wl = generate(spec.params, seed)
    t = result.tasks
    w0, w1 = result.extra["window_min"]
    for j, start in enumerate(t["start"]):
        if start is None:
            continue
        ty, k = wl.type[j], t["config"][j]
        assert t["end"][j] == pytest.approx(start + wl.etc[ty, k])
        expected = ref.task_value_eq2(t["end"][j] - wl.arrival[j], wl.eec[ty, k], wl.p_soft[j],
                                      wl.p_hard[j], wl.vp_min[j], wl.e_soft[j], wl.e_hard[j],
                                      wl.ve_min[j], wl.gamma[j], wl.w_p[j], wl.w_e[j])
        assert t["value"][j] == pytest.approx(expected)
        inside = max(0.0, min(t["end"][j], w1) - max(start, w0))
        assert t["credit"][j] == pytest.approx(expected * inside / wl.etc[ty, k])
