"""The Metaheuristic (ch. 5 spec §4.5): each UAV proposes its best option by Max Value when it is
behind the linear energy pace (the fraction of its day elapsed, delta, above the fraction of its
energy spent, epsilon) and by Max VPE otherwise; the system starts the proposal with the highest
value, then asks again."""

from __future__ import annotations

import numpy as np

from . import why
from .base import UavPolicy
from .common import NEG, PreemptionChoices, base_mask, flat_argmax, row_argmax


class MetaPolicy(UavPolicy):
    def __init__(self, rng: np.random.Generator | None = None, *, preemption: bool = False,
                 filtering: bool = False):
        super().__init__(rng)
        self.preemption = preemption
        self.filtering = filtering

    def map(self, view) -> None:
        # Behind the linear energy pace: delta > epsilon; VPE mode on the tie, e.g. at t = 0
        # (Meta at the start (ch. 5 spec A15)).
        value_mode = view.day_elapsed > view.energy_spent
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
        mode_score = np.where(value_mode[:, None, None], V, view.VPE)
        n_uavs, n_targets, n_sensors = base.shape
        # One row per UAV over its flat (target, sensor) options.
        value_rows = V.reshape(n_uavs, n_targets * n_sensors)
        ar = np.arange(n_uavs)
        explain = view.decisions is not None
        if not self.preemption:
            rows = np.where(base, mode_score, NEG).reshape(n_uavs, n_targets * n_sensors)
            best = row_argmax(rows, view)
            while True:
                top = rows[ar, best]
                cand = np.where(top > NEG, value_rows[ar, best], NEG)
                u = flat_argmax(cand, view)
                if cand[u] == NEG:
                    return
                t, s = divmod(int(best[u]), n_sensors)
                reasons = (self.why_of(view, cand, best, u, t, s, value_mode, top) if explain
                           else None)
                view.start(u, s, t, "value" if value_mode[u] else "vpe", why=reasons)
                rows[u] = NEG
                rows[:, t * n_sensors:(t + 1) * n_sensors] = NEG
                stale = np.flatnonzero(best // n_sensors == t)  # only proposals for t changed
                if stale.size:
                    best[stale] = row_argmax(rows[stale], view)
        # UAV side compares in its mode metric, target side in plain value (preemption
        # comparison basis, preemption comparison basis (ch. 5 spec A18)).
        choices = PreemptionChoices(view, base, mode_score, mode_score, V, value_mode, True)
        rows = choices.scores.reshape(n_uavs, n_targets * n_sensors)
        while True:
            best = row_argmax(rows, view)
            top = rows[ar, best]
            cand = np.where(top > NEG, value_rows[ar, best], NEG)
            u = flat_argmax(cand, view)
            if cand[u] == NEG:
                return
            t, s = divmod(int(best[u]), n_sensors)
            reasons = None
            if explain:
                reasons = why.with_preemption(
                    self.why_of(view, cand, best, u, t, s, value_mode, top), choices, u, t,
                    mode_score[u, t, s], V[u, t, s], ("V" if value_mode[u] else "VPE", "V"))
            freed = view.start(u, s, t, "value" if value_mode[u] else "vpe", why=reasons)
            choices.assigned(u, t, freed)

    def why_of(self, view, cand, best, u, t, s, value_mode, top) -> dict:
        """The decision's numbers (``--explain``): the UAV's pace and mode, its proposal's
        value against the runner-up proposal's, and the filter's threshold when it filters."""
        reasons = why.meta_choice(view, cand, best, u, bool(value_mode[u]), top[u])
        return why.with_filter(view, reasons, u, t, s) if self.filtering else reasons
