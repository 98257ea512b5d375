"""The swf-preemptive kind through the engine contract: registry, presets, result, determinism,
periodic iterations, validation, progress, the command line."""

import json
import subprocess
import sys

import numpy as np
import pytest

from scheduling.engine import ENGINE, RunCancelled, list_policies, preset_scenario, simulate
from scheduling.hpc import traces
from scheduling.swf_preemptive import PreemptiveConfig, simulate_trace
from scheduling.swf_preemptive.policies import POLICIES
from simcore.cli import main
from simcore.errors import ScenarioError
from simcore.params import describe

KIND = "swf-preemptive"
REPO = traces.LIBRARY_DIR.parents[1]


def test_policies_presets_and_parameters_are_registered():
    assert [p.name for p in list_policies(KIND)] == [
        "first-fit", "random", "duration-consumed", "duration-remaining", "wcduration",
        "wcduration-percentresusage", "scaled-remaining", "min-work"]
    assert {p.name for p in ENGINE.list_presets(KIND)} >= {"pbb-surrogate", "pbb-mix-a",
                                                            "pbb-mix-b", "pbb-small"}
    names = {d["name"] for d in describe(PreemptiveConfig)}
    # Every spec default is a parameter, next to the replay's trace parameters.
    assert {"trace", "nodes", "max_procs", "target_load", "limit_model", "user_tendency",
            "classes", "high_share", "within_class", "preemption", "preemptible",
            "relaxed_scope", "history_filter", "history_rho", "resusage", "iteration_s"} <= names


@pytest.mark.parametrize("preset", ["pbb-small", "pbb-mix-b"])
def test_result_contract(preset):
    result = simulate(preset_scenario(preset), "duration-remaining", seed=2)
    s = result.summary
    assert s["jobs_total"] == 500 if preset == "pbb-small" else 10_000
    for key in ("xf_mean", "queue_time_mean_s", "preemptions", "jobs_preempted",
                "node_hours_wasted", "utilization", "utilization_busy", "makespan_s"):
        assert isinstance(s[key], (int, float)), key
    for b in (1, 2, 4, 8, 16, 32):  # spec section 5 size classes
        assert f"xf_mean_p{b}" in s and f"queue_time_mean_s_p{b}" in s
    assert sum(s[f"jobs_p{b}"] for b in (1, 2, 4, 8, 16, 32)) == s["jobs_completed"]
    tasks = result.tasks
    assert {"job_id", "submit", "start", "end", "wait", "xf", "class", "kills",
            "start_mode"} <= set(tasks)
    assert np.allclose(np.asarray(tasks["xf"]), (np.asarray(tasks["wait"]) + np.maximum(
        tasks["run"], 1)) / np.maximum(tasks["run"], 1))
    assert s["xf_mean"] == pytest.approx(np.mean(tasks["xf"]))
    # Kills: one event each, the wasted node-hours are theirs, and the per-job counts agree.
    ev = result.events
    assert len(ev["t"]) == s["preemptions"] == int(np.sum(tasks["kills"]))
    assert s["node_hours_wasted"] == pytest.approx(float(np.sum(ev["node_hours"])))
    assert sum(result.series["kills"]) == s["preemptions"]
    assert s["utilization_busy"] > s["utilization"] or s["preemptions"] == 0
    if preset == "pbb-mix-b":
        assert s["preemptions"] > 0
        assert s["jobs_high"] + s["jobs_low"] == s["jobs_completed"]
        assert s["xf_mean_high"] < s["xf_mean_low"]
        assert set(tasks["class"]) == {"high", "low"}


def test_seeds_matter_and_runs_repeat_exactly():
    scenario = preset_scenario("pbb-small")
    a = simulate(scenario, "random", seed=1)
    assert simulate(scenario, "random", seed=1).to_json() == a.to_json()
    b = simulate(scenario, "random", seed=2)
    assert not np.array_equal(a.tasks["estimate"], b.tasks["estimate"])  # drawn per seed
    # Every policy sees the same workload for a seed (common random numbers).
    c = simulate(scenario, "first-fit", seed=1)
    assert np.array_equal(c.tasks["estimate"], a.tasks["estimate"])
    assert np.array_equal(c.tasks["submit"], a.tasks["submit"])


@pytest.mark.parametrize("policy", [name for name, *_ in POLICIES])
@pytest.mark.parametrize("classes", ["none", "mix-a", "mix-b"])
def test_periodic_iterations_change_nothing_on_the_small_preset(policy, classes):
    """With check=True every 60 s iteration runs (and raises if it starts or kills anything),
    every event runs a full iteration, and the spec's invariants are asserted as it goes."""
    config = preset_scenario("pbb-small", {"classes": classes}).params
    info = ENGINE.get_policy(KIND, policy)
    trace = traces.TraceLibrary().load(config.trace)
    fast = simulate_trace(trace, config, info.factory, seed=5)
    checked = simulate_trace(trace, config, info.factory, seed=5, check=True, fast=False)
    assert np.array_equal(checked.tasks["start"], fast.tasks["start"])
    assert np.array_equal(checked.events["job_id"], fast.events["job_id"])


def test_bad_parameters_name_the_field():
    with pytest.raises(ScenarioError, match="classes"):
        preset_scenario("pbb-small", {"classes": "mix-c"})
    with pytest.raises(ScenarioError, match="user_tendency"):
        preset_scenario("pbb-small", {"user_tendency": 1.5})
    with pytest.raises(ScenarioError, match="trace"):
        preset_scenario("pbb-small", {"trace": "/etc/passwd"})
    with pytest.raises(ScenarioError, match="policy"):
        simulate(preset_scenario("pbb-small"), "easy")


def test_progress_is_reported_and_cancellation_propagates():
    seen = []
    simulate(preset_scenario("pbb-small"), "random", progress=seen.append)
    assert seen[-1] == 1.0 and seen == sorted(seen) and len(seen) > 10

    def cancel(fraction):
        if fraction > 0.3:
            raise RunCancelled("stop")

    with pytest.raises(RunCancelled):
        simulate(preset_scenario("pbb-small"), "random", progress=cancel)


def pbb_cli(*args):
    return main(ENGINE, ["pbb", *map(str, args)], prog="test")


def test_cli_replays_any_trace_file(tmp_path, capsys):
    out = tmp_path / "r.json"
    small = traces.LIBRARY_DIR / "lublin_256_small.swf"
    assert pbb_cli("--trace", small, "--policy", "duration-consumed", "--seed", 3,
                   "--set", "classes=mix-a", "--out", out) == 0
    data = json.loads(out.read_text())
    assert data["meta"]["policy"] == "duration-consumed" and data["meta"]["seed"] == 3
    assert data["meta"]["scenario"]["params"]["classes"] == "mix-a"
    assert data["meta"]["scenario"]["params"]["trace"] == str(small)
    assert data["summary"]["jobs_total"] == 500 and "xf_mean_high" in data["summary"]
    printed = capsys.readouterr()
    assert "xf_mean" in printed.out and "preemptions" in printed.err
    # The same run through the engine gives the same schedule (the CLI adds nothing).
    same = simulate(preset_scenario("pbb-small", {"classes": "mix-a"}), "duration-consumed", 3)
    assert data["tasks"]["start"] == json.loads(same.to_json())["tasks"]["start"]


def test_cli_errors_exit_2(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert pbb_cli("--trace", "lublin_256_small", "--policy", "nope", "--out", out) == 2
    assert "policy" in capsys.readouterr().err
    assert pbb_cli("--trace", tmp_path / "missing.swf", "--policy", "random", "--out", out) == 2
    bad = tmp_path / "bad.swf"
    bad.write_text("1 0 -1 10 1\n")
    assert pbb_cli("--trace", bad, "--policy", "random", "--out", out) == 2
    assert "bad.swf" in capsys.readouterr().err or not out.exists()
    assert pbb_cli("--trace", "lublin_256_small", "--policy", "random", "--set",
                   "high_share=2", "--out", out) == 2
    assert not out.exists()


def test_shared_run_command_in_a_fresh_process(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "scheduling.engine", "run", "--preset",
                           "pbb-small", "--policy", "wcduration", "--seed", "1", "--set",
                           "classes=mix-b", "--out", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["summary"]["jobs_high"] > 0
