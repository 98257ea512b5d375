"""The Metaheuristic (§4.5): each UAV proposes its best option by Max Value when it is behind
the linear energy pace (delta > eps) and by Max VPE otherwise; the system starts the proposal
with the highest value, then asks again."""

from __future__ import annotations

import numpy as np

from .common import NEG, PreemptionChoices, base_mask, flat_argmax, row_argmax


class MetaPolicy:
    def __init__(self, preemption: bool = False, filtering: bool = False,
                 rng: np.random.Generator | None = None):
        self.preemption = preemption
        self.filtering = filtering
        self.rng = rng

    def map(self, view) -> None:
        value_mode = view.delta > view.eps  # A15: VPE mode on the tie, e.g. at t = 0
        base = base_mask(view, self.filtering, self.preemption)
        considered = base.any(axis=(1, 2))
        n_value = int((value_mode & considered).sum())
        n_vpe = int((~value_mode & considered).sum())
        view.modes = {"uavs_value_mode": n_value, "uavs_vpe_mode": n_vpe,
                      "chosen": ("max-value" if n_vpe == 0 else "max-vpe" if n_value == 0
                                 else "mixed") if n_value + n_vpe else ""}
        if not considered.any():
            return
        V = view.V
        M_mode = np.where(value_mode[:, None, None], V, view.VPE)
        U, T, S = base.shape
        Vrows = V.reshape(U, T * S)
        if not self.preemption:
            rows = np.where(base, M_mode, NEG).reshape(U, T * S)
            best = row_argmax(rows, view)
            ar = np.arange(U)
            while True:
                top = rows[ar, best]
                cand = np.where(top > NEG, Vrows[ar, best], NEG)
                u = flat_argmax(cand, view)
                if cand[u] == NEG:
                    return
                t, s = divmod(int(best[u]), S)
                view.start(u, s, t, "value" if value_mode[u] else "vpe")
                rows[u] = NEG
                rows[:, t * S:(t + 1) * S] = NEG
                stale = np.flatnonzero(best // S == t)  # only proposals for t changed
                if stale.size:
                    best[stale] = row_argmax(rows[stale], view)
        # UAV side compares in its mode metric, target side in plain value (A18).
        choices = PreemptionChoices(view, base, M_mode, M_mode, V, value_mode, True)
        rows = choices.scores.reshape(U, T * S)
        ar = np.arange(U)
        while True:
            best = row_argmax(rows, view)
            top = rows[ar, best]
            cand = np.where(top > NEG, Vrows[ar, best], NEG)
            u = flat_argmax(cand, view)
            if cand[u] == NEG:
                return
            t, s = divmod(int(best[u]), S)
            freed = view.start(u, s, t, "value" if value_mode[u] else "vpe")
            choices.assigned(u, t, freed)
