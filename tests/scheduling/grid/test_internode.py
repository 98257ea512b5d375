"""Internode PUSH and PULL by hand (internode scheduling (grid spec §6)), the balance objective,
queue balancing, and every scheduler on the small preset."""

import pytest

from scheduling.engine import simulate
from scheduling.grid.policies import PreemptiveBackfill
from scheduling.grid.policies.internode import objective

INTERNODE = PreemptiveBackfill(overlay="2nn")
ALL = ["fcfs", "local", "internode-can", "internode-2nn", "internode-can+qb",
       "internode-2nn+qb"]


def test_objective_is_bm_times_fm(helpers):
    # Node of 4 cores, 4 GB, 100 GB; job 1 core, 1 GB, 10 GB on the empty node:
    # a = (1/4, 1/4, 1/10): BM = 0.25 / 0.6, FM = 1 - 0.6 / 3.
    wl = helpers.workload([(4, 1.0, 4, 100)], [(0, 10, 1, 1, 10, 0)])
    from scheduling.grid.sim import GridSim, Options

    sim = GridSim(wl, INTERNODE, Options(), 0)
    assert objective(sim, 0, 0) == pytest.approx(0.25 / 0.6 * (1 - 0.6 / 3))
    sim.free_c[0], sim.free_m[0], sim.free_d[0] = 3, 3 * 1024, 90 * 1024
    assert objective(sim, 0, 0) == pytest.approx(0.5 / 1.2 * (1 - 1.2 / 3))


def test_push_moves_the_blocked_head_to_a_neighbour_that_can_start_it(helpers):
    # Node 0 (1 core) runs A; B (longer, so no preemption) waits. At the tick at 5 s, node 0
    # pushes B to node 1 (2 cores, speed 2), where it starts at once: 200 / 2 = 100 s.
    wl = helpers.workload([(1, 1.0, 4, 100), (2, 2.0, 4, 100)],
                          [(0, 100, 1, 1, 1, 0), (1, 200, 1, 1, 1, 0)],
                          candidates=[[0], [0]])
    sim = helpers.run(wl, INTERNODE, neighbours=[(1,), (0,)], delta=5.0)
    assert list(zip(sim.log.mig_t, sim.log.mig_job, sim.log.mig_from, sim.log.mig_to,
                    sim.log.mig_kind, strict=True)) == [(5.0, 1, 0, 1, 0)]
    assert sim.end == [100.0, 105.0]
    assert sim.wf[1] == 0.0  # W restarts at the run node (priority (grid spec §4)) ...
    assert sim.end[1] - sim.submit[1] - sim.exec_wall[1] == 4.0  # ... the conventional wait not
    helpers.check_invariants(sim, wl)


def test_push_prefers_the_faster_of_equal_neighbours(helpers):
    nodes = [(1, 1.0, 4, 100), (2, 1.0, 4, 100), (2, 2.0, 4, 100)]
    wl = helpers.workload(nodes, [(0, 100, 1, 1, 1, 0), (1, 200, 1, 1, 1, 0)],
                          candidates=[[0], [0]])
    sim = helpers.run(wl, INTERNODE, neighbours=[(1, 2), (0, 2), (0, 1)])
    assert sim.log.mig_to == [2]


def test_pull_takes_a_job_the_push_could_not_move(helpers):
    # Node 0 (2 cores) runs X and Y; its queue holds H (2 cores) ahead of J (1 core). Node 1
    # (1 core) is busy with Z until t = 50. PUSH never moves H (it needs 2 cores); when Z
    # ends, node 1 PULLs J, the one job of node 0's queue it can start.
    nodes = [(2, 1.0, 4, 100), (1, 1.0, 4, 100)]
    jobs = [(0, 100, 1, 1, 1, 0), (0, 100, 1, 1, 1, 0), (0, 50, 1, 1, 1, 0),
            (1, 500, 2, 1, 1, 0), (2, 600, 1, 1, 1, 0)]
    wl = helpers.workload(nodes, jobs, candidates=[[0], [0], [1], [0], [0]])
    sim = helpers.run(wl, INTERNODE, neighbours=[(1,), (0,)])
    assert list(zip(sim.log.mig_t, sim.log.mig_job, sim.log.mig_from, sim.log.mig_to,
                    sim.log.mig_kind, strict=True)) == [(50.0, 4, 0, 1, 1)]
    assert sim.end[4] == 650.0 and sim.end[3] == 600.0
    helpers.check_invariants(sim, wl)


def test_pull_waits_for_a_recently_asked_neighbour(helpers):
    # Node 1 asks node 0 at t = 50 (nothing it can run yet); when node 0's queue gets such a
    # job at t = 52, node 1 may ask again only after pull_recent = 3 intervals (t = 70).
    nodes = [(2, 1.0, 4, 100), (1, 1.0, 4, 100)]
    jobs = [(0, 100, 1, 1, 1, 0), (0, 100, 1, 1, 1, 0), (0, 50, 1, 1, 1, 0),
            (1, 500, 2, 1, 1, 0), (52, 600, 1, 1, 1, 0)]
    wl = helpers.workload(nodes, jobs, candidates=[[0], [0], [1], [0], [0]])
    for recent, when in ((3, 70.0), (0, 55.0)):
        sim = helpers.run(wl, PreemptiveBackfill(overlay="2nn"), neighbours=[(1,), (0,)],
                          pull_recent=recent)
        # The newcomer J at 52 cannot start on node 0; PUSH would move it only when it heads
        # the queue, but H (higher priority) heads it: only PULL can move J.
        assert sim.log.mig_job == [4] and sim.log.mig_kind == [1]
        assert sim.log.mig_t == [when]


def test_queue_balancing_moves_queued_jobs_off_a_local_maximum(helpers):
    # Three 1-core nodes in a line. Nodes 0 and 2 run a long job each; six more jobs all go to
    # node 1. Nobody can start them now, so PUSH and PULL stay idle, but balancing spreads
    # the queue over the neighbours' queues (queue balancing (grid spec §6.4)).
    nodes = [(1, 1.0, 4, 100)] * 3
    jobs = [(0, 3000, 1, 1, 1, 0), (0, 3000, 1, 1, 1, 0)]
    jobs += [(float(i), 1000 + i, 1, 1, 1, 0) for i in range(1, 7)]
    wl = helpers.workload(nodes, jobs, candidates=[[0], [2]] + [[1]] * 6)
    line = [(1,), (0, 2), (1,)]
    plain = helpers.run(wl, PreemptiveBackfill(overlay="2nn"), neighbours=line)
    qb = helpers.run(wl, PreemptiveBackfill(overlay="2nn", balance=True), neighbours=line)
    assert 2 not in plain.log.mig_kind and 2 in qb.log.mig_kind
    at_60 = plain.log.sample_t.index(60.0)
    assert plain.log.sample_queue[at_60].tolist() == [0, 5, 0]
    assert max(qb.log.sample_queue[at_60]) <= 2 and sum(qb.log.sample_queue[at_60]) == 5
    helpers.check_invariants(qb, wl)


@pytest.mark.parametrize("policy", ALL)
def test_every_scheduler_finishes_the_small_preset(small, policy):
    res = simulate(small, policy, seed=1)
    s = res.summary
    assert s["jobs"] == 500 and len(res.tasks["end"]) == 500
    assert all(e is not None for e in res.tasks["end"])
    assert 0 <= s["wait_median_s"] <= s["wait_top10_median_s"] <= s["wait_max_s"]
    assert s["conv_wait_mean_s"] >= s["wait_mean_s"] - 1e-6
    assert 0 < s["utilization"] <= 1
    if policy == "fcfs":
        assert s["preemptions"] == 0 and s["migrations"] == 0
    elif policy == "local":
        assert s["preemptions"] > 0 and s["migrations"] == 0
    else:
        assert s["migrations"] > 0 and s["pushes"] + s["pulls"] + s["balance_moves"] == \
            s["migrations"]
        assert s["overlay_degree_mean"] >= 2
    if policy.endswith("+qb"):
        assert s["balance_moves"] > 0
    assert res.timing["wall_s"] < 60  # a sanity bound, not a speed test


def test_common_random_numbers_across_schedulers(small):
    a = simulate(small, "fcfs", seed=2)
    b = simulate(small, "internode-can", seed=2)
    da, db = a.to_dict(), b.to_dict()
    assert da["tasks"]["submit"] == db["tasks"]["submit"]
    assert da["tasks"]["estimate_s"] == db["tasks"]["estimate_s"]
    assert da["extra"]["nodes"]["cores"] == db["extra"]["nodes"]["cores"]
