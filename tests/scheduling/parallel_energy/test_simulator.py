"""The ch3 environment end to end: contract, determinism, errors, CLI, heuristic semantics."""

import json
from unittest import mock

import numpy as np
import pytest

from scheduling.engine import ENGINE, preset_scenario, scenario, simulate
from scheduling.parallel_energy.config import KIND
from scheduling.parallel_energy.policies.minmin import MinMinRun, cost_array
from scheduling.parallel_energy.state import State, Trial
from simcore.cli import main
from simcore.errors import ScenarioError

SHORT = {"time.sim_h": 10.0, "time.warmup_h": 2.0}


def test_result_contract_and_series_axis():
    r = simulate(preset_scenario("small"), "meta-event", seed=1)
    for key in ("utility", "max_utility", "pct_max_utility", "energy_gj", "energy_budget_gj",
                "tasks_total", "tasks_completed", "tasks_dropped", "tasks_unscheduled",
                "wait_mean_min", "mapping_events", "upe_fraction"):
        assert key in r.summary
    minutes = 28 * 60
    assert list(r.series["t_min"]) == list(range(minutes + 1))
    for key in ("utility_cum", "energy_day_gj", "goal_energy_gj", "budget_gj", "mappable",
                "running", "reserved", "chosen"):
        assert len(r.series[key]) == minutes + 1, key
    assert set(r.series["chosen"]) <= {"upe", "upr"}
    cum = np.asarray(r.series["utility_cum"])
    assert np.all(np.diff(cum) >= -1e-9) and cum[-1] == pytest.approx(r.summary["utility"])
    for key in ("id", "type", "priority", "arrival", "start", "end", "cluster", "pstate",
                "nodes", "node_ids", "utility", "credit", "energy_j", "status"):
        assert len(r.tasks[key]) == r.summary["tasks_total"], key
    assert set(r.tasks["status"]) <= {"completed", "running", "dropped", "unscheduled"}
    for key in ("t_min", "mappable", "dropped", "assigned", "chosen"):
        assert len(r.events[key]) == r.summary["mapping_events"]
    assert [c["name"] for c in r.extra["clusters"]] == ["GP1", "GP2", "GP3", "GP4", "SP1", "SP2"]
    assert len(r.extra["utility_classes"]) == 20
    assert r.meta["kind"] == KIND and r.meta["policy"] == "meta-event"
    assert r.timing["events"] == r.summary["mapping_events"] == len(r.timing["event_ms"])
    # Energy of the day: budget lines and a goal line that rises to the budget.
    budget = [b for b in r.series["budget_gj"] if b is not None]
    assert max(budget) == pytest.approx(0.9)
    assert r.series["goal_energy_gj"][minutes] == pytest.approx(0.9, rel=1e-3)
    assert max(r.series["energy_day_gj"]) <= 0.9 + 1e-9


def test_same_seed_gives_byte_identical_json_and_seeds_differ():
    sc = preset_scenario("small", SHORT)
    a = simulate(sc, "max-upr-ph+epr", seed=5).to_json()
    b = simulate(sc, "max-upr-ph+epr", seed=5).to_json()
    assert a == b
    assert simulate(sc, "random", seed=6).to_json() != a


def test_every_policy_sees_the_same_workload():
    sc = preset_scenario("small", SHORT)
    a = simulate(sc, "random", seed=2).tasks
    b = simulate(sc, "max-upe-ph", seed=2).tasks
    assert a["arrival"] == b["arrival"] and a["type"] == b["type"]


def test_unconstrained_has_no_budget():
    r = simulate(preset_scenario("small", {**SHORT, "energy.budget_gj": None}), "meta-event", 1)
    assert r.summary["energy_budget_gj"] is None
    assert all(b is None for b in r.series["budget_gj"])
    assert set(r.series["chosen"]) == {"upr"}  # no budget: never ahead of the goal
    assert all(d["budget_gj"] is None for d in r.extra["days"])


@pytest.mark.parametrize("override, field, words", [
    ({"energy.budget_gj": -1}, "energy.budget_gj", ">= 0"),
    ({"time.mapping_interval_s": 0}, "time.mapping_interval_s", ">= 1"),
    ({"scheduler.dropping_threshold": "high"}, "scheduler.dropping_threshold", "number"),
    ({"workload.etc_mode": "magic"}, "workload.etc_mode", "one of downey, table"),
    ({"time.warmup_h": 30}, "time.warmup_h", "< time.sim_h"),
    ({"utility.time_unit_h": 0}, "utility.time_unit_h", ">= 0.001"),
    ({"system.clusters.0.nodes": 0}, "system.clusters.0.nodes", ">= 1"),
    ({"scheduler.mq_medium": 0.9}, "scheduler.mq_large", ">= mq_medium"),
    ({"workload.core_rows.0.share": 0.5}, "workload.core_rows", "sum to 1"),
])
def test_bad_parameters_raise_scenario_error_naming_the_parameter(override, field, words):
    with pytest.raises(ScenarioError) as err:
        preset_scenario("small", override)
    assert err.value.field == field
    assert words in str(err.value)


def test_unknown_policy_is_a_scenario_error():
    with pytest.raises(ScenarioError) as err:
        simulate(preset_scenario("small"), "max-awesome", seed=0)
    assert err.value.field == "policy"


def test_cli_run_writes_the_result(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(ENGINE, ["run", "--preset", "small", "--policy", "easy", "--seed", "3",
                         "--set", "time.sim_h=10", "--set", "time.warmup_h=2",
                         "--set", "energy.budget_gj=0.5", "--out", str(out)], "prog")
    assert code == 0
    data = json.loads(out.read_text())
    assert data["meta"]["scenario"]["params"]["energy"]["budget_gj"] == 0.5
    assert "pct_max_utility" in capsys.readouterr().out
    assert main(ENGINE, ["run", "--preset", "small", "--policy", "easy",
                         "--set", "energy.budget_gj=-3"], "prog") == 2
    assert "energy.budget_gj" in capsys.readouterr().err


def test_presets_listed():
    names = {p.name for p in ENGINE.list_presets(KIND)}
    assert {"small", "ch3-5k", "ch3-10k", "ch3-unconstrained"} <= names
    assert preset_scenario("ch3-10k").params.workload.tasks_per_day == 10_000
    assert preset_scenario("ch3-5k").params.energy.budget_gj == 12.0
    assert preset_scenario("ch3-unconstrained").params.energy.budget_gj is None
    assert scenario(KIND).params.system.clusters[5].nodes == 350


class NaiveMinMin(MinMinRun):
    """Algorithm 4 literally: re-evaluate every remaining task after each assignment."""

    def run(self, after_assign=None):
        left = list(range(len(self.ctx.tasks)))
        arrival = self.arrival
        while left:
            best = None
            for r in left:
                opt = self.evaluate(r)
                if opt is None:
                    continue
                key = (-opt[0], arrival[r], int(self.ctx.tasks[r]))
                if best is None or key < best[0]:
                    best = (key, r, opt)
            if best is None:
                return
            _, r, opt = best
            self.st.assign(int(self.ctx.tasks[r]), opt[3], opt[4], opt[5],
                           permanent=self.permanent)
            self.ctx.assigned.add(int(self.ctx.tasks[r]))
            left.remove(r)
            if after_assign is not None:
                switch = after_assign()
                if switch is not None and switch != self.objective:
                    self.set_objective(switch)


@pytest.mark.parametrize("policy", ["max-util-ph", "max-upt-pr", "max-upr-ph+epr", "max-upe-ph",
                                    "meta-task"])
def test_lazy_min_min_equals_the_literal_algorithm(policy):
    sc = preset_scenario("small", {**SHORT, "workload.tasks_per_day": 900.0,
                                   "time.mapping_interval_s": 600.0})
    fast = simulate(sc, policy, seed=4)
    calls = []

    def naive(self, after_assign=None):
        calls.append(1)
        return NaiveMinMin.run(self, after_assign)

    with mock.patch.object(MinMinRun, "run", naive):
        slow = simulate(sc, policy, seed=4)
    assert calls
    assert fast.to_json() == slow.to_json()
    assert fast.summary["tasks_completed"] > 0


def reference_evaluate(run: MinMinRun, r: int):
    """Utility-aware heuristics (ch. 3 spec §5.8) literally: every allowed option of row ``r``
    against the current schedule."""
    st = run.st
    run.cache.refresh(r)
    t = int(run.ctx.tasks[r])
    opts = st.options
    cost = cost_array(st, run.objective)
    best = None
    for c in np.flatnonzero(opts.eligible[t]).tolist():
        for p in range(opts.duration.shape[2]):
            if run.ctx.allowed is not None and not run.ctx.allowed[r, c, p]:
                continue
            s = float(run.cache.starts[r, c, p])
            if not np.isfinite(s):
                continue
            f = s + float(opts.duration[t, c, p])
            if not st.ledger.fits(s, f, float(st.charge_power[t, c, p])):
                continue
            u = st.utility.value1(t, f)
            if run.exclude_zero and u <= 0.0:
                continue
            key = (-u / float(cost[t, c, p]), f, float(opts.energy[t, c, p]), c, p)
            if best is None or key < best[0]:
                best = (key, s)
    if best is None:
        return None
    key, s = best
    return (-key[0], key[1], key[2], key[3], key[4], s)


@pytest.mark.parametrize("policy", ["max-util-ph", "max-upt-pr", "max-upr-ph+epr",
                                    "max-upe-pr+ept", "meta-task"])
def test_pruned_lazy_evaluation_equals_every_option_evaluated(policy):
    """The scalar re-evaluation walks options cheapest first, stops once even full utility
    cannot win and re-queries only the clusters it reaches: same answer as evaluating all."""
    sc = preset_scenario("small", {**SHORT, "workload.tasks_per_day": 900.0})
    fast_evaluate = MinMinRun.evaluate
    checked = []

    def both(self, r):
        got = fast_evaluate(self, r)
        checked.append(got == reference_evaluate(self, r))
        return got

    with mock.patch.object(MinMinRun, "evaluate", both):
        simulate(sc, policy, seed=2)
    assert len(checked) > 100 and all(checked)


def test_utility_never_exceeds_its_ceiling():
    trial = Trial.generate(preset_scenario("small").params, 3)
    u = trial.utility
    tasks = np.arange(trial.tasks.n)
    late = np.random.default_rng(0).uniform(-1e4, 3e5, size=(8, tasks.size))
    ceiling = np.array([u.ceiling(int(t)) for t in tasks])
    for row in late:
        assert np.all(u.value(tasks, trial.tasks.arrival + row) <= ceiling)
    assert np.all(u.value(tasks, trial.tasks.arrival) == ceiling)  # finishing at once: all of it


def test_dropping_threshold_semantics():
    sc = preset_scenario("small", {**SHORT, "workload.tasks_per_day": 900.0})
    none = simulate(preset_scenario("small", {**SHORT, "workload.tasks_per_day": 900.0,
                                              "scheduler.dropping_threshold": None}),
                    "max-upe-ph", seed=1)
    assert none.summary["tasks_dropped"] == 0
    dropped = []
    original = State.drop

    def spy(self, tasks):
        tasks = list(tasks)
        if tasks:
            t = np.asarray(tasks)
            best = self.utility.value(t, self.now + self.options.t_min[t])
            dropped.extend(best.tolist())
        original(self, tasks)

    with mock.patch.object(State, "drop", spy):
        r = simulate(sc, "max-upe-ph", seed=1)
    assert r.summary["tasks_dropped"] == len(dropped) > 0
    assert max(dropped) < 0.5
    # Comparison heuristics do not drop unless asked to (no dropping for comparison heuristics
    # (ch. 3 spec A29)).
    cb = simulate(sc, "conservative", seed=1)
    assert cb.summary["tasks_dropped"] == 0
    cb_drop = simulate(preset_scenario("small", {**SHORT, "workload.tasks_per_day": 900.0,
                                                 "scheduler.drop_comparison": True}),
                       "conservative", seed=1)
    assert cb_drop.summary["tasks_dropped"] > 0


def test_max_upe_picks_the_most_energy_efficient_p_states():
    sc = preset_scenario("small", SHORT)
    upe = simulate(sc, "max-upe-ph", seed=2).tasks
    util = simulate(sc, "max-util-ph", seed=2).tasks
    ps = lambda t: np.mean([p for p in t["pstate"] if p is not None])  # noqa: E731
    assert ps(upe) > ps(util)


@pytest.mark.parametrize("override, policy", [
    ({"workload.etc_mode": "table"}, "max-upr-ph"),
    ({"energy.charge": "start-day"}, "meta-task"),
    ({"energy.idle_power_w": 20.0}, "max-upe-ph"),
    ({"scheduler.goal_at": "latest-finish"}, "meta-event"),
    ({"scheduler.committed_after_removal": False}, "meta-event"),
    ({"scheduler.ept_average": "mappable"}, "max-util-ph+ept"),
    ({"scheduler.mq_rmax_scope": "mappable"}, "fcfs-mq"),
    ({"scheduler.random_reservations": False}, "random"),
    ({"utility.time_axis": "t_min"}, "meta-event"),
    ({"scheduler.reservation_energy": "at-start"}, "max-upr-pr"),
    ({"scheduler.easy_reservations": "cluster"}, "easy+epr"),
    ({"scheduler.exclude_zero_utility": False}, "max-upt-pr"),
    ({"workload.r_granularity": "type-cluster-pstate"}, "max-upe-pr"),
    ({"workload.row_assignment": "iid", "workload.cores_per_task": "fixed-per-type"}, "easy"),
    ({"workload.gp_max_cores": "largest", "workload.arrival_phase": "common"}, "conservative"),
    ({"workload.tasks_per_day": 1.0}, "max-upe-ph"),
    ({"time.mapping_interval_s": 86400.0}, "meta-task"),
    ({"system.pstate_power_factors": [1.0]}, "max-upe-ph+epr"),
])
def test_switches_run_and_keep_the_invariants(override, policy):
    from .test_invariants import check_result, watch

    with watch() as log:
        result = simulate(preset_scenario("small", {**SHORT, **override}), policy, seed=2)
    check_result(result, policy, log)


def test_idle_power_counts_against_the_budget():
    sc = preset_scenario("small", {**SHORT, "energy.idle_power_w": 20.0})
    r = simulate(sc, "max-upe-ph", seed=2)
    nodes = sum(c["nodes"] for c in r.extra["clusters"])
    day0 = r.extra["days"][0]
    assert day0["consumed_gj"] >= 20.0 * nodes * 2 * 3600 / 1e9 - 1e-12  # idle floor


def test_progress_reports_and_cancellation():
    from scheduling.engine import RunCancelled

    seen = []
    simulate(preset_scenario("small", SHORT), "easy", seed=1, progress=seen.append)
    assert seen[-1] == 1.0 and all(a <= b for a, b in zip(seen, seen[1:], strict=False))
    assert len(seen) > 10

    def cancel(frac):
        if frac > 0.3:
            raise RunCancelled()

    with pytest.raises(RunCancelled):
        simulate(preset_scenario("small", SHORT), "max-upe-ph", seed=1, progress=cancel)
