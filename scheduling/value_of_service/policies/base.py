"""The base every value-of-service policy is a subclass of (checked when it registers)."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class VosPolicy(ABC):
    """A Value of Service heuristic: the engine calls :meth:`map` once per mapping event.

    The kind builds one instance per run, ``cls(cfg, rng, **options)``: ``cfg`` is the scenario
    (:class:`~scheduling.value_of_service.config.VosConfig`), ``rng`` the policy's own random
    stream (its draws never shift the workload's), ``options`` the keywords the policy was
    registered with (a subclass names the ones it takes, e.g. ``metric`` for
    :class:`~.value.ValuePolicy`).
    """

    def __init__(self, cfg, rng: np.random.Generator):
        self.cfg = cfg
        self.rng = rng

    @abstractmethod
    def map(self, sim, tasks: np.ndarray) -> None:
        """Start, book or drop the mappable ``tasks`` at ``sim.now`` (minutes).

        ``tasks``: the ids of the arrived tasks that are waiting (not started, reserved or
        dropped), in arrival order; never empty. ``sim`` is the run's
        :class:`~scheduling.value_of_service.sim.VosSim`; a policy may read ``sim.now``,
        ``sim.wl`` (the workload: per task ``type``, ``arrival``; per type its configurations
        ``cfg_cores``, ``cfg_mem``, ``etc``, ``eec``, ``n_cfg``), ``sim.total_cores``,
        ``sim.total_memory``, and ask ``sim.options(tasks)`` (cores, memory, ETC, EEC and a
        validity mask per task and configuration), ``sim.earliest(cores, memory, etc)``
        (earliest start and node, for arrays of requests), ``sim.values(task, start, etc,
        energy)`` (value earned if completed at ``start + etc``) and ``sim.can_start_now()``.

        It acts only through ``sim.assign(task, config, start, node, rule, placeholder)``
        (starts now when ``start == sim.now``, else a permanent reservation, or with
        ``placeholder=True`` a place-holder erased at the next event; ``rule`` "lowest" or
        "voids" picks the cores) and ``sim.drop(task)``; a task left alone waits for the next
        event. Returns nothing. ``sim.assign`` raises ``RuntimeError`` when fewer cores than
        the configuration needs are free from ``start`` for its ETC and ``ValueError`` when
        ``start`` is not a start the node offers (take it from ``sim.earliest``); memory is
        not re-checked there. A task's value is fixed when it is committed.
        """
