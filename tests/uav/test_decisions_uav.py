"""The UAV kind's decision trace (``--explain``): consistent with the result, exact on hand-worked
missions, and free when off."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.decisions import STARTS, DecisionLog, bucket
from simcore.explain import divergence
from simcore.params import from_dict
from uav.engine import preset_scenario, simulate
from uav.engine.config import UavConfig
from uav.engine.model import SENSOR_INDEX, Mission, TargetSpec, UavSpec
from uav.engine.policies import make_policy
from uav.engine.result import surveil_records
from uav.engine.sim import ENDS, PREEMPTED, Simulator

# Checks shared with the other kinds' decision tests.
_shared = runpy.run_path(str(Path(__file__).parents[1] / "_decisions.py"))
by_task = _shared["by_task"]
assert_explain_changes_nothing = _shared["assert_explain_changes_nothing"]

# Each end of a surveil in the result's table, as its last decision must say it.
END_ACTION = {reason: action for reason, (action, _) in ENDS.items()} | {PREEMPTED: "preempted"}
POLICIES = ("random", "rbs", "max-value", "max-vpe+f", "max-vpt+p", "meta", "meta+pf")


def mission(uavs, targets, horizon=24.0) -> Mission:
    """uavs: [(energy, {"VIS": (rate, quality)})]; targets: [(priority, surveil hours,
    {"VIS": affinity}, windows)]; ids 1-based in list order."""
    us = [UavSpec(i + 1, e, {SENSOR_INDEX[k]: v for k, v in s.items()})
          for i, (e, s) in enumerate(uavs)]
    ts = [TargetSpec(i + 1, p, ts, {SENSOR_INDEX[k]: a for k, a in al.items()}, list(w))
          for i, (p, ts, al, w) in enumerate(targets)]
    return Mission(horizon, us, ts, [])


def explained(m: Mission, policy: str, **cfg) -> tuple[Simulator, list[dict]]:
    sim = Simulator(m, from_dict(UavConfig, {"horizon_h": m.horizon, **cfg}),
                    make_policy(policy, np.random.default_rng(0)))
    sim.decisions = DecisionLog()
    sim.run()
    return sim, sim.decisions.export()[0]


def check_consistent(tasks: dict, decisions: list[dict], policy: str) -> None:
    """What every explained UAV run must satisfy against its surveil table."""
    assert all(a["t"] <= b["t"] for a, b in zip(decisions, decisions[1:], strict=False))
    # Every decision names its target, by which two runs are compared (``across_runs``); a
    # target's own waits are its task.
    target_of = dict(zip(tasks["id"], tasks["target"], strict=True))
    for d in decisions:
        if isinstance(d["task"], str):
            assert d["task"] == f"target {d['target']}"
        else:
            assert d["target"] == target_of[d["task"]]
    stories = by_task(decisions)
    mapped_at = {}
    for i, sid in enumerate(tasks["id"]):
        story = stories[sid]
        # A surveil is started once, by a mapping, and its last word is its end.
        assert [d["action"] for d in story if d["action"] in STARTS] == ["mapped"]
        first, last = story[0], story[-1]
        assert first["action"] == "mapped" and first["t"] == pytest.approx(tasks["start"][i])
        assert first["uav"] == tasks["uav"][i] and first["target"] == tasks["target"][i]
        assert first["sensor"] == tasks["sensor"][i]
        mapped_at[sid] = first
        assert last["action"] == END_ACTION[tasks["reason"][i]]
        assert last["t"] == pytest.approx(tasks["end"][i])
        if last["action"] != "preempted":
            assert last["reason"] == ENDS[tasks["reason"][i]][1]
            assert last["value"] == pytest.approx(tasks["value"][i])
        if tasks["reason"][i] == "energy":  # the battery really was empty
            assert last["energy_left"] == pytest.approx(0.0, abs=1e-9)
        if tasks["reason"][i] == "window_end":
            assert last["t"] == pytest.approx(last["window_end_min"]) and last["progress"] < 1
        if tasks["reason"][i] == "complete":
            assert last["progress"] == 1.0
    for sid, story in stories.items():
        if isinstance(sid, str):
            continue
        for d in story:
            if d["action"] == "preempted":  # by a surveil mapped at that instant, on its side
                by = mapped_at[d["by"]]
                assert by["t"] == d["t"] and by["where"] == d["by_option"]
                if "score" in d:
                    assert d["by_score"] > d["score"]
    scored = policy.split("+")[0] not in ("random", "rbs")
    filtering = "f" in policy.partition("+")[2]
    for d in decisions:
        if d["action"] == "mapped" and scored and "runner_up_score" in d:
            assert d["score"] >= d["runner_up_score"]  # greedy: the best option left
        if d["action"] == "mapped" and filtering:
            assert d["vpe"] > d["filter_threshold"]
        if d["action"] == "filtered":
            assert d["vpe"] <= d["filter_threshold"]
        if d["action"] == "held" and scored:
            # Greedy and Meta start something for every target a free UAV can take.
            assert d["reason"] != "passed over at this mapping event"


@pytest.fixture(scope="module")
def baseline():
    return preset_scenario("small-baseline", {"compare_random": False})


@pytest.mark.parametrize("policy", POLICIES)
def test_decisions_agree_with_the_surveil_table(baseline, policy):
    r = simulate(baseline, policy, seed=3, explain=True)
    assert r.meta["decisions"]["time_unit"] == "min"
    assert r.meta["decisions"]["across_runs"] == "target"
    check_consistent(r.tasks, r.decisions, policy)
    acts = [d["action"] for d in r.decisions if isinstance(d["task"], int)]
    assert acts.count("mapped") == r.summary["surveils_started"]
    assert acts.count("completed") == r.summary["surveils_completed"]
    assert acts.count("preempted") == r.summary["surveils_preempted"]


@pytest.mark.parametrize("policy", ("meta+pf", "max-vpe+p"))
def test_decisions_agree_with_flights(policy):
    """With positions a surveil first flies to its target: the same checks hold."""
    r = simulate(preset_scenario("geometry-demo", {"compare_random": False}), policy, seed=4,
                 explain=True)
    assert r.summary["flight_hours_total"] > 0
    check_consistent(r.tasks, r.decisions, policy)


@pytest.mark.parametrize("policy", ("max-value+pf", "meta", "random"))
def test_a_target_expires_at_its_windows_end_and_decides_nothing_outside_its_windows(baseline,
                                                                                      policy):
    """Every window that closes before the day's end without a completed surveil, while its
    target is in the mission, is a target "expired" at that window's end (not at the next
    mapping event, up to 5 min later), in time order with the rest. A target's waits are at
    mapping events inside one of its windows, and its surveils' decisions end by the end of
    the window they were started in: nothing about a target falls after its window closed."""
    for seed in (0, 1):
        r = simulate(baseline, policy, seed=seed, explain=True)
        decisions, targets = r.decisions, r.extra["targets"]
        assert all(a["t"] <= b["t"] for a, b in zip(decisions, decisions[1:], strict=False))
        windows = dict(zip(targets["id"], targets["windows_min"], strict=True))
        done = [(tg, end) for tg, end, why in zip(r.tasks["target"], r.tasks["end"],
                                                  r.tasks["reason"], strict=True)
                if why == "complete"]
        expected = set()
        for i, tg in enumerate(targets["id"]):
            left = targets["left_min"][i]
            for start, end in windows[tg]:
                if (end < r.extra["horizon_min"] and targets["joined_min"][i] <= end
                        and (left is None or left > end)
                        and not any(c == tg and start < e <= end for c, e in done)):
                    expected.add((tg, end))
        expired = [d for d in decisions if d["action"] == "expired" and isinstance(d["task"], str)]
        assert expired and all(d["t"] == d["window_end_min"] for d in expired)
        assert sorted((d["target"], d["t"]) for d in expired) == sorted(expected)
        window_of = {}
        for d in decisions:
            if isinstance(d["task"], str):  # held or filtered (expired: checked above)
                assert d["action"] == "expired" or any(a <= d["t"] < b for a, b in
                                                       windows[d["target"]]), d
            else:  # a surveil: the window it was started in
                if d["action"] == "mapped":
                    window_of[d["task"]] = d["window_end_min"]
                assert d["t"] <= window_of[d["task"]], d


def test_hand_worked_expiries_between_mapping_events_and_at_the_days_end():
    """No UAV carries the IR sensor the three targets allow. Target 1's window ends at 24 min,
    between the mapping events at 20 and 25; target 2's at 1438.2 min, after the day's last
    mapping event (1435): each expires at its window's end. Target 3's window ends with the
    day, as a surveil's would: the day's end, not a window's close, so no expiry."""
    m = mission([(10.0, {"VIS": (1.0, 3)})],
                [(5, 1.0, {"IR": 2}, [(0.0, 0.4)]), (5, 1.0, {"IR": 2}, [(23.0, 23.97)]),
                 (5, 1.0, {"IR": 2}, [(1.0, 24.0)])])
    _, decisions = explained(m, "max-value")
    expired = [(d["task"], d["t"]) for d in decisions if d["action"] == "expired"]
    assert expired == [("target 1", 24.0), ("target 2", pytest.approx(1438.2))]
    assert all(a["t"] <= b["t"] for a, b in zip(decisions, decisions[1:], strict=False))
    assert {d["task"] for d in decisions if d["action"] == "held"} == {
        "target 1", "target 2", "target 3"}


def test_greedy_score_is_the_policys_metric(baseline):
    r = simulate(baseline, "max-vpe", seed=5, explain=True)
    mapped = {d["task"]: d for d in r.decisions if d["action"] == "mapped"}
    for sid, vpe in zip(r.tasks["id"], r.tasks["vpe_at_start"], strict=True):
        assert mapped[sid]["score_name"] == "VPE" and mapped[sid]["score"] == vpe


def test_meta_names_the_numbers_it_compared(baseline):
    """``score`` is the value all proposals are compared on, ``mode_score`` the proposal's
    score in its UAV's mode (was labelled with the mode's metric, VPE beside a value); a
    preemption names the metric of the side it was won on."""
    r = simulate(baseline, "meta+p", seed=5, explain=True)
    start = dict(zip(r.tasks["id"], zip(r.tasks["mode"], r.tasks["vpe_at_start"],
                                         strict=True), strict=True))
    mapped = {d["task"]: d for d in r.decisions if d["action"] == "mapped"}
    modes = set()
    for sid, (mode, vpe) in start.items():
        d = mapped[sid]
        modes.add(mode)
        assert d["score_name"] == "V" and d["mode_score_name"] == {"value": "V", "vpe": "VPE"}[mode]
        if mode == "vpe":
            assert d["mode_score"] == vpe
        else:
            assert d["mode_score"] == d["score"]
    assert modes == {"value", "vpe"}
    preempted = [d for d in r.decisions if d["action"] == "preempted" and "score" in d]
    assert preempted
    for d in preempted:
        by = mapped[d["by"]]
        if d["reason"].endswith("its target"):
            assert d["score_name"] == "V" and d["by_score"] == by["score"]
        else:
            assert d["score_name"] == by["mode_score_name"] and d["by_score"] == by["mode_score"]
        assert d["by_score"] > d["score"]


def test_explain_off_leaves_the_result_unchanged():
    # with the Random reference run, which is not explained
    assert_explain_changes_nothing(simulate, preset_scenario("small-baseline"), "meta+pf", 2)


def test_hand_worked_battery_hold_and_continue():
    """Two VIS UAVs, two targets open all day, Max Value, mapping every 5 min.

    t=0: UAV 1 on target 1 is worth 3 x 5 x 2 = 30, UAV 2 on it 20 (runner-up); then UAV 2 on
    target 2 (worth 2; nothing left to compare). UAV 2's 0.5 of battery at 1/h lasts 30 min:
    surveil 2 is dropped half done (value 2 x 0.5 = 1). From 30 min target 2 waits, its only
    able UAV busy; at 60 min UAV 1 finishes target 1 (value 30, energy 1 of 10) and takes target
    2 (worth 3), with half of it left: done at 90 min, value 1.5."""
    m = mission([(10.0, {"VIS": (1.0, 3)}), (0.5, {"VIS": (1.0, 2)})],
                [(5, 1.0, {"VIS": 2}, [(0.0, 24.0)]), (1, 1.0, {"VIS": 1}, [(0.0, 24.0)])])
    sim, decisions = explained(m, "max-value")
    s = by_task(decisions)
    assert [(d["t"], d["action"]) for d in s[1]] == [(0.0, "mapped"), (60.0, "completed")]
    assert s[1][0]["where"] == "UAV 1 on target 1 (VIS)" and s[1][0]["score"] == 30.0
    assert s[1][0]["runner_up"] == "UAV 2 on target 1 (VIS)"
    assert s[1][0]["runner_up_score"] == 20.0
    assert s[1][0]["energy_left"] == 10.0 and s[1][0]["energy_needed"] == 1.0
    assert s[1][1]["value"] == 30.0 and s[1][1]["energy_left"] == 9.0
    assert s[2][0]["where"] == "UAV 2 on target 2 (VIS)" and s[2][0]["score"] == 2.0
    assert "runner_up" not in s[2][0]
    assert (s[2][1]["t"], s[2][1]["action"]) == (30.0, "dropped")
    assert s[2][1]["reason"] == "its UAV's battery ran out before the surveil was complete"
    assert s[2][1]["progress"] == 0.5 and s[2][1]["value"] == 1.0
    assert s[2][1]["energy_left"] == 0.0
    held = s["target 2"]
    assert len(held) == 1 and held[0]["action"] == "held"
    assert held[0]["reason"] == "every UAV that could surveil it is busy"
    assert held[0]["t"] == 30.0 and "count" not in held[0]  # recorded once: it holds till 60
    assert held[0]["capable"] == 1
    assert [(d["t"], d["action"]) for d in s[3]] == [(60.0, "mapped"), (90.0, "completed")]
    assert s[3][0]["energy_needed"] == 0.5 and s[3][1]["value"] == 1.5
    assert set(s) == {1, 2, 3, "target 2"}


def preemption_case() -> Mission:
    return mission([(10.0, {"VIS": (1.0, 3)}), (10.0, {"VIS": (1.0, 2)})],
                   [(5, 1.0, {"VIS": 2}, [(1.0, 1.5)]), (1, 2.0, {"VIS": 1}, [(0.0, 24.0)])])


def test_hand_worked_preemption_and_expiry():
    """Max Value + P: UAV 1 (quality 3) watches target 2 (worth 3, 2 h) from t=0; target 1 (worth
    30) opens at 60 min and takes UAV 1 (30 beats 3; UAV 2 would be worth 20): surveil 1 is
    preempted half done by surveil 2. Target 2, free again, goes to UAV 2 (worth 2) at once.
    Target 1's window ends at 90 min, 30 min into its 1 h: surveil 2 expires."""
    sim, decisions = explained(preemption_case(), "max-value+p")
    s = by_task(decisions)
    assert s[1][0]["where"] == "UAV 1 on target 2 (VIS)" and s[1][0]["score"] == 3.0
    pre = s[1][1]
    assert (pre["t"], pre["action"], pre["by"]) == (60.0, "preempted", 2)
    assert pre["reason"] == "a surveil that outscores it took its UAV"
    assert (pre["score"], pre["by_score"], pre["progress"]) == (3.0, 30.0, 0.5)
    assert s[2][0]["where"] == "UAV 1 on target 1 (VIS)"
    assert (s[2][0]["score"], s[2][0]["runner_up_score"]) == (30.0, 20.0)
    assert (s[2][1]["t"], s[2][1]["action"]) == (90.0, "expired")
    assert s[2][1]["reason"] == "the target's window closed before the surveil was complete"
    assert s[2][1]["progress"] == 0.5
    assert s[3][0]["t"] == 60.0 and s[3][0]["where"] == "UAV 2 on target 2 (VIS)"
    assert s["target 1"][-1]["action"] == "expired" and s["target 1"][-1]["t"] == 90.0
    assert s["target 1"][-1]["window_end_min"] == 90.0


def test_preemption_is_where_max_value_and_its_p_variant_part():
    """The preemption mission under Max Value and Max Value + P: the same start at 0; at 60 min
    plain Max Value sends idle UAV 2 to target 1, the P variant preempts UAV 1 for it."""
    runs = [{"meta": {"scenario": "preemption", "seed": 0, "policy": p},
             "decisions": explained(preemption_case(), p)[1]}
            for p in ("max-value", "max-value+p")]
    first = divergence(*runs)["first"]
    assert first["t"] == 60.0
    assert [d["where"] for d in first["only_a"]] == ["UAV 2 on target 1 (VIS)"]
    # and surveil 3, UAV 2 on target 2 once the preemption freed it, exists in that run only
    assert [(d["task"], d["action"]) for d in first["only_b"]] == [
        (1, "preempted"), (2, "mapped"), (3, "mapped")]


def test_sampled_logs_keep_whole_targets_and_compare_as_the_whole_logs_do(baseline):
    """Past its limit a UAV log keeps 1 target in ``stride`` with all its surveils and waits:
    each sampled run is its whole log less the other targets, and two sampled runs part where
    their whole logs, cut to the same targets, part."""
    runs = {}
    for policy in ("max-vpe+pf", "meta+pf"):
        whole = simulate(baseline, policy, seed=2, explain=DecisionLog(limit=10**6))
        cut = simulate(baseline, policy, seed=2, explain=DecisionLog(limit=200))
        runs[policy] = [r.to_dict() for r in (whole, cut)]
        info = cut.meta["decisions"]
        assert info["stride"] > 1 and info["sampled_by"] == "target"
        assert info["sampling"].startswith(f"1 target in {info['stride']} with all its")
        kept = [d for d in whole.decisions if bucket(f"target {d['target']}") % info["stride"] == 0]
        assert cut.decisions == kept and 0 < len(kept) <= 200
    (wa, ca), (wb, cb) = runs.values()
    stride = max(r["meta"]["decisions"]["stride"] for r in (ca, cb))
    for r in (wa, wb):  # the whole logs cut to the targets both sampled logs keep
        r["decisions"] = [d for d in r["decisions"]
                          if bucket(f"target {d['target']}") % stride == 0]
    sampled, whole = divergence(ca, cb), divergence(wa, wb)
    # (each says the sampling it compared at; the rest is the same)
    assert (sampled.pop("stride"), whole.pop("stride")) == (stride, 1)
    assert sampled["first"] is not None and sampled == whole


def test_hand_worked_filter():
    """Max VPE + F: after UAV 1 has spent energy ahead of its pace, an option whose value per
    energy is below its threshold tau x F is filtered, with both numbers."""
    m = mission([(2.0, {"VIS": (1.0, 1)})],
                [(10, 1.0, {"VIS": 1}, [(0.0, 24.0)]), (1, 1.0, {"VIS": 1}, [(1.0, 24.0)])])
    sim, decisions = explained(m, "max-vpe+f")
    s = by_task(decisions)
    # At 60 min UAV 1 has used 1 of 2 (epsilon 0.5) in 1/24 of the day: F = 12; tau = 10
    # (the mean VPE of its surveils), so the threshold is 120 and target 2's VPE 1 fails it.
    f = s["target 2"][0]
    assert (f["t"], f["action"], f["uav"]) == (60.0, "filtered", 1)
    assert f["vpe"] == 1.0 and f["filter_threshold"] == pytest.approx(120.0)
    assert "target 2" in {d["task"] for d in decisions} and len(s) == 2


uav_specs = st.lists(st.tuples(st.sampled_from([0.3, 1.0, 4.0]),
                               st.sampled_from([0.5, 1.0, 2.0]), st.integers(1, 3),
                               st.booleans()), min_size=1, max_size=3)
target_specs = st.lists(st.tuples(st.integers(1, 10), st.sampled_from([0.25, 1.0, 3.0]),
                                  st.integers(1, 3), st.booleans(),
                                  st.sampled_from([0.0, 0.5, 5.0]),
                                  st.sampled_from([0.4, 2.0, 20.0])), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(uav_specs, target_specs, st.sampled_from(POLICIES), st.booleans())
def test_random_missions_explain_consistently(uavs, targets, policy, per_window):
    m = mission([(e, {"VIS": (r, q)} | ({"IR": (r, q)} if ir else {}))
                 for e, r, q, ir in uavs],
                [(p, ts, {"VIS": a} | ({"IR": a} if ir else {}), [(w0, min(w0 + w, 24.0))])
                 for p, ts, a, ir, w0, w in targets])
    sim, decisions = explained(m, policy, one_surveil_per_window=per_window)
    check_consistent(surveil_records(sim), decisions, policy)


@given(st.integers(1, 140).flatmap(
    lambda u: st.lists(st.lists(st.booleans(), min_size=u, max_size=u), min_size=1, max_size=6)))
def test_the_causes_masks_are_the_arrays_bytes(columns):
    """The waiting targets' causes work on masks as ints (``policies.why.byte_mask``): byte i
    of a UAV mask is UAV i, for any number of UAVs (past one 64-bit word too)."""
    from uav.engine.policies.why import byte_mask, column_masks

    mask = np.array(columns, dtype=bool).T  # UAV x target
    got = column_masks(mask)
    assert got == [byte_mask(mask[:, t]) for t in range(mask.shape[1])]
    for t, value in enumerate(got):
        assert list(value.to_bytes(mask.shape[0], "little")) == mask[:, t].astype(int).tolist()
        assert value.bit_count() == int(mask[:, t].sum())


@settings(max_examples=40, deadline=None, database=None)
@given(st.integers(1, 140), st.integers(1, 80), st.integers(1, 4), st.integers(0, 2**32 - 1),
       st.lists(st.lists(st.integers(0, 79), max_size=8), min_size=1, max_size=4),
       st.booleans())
def test_sensor_folds_asked_for_piecemeal_are_the_whole_fold(n_uavs, n_targets, n_sensors,
                                                             seed, asks, filtering):
    """``policies.why.Folded`` folds the sensor axis for the targets asked about as they are
    asked (scores past ``WHOLE_FOLD`` entries) or for every target at the first ask: either
    way each target's capable UAVs and best value per energy are the whole fold's."""
    from types import SimpleNamespace

    from uav.engine.policies.common import NEG
    from uav.engine.policies.why import Folded, byte_mask

    rng = np.random.default_rng(seed)
    shape = (n_uavs, n_targets, n_sensors)
    view = SimpleNamespace(valid=rng.random(shape) < 0.4, VPE=rng.random(shape),
                           n_targets=n_targets)
    want_any = view.valid.any(axis=2)
    want_best = np.where(view.valid, view.VPE, NEG).max(axis=2)
    folded = Folded(0)
    for ask in asks:
        targets = sorted({t % n_targets for t in ask})
        folded.need(view, targets, filtering)
        for t in targets:
            assert folded.capable[t] == byte_mask(want_any[:, t])
            if filtering:
                assert folded.best_vpe[t].tolist() == want_best[:, t].tolist()
