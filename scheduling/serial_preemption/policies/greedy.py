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
        self.preempts = technique != "none"

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
        if preemptive and sim.decisions is not None:
            sim.event_victims = vheap  # what the waiting tasks were compared with (held)
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
        log = sim.decisions
        if log is not None:
            why = _reasons(self.mode, diff)

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
            if log is not None:  # who starts, and who is suspended, before either happens
                note = sim.noted[extras[s][0][2] if is_extra else nid_l[g]]
                if note:
                    if is_extra:
                        options = [(k, o) for k, o, _, _ in extras[s][0][6]]
                    else:
                        options = [(k, o) for k, (o, ok) in enumerate(zip(
                            obj[g].tolist(), ctx.valid[g].tolist(), strict=True)) if ok]
                    numbers = _runner_up(options, j, s & 1, idle, vheap, diff, sim.names)
                note_victim = not to_idle and sim.noted[int(sim.c_task[vheap[j][0][1]])]
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
                if log is not None and note:
                    sim.explain_start(task, core, why[0], score=hv, utility=u, **numbers)
            else:
                vval, core = heapq.heappop(vheap[j])
                if log is not None:
                    if note_victim:
                        sim.explain_preempt(core, task, why[2], value=vval, by_value=hv)
                    if note:
                        sim.explain_start(task, core, why[1], score=hv - vval if diff else hv,
                                          utility=u, victim=int(sim.c_task[core]),
                                          victim_value=vval, **numbers)
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
        if sim.decisions is not None:  # the values it re-enters with, for why it waits
            if sim.event_values is None:
                sim.event_values = {}
            sim.event_values[gref] = [(k, o) for k, o, _, _ in rows]


_OBJECTIVE = {"util": "utility at completion", "upt": "utility per minute of remaining time"}


def _reasons(mode: str, diff: bool) -> tuple[str, str, str]:
    """What a start on an idle core, a start by preemption and a suspension are recorded
    with."""
    what = _OBJECTIVE[mode]
    best = f"the highest {what} among the waiting tasks' best options"
    if diff:
        return (f"{best}, on an idle core (an idle core counts in full)",
                f"the largest gain in {what} over the running task it suspends, among the "
                "waiting tasks' best options",
                f"the lowest {what} among the cluster's running preemptible tasks, and a "
                "waiting task gains most by taking its core")
    return (f"{best}, on an idle core",
            f"{best}, on a full cluster: it suspends the running task worth least there",
            f"the lowest {what} among the cluster's running preemptible tasks, below a "
            "waiting task's")


def _runner_up(options, j: int, may_preempt: int, idle, vheap, diff: bool, names) -> dict:
    """The task's best option on a cluster other than ``j`` at this pick (``options``: its
    (cluster, objective) pairs above the dropping threshold), scored as the heuristic scores
    options: an idle core first, else a suspension the task may make."""
    best, where = None, -1
    for k, o in options:
        if k == j:
            continue
        if idle[k]:
            key = (o, 1)
        elif may_preempt and vheap[k] and o > vheap[k][0][0]:
            key = (o - vheap[k][0][0] if diff else o, 0)
        else:
            continue
        if best is None or key > best:
            best, where = key, k
    if best is None:
        return {"runner_up_where": None, "runner_up_score": None}
    return {"runner_up_where": names[where], "runner_up_score": best[0]}
