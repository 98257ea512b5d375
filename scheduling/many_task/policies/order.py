"""Dispatch orders of the central task queue (dispatch policies (trailing-tasks spec §5)).

The dispatcher never looks at run times except to sort them; tasks leave the queue in this
order, each to the first idle worker.
"""

from __future__ import annotations

import numpy as np

from simcore.sampling import rng

from .base import ManyTaskPolicy


class RandomOrder(ManyTaskPolicy):
    """Shuffled: a fresh permutation per trial (the paper reshuffled 100 times)."""

    name = "random"

    def order(self, runtimes: np.ndarray, seed: int) -> np.ndarray:
        return rng(seed, "many-task/order").permutation(runtimes.size)


class LongestFirst(ManyTaskPolicy):
    """Sorted by run time, longest first (LPT); ties keep the workload's order."""

    name = "sorted"

    def order(self, runtimes: np.ndarray, seed: int) -> np.ndarray:
        return np.argsort(-runtimes, kind="stable")


ORDERS = {"random": RandomOrder, "sorted": LongestFirst}
