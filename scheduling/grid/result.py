"""Turn a finished grid run into its :class:`Result` (experiments (grid spec §8) metrics).

The wait of a job is the paper's: its non-executing time at the node where it finally ran,
counted from its arrival there (priority (grid spec §4), experiments (grid spec §8)). The
conventional wait counts from submission and includes time spent at nodes it later left (experiments
(grid spec §8) [DEFAULT], for transparency).
"""

from __future__ import annotations

import math

import numpy as np

from simcore.clock import RunClock
from simcore.result import Result, plain

from . import overlay as ov
from .sim import GridSim
from .workload import MIB

LOAD_ROWS = 200  # node groups of the load map
LOAD_COLUMNS = 150  # time bins of the load map
KINDS = ("push", "pull", "balance")


def wait_stats(wait: np.ndarray, tail: int) -> dict:
    """Median, mean, top-10% median, percentiles, tail mean and maximum of a wait sample."""
    if wait.size == 0:
        return {k: 0.0 for k in ("median", "mean", "top10_median", "p90", "p99", "tail_mean",
                                 "max")}
    w = np.sort(wait)
    top = w[int(math.floor(0.9 * w.size)):]  # the 10% longest waits
    return {"median": float(np.median(w)), "mean": float(w.mean()),
            "top10_median": float(np.median(top)), "p90": float(np.quantile(w, 0.9)),
            "p99": float(np.quantile(w, 0.99)), "tail_mean": float(w[-tail:].mean()),
            "max": float(w[-1])}


def summary(sim: GridSim, cfg, wl, neighbours, waits: dict) -> dict:
    log = sim.log
    kind = np.asarray(log.mig_kind, dtype=np.int64)
    submit = np.asarray(sim.submit)
    end = np.asarray(sim.end)
    busy = float(np.sum(np.asarray(sim.exec_wall) * wl.jobs.cores))
    span = float(end.max() - submit.min()) if sim.m else 0.0
    total_cores = int(wl.nodes.cores.sum())
    w, c = waits["wait"], waits["conv"]
    out = {
        "jobs": sim.m,
        "nodes": sim.n,
        "total_cores": total_cores,
        **{f"wait_{k}_s": v for k, v in wait_stats(w, cfg.report.tail_jobs).items()},
        **{f"conv_wait_{k}_s": v for k, v in wait_stats(c, cfg.report.tail_jobs).items()
           if k in ("median", "mean", "max")},
        "pct_jobs_waited": 100.0 * float(np.mean(w > 0)) if w.size else 0.0,
        "preemptions": int(sim.preemptions),
        "jobs_preempted": int(np.count_nonzero(np.asarray(sim.npre))),
        "preemptions_per_job": sim.preemptions / sim.m if sim.m else 0.0,
        "migrations": int(kind.size),
        "pushes": int(np.count_nonzero(kind == 0)),
        "pulls": int(np.count_nonzero(kind == 1)),
        "balance_moves": int(np.count_nonzero(kind == 2)),
        "jobs_migrated": int(np.count_nonzero(np.asarray(sim.nmig))),
        "makespan_s": span,
        "utilization": busy / (total_cores * span) if span > 0 else 0.0,
        "offered_load": wl.info["offered_load"],
        "offered_load_speed": wl.info["offered_load_speed"],
        "ticks": int(math.floor(float(end.max()) / cfg.scheduler.delta_s)) if sim.m else 0,
        "ticks_worked": len(log.tick_t),
        "local_invocations": int(sim.invocations),
        # The scenario's knobs, so charts can group runs of sweeps by them.
        "alpha": cfg.scheduler.alpha,
        "beta": cfg.scheduler.beta,
        "iat_s": cfg.jobs.iat_s,
        "delta_s": cfg.scheduler.delta_s,
    }
    if neighbours is not None:
        info = ov.describe(neighbours)
        out["overlay_degree_mean"] = info["degree_mean"]
        out["overlay_components"] = info["components"]
    return out


def _bins(n: int, limit: int) -> np.ndarray:
    """Start index of each of at most ``limit`` near-equal consecutive groups of n items."""
    groups = min(n, limit)
    return np.unique(np.linspace(0, n, groups + 1).round().astype(np.int64)[:-1])


def _group_sum(a: np.ndarray, starts: np.ndarray, axis: int) -> np.ndarray:
    return np.add.reduceat(a, starts, axis=axis)


def load_map(sim: GridSim, wl) -> dict:
    """Core utilization and queued jobs per node group (capability order) over time."""
    log = sim.log
    order = wl.nodes.capability_order()
    t = np.asarray(log.sample_t, dtype=float)
    used = np.asarray(log.sample_used, dtype=float)[:, order]  # samples x nodes
    queued = np.asarray(log.sample_queue, dtype=float)[:, order]
    cap = wl.nodes.cores[order].astype(float)
    rows = _bins(order.size, LOAD_ROWS)
    cols = _bins(t.size, LOAD_COLUMNS)
    counts = np.diff(np.append(cols, t.size)).astype(float)
    used_g = _group_sum(_group_sum(used, rows, 1), cols, 0) / counts[:, None]
    cap_g = _group_sum(cap, rows, 0)
    queued_g = _group_sum(_group_sum(queued, rows, 1), cols, 0) / counts[:, None]
    ends = np.append(rows[1:], order.size) - 1
    nodes = wl.nodes
    label = []
    for a, b in zip(rows.tolist(), ends.tolist(), strict=True):
        lo, hi = order[a], order[b]
        label.append(f"nodes {a}-{b}: {nodes.cores[lo]}-{nodes.cores[hi]} cores, speed "
                     f"{nodes.speed[lo]:g}-{nodes.speed[hi]:g}" if a != b else
                     f"node {int(lo)}: {nodes.cores[lo]} cores, speed {nodes.speed[lo]:g}")
    return {
        "t_min": np.round(t[cols] / 60.0, 3),
        "row_start": rows,
        "row_label": label,
        "util_pct": np.round(100.0 * used_g / cap_g[None, :], 1).T,  # rows x columns
        "queued": np.round(queued_g, 2).T,
    }


def series(sim: GridSim) -> dict:
    """Per sample (every ``report.sample_s``): system-wide load and activity."""
    log = sim.log
    t = np.asarray(log.sample_t, dtype=float)
    used = np.asarray(log.sample_used, dtype=np.int64)
    queued = np.asarray(log.sample_queue, dtype=np.int64)
    cores = float(np.sum(sim.cap_c))

    def per_interval(times) -> list:
        # Events in (t[i-1], t[i]] are counted at sample i.
        idx = np.searchsorted(t, np.asarray(times, dtype=float), side="left")
        return np.bincount(np.minimum(idx, t.size - 1), minlength=t.size).tolist()

    return {
        "t_min": (t / 60.0).tolist(),
        "busy_cores_pct": (100.0 * used.sum(axis=1) / cores).tolist(),
        "queued": queued.sum(axis=1).tolist(),
        "nodes_with_queue": np.count_nonzero(queued, axis=1).tolist(),
        "completed": list(log.sample_done),
        "migrations": per_interval(log.mig_t),
        "preemptions": per_interval(log.pre_t),
    }


def task_table(sim: GridSim, wl, waits: dict) -> dict:
    jobs = wl.jobs
    first = np.asarray(sim.first_start)
    return {
        "id": list(range(sim.m)),
        "submit": jobs.submit,
        "first_node": sim.first_node,
        "node": sim.node,
        "cores": jobs.cores,
        "memory_gb": jobs.mem / MIB,
        "disk_gb": jobs.disk / MIB,
        "min_speed": jobs.min_speed,
        "estimate_s": jobs.work,
        "start": first,
        "end": sim.end,
        "wait_s": waits["wait"],
        "conv_wait_s": waits["conv"],
        "preemptions": sim.npre,
        "migrations": sim.nmig,
    }


def extra(sim: GridSim, wl, neighbours) -> dict:
    nodes = wl.nodes
    order = nodes.capability_order()
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    log = sim.log
    out = {
        "nodes": {"cores": nodes.cores, "speed": nodes.speed, "memory_gb": nodes.mem / MIB,
                  "disk_gb": nodes.disk / MIB, "rank": rank},
        "workload": wl.info,
        "migration_log": {"t": log.mig_t, "job": log.mig_job, "from": log.mig_from,
                          "to": log.mig_to, "kind": [KINDS[k] for k in log.mig_kind]},
        "preemption_log": {"t": log.pre_t, "job": log.pre_job, "node": log.pre_node},
        "load_map": load_map(sim, wl),
    }
    if neighbours is not None:
        out["overlay"] = ov.describe(neighbours)
    return out


def waits_of(sim: GridSim) -> dict:
    end = np.asarray(sim.end)
    submit = np.asarray(sim.submit)
    return {"wait": np.asarray(sim.wf),
            "conv": np.maximum(end - submit - np.asarray(sim.exec_wall), 0.0)}


def build_result(sim: GridSim, cfg, wl, neighbours, clock: RunClock) -> Result:
    waits = waits_of(sim)
    log = sim.log
    ticks_total = max(1, int(math.floor(max(sim.end, default=0.0) / cfg.scheduler.delta_s)))
    return Result(
        summary=summary(sim, cfg, wl, neighbours, waits),
        series=series(sim),
        tasks=plain(task_table(sim, wl, waits)),
        events={"t_min": [t / 60.0 for t in log.tick_t], "visits": log.tick_visits,
                "migrations": log.tick_moves},
        extra=plain(extra(sim, wl, neighbours)),
        timing=clock.timing(ticks_total=ticks_total,
                            tick_ms_over_all=1000.0 * sum(clock.event_seconds) / ticks_total),
    )
