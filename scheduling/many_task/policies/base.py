"""The base every many-task policy is a subclass of (checked when it registers)."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class ManyTaskPolicy(ABC):
    """A dispatch order for the bag of tasks, with or without tail-chopping.

    The kind builds one instance per run, ``cls(cfg, **options)``: ``cfg`` is the scenario
    (:class:`~scheduling.many_task.config.ManyTaskConfig`), ``options`` the keywords the policy
    was registered with; ``chop=True`` has the engine apply tail-chopping (cancel and downsize
    the partition when more than the scenario's fraction ``chop.f`` of the workers idle).
    It then calls :meth:`order` once. The engine does the rest: partitions sized by the
    task/worker ratio, each task to the first idle worker in this order.
    """

    def __init__(self, cfg=None, chop: bool = False):
        self.cfg = cfg
        self.chop = chop

    @abstractmethod
    def order(self, runtimes: np.ndarray, seed: int) -> np.ndarray:
        """The order tasks leave the central queue in: a permutation of
        ``range(runtimes.size)`` (task indices into ``runtimes``, the workload's run times in
        seconds, in the workload's order). ``seed`` is the run's seed; draw randomness from a
        stream of its own, ``simcore.sampling.rng(seed, "<your name>")``, so the workload's
        draws are unaffected. It must be a permutation: the engine dispatches
        ``runtimes[order]``, so a repeated or missing index would run a task twice or never.
        """
