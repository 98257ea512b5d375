"""The comparison heuristics Random and FCFS (ch. 4 spec §9.1, ch. 4 spec §9.2); neither ever
preempts."""

from __future__ import annotations

import heapq

import numpy as np

from ..sim import Context, SerialSim
from .base import SerialPolicy


def _pick_cluster(rng: np.random.Generator | None, feasible: np.ndarray,
                  idle_n: np.ndarray) -> int:
    """The cluster of a uniformly random feasible idle core (``rng=None``: the lowest index).

    Cores of a cluster are interchangeable, so the caller uses the cluster's lowest idle core.
    """
    clusters = np.flatnonzero(feasible)
    if rng is None:
        return int(clusters[0])
    cum = np.cumsum(idle_n[clusters])
    x = rng.random() * cum[-1]
    return int(clusters[min(int(np.searchsorted(cum, x, side="right")), clusters.size - 1)])


def walk(sim: SerialSim, ctx: Context, order: np.ndarray, rng, whole_group: bool,
         why: str = "") -> None:
    """Try the rows of ``order`` in turn, starting their tasks on feasible idle cores, until no
    idle core is left. ``whole_group``: an entry starts as many of its group's tasks as fit
    (FCFS); otherwise one task per entry (Random lists a group once per task). Tasks with no
    feasible idle core stay mappable; there is no head-of-line blocking. ``why`` is the
    reason a start is recorded with when the run explains itself."""
    log = sim.decisions
    idle_n = np.array([len(h) for h in sim.idle], dtype=np.int64)
    remaining = ctx.count.copy()
    valid, util, gidx = ctx.valid, ctx.util, ctx.gidx
    pos = 0
    while pos < order.size and idle_n.sum() > 0:
        open_ = idle_n > 0
        feasible_row = (valid & open_).any(axis=1)
        positions = np.flatnonzero(feasible_row[order[pos:]]) + pos
        closed_at = -1
        for p in positions.tolist():
            row = int(order[p])
            while remaining[row] > 0:
                feasible = valid[row] & open_
                j = _pick_cluster(rng, feasible, idle_n)
                core = heapq.heappop(sim.idle[j])
                task = sim.take(int(gidx[row]))
                if log is not None and sim.noted[task]:
                    sim.explain_start(task, core, why, utility=float(util[row, j]),
                                      feasible_clusters=int(feasible.sum()))
                sim.start(task, core, float(util[row, j]))
                remaining[row] -= 1
                idle_n[j] -= 1
                if idle_n[j] == 0:
                    closed_at = p
                    break
                if not whole_group:
                    break
            if closed_at >= 0:
                break
        if closed_at < 0:
            return
        # A cluster filled up: recompute feasibility and go on (same group if it has tasks left).
        row = int(order[closed_at])
        pos = closed_at if (whole_group and remaining[row] > 0) else closed_at + 1


class RandomPolicy(SerialPolicy):
    """Tasks in random order, each on a uniformly random feasible idle core (ch. 4 spec §9.1)."""

    def map(self, sim: SerialSim, ctx: Context) -> None:
        if not any(sim.idle) or ctx.gidx.size == 0:
            return
        slots = np.repeat(np.arange(ctx.gidx.size), ctx.count)
        walk(sim, ctx, self.rng.permutation(slots), self.rng, whole_group=False,
             why="its turn in a random order; a random idle core where it can still earn "
                 "utility")


class FcfsPolicy(SerialPolicy):
    """Tasks by arrival (then id), each on an arbitrary feasible idle core (FCFS of the
    dissertation's ch. 4, ch. 4 spec §9.2 of its spec): a random one, or the lowest index where the
    scenario's ``fcfs_core`` says so."""

    def __init__(self, cfg=None, rng: np.random.Generator | None = None):
        lowest = cfg is not None and cfg.scheduler.fcfs_core != "random"
        super().__init__(cfg, None if lowest else rng)  # no rng: the lowest feasible core

    def map(self, sim: SerialSim, ctx: Context) -> None:
        if not any(sim.idle) or ctx.gidx.size == 0:
            return
        order = np.lexsort((ctx.lead, ctx.arrival))
        core = "the lowest" if self.rng is None else "a random"
        walk(sim, ctx, order, self.rng, whole_group=True,
             why=f"earliest arrival among the waiting tasks; {core} idle core where it can "
                 "still earn utility")
