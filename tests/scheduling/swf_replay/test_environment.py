"""The swf-replay environment through the engine contract: simulate, presets, result."""

import json

import numpy as np
import pytest

from scheduling.engine import ENGINE, RunCancelled, list_policies, preset_scenario, simulate
from scheduling.hpc.replay_metrics import step_average
from scheduling.swf_replay import ReplayConfig
from simcore.errors import ScenarioError
from simcore.params import describe

KIND = "swf-replay"
SUMMARY = {"jobs_total", "jobs_completed", "jobs_rejected", "jobs_dropped_status",
           "wait_mean_s", "wait_max_s", "response_mean_s", "response_max_s", "bsld_mean",
           "bsld_max", "utilization", "makespan_s", "queue_mean", "queue_max"}
TASKS = {"job_id", "submit", "start", "end", "procs", "nodes", "wait", "bsld"}
SERIES = {"t_min", "queue", "running_jobs", "busy_nodes", "utilization"}


def test_policies_and_presets_are_registered():
    assert [p.name for p in list_policies(KIND)] == ["fcfs", "easy", "conservative"]
    assert {p.name for p in ENGINE.list_presets(KIND)} >= {"swf-small", "lublin-256"}
    names = {d["name"] for d in describe(ReplayConfig)}
    assert {"trace", "nodes", "cores_per_node", "estimate_scale", "keep_failed",
            "bsld_tau"} <= names


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_result_contract_and_determinism(policy):
    scenario = preset_scenario("swf-small")
    result = simulate(scenario, policy, seed=3)
    assert set(result.summary) >= SUMMARY
    assert set(result.tasks) >= TASKS
    assert set(result.series) >= SERIES
    lengths = {len(v) for v in result.series.values()}
    assert len(lengths) == 1
    assert result.extra["nodes"] == 256 and result.extra["cores_per_node"] == 1
    assert result.extra["header"]["MaxNodes"] == "256"
    assert result.meta["kind"] == KIND and result.meta["policy"] == policy
    again = simulate(scenario, policy, seed=4)  # a replay has no randomness
    assert json.loads(result.to_json())["tasks"] == json.loads(again.to_json())["tasks"]
    assert simulate(scenario, policy, seed=3).to_json() == result.to_json()
    assert len(result.timing["event_ms"]) == result.timing["events"]


def test_series_agree_with_the_summary():
    result = simulate(preset_scenario("swf-small"), "easy")
    s, series = result.summary, result.series
    width = result.extra["series_bin_min"] * 60.0
    busy_node_s = float(np.sum(series["busy_nodes"]) * width)
    work = float(np.sum(result.tasks["nodes"] * (result.tasks["end"] - result.tasks["start"])))
    assert busy_node_s == pytest.approx(work, rel=1e-9)
    assert s["utilization"] == pytest.approx(work / (256 * s["makespan_s"]))
    assert max(series["queue"]) <= s["queue_max"]


def test_long_traces_are_downsampled():
    result = simulate(preset_scenario("swf-small", {"series_points": 100}), "fcfs")
    assert len(result.series["t_min"]) <= 100
    assert result.extra["series_bin_min"] > 1
    assert np.all(np.diff(result.series["t_min"]) == result.extra["series_bin_min"])


def test_step_average_matches_a_direct_integral():
    times, values = [0.0, 1.0, 1.0, 4.0], [2.0, 5.0, 3.0, 1.0]
    edges = [-1.0, 0.5, 2.0, 6.0]
    got = step_average(times, values, edges)
    # [-1, 0.5): 0 for 1 s then 2 for 0.5 s; [0.5, 2): 2 for .5, 3 for 1; [2, 6): 3 for 2, 1 for 2
    assert got.tolist() == pytest.approx([1.0 / 1.5, 4.0 / 1.5, 8.0 / 4.0])


def test_progress_is_reported_and_cancellation_propagates():
    seen = []
    simulate(preset_scenario("swf-small"), "conservative", progress=seen.append)
    assert seen[-1] == 1.0 and seen == sorted(seen) and len(seen) > 10

    def cancel(fraction):
        if fraction > 0.3:
            raise RunCancelled()
    with pytest.raises(RunCancelled):
        simulate(preset_scenario("swf-small"), "easy", progress=cancel)


@pytest.mark.parametrize("params, field", [
    ({"nodes": 0}, "nodes"), ({"estimate_scale": 0.5}, "estimate_scale"),
    ({"cores_per_node": 0}, "cores_per_node"), ({"bsld_tau": 0}, "bsld_tau"),
    ({"trace": "nope"}, "trace"), ({"speed": 2}, "speed"),
])
def test_bad_parameters(params, field):
    with pytest.raises(ScenarioError) as err:
        simulate({"kind": KIND, "params": params}, "easy")
    assert err.value.field == field


def test_unknown_policy():
    with pytest.raises(ScenarioError) as err:
        simulate(preset_scenario("swf-small"), "sjf")
    assert err.value.field == "policy"
