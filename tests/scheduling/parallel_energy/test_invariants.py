"""Ch. 3 spec §10.3 invariants on random small scenarios (hypothesis), every policy on ``small``."""

from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import list_policies, preset_scenario, simulate
from scheduling.parallel_energy.config import KIND
from scheduling.parallel_energy.state import MAPPABLE, PLACEHOLDER, RESERVED, STARTED, State
from scheduling.parallel_energy.timeline import EPS

POLICIES = [p.name for p in list_policies(KIND)]
COMPARISON_P0 = ("conservative", "easy", "fcfs-mq")


@contextmanager
def watch():
    """Record what the invariants need while a simulation runs."""
    log = {"reservations": {}, "placeholders_after_removal": 0, "max_reservations": 0,
           "max_reservations_per_cluster": 0, "events": 0, "cancelled": 0}
    advance, assign = State.advance, State.assign

    def advance_hook(self, now, honor):
        held = [t for t in log["reservations"] if self.status[t] == RESERVED]
        advance(self, now, honor)
        log["events"] += 1
        # A reservation cancelled at its start (reservation_energy = at-start) may be mapped
        # again: it no longer has to keep its place.
        for t in held:
            if self.status[t] == MAPPABLE:
                del log["reservations"][t]
                log["cancelled"] += 1
        log["placeholders_after_removal"] += len(self.placeholders) + int(
            (self.status == PLACEHOLDER).sum())
        # Nothing but running tasks and permanent reservations is left on the nodes.
        for tl in self.timelines:
            booked = np.unique(tl.intervals()[3])
            log["placeholders_after_removal"] += int(
                (~np.isin(self.status[booked], (STARTED, RESERVED))).sum())

    def assign_hook(self, t, c, p, s, permanent, why=None):
        assign(self, t, c, p, s, permanent, why)
        if permanent and s > self.now:
            log["reservations"][t] = (c, p, s, self.node_ids[t].tolist())
        log["max_reservations"] = max(log["max_reservations"], len(self.reservations))
        per_cluster = np.bincount(self.cluster[self.reservations], minlength=1)
        log["max_reservations_per_cluster"] = max(log["max_reservations_per_cluster"],
                                                  int(per_cluster.max(initial=0)))

    with mock.patch.object(State, "advance", advance_hook), \
            mock.patch.object(State, "assign", assign_hook):
        yield log


def check_result(result, policy, log):
    tasks = result.tasks
    params = result.meta["scenario"]["params"]
    clusters = params["system"]["clusters"]
    horizon = params["time"]["sim_h"] * 3600.0
    n_pstates = len(params["system"]["pstate_power_factors"])
    busy = {}
    for i in range(len(tasks["id"])):
        start, end, c = tasks["start"][i], tasks["end"][i], tasks["cluster"][i]
        if tasks["status"][i] in ("dropped", "unscheduled"):
            assert start is None and tasks["node_ids"][i] is None
            continue
        # One cluster, one P-state, the task's node count, distinct nodes of that cluster.
        nodes = tasks["node_ids"][i]
        assert len(nodes) == tasks["nodes"][i] == len(set(nodes))
        assert min(nodes) >= 0 and max(nodes) < clusters[c]["nodes"]
        assert 0 <= tasks["pstate"][i] < n_pstates
        assert tasks["arrival"][i] <= start < horizon
        for node in nodes:
            busy.setdefault((c, node), []).append((start, end))
        if policy.split("+")[0] in COMPARISON_P0:
            assert tasks["pstate"][i] == 0
        # Permanent reservations never move.
        if tasks["id"][i] in log["reservations"]:
            rc, rp, rs, rnodes = log["reservations"][tasks["id"][i]]
            assert (c, tasks["pstate"][i], start, nodes) == (rc, rp, rs, rnodes)
    for intervals in busy.values():  # no node runs two tasks at once
        intervals.sort()
        for (_, e1), (s2, _) in zip(intervals, intervals[1:], strict=False):
            assert s2 >= e1 - EPS
    # Daily energy never over budget.
    for day in result.extra["days"]:
        if day["budget_gj"] is not None:
            assert day["consumed_gj"] <= day["budget_gj"] * (1 + 1e-9) + 1e-9
    # Place-holders never survive into the next mapping event unstarted.
    assert log["placeholders_after_removal"] == 0
    if policy.split("+")[0] == "easy":
        if params["scheduler"]["easy_reservations"] == "system":
            assert log["max_reservations"] <= 1
        else:
            assert log["max_reservations_per_cluster"] <= 1
    assert log["cancelled"] == result.summary["reservations_cancelled"]
    if params["scheduler"]["reservation_energy"] == "at-reservation":
        assert log["cancelled"] == 0
    # Pro-rated credits of adjacent windows add up to the final utility.
    w0, w1 = result.extra["window_s"]
    total = credited = 0.0
    for i in range(len(tasks["id"])):
        if tasks["start"][i] is None:
            continue
        s, e, u = tasks["start"][i], tasks["end"][i], tasks["utility"][i]
        parts = [max(0.0, min(e, b) - max(s, a)) / (e - s)
                 for a, b in ((-np.inf, w0), (w0, w1), (w1, np.inf))]
        total += u
        credited += sum(u * f for f in parts)
        assert tasks["credit"][i] == pytest.approx(u * parts[1], rel=1e-6, abs=1e-9)
    assert credited == pytest.approx(total, rel=1e-9, abs=1e-9)
    assert result.summary["utility"] == pytest.approx(
        sum(c for c in tasks["credit"] if c is not None), rel=1e-6, abs=1e-6)
    assert result.summary["utility"] <= result.summary["max_utility"] * (1 + 1e-9) + 1e-9
    fam = result.meta["policy_family"]
    if fam != "comparison" and params["scheduler"]["exclude_zero_utility"]:
        assert all(u > 0 for u in tasks["utility"] if u is not None)
    if fam == "metaheuristic":
        ev = result.events
        for chosen, com, goal in zip(ev["chosen"], ev["committed_gj"], ev["goal_gj"],
                                     strict=True):
            if com is not None and goal is not None:
                assert (chosen == "upe") == (com > goal + 1e-12) or abs(com - goal) < 1e-9


scenarios = st.fixed_dictionaries({
    "workload.tasks_per_day": st.sampled_from([150.0, 300.0, 600.0]),
    "energy.budget_gj": st.sampled_from([None, 0.05, 0.3, 1.0]),
    "time.mapping_interval_s": st.sampled_from([120.0, 300.0, 900.0]),
    "scheduler.dropping_threshold": st.sampled_from([None, 0.0, 0.5, 2.0]),
    "scheduler.drop_comparison": st.booleans(),
    "scheduler.honor_placeholders": st.booleans(),
    "energy.warmup_budget": st.sampled_from(["prorated", "none"]),
    "scheduler.reservation_energy": st.sampled_from(["at-reservation", "at-start"]),
    "scheduler.easy_reservations": st.sampled_from(["system", "cluster"]),
})


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios, st.sampled_from(POLICIES), st.integers(0, 10_000))
def test_invariants_on_random_small_scenarios(overrides, policy, seed):
    overrides = {"time.sim_h": 8.0, "time.warmup_h": 2.0, **overrides}
    scenario = preset_scenario("small", overrides)
    with watch() as log:
        result = simulate(scenario, policy, seed=seed)
    assert log["events"] > 0
    check_result(result, policy, log)


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_runs_on_small(policy):
    scenario = preset_scenario("small", {"time.sim_h": 10.0, "time.warmup_h": 2.0})
    with watch() as log:
        result = simulate(scenario, policy, seed=3)
    check_result(result, policy, log)
    s = result.summary
    assert s["tasks_total"] == (s["tasks_completed"] + s["tasks_running_at_end"]
                                + s["tasks_dropped"] + s["tasks_unscheduled"])
    assert s["tasks_completed"] > 0 and s["utility"] > 0


def test_every_policy_is_registered():
    names = set(POLICIES)
    base = ["random", "conservative", "easy", "fcfs-mq", "meta-event", "meta-task"]
    base += [f"max-{m}-{v}" for m in ("util", "upt", "upr", "upe") for v in ("pr", "ph")]
    assert names == {b + f for b in base for f in ("", "+ept", "+epr")}
    families = {p.name: p.family for p in list_policies(KIND)}
    assert families["easy+epr"] == "comparison" and families["max-upe-ph"] == "utility"
    assert families["meta-task+ept"] == "metaheuristic"


@pytest.mark.parametrize("policy", ["easy", "max-upr-ph", "max-upe-pr+epr", "meta-event"])
def test_testbed_invariants(policy):
    with watch() as log:
        result = simulate(preset_scenario("ch3-testbed"), policy, seed=1)
    check_result(result, policy, log)
    assert result.summary["energy_gj"] <= 0.0027 * (1 + 1e-9)
