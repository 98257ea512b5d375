"""Properties every run must keep (spec §1.6), checked on generated missions of any policy."""

from collections import defaultdict

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from uav.engine import list_policies, preset_scenario, simulate

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
        assert all(c <= 1 for c in completed.values())  # A4
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
