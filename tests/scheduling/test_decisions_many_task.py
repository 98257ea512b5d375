"""The decision trace of kind ``many-task``: the decisions agree with the result (every task
starts once per execution and completes once, kills equal the restarts and the chops, no worker
runs two tasks at once, longest-first hands tasks out longest first), a hand-worked chop, and
explain off changes nothing."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import get_policy, preset_scenario, scenario, simulate
from scheduling.many_task import run
from scheduling.many_task.decisions import CHOPPED, COMPLETED, ORDER_REASONS, REQUEUED
from simcore.clock import RunClock
from simcore.decisions import ACTIONS, STARTS, DecisionLog
from simcore.explain import divergence
from simcore.registry import RunContext

POLICIES = ("random", "sorted", "random+chop", "sorted+chop")


@pytest.fixture(scope="module")
def small():
    return preset_scenario("many-task-small", {"tradeoff.ratios": []})


@pytest.fixture(scope="module")
def runs(small):
    return {p: simulate(small, p, seed=2, explain=True) for p in POLICIES}


def check_consistent(res, policy):
    tasks, parts, s = res.tasks, res.events, res.summary
    assert res.meta["decisions"]["time_unit"] == "s"
    assert res.meta["decisions"]["stride"] == 1
    stories: dict = {}
    for d in res.decisions:
        assert d["action"] in ACTIONS
        json.dumps(d, allow_nan=False)
        stories.setdefault(d["task"], []).append(d)
    assert sorted(stories) == list(tasks["id"])
    busy: dict = {}  # (partition, worker) -> executions (start, end)
    killed_at = set()
    for i in tasks["id"]:
        story = stories[i]
        actions = [d["action"] for d in story]
        restarts = tasks["restarts"][i]
        assert actions == ["mapped", "killed"] * restarts + ["mapped", "completed"]
        for start, stop in zip(story[::2], story[1::2], strict=True):
            assert start["action"] in STARTS and start["runtime_s"] == tasks["runtime_s"][i]
            row = start["where"] - 1
            assert parts["ready_s"][row] <= start["t"] < parts["release_s"][row] + 1e-9
            assert 0 <= start["worker"] < parts["workers"][row]
            assert start["reason"] == (REQUEUED if row else ORDER_REASONS[policy.split("+")[0]])
            busy.setdefault((row, start["worker"]), []).append((start["t"], stop["t"]))
            if stop["action"] == "killed":
                assert stop["reason"] == CHOPPED and stop["where"] == start["where"]
                assert stop["t"] == parts["release_s"][row] and parts["chopped"][row]
                assert stop["elapsed_s"] == pytest.approx(stop["t"] - start["t"])
                assert 0 <= stop["elapsed_s"] < stop["runtime_s"]
                assert stop["idle_fraction"] > stop["f"] == s["f"]
                assert stop["idle"] == parts["workers"][row] - parts["cancelled"][row]
                assert stop["next_workers"] == parts["workers"][row + 1] < stop["workers"]
                killed_at.add(stop["t"])
            else:
                assert stop["reason"] == COMPLETED
        assert story[-2]["t"] == tasks["start_s"][i] and story[-1]["t"] == tasks["end_s"][i]
    kills = [d for d in res.decisions if d["action"] == "killed"]
    assert len(kills) == s["restarts"] and len(killed_at) == s["chops"]
    for runs_on in busy.values():  # a worker runs one task at a time
        runs_on.sort()
        for (_, end), (start, _) in zip(runs_on, runs_on[1:], strict=False):
            assert start >= end - 1e-9
    if policy.startswith("sorted"):  # the first partition hands tasks out longest first
        first = sorted((d["position"], d["runtime_s"]) for d in res.decisions
                       if d["action"] == "mapped" and d["where"] == 1)
        runtimes = [r for _, r in first]
        assert runtimes == sorted(runtimes, reverse=True)


@pytest.mark.parametrize("policy", POLICIES)
def test_decisions_agree_with_the_result(runs, policy):
    check_consistent(runs[policy], policy)
    assert (runs[policy].summary["chops"] > 0) == policy.endswith("+chop")


@pytest.mark.parametrize("policy", ["random", "sorted+chop"])
def test_explain_off_leaves_the_result_unchanged(small, runs, policy):
    plain = simulate(small, policy, seed=2)
    assert plain.decisions is None
    told = json.loads(runs[policy].to_json())
    del told["decisions"], told["meta"]["decisions"]
    assert json.dumps(told, sort_keys=True) == json.dumps(json.loads(plain.to_json()),
                                                          sort_keys=True)


def tiny(values, **chop):
    return scenario("many-task", {
        "workload": {"source": "list", "values": values},
        "machine": {"partitions": [1, 2, 4], "startup_s": 10.0, "teardown_s": 0.0},
        "chop": chop})


def test_hand_worked_chop():
    """Run times 1, 4, 2, 9 s longest first on 2 workers (4 tasks / 2 >= r = 2), ready at
    10 s. Worker 0 runs task 3 (9 s); worker 1 runs 1, 2, 0, ending at 17 s. Then 1 of 2
    workers idles, 0.5 > f = 0.4 and one task left asks for 1 worker: the partition is
    cancelled after 7 s of task 3's 9, and task 3 restarts at 27 s (1 worker ready 10 s after
    the chop), ending at 36 s."""
    res = simulate(tiny([1.0, 4.0, 2.0, 9.0], r=2.0, f=0.4), "sorted+chop", seed=0,
                   explain=True)
    first = ORDER_REASONS["sorted"]

    def mapped(t, task, where, worker, position, runtime, reason=first):
        return {"t": t, "task": task, "action": "mapped", "reason": reason, "where": where,
                "worker": worker, "position": position, "runtime_s": runtime}

    def completed(t, task, where, worker):
        return {"t": t, "task": task, "action": "completed", "reason": COMPLETED,
                "where": where, "worker": worker}

    assert res.decisions == [
        mapped(10.0, 3, 1, 0, 0, 9.0), mapped(10.0, 1, 1, 1, 1, 4.0),
        completed(14.0, 1, 1, 1), mapped(14.0, 2, 1, 1, 2, 2.0),
        completed(16.0, 2, 1, 1), mapped(16.0, 0, 1, 1, 3, 1.0),
        completed(17.0, 0, 1, 1),
        {"t": 17.0, "task": 3, "action": "killed", "reason": CHOPPED, "elapsed_s": 7.0,
         "runtime_s": 9.0, "where": 1, "workers": 2, "idle": 1, "idle_fraction": 0.5,
         "f": 0.4, "next_workers": 1},
        mapped(27.0, 3, 2, 0, 0, 9.0, REQUEUED), completed(36.0, 3, 2, 0),
    ]
    assert (res.summary["restarts"], res.summary["chops"], res.summary["tts_s"]) == (1, 1, 36.0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.integers(1, 30), min_size=1, max_size=40),
       policy=st.sampled_from(POLICIES), r=st.sampled_from([1.0, 2.0, 3.0]),
       f=st.sampled_from([0.1, 0.3, 0.6]), seed=st.integers(0, 1000))
def test_random_small_bags_stay_consistent(values, policy, r, f, seed):
    res = simulate(tiny([float(v) for v in values], r=r, f=f), policy, seed=seed, explain=True)
    check_consistent(res, policy)


@pytest.mark.parametrize("policy", ["random+chop", "sorted"])
def test_sampling_first_keeps_what_the_log_would_keep(small, policy):
    """A bag too big for the log: the tasks sampled before recording are the ones the log
    keeps when it is handed every decision and thins itself."""
    whole = simulate(small, policy, seed=2, explain=True)
    assert whole.meta["decisions"]["stride"] == 1  # every decision of the run
    thinned = DecisionLog(limit=1000)
    for d in whole.decisions:
        numbers = {k: v for k, v in d.items() if k not in ("t", "task", "action", "reason")}
        thinned.add(d["t"], d["task"], d["action"], d["reason"], **numbers)
    # The kind itself: Engine.simulate takes an empty log for "explain off" (it is falsy).
    log = DecisionLog(limit=1000)
    run(small.params, get_policy("many-task", policy), 2, RunContext(RunClock(), None, log))
    want, info = thinned.export()
    assert info["stride"] > 1 and 0 < len(want) <= 1000
    assert log.export() == (want, info)


def test_with_and_without_chopping_part_at_the_chop():
    """The hand-worked bag longest first, with and without tail-chopping: the two runs agree
    up to 17 s, where only the chopping one cancels task 3 (the other lets it finish at 19 s);
    task 3's fate differs most (completed at 36 s against 19 s)."""
    sc = tiny([1.0, 4.0, 2.0, 9.0], r=2.0, f=0.4)
    a, b = (json.loads(simulate(sc, p, seed=0, explain=True).to_json())
            for p in ("sorted+chop", "sorted"))
    found = divergence(a, b)
    first = found["first"]
    assert first["t"] == 17.0 and first["only_b"] == []
    assert [(d["task"], d["action"]) for d in first["only_a"]] == [(3, "killed")]
    assert [(d["t"], d["action"]) for d in first["why_not"]["b"]] == [(10.0, "mapped")]
    assert found["differing_tasks"] == 1
    row = found["tasks"][0]
    assert (row["task"], row["a"]["t"], row["b"]["t"], row["gap"]) == (3, 36.0, 19.0, 17.0)
