"""The base every serial-preemption policy is a subclass of (checked when it registers)."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..sim import Context, SerialSim


class SerialPolicy(ABC):
    """A preemptive (or not) serial-task heuristic: the engine calls :meth:`map` once per
    mapping event.

    The kind builds one instance per run, ``cls(cfg, rng, **options)``: ``cfg`` is the
    scenario (:class:`~scheduling.serial_preemption.config.SerialConfig`), ``rng`` the
    policy's own random stream (its draws never shift the workload's), ``options`` the
    keywords the policy was registered with (a subclass names the ones it takes, e.g.
    ``mode`` and ``technique`` for :class:`~.greedy.GreedyPolicy`). Both ``cfg`` and ``rng``
    may be None where a test builds a policy by hand; a subclass then uses its defaults.
    """

    #: What the decision trace reports about the tasks the policy leaves waiting: the
    #: objective it ranks by ("util" or "upt") and whether it may suspend running tasks.
    mode = "util"
    preempts = False

    def __init__(self, cfg=None, rng: np.random.Generator | None = None):
        self.cfg = cfg
        self.rng = rng

    @abstractmethod
    def map(self, sim: SerialSim, ctx: Context) -> None:
        """Start (and, for preemptive policies, suspend) tasks at ``sim.now`` (minutes).

        ``ctx`` lists the waiting task groups after hopeless tasks were dropped: per row
        ``gidx`` (the simulator's group), ``count`` (tasks waiting in it), ``arrival``,
        ``lead`` (lowest task id), ``can_preempt`` (may suspend a running task) and per row
        and cluster ``util`` (utility if started now), ``ret`` (remaining execution time),
        ``valid`` (may start there) and ``crank`` (cluster preference for ties);
        ``ctx.obj("util" | "upt")`` is the objective. ``sim`` may be read: ``now``, ``K``
        (clusters), ``idle[j]`` (a heap of cluster ``j``'s idle cores), ``c_task``/``c_end``/
        ``c_util`` per core, ``running_values(mode)`` and ``victim_heaps(mode)``.

        It acts only through ``sim.take(group)`` (the group's next task id),
        ``sim.start(task, core, util)`` on an idle core and ``sim.preempt(core)`` (suspends
        the running task, which waits again, returning its id; ``sim.new_singleton(task)``
        gives it a group of its own). Returns nothing. The simulator refuses a start on a
        busy core or, for a task that already ran, on a cluster other than its own
        (``RuntimeError``).
        """
