"""The grid kind's decision trace (``--explain``): consistent with the result and the grid's
counters, exact on hand-worked grids, and free when off."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import preset_scenario, scenario, simulate
from scheduling.grid import neighbours, options
from scheduling.grid.policies import FcfsBackfill, PreemptiveBackfill
from scheduling.grid.result import KINDS, build_result
from scheduling.grid.sim import GridSim, Options
from scheduling.grid.workload import generate
from simcore.clock import RunClock
from simcore.decisions import STARTS, DecisionLog
from simcore.explain import divergence

# Checks shared with the other kinds' decision tests.
_shared = runpy.run_path(str(Path(__file__).parents[1] / "_decisions.py"))
by_task = _shared["by_task"]
assert_explain_changes_nothing = _shared["assert_explain_changes_nothing"]

POLICIES = ("fcfs", "local", "internode-can", "internode-2nn", "internode-can+qb",
            "internode-2nn+qb")
SCHEDULERS = {
    "fcfs": FcfsBackfill(), "local": PreemptiveBackfill(),
    "internode-can": PreemptiveBackfill(overlay="can"),
    "internode-2nn": PreemptiveBackfill(overlay="2nn"),
    "internode-can+qb": PreemptiveBackfill(overlay="can", balance=True),
    "internode-2nn+qb": PreemptiveBackfill(overlay="2nn", balance=True),
}


@pytest.fixture(scope="module")
def helpers(load_sibling):
    return load_sibling(Path(__file__).parent / "grid" / "_helpers.py", "grid_helpers")


def check_consistent(tasks: dict, summary: dict, migration_log: dict,
                     decisions: list[dict]) -> None:
    """What every explained grid run must satisfy against its job table and counters."""
    assert all(a["t"] <= b["t"] for a, b in zip(decisions, decisions[1:], strict=False))
    stories = by_task(decisions)
    assert sorted(stories) == list(tasks["id"])
    for i, j in enumerate(tasks["id"]):
        story = stories[j]
        acts = [d["action"] for d in story]
        # Every job starts once plus once per suspension, and its last word is its completion.
        assert acts[-1] == "completed" and acts.count("completed") == 1
        assert story[-1]["t"] == tasks["end"][i] and story[-1]["wait_s"] == tasks["wait_s"][i]
        starts = [d for d in story if d["action"] in STARTS]
        assert len(starts) == 1 + tasks["preemptions"][i]
        assert starts[0]["action"] != "resumed" and starts[0]["t"] == tasks["start"][i]
        assert all(d["action"] == "resumed" for d in starts[1:])
        assert starts[-1]["where"] == f"node {tasks['node'][i]}"
        assert acts.count("preempted") == tasks["preemptions"][i]
        # Every move is a decision of its own, moves of one kind in a row (queue balancing)
        # too: never counted on the one before (docs/grid.md)
        assert acts.count("migrated") == tasks["migrations"][i]
        if acts[0] == "held":  # it did not fit where matchmaking sent it, or a suspension
            h = story[0]  # there just freed room that the node's next run will use
            assert h["t"] == tasks["submit"][i]
            fits = (h["cores"] <= h["free_cores"] and h["mem_mib"] <= h["free_mem_mib"]
                    and h["disk_mib"] <= h["free_disk_mib"])
            assert fits == ("suspension" in h["reason"])
            if fits:
                assert any(d["action"] == "preempted" and (d["t"], d["where"]) == (h["t"],
                           h["where"]) for d in decisions)
    every = [d["action"] for d in decisions]
    assert every.count("preempted") == summary["preemptions"]
    moved = [d for d in decisions if d["action"] == "migrated"]
    assert len(moved) == summary["migrations"] and not any("count" in d for d in moved)
    for kind, key in zip(KINDS, ("pushes", "pulls", "balance_moves"), strict=True):
        assert sum(d["kind"] == kind for d in moved) == summary[key]
    logged = set(zip(migration_log["t"], migration_log["job"], migration_log["from"],
                     migration_log["to"], migration_log["kind"], strict=True))
    for d in moved:  # each as the grid's migration log has it
        assert (d["t"], d["task"], d["from_node"], d["to_node"], d["kind"]) in logged
    last: dict = {}
    for n, d in enumerate(decisions):
        if d["action"] == "backfilled":  # it passed a job that was waiting there
            assert d["passed"] != d["task"] and last.get(d["passed"]) not in STARTS
        if d["action"] == "preempted":  # by a higher-priority job that starts there now
            assert d["priority"] < d["by_priority"]
            start = next(x for x in decisions[n:] if x["task"] == d["by"])
            assert start["action"] in STARTS and (start["t"], start["where"]) == (d["t"],
                                                                                  d["where"])
        if d["action"] == "migrated" and "runner_up_f" in d:
            assert d.get("f_push", d.get("f_pull")) <= d["runner_up_f"]
        if "runner_up_load" in d:
            assert d["matched_load"] <= d["runner_up_load"]
        last[d["task"]] = d["action"]


@pytest.fixture(scope="module")
def small():
    return preset_scenario("grid-small")


@pytest.mark.parametrize("policy", POLICIES)
def test_decisions_agree_with_the_job_table_and_counters(small, policy):
    r = simulate(small, policy, seed=1, explain=True)
    assert r.meta["decisions"]["omitted"] == 0 and r.meta["decisions"]["time_unit"] == "s"
    check_consistent(r.tasks, r.summary, r.extra["migration_log"], r.decisions)
    if policy.startswith("internode"):
        assert r.summary["migrations"] > 0  # the check above had moves to check


def test_explain_off_leaves_the_result_unchanged(small):
    assert_explain_changes_nothing(simulate, small, "internode-can+qb", 4)


def explained(wl, scheduler, nbrs=None, stories: bool = True):
    sim = GridSim(wl, scheduler, Options(), 0, neighbours=nbrs)
    sim.decisions = DecisionLog()
    sim.run()
    decisions = sim.decisions.export()[0]
    return by_task(decisions) if stories else decisions


def test_hand_worked_fcfs_backfill(helpers):
    """One 4-core node. Job 0 (3 cores, 100 s) starts at 0; job 1 (2 cores) waits at 10 s with 1
    core free; job 2 (1 core, 30 s) backfills past it at 20 s and ends at 50 s; job 1 starts
    when job 0 ends at 100 s, having waited 90 s."""
    wl = helpers.workload([(4, 1.0, 8, 8)], [(0, 100, 3, 1, 1, 0), (10, 50, 2, 1, 1, 0),
                                              (20, 30, 1, 1, 1, 0)])
    s = explained(wl, FcfsBackfill())
    assert [(d["t"], d["action"]) for d in s[0]] == [(0, "mapped"), (100, "completed")]
    assert s[0][0]["reason"] == "fits the node's free resources, in arrival order"
    assert (s[0][0]["where"], s[0][0]["free_cores"]) == ("node 0", 4)
    assert s[0][0]["matched_load"] == 0 and "runner_up_node" not in s[0][0]
    assert [(d["t"], d["action"]) for d in s[1]] == [(10, "held"), (100, "mapped"),
                                                      (150, "completed")]
    assert s[1][0]["reason"] == "queued where matchmaking sent it: too few free resources"
    assert (s[1][0]["cores"], s[1][0]["free_cores"], s[1][0]["queued"]) == (2, 1, 1)
    assert s[1][2]["wait_s"] == 90
    assert [(d["t"], d["action"]) for d in s[2]] == [(20, "backfilled"), (50, "completed")]
    assert (s[2][0]["passed"], s[2][0]["passed_cores"], s[2][0]["free_cores"]) == (1, 2, 1)


def test_hand_worked_preemption(helpers):
    """Priority -T_rem (alpha 0, beta 1). Job 0 (4 cores, 100 s) runs from 0; job 1 (4 cores,
    10 s) arrives at 10 s with priority -10 against job 0's -90: job 0 is suspended, job 1
    runs to 20 s, job 0 resumes then and ends at 110 s."""
    wl = helpers.workload([(4, 1.0, 8, 8)], [(0, 100, 4, 1, 1, 0), (10, 10, 4, 1, 1, 0)])
    s = explained(wl, PreemptiveBackfill())
    assert [(d["t"], d["action"]) for d in s[0]] == [
        (0, "mapped"), (10, "preempted"), (20, "resumed"), (110, "completed")]
    pre = s[0][1]
    assert (pre["by"], pre["priority"], pre["by_priority"], pre["where"]) == (1, -90, -10,
                                                                              "node 0")
    assert s[0][3]["preemptions"] == 1
    assert [(d["t"], d["action"]) for d in s[1]] == [(10, "mapped"), (20, "completed")]
    assert s[1][0]["reason"] == ("outranks lower-priority running jobs: suspended enough of "
                                 "them to fit")
    assert (s[1][0]["victims"], s[1][0]["freed_cores"], s[1][0]["priority"]) == (1, 4, -10)


def push_case(helpers):
    return helpers.workload([(4, 1.0, 4, 4), (4, 1.0, 4, 4)],
                            [(0, 100, 4, 1, 1, 0), (1, 100, 4, 1, 1, 0)], candidates=[[0], [0]])


def test_hand_worked_push(helpers):
    """Two 4-core neighbours; matchmaking may only pick node 0. Job 1 arrives at 1 s behind job
    0 and cannot preempt it (-100 against -99); at the first tick (5 s) node 0 pushes it to
    node 1, where it fits: f_PUSH = BM x FM / speed with a = (1, 1/4, 1/4): (1 / 1.5) x (1 -
    1.5 / 3) = 1/3."""
    s = explained(push_case(helpers), PreemptiveBackfill(overlay="2nn"), nbrs=[(1,), (0,)])
    assert [(d["t"], d["action"]) for d in s[1]] == [
        (1, "held"), (5, "migrated"), (5, "mapped"), (105, "completed")]
    held, moved, started = s[1][:3]
    assert held["where"] == "node 0" and held["free_cores"] == 0
    assert (moved["from_node"], moved["to_node"], moved["kind"]) == (0, 1, "push")
    assert moved["f_push"] == pytest.approx(1 / 3) and moved["neighbours_able"] == 1
    assert "runner_up_node" not in moved
    assert started["where"] == "node 1" and started["reason"].startswith("started at once")
    assert s[1][3]["migrations"] == 1 and s[1][3]["wait_s"] == 0


def test_local_and_internode_part_at_the_push(helpers):
    """The push grid under local scheduling and under 2-NN: both start job 0 at 0; they part at
    the first tick (5 s), where 2-NN moves job 1 and starts it while local leaves it held."""
    runs = [{"meta": {"scenario": "push", "seed": 0, "policy": name},
             "decisions": explained(push_case(helpers), sched, nbrs, stories=False)}
            for name, sched, nbrs in (("local", PreemptiveBackfill(), None),
                                      ("internode-2nn", PreemptiveBackfill(overlay="2nn"),
                                       [(1,), (0,)]))]
    found = divergence(*runs)
    first = found["first"]
    assert first["t"] == 5 and first["only_a"] == []
    assert [(d["task"], d["action"]) for d in first["only_b"]] == [(1, "migrated"),
                                                                   (1, "mapped")]
    assert [(d["t"], d["action"]) for d in first["why_not"]["a"]] == [(1, "held")]
    assert found["tasks"][0]["task"] == 1 and found["tasks"][0]["a"]["t"] == 200


grids = st.fixed_dictionaries({
    "nodes": st.fixed_dictionaries({"n_nodes": st.integers(2, 10)}),
    "jobs": st.fixed_dictionaries({
        "n_jobs": st.integers(1, 50), "iat_s": st.sampled_from([20.0, 60.0, 150.0]),
        "run_mean_s": st.sampled_from([300.0, 1000.0])}),
    "scheduler": st.fixed_dictionaries({
        "alpha": st.sampled_from([0.0, 0.5, 3.0]), "delta_s": st.sampled_from([5.0, 30.0]),
        "victims": st.sampled_from(["exact", "greedy"]),
        "migrate_suspended": st.booleans(),
        "migrated_start": st.sampled_from(["now", "next-tick"])}),
    "report": st.just({"omit_lowest": 0, "tail_jobs": 1}),
})


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(grids, st.sampled_from(POLICIES), st.integers(0, 2**20))
def test_random_grids_explain_consistently(params, name, seed):
    cfg = scenario("grid", params).params
    wl = generate(cfg, seed)
    sched = SCHEDULERS[name]
    sim = GridSim(wl, sched, options(cfg), seed, neighbours=neighbours(sched, wl, seed))
    sim.decisions = DecisionLog(per_task=10_000, limit=10**7)
    sim.run()
    r = build_result(sim, cfg, wl, neighbours(sched, wl, seed), RunClock())
    check_consistent(r.tasks, r.summary, r.extra["migration_log"], sim.decisions.export()[0])
