"""Max VPTR and its variants (ch. 2 spec §7.1): two-phase greedy in the style of Min-Min.

Every round takes, for each mappable task, the allowable configuration with the highest metric
(value per total resource for Max VPTR) at its earliest start, drops tasks no configuration can
give value, and commits the (task, configuration) with the highest metric overall (ties: the
earliest arrival, then the first configuration): it starts now on the cores of the void rule
(core selection on equal start (ch. 2 spec §6.3)) or gets a place-holder, erased at the next event
(permanent reservations vs. place-holders (ch. 2 spec §6.4)).

Rounds are exact but incremental: a booking on ``[s, e)`` can only delay earliest starts, and
only of configurations whose window ``[start, start + ETC)`` overlaps it, so only tasks with
such a window are re-evaluated (an evaluation at an unchanged start gives the same value).
"""

from __future__ import annotations

import numpy as np

from simcore.value import soft_hard

from ..model import METRICS
from .base import VosPolicy

STARTS_NOW = "highest score of this round: starts now"
HELD = ("highest score of this round but it cannot start now: place-holder at its earliest "
        "start, erased at the next mapping event")


class ValuePolicy(VosPolicy):
    placeholders = True

    def __init__(self, cfg, rng: np.random.Generator | None, metric: str):
        super().__init__(cfg, rng)
        self.metric = metric
        self.cost = METRICS[metric][1]
        self.tr_weights = (cfg.scheduler.tr_core_weight, cfg.scheduler.tr_memory_weight)

    def map(self, sim, tasks: np.ndarray) -> None:
        wl = sim.wl
        n = tasks.size
        C, M, D, E, valid = sim.options(tasks)
        kmax = C.shape[1]
        wc, wm = self.tr_weights
        etc = np.where(valid, D, 1.0)
        tr = etc * (wc * C / sim.total_cores + wm * M / sim.total_memory)
        # One query per valid (task, configuration), row-major; everything that does not
        # depend on the start (the energy half of the value, the cost) is computed once.
        flat = np.flatnonzero(valid.ravel())
        qrow = flat // kmax
        qtask = tasks[qrow]
        qc, qm, qd = C.ravel()[flat], M.ravel()[flat], D.ravel()[flat]
        v_e = soft_hard(E.ravel()[flat], wl.e_soft[qtask], wl.e_hard[qtask], wl.ve_min[qtask])
        q_energy = wl.gamma[qtask] * wl.w_e[qtask] * v_e
        q_gp = wl.gamma[qtask] * wl.w_p[qtask]
        q_earns = v_e > 0.0
        q_offset = qd - wl.arrival[qtask]  # response time = start + offset
        q_soft, q_hard, q_vmin = wl.p_soft[qtask], wl.p_hard[qtask], wl.vp_min[qtask]
        q_cost = self.cost(etc, C, M, tr).ravel()[flat]
        score = np.full(n * kmax, -np.inf)
        value = np.zeros(n * kmax)
        start = np.full(n * kmax, np.inf)
        where = np.zeros(n * kmax, dtype=np.int64)  # node of each earliest start
        vmax = np.zeros(n)
        lo_w = np.full(n, np.inf)
        hi_w = np.full(n, -np.inf)
        alive = np.ones(n, dtype=bool)
        stale = np.ones(n, dtype=bool)
        log = sim.decisions
        while True:
            if stale.any():
                pick = stale[qrow]
                q = flat[pick]
                s, nd = sim.earliest(qc[pick], qm[pick], qd[pick])
                v_p = soft_hard(s + q_offset[pick], q_soft[pick], q_hard[pick], q_vmin[pick])
                v = np.where((v_p > 0.0) & q_earns[pick], q_gp[pick] * v_p + q_energy[pick],
                             0.0)
                value[q] = v
                score[q] = v / q_cost[pick]
                start[q] = s
                where[q] = nd
                idx = np.flatnonzero(stale)
                vmax[idx] = value.reshape(n, kmax)[idx].max(axis=1)
                sub = start.reshape(n, kmax)[idx]
                fin = np.isfinite(sub)
                lo_w[idx] = np.where(fin, sub, np.inf).min(axis=1)
                hi_w[idx] = np.where(fin, sub + D[idx], -np.inf).max(axis=1)
                gone = idx[vmax[idx] <= 0.0]
                for j in gone.tolist():
                    # no configuration can earn value: drop (dropping (ch. 2 spec §6.5))
                    if log is not None:
                        sim.explain(tasks[j], "dropped", "no allowable configuration earns "
                                    "value at its earliest start",
                                    **sim.drop_numbers(int(tasks[j]), vmax[j]))
                    sim.drop(int(tasks[j]))
                alive[gone] = False
                stale[idx] = False
            if not alive.any():
                return
            grid = score.reshape(n, kmax)
            best_k = grid.argmax(axis=1)
            j = int(np.where(alive, grid[np.arange(n), best_k], -np.inf).argmax())
            k = int(best_k[j])
            s0 = float(start[j * kmax + k])
            if log is not None:
                numbers = {} if s0 > sim.now and sim.repeats(tasks[j], "held", HELD) else \
                    self._why(sim, grid, alive, tasks, j, k, s0, value[j * kmax + k],
                              int(where[j * kmax + k]))
            sim.assign(int(tasks[j]), k, s0, int(where[j * kmax + k]), "voids", True)
            if log is not None:
                self._explain(sim, int(tasks[j]), s0, numbers)
            alive[j] = False
            e0 = s0 + float(D[j, k])
            stale = alive & (lo_w < e0) & (hi_w > s0)

    def _why(self, sim, grid, alive, tasks, j: int, k: int, s0: float, value: float,
             node: int) -> dict:
        """The numbers behind committing task ``j`` in configuration ``k``: its score against
        its own next best configuration and the best other task's (the runner-up), and, when
        it cannot start now, what blocked it."""
        row = grid[j].copy()
        row[k] = -np.inf
        alt = int(row.argmax())
        best = np.where(alive, grid.max(axis=1), -np.inf)
        best[j] = -np.inf
        other = int(best.argmax())
        numbers = {"config": k, "start": s0, "value": float(value), "score": float(grid[j, k]),
                   "metric": METRICS[self.metric][0]}
        if np.isfinite(row[alt]):
            numbers.update(alt_config=alt, alt_score=float(row[alt]))
        if np.isfinite(best[other]):
            numbers.update(runner_up=int(tasks[other]), runner_up_score=float(best[other]))
        if s0 > sim.now:
            numbers.update(sim.blocked(int(tasks[j]), k, node))
        return numbers

    def _explain(self, sim, task: int, s0: float, numbers: dict) -> None:
        # The void rule may move the task to another node with the same earliest start.
        if s0 == sim.now:  # committed: the value the result reports
            sim.explain(task, "mapped", STARTS_NOW, where=int(sim.node[task]),
                        **{**numbers, "value": float(sim.value[task])})
        elif numbers:
            sim.explain(task, "held", HELD, where=sim.placeholders[task], **numbers)
        else:  # renewed: counted on the first
            sim.explain(task, "held", HELD)
