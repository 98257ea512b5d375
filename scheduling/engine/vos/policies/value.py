"""Max VPTR and its variants (spec §7.1): two-phase greedy in the style of Min-Min.

Every round takes, for each mappable task, the allowable configuration with the highest metric
(value per total resource for Max VPTR) at its earliest start, drops tasks no configuration can
give value, and commits the (task, configuration) with the highest metric overall (ties: the
earliest arrival, then the first configuration): it starts now on the cores of the void rule
(spec §6.3) or gets a place-holder, erased at the next event (spec §6.4).

Rounds are exact but incremental: a booking on ``[s, e)`` can only delay earliest starts, and
only of configurations whose window ``[start, start + ETC)`` overlaps it, so only tasks with
such a window are re-evaluated (an evaluation at an unchanged start gives the same value).
"""

from __future__ import annotations

import numpy as np

from ..model import METRICS


class ValuePolicy:
    placeholders = True

    def __init__(self, metric: str, tr_weights: tuple[float, float]):
        self.metric = metric
        self.ratio = METRICS[metric][1]
        self.tr_weights = tr_weights

    def map(self, sim, tasks: np.ndarray) -> None:
        n_tasks = tasks.size
        C, M, D, E, valid = sim.options(tasks)
        wc, wm = self.tr_weights
        tr = np.where(valid, D, 1.0) * (wc * C / sim.total_cores + wm * M / sim.total_memory)
        # The energy half of the value does not depend on the start: computed once.
        rows = np.broadcast_to(tasks[:, None], C.shape)
        flat = np.flatnonzero(valid.ravel())
        qc, qm, qd = C.ravel()[flat], M.ravel()[flat], D.ravel()[flat]
        start = np.full(C.shape, np.inf)
        where = np.zeros(C.shape, dtype=np.int64)  # node of each earliest start
        score = np.full(C.shape, -np.inf)
        vmax = np.zeros(n_tasks)
        lo_w = np.full(n_tasks, np.inf)
        hi_w = np.full(n_tasks, -np.inf)
        alive = np.ones(n_tasks, dtype=bool)
        stale = np.ones(n_tasks, dtype=bool)
        qrow = np.repeat(np.arange(n_tasks), valid.sum(axis=1))  # task row of each query
        kcount = valid.shape[1]
        while True:
            idx = np.flatnonzero(stale)
            if idx.size:
                pick = stale[qrow] if idx.size < n_tasks else slice(None)
                q = flat[pick]
                s, nd = sim.earliest(qc[pick], qm[pick], qd[pick])
                r, k = np.divmod(q, kcount)
                value, _, _ = sim.values(rows[r, k], s, D[r, k], E[r, k])
                sub = np.full((idx.size, kcount), -np.inf)
                vsub = np.zeros((idx.size, kcount))
                ssub = np.full((idx.size, kcount), np.inf)
                local = np.searchsorted(idx, r)
                where[r, k] = nd
                sub[local, k] = self.ratio(value, D[r, k], C[r, k], M[r, k], tr[r, k])
                vsub[local, k] = value
                ssub[local, k] = s
                score[idx] = sub
                start[idx] = ssub
                vmax[idx] = vsub.max(axis=1)
                fin = np.isfinite(ssub)
                lo_w[idx] = np.where(fin, ssub, np.inf).min(axis=1)
                hi_w[idx] = np.where(fin, ssub + D[idx], -np.inf).max(axis=1)
                gone = idx[vmax[idx] <= 0.0]
                for j in gone.tolist():  # no configuration can earn value: drop (§6.5)
                    sim.drop(int(tasks[j]))
                alive[gone] = False
                stale[idx] = False
            if not alive.any():
                return
            best_k = score.argmax(axis=1)
            best = score[np.arange(n_tasks), best_k]
            j = int(np.where(alive, best, -np.inf).argmax())
            k = int(best_k[j])
            s0 = float(start[j, k])
            sim.assign(int(tasks[j]), k, s0, int(where[j, k]), "voids", True)
            alive[j] = False
            e0 = s0 + float(D[j, k])
            stale = alive & (lo_w < e0) & (hi_w > s0)
