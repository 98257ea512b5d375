"""Schedules of FCFS, EASY and conservative backfilling: by hand, against the literal
reference schedulers, and the policies' guarantees on the Lublin trace."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from scheduling.hpc import traces
from scheduling.swf_replay import ReplayConfig, replay
from scheduling.swf_replay.policies.conservative import Conservative
from scheduling.swf_replay.policies.easy import Easy
from scheduling.swf_replay.policies.fcfs import Fcfs
from simcore.params import from_dict

POLICIES = {"fcfs": Fcfs, "easy": Easy, "conservative": Conservative}


def starts(cls, jobs):
    return cls(jobs, check=True).run().start_t


# -- schedules worked out by hand ----------------------------------------------------------------
# Rows are (submit, run, estimate, nodes) in queue order.

# 4 nodes. Job 1 (head) waits for job 0. EASY lets job 3 use the extra node now although it
# runs past job 2's start under conservative; conservative keeps job 2's reservation at 10.
EASY_VS_CONSERVATIVE = [(0, 10, 10, 3), (1, 20, 20, 2), (2, 20, 20, 2), (3, 50, 50, 1)]


def test_easy_uses_extra_nodes_that_conservative_keeps_for_the_second_job(jobs_from):
    jobs = jobs_from(EASY_VS_CONSERVATIVE, 4)
    assert starts(Fcfs, jobs) == [0, 10, 10, 30]
    assert starts(Easy, jobs) == [0, 10, 30, 3]
    assert starts(Conservative, jobs) == [0, 10, 10, 30]


def test_backfilling_a_short_job_before_the_shadow_time(jobs_from):
    # Job 2 fits in the 2 idle nodes and ends (t=5) before the head's shadow time (t=10).
    jobs = jobs_from([(0, 10, 10, 2), (1, 5, 5, 4), (2, 3, 3, 2), (3, 20, 20, 1)], 4)
    assert starts(Fcfs, jobs) == [0, 10, 15, 15]
    assert starts(Easy, jobs) == [0, 10, 2, 15]
    assert starts(Conservative, jobs) == [0, 10, 2, 15]


def test_early_completion_compresses_the_conservative_schedule(jobs_from):
    # Job 0 is estimated at 10 s but ends at 5: both waiting jobs move up by 5 s.
    jobs = jobs_from([(0, 5, 10, 4), (1, 10, 10, 4), (2, 3, 3, 2)], 4)
    sim = Conservative(jobs, check=True).run()
    assert sim.start_t == [0, 5, 15]
    assert sim.reservation == [0, 10, 20]  # at arrival
    assert sim.compressions == 1 and sim.moves == 2


def test_shadow_extra_counts_every_job_ending_at_the_shadow_time(jobs_from):
    # 5 nodes. The head (3 nodes, 1 free) waits for t=10, when jobs 0 and 1 (2 + 2 nodes)
    # both end: 2 extra nodes, so job 3 (1 node, runs past the shadow time) starts at t=2.
    jobs = jobs_from([(0, 10, 10, 2), (0, 10, 10, 2), (1, 5, 5, 3), (2, 30, 30, 1)], 5)
    assert starts(Easy, jobs) == [0, 0, 10, 2]


@pytest.mark.parametrize("policy, expected", [
    # SWF job id: start, worked out in docs/replay.md ("A worked example").
    ("fcfs", {1: 0, 2: 0, 3: 100, 4: 180, 5: 180, 6: 180, 10: 210, 11: 250, 12: 250,
              13: 500, 14: 600, 15: 600, 16: 800}),
    ("easy", {1: 0, 2: 0, 3: 115, 4: 50, 5: 195, 6: 50, 10: 195, 11: 235, 12: 90,
              13: 500, 14: 600, 15: 800, 16: 530}),
    ("conservative", {1: 0, 2: 0, 3: 115, 4: 50, 5: 195, 6: 50, 10: 195, 11: 235, 12: 90,
                      13: 500, 14: 600, 15: 600, 16: 800}),
])
def test_example_8_trace(policy, expected):
    cfg = from_dict(ReplayConfig, {"trace": "example_8"})
    result = replay(traces.TraceLibrary().load("example_8"), cfg, POLICIES[policy], check=True)
    got = dict(zip(result.tasks["job_id"].tolist(), result.tasks["start"].tolist(), strict=True))
    assert got == expected
    s = result.summary
    assert (s["jobs_total"], s["jobs_completed"], s["jobs_rejected"],
            s["jobs_dropped_status"]) == (16, 13, 1, 2)


# -- against the literal reference schedulers ------------------------------------------------------

@st.composite
def small_traces(draw):
    nodes = draw(st.integers(1, 6))
    count = draw(st.integers(1, 12))
    rows = []
    submit = 0
    for _ in range(count):
        submit += draw(st.sampled_from([0, 0, 1, 2, 5]))  # many simultaneous arrivals
        run = draw(st.sampled_from([0, 1, 2, 3, 5, 8, 13]))
        est = max(run * draw(st.sampled_from([1, 1, 2, 3])) + draw(st.sampled_from([0, 0, 4])),
                  1)
        rows.append((submit, run, est, draw(st.integers(1, nodes))))
    return rows, nodes


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=small_traces())
def test_matches_reference(ref, jobs_from, policy, case):
    rows, nodes = case
    note(f"rows={rows} nodes={nodes}")
    jobs = jobs_from(rows, nodes)
    sim = POLICIES[policy](jobs, check=True).run()
    want_start, want_res = getattr(ref, policy)(rows, nodes)
    assert sim.start_t == want_start
    if policy != "fcfs":
        assert [None if math.isnan(x) else x for x in sim.reservation] == \
            [None if math.isnan(x) else x for x in want_res]


# -- guarantees on real traces --------------------------------------------------------------------

def busy_nodes_peak(tasks):
    """Most nodes in use at any instant (ends before starts at equal times)."""
    times = np.concatenate([tasks["start"], tasks["end"]])
    delta = np.concatenate([tasks["nodes"], -tasks["nodes"]])
    order = np.lexsort((delta, times))
    return int(np.cumsum(delta[order]).max(initial=0))


def check_guarantees(result, policy, header_ids):
    tasks = result.tasks
    s = result.summary
    n = len(tasks["job_id"])
    assert s["jobs_total"] == (s["jobs_completed"] + s["jobs_rejected"]
                               + s["jobs_dropped_status"] + s["jobs_dropped_invalid"])
    assert n == s["jobs_completed"]
    accounted = np.concatenate([tasks["job_id"], result.extra["rejected_job_ids"],
                                result.extra["dropped_status_job_ids"],
                                result.extra["dropped_invalid_job_ids"]])
    assert sorted(accounted.tolist()) == sorted(header_ids)
    assert busy_nodes_peak(tasks) <= result.extra["nodes"]
    assert (tasks["start"] >= tasks["submit"]).all()
    assert np.allclose(tasks["wait"], tasks["start"] - tasks["submit"])
    assert (tasks["bsld"] >= 1).all()
    if policy == "fcfs":  # never starts a job before an earlier one
        assert (np.diff(tasks["start"]) >= 0).all()
    else:  # never starts a job after its (first) reservation
        res = tasks["reservation"]
        held = ~np.isnan(res)
        assert (tasks["start"][held] <= res[held]).all()
        if policy == "conservative":
            assert held.all()


@pytest.fixture(scope="module")
def lublin(lublin_path):
    return traces.load_path(lublin_path)


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_guarantees_on_lublin_256(lublin, policy):
    cfg = from_dict(ReplayConfig, {})
    result = replay(lublin, cfg, POLICIES[policy])
    check_guarantees(result, policy, lublin.columns["job_id"].tolist())
    assert result.summary["jobs_total"] == 10_000
    assert result.extra["nodes"] == 256  # from the header


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
@pytest.mark.parametrize("options", [{}, {"estimate_scale": 3.0}, {"nodes": 100}])
def test_guarantees_and_internal_checks_on_the_small_trace(policy, options):
    trace = traces.TraceLibrary().load("lublin_256_small")
    cfg = from_dict(ReplayConfig, {"trace": "lublin_256_small", **options})
    result = replay(trace, cfg, POLICIES[policy], check=True)
    check_guarantees(result, policy, trace.columns["job_id"].tolist())
    if "nodes" in options:
        assert result.summary["jobs_rejected"] > 0


def test_backfilling_beats_fcfs_on_lublin(lublin):
    cfg = from_dict(ReplayConfig, {})
    wait = {p: replay(lublin, cfg, cls).summary["wait_mean_s"] for p, cls in POLICIES.items()}
    assert wait["easy"] < wait["fcfs"] and wait["conservative"] < wait["fcfs"]
