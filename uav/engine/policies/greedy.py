"""Max Value, Max Value per Time, Max Value per Energy (value-based greedy heuristics
(ch. 5 spec §4.4)), with Preemption (ch. 5 spec §4.6) and Filtering (ch. 5 spec §4.7): repeatedly
start the best-scoring valid combination."""

from __future__ import annotations

import numpy as np

from . import why
from .base import UavPolicy
from .common import NEG, PreemptionChoices, base_mask, flat_argmax

SCORES = {"value": "V", "vpt": "VPT", "vpe": "VPE"}


class GreedyPolicy(UavPolicy):
    def __init__(self, rng: np.random.Generator | None = None, *, score: str,
                 preemption: bool = False, filtering: bool = False):
        super().__init__(rng)
        self.attr = SCORES[score]
        self.is_value = score == "value"
        self.preemption = preemption
        self.filtering = filtering

    def map(self, view) -> None:
        score = getattr(view, self.attr)
        base = base_mask(view, self.filtering, self.preemption)
        if not base.any():
            return
        n_sensors = base.shape[2]
        per_uav = base.shape[1] * n_sensors  # flat (target, sensor) entries per UAV
        explain = view.decisions is not None
        if not self.preemption:
            options = np.where(base, score, NEG)
            while True:
                i = flat_argmax(options, view)
                if options.flat[i] == NEG:
                    return
                u, rest = divmod(i, per_uav)
                t, s = divmod(rest, n_sensors)
                reasons = self.why_of(view, options, u, t, s) if explain else None
                view.start(u, s, t, why=reasons)
                options[u] = NEG
                options[:, t] = NEG
        choices = PreemptionChoices(view, base, score, score, score, self.is_value,
                                    self.is_value)
        options = choices.scores
        while True:
            i = flat_argmax(options, view)
            if options.flat[i] == NEG:
                return
            u, rest = divmod(i, per_uav)
            t, s = divmod(rest, n_sensors)
            reasons = None
            if explain:
                reasons = why.with_preemption(self.why_of(view, options, u, t, s), choices,
                                              u, t, score[u, t, s], score[u, t, s],
                                              (self.attr, self.attr))
            choices.assigned(u, t, view.start(u, s, t, why=reasons))

    def why_of(self, view, options, u, t, s) -> dict:
        """The decision's numbers (``--explain``): the score and the runner-up's, and the
        filter's threshold when it filters."""
        reasons = why.greedy_choice(options, u, t, s, self.attr)
        return why.with_filter(view, reasons, u, t, s) if self.filtering else reasons
