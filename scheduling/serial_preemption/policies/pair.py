"""Max Util / Max UPT Preempt Pair (ch. 4 spec §9.6).

For a task ``t`` that may preempt, every busy core running a preemptible task ``r`` is valued
by the better of two orderings on that core (A: t first, then r resumes; B: r finishes, then t
runs; ties go to B, or to A with ``pair_tie = "preempt"``). The best such core P* is compared
with the best idle core, whose net adds ``Val(r*)`` of P*'s partner continuing undisturbed.
Phase 2 picks the task with the highest *own* objective of its chosen option; ordering B means
"wait": the task leaves this event.

Speed (performance (ch. 4 spec §15.1)): all pair values of an event are fixed, because the per-event
guard (no re-preemption in one event (ch. 4 spec A19): a task started in this event is not preempted
again in it) keeps tasks started in this event out of the partner set. So the (task x partner)
values are computed once per event with numpy, over *partner classes*: running tasks of the same
burst on the same cluster with the same completion time are interchangeable partners. A task's
chosen option changes only when its partner class runs out of cores or its idle cluster fills up;
only those tasks are re-valued (a lazy heap with versions).

One mapping event is a :class:`_PairEvent`, built from four pieces:

* :class:`_PartnerClasses` - the running preemptible tasks Pair may pair with;
* :class:`_Rows` - the waiting groups (and the victims suspended in the event), one row each;
* the options of each row: its best pair P* (:meth:`_PairEvent.pair_best`), its best idle core
  (:meth:`_PairEvent.best_idle`) and the choice between them (:meth:`_PairEvent.resolve`);
* :class:`_GuardedTasks` - the tasks started in the event, to count when the guard bites.

Performance note: the pick loop and the per-row loops hoist every attribute they use into
locals; the vectorized steps pay a few attribute lookups per call, against tens of numpy calls.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..sim import BUSY, Context, SerialSim
from .base import SerialPolicy

# The option a row has chosen: none, an idle core, ordering A (preempt the partner now) or
# ordering B (let the partner finish first, so the task waits for the next event).
NONE, IDLE, ORDER_A, ORDER_B = 0, 1, 2, 3


def pair_terms(t: float, upt: bool, table, ret_t, obj_t, util_t, arr_t, urow_t, scale_t,
               ret_r, val_r, arr_r, urow_r, scale_r, ties_preempt: bool = False):
    """Two-ordering values of task(s) t against partner(s) r (broadcastable arrays).

    ``ret_t``, ``obj_t``, ``util_t``: t's remaining time and objective / utility if started
    now on r's cluster; ``val_r``: r's objective if left alone. Returns
    ``(net, own, own_util, is_a)`` of the better ordering per pair. Equal nets go to B (no
    preemption: "Tasks are not preempted unless higher utility can be earned for another
    task", preemption (ch. 4 paper §II.D); ties between the orderings, Pair's ties (ch. 4 spec A18))
    or, with ``ties_preempt``, to A (the Pair paragraph drops preemption on a core only "if the
    second ordering results in higher Util").
    """
    net_a, net_b, own_b, u_tb = orderings(t, upt, table, ret_t, obj_t, arr_t, urow_t, scale_t,
                                          ret_r, val_r, arr_r, urow_r, scale_r)
    is_a = net_a >= net_b if ties_preempt else net_a > net_b
    return (np.where(is_a, net_a, net_b), np.where(is_a, obj_t, own_b),
            np.where(is_a, util_t, u_tb), is_a)


def orderings(t: float, upt: bool, table, ret_t, obj_t, arr_t, urow_t, scale_t, ret_r, val_r,
              arr_r, urow_r, scale_r):
    """``(net_a, net_b, own_b, util_b)``: the two orderings' nets, and t's own objective and
    utility when it runs after r (ordering B); arguments as for :func:`pair_terms`."""
    ct_a = t + ret_t  # ordering A: t now, r resumes after it
    u_ra = table.value(urow_r, scale_r, ct_a + ret_r - arr_r)
    net_a = obj_t + (u_ra / ret_r if upt else u_ra)
    u_tb = table.value(urow_t, scale_t, t + ret_r + ret_t - arr_t)  # B: after r
    own_b = u_tb / ret_t if upt else u_tb
    return net_a, val_r + own_b, own_b, u_tb


# What Pair's decisions are recorded with (the numbers are the nets it compared).
IDLE_OVER_PAIR = ("its best idle core, counting its best pair partner continuing undisturbed, "
                  "earns more than its best pair")
IDLE_TIES_PAIR = ("its best idle core, counting its best pair partner continuing undisturbed, "
                  "earns as much as its best pair, and a tie goes to the idle core")
IDLE_ONLY = "its best idle core (no running preemptible task to pair with)"
PAIR_A = ("ordering A on its best pair's core (it runs first, the partner resumes after it) "
          "earns more than ordering B and than its best idle core")
SUSPENDED_A = ("a waiting task's ordering A on this core (it first, this task resumes after "
               "it) earns more than letting this task finish first")
WAIT_B = ("ordering B on its best pair's core (the partner finishes first) earns more than "
          "preempting it or than an idle core: it waits for a later event")
# When the two orderings earn the same, the tie rule (``pair_tie``) chose: the reason says so.
PAIR_A_TIE = ("ordering A on its best pair's core (it runs first, the partner resumes after it) "
              "earns as much as ordering B, and a tie preempts (pair_tie \"preempt\"); it "
              "earns more than its best idle core")
SUSPENDED_A_TIE = ("a waiting task's ordering A on this core (it first, this task resumes after "
                   "it) earns as much as letting this task finish first, and a tie preempts "
                   "(pair_tie \"preempt\")")
WAIT_B_TIE = ("ordering B on its best pair's core (the partner finishes first) earns as much "
              "as preempting it, and a tie waits (pair_tie \"wait\"); it earns more than an "
              "idle core: it waits for a later event")
NO_PAIR = ("every cluster where it can still earn utility is busy, and none runs a task it may "
           "pair with (tasks started in this event are not partners)")
B_TOO_LATE = ("every cluster where it can still earn utility is busy, and its best pair says "
              "wait for the partner, after which it would earn no more than the dropping "
              "threshold")


class PairPolicy(SerialPolicy):
    """``tie``: whether an equal-valued pair preempts or waits; by default the scenario's
    ``pair_tie`` (``"wait"`` without a scenario)."""

    preempts = True

    def __init__(self, cfg=None, rng=None, *, mode: str, tie: str | None = None):
        super().__init__(cfg, rng)
        if tie is None:
            tie = cfg.scheduler.pair_tie if cfg is not None else "wait"
        if mode not in ("util", "upt"):
            raise ValueError(f"bad mode {mode!r}")
        if tie not in ("preempt", "wait"):
            raise ValueError(f"bad tie rule {tie!r}")
        self.mode = mode
        self.ties_preempt = tie == "preempt"
        # Picks where a task started earlier in the event would have been a better partner.
        self.guard_fired = 0
        self.deferred = 0  # tasks that chose ordering B (wait for the partner)

    def counters(self) -> dict:
        """Policy-specific counters for ``result.extra["policy_stats"]``."""
        return {"pair_guard_fired": self.guard_fired, "pair_deferred": self.deferred}

    def map(self, sim: SerialSim, ctx: Context) -> None:
        if ctx.gidx.size == 0:
            return
        idle_n = np.array([len(h) for h in sim.idle], dtype=np.int64)
        partners = preemptible_busy_cores(sim)
        if idle_n.sum() == 0 and partners.size == 0:
            return
        _PairEvent(self, sim, ctx, idle_n, partners).run()


def preemptible_busy_cores(sim: SerialSim) -> np.ndarray:
    """The cores running a preemptible task, in index order."""
    busy = np.flatnonzero(sim.c_task >= 0)
    return busy[sim.t_pre[sim.c_task[busy]]]


class _PartnerClasses:
    """The running preemptible tasks of one event, grouped into interchangeable partners.

    Running tasks of one burst on one cluster with one completion time give every waiting task
    the same two orderings, so they form one *class*; a class lends its cores lowest index
    first. Classes are numbered by their lowest core, so that the lowest class wins ties in P*
    (ties to the lowest core index, tie-breaking (ch. 4 spec §8.4)). Per class: ``cluster``, ``ret``
    (remaining time of the partner), ``val`` (its objective if left alone, ``Val(r)``), and the
    partner's ``arr``, ``urow``, ``scale`` (arrival and utility function); ``first_core`` is the
    lowest core still running a partner of the class and ``alive`` says whether any is left.
    """

    def __init__(self, sim: SerialSim, cores: np.ndarray, upt: bool):
        t = sim.now
        task = sim.c_task[cores]
        cluster = sim.core_cluster[cores]
        end = sim.c_end[cores]
        burst = sim.wl.burst[task]
        o = np.lexsort((cores, end, cluster, burst))
        cores, task, cluster, end, burst = cores[o], task[o], cluster[o], end[o], burst[o]
        if cores.size:
            new = np.concatenate([[True], (np.diff(burst) != 0) | (np.diff(cluster) != 0)
                                  | (np.diff(end) != 0)])
        else:
            new = np.zeros(0, dtype=bool)
        first = np.flatnonzero(new)
        class_of_core = np.cumsum(new) - 1
        # Renumber the classes by their lowest core.
        by_core = np.argsort(cores[first], kind="stable")
        rank = np.empty_like(by_core)
        rank[by_core] = np.arange(by_core.size)
        first = first[by_core]
        self.n = n = first.size
        self.cores: list[list[int]] = [[] for _ in range(n)]
        for core, c in zip(cores.tolist(), rank[class_of_core].tolist(), strict=True):
            self.cores[c].append(core)
        self.used = [0] * n  # cores of each class preempted so far in this event
        self.cluster = cluster[first]
        self.ret = end[first] - t
        util = sim.c_util[cores[first]]
        self.val = util / self.ret if upt else util
        lead = task[first]
        self.arr = sim.t_arr[lead]
        self.urow = sim.t_urow[lead]
        self.scale = sim.t_scale[lead]
        self.alive = np.ones(n, dtype=bool)
        self.first_core = cores[first].copy()

        # For pruning, the classes of each cluster by decreasing Val (ties: lower core first),
        # and the position of the first alive one.
        by_val = np.lexsort((self.first_core, -self.val))
        self.by_val = [by_val[self.cluster[by_val] == j] for j in range(sim.K)]
        self.neg_val_sorted = [-self.val[c] for c in self.by_val]
        self.head = [0] * sim.K

    def top_values(self) -> np.ndarray:
        """Per cluster, the highest ``Val`` among its alive classes (``-inf`` if none)."""
        head, by_val, neg = self.head, self.by_val, self.neg_val_sorted
        return np.array([-neg[j][head[j]] if head[j] < by_val[j].size else -np.inf
                         for j in range(len(by_val))])

    def take_core(self, c: int) -> int:
        """Hand out the lowest core of class ``c`` still running its partner (to be
        preempted); a class with no core left is dead and leaves the pruning order."""
        cores = self.cores[c]
        k = self.used[c]
        core = cores[k]
        self.used[c] = k + 1
        if k + 1 == len(cores):
            self.alive[c] = False
            j = self.cluster[c]
            order, alive, head = self.by_val[j], self.alive, self.head
            while head[j] < order.size and not alive[order[head[j]]]:
                head[j] += 1
        else:
            self.first_core[c] = cores[k + 1]
        return core


class _Rows:
    """The waiting groups of the event, one row each, with room for the victims it suspends.

    Rows ``[0, n0)`` are the context's groups; each preemption appends its victim as a
    singleton row bound to the cluster it ran on. Per row and cluster: ``obj`` (the objective
    if started now), ``util``, ``valid`` (utility above the dropping threshold), ``ret``
    (remaining time), ``crank`` (cluster preference for ties); per row: ``arr``, ``urow``,
    ``scale`` (arrival and utility function), ``nid`` (lowest waiting task id), ``count``
    (tasks left), ``cp`` (may preempt), ``gsim`` (the simulator's group) and ``removed``
    (chose to wait, ordering B).
    """

    def __init__(self, ctx: Context, mode: str, cap: int, n_clusters: int):
        n0 = ctx.gidx.size
        K = n_clusters
        self.n = n0
        self.obj = np.zeros((cap, K))
        self.obj[:n0] = ctx.obj(mode)
        self.util = np.zeros((cap, K))
        self.util[:n0] = ctx.util
        self.valid = np.zeros((cap, K), dtype=bool)
        self.valid[:n0] = ctx.valid
        self.ret = np.ones((cap, K))
        self.ret[:n0] = ctx.ret
        self.crank = np.zeros((cap, K), dtype=np.int64)
        self.crank[:n0] = ctx.crank
        self.arr = np.zeros(cap)
        self.arr[:n0] = ctx.arrival
        self.nid = np.zeros(cap, dtype=np.int64)
        self.nid[:n0] = ctx.lead
        self.count = np.zeros(cap, dtype=np.int64)
        self.count[:n0] = ctx.count
        self.cp = np.zeros(cap, dtype=bool)
        self.cp[:n0] = ctx.can_preempt
        self.urow = np.zeros(cap, dtype=np.int64)
        self.urow[:n0] = ctx.urow
        self.scale = np.zeros(cap)
        self.scale[:n0] = ctx.scale
        self.gsim = np.zeros(cap, dtype=np.int64)
        self.gsim[:n0] = ctx.gidx
        self.removed = np.zeros(cap, dtype=bool)

    def live(self, mask: np.ndarray) -> np.ndarray:
        """Rows among ``mask`` (over rows ``[0, n)``) that still have tasks to place."""
        n = self.n
        return np.flatnonzero(mask & (self.count[:n] > 0) & ~self.removed[:n])

    def add_victim(self, sim: SerialSim, task: int, cluster: int, val: float, util: float,
                   ret: float, min_utility: float) -> int:
        """Append the suspended ``task`` as a singleton row bound to ``cluster`` (it has
        progress there): ``val`` is its objective, ``util`` its utility, ``ret`` its remaining
        time if resumed now. Returns the row."""
        row = self.n
        self.n += 1
        self.obj[row, cluster] = val
        self.util[row, cluster] = util
        self.valid[row, cluster] = util > min_utility
        self.ret[row, cluster] = ret
        self.arr[row] = sim.t_arr[task]
        self.nid[row] = task
        self.count[row] = 1
        self.cp[row] = sim.t_cp[task]
        self.urow[row] = sim.t_urow[task]
        self.scale[row] = sim.t_scale[task]
        self.gsim[row] = sim.new_singleton(task)
        return row


class _GuardedTasks:
    """Preemptible tasks started in this event, which Pair may not use as partners: the
    per-event guard (no re-preemption in one event (ch. 4 spec A19): a task started in this event is
    not preempted again in it).

    The guard keeps the event's pair values fixed; :meth:`fires` counts the picks where it
    changed the outcome, i.e. where a guarded task would have offered an ordering-A pair with
    a higher net than the option chosen. Guarded tasks of one burst started on one cluster are
    interchangeable partners, so they are kept once (guard classes, like partner classes).
    """

    def __init__(self, event: _PairEvent, n_cores: int, n_clusters: int):
        self.event = event
        self.n = 0
        self.cluster = np.zeros(n_cores, dtype=np.int64)
        self.ret = np.zeros(n_cores)
        self.val = np.zeros(n_cores)
        self.arr = np.zeros(n_cores)
        self.urow = np.zeros(n_cores, dtype=np.int64)
        self.scale = np.zeros(n_cores)
        self.keys: set[tuple] = set()
        self.top = [-np.inf] * n_clusters  # highest Val among guarded tasks per cluster

    def add(self, sim: SerialSim, core: int, task: int) -> None:
        """``task`` was just started on ``core``."""
        j = int(sim.core_cluster[core])
        end_t = float(sim.c_end[core])
        key = (int(sim.wl.burst[task]), j, end_t)
        if key in self.keys:
            return
        self.keys.add(key)
        i = self.n
        self.n += 1
        self.cluster[i] = j
        self.ret[i] = end_t - sim.now
        u = float(sim.c_util[core])
        self.val[i] = u / self.ret[i] if self.event.upt else u
        self.arr[i] = sim.t_arr[task]
        self.urow[i] = sim.t_urow[task]
        self.scale[i] = sim.t_scale[task]
        self.top[j] = max(self.top[j], float(self.val[i]))

    def fires(self, row: int, chosen: float) -> bool:
        """Whether a guarded task would have given ``row`` an ordering-A pair with a net above
        ``chosen``, the net of the option it picked."""
        ev = self.event
        rows = ev.rows
        obj, valid, top = rows.obj, rows.valid, self.top
        # net_A <= obj_t + Val(r): most picks are settled by this per-cluster bound.
        o_row = obj[row].tolist()
        ok_row = valid[row].tolist()
        if not any(ok_row[j] and o_row[j] + top[j] > chosen for j in range(len(top))):
            return False
        n = self.n
        gj = self.cluster[:n]
        o = obj[row, gj]
        sel = np.flatnonzero(valid[row, gj] & (o + self.val[:n] > chosen))
        if sel.size == 0:
            return False
        jj = gj[sel]
        util = rows.util[row, jj]
        g_net, _, _, g_a = pair_terms(
            ev.t, ev.upt, ev.table, rows.ret[row, jj], o[sel], util, rows.arr[row],
            rows.urow[row], rows.scale[row], self.ret[sel], self.val[sel], self.arr[sel],
            self.urow[sel], self.scale[sel], ev.ties_preempt)
        return bool(np.any(g_a & (util > ev.min_utility) & (g_net > chosen)))


class _PairEvent:
    """One mapping event of Pair: phase 1 gives every row its option, phase 2 starts the rows
    in order of their own objective until no row has a valid option left.

    Options per row: the best pair P* (``pair_class``, ``pair_net``, ``pair_own``,
    ``pair_util``, ``pair_is_a``; class -1 when none), the best idle core (``idle_cluster``,
    ``idle_obj``; cluster -1 when none), and the choice between them (``choice`` one of
    NONE/IDLE/ORDER_A/ORDER_B, with the task's own objective ``choice_own``). ``version``
    invalidates a row's stale heap entries when its option is recomputed.
    """

    def __init__(self, policy: PairPolicy, sim: SerialSim, ctx: Context, idle_n: np.ndarray,
                 partner_cores: np.ndarray):
        self.policy = policy
        self.sim = sim
        self.upt = upt = policy.mode == "upt"
        self.ties_preempt = policy.ties_preempt
        self.t = sim.now
        self.K = sim.K
        self.table = sim.ufast
        self.min_utility = sim.min_utility
        self.idle_n = idle_n
        self.partners = _PartnerClasses(sim, partner_cores, upt)
        # Each partner core can be preempted at most once, so this many rows can exist.
        cap = ctx.gidx.size + partner_cores.size
        self.rows = _Rows(ctx, policy.mode, cap, sim.K)
        self.guarded = _GuardedTasks(self, sim.M, sim.K)

        self.pair_class = np.full(cap, -1, dtype=np.int64)
        self.pair_net = np.full(cap, -np.inf)
        self.pair_own = np.zeros(cap)
        self.pair_util = np.zeros(cap)
        self.pair_is_a = np.zeros(cap, dtype=bool)
        self.idle_cluster = np.full(cap, -1, dtype=np.int64)
        self.idle_obj = np.full(cap, -np.inf)
        self.choice = np.zeros(cap, dtype=np.int64)
        self.choice_own = np.zeros(cap)
        self.version = np.zeros(cap, dtype=np.int64)
        # Phase-2 order: (-own objective, arrival, lowest id, row, version); tie-breaking
        # (ch. 4 spec §8.4).
        self.heap: list[tuple] = []

    # -- phase 1: the options of a set of rows ----------------------------------------------
    def pair_best(self, rows: np.ndarray) -> None:
        """P* per row among the alive partner classes: the highest net, ties to the lowest
        core index (tie-breaking (ch. 4 spec §8.4)).

        Pruning: a pair's net is at most ``obj_t + Val(r)`` and at least ``Val(r)`` (ordering
        B keeps r's value), so on cluster j only the classes with ``Val(r) >= top - obj_t(j)``
        can be P*, where ``top`` is the highest alive ``Val`` over the row's clusters; they are
        a prefix of the cluster's classes by decreasing ``Val``.
        """
        if rows.size == 0:
            return
        self.pair_class[rows] = -1
        self.pair_net[rows] = -np.inf
        pc = self.partners
        if pc.n == 0:
            return
        R = self.rows
        obj = R.obj
        vmax = pc.top_values()
        ok = R.valid[rows] & (vmax > -np.inf)
        if not ok.any():
            return
        top = np.where(ok, vmax, -np.inf).max(axis=1)
        tau = top[:, None] - obj[rows]
        tau -= 1e-9 * (1.0 + np.abs(tau))  # keep every partner that could tie
        parts_r, parts_c = [], []
        for j in range(self.K):
            by_val = pc.by_val[j]
            if by_val.size == 0:
                continue
            n = np.searchsorted(pc.neg_val_sorted[j], -tau[:, j], side="right")
            n = np.where(ok[:, j], n, 0)
            total = int(n.sum())
            if total == 0:
                continue
            ri = np.repeat(np.arange(rows.size), n)
            pos = np.arange(total) - np.repeat(np.cumsum(n) - n, n)
            parts_r.append(ri)
            parts_c.append(by_val[pos])
        if not parts_r:
            return
        ri = np.concatenate(parts_r)
        c = np.concatenate(parts_c)
        alive = pc.alive[c]
        ri, c = ri[alive], c[alive]
        if ri.size == 0:
            return
        rr = rows[ri]
        jc = pc.cluster[c]
        p_net, p_own, p_u, p_a = pair_terms(
            self.t, self.upt, self.table, R.ret[rr, jc], obj[rr, jc], R.util[rr, jc], R.arr[rr],
            R.urow[rr], R.scale[rr], pc.ret[c], pc.val[c], pc.arr[c], pc.urow[c], pc.scale[c],
            self.ties_preempt)
        order = np.lexsort((pc.first_core[c], -p_net, ri))
        ri_sorted = ri[order]
        pick = order[np.flatnonzero(np.concatenate([[True],
                                                    ri_sorted[1:] != ri_sorted[:-1]]))]
        dest = rows[ri[pick]]
        self.pair_class[dest] = c[pick]
        self.pair_net[dest] = p_net[pick]
        self.pair_own[dest] = p_own[pick]
        self.pair_util[dest] = p_u[pick]
        self.pair_is_a[dest] = p_a[pick]

    def best_idle(self, rows: np.ndarray) -> None:
        """The cluster with an idle core and the highest objective per row (ties by the
        cluster preference ``crank``, tie-breaking (ch. 4 spec §8.4)); -1 when no allowed cluster is
        idle."""
        if rows.size == 0:
            return
        R = self.rows
        sc = np.where(R.valid[rows] & (self.idle_n > 0), R.obj[rows], -np.inf)
        top = sc.max(axis=1)
        cr = np.where(sc == top[:, None], R.crank[rows], self.K + 1)
        j = np.argmin(cr, axis=1)
        has = top > -np.inf
        self.idle_cluster[rows] = np.where(has, j, -1)
        self.idle_obj[rows] = top

    def resolve(self, rows: np.ndarray) -> None:
        """Choose each row's option (Preempt Pair (ch. 4 spec §9.6) step 4) and queue it for phase
        2.

        P* wins if there is no idle core or its net beats the idle core's net, which counts
        P*'s partner continuing undisturbed. The option needs the task's own utility above the
        dropping threshold, else the row has none (and leaves the heap)."""
        R = self.rows
        count, removed = R.count, R.removed
        rows = rows[(count[rows] > 0) & ~removed[rows]]
        if rows.size == 0:
            return
        b = self.pair_class[rows]
        j = self.idle_cluster[rows]
        has_idle = j >= 0
        idle_u = R.util[rows, np.maximum(j, 0)]
        has_pair = R.cp[rows] & (b >= 0)
        pc = self.partners
        partner_val = pc.val[np.maximum(b, 0)] if pc.n else np.zeros(rows.size)
        idle_obj = self.idle_obj[rows]
        inet = idle_obj + np.where(has_pair, partner_val, 0.0)
        choose = has_pair & (~has_idle | (self.pair_net[rows] > inet))
        k = np.where(choose, np.where(self.pair_is_a[rows], ORDER_A, ORDER_B),
                     np.where(has_idle, IDLE, NONE))
        v = np.where(choose, self.pair_own[rows], idle_obj)
        u = np.where(choose, self.pair_util[rows], idle_u)
        k = np.where(u > self.min_utility, k, NONE)
        self.choice[rows] = k
        self.choice_own[rows] = v
        version = self.version
        version[rows] += 1
        heap, push, arr, nid = self.heap, heapq.heappush, R.arr, R.nid
        for row, kk, vv, ver in zip(rows.tolist(), k.tolist(), v.tolist(),
                                    version[rows].tolist(), strict=True):
            if kk != NONE:
                push(heap, (-vv, float(arr[row]), int(nid[row]), row, ver))

    def chosen_net(self, row: int) -> float:
        """The net of ``row``'s chosen option, as the guard compares it: P*'s net for a pair,
        else the idle core's objective plus P*'s partner continuing undisturbed."""
        if self.choice[row] in (ORDER_A, ORDER_B):
            return float(self.pair_net[row])
        b = int(self.pair_class[row])
        return float(self.idle_obj[row]) + (float(self.partners.val[b]) if b >= 0 else 0.0)

    # -- phase 2: starting a row's next task -------------------------------------------------
    def start_on_idle(self, row: int) -> tuple[int, int, np.ndarray | None]:
        """Start the row's next task on the lowest idle core of its idle cluster. Returns
        ``(core, task, rows whose option changed)``: when the cluster fills up, every row
        that chose it looks for another idle cluster."""
        sim, R = self.sim, self.rows
        j = int(self.idle_cluster[row])
        core = heapq.heappop(sim.idle[j])
        task = sim.take(int(R.gsim[row]))
        if sim.noted is not None and sim.noted[task]:
            self._explain_idle(row, task, core, j)
        sim.start(task, core, float(R.util[row, j]))
        self.idle_n[j] -= 1
        R.count[row] -= 1
        R.nid[row] += 1
        if self.idle_n[j] > 0:
            return core, task, None
        live = R.live(self.idle_cluster[:R.n] == j)
        self.best_idle(live)
        return core, task, live

    def preempt_partner(self, row: int) -> tuple[int, int, np.ndarray]:
        """Ordering A: suspend a partner of the row's class P* and start the row's next task
        on its core. Returns ``(core, task, rows whose option changed)``: the rows that chose
        this class (it may be used up, or tie-break to another class now) and the victim, which
        re-enters the event as a singleton row bound to its cluster."""
        sim, R, pc = self.sim, self.rows, self.partners
        c = int(self.pair_class[row])
        core = pc.take_core(c)
        j = int(pc.cluster[c])
        r_util = float(sim.c_util[core])
        task = sim.take(int(R.gsim[row]))
        if sim.decisions is not None:
            note_victim = sim.noted[int(sim.c_task[core])]
            note = sim.noted[task]
            if note_victim or note:
                net_a, net_b = self._nets(row)
            if note_victim:
                sim.explain_preempt(core, task, SUSPENDED_A_TIE if net_a == net_b else
                                    SUSPENDED_A, net_a=net_a, net_b=net_b)
            if note:
                idle = int(self.idle_cluster[row])
                sim.explain_start(task, core, PAIR_A_TIE if net_a == net_b else PAIR_A,
                                  score=net_a, net_b=net_b,
                                  own=float(self.pair_own[row]), utility=float(R.util[row, j]),
                                  victim=int(sim.c_task[core]),
                                  runner_up_where=sim.names[idle] if idle >= 0 else None,
                                  runner_up_score=self._idle_net(row) if idle >= 0 else None)
        victim = sim.preempt(core)
        sim.start(task, core, float(R.util[row, j]))
        R.count[row] -= 1
        R.nid[row] += 1
        live = R.live(self.pair_class[:R.n] == c)
        self.pair_best(live)
        one = np.array([R.add_victim(sim, victim, j, pc.val[c], r_util, pc.ret[c],
                                     self.min_utility)])
        if R.cp[one[0]]:
            self.pair_best(one)
        self.best_idle(one)
        return core, task, np.concatenate([live, one])

    def run(self) -> None:
        """Phase 1 for every row, then the phase-2 pick loop (Preempt Pair (ch. 4 spec §9.6) phase
        2)."""
        R = self.rows
        n0 = R.n
        all_rows = np.arange(n0)
        self.pair_best(all_rows[R.cp[:n0]])
        self.best_idle(all_rows)
        self.resolve(all_rows)

        policy, sim, guarded = self.policy, self.sim, self.guarded
        heap, version, choice, choice_own = self.heap, self.version, self.choice, self.choice_own
        count, removed, cp, arr, nid = R.count, R.removed, R.cp, R.arr, R.nid
        t_pre = sim.t_pre
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            _, _, _, row, ver = pop(heap)
            if ver != version[row] or count[row] == 0 or removed[row]:
                continue
            k = int(choice[row])
            if cp[row] and guarded.n and guarded.fires(row, self.chosen_net(row)):
                policy.guard_fired += 1
            if k == ORDER_B:
                removed[row] = True
                policy.deferred += int(count[row])
                if sim.decisions is not None:
                    self._explain_wait(row)
                continue
            if k == IDLE:
                core, task, affected = self.start_on_idle(row)
            else:
                core, task, affected = self.preempt_partner(row)
            if t_pre[task]:
                guarded.add(sim, core, task)
            if affected is not None and affected.size:
                self.resolve(affected)
            if count[row] > 0 and (affected is None or row not in set(affected.tolist())):
                push(heap, (-float(choice_own[row]), float(arr[row]), int(nid[row]), row,
                            int(version[row])))
        if sim.decisions is not None:
            self._explain_left()

    # -- the decision trace (only when the run explains itself) ------------------------------
    def _nets(self, row: int) -> tuple[float, float]:
        """The nets of orderings A and B of ``row`` with its best pair P*."""
        R, pc = self.rows, self.partners
        c = int(self.pair_class[row])
        j = int(pc.cluster[c])
        net_a, net_b, _, _ = orderings(
            self.t, self.upt, self.table, R.ret[row, j], R.obj[row, j], R.arr[row],
            R.urow[row], R.scale[row], pc.ret[c], pc.val[c], pc.arr[c], pc.urow[c],
            pc.scale[c])
        return float(net_a), float(net_b)

    def _idle_net(self, row: int) -> float:
        """The net of ``row``'s best idle core: its own objective there, plus its best pair's
        partner continuing undisturbed."""
        b = int(self.pair_class[row])
        return float(self.idle_obj[row]) + (float(self.partners.val[b]) if b >= 0 else 0.0)

    def _explain_idle(self, row: int, task: int, core: int, j: int) -> None:
        R, sim = self.rows, self.sim
        b = int(self.pair_class[row])
        numbers = {"score": self._idle_net(row), "own": float(self.idle_obj[row]),
                   "utility": float(R.util[row, j])}
        if R.cp[row] and b >= 0:
            pair_net = float(self.pair_net[row])
            sim.explain_start(task, core, IDLE_TIES_PAIR if numbers["score"] == pair_net else
                              IDLE_OVER_PAIR, **numbers,
                              runner_up_where=sim.names[int(self.partners.cluster[b])],
                              runner_up_score=pair_net)
        else:
            sim.explain_start(task, core, IDLE_ONLY, **numbers, runner_up_where=None,
                              runner_up_score=None)

    def _explain_wait(self, row: int) -> None:
        pc, sim = self.partners, self.sim
        g = int(self.rows.gsim[row])
        # (a tie or not, it waits for the partner: one cause, told once with its numbers then)
        if sim.still_held(g, WAIT_B) or sim.still_held(g, WAIT_B_TIE):
            return
        c = int(self.pair_class[row])
        net_a, net_b = self._nets(row)
        idle = int(self.idle_cluster[row])
        sim.hold(g, WAIT_B_TIE if net_a == net_b else WAIT_B, net_a=net_a, net_b=net_b,
                 partner=int(sim.c_task[pc.first_core[c]]),
                 where=sim.names[int(pc.cluster[c])],
                 idle_net=self._idle_net(row) if idle >= 0 else None)

    def _explain_left(self) -> None:
        """Why the rows left with tasks and no option wait (the rows that chose ordering B
        were explained when they left)."""
        R, sim = self.rows, self.sim
        left = np.flatnonzero((R.count[:R.n] > 0) & ~R.removed[:R.n]
                              & (self.choice[:R.n] == NONE))
        for row in left.tolist():
            g = int(R.gsim[row])
            if not R.cp[row]:
                sim.hold(g, BUSY)
            elif self.pair_class[row] < 0:
                sim.hold(g, NO_PAIR)
            elif not sim.still_held(g, B_TOO_LATE):
                net_a, net_b = self._nets(row)
                sim.hold(g, B_TOO_LATE, net_a=net_a, net_b=net_b,
                         utility=float(self.pair_util[row]), threshold=sim.min_utility)
