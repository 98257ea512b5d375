"""Max Value, Max Value per Time, Max Value per Energy (§4.4), with Preemption (§4.6) and
Filtering (§4.7): repeatedly start the best-scoring valid combination."""

from __future__ import annotations

import numpy as np

from .common import NEG, base_mask, flat_argmax, preemption_mask, running_scores

SCORES = {"value": "V", "vpt": "VPT", "vpe": "VPE"}


class GreedyPolicy:
    def __init__(self, score: str, preemption: bool = False, filtering: bool = False,
                 rng: np.random.Generator | None = None):
        self.attr = SCORES[score]
        self.is_value = score == "value"
        self.preemption = preemption
        self.filtering = filtering
        self.rng = rng

    def map(self, view) -> None:
        S = getattr(view, self.attr)
        base = base_mask(view, self.filtering, self.preemption)
        if not base.any():
            return
        T4 = base.shape[1] * base.shape[2]
        if not self.preemption:
            M = np.where(base, S, NEG)
            while True:
                i = flat_argmax(M, view)
                if M.flat[i] == NEG:
                    return
                u, rest = divmod(i, T4)
                t, s = divmod(rest, base.shape[2])
                view.start(u, s, t)
                M[u] = NEG
                M[:, t] = NEG
        locked_u = np.zeros(view.U, bool)
        locked_t = np.zeros(view.T, bool)
        while True:
            cur_u, cur_t = running_scores(view, S, S, self.is_value, self.is_value)
            allowed = preemption_mask(view, base, S, S, cur_u, cur_t, locked_u, locked_t)
            M = np.where(allowed, S, NEG)
            i = flat_argmax(M, view)
            if M.flat[i] == NEG:
                return
            u, rest = divmod(i, T4)
            t, s = divmod(rest, base.shape[2])
            view.start(u, s, t)
            locked_u[u] = True  # A19: no re-preemption within one event
            locked_t[t] = True
