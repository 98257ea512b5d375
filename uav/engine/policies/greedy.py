"""Max Value, Max Value per Time, Max Value per Energy (§4.4), with Preemption (§4.6) and
Filtering (§4.7): repeatedly start the best-scoring valid combination."""

from __future__ import annotations

import numpy as np

from .common import NEG, PreemptionChoices, base_mask, flat_argmax

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
        choices = PreemptionChoices(view, base, S, S, S, self.is_value, self.is_value)
        M = choices.scores
        while True:
            i = flat_argmax(M, view)
            if M.flat[i] == NEG:
                return
            u, rest = divmod(i, T4)
            t, s = divmod(rest, base.shape[2])
            choices.assigned(u, t, view.start(u, s, t))
