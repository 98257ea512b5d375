"""Max Util / Max UPT and their Greedy and Diff preemption forms (Max Util / Max UPT to Preempt Diff
(ch. 4 spec §9.3-9.5)).

All five are the same two-phase loop: phase 1 gives every waiting task its best option over
the clusters, phase 2 starts the task whose option is best, and the loop repeats. Objective
values of waiting tasks are fixed within an event, a cluster's idle-core count only falls and
its smallest running value only rises (every preemption replaces a value by a larger one). So
the loop equals a walk over (task group, cluster) pairs:

* one stream per (cluster, may-preempt flag), sorted by objective (then arrival, id);
* the best valid option overall is the best of the stream heads: on a cluster with an idle
  core the head's value is ``obj``; on a full cluster only preempting tasks are valid, with
  value ``obj`` (Greedy) or ``obj - Val(victim)`` (Diff) against the cluster's smallest
  ``Val`` among running preemptible tasks, and only if ``obj > Val(victim)``. Since ``Val(victim)``
  is common to a stream, the head also maximises Diff's value within the stream.
* a suspended task re-enters as a singleton in a small per-stream heap.

Ties follow tie-breaking (ch. 4 spec §8.4): higher value, then earlier arrival, then lower task id;
for one task, an idle core before a busy one, then the smaller victim value, then the cluster
preference (``tie_break``). With no task allowed to preempt, Greedy and Diff reduce to Max Util /
Max UPT exactly (reported results (ch. 4 spec §12), Fig. 38 at 0%).
"""

from __future__ import annotations

import heapq

import numpy as np

from ..sim import Context, SerialSim
from .base import SerialPolicy


class GreedyPolicy(SerialPolicy):
    """``technique``: ``none`` (Max Util / Max UPT), ``greedy`` or ``diff``."""

    def __init__(self, cfg=None, rng=None, *, mode: str, technique: str = "none"):
        super().__init__(cfg, rng)
        if mode not in ("util", "upt") or technique not in ("none", "greedy", "diff"):
            raise ValueError(f"bad policy {mode}/{technique}")
        self.mode = mode
        self.technique = technique

    def map(self, sim: SerialSim, ctx: Context) -> None:
        n_groups = ctx.gidx.size
        preemptive = self.technique != "none"
        idle = sim.idle
        if n_groups == 0 or (not preemptive and not any(idle)):
            return
        K = sim.K
        obj = ctx.obj(self.mode)
        cp = ctx.can_preempt if preemptive else np.zeros(n_groups, dtype=bool)
        vheap = sim.victim_heaps(self.mode) if preemptive else [[] for _ in range(K)]
        if not any(idle) and not any(vheap):
            return
        diff = self.technique == "diff"

        gi, jj = np.nonzero(ctx.valid)
        v = obj[gi, jj]
        sid = 2 * jj + cp[gi]
        order = np.lexsort((ctx.crank[gi, jj], ctx.lead[gi], ctx.arrival[gi], -v, sid))
        g_l = gi[order].tolist()
        v_l = v[order].tolist()
        bounds = np.searchsorted(sid[order], np.arange(2 * K + 1)).tolist()
        ptr = bounds[:-1]
        n_streams = 2 * K

        arr_l = ctx.arrival.tolist()
        nid_l = ctx.lead.tolist()  # current lowest id of each group
        count = ctx.count.tolist()
        crank = ctx.crank.tolist()
        gidx_l = ctx.gidx.tolist()
        util = ctx.util
        t_pre = sim.t_pre
        # Suspended tasks re-entering this event: (-obj, arrival, id, crank, group, util, rows)
        extras: list[list[tuple]] = [[] for _ in range(n_streams)]
        started_from: dict[int, object] = {}

        while True:
            best_key = None
            best = None
            for s in range(n_streams):
                j = s >> 1
                n_idle = len(idle[j])
                minval = 0.0
                if n_idle == 0:
                    if not s & 1 or not vheap[j]:
                        continue
                    minval = vheap[j][0][0]
                p, e = ptr[s], bounds[s + 1]
                while p < e and count[g_l[p]] == 0:
                    p += 1
                ptr[s] = p
                xh = extras[s]
                while xh and not sim.g_alive[xh[0][4]]:
                    heapq.heappop(xh)
                if p < e:
                    g = g_l[p]
                    hv, harr, hid, hcr, is_extra = v_l[p], arr_l[g], nid_l[g], crank[g][j], False
                    if xh:
                        x = xh[0]
                        if (-x[0], -x[1], -x[2]) > (hv, -harr, -hid):
                            hv, harr, hid, hcr, is_extra = -x[0], x[1], x[2], x[3], True
                elif xh:
                    x = xh[0]
                    g, hv, harr, hid, hcr, is_extra = -1, -x[0], x[1], x[2], x[3], True
                else:
                    continue
                if n_idle:
                    key = (hv, -harr, -hid, 1, 0.0, -hcr)
                elif hv > minval:
                    key = (hv - minval if diff else hv, -harr, -hid, 0, -minval, -hcr)
                else:
                    continue
                if best_key is None or key > best_key:
                    best_key = key
                    best = (s, j, g, hv, is_extra, n_idle > 0)
            if best is None:
                return

            s, j, g, hv, is_extra, to_idle = best
            if is_extra:
                x = heapq.heappop(extras[s])
                task = sim.take(x[4])
                u, rows = x[5], x[6]
            else:
                task = sim.take(gidx_l[g])
                count[g] -= 1
                nid_l[g] += 1
                u, rows = float(util[g, j]), g
            if to_idle:
                core = heapq.heappop(idle[j])
            else:
                vval, core = heapq.heappop(vheap[j])
                self._suspend(sim, core, vval, extras, started_from, ctx, obj)
            sim.start(task, core, u)
            started_from[task] = rows
            if preemptive and t_pre[task]:
                heapq.heappush(vheap[j], (hv, core))

    @staticmethod
    def _suspend(sim: SerialSim, core: int, vval: float, extras, started_from, ctx: Context,
                 obj: np.ndarray) -> None:
        """Suspend the victim on ``core`` and let it re-enter this event as a singleton."""
        r_util = float(sim.c_util[core])
        r = sim.preempt(core)
        gref = sim.new_singleton(r)
        cpf = int(sim.t_cp[r])
        arr = float(sim.t_arr[r])
        j = int(sim.core_cluster[core])
        if sim.bound[r] >= 0:
            rows = [(j, vval, r_util, 0)]
        else:
            # No progress: it was started earlier in this event (Diff) and is free to move.
            src = started_from[r]
            if isinstance(src, list):
                rows = src
            else:
                rows = [(k, float(obj[src, k]), float(ctx.util[src, k]), int(ctx.crank[src, k]))
                        for k in np.flatnonzero(ctx.valid[src]).tolist()]
        for k, o, u, cr in rows:
            heapq.heappush(extras[2 * k + cpf], (-o, arr, r, cr, gref, u, rows))
