"""Implementation notes (grid spec §11) invariants on random small grids, for every scheduler
(property-based), and the change-tracking loop against the naive one that visits every node at every
tick."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import scenario
from scheduling.grid import neighbours, options
from scheduling.grid.policies import FcfsBackfill, PreemptiveBackfill
from scheduling.grid.sim import GridSim
from scheduling.grid.workload import generate

SCHEDULERS = {
    "fcfs": FcfsBackfill(),
    "local": PreemptiveBackfill(),
    "internode-can": PreemptiveBackfill(overlay="can"),
    "internode-2nn": PreemptiveBackfill(overlay="2nn"),
    "internode-can+qb": PreemptiveBackfill(overlay="can", balance=True),
    "internode-2nn+qb": PreemptiveBackfill(overlay="2nn", balance=True),
}

grids = st.fixed_dictionaries({
    "nodes": st.fixed_dictionaries({"n_nodes": st.integers(2, 14)}),
    "jobs": st.fixed_dictionaries({
        "n_jobs": st.integers(1, 70),
        "iat_s": st.sampled_from([20.0, 60.0, 150.0, 400.0]),
        "run_mean_s": st.sampled_from([300.0, 1000.0]),
    }),
    "scheduler": st.fixed_dictionaries({
        "alpha": st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        "delta_s": st.sampled_from([5.0, 30.0]),
        "victims": st.sampled_from(["exact", "greedy"]),
        "pull_recent": st.sampled_from([0, 1, 3]),
        "migrate_suspended": st.booleans(),
        "migrated_start": st.sampled_from(["now", "next-tick"]),
    }),
    "matchmaking": st.fixed_dictionaries({
        "sample": st.integers(1, 8), "load": st.sampled_from(["queued", "queued+running"])}),
    "report": st.just({"omit_lowest": 0, "tail_jobs": 1}),
})


def _sim(params, name, seed, naive=False):
    cfg = scenario("grid", params).params
    wl = generate(cfg, seed)
    sched = SCHEDULERS[name]
    sim = GridSim(wl, sched, options(cfg), seed, neighbours=neighbours(sched, wl, seed),
                  naive=naive, trace=True)
    sim.run()
    return sim, wl, cfg


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(grids, st.sampled_from(sorted(SCHEDULERS)), st.integers(0, 2**20))
def test_capacity_eligibility_and_waiting_only_migration(helpers, params, name, seed):
    sim, wl, cfg = _sim(params, name, seed)
    helpers.check_invariants(sim, wl, migrate_suspended=cfg.scheduler.migrate_suspended)
    if name in ("fcfs", "local"):
        assert not sim.log.mig_t
    if name == "fcfs":
        assert sim.preemptions == 0
    # Matchmaking placed every job on one of its sampled, eligible candidates (workload
    # (grid spec §3)).
    for j in range(len(wl.jobs)):
        assert sim.first_node[j] in wl.jobs.candidates[j].tolist()


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(grids, st.sampled_from(sorted(SCHEDULERS)), st.integers(0, 2**20))
def test_visiting_only_changed_nodes_equals_visiting_every_node(params, name, seed):
    fast, _, _ = _sim(params, name, seed)
    slow, _, _ = _sim(params, name, seed, naive=True)
    assert fast.end == slow.end
    assert fast.wf == slow.wf
    assert fast.node == slow.node
    assert fast.log.segments == slow.log.segments
    assert (fast.log.mig_t, fast.log.mig_job, fast.log.mig_to) == (
        slow.log.mig_t, slow.log.mig_job, slow.log.mig_to)
    assert len(fast.log.tick_t) <= len(slow.log.tick_t)


@pytest.mark.parametrize("name", ["internode-can", "internode-2nn+qb"])
def test_change_tracking_is_exact_on_a_busier_grid(name):
    # A denser case than the property test draws: 40 nodes, 250 jobs, three loads.
    for iat in (15.0, 30.0):
        params = {"nodes": {"n_nodes": 40}, "jobs": {"n_jobs": 250, "iat_s": iat},
                  "scheduler": {"alpha": 0.5}, "report": {"omit_lowest": 0, "tail_jobs": 1}}
        fast, _, _ = _sim(params, name, 7)
        slow, _, _ = _sim(params, name, 7, naive=True)
        assert fast.log.mig_t and fast.end == slow.end and fast.wf == slow.wf
        assert fast.log.mig_job == slow.log.mig_job
        # The point of the tracking: far fewer node visits per tick.
        assert sum(fast.log.tick_visits) < sum(slow.log.tick_visits) / 3
