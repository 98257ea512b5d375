"""swf-replay's decisions (``--explain``): consistent with the schedule it produced, worked
out by hand on a tiny trace, and absent (the result unchanged) when not asked for."""

import json
import subprocess
import sys

import pytest

from scheduling.engine import ENGINE
from scheduling.swf_replay.policies.conservative import Conservative
from scheduling.swf_replay.policies.easy import Easy
from scheduling.swf_replay.policies.fcfs import Fcfs
from scheduling.swf_replay.sim import Replay
from simcore import explain
from simcore.decisions import STARTS, DecisionLog

POLICIES = {"fcfs": Fcfs, "easy": Easy, "conservative": Conservative}


def explained(cls, jobs):
    sim = cls(jobs, check=True)
    sim.decisions = DecisionLog(limit=10_000)
    sim.run()
    return sim, sim.decisions.export()[0]


# 4 nodes (rows: submit, run, estimate, nodes). Job 1 runs 3 nodes for 10 s; job 2 needs all
# 4 and waits for it; job 3 (1 node, 5 s) arrives at 2 and ends by job 2's start at 10.
TINY = [(0, 10, 10, 3), (1, 20, 20, 4), (2, 5, 5, 1)]


def test_easy_backfills_the_short_job_past_the_head_reservation(jobs_from):
    _, ds = explained(Easy, jobs_from(TINY, 4))
    moves = [(x["t"], x["task"], x["action"]) for x in ds if x["action"] != "completed"]
    assert moves == [(0, 1, "mapped"), (1, 2, "held"), (2, 3, "backfilled"), (10, 2, "mapped")]
    held, backfill = ds[1], ds[2]
    assert held["shadow_s"] == 10 and held["free"] == 1 and held["nodes"] == 4
    assert backfill["reservation_of"] == 2 and backfill["shadow_s"] == 10
    assert backfill["end_estimate_s"] == 7 and "ends by the head's shadow time" in backfill[
        "reason"]


def test_fcfs_holds_the_short_job_behind_the_head(jobs_from):
    _, ds = explained(Fcfs, jobs_from(TINY, 4))
    three = explain.story(ds, 3)
    assert [x["action"] for x in three] == ["held", "mapped", "completed"]
    assert three[0]["head"] == 2 and "no backfilling" in three[0]["reason"]
    # job 2 takes all 4 nodes from 10 to 30: job 3, behind it, starts when it ends
    assert explain.story(ds, 2)[-2]["t"] == 10 and three[1]["t"] == 30


class PluginFcfs(Fcfs):
    """A plugin's way in (docs/plugins.md): its own reasons through ``self.explain``, and the
    replay's own ``explain_waiting``, which the built-in policies no longer reach."""

    name = "plugin-fcfs"

    def schedule(self, t, completed, first_new):
        for j in range(first_new, self.arrived):
            if self.noted is not None and self.noted[j]:
                self.explain(t, j, "held", "seen by the plugin", queued=self.arrived - j)
        super().schedule(t, completed, first_new)

    explain_waiting = Replay.explain_waiting


def test_a_plugin_records_its_own_reasons_by_swf_job_number(jobs_from):
    _, ds = explained(PluginFcfs, jobs_from(TINY, 4))
    seen = [(d["t"], d["task"], d["queued"]) for d in explain.of_actions(ds, ["held"])
            if d["reason"] == "seen by the plugin"]
    assert seen == [(0, 1, 1), (1, 2, 1), (2, 3, 1)]
    two = [d for d in explain.story(ds, 2) if d["reason"] == "too few free nodes"]
    assert [(d["t"], d["nodes"], d["free"]) for d in two] == [(1, 4, 1)]
    assert [d["t"] for d in explain.of_actions(ds, ["mapped"])] == [0, 10, 30]


def test_conservative_backfill_names_the_reservation_it_passes(jobs_from):
    _, ds = explained(Conservative, jobs_from(TINY, 4))
    backfill = explain.of_actions(ds, ["backfilled"])
    assert [(x["task"], x["t"], x["reservation_of"], x["reservation_s"]) for x in backfill] == [
        (3, 2, 2, 10)]


@pytest.mark.parametrize("policy", POLICIES)
def test_decisions_agree_with_the_schedule(policy):
    scenario = ENGINE.preset_scenario("swf-small")
    result = ENGINE.simulate(scenario, policy, explain=DecisionLog(limit=100_000))
    tasks = result.tasks
    ds = result.decisions
    assert result.meta["decisions"]["stride"] == 1  # nothing sampled: every job is checked
    start_of = {j: s for j, s in zip(tasks["job_id"], tasks["start"], strict=True)}
    end_of = {j: e for j, e in zip(tasks["job_id"], tasks["end"], strict=True)}
    starts = [x for x in ds if x["action"] in STARTS]
    # one start decision per job, at the time the schedule started it
    assert sorted(x["task"] for x in starts) == sorted(start_of)
    assert all(x["t"] == start_of[x["task"]] for x in starts)
    assert all(x["t"] == end_of[x["task"]] for x in ds if x["action"] == "completed")
    backfills = [x for x in starts if x["action"] == "backfilled"]
    if policy == "fcfs":
        assert not backfills
    else:  # a backfill passes a job still waiting, whose reservation exists and is later
        assert backfills
        for x in backfills:
            assert start_of[x["reservation_of"]] >= x["t"]
            assert x.get("shadow_s", x.get("reservation_s")) > x["t"]
    # a held job is one that did not start when it was held
    assert all(start_of[x["task"]] > x["t"] for x in ds if x["action"] == "held")


@pytest.mark.parametrize("policy", POLICIES)
def test_every_job_dropped_at_load_has_a_drop_with_its_reason(policy):
    """swf-example (docs/replay.md) drops job 7 (cancelled) and job 9 (failed) for their status
    and rejects job 8 (16 nodes on 8): each has one ``dropped`` decision at its submit time,
    saying why in the terms of its class; the log stays in time order."""
    result = ENGINE.simulate(ENGINE.preset_scenario("swf-example"), policy, explain=True)
    ds = result.decisions
    drops = {d["task"]: d for d in ds if d["action"] == "dropped"}
    extra = result.extra
    assert sorted(drops) == sorted([*extra["dropped_status_job_ids"],
                                    *extra["rejected_job_ids"], *extra["dropped_invalid_job_ids"]])
    assert sorted(drops) == [7, 8, 9] and sum(d["action"] == "dropped" for d in ds) == 3
    for job in extra["dropped_status_job_ids"]:
        assert "status in the trace is not completed" in drops[job]["reason"]
        assert drops[job]["status"] not in (1, -1)
    assert "needs more nodes than the machine has" in drops[8]["reason"]
    assert drops[8]["nodes"] > drops[8]["machine_nodes"] == extra["nodes"]
    submit = dict(zip(result.tasks["job_id"], result.tasks["submit"], strict=True))
    for job, d in drops.items():  # ids follow submit order in this trace
        assert max((t for j, t in submit.items() if j < job), default=d["t"]) <= d["t"] \
            <= min((t for j, t in submit.items() if j > job), default=d["t"])
    assert all(a["t"] <= b["t"] for a, b in zip(ds, ds[1:], strict=False))
    assert result.meta["decisions"]["tasks_seen"] == result.summary["jobs_total"]


@pytest.mark.parametrize("preset", ["swf-example", "swf-small"])
def test_conservative_holds_no_job_at_the_instant_it_starts(preset):
    """A reservation moved earlier to the very instant starts the job then (swf-example: jobs
    4 and 6 at 50, job 3 at 115): its start is its decision there, not a wait. The moves to a
    later time are still told (estimates three times the run: many jobs end early), each
    with its new and old reservation; a repeat counted on one ends before the job starts."""
    runs = {}
    for scale in (1.0, 3.0):
        result = runs[scale] = ENGINE.simulate(
            ENGINE.preset_scenario(preset, {"estimate_scale": scale}), "conservative",
            explain=True)
        start_of = dict(zip(result.tasks["job_id"], result.tasks["start"], strict=True))
        moved = [d for d in result.decisions if d["reason"].startswith("reservation moved")]
        assert moved or scale == 1.0
        for d in moved:
            assert d["t"] < d["reservation_s"] < d["was_s"]
            assert d.get("t_last", d["t"]) < start_of[d["task"]]
            assert d.get("last", d)["reservation_s"] > d.get("t_last", d["t"])
        assert sum(d.get("count", 1) for d in moved) <= result.extra["reservation_moves"]
        assert all(start_of[d["task"]] > d.get("t_last", d["t"]) for d in result.decisions
                   if d["action"] == "held")
    if preset == "swf-example":  # the three moved to their start: a start at that time
        for job, t, action in ((4, 50, "backfilled"), (6, 50, "backfilled"), (3, 115, "mapped")):
            assert [(d["t"], d["action"]) for d in explain.story(runs[1.0].decisions, job)
                    if d["t"] == t] == [(t, action)]


def test_explain_off_leaves_the_result_as_it_was():
    scenario = ENGINE.preset_scenario("swf-small")
    plain = ENGINE.simulate(scenario, "easy").to_dict()
    with_log = ENGINE.simulate(scenario, "easy", explain=True).to_dict()
    assert "decisions" not in plain and "decisions" not in plain["meta"]
    del with_log["decisions"], with_log["meta"]["decisions"]
    assert json.dumps(with_log, sort_keys=True) == json.dumps(plain, sort_keys=True)


def test_cli_run_explain_and_read(tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "scheduling.engine", *args],
                              capture_output=True, text=True, timeout=120)

    paths = {}
    for policy in ("easy", "fcfs"):
        paths[policy] = tmp_path / f"{policy}.json"
        done = cli("run", "--preset", "swf-small", "--policy", policy, "--explain",
                   "--out", str(paths[policy]))
        assert done.returncode == 0, done.stderr
    easy = json.loads(paths["easy"].read_text())
    job = next(x["task"] for x in easy["decisions"] if x["action"] == "backfilled")
    story = cli("explain", str(paths["easy"]), "--task", str(job))
    assert story.returncode == 0
    assert f"task {job}: {len(explain.story(easy['decisions'], job))} decisions" in story.stdout
    assert "backfilled" in story.stdout
    both = cli("explain", str(paths["easy"]), str(paths["fcfs"]))
    first = explain.divergence(easy, json.loads(paths["fcfs"].read_text()))["first"]
    assert f"first difference at t={first['t']:.6g}s" in both.stdout
    assert f"only A: [{first['only_a'][0]['task']}]" in both.stdout
    bad = cli("explain", str(paths["easy"]), "--action", "slept")
    assert bad.returncode == 2 and "error: action: unknown slept" in bad.stderr
    plain = tmp_path / "plain.json"
    cli("run", "--preset", "swf-small", "--policy", "easy", "--out", str(plain))
    none = cli("explain", str(plain), "--task", "1")
    assert none.returncode == 2 and "run it with --explain" in none.stderr


def test_cli_bounds_the_log_as_asked_and_names_a_bad_bound(tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "scheduling.engine", "run", "--preset",
                               "swf-small", "--policy", "easy", *args],
                              capture_output=True, text=True, timeout=120)

    out = tmp_path / "r.json"
    done = cli("--explain", "--explain-limit", "40", "--explain-per-task", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    info = result["meta"]["decisions"]
    assert (info["limit"], info["per_task"]) == (40, 3)
    assert info["stride"] > 1 and 0 < info["recorded"] <= 40
    assert info["tasks_kept"] < info["tasks_seen"] == len(result["tasks"]["job_id"])
    # the jobs asked about keep their whole story, however thin the sample
    left_out = sorted(set(result["tasks"]["job_id"]) - {d["task"] for d in result["decisions"]})
    asked = left_out[:2]
    done = cli("--explain", "--explain-limit", "40", "--out", str(out),
               *[a for job in asked for a in ("--explain-task", str(job))],
               "--explain-task", "99999999")
    assert done.returncode == 0, done.stderr
    assert "--explain-task 99999999: no decision about it" in done.stderr
    focused = json.loads(out.read_text())
    assert focused["meta"]["decisions"]["always"] == [*asked, 99999999]
    whole = ENGINE.simulate(ENGINE.preset_scenario("swf-small"), "easy",
                            explain=DecisionLog(limit=100_000))
    for job in asked:
        assert explain.story(focused["decisions"], job) == explain.story(whole.decisions, job)
        assert explain.story(whole.decisions, job)[-1]["action"] == "completed"
    for args, says in ((["--explain-limit", "40"], "--explain-limit: only with --explain"),
                       (["--explain", "--explain-per-task", "1"], "--explain-per-task: at least 2"),
                       (["--explain", "--explain-limit", "5", "--explain-per-task", "8"],
                        "--explain-limit: at least --explain-per-task (8), got 5")):
        bad = cli(*args, "--out", str(tmp_path / "bad.json"))
        assert bad.returncode == 2 and f"error: {says}" in bad.stderr, bad.stderr
        assert not (tmp_path / "bad.json").exists()


def test_explain_into_a_reader_that_stops_early_ends_quietly(tmp_path):
    # ``explain R.json | head``: once the reader has closed the pipe, no "Broken pipe" error.
    path = tmp_path / "easy.json"
    result = ENGINE.simulate(ENGINE.preset_scenario("swf-small"), "easy", seed=0, explain=True)
    path.write_text(result.to_json())
    reader = subprocess.Popen([sys.executable, "-m", "scheduling.engine", "explain", str(path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout.readline().startswith(b"all tasks: ")
    reader.stdout.close()  # (its ~1,250 lines do not fit the pipe's buffer: the writer meets it)
    assert reader.wait(timeout=60) == 1
    assert reader.stderr.read() == b""
