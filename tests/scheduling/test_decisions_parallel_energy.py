"""The decision trace of kind parallel-energy (ch. 3): consistent with the result, right on a
hand-worked case, and free when off."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import ENGINE, preset_scenario, simulate
from scheduling.parallel_energy.config import KIND
from scheduling.parallel_energy.execution import DecayUtility, Options
from scheduling.parallel_energy.policies.minmin import MinMin
from scheduling.parallel_energy.sim import run_trial, simulate_trial
from scheduling.parallel_energy.state import Trial
from scheduling.parallel_energy.workload import Tasks
from simcore.decisions import STARTS, DecisionLog
from simcore.explain import story
from simcore.sampling import rng

SHORT = {"time.sim_h": 10.0, "time.warmup_h": 2.0}
RESERVED = ("booked a permanent reservation at a later start",
            "booked a place-holder at a later start (given up at the next mapping event)")


def _full_log() -> DecisionLog:
    # Large enough that no task's story is cut or sampled, so every check sees everything.
    return DecisionLog(per_task=100_000, limit=10_000_000)


def _explained(overrides, policy, seed=1):
    """A run with a log that keeps everything. (``simulate(explain=DecisionLog(...))`` would
    take a new, empty log for "off", so the kind's own entry is called with it.)"""
    cfg = preset_scenario("small", {**SHORT, **overrides}).params
    log = _full_log()
    built = ENGINE.get_policy(KIND, policy).build(cfg, rng(seed, "policy"))
    result = simulate_trial(cfg, built, policy, seed, decisions=log)
    result.decisions, info = log.export()
    assert info["omitted"] == 0 and info["stride"] == 1
    return result


def check_consistent(result, threshold) -> None:
    """Every task's decisions agree with the result's task table."""
    tasks = result.tasks
    decisions = result.decisions
    by_task: dict[int, list[dict]] = {}
    for d in decisions:
        by_task.setdefault(d["task"], []).append(d)
    assert set(by_task) <= set(tasks["id"])
    held_reservations = {}  # task -> reserved start, as last booked
    for d in decisions:
        if d["action"] == "held" and d["reason"] in RESERVED:
            held_reservations[d["task"]] = d["start"]
            assert d["start"] > d["t"]
        if d["action"] == "backfilled":
            # It passed a reservation that existed then, of an earlier task, ending later.
            assert d["passed"] < d["task"]
            assert d["passed"] in held_reservations
            assert d["shadow"] > d["t"]
    dropped = 0
    for i, tid in enumerate(tasks["id"]):
        mine = by_task.get(tid, [])
        status = tasks["status"][i]
        actions = [d["action"] for d in mine]
        if status in ("completed", "running"):
            starts = [d for d in mine if d["action"] in STARTS]
            assert len(starts) == 1, (tid, mine)
            s = starts[0]
            assert s["where"] == tasks["cluster"][i]
            assert s["pstate"] == tasks["pstate"][i]
            assert s["t"] == pytest.approx(tasks["start"][i], abs=1e-6)
            assert s["start"] == pytest.approx(tasks["start"][i], abs=1e-6)
        else:
            assert not any(a in STARTS for a in actions), (tid, mine)
        if status == "completed":
            assert actions[-1] == "completed"
            assert mine[-1]["t"] == pytest.approx(tasks["end"][i])
            assert mine[-1]["utility"] == pytest.approx(tasks["utility"][i])
        else:
            assert "completed" not in actions
        if status == "running":
            assert actions[-1] in STARTS
        if status == "dropped":
            dropped += 1
            assert actions[-1] == "dropped" and actions.count("dropped") == 1
            drop = mine[-1]
            assert drop["threshold"] == threshold
            assert drop["utility"] < threshold or drop["utility"] <= 0.0
            if drop["utility"] >= threshold:
                assert "no utility" in drop["reason"]
        else:
            assert "dropped" not in actions
        if status == "unscheduled":  # every one says why, one that came too late too
            assert actions and actions[-1] in ("held", "filtered"), (tid, mine)
        for d in mine:
            if d["action"] == "filtered" and "least_w_per_core" in d:
                assert d["least_w_per_core"] > d["threshold"]
            if d["action"] == "filtered" and "least_energy_j" in d:
                assert d["least_energy_j"] > d["threshold"]
            if d["action"] == "mapped" and "runner_up_score" in d:
                assert d["score"] >= d["runner_up_score"]
            if d.get("heuristic") is not None and d.get("goal_gj") is not None:
                ahead = d["committed_gj"] > d["goal_gj"]
                assert d["chosen"] == ("upe" if ahead else "upr")
    assert dropped == result.summary["tasks_dropped"]


@pytest.mark.parametrize("policy,overrides", [
    ("max-upe-ph", {}), ("max-upr-pr+ept", {}), ("meta-task", {}), ("meta-event", {}),
    ("easy", {}), ("conservative+epr", {}), ("fcfs-mq", {}), ("random", {}),
    ("easy", {"scheduler.easy_reservations": "cluster"}),
    ("max-util-pr", {"scheduler.reservation_energy": "at-start"}),
])
def test_decisions_agree_with_the_result(policy, overrides):
    result = _explained(overrides, policy)
    check_consistent(result, 0.5)
    kinds = {d["action"] for d in result.decisions}
    assert {"completed", "held"} <= kinds
    assert kinds & STARTS


def test_easy_backfills_and_says_what_holds_the_others_back():
    result = _explained({}, "easy")
    backfilled = [d for d in result.decisions if d["action"] == "backfilled"]
    blocked = [d for d in result.decisions if d["reason"].startswith("EASY: it cannot start now")]
    assert backfilled and blocked
    for d in blocked:  # the reservation it names was booked before, for a later start
        assert d["reservation_start"] > d["t"]


@pytest.mark.parametrize("policy", ["conservative", "easy", "fcfs-mq+epr", "conservative+ept"])
def test_fcfs_runner_up_agrees_with_the_rule_the_reason_states(policy):
    """FCFS at P-state 0 takes a start now before any later one: of the clusters where the task
    may start now, the one where it finishes first; else the earliest start (then finish). A
    runner-up that finishes earlier must be one the stated rule leaves out: it starts later,
    and the reason says the comparison is among the clusters where it may start now."""
    now = later = earlier = 0
    for seed in (0, 1):
        r = simulate(preset_scenario("small", SHORT), policy, seed=seed, explain=True)
        for d in r.decisions:
            rule = d.get("rule", d["reason"])
            if "runner_up_start" not in d or not rule.startswith(("FCFS", "small", "medium",
                                                                  "large")):
                continue
            if d["start"] <= d["t"]:  # starts now
                now += 1
                if d["runner_up_start"] <= d["t"]:  # the runner-up could start now too
                    assert d["runner_up_finish"] >= d["finish"], d
                elif d["runner_up_finish"] < d["finish"]:
                    earlier += 1
                    assert "finishes first of those where it may start now" in rule, d
            else:  # booked for later: no cluster could take it now
                later += 1
                assert d["runner_up_start"] > d["t"]
                assert (d["runner_up_start"], d["runner_up_finish"]) >= (d["start"],
                                                                         d["finish"]), d
    assert now and earlier


def test_every_task_left_waiting_has_a_reason_at_every_event():
    # Max UPE with place-holders: a task is assigned or told why not at each mapping event,
    # so its held/filtered decisions (repeats counted) cover every event it waited through.
    result = _explained({}, "max-upe-ph+epr")
    interval = 300.0
    for i, tid in enumerate(result.tasks["id"]):
        if result.tasks["status"][i] != "unscheduled":
            continue
        arrival = result.tasks["arrival"][i]
        first = np.ceil(arrival / interval) * interval
        events = int(round((SHORT["time.sim_h"] * 3600 - first) / interval))
        mine = story(result.decisions, tid)
        late = [d for d in mine if d["reason"].startswith("it arrived after the run's last")]
        waits = sum(d.get("count", 1) for d in mine if d not in late)
        assert waits == events, tid
        # one that arrived after the last event says so, at its arrival, and only then
        assert [d["t"] for d in late] == ([arrival] if events == 0 else []), tid


@pytest.mark.parametrize("policy", ["max-upe-ph+epr", "meta-task", "easy", "random"])
def test_explain_leaves_the_result_unchanged(policy):
    sc = preset_scenario("small", SHORT)
    plain = simulate(sc, policy, seed=4).to_dict()
    explained = simulate(sc, policy, seed=4, explain=True).to_dict()
    assert explained.pop("decisions")
    assert explained["meta"].pop("decisions")["tasks_seen"] > 0
    assert "decisions" not in plain
    assert plain == explained


# -- a hand-worked case ---------------------------------------------------------------------------
# One cluster of 2 single-core nodes, P-states at full and half power. Task 0 (2 nodes, value
# 4) arrives at 0 s; task 1 (1 node, value 2) at 30 s. Fastest times 600 s and 300 s; the
# second P-state takes twice as long at 40 W per node instead of 100 W. Utility (testbed
# decay): full until 2.5 x T_min after arrival, then linear to 0 over another 2.5 x T_min, so
# task 0 earns 4 up to 1500 s; task 1 earns 2 up to 780 s, nothing from 1530 s.

def _hand_trial(threshold, budget_gj=None) -> Trial:
    sc = preset_scenario("small", {
        "system.clusters": [{"name": "A", "kind": "general", "cores_per_node": 1,
                             "nodes": 2}],
        "system.pstate_power_factors": [1.0, 0.5],
        "workload.sp_types_per_cluster": 0,
        "workload.core_rows": [{"share": 1.0, "min_cores": 1, "max_cores": 2,
                                "pattern": "sinusoidal"}],
        "time.sim_h": 1.0, "time.warmup_h": 0.0, "time.mapping_interval_s": 60.0,
        "energy.budget_gj": budget_gj, "energy.idle_power_w": 0.0,
        "scheduler.dropping_threshold": threshold})
    generated = Trial.generate(sc.params, 0)
    tasks = Tasks(type=np.zeros(2, np.int64), cores=np.array([2, 1]),
                  utility_class=np.zeros(2, np.int64), arrival=np.array([0.0, 30.0]),
                  priority=np.array([4.0, 2.0]))
    nodes = np.array([[2], [1]])
    duration = np.array([[[600.0, 1200.0]], [[300.0, 600.0]]])
    node_power = np.array([[[100.0, 40.0]], [[100.0, 40.0]]])
    power = node_power * nodes[:, :, None]
    options = Options(nodes=nodes, eligible=np.ones((2, 1), bool), duration=duration,
                      node_power=node_power, power=power, energy=duration * power,
                      resources=duration * nodes[:, :, None], t_min=np.array([600.0, 300.0]),
                      cores_per_node=np.array([1]))
    utility = DecayUtility(tasks, options.t_min, 2.5, 2.5, "linear")
    return replace(generated, tasks=tasks, options=options, utility=utility)


def _hand_run(threshold, budget_gj=None):
    trial = _hand_trial(threshold, budget_gj)
    policy = MinMin(trial.cfg, np.random.default_rng(0), "upe", permanent=False)
    log = _full_log()
    result = run_trial(trial, policy, "max-upe-ph", decisions=log)
    result.decisions, _ = log.export()
    return result


def _strip(d):
    return {k: (round(v, 9) if isinstance(v, float) else v) for k, v in d.items()}


def test_hand_worked_max_upe_with_a_place_holder():
    result = _hand_run(threshold=None)
    got = [_strip(d) for d in result.decisions]
    upe = "Min-Min: the most utility per joule among its options"
    assert got == [
        # Both P-states finish while task 0 still earns 4; the slow one uses 96 kJ, not 120.
        {"t": 0.0, "task": 0, "action": "mapped", "reason": upe, "where": 0, "pstate": 1,
         "start": 0.0, "objective": "upe", "score": round(4 / 96_000, 9), "finish": 1200.0,
         "utility": 4.0, "runner_up_where": 0, "runner_up_pstate": 0,
         "runner_up_score": round(4 / 120_000, 9)},
        # Both nodes are busy until 1200 s; finishing at 1500 s earns 2 (1 - 720/750) = 0.08;
        # the slow P-state would finish at 1800 s and earn nothing, so there is no runner-up.
        # The place-holder is given up and booked again at each event up to 1140 s.
        {"t": 60.0, "task": 1, "action": "held", "reason": RESERVED[1], "rule": upe,
         "where": 0, "pstate": 0, "start": 1200.0, "objective": "upe",
         "score": round(0.08 / 30_000, 9), "finish": 1500.0, "utility": 0.08,
         "count": 19, "t_last": 1140.0},
        {"t": 1200.0, "task": 1, "action": "mapped",
         "reason": "its place-holder started before this mapping event", "where": 0,
         "pstate": 0, "start": 1200.0},
        {"t": 1200.0, "task": 0, "action": "completed", "reason": "ran to its end",
         "where": 0, "pstate": 1, "utility": 4.0},
        {"t": 1500.0, "task": 1, "action": "completed", "reason": "ran to its end",
         "where": 0, "pstate": 0, "utility": 0.08},
    ]
    check_consistent(result, None)


def test_hand_worked_drop_below_the_threshold():
    # Started now on its fastest option, task 1 would finish at now + 300 s and earn
    # 2 (1 - (now - 480) / 750): 0.56 at 1020 s, 0.4 at 1080 s, below the threshold 0.5.
    result = _hand_run(threshold=0.5)
    one = story(result.decisions, 1)
    assert [d["action"] for d in one] == ["held", "dropped"]
    assert one[0]["count"] == 17 and one[0]["t_last"] == 1020.0
    drop = one[1]
    assert drop["t"] == 1080.0
    assert drop["utility"] == pytest.approx(0.4)
    assert drop["threshold"] == 0.5 and drop["t_min"] == 300.0
    assert result.tasks["status"] == ["completed", "dropped"]


def test_hand_worked_energy_left_in_the_day():
    # 110 kJ for the day: task 0 can only take its 96 kJ P-state (the 120 kJ one does not fit,
    # so there is no runner-up), which leaves 14 kJ, less than task 1's cheapest 24 kJ.
    result = _hand_run(threshold=None, budget_gj=110e-6)
    zero = story(result.decisions, 0)
    assert zero[0]["pstate"] == 1 and "runner_up_score" not in zero[0]
    one = story(result.decisions, 1)
    assert [d["action"] for d in one] == ["held"]
    held = one[0]
    assert held["reason"] == "no option fits the energy left in its day"
    assert held["least_energy_gj"] == pytest.approx(24e-6)
    assert held["energy_left_gj"] == pytest.approx(14e-6)
    assert held["t"] == 60.0 and held["count"] == 59 and held["t_last"] == 3540.0
    assert result.tasks["status"] == ["completed", "unscheduled"]


# -- random small scenarios ---------------------------------------------------------------------

@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=st.sampled_from(["max-util-pr", "max-upt-ph+ept", "meta-event+epr", "easy+ept",
                               "conservative", "fcfs-mq+epr", "random+ept", "meta-task"]),
       rate=st.sampled_from([300.0, 900.0, 1500.0]),
       budget=st.sampled_from([0.2, 0.5, None]),
       threshold=st.sampled_from([0.0, 0.5, 2.0, None]),
       seed=st.integers(0, 1000))
def test_decisions_agree_with_the_result_on_random_small_scenarios(policy, rate, budget,
                                                                   threshold, seed):
    result = _explained({"time.sim_h": 6.0, "time.warmup_h": 1.0,
                         "workload.tasks_per_day": rate, "energy.budget_gj": budget,
                         "scheduler.dropping_threshold": threshold,
                         "scheduler.drop_comparison": True}, policy, seed)
    check_consistent(result, threshold)


def test_a_reservation_cancelled_at_its_start_says_how_much_energy_was_left():
    # Energy committed when a reservation starts: someone takes the day's energy first.
    from scheduling.parallel_energy.state import MAPPABLE, State

    cfg = preset_scenario("small", {**SHORT, "workload.tasks_per_day": 900.0,
                                    "scheduler.reservation_energy": "at-start"}).params
    st = State(Trial.generate(cfg, 2))
    st.log = _full_log()
    st.advance(3600.0 * 4.5, True)
    t = st.mappable[0]
    c = int(np.flatnonzero(st.options.eligible[t])[0])
    s = st.now + 1800.0
    st.assign(t, c, 0, s, permanent=True)
    day = st.ledger.day_of(s)
    energy = float(st.charge_power[t, c, 0] * st.options.duration[t, c, 0])
    left = 0.5 * energy
    st.ledger.commit(st.now, st.now + 1000.0, (st.ledger.remaining(day) - left) / 1000.0)
    st.advance(s, True)
    assert st.status[t] == MAPPABLE
    booked, cancelled = story(st.log.export()[0], t)
    assert booked["action"] == "held" and booked["reason"] == RESERVED[0]
    assert booked["start"] == s
    assert cancelled["action"] == "held" and cancelled["t"] == s
    assert cancelled["reason"].startswith("its reservation was cancelled at its start")
    assert cancelled["energy_gj"] * 1e9 == pytest.approx(energy)
    assert cancelled["energy_left_gj"] * 1e9 == pytest.approx(left)
