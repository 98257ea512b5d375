"""The heuristics on ``vos-small`` (scheduling framework to heuristics (ch. 2 spec §6-7)): every
policy runs, results are deterministic, place-holders vanish at the next event, and the incremental
Max VPTR rounds make exactly the decisions of the spec's literal loop."""

import copy

import numpy as np
import pytest

from scheduling.engine import get_policy, list_policies, simulate
from scheduling.value_of_service.policies.value import ValuePolicy
from scheduling.value_of_service.sim import COMMITTED, WAITING, VosSim, run_simulation
from scheduling.value_of_service.workload import generate
from simcore.clock import RunClock
from simcore.sampling import rng

POLICIES = [p.name for p in list_policies("value-of-service")]


@pytest.fixture(scope="module")
def runs(small):
    return {(p, seed): simulate(small, policy=p, seed=seed) for p in POLICIES for seed in (1, 2)}


def test_every_policy_runs_on_vos_small(runs, ref):
    assert set(POLICIES) == {"simple", "simple-d", "simple-p", "simple-dp", "max-vptr",
                             "max-value", "max-vpt", "max-vpcr", "max-vpmr"}
    for (policy, _), result in runs.items():
        s = result.summary
        assert s["tasks_total"] > 100, policy
        assert 0 < s["pct_max_vos"] <= 100, policy
        assert s["tasks_completed"] + s["tasks_dropped"] <= s["tasks_total"] + 100
        ref.check_schedule(result)
        assert len(result.series["t_min"]) == len(result.series["vos_cum"]) == 12 * 60 + 1
        assert result.series["vos_cum"][-1] == pytest.approx(s["vos"])


def test_every_policy_sees_the_same_workload(runs):
    arrivals = {tuple(r.tasks["arrival"]) for (p, seed), r in runs.items() if seed == 1}
    assert len(arrivals) == 1


def test_expected_ordering_on_vos_small(runs):
    # Module layout and checks (ch. 2 spec §11): Max VPTR > Simple w/ d&p > {Simple w/ dropping, w/
    # place-holders} > Simple.
    def mean(p):
        return np.mean([runs[p, s].summary["pct_max_vos"] for s in (1, 2)])

    assert mean("max-vptr") > mean("simple-dp") > max(mean("simple-d"), mean("simple-p"))
    assert min(mean("simple-d"), mean("simple-p")) > mean("simple")


def test_same_seed_gives_identical_results(small):
    for policy in ("max-vptr", "simple-p"):
        a = simulate(small, policy=policy, seed=7).to_json()
        b = simulate(small, policy=policy, seed=7).to_json()
        assert a == b


def test_simple_keeps_reservations_and_the_others_drop(runs):
    for seed in (1, 2):
        assert runs["simple", seed].summary["reservations_made"] > 0
        assert runs["simple", seed].summary["tasks_dropped"] == 0
        assert runs["simple-p", seed].summary["tasks_dropped"] == 0
        for policy in ("simple-d", "simple-dp", "max-vptr"):
            assert runs[policy, seed].summary["tasks_dropped"] > 0


def _events(small, seed, policy_name):
    """Run ``vos-small`` event by event, yielding (sim, mappable tasks, policy) before each
    policy call; the policy runs when the caller asks for the next event."""
    cfg = small.params
    wl = generate(cfg, seed)
    sim = VosSim(wl, cfg)
    policy = get_policy("value-of-service", policy_name).build(cfg, rng(seed, "vos/policy"))
    r = cfg.scheduler
    for e in range(int(r.duration_h * 60 / r.interval_min)):
        sim.begin_event(e * r.interval_min)
        tasks = sim.mappable()
        yield sim, tasks, policy
        if tasks.size:
            policy.map(sim, tasks)


def test_placeholders_are_gone_at_the_next_event(small):
    cfg = small.params
    wl = generate(cfg, 3)
    sim = VosSim(wl, cfg)
    policy = ValuePolicy(cfg, None, "vptr")
    checked = 0
    for e in range(600):
        sim.begin_event(float(e))
        tasks = sim.mappable()
        if tasks.size:
            policy.map(sim, tasks)
        if not sim.placeholders:
            continue
        held = dict(sim.placeholders)
        for task in held:
            assert sim.status[task] == WAITING
        sim.begin_event(float(e) + 0.5)  # the next mapping event (any time later)
        assert not sim.placeholders
        tl = sim.nodes[0]
        for task in held:
            assert task not in tl.ivals
        assert set(held) <= set(sim.mappable().tolist())
        twin = copy.deepcopy(tl)
        twin.rebuild(sim.now)  # only running tasks and reservations
        np.testing.assert_array_equal(tl.G[tl.lo:tl.hi], twin.G[twin.lo:twin.hi])
        np.testing.assert_array_equal(tl.F[tl.lo:tl.hi], twin.F[twin.lo:twin.hi])
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("policy, every", [("max-vptr", 2), ("max-vpmr", 5), ("max-value", 5)])
def test_incremental_rounds_make_the_literal_decisions(small, ref, policy, every):
    metric = policy.removeprefix("max-")
    compared = 0
    for i, (sim, tasks, _) in enumerate(_events(small, 4, policy)):
        if tasks.size < 2 or i % every:
            continue
        twin = copy.deepcopy(sim)
        ref.max_vptr_event(twin, tasks, metric)
        mine = copy.deepcopy(sim)
        ValuePolicy(small.params, None, metric).map(mine, tasks)
        for name in ("status", "start", "config", "node"):
            np.testing.assert_array_equal(getattr(mine, name), getattr(twin, name))
        assert mine.cores == twin.cores
        assert mine.placeholders == twin.placeholders
        tl, tt = mine.nodes[0], twin.nodes[0]
        np.testing.assert_array_equal(tl.G[tl.lo:tl.hi], tt.G[tt.lo:tt.hi])
        compared += 1
        if compared >= 40:
            break
    assert compared >= 20


@pytest.mark.parametrize("policy", ["max-vptr", "simple"])
def test_run_simulation_counts_events_and_starts(small, policy):
    cfg = small.params
    wl = generate(cfg, 1)
    heuristic = get_policy("value-of-service", policy).build(cfg, rng(1, "vos/policy"))
    rec = run_simulation(wl, cfg, heuristic, RunClock())
    assert len(rec.events["t_min"]) == 720
    last = rec.events["t_min"][-1]
    # Every start up to the last event is counted once, reservations due between events too.
    started = (rec.sim.status == COMMITTED) & (rec.sim.start <= last)
    assert sum(rec.events["started"]) == started.sum() > 0
