"""Every kind enforces its rules against any policy: a faulty policy's run fails with
``PolicyViolation`` naming the rule and the policy, never a wrong result.

Each faulty policy is written here, registered on its kind's engine under a unique name for
the test, and run through ``ENGINE.simulate`` (the path the CLI, the lab and sweeps take).
"""

from __future__ import annotations

import heapq
import math
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import ENGINE
from simcore.errors import RULES, PolicyViolation


@contextmanager
def registered(engine, kind: str, factory, **options):
    """``factory`` registered as a policy of ``kind`` for the block, under a fresh name."""
    engine.get_kind(kind)  # loads the kind, so its own policies are there first
    name = f"faulty-{factory.__name__.lower()}-{id(factory):x}"
    engine.policy(kind, name, label=name, description="a faulty policy written by a test",
                  spec="test", **options)(factory)
    try:
        yield name
    finally:
        del engine.policies[(kind, name)]


def violation(engine, preset: str, factory, overrides=None, seed: int = 1, **options):
    kind = engine.get_preset(preset).kind
    with registered(engine, kind, factory, **options) as name, \
            pytest.raises(PolicyViolation) as caught:
        engine.simulate(engine.preset_scenario(preset, overrides or {}), policy=name, seed=seed)
    exc = caught.value
    assert exc.policy == name
    assert f"policy {name!r} broke the rule {exc.rule!r}" in str(exc)
    return exc


def test_the_error_names_the_rule_its_meaning_and_the_policy():
    exc = PolicyViolation("capacity", "mine", "task 3 at 60 s")
    assert str(exc) == (f"policy 'mine' broke the rule 'capacity' ({RULES['capacity']}): "
                        "task 3 at 60 s")
    with pytest.raises(ValueError, match="unknown rule"):
        PolicyViolation("no-such-rule", "mine", "")


# -- parallel-energy (ch. 3) ---------------------------------------------------------------------
from scheduling.parallel_energy.policies.base import Policy  # noqa: E402
from scheduling.parallel_energy.state import PENDING  # noqa: E402


def _first_cluster(st_, t):
    return int(np.flatnonzero(st_.options.eligible[t])[0])


class StartsTheFuture(Policy):
    """Maps the next task that has not arrived yet."""

    def map(self, st_, ctx):
        t = st_.next_arrival
        if t < st_.trial.tasks.n and st_.status[t] == PENDING:
            st_.assign(t, _first_cluster(st_, t), 0, st_.now + 1e6, permanent=True)


class StartsTwice(Policy):
    def map(self, st_, ctx):
        for t in ctx.tasks[:1].tolist():
            c = _first_cluster(st_, t)
            s = float(st_.timelines[c].earliest1(int(st_.options.nodes[t, c]),
                                                 st_.options.duration[t, c, :1])[0])
            st_.assign(t, c, 0, s, permanent=True)
            st_.assign(t, c, 0, s + 1e5, permanent=True)


class StartsInThePast(Policy):
    def map(self, st_, ctx):
        if st_.now > 0 and len(ctx.tasks):
            t = int(ctx.tasks[0])
            st_.assign(t, _first_cluster(st_, t), 0, st_.now - 60.0, permanent=True)


class StartsEverythingNow(Policy):
    """Starts every mappable task now on its first cluster, busy or not."""

    def map(self, st_, ctx):
        for t in ctx.tasks.tolist():
            st_.assign(t, _first_cluster(st_, t), 0, st_.now, permanent=True)
            ctx.assigned.add(t)


class IgnoresTheBudget(Policy):
    """Books every task at its earliest start, whatever energy is left."""

    def map(self, st_, ctx):
        for t in ctx.tasks.tolist():
            c = _first_cluster(st_, t)
            s = float(st_.timelines[c].earliest1(int(st_.options.nodes[t, c]),
                                                 st_.options.duration[t, c, :1])[0])
            if math.isfinite(s):
                st_.assign(t, c, 0, s, permanent=True)
                ctx.assigned.add(t)


class UsesAForbiddenPState(Policy):
    def map(self, st_, ctx):
        for t in ctx.tasks[:1].tolist():
            st_.assign(t, _first_cluster(st_, t), 99, st_.now, permanent=True)


NO_BUDGET = {"energy.budget_gj": None}


@pytest.mark.parametrize("factory,overrides,rule", [
    (StartsTheFuture, NO_BUDGET, "arrival"),
    (StartsTwice, NO_BUDGET, "waiting-task"),
    (StartsInThePast, NO_BUDGET, "start-time"),
    (StartsEverythingNow, NO_BUDGET, "capacity"),
    (IgnoresTheBudget, {"energy.budget_gj": 0.5}, "energy-budget"),
    (UsesAForbiddenPState, NO_BUDGET, "eligibility"),
])
def test_parallel_energy_refuses_each_broken_rule(factory, overrides, rule):
    exc = violation(ENGINE, "small", factory, overrides)
    assert exc.rule == rule
    assert "task " in exc.detail


def test_the_budget_check_lets_a_correct_policy_through_unchanged():
    """The same budget that stops IgnoresTheBudget leaves the built-in heuristics running."""
    scenario = ENGINE.preset_scenario("small", {"energy.budget_gj": 0.5})
    result = ENGINE.simulate(scenario, policy="max-upe-ph", seed=1)
    assert result.summary["energy_gj"] > 0


# -- value-of-service (ch. 2) --------------------------------------------------------------------
from scheduling.value_of_service.policies.base import VosPolicy  # noqa: E402


class VosEarly(VosPolicy):
    """Starts, at the first event, a task that arrives later."""

    def __init__(self, cfg, rng):
        super().__init__(cfg, rng)
        self.done = False

    def map(self, sim, tasks):
        if self.done:
            return
        self.done = True
        j = int(np.flatnonzero(sim.wl.arrival > sim.now)[0])
        ty = sim.wl.type[j]
        s, node = sim.earliest(sim.wl.cfg_cores[ty, 0], sim.wl.cfg_mem[ty, 0], sim.wl.etc[ty, 0])
        sim.assign(j, 0, float(s[0]), int(node[0]), "lowest", False)


class VosEverythingNow(VosPolicy):
    """Starts every mappable task now, whether its cores are free or not."""

    def map(self, sim, tasks):
        for j in tasks.tolist():
            sim.assign(j, 0, sim.now, 0, "lowest", False)


class VosTwice(VosPolicy):
    def map(self, sim, tasks):
        j = int(tasks[0])
        ty = sim.wl.type[j]
        for _ in range(2):
            s, node = sim.earliest(sim.wl.cfg_cores[ty, 0], sim.wl.cfg_mem[ty, 0],
                                   sim.wl.etc[ty, 0])
            sim.assign(j, 0, float(s[0]), int(node[0]), "lowest", False)


class VosWrongConfiguration(VosPolicy):
    def map(self, sim, tasks):
        j = int(tasks[0])
        sim.assign(j, int(sim.wl.n_cfg[sim.wl.type[j]]), sim.now, 0, "lowest", False)


@pytest.mark.parametrize("factory,rule", [
    (VosEarly, "arrival"), (VosEverythingNow, "capacity"), (VosTwice, "waiting-task"),
    (VosWrongConfiguration, "eligibility"),
])
def test_value_of_service_refuses_each_broken_rule(factory, rule):
    assert violation(ENGINE, "vos-small", factory).rule == rule


# -- serial-preemption (ch. 4) -------------------------------------------------------------------
from scheduling.serial_preemption.policies.base import SerialPolicy  # noqa: E402


class SerialEarly(SerialPolicy):
    def map(self, sim, ctx):
        later = np.flatnonzero(sim.t_arr > sim.now)
        if later.size:
            sim.start(int(later[0]), 0, 1.0)


class SerialSameCore(SerialPolicy):
    """Starts every waiting task on core 0."""

    def map(self, sim, ctx):
        for g in ctx.gidx.tolist():
            sim.start(sim.take(g), 0, 1.0)


class SerialTwice(SerialPolicy):
    def map(self, sim, ctx):
        if len(ctx.gidx):
            task = sim.take(int(ctx.gidx[0]))
            sim.start(task, int(sim.idle[0][0]), 1.0)
            sim.start(task, int(sim.idle[1][0]), 1.0)


class SerialSuspendsAnything(SerialPolicy):
    """Suspends whatever runs on a core, preemptible or not."""

    def map(self, sim, ctx):
        for core in np.flatnonzero(sim.c_task >= 0).tolist():
            sim.preempt(core)
        for g in ctx.gidx.tolist():
            j = int(sim.core_cluster[0])
            if sim.idle[j]:
                sim.start(sim.take(g), heapq.heappop(sim.idle[j]), 1.0)


@pytest.mark.parametrize("factory,rule", [
    (SerialEarly, "arrival"), (SerialSameCore, "capacity"), (SerialTwice, "waiting-task"),
    (SerialSuspendsAnything, "preemptible"),
])
def test_serial_preemption_refuses_each_broken_rule(factory, rule):
    some_not_preemptible = {"workload.p_preemptible": 0.5}
    assert violation(ENGINE, "ch4-small", factory, some_not_preemptible).rule == rule


def test_a_suspended_task_resumed_elsewhere_breaks_bound_cluster():
    from scheduling.serial_preemption import run_simulation  # noqa: F401  (kind loaded)
    from scheduling.serial_preemption.sim import SerialSim
    from scheduling.serial_preemption.workload import generate

    cfg = ENGINE.preset_scenario("ch4-small").params
    sim = SerialSim(generate(cfg, 1), warmup=0.0, duration=60.0)
    sim.advance(float(sim.t_arr[0]))
    sim.start(0, 0, 1.0)  # core 0 is on cluster 0
    sim.advance(float(sim.t_arr[0]) + 0.5)
    sim.preempt(0)
    last = sim.M - 1  # on the last cluster
    with pytest.raises(PolicyViolation) as caught:
        sim.start(0, last, 1.0)
    assert caught.value.rule == "bound-cluster"
    assert sim.c_task[last] == -1  # refused before anything changed


# -- swf-replay and swf-preemptive (shared Replay machine) ---------------------------------------
from scheduling.swf_replay.sim import Replay  # noqa: E402


class ReplayEarly(Replay):
    def schedule(self, t, completed, first_new):
        if self.arrived < self.J:
            self.start(self.arrived, t)


class ReplayGreedy(Replay):
    """Starts every arrived job at once, free nodes or not."""

    def schedule(self, t, completed, first_new):
        for j in range(first_new, self.arrived):
            self.start(j, t)


class ReplayTwice(Replay):
    def schedule(self, t, completed, first_new):
        if first_new < self.arrived and self.n[first_new] <= self.free:
            self.start(first_new, t)
            self.start(first_new, t)


@pytest.mark.parametrize("factory,rule", [
    (ReplayEarly, "arrival"), (ReplayGreedy, "capacity"), (ReplayTwice, "waiting-task"),
])
def test_swf_replay_refuses_each_broken_rule(factory, rule):
    exc = violation(ENGINE, "swf-small", factory)
    assert exc.rule == rule
    assert "job index" in exc.detail


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), p_bad=st.floats(0.0, 0.2))
def test_a_random_replay_policy_either_fails_by_name_or_gives_a_valid_schedule(seed, p_bad):
    """Whatever a policy does, a result that comes back keeps every rule: recomputed here from
    the result's own per-job columns (nodes in use never above the machine, no job started
    before its submit time); a run that breaks one fails instead."""
    gen = np.random.default_rng(seed)

    class Chaotic(Replay):
        def schedule(self, t, completed, first_new):
            waiting = [j for j in range(self.arrived) if math.isnan(self.start_t[j])]
            for j in gen.permutation(waiting).tolist():
                if self.n[j] <= self.free or gen.random() < p_bad:
                    self.start(j, t)
            if gen.random() < p_bad and self.arrived < self.J:
                self.start(self.arrived, t)

    with registered(ENGINE, "swf-replay", Chaotic) as name:
        scenario = ENGINE.preset_scenario("swf-example")
        try:
            result = ENGINE.simulate(scenario, policy=name, seed=0)
        except PolicyViolation as exc:
            assert exc.rule in {"capacity", "arrival"} and exc.policy == name
            return
    tasks = result.tasks
    start, end = np.asarray(tasks["start"], float), np.asarray(tasks["end"], float)
    nodes = np.asarray(tasks["nodes"], float)
    assert (start >= np.asarray(tasks["submit"], float)).all()
    for t in np.unique(start):
        assert nodes[(start <= t) & (end > t)].sum() <= result.extra["nodes"]


class TakesNoVictims:
    """A victim order that hands back none of the pool: its blocked job starts anyway."""

    preempts = True

    def __init__(self, sim):
        self.sim = sim

    def order(self, pool, t):
        return []


class KillsOutsideThePool(TakesNoVictims):
    """A victim order that names jobs the blocked job has no right to preempt."""

    def order(self, pool, t):
        running = [v for _, v in self.sim.running if v not in set(pool)]
        return running + list(pool)


def test_swf_preemptive_refuses_a_victim_order_that_frees_too_little():
    exc = violation(ENGINE, "pbb-small", TakesNoVictims)
    assert exc.rule == "capacity"


def test_swf_preemptive_refuses_a_victim_outside_the_pool():
    exc = violation(ENGINE, "pbb-small", KillsOutsideThePool)
    assert exc.rule == "preemptible"


# -- grid ----------------------------------------------------------------------------------------
from scheduling.grid.policies.base import GridScheduler  # noqa: E402


class GridEverythingNow(GridScheduler):
    """Starts every job queued at a node at once, whether it fits or not."""

    def local(self, sim, node, t):
        for _, _, j in list(sim.queue[node]):
            sim.dequeue(j, node)
            sim.start(j, node, t)
        return True, False


class GridTooSlow(GridScheduler):
    """Starts a queued job on the slowest node, whatever speed the job needs."""

    def local(self, sim, node, t):
        slow = min(range(sim.n), key=lambda u: sim.speed[u])
        for _, _, j in list(sim.queue[node]):
            if sim.rs[j] > sim.speed[slow]:
                sim.dequeue(j, node)
                sim.start(j, slow, t)
        return False, False


@pytest.mark.parametrize("factory,rule", [(GridEverythingNow, "capacity"),
                                          (GridTooSlow, "eligibility")])
def test_grid_refuses_each_broken_rule(factory, rule):
    assert violation(ENGINE, "grid-small", factory).rule == rule


def test_grid_refuses_a_job_not_yet_submitted_or_not_dequeued():
    from scheduling.grid import neighbours, options
    from scheduling.grid.policies import FcfsBackfill
    from scheduling.grid.sim import GridSim
    from scheduling.grid.workload import generate

    cfg = ENGINE.preset_scenario("grid-small").params
    wl = generate(cfg, 1)
    scheduler = FcfsBackfill(cfg)
    sim = GridSim(wl, scheduler, options(cfg), 1, neighbours=neighbours(scheduler, wl, 1))
    with pytest.raises(PolicyViolation) as caught:
        sim.start(0, 0, 0.0)  # job 0 has not been submitted at time 0
    assert caught.value.rule == "arrival"
    t = sim.submit[0]
    sim.enqueue(0, 0, t, 0.0)
    with pytest.raises(PolicyViolation) as caught:
        sim.start(0, 0, t)  # still in the queue
    assert caught.value.rule == "waiting-task"
    assert sim.free_c[0] == sim.cap_c[0]  # refused before anything changed


# -- many-task -----------------------------------------------------------------------------------
from scheduling.many_task.policies.base import ManyTaskPolicy  # noqa: E402


class DropsATask(ManyTaskPolicy):
    def order(self, runtimes, seed):
        return np.arange(runtimes.size - 1)


class DispatchesTwice(ManyTaskPolicy):
    def order(self, runtimes, seed):
        o = np.arange(runtimes.size)
        o[-1] = 0
        return o


class NamesNoSuchTask(ManyTaskPolicy):
    def order(self, runtimes, seed):
        o = np.arange(runtimes.size)
        o[0], o[1] = runtimes.size, -1
        return o


@pytest.mark.parametrize("factory", [DropsATask, DispatchesTwice, NamesNoSuchTask])
def test_many_task_refuses_an_order_that_is_not_every_task_once(factory):
    exc = violation(ENGINE, "many-task-small", factory, chop=False)
    assert exc.rule == "waiting-task"


# -- uav (ch. 5) ---------------------------------------------------------------------------------
from uav.engine import ENGINE as UAV  # noqa: E402
from uav.engine.policies.base import UavPolicy  # noqa: E402


def _uav_policy(pick):
    class Faulty(UavPolicy):
        def map(self, view):
            choice = pick(view)
            if choice is not None:
                view.start(*choice)

    Faulty.__name__ = pick.__name__
    return Faulty


def _closed_target(view):
    closed = np.flatnonzero(~view.target_ok)
    ok = np.argwhere(view.valid & view.uav_ok[:, None, None])
    for u, t, s in ok.tolist():
        if t in set(closed.tolist()):
            return u, s, t
    return None


def _wrong_sensor(view):
    bad = np.argwhere(~view.valid & view.uav_ok[:, None, None] & view.target_ok[None, :, None])
    return tuple(int(x) for x in (bad[0][0], bad[0][2], bad[0][1])) if len(bad) else None


def _empty_uav(view):
    drained = np.flatnonzero(view._sim.uav_present & ~(view.energy_remaining > 1e-12))
    targets = np.flatnonzero(view.target_ok)
    if drained.size and targets.size:
        u, t = int(drained[0]), int(targets[0])
        s = int(np.flatnonzero(view._sim.uav_has_sensor[u])[0])
        return u, s, t
    return None


@pytest.mark.parametrize("pick,rules", [
    (_closed_target, {"arrival", "waiting-task"}), (_wrong_sensor, {"eligibility"}),
])
def test_uav_refuses_each_broken_rule(pick, rules):
    assert violation(UAV, "small-baseline", _uav_policy(pick)).rule in rules


def _keeps_busy_then_starts_a_drained_uav(view):
    """Keeps every UAV busy on any valid target until one has no energy left, then starts
    that one."""
    choice = _empty_uav(view)
    if choice is not None:
        return choice
    for u in np.flatnonzero(view.uav_ok & (view.running_target < 0)).tolist():
        free = np.flatnonzero(view.target_ok & (view.running_uav < 0)
                              & view.valid[u].any(axis=1))
        if free.size:
            t = int(free[0])
            view.start(u, int(np.flatnonzero(view.valid[u, t])[0]), t)
    return None


def test_uav_refuses_a_surveil_by_a_uav_without_energy():
    faulty = _uav_policy(_keeps_busy_then_starts_a_drained_uav)
    assert violation(UAV, "small-baseline", faulty).rule == "energy-budget"
