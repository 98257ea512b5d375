"""The engine's scheduler against the literal reference (_reference.py) on random traces, the
First Fit baseline against the replay's EASY job by job, and capacity on random traces."""

import math

import numpy as np
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from scheduling.swf_preemptive.policies import POLICIES
from scheduling.swf_preemptive.sim import Maui
from scheduling.swf_preemptive.workload import HIGH, LOW, MEDIUM
from scheduling.swf_replay.policies.easy import Easy

from .conftest import config, make_workload

VICTIMS = {name: cls for name, cls, *_ in POLICIES}


@st.composite
def traces(draw, max_jobs=14):
    """(rows, nodes, user): small machines, simultaneous arrivals, zero-length jobs, limits
    from exact to 20x the run."""
    nodes = draw(st.integers(1, 8))
    n = draw(st.integers(1, max_jobs))
    rows, t = [], 0.0
    for _ in range(n):
        t += draw(st.sampled_from([0, 0, 1, 5, 30, 100, 250]))
        run = float(draw(st.sampled_from([0, 1, 10, 40, 90, 200, 600])))
        limit = max(run * draw(st.sampled_from([1, 1, 1.5, 3, 20])), 1.0)
        rows.append((t, run, limit, draw(st.integers(1, nodes))))
    user = [draw(st.integers(0, 2)) for _ in range(n)]
    return rows, nodes, user


SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def engine(wl, policy, cfg, seed=0, check=True, fast=True):
    return Maui(wl, VICTIMS[policy], cfg, seed, check=check, fast=fast).run()


def reference(ref, wl, policy, cfg, seed=0):
    j = wl.jobs
    return ref.simulate(
        j.submit.tolist(), j.run.tolist(), j.estimate.tolist(), j.nodes.tolist(),
        wl.rank.tolist(), wl.user.tolist(), j.machine_nodes, policy,
        preemption=cfg.preemption, preemptible=cfg.preemptible, scope=cfg.relaxed_scope,
        history=cfg.history_filter, rho_p80=cfg.history_rho == "p80",
        within_class=cfg.within_class, prioritized=cfg.prioritized, trigger=cfg.trigger,
        product=cfg.resusage == "procs-x-wallclock", seed=seed, period=cfg.iteration_s)


def same_schedule(sim, expected):
    starts, kills = expected
    got = [(j, s, e, b) for j, s, e, b in zip(sim.k_job, sim.k_start, sim.k_end, sim.k_by,
                                             strict=True)]
    note(f"engine starts {sim.start_t}\nreference {starts}\nengine kills {got}\nref {kills}")
    assert sim.start_t == starts
    assert got == kills


@SETTINGS
@given(traces(), st.sampled_from(sorted(VICTIMS)), st.sampled_from(["backfilled",
                                                                      "past-reservation"]),
       st.booleans(), st.sampled_from(["mean", "p80"]), st.sampled_from(["head", "queue"]),
       st.integers(0, 3))
def test_non_prioritized_matches_the_reference(ref, trace, policy, preemptible, history, rho,
                                               trigger, seed):
    rows, nodes, user = trace
    wl = make_workload(rows, nodes, user=user)
    cfg = config(preemptible=preemptible, history_filter=history, history_rho=rho,
                 trigger=trigger)
    same_schedule(engine(wl, policy, cfg, seed), reference(ref, wl, policy, cfg, seed))


@SETTINGS
@given(traces(), st.sampled_from(["first-fit", "random", "duration-remaining",
                                  "duration-consumed", "wcduration-percentresusage"]),
       st.sampled_from(["mix-a", "mix-b"]), st.booleans(), st.sampled_from(["preemptible",
                                                                            "any"]),
       st.sampled_from(["procs", "procs-x-wallclock"]), st.booleans(),
       st.sampled_from(["backfilled", "past-reservation"]), st.sampled_from(["head", "queue"]),
       st.data())
def test_priority_classes_match_the_reference(ref, trace, policy, mix, within, scope,
                                              resusage, history, preemptible, trigger, data):
    rows, nodes, user = trace
    other = MEDIUM if mix == "mix-a" else LOW
    rank = data.draw(st.lists(st.sampled_from([HIGH, other]), min_size=len(rows),
                              max_size=len(rows)))
    wl = make_workload(rows, nodes, rank=rank, user=user)
    cfg = config(classes=mix, within_class=within, relaxed_scope=scope, resusage=resusage,
                 history_filter=history, preemptible=preemptible, trigger=trigger)
    same_schedule(engine(wl, policy, cfg, 1), reference(ref, wl, policy, cfg, 1))


@SETTINGS
@given(traces(max_jobs=25), st.sampled_from(sorted(VICTIMS)))
def test_without_preemption_every_policy_is_first_fit_is_easy(trace, policy):
    rows, nodes, _ = trace
    rows = [(s, r, max(lim, r), n) for s, r, lim, n in rows]  # EASY needs limits >= runs
    wl = make_workload(rows, nodes)
    easy = Easy(wl.jobs, check=True).run().start_t
    assert engine(wl, policy, config(preemption=False)).start_t == easy
    assert engine(wl, "first-fit", config()).start_t == easy


@SETTINGS
@given(traces(max_jobs=30), st.sampled_from(sorted(VICTIMS)),
       st.sampled_from(["none", "mix-a", "mix-b"]), st.data())
def test_capacity_is_never_exceeded(trace, policy, mix, data):
    rows, nodes, user = trace
    rank = None
    if mix != "none":
        other = MEDIUM if mix == "mix-a" else LOW
        rank = data.draw(st.lists(st.sampled_from([HIGH, other]), min_size=len(rows),
                                  max_size=len(rows)))
    wl = make_workload(rows, nodes, rank=rank, user=user)
    sim = engine(wl, policy, config(classes=mix, relaxed_scope="any"), check=False)
    # Every run that held processors: the completing ones and the killed ones.
    start = np.array(sim.start_t + sim.k_start)
    end = np.concatenate([np.array(sim.start_t) + wl.jobs.run, np.array(sim.k_end)])
    runs = np.concatenate([np.arange(len(rows)), np.array(sim.k_job, dtype=int)])
    size = wl.jobs.nodes[runs]
    assert np.all(np.isfinite(start)) and np.all(end >= start)
    for t in np.unique(start):
        busy = size[(start <= t) & (end > t)].sum()
        assert busy <= nodes, f"{busy} nodes busy at {t} on a {nodes}-node machine"
    assert np.all(start >= wl.jobs.submit[runs])


@SETTINGS
@given(traces(max_jobs=30), st.sampled_from(sorted(VICTIMS)))
def test_skipping_work_between_events_changes_nothing(trace, policy):
    rows, nodes, user = trace
    wl = make_workload(rows, nodes, user=user)
    cfg = config(history_filter=True, history_rho="p80")
    fast = engine(wl, policy, cfg, check=False)
    slow = engine(wl, policy, cfg, check=True, fast=False)  # full iteration every event + tick
    assert fast.start_t == slow.start_t and fast.k_job == slow.k_job
    assert not any(math.isnan(s) for s in fast.start_t)
