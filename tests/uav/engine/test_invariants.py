"""Properties every run must keep (constraints (ch. 5 spec §1.6)), checked on generated missions of
any policy."""

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uav.engine import list_policies, preset_scenario, simulate
from uav.engine.bound import value_bound, window_bounds
from uav.engine.workload import generate

POLICIES = [p.name for p in list_policies("uav")]
EPS = 1e-6


def check(r, one_per_window=True):
    sv = r.surveils
    n = len(sv["id"])
    by_uav, by_target = defaultdict(list), defaultdict(list)
    for i in range(n):
        by_uav[sv["uav"][i]].append((sv["start"][i], sv["end"][i]))
        by_target[sv["target"][i]].append((sv["start"][i], sv["end"][i]))
    # one target per UAV and one UAV per target at any time
    for spans in list(by_uav.values()) + list(by_target.values()):
        spans.sort()
        for (_, e0), (s1, _) in zip(spans, spans[1:], strict=False):
            assert s1 >= e0 - EPS
    # energy never below zero and never above capacity
    uavs = r.extra["uavs"]
    for used, cap in zip(uavs["energy_used"], uavs["energy_total"], strict=True):
        assert -EPS <= used <= cap + EPS
    for curve in r.series["energy_remaining"].values():
        arr = np.array([np.nan if v is None else v for v in curve], float)
        arr = arr[~np.isnan(arr)]
        assert (arr >= 0).all()
        assert (np.diff(arr) <= EPS).all()
    # surveils stay inside one window of the target and inside both entities' presence
    targets = r.extra["targets"]
    completed = defaultdict(int)
    for i in range(n):
        t = sv["target"][i] - 1
        u = sv["uav"][i] - 1
        wins = targets["windows_min"][t]
        k = [j for j, (a, b) in enumerate(wins)
             if a - EPS <= sv["start"][i] and sv["end"][i] <= b + EPS]
        assert len(k) == 1
        if sv["reason"][i] == "complete":
            completed[(t, k[0])] += 1
        assert sv["start"][i] >= max(targets["joined_min"][t], uavs["joined_min"][u]) - EPS
        for left in (targets["left_min"][t], uavs["left_min"][u]):
            assert left is None or sv["end"][i] <= left + EPS
        assert sv["partial"][i] == (sv["reason"][i] != "complete")
        assert 0 <= sv["progress"][i] <= 1 + EPS
        # sensors can only be removed during the day, so a used one was fitted at the start
        assert sv["sensor"][i] in {part.split()[0] for part in uavs["sensors"][u].split(", ")}
    if one_per_window:
        assert all(c <= 1 for c in completed.values())  # One surveil per window (ch. 5 spec A4)
    # value accounting adds up
    total = sum(sv["value"])
    assert abs(total - r.summary["value"]) <= 1e-6 * max(1.0, total)
    assert abs(r.series["value_cum"][-1] - total) <= 1e-4 * max(1.0, total)
    assert r.summary["surveils_completed"] + r.summary["surveils_partial"] == n


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), policy=st.sampled_from(POLICIES),
       uavs=st.sampled_from([3.0, 9.0]), targets=st.sampled_from([5.0, 14.0]),
       events=st.sampled_from([0.0, 1.0, 16.0]), rate=st.sampled_from([0.05, 0.2]),
       delta=st.sampled_from([5.0, 30.0]),
       alternatives=st.fixed_dictionaries({}, optional={
           "after_partial": st.just("continue"), "preemption_basis": st.just("remaining"),
           "pacing_clock": st.just("since-join"), "filter_base": st.just("value-per-energy"),
           "tie_break": st.just("random"), "one_surveil_per_window": st.just(False),
           "added_target_windows": st.just("from-zero")}))
def test_invariants_hold(seed, policy, uavs, targets, events, rate, delta, alternatives):
    sc = preset_scenario("small-baseline", {
        "uavs_mean": uavs, "targets_mean": targets, "event_multiplier": events,
        "energy_rate_mean": rate, "mapping_interval_min": delta, "compare_random": False,
        **alternatives})
    r = simulate(sc, policy, seed=seed)
    check(r, alternatives.get("one_surveil_per_window", True))
    # without geometry every surveil starts at a mapping event
    starts = np.array(r.surveils["start"])
    assert np.allclose(starts / delta, np.round(starts / delta))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), policy=st.sampled_from(POLICIES))
def test_invariants_hold_with_geometry(seed, policy):
    sc = preset_scenario("geometry-demo", {"compare_random": False})
    check(simulate(sc, policy, seed=seed))


def per_window_value(r) -> dict:
    """Value earned per (target index, window index), from the run's surveil records."""
    sv, wins = r.surveils, r.extra["targets"]["windows_min"]
    out = defaultdict(float)
    for i in range(len(sv["id"])):
        t = sv["target"][i] - 1
        k = next(j for j, (a, b) in enumerate(wins[t])
                 if a - EPS <= sv["start"][i] and sv["end"][i] <= b + EPS)
        out[(t, k)] += sv["value"][i]
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), policy=st.sampled_from(POLICIES),
       after_partial=st.sampled_from(["continue", "fresh"]),
       basis=st.sampled_from(["full", "remaining"]),
       uavs=st.sampled_from([3.0, 9.0]), targets=st.sampled_from([5.0, 14.0]),
       events=st.sampled_from([0.0, 1.0, 16.0]), rate=st.sampled_from([0.05, 0.2]),
       geometry=st.booleans())
def test_no_window_earns_more_than_one_complete_surveil(seed, policy, after_partial, basis, uavs,
                                                        targets, events, rate, geometry):
    """One surveil per window (ch. 5 spec A4)/new surveil after a partial one (ch. 5 spec A5),
    whatever the reading: each window earns at most the best complete surveil any UAV present could
    make at the attributes in force during it (``bound.window_bounds``)."""
    sc = preset_scenario("small-baseline", {
        "uavs_mean": uavs, "targets_mean": targets, "event_multiplier": events,
        "energy_rate_mean": rate, "after_partial": after_partial, "preemption_basis": basis,
        "geometry.enabled": geometry, "compare_random": False})
    bounds = window_bounds(generate(sc.params, seed))
    r = simulate(sc, policy, seed=seed)
    for (t, k), value in per_window_value(r).items():
        assert value <= bounds[t][k] * (1 + 1e-9) + EPS
    assert r.summary["value"] <= r.summary["value_bound"] * (1 + 1e-9) + EPS
    assert r.summary["value_bound"] == pytest.approx(sum(map(sum, bounds)))


def test_the_bound_is_one_best_surveil_per_window():
    """Tables 9/10 with one all-day window per target: Σ priority x best affinity x quality
    (3·42 + 4·63 + 5·40 + 6·32 + 8·81 + 10·72 = 2,138), and preemption can reach it."""
    sc = preset_scenario("example-tables-9-10", {"one_surveil_per_window": True,
                                                 "after_partial": "fresh"})
    r = simulate(sc, "meta+p", seed=0)
    assert r.summary["value_bound"] == 2138.0
    assert r.summary["value"] == pytest.approx(2138.0)
    assert simulate(preset_scenario("example-tables-9-10"), "meta", seed=0) \
        .summary["value_bound"] is None  # repeats allowed: no per-window bound


def test_the_bound_follows_attribute_changes(uavsim):
    """A priority raised inside a window raises that window's bound, not the others'; a UAV that
    has left no longer counts."""
    m = uavsim.mission([(1.0, {"VIS": (0.01, 5)}), (1.0, {"VIS": (0.01, 9)})],
                       [(2, 1.0, {"VIS": 4}, [(0.0, 5.0), (6.0, 10.0), (12.0, 20.0)])],
                       [uavsim.event(7.0, "E7", target=1, number=6.0),
                        uavsim.event(11.0, "E2", uav=2, effect="remove")])
    assert window_bounds(m) == [[2 * 4 * 9, 6 * 4 * 9, 6 * 4 * 5]]


def test_a_run_above_the_bound_is_refused():
    from simcore.clock import RunClock
    from uav.engine import fly

    sc = preset_scenario("small-baseline", {"compare_random": False})
    mission = generate(sc.params, 3)
    fly(mission, sc.params, "meta+p", 3, RunClock(), value_bound(mission))  # within it
    with pytest.raises(RuntimeError, match="per-window bound"):
        fly(mission, sc.params, "meta+p", 3, RunClock(), 1.0)
