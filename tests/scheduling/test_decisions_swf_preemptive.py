"""The decision trace of swf-preemptive (docs/pbb.md, "Why did it do that?"): consistent with the
result, exact on the hand-worked schedule of test_schedules.py, and free when off."""

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.engine import preset_scenario, simulate
from scheduling.swf_preemptive.policies import DurationConsumed, FirstFit, WcDuration
from scheduling.swf_preemptive.sim import Maui
from simcore.decisions import STARTS, DecisionLog, bucket
from simcore.explain import story


def unbounded() -> DecisionLog:
    return DecisionLog(per_task=10**6, limit=10**8)


# The hand-worked schedule of swf_preemptive/test_schedules.py (rows: submit, run, wall-clock
# limit, processors; 8 processors), whose kills that file checks.
MINIMAL = [(0, 100, 100, 2), (0, 1000, 1000, 2), (0, 300, 300, 5), (1, 500, 500, 2),
           (2, 500, 500, 1), (3, 500, 500, 1), (50, 10, 10, 3)]


@pytest.fixture(scope="module")
def schedules(load_sibling):
    """make_workload and config of the kind's tests."""
    return load_sibling(Path(__file__).parent / "swf_preemptive" / "conftest.py",
                        "pbb_conftest")


def counted(decisions, action, **match):
    return sum(d.get("count", 1) for d in decisions if d["action"] == action
               and all(d.get(k) == v for k, v in match.items()))


def check_consistent(decisions, tasks, kills, summary=None):
    """``tasks``: the result's job table (job_id, submit, start); ``kills``: (job id, time,
    by job id) of each kill in order."""
    by_job = {}
    for d in decisions:
        by_job.setdefault(d["task"], []).append(d)
    start_of = dict(zip(tasks["job_id"], tasks["start"], strict=True))
    submit_of = dict(zip(tasks["job_id"], tasks["submit"], strict=True))
    for job, start in start_of.items():
        mine = by_job[job]
        assert mine[0]["t"] >= submit_of[job]
        starts = [d for d in mine if d["action"] in STARTS]
        assert starts and starts[-1]["t"] == start  # the run that completed
        assert mine[-1]["action"] == "completed"
    got = [(d["task"], d["t"], d["by"]) for d in decisions if d["action"] == "killed"]
    assert got == kills
    assert counted(decisions, "resumed") == len(kills)  # a killed job restarts from zero
    for d in decisions:
        if d["action"] == "killed":
            assert d["victim_order"] <= d["taken"] <= d["pool"]
        if "reservation_of" in d:  # the reservation it passed existed: its job still waited
            holder = d["reservation_of"]
            assert submit_of[holder] <= d["t"] <= start_of[holder]
            assert d["shadow_s"] >= d["t"]
        if d["action"] == "backfilled" or d.get("starts_as") == "backfilled":
            assert "reservation_of" in d
            if d["reason"].endswith("ends by the reservation's shadow time"):
                assert d["limit_end_s"] <= d["shadow_s"]
            if d["reason"].endswith("leaves spare"):
                assert d["extra"] >= 0
    if summary is not None:
        backfills = counted(decisions, "backfilled") + counted(decisions, "resumed",
                                                               starts_as="backfilled")
        assert backfills == summary["starts_first_fit"] + summary["starts_preemptive"]
        assert counted(decisions, "mapped") + counted(decisions, "resumed", starts_as="mapped") \
            == summary["starts_normal"]


DROP_LISTS = {"dropped_size_job_ids": "wider than max_procs",
              "rejected_job_ids": "needs more nodes than the machine has",
              "dropped_status_job_ids": "status in the trace is not completed",
              "dropped_invalid_job_ids": "cannot be replayed"}


def check_drops(r, kept=lambda job: True):
    """Every job the result lists as dropped at load (or rejected) has one ``dropped`` decision
    saying why in its class's terms, at its submit time on the replay's clock (SWF numbers
    follow submit order in these traces: between the replayed jobs around it), unless the
    sampling left it out (``kept``); the log stays in time order."""
    drops = {d["task"]: d for d in r.decisions if d["action"] == "dropped"}
    listed = {int(job): why for key, why in DROP_LISTS.items() for job in r.extra.get(key, [])}
    assert set(drops) == {job for job in listed if kept(job)}
    assert sum(d["action"] == "dropped" for d in r.decisions) == len(drops)  # one each
    submit = dict(zip(r.tasks["job_id"], r.tasks["submit"], strict=True))
    for job, d in drops.items():
        assert listed[job] in d["reason"]
        if "max_procs" in d:
            assert d["procs"] > d["max_procs"] == r.meta["scenario"]["params"]["max_procs"]
        if "machine_nodes" in d:
            assert d["nodes"] > d["machine_nodes"] == r.extra["nodes"]
        before = [t for j, t in submit.items() if j < job]
        after = [t for j, t in submit.items() if j > job]
        assert max(before, default=d["t"]) <= d["t"] <= min(after, default=d["t"])
    assert all(a["t"] <= b["t"] for a, b in zip(r.decisions, r.decisions[1:], strict=False))


def test_a_job_dropped_at_load_has_a_drop_with_its_reason_sampled_or_not():
    """pbb-small drops 50 of its 500 jobs as wider than max_procs = 32: each is a decision,
    also in a sampled log, where it is kept as the replayed jobs are (by the hash of its id,
    or when asked for)."""
    sc = preset_scenario("pbb-small")
    r = simulate(sc, "random", seed=0, explain=True)
    assert r.summary["jobs_dropped_size"] == 50
    check_drops(r)
    assert r.meta["decisions"]["tasks_seen"] == 500
    asked = [int(j) for j in r.extra["dropped_size_job_ids"][:3]]
    small = simulate(sc, "random", seed=0, explain=DecisionLog(limit=300, always=asked))
    stride = small.meta["decisions"]["stride"]
    assert stride > 1 and small.meta["decisions"]["tasks_seen"] == 500
    check_drops(small, lambda job: job in asked or bucket(job) % stride == 0)
    for job in asked:
        assert story(small.decisions, job) == story(r.decisions, job)


@pytest.mark.parametrize("preset,policy", [
    ("pbb-small", "first-fit"), ("pbb-small", "duration-consumed"), ("pbb-small", "random"),
    ("pbb-small-mix-a", "duration-remaining"), ("pbb-small-mix-b", "wcduration"),
])
def test_decisions_are_consistent_with_the_result(preset, policy):
    r = simulate(preset_scenario(preset), policy, seed=2, explain=unbounded())
    kills = list(zip(r.events["job_id"], r.events["t"], r.events["by_job_id"], strict=True))
    check_consistent(r.decisions, r.tasks, kills, r.summary)
    assert counted(r.decisions, "killed") == r.summary["preemptions"]
    # every job line: the replayed ones and those dropped at load (check_drops)
    assert r.meta["decisions"]["tasks_seen"] == r.summary["jobs_total"]
    check_drops(r)
    if policy == "first-fit":
        assert counted(r.decisions, "killed") == 0
        assert not [d for d in r.decisions if d["reason"].startswith("backfilled past")]


@pytest.mark.parametrize("policy", ["first-fit", "duration-consumed"])
def test_explain_off_leaves_the_result_unchanged(policy):
    sc = preset_scenario("pbb-small-mix-b")
    off = simulate(sc, policy, seed=2).to_dict()
    on = simulate(sc, policy, seed=2, explain=True).to_dict()
    assert "decisions" not in off and on["decisions"]
    del on["decisions"], on["meta"]["decisions"]
    assert on == off


def run(schedules, rows, nodes, victims, **params):
    sim = Maui(schedules.make_workload(rows, nodes), victims, schedules.config(**params), 0,
               check=True)
    sim.decisions = unbounded()
    sim.run()
    return sim, sim.decisions.export()[0]


def test_the_minimal_schedule_explained(schedules):
    """MINIMAL (job ids are row + 1): job 3 holds the reservation from t=0
    (shadow 100, one spare processor); 4 and 6 backfill past it, 5 into the spare processor.
    At t=100 duration-consumed takes 6, 5, 4 and lets 5 go; job 3 starts on their
    processors. At t=400 job 7 kills 5, the First Fit backfill."""
    sim, d = run(schedules, MINIMAL, 8, DurationConsumed)
    head = story(d, 3)
    assert [(x["t"], x["action"]) for x in head] == [(0.0, "held"), (100.0, "mapped"),
                                                     (400.0, "completed")]
    assert (head[0]["shadow_s"], head[0]["extra"], head[0]["preemptible"]) == (100.0, 1, 0)
    assert (head[1]["victims"], head[1]["freed"], head[1]["free"]) == (2, 3, 2)
    six = story(d, 6)
    assert [(x["t"], x["action"]) for x in six] == [(3.0, "backfilled"), (100.0, "killed"),
                                                    (400.0, "resumed"), (900.0, "completed")]
    assert six[0]["reason"].startswith("backfilled past the reservation")
    # Job 4's limit (501) already pushed the shadow time from 100 to 501: the shadow time is
    # worked out from every running job's limit, those backfilled past it too.
    assert (six[0]["reservation_of"], six[0]["shadow_s"], six[0]["limit_end_s"]) == (3, 501.0,
                                                                                     503.0)
    assert (six[1]["by"], six[1]["victim_order"], six[1]["taken"], six[1]["pool"],
            six[1]["started_as"], six[1]["ran_s"]) == (3, 1, 3, 3, "preemptive", 97.0)
    assert (six[2]["restart"], six[2]["starts_as"]) == (1, "mapped")
    four = story(d, 4)
    # Killed, it is the first waiting job again (it keeps its submit time): it holds the
    # reservation until job 3 ends.
    assert [x["action"] for x in four] == ["backfilled", "killed", "held", "resumed",
                                           "completed"]
    assert four[1]["victim_order"] == 3  # 5 (second) was let go: 6 and 4 freed enough
    assert (four[2]["t"], four[2]["shadow_s"], four[3]["t"]) == (100.0, 400.0, 400.0)
    five = story(d, 5)
    assert [(x["t"], x["action"]) for x in five] == [(2.0, "backfilled"), (400.0, "killed"),
                                                     (400.0, "held"), (410.0, "resumed"),
                                                     (910.0, "completed")]
    assert five[0]["reason"].endswith("leaves spare") and five[0]["extra"] == 0
    assert (five[1]["by"], five[1]["started_as"]) == (7, "first-fit")
    seven = story(d, 7)
    assert seven[0]["action"] == "held" and seven[0]["t"] == 50.0
    assert (seven[0]["reservation_of"], seven[0]["nodes"], seven[0]["free"]) == (3, 3, 0)
    kills = [(sim.ids[j], e, sim.ids[b]) for j, e, b in zip(sim.k_job, sim.k_end, sim.k_by,
                                                            strict=True)]
    table = {"job_id": sim.ids, "submit": sim.sub, "start": sim.start_t}
    check_consistent(d, table, kills)


def test_first_fit_explains_who_may_not_pass_the_reservation(schedules):
    _, d = run(schedules, MINIMAL, 8, FirstFit)
    four = story(d, 4)[0]  # ends at 501, after the shadow time, and needs 2 of 1 spare
    assert (four["t"], four["action"], four["reservation_of"]) == (1.0, "held", 3)
    assert "no backfill past the reservation without preemption" in four["reason"]
    assert counted(d, "killed") == 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 200), st.integers(0, 100),
                          st.integers(1, 8)), min_size=1, max_size=12),
       st.sampled_from([DurationConsumed, WcDuration, FirstFit]), st.booleans())
def test_random_small_traces_stay_consistent(schedules, rows, victims, history):
    """Jobs (submit gap, run, limit slack, processors) on 8 processors."""
    t, trace = 0, []
    for gap, run_s, slack, procs in rows:
        t += gap
        trace.append((t, run_s, run_s + slack, procs))
    sim, d = run(schedules, trace, 8, victims, history_filter=history)
    kills = [(sim.ids[j], e, sim.ids[b]) for j, e, b in zip(sim.k_job, sim.k_end, sim.k_by,
                                                            strict=True)]
    check_consistent(d, {"job_id": sim.ids, "submit": sim.sub, "start": sim.start_t}, kills)
    assert Counter(x["action"] for x in d)["completed"] == len(trace)
