"""Slow, literal implementations of the spec's heuristics (Max Util / Max UPT to Preempt Pair
(ch. 4 spec §9.3-9.6)), for cross-checking.

They work task by task and core by core, exactly as the spec's pseudo-code reads, with the
spec's tie-breaks (tie-breaking (ch. 4 spec §8.4)), and drive the same simulator API as the engine.
The engine's fast versions (streams of grouped tasks, partner classes, lazy heaps) must make
identical decisions.
"""

from __future__ import annotations

import numpy as np

from scheduling.engine import scenario
from scheduling.serial_preemption.sim import Context, SerialSim, run_simulation
from scheduling.serial_preemption.workload import generate


class _Item:
    __slots__ = ("task", "group", "arr", "vals", "cp", "row")

    def __init__(self, task, group, arr, vals, cp, row):
        self.task, self.group, self.arr, self.vals, self.cp, self.row = (
            task, group, arr, vals, cp, row)


def _working(sim: SerialSim, ctx: Context, obj: np.ndarray) -> list[_Item]:
    items = []
    for row, g in enumerate(ctx.gidx.tolist()):
        vals = {j: (float(obj[row, j]), float(ctx.util[row, j]), int(ctx.crank[row, j]),
                    float(ctx.ret[row, j]))
                for j in range(sim.K) if ctx.valid[row, j]}
        for task in range(int(sim.g_next[g]), int(sim.g_end[g])):
            items.append(_Item(task, g, float(sim.t_arr[task]), vals, bool(sim.t_cp[task]), row))
    return items


def _cluster_cores(sim: SerialSim, j: int) -> list[int]:
    return np.flatnonzero(sim.core_cluster == j).tolist()


def _take(sim: SerialSim, item: _Item) -> int:
    task = sim.take(item.group)
    assert task == item.task, "the lowest id of a group must go first"
    return task


class RefGreedy:
    """Max Util/UPT (``none``), Preempt Greedy and Preempt Diff, literally."""

    def __init__(self, mode: str, technique: str):
        self.mode, self.technique = mode, technique

    def _val(self, sim: SerialSim, core: int, started: dict) -> float:
        if core in started:
            return started[core]
        return float(sim.running_values(self.mode, np.array([core]))[0])

    def map(self, sim: SerialSim, ctx: Context) -> None:
        obj = ctx.obj(self.mode)
        working = _working(sim, ctx, obj)
        started: dict[int, float] = {}  # core -> Val of the task started on it in this event
        started_vals: dict[int, dict] = {}
        preemptive = self.technique != "none"
        while working:
            best_key, best = None, None
            for item in working:
                opt_key, opt = None, None
                for j, (v, u, cr, _) in item.vals.items():
                    cores = _cluster_cores(sim, j)
                    idle = [c for c in cores if sim.c_task[c] < 0]
                    if idle:
                        key, core = (v, 1, 0.0, -cr), min(idle)
                    elif preemptive and item.cp:
                        victims = [(self._val(sim, c, started), c) for c in cores
                                   if sim.t_pre[sim.c_task[c]]]
                        if not victims:
                            continue
                        vm, core = min(victims)
                        if not v > vm:
                            continue
                        key = (v - vm if self.technique == "diff" else v, 0, -vm, -cr)
                    else:
                        continue
                    if opt_key is None or key > opt_key:
                        opt_key, opt = key, (j, core, v, u)
                if opt is None:
                    continue
                key = (opt_key[0], -item.arr, -item.task)
                if best_key is None or key > best_key:
                    best_key, best = key, (item, opt)
            if best is None:
                return
            item, (j, core, v, u) = best
            working.remove(item)
            if sim.c_task[core] >= 0:
                vm = self._val(sim, core, started)
                r_util = float(sim.c_util[core])
                r = sim.preempt(core)
                g = sim.new_singleton(r)
                # With progress it is bound to j; without (Diff) it keeps its original values.
                vals = {j: (vm, r_util, 0, 0.0)} if sim.bound[r] >= 0 else started_vals[r]
                working.append(_Item(r, g, float(sim.t_arr[r]), vals, bool(sim.t_cp[r]), -1))
            task = _take(sim, item)
            sim.start(task, core, u)
            started[core] = v
            started_vals[task] = item.vals


class RefPair:
    """Max Util/UPT Preempt Pair, literally, with the per-event guard (no re-preemption in one event
    (ch. 4 spec A19))."""

    def __init__(self, mode: str, tie: str = "wait"):
        self.mode = mode
        self.tie = tie

    def _obj(self, sim, task, ct, ret):
        u = float(sim.ufast.value(np.array([sim.t_urow[task]]), sim.t_scale[task],
                                  np.array([ct - sim.t_arr[task]]))[0])
        return (u / ret if self.mode == "upt" else u), u

    def map(self, sim: SerialSim, ctx: Context) -> None:
        obj = ctx.obj(self.mode)
        working = _working(sim, ctx, obj)
        t = sim.now
        upt = self.mode == "upt"
        cache: dict = {}
        while working:
            best_key, best = None, None
            for item in working:
                idle_opt = None
                for j, (v, u, cr, _) in item.vals.items():
                    idle = [c for c in _cluster_cores(sim, j) if sim.c_task[c] < 0]
                    if idle and (idle_opt is None or (v, -cr) > (idle_opt[0], -idle_opt[4])):
                        idle_opt = (v, u, j, min(idle), cr)
                pair = None
                if item.cp:
                    for core in range(sim.M):
                        r = int(sim.c_task[core])
                        j = int(sim.core_cluster[core])
                        if (r < 0 or not sim.t_pre[r] or sim.c_event[core] == sim.event
                                or j not in item.vals):
                            continue
                        v_t, u_t, _, ret_t = item.vals[j]
                        ret_r = float(sim.c_end[core]) - t
                        u_r_now = float(sim.c_util[core])
                        val_r = u_r_now / ret_r if upt else u_r_now
                        # Both tasks' states are fixed within the event: cache the orderings.
                        cached = cache.get((item.task, core))
                        if cached is None:
                            ct_a = t + ret_t
                            obj_ra, _ = self._obj(sim, r, ct_a + ret_r, ret_r)
                            u_tb = float(sim.ufast.value(
                                np.array([sim.t_urow[item.task]]), sim.t_scale[item.task],
                                np.array([t + ret_r + ret_t - item.arr]))[0])
                            cached = cache[(item.task, core)] = (obj_ra, u_tb)
                        obj_ra, u_tb = cached
                        net_a = v_t + obj_ra
                        own_b = u_tb / ret_t if upt else u_tb
                        net_b = val_r + own_b
                        # equal nets: no preemption (Pair's ties (ch. 4 spec A18)), or preempt with
                        # pair_tie="preempt"
                        if net_a > net_b or (net_a == net_b and self.tie == "preempt"):
                            cand = (net_a, "A", v_t, u_t, core, val_r)
                        else:
                            cand = (net_b, "B", own_b, u_tb, core, val_r)
                        if pair is None or cand[0] > pair[0]:
                            pair = cand
                if pair is not None and (idle_opt is None
                                         or pair[0] > idle_opt[0] + pair[5]):
                    opt = (pair[1], pair[2], pair[3], pair[4])
                elif idle_opt is not None:
                    opt = ("idle", idle_opt[0], idle_opt[1], idle_opt[3])
                else:
                    continue
                if not opt[2] > sim.min_utility:
                    continue
                key = (opt[1], -item.arr, -item.task)
                if best_key is None or key > best_key:
                    best_key, best = key, (item, opt)
            if best is None:
                return
            item, (kind, _, _, core) = best
            working.remove(item)
            if kind == "B":
                continue
            j = int(sim.core_cluster[core])
            u = item.vals[j][1]
            if kind == "A":
                r_util = float(sim.c_util[core])
                ret_r = float(sim.c_end[core]) - t
                val_r = r_util / ret_r if upt else r_util
                r = sim.preempt(core)
                g = sim.new_singleton(r)
                assert sim.bound[r] == j
                working.append(_Item(r, g, float(sim.t_arr[r]), {j: (val_r, r_util, 0, ret_r)},
                                     bool(sim.t_cp[r]), -1))
            sim.start(_take(sim, item), core, u)


def tiny_config(**groups):
    """A few cores and tasks: small enough for the literal reference heuristics."""
    params = {
        "system": {"n_clusters": 3, "cores_per_cluster": 2},
        "etc": {"n_types": 6, "n_critical_types": 2},
        "workload": {"burst_size": 3, "tasks_per_core_per_day": 150},
        "scheduler": {"duration_min": 180, "warmup_min": 30},
    }
    for name, values in groups.items():
        params.setdefault(name, {}).update(values)
    return scenario("serial-preemption", params).params


def simulate_raw(cfg, policy, seed, trace=True):
    """Run ``policy`` (an object with map) on the trial workload; returns (record, workload)."""
    wl = generate(cfg, seed)
    s = cfg.scheduler
    rec = run_simulation(wl, policy, warmup=s.warmup_min, duration=s.duration_min,
                         interval=s.mapping_interval_min, min_utility=s.min_utility,
                         tie_break=s.tie_break, trace=trace)
    return rec, wl
