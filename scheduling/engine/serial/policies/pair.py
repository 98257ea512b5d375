"""Max Util / Max UPT Preempt Pair (spec §9.6).

For a task ``t`` that may preempt, every busy core running a preemptible task ``r`` is valued
by the better of two orderings on that core (A: t first, then r resumes; B: r finishes, then t
runs; ties go to B, ``pair_tie = "preempt"``: to A). The best such core P* is compared with
the best idle core, whose net adds ``Val(r*)`` of P*'s partner continuing undisturbed. Phase 2
picks the task with the highest *own* objective of its chosen option; ordering B means "wait":
the task leaves this event.

Speed (spec §15.1): all pair values of an event are fixed, because the per-event guard (A19)
keeps tasks started in this event out of the partner set. So the (group x partner) matrix is
computed once per event with numpy, over *partner classes*: running tasks of the same burst on
the same cluster with the same completion time are interchangeable partners. A task's chosen
option changes only when its partner class runs out of cores or its idle cluster fills up;
only those tasks are re-valued (lazy heap with versions).
"""

from __future__ import annotations

import heapq

import numpy as np

from ..sim import Context, SerialSim

NONE, IDLE, ORDER_A, ORDER_B = 0, 1, 2, 3


def pair_terms(t: float, upt: bool, table, ret_t, obj_t, util_t, arr_t, urow_t, scale_t,
               ret_r, val_r, arr_r, urow_r, scale_r, ties_preempt: bool = False):
    """Two-ordering values of task(s) t against partner(s) r (broadcastable arrays).

    ``ret_t``, ``obj_t``, ``util_t``: t's remaining time and objective / utility if started
    now on r's cluster; ``val_r``: r's objective if left alone. Returns
    ``(net, own, own_util, is_a)`` of the better ordering per pair. Equal nets go to B (no
    preemption: "Tasks are not preempted unless higher utility can be earned for another
    task", paper §II.D; spec A18) or, with ``ties_preempt``, to A (the Pair paragraph drops
    preemption on a core only "if the second ordering results in higher Util").
    """
    ct_a = t + ret_t  # ordering A: t now, r resumes after it
    u_ra = table.value(urow_r, scale_r, ct_a + ret_r - arr_r)
    net_a = obj_t + (u_ra / ret_r if upt else u_ra)
    u_tb = table.value(urow_t, scale_t, t + ret_r + ret_t - arr_t)  # B: after r
    own_b = u_tb / ret_t if upt else u_tb
    net_b = val_r + own_b
    is_a = net_a >= net_b if ties_preempt else net_a > net_b
    return (np.where(is_a, net_a, net_b), np.where(is_a, obj_t, own_b),
            np.where(is_a, util_t, u_tb), is_a)


class PairPolicy:
    def __init__(self, mode: str, tie: str = "wait"):
        if mode not in ("util", "upt"):
            raise ValueError(f"bad mode {mode!r}")
        if tie not in ("preempt", "wait"):
            raise ValueError(f"bad tie rule {tie!r}")
        self.mode = mode
        self.ties_preempt = tie == "preempt"
        # Picks where a task started earlier in the event would have been a better partner.
        self.guard_fired = 0
        self.deferred = 0  # tasks that chose ordering B (wait for the partner)

    def stats(self) -> dict:
        return {"pair_guard_fired": self.guard_fired, "pair_deferred": self.deferred}

    def map(self, sim: SerialSim, ctx: Context) -> None:  # noqa: C901 - one event, kept together
        n0 = ctx.gidx.size
        if n0 == 0:
            return
        upt = self.mode == "upt"
        t = sim.now
        K = sim.K
        table = sim.ufast
        thr = sim.min_utility
        idle = sim.idle
        idle_n = np.array([len(h) for h in idle], dtype=np.int64)
        busy = np.flatnonzero(sim.c_task >= 0)
        busy = busy[sim.t_pre[sim.c_task[busy]]]
        if idle_n.sum() == 0 and busy.size == 0:
            return

        # Partner classes, ordered by their lowest core (ties in P* go to the lowest core).
        btask = sim.c_task[busy]
        bj = sim.core_cluster[busy]
        bend = sim.c_end[busy]
        bburst = sim.wl.burst[btask]
        o = np.lexsort((busy, bend, bj, bburst))
        busy, btask, bj, bend, bburst = busy[o], btask[o], bj[o], bend[o], bburst[o]
        if busy.size:
            new = np.concatenate([[True], (np.diff(bburst) != 0) | (np.diff(bj) != 0)
                                  | (np.diff(bend) != 0)])
        else:
            new = np.zeros(0, dtype=bool)
        first = np.flatnonzero(new)
        cls_of_core = np.cumsum(new) - 1
        corder = np.argsort(busy[first], kind="stable")
        rank = np.empty_like(corder)
        rank[corder] = np.arange(corder.size)
        first = first[corder]
        n_cls = first.size
        cl_cores: list[list[int]] = [[] for _ in range(n_cls)]
        for core, c in zip(busy.tolist(), rank[cls_of_core].tolist(), strict=True):
            cl_cores[c].append(core)
        cl_left = [len(x) for x in cl_cores]
        cl_ptr = [0] * n_cls
        cl_j = bj[first]
        cl_ret = bend[first] - t
        cl_task = btask[first]
        cl_util = sim.c_util[busy[first]]
        cl_val = cl_util / cl_ret if upt else cl_util
        cl_arr = sim.t_arr[cl_task]
        cl_urow = sim.t_urow[cl_task]
        cl_scale = sim.t_scale[cl_task]
        cl_alive = np.ones(n_cls, dtype=bool)
        cl_first = busy[first].copy()  # lowest core of each class still running its partner

        # Row arrays with room for the victims of this event (each partner core at most once).
        cap = n0 + busy.size
        obj = np.zeros((cap, K))
        obj[:n0] = ctx.obj(self.mode)
        util = np.zeros((cap, K))
        util[:n0] = ctx.util
        valid = np.zeros((cap, K), dtype=bool)
        valid[:n0] = ctx.valid
        ret = np.ones((cap, K))
        ret[:n0] = ctx.ret
        crank = np.zeros((cap, K), dtype=np.int64)
        crank[:n0] = ctx.crank
        arr = np.zeros(cap)
        arr[:n0] = ctx.arrival
        nid = np.zeros(cap, dtype=np.int64)
        nid[:n0] = ctx.lead
        count = np.zeros(cap, dtype=np.int64)
        count[:n0] = ctx.count
        cp = np.zeros(cap, dtype=bool)
        cp[:n0] = ctx.can_preempt
        urow = np.zeros(cap, dtype=np.int64)
        urow[:n0] = ctx.urow
        scale = np.zeros(cap)
        scale[:n0] = ctx.scale
        gsim = np.zeros(cap, dtype=np.int64)
        gsim[:n0] = ctx.gidx
        removed = np.zeros(cap, dtype=bool)
        n_rows = n0

        # Each row's best pair option P*: class, net, own objective and utility, ordering.
        bc = np.full(cap, -1, dtype=np.int64)
        bnet = np.full(cap, -np.inf)
        bown = np.zeros(cap)
        bown_u = np.zeros(cap)
        bis_a = np.zeros(cap, dtype=bool)
        ij = np.full(cap, -1, dtype=np.int64)
        iobj = np.full(cap, -np.inf)
        kind = np.zeros(cap, dtype=np.int64)
        ownv = np.zeros(cap)
        version = np.zeros(cap, dtype=np.int64)
        heap: list[tuple] = []

        # Partner classes per cluster by decreasing Val, for pruning: a pair's net is at most
        # obj_t + Val(r) and at least Val(r) (ordering B), so a partner with
        # obj_t(j) + Val(r) < max Val can never be P*.
        by_val = np.lexsort((cl_first, -cl_val))
        cls_sorted = [by_val[cl_j[by_val] == j] for j in range(K)]
        neg_val_sorted = [-cl_val[c] for c in cls_sorted]
        vptr = [0] * K  # first alive class in cls_sorted[j]

        def pair_best(rows: np.ndarray) -> None:
            """P* per row among the alive partners: the highest net, ties to the lowest core
            index (spec §8.4)."""
            if rows.size == 0:
                return
            bc[rows] = -1
            bnet[rows] = -np.inf
            if n_cls == 0:
                return
            vmax = np.array([-neg_val_sorted[j][vptr[j]] if vptr[j] < cls_sorted[j].size
                             else -np.inf for j in range(K)])
            ok = valid[rows] & (vmax > -np.inf)
            if not ok.any():
                return
            top = np.where(ok, vmax, -np.inf).max(axis=1)
            tau = top[:, None] - obj[rows]
            tau -= 1e-9 * (1.0 + np.abs(tau))  # keep every partner that could tie
            parts_r, parts_c = [], []
            for j in range(K):
                if cls_sorted[j].size == 0:
                    continue
                n = np.searchsorted(neg_val_sorted[j], -tau[:, j], side="right")
                n = np.where(ok[:, j], n, 0)
                total = int(n.sum())
                if total == 0:
                    continue
                ri = np.repeat(np.arange(rows.size), n)
                pos = np.arange(total) - np.repeat(np.cumsum(n) - n, n)
                parts_r.append(ri)
                parts_c.append(cls_sorted[j][pos])
            if not parts_r:
                return
            ri = np.concatenate(parts_r)
            c = np.concatenate(parts_c)
            alive = cl_alive[c]
            ri, c = ri[alive], c[alive]
            if ri.size == 0:
                return
            rr = rows[ri]
            jc = cl_j[c]
            p_net, p_own, p_u, p_a = pair_terms(
                t, upt, table, ret[rr, jc], obj[rr, jc], util[rr, jc], arr[rr], urow[rr],
                scale[rr], cl_ret[c], cl_val[c], cl_arr[c], cl_urow[c], cl_scale[c],
                self.ties_preempt)
            order = np.lexsort((cl_first[c], -p_net, ri))
            ri_sorted = ri[order]
            pick = order[np.flatnonzero(np.concatenate([[True],
                                                        ri_sorted[1:] != ri_sorted[:-1]]))]
            dest = rows[ri[pick]]
            bc[dest] = c[pick]
            bnet[dest] = p_net[pick]
            bown[dest] = p_own[pick]
            bown_u[dest] = p_u[pick]
            bis_a[dest] = p_a[pick]

        def best_idle(rows: np.ndarray) -> None:
            if rows.size == 0:
                return
            sc = np.where(valid[rows] & (idle_n > 0), obj[rows], -np.inf)
            top = sc.max(axis=1)
            cr = np.where(sc == top[:, None], crank[rows], K + 1)
            j = np.argmin(cr, axis=1)
            has = top > -np.inf
            ij[rows] = np.where(has, j, -1)
            iobj[rows] = top

        def resolve(rows: np.ndarray) -> None:
            """Choose each row's option (spec §9.6 step 4) and queue it for phase 2."""
            rows = rows[(count[rows] > 0) & ~removed[rows]]
            if rows.size == 0:
                return
            b = bc[rows]
            j = ij[rows]
            has_idle = j >= 0
            idle_u = util[rows, np.maximum(j, 0)]
            has_pair = cp[rows] & (b >= 0)
            partner_val = cl_val[np.maximum(b, 0)] if n_cls else np.zeros(rows.size)
            inet = iobj[rows] + np.where(has_pair, partner_val, 0.0)
            choose = has_pair & (~has_idle | (bnet[rows] > inet))
            k = np.where(choose, np.where(bis_a[rows], ORDER_A, ORDER_B),
                         np.where(has_idle, IDLE, NONE))
            v = np.where(choose, bown[rows], iobj[rows])
            u = np.where(choose, bown_u[rows], idle_u)
            k = np.where(u > thr, k, NONE)
            kind[rows] = k
            ownv[rows] = v
            version[rows] += 1
            for row, kk, vv, ver in zip(rows.tolist(), k.tolist(), v.tolist(),
                                        version[rows].tolist(), strict=True):
                if kk != NONE:
                    heapq.heappush(heap, (-vv, float(arr[row]), int(nid[row]), row, ver))

        # Guarded tasks (started in this event) are preemptible partners Pair may not use. A
        # pick "fires" the guard when a guarded task would have offered an ordering-A pair
        # with a higher net than the option chosen. Guarded tasks of one burst started on one
        # cluster are interchangeable partners, so they are kept once (guard classes).
        m = sim.M
        gc_j = np.zeros(m, dtype=np.int64)
        gc_ret = np.zeros(m)
        gc_val = np.zeros(m)
        gc_arr = np.zeros(m)
        gc_urow = np.zeros(m, dtype=np.int64)
        gc_scale = np.zeros(m)
        gc_keys: set[tuple] = set()
        g_top = [-np.inf] * K  # highest Val among guarded tasks per cluster
        n_gc = 0

        def guard_add(core: int, task: int) -> None:
            nonlocal n_gc
            j = int(sim.core_cluster[core])
            end_t = float(sim.c_end[core])
            key = (int(sim.wl.burst[task]), j, end_t)
            if key in gc_keys:
                return
            gc_keys.add(key)
            i = n_gc
            n_gc += 1
            gc_j[i] = j
            gc_ret[i] = end_t - t
            u = float(sim.c_util[core])
            gc_val[i] = u / gc_ret[i] if upt else u
            gc_arr[i] = sim.t_arr[task]
            gc_urow[i] = sim.t_urow[task]
            gc_scale[i] = sim.t_scale[task]
            g_top[j] = max(g_top[j], float(gc_val[i]))

        def guard_fires(row: int, chosen: float) -> bool:
            # net_A <= obj_t + Val(r): most picks are settled by this per-cluster bound.
            o_row = obj[row].tolist()
            ok_row = valid[row].tolist()
            if not any(ok_row[j] and o_row[j] + g_top[j] > chosen for j in range(K)):
                return False
            gj = gc_j[:n_gc]
            o = obj[row, gj]
            sel = np.flatnonzero(valid[row, gj] & (o + gc_val[:n_gc] > chosen))
            if sel.size == 0:
                return False
            jj = gj[sel]
            g_net, _, _, g_a = pair_terms(
                t, upt, table, ret[row, jj], o[sel], util[row, jj], arr[row], urow[row],
                scale[row], gc_ret[sel], gc_val[sel], gc_arr[sel], gc_urow[sel],
                gc_scale[sel], self.ties_preempt)
            return bool(np.any(g_a & (util[row, jj] > thr) & (g_net > chosen)))

        all_rows = np.arange(n0)
        cp_rows = all_rows[cp[:n0]]
        pair_best(cp_rows)
        best_idle(all_rows)
        resolve(all_rows)

        while heap:
            _, _, _, row, ver = heapq.heappop(heap)
            if ver != version[row] or count[row] == 0 or removed[row]:
                continue
            k = int(kind[row])
            if cp[row]:
                b = int(bc[row])
                if k in (ORDER_A, ORDER_B):
                    chosen = float(bnet[row])
                else:
                    chosen = float(iobj[row]) + (float(cl_val[b]) if b >= 0 else 0.0)
                if n_gc and guard_fires(row, chosen):
                    self.guard_fired += 1
            if k == ORDER_B:
                removed[row] = True
                self.deferred += int(count[row])
                continue
            affected = None
            if k == IDLE:
                j = int(ij[row])
                core = heapq.heappop(idle[j])
                u = float(util[row, j])
                task = sim.take(int(gsim[row]))
                sim.start(task, core, u)
                idle_n[j] -= 1
                count[row] -= 1
                nid[row] += 1
                if idle_n[j] == 0:
                    live = np.flatnonzero((ij[:n_rows] == j) & (count[:n_rows] > 0)
                                          & ~removed[:n_rows])
                    best_idle(live)
                    affected = live
            else:  # ORDER_A: preempt the partner, start t on its core
                c = int(bc[row])
                core = cl_cores[c][cl_ptr[c]]
                cl_ptr[c] += 1
                cl_left[c] -= 1
                j = int(cl_j[c])
                r_util = float(sim.c_util[core])
                r = sim.preempt(core)
                task = sim.take(int(gsim[row]))
                sim.start(task, core, float(util[row, j]))
                count[row] -= 1
                nid[row] += 1
                if cl_left[c] == 0:
                    cl_alive[c] = False
                    jv = cl_j[c]
                    while vptr[jv] < cls_sorted[jv].size and not cl_alive[cls_sorted[jv][vptr[jv]]]:
                        vptr[jv] += 1
                else:
                    cl_first[c] = cl_cores[c][cl_ptr[c]]
                # Rows that chose this class lose it or may now tie-break to another class.
                live = np.flatnonzero((bc[:n_rows] == c) & (count[:n_rows] > 0)
                                      & ~removed[:n_rows])
                pair_best(live)
                affected = live
                # The victim re-enters as a singleton bound to cluster j (it has progress).
                nr = n_rows
                n_rows += 1
                obj[nr, j] = cl_val[c]
                util[nr, j] = r_util
                valid[nr, j] = r_util > thr
                ret[nr, j] = cl_ret[c]
                arr[nr] = sim.t_arr[r]
                nid[nr] = r
                count[nr] = 1
                cp[nr] = sim.t_cp[r]
                urow[nr] = sim.t_urow[r]
                scale[nr] = sim.t_scale[r]
                gsim[nr] = sim.new_singleton(r)
                one = np.array([nr])
                if cp[nr]:
                    pair_best(one)
                best_idle(one)
                affected = one if affected is None else np.concatenate([affected, one])
            if sim.t_pre[task]:
                guard_add(core, task)
            if affected is not None and affected.size:
                resolve(affected)
            if count[row] > 0 and (affected is None or row not in set(affected.tolist())):
                heapq.heappush(heap, (-float(ownv[row]), float(arr[row]), int(nid[row]), row,
                                      int(version[row])))
