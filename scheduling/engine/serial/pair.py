"""Max Util / Max UPT Preempt Pair (spec §9.6).

For a task ``t`` that may preempt, every busy core running a preemptible task ``r`` is valued
by the better of two orderings on that core (A: t first, then r resumes; B: r finishes, then t
runs; ties go to B). The best such core P* is compared with the best idle core, whose net adds
``Val(r*)`` of P*'s partner continuing undisturbed. Phase 2 picks the task with the highest
*own* objective of its chosen option; ordering B means "wait": the task leaves this event.

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

from .sim import Context, SerialSim

NONE, IDLE, ORDER_A, ORDER_B = 0, 1, 2, 3


def pair_terms(t: float, upt: bool, table, ret_t, obj_t, util_t, arr_t, urow_t, scale_t,
               ret_r, val_r, arr_r, urow_r, scale_r):
    """Two-ordering values of task(s) t against partner(s) r (broadcastable arrays).

    ``ret_t``, ``obj_t``, ``util_t``: t's remaining time and objective / utility if started
    now on r's cluster; ``val_r``: r's objective if left alone. Returns
    ``(net, own, own_util, is_a)`` of the better ordering per pair (ties: B, no preemption).
    """
    ct_a = t + ret_t  # ordering A: t now, r resumes after it
    u_ra = table.value(urow_r, scale_r, ct_a + ret_r - arr_r)
    net_a = obj_t + (u_ra / ret_r if upt else u_ra)
    u_tb = table.value(urow_t, scale_t, t + ret_r + ret_t - arr_t)  # B: after r
    own_b = u_tb / ret_t if upt else u_tb
    net_b = val_r + own_b
    is_a = net_a > net_b
    return (np.where(is_a, net_a, net_b), np.where(is_a, obj_t, own_b),
            np.where(is_a, util_t, u_tb), is_a)


class PairPolicy:
    def __init__(self, mode: str):
        if mode not in ("util", "upt"):
            raise ValueError(f"bad mode {mode!r}")
        self.mode = mode
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

        net = np.full((cap, n_cls), -np.inf)
        own = np.zeros((cap, n_cls))
        own_u = np.zeros((cap, n_cls))
        is_a = np.zeros((cap, n_cls), dtype=bool)
        bc = np.full(cap, -1, dtype=np.int64)
        ij = np.full(cap, -1, dtype=np.int64)
        iobj = np.full(cap, -np.inf)
        kind = np.zeros(cap, dtype=np.int64)
        ownv = np.zeros(cap)
        version = np.zeros(cap, dtype=np.int64)
        heap: list[tuple] = []

        def fill_matrix(rows: np.ndarray) -> None:
            if rows.size == 0 or n_cls == 0:
                return
            ok = valid[rows][:, cl_j] & cl_alive
            m_net, m_own, m_u, m_a = pair_terms(
                t, upt, table, ret[rows][:, cl_j], obj[rows][:, cl_j], util[rows][:, cl_j],
                arr[rows][:, None], urow[rows][:, None], scale[rows][:, None],
                cl_ret, cl_val, cl_arr, cl_urow, cl_scale)
            net[rows] = np.where(ok, m_net, -np.inf)
            own[rows] = m_own
            own_u[rows] = m_u
            is_a[rows] = m_a

        def best_pair(rows: np.ndarray) -> None:
            """P* per row: the highest net, ties to the lowest core index (spec §8.4)."""
            if rows.size == 0:
                return
            if n_cls == 0:
                bc[rows] = -1
                return
            sub = net[rows]
            top = sub.max(axis=1)
            first_core = np.where(sub == top[:, None], cl_first, np.iinfo(np.int64).max)
            bc[rows] = np.where(top > -np.inf, np.argmin(first_core, axis=1), -1)

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
            if n_cls:
                has_pair = cp[rows] & (b >= 0)
                bsafe = np.maximum(b, 0)
                pnet = net[rows, bsafe]
                inet = iobj[rows] + np.where(has_pair, cl_val[bsafe], 0.0)
                choose = has_pair & (~has_idle | (pnet > inet))
                k = np.where(choose, np.where(is_a[rows, bsafe], ORDER_A, ORDER_B),
                             np.where(has_idle, IDLE, NONE))
                v = np.where(choose, own[rows, bsafe], iobj[rows])
                u = np.where(choose, own_u[rows, bsafe], idle_u)
            else:
                k = np.where(has_idle, IDLE, NONE)
                v = iobj[rows]
                u = idle_u
            k = np.where(u > thr, k, NONE)
            kind[rows] = k
            ownv[rows] = v
            version[rows] += 1
            for row, kk, vv, ver in zip(rows.tolist(), k.tolist(), v.tolist(),
                                        version[rows].tolist(), strict=True):
                if kk != NONE:
                    heapq.heappush(heap, (-vv, float(arr[row]), int(nid[row]), row, ver))

        # Guarded cores (started in this event): preemptible partners that Pair may not use.
        g_core: list[int] = []
        g_val: list[float] = []
        scalar_u = sim.table.value1
        g_seen = np.zeros(cap, dtype=np.int64)  # guarded cores already valued per row
        g_best = np.full(cap, -np.inf)  # best ordering-A net among them

        def guard_best(row: int) -> float:
            """The best ordering-A net the row would get from a guarded core (incremental:
            the guarded set only grows within the event)."""
            best = float(g_best[row])
            n = len(g_core)
            if g_seen[row] < n:
                o_row, u_row, ok_row, ret_row = (obj[row].tolist(), util[row].tolist(),
                                                 valid[row].tolist(), ret[row].tolist())
                ur, sc, a = int(urow[row]), float(scale[row]), float(arr[row])
                for idx in range(int(g_seen[row]), n):
                    core = g_core[idx]
                    j = int(sim.core_cluster[core])
                    # net_A <= obj_t + Val(r): skip partners that cannot beat the best so far.
                    if not ok_row[j] or o_row[j] + g_val[idx] <= best:
                        continue
                    r = int(sim.c_task[core])
                    ret_t, ret_r = ret_row[j], float(sim.c_end[core]) - t
                    u_ra = scalar_u(int(sim.t_urow[r]), float(sim.t_scale[r]), 1.0,
                                    t + ret_t + ret_r - float(sim.t_arr[r]))
                    u_tb = scalar_u(ur, sc, 1.0, t + ret_r + ret_t - a)
                    net_a = o_row[j] + (u_ra / ret_r if upt else u_ra)
                    net_b = g_val[idx] + (u_tb / ret_t if upt else u_tb)
                    if net_a > net_b and u_row[j] > thr:
                        best = max(best, net_a)
                g_seen[row] = n
                g_best[row] = best
            return best

        all_rows = np.arange(n0)
        cp_rows = all_rows[cp[:n0]]
        fill_matrix(cp_rows)
        best_pair(cp_rows)
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
                    chosen = float(net[row, b])
                else:
                    chosen = float(iobj[row]) + (float(cl_val[b]) if b >= 0 else 0.0)
                if g_core and guard_best(row) > chosen:
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
                    net[:n_rows, c] = -np.inf
                else:
                    cl_first[c] = cl_cores[c][cl_ptr[c]]
                # Rows that chose this class lose it or may now tie-break to another class.
                live = np.flatnonzero((bc[:n_rows] == c) & (count[:n_rows] > 0)
                                      & ~removed[:n_rows])
                best_pair(live)
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
                    fill_matrix(one)
                    best_pair(one)
                best_idle(one)
                affected = one if affected is None else np.concatenate([affected, one])
            if sim.t_pre[task]:
                g_core.append(core)
                g_val.append(float(obj[row, j]))
            if affected is not None and affected.size:
                resolve(affected)
            if count[row] > 0 and (affected is None or row not in set(affected.tolist())):
                heapq.heappush(heap, (-float(ownv[row]), float(arr[row]), int(nid[row]), row,
                                      int(version[row])))
