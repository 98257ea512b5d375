"""A kind's policy type is checked when a policy registers, with an error naming the policy;
every kind declares one, a base with one documented method, and a small policy written on each
base runs a preset of its kind to a finished result."""

import heapq
import importlib
import re
from contextlib import contextmanager

import numpy as np
import pytest

from scheduling.engine import ENGINE, preset_scenario, simulate
from scheduling.grid.policies import GridScheduler
from scheduling.hpc.replay import JobReplay
from scheduling.many_task.policies import ManyTaskPolicy
from scheduling.parallel_energy.policies import Policy
from scheduling.serial_preemption.policies import SerialPolicy
from scheduling.swf_preemptive.policies import VictimPolicy
from scheduling.swf_replay.sim import Replay
from scheduling.value_of_service.policies import VosPolicy
from simcore.registry import Engine
from uav.engine import ENGINE as UAV
from uav.engine.policies import UavPolicy


class Base:
    def order(self, jobs):
        raise NotImplementedError


class ShortestFirst(Base):
    def order(self, jobs):
        return sorted(jobs)


def _engine():
    engine = Engine("t", "t", kinds={"k": "t.k"})
    engine.kind("k", title="k", description="k", config_cls=object, policy_type=Base)(
        lambda *a: None)
    return engine


def test_a_policy_of_the_kind_s_type_registers_and_any_other_is_refused_by_name():
    engine = _engine()
    engine.policy("k", "shortest", label="S", description="", spec="")(ShortestFirst)
    assert engine.get_policy("k", "shortest").factory is ShortestFirst
    with pytest.raises(TypeError, match=r"policy 'plain' of kind 'k' must be a subclass of "
                                        r".*\.Base, got <function"):
        engine.policy("k", "plain", label="P", description="", spec="")(lambda jobs: jobs)
    with pytest.raises(TypeError, match="policy 'other-class'"):
        engine.policy("k", "other-class", label="O", description="", spec="")(dict)


def test_a_policy_is_built_with_the_options_it_was_registered_with():
    class Weighted(Base):
        def __init__(self, cfg, weight=1):
            self.cfg, self.weight = cfg, weight

    engine = _engine()
    engine.policy("k", "heavy", label="H", description="", spec="", weight=5)(Weighted)
    engine.policy("k", "plain", label="P", description="", spec="")(Weighted)
    heavy, plain = engine.get_policy("k", "heavy").build("cfg"), engine.get_policy(
        "k", "plain").build("cfg")
    assert (type(heavy), heavy.cfg, heavy.weight) == (Weighted, "cfg", 5)
    assert plain.weight == 1


def test_policies_registered_before_their_kind_are_checked_when_it_registers():
    engine = Engine("t", "t", kinds={"k": "t.k"})
    engine.policy("k", "plain", label="P", description="", spec="")(lambda jobs: jobs)
    with pytest.raises(TypeError, match="policy 'plain' of kind 'k'"):
        engine.kind("k", title="k", description="k", config_cls=object, policy_type=Base)(
            lambda *a: None)


def test_the_replay_kind_declares_its_policy_type_and_its_policies_are_of_it():
    assert ENGINE.get_kind("swf-replay").policy_type is Replay
    assert all(issubclass(p.factory, Replay) for p in ENGINE.list_policies("swf-replay"))


# -- every kind declares its base; a policy written against it runs --------------------------

@contextmanager
def registered(engine, kind, name, cls, **options):
    """``cls`` registered as policy ``name`` of ``kind`` for the duration of a test."""
    engine.policy(kind, name, label=name, description="a test policy", spec="",
                  **options)(cls)
    try:
        yield
    finally:
        del engine.policies[(kind, name)]


BASES = {  # kind -> (engine, the base's import path, its one method)
    "grid": (ENGINE, "scheduling.grid.policies.base.GridScheduler", "local"),
    "parallel-energy": (ENGINE, "scheduling.parallel_energy.policies.base.Policy", "map"),
    "value-of-service": (ENGINE, "scheduling.value_of_service.policies.base.VosPolicy", "map"),
    "many-task": (ENGINE, "scheduling.many_task.policies.base.ManyTaskPolicy", "order"),
    "uav": (UAV, "uav.engine.policies.base.UavPolicy", "map"),
    "serial-preemption": (ENGINE, "scheduling.serial_preemption.policies.base.SerialPolicy",
                          "map"),
}


def _base(path):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("kind", sorted(BASES))
def test_each_kind_declares_its_base_and_every_policy_of_it_is_a_subclass(kind):
    engine, path, method = BASES[kind]
    base = _base(path)
    assert engine.get_kind(kind).policy_type is base
    assert engine.list_policies(kind)
    assert all(issubclass(p.factory, base) for p in engine.list_policies(kind))
    assert base.__abstractmethods__ == {method}
    doc = getattr(base, method).__doc__ or ""
    assert len(doc.split()) > 30, f"{path}.{method} is not documented"


@pytest.mark.parametrize("kind", sorted(BASES))
def test_each_kind_refuses_a_policy_of_another_type_by_name(kind):
    engine, path, method = BASES[kind]
    before = dict(engine.policies)
    with pytest.raises(TypeError, match=rf"policy 'not-a-policy' of kind '{kind}' must be a "
                                        rf"subclass of {re.escape(path)}, got <function"):
        engine.policy(kind, "not-a-policy", label="N", description="", spec="")(
            lambda *args: None)
    # a subclass that leaves the one method out is refused too, naming the method
    incomplete = type("Incomplete", (_base(path),), {})
    with pytest.raises(TypeError, match=rf"policy 'incomplete' of kind '{kind}' \(Incomplete\) "
                                        rf"does not define {method}"):
        engine.policy(kind, "incomplete", label="I", description="", spec="")(incomplete)
    assert engine.policies == before


class StartNowFirstFit(Policy):
    """Each waiting task, in arrival order, on the first cluster where it can start now at
    P-state 0 within the energy budget; never reserves."""

    def map(self, st, ctx):
        opts = st.options
        for t in ctx.tasks.tolist():
            for c in opts.eligible_clusters[t]:
                d = float(opts.duration[t, c, 0])
                start = float(st.timelines[c].earliest1(int(opts.nodes[t, c]), [d])[0])
                power = float(st.charge_power[t, c, 0])
                if start <= st.now and st.ledger.fits(start, start + d, power):
                    st.assign(t, c, 0, start, permanent=True)
                    ctx.assigned.add(t)
                    break


def test_a_parallel_energy_policy_written_on_the_base_runs_a_preset_to_the_end():
    with registered(ENGINE, "parallel-energy", "test-start-now", StartNowFirstFit):
        scenario = preset_scenario("small", {"time.sim_h": 8.0})
        result = simulate(scenario, "test-start-now", seed=3)
    interval = scenario.params.time.mapping_interval_s
    tasks = result.tasks
    started = [i for i, s in enumerate(tasks["start"]) if s is not None]
    assert result.summary["tasks_completed"] > 0 and started
    assert result.meta["policy"] == "test-start-now"
    # it never reserves: every task starts at the mapping event that placed it and nothing
    # is ever held for later
    assert all(tasks["start"][i] % interval == 0 for i in started)
    assert not any(result.events["reserved"])


class FirstConfigurationNow(VosPolicy):
    """Arrival order, each task's first configuration, started now where it fits; never
    books the future, never drops."""

    def map(self, sim, tasks):
        wl = sim.wl
        for j in tasks.tolist():
            ty = wl.type[j]
            c, m, d = wl.cfg_cores[ty, :1], wl.cfg_mem[ty, :1], wl.etc[ty, :1]
            start, node = sim.earliest(c, m, d)
            if start[0] == sim.now:
                sim.assign(j, 0, sim.now, int(node[0]), "lowest", placeholder=False)


def test_a_value_of_service_policy_written_on_the_base_runs_a_preset_to_the_end():
    with registered(ENGINE, "value-of-service", "test-first-now", FirstConfigurationNow):
        result = simulate(preset_scenario("vos-small"), "test-first-now", seed=3)
    summary = result.summary
    assert summary["tasks_completed"] > 0 and summary["vos"] > 0
    assert summary["reservations_made"] == summary["placeholders_made"] == 0
    assert summary["tasks_dropped"] == 0


class HighestUtilityFirst(SerialPolicy):
    """Waiting groups by their best utility, each task on an idle core of its best valid
    cluster; never preempts."""

    def map(self, sim, ctx):
        best = ctx.util.max(axis=1)
        for row in np.argsort(-best, kind="stable").tolist():
            for _ in range(int(ctx.count[row])):
                open_ = [j for j in range(sim.K) if ctx.valid[row, j] and sim.idle[j]]
                if not open_:
                    break
                j = max(open_, key=lambda j: ctx.util[row, j])
                core = heapq.heappop(sim.idle[j])
                sim.start(sim.take(int(ctx.gidx[row])), core, float(ctx.util[row, j]))


def test_a_serial_preemption_policy_written_on_the_base_runs_a_preset_to_the_end():
    with registered(ENGINE, "serial-preemption", "test-best-first", HighestUtilityFirst):
        result = simulate(preset_scenario("ch4-small"), "test-best-first", seed=3)
    summary = result.summary
    assert summary["tasks_completed"] > 0 and summary["pct_max_utility"] > 0
    assert summary["preemptions"] == 0


class ShortestTaskFirst(ManyTaskPolicy):
    """Shortest task first (the opposite of the paper's longest first)."""

    def order(self, runtimes, seed):
        return np.argsort(runtimes, kind="stable")


def test_a_many_task_policy_written_on_the_base_runs_a_preset_to_the_end():
    with registered(ENGINE, "many-task", "test-shortest", ShortestTaskFirst,
                    chop=False):
        result = simulate(preset_scenario("many-task-small"), "test-shortest", seed=3)
    assert result.summary["tts_h"] > 0
    tasks = result.tasks
    dispatched = np.asarray(tasks["runtime_s"])[np.argsort(tasks["dispatch"])]
    assert len(dispatched) > 1 and np.all(np.diff(dispatched) >= 0)


class StrictFcfs(GridScheduler):
    """Each node starts the head of its queue while it fits: FCFS without backfilling."""

    def local(self, sim, node, t):
        queue, acted = sim.queue[node], False
        while queue:
            job = queue[0][2]
            if (sim.rc[job] > sim.free_c[node] or sim.rm[job] > sim.free_m[node]
                    or sim.rd[job] > sim.free_d[node]):
                break
            sim.dequeue(job, node)
            sim.start(job, node, t)
            acted = True
        return acted, False


def test_a_grid_scheduler_written_on_the_base_runs_a_preset_to_the_end():
    with registered(ENGINE, "grid", "test-strict-fcfs", StrictFcfs):
        result = simulate(preset_scenario("grid-small", {"jobs.iat_s": 5.0}), "test-strict-fcfs",
                          seed=3)
    summary, tasks = result.summary, result.tasks
    assert summary["preemptions"] == summary["migrations"] == 0
    assert np.all(np.isfinite(tasks["end"])) and len(tasks["end"]) == summary["jobs"]
    # without backfilling each node starts its jobs in the order they were submitted (at this
    # load the built-in fcfs, which backfills, does not)
    node, start = np.asarray(tasks["node"]), np.asarray(tasks["start"])
    for n in np.unique(node):
        assert np.all(np.diff(start[node == n]) >= 0)


class EachUavItsBestTarget(UavPolicy):
    """UAVs in index order, each idle one on its highest-value valid idle target; never
    preempts."""

    def map(self, view):
        for u in np.flatnonzero(view.uav_ok & (view.running_target < 0)).tolist():
            free = view.valid[u] & (view.target_ok & (view.running_uav < 0))[:, None]
            if free.any():
                t, s = np.unravel_index(np.where(free, view.V[u], -np.inf).argmax(), free.shape)
                view.start(u, int(s), int(t))


def test_a_uav_policy_written_on_the_base_runs_a_preset_to_the_end():
    with registered(UAV, "uav", "test-best-target", EachUavItsBestTarget):
        result = UAV.simulate(UAV.preset_scenario("small-baseline"), "test-best-target", seed=3)
    assert result.summary["value"] > 0 and result.tasks["id"]
    assert not any(result.tasks["preempted"])


def test_the_preemptive_kind_declares_its_victim_policies_and_shares_only_the_event_loop():
    from scheduling.swf_preemptive.sim import Maui

    assert ENGINE.get_kind("swf-preemptive").policy_type is VictimPolicy
    factories = [p.factory for p in ENGINE.list_policies("swf-preemptive")]
    assert len(factories) == 8 and all(issubclass(f, VictimPolicy) for f in factories)
    # Both trace kinds run on the shared loop; neither kind's scheduler is the other's.
    assert issubclass(Maui, JobReplay) and issubclass(Replay, JobReplay)
    assert not issubclass(Maui, Replay)
    with pytest.raises(TypeError, match=r"policy 'replay-easy' of kind 'swf-preemptive' must be "
                                        r"a subclass of .*\.VictimPolicy"):
        ENGINE.policy("swf-preemptive", "replay-easy", label="E", description="",
                      spec="")(ENGINE.get_policy("swf-replay", "easy").factory)


def test_every_kind_declares_a_policy_base_and_a_kind_without_one_is_refused():
    kinds = [*ENGINE.list_kinds(), *UAV.list_kinds()]
    assert len(kinds) == 8 and all(isinstance(k.policy_type, type) for k in kinds)
    engine = Engine("t", __name__, kinds={"k": __name__})
    with pytest.raises(TypeError, match="policy_type"):
        engine.kind("k", title="k", description="k", config_cls=object)
    with pytest.raises(TypeError, match=r"kind 'k': policy_type must be the base class"):
        engine.kind("k", title="k", description="k", config_cls=object, policy_type=None)
