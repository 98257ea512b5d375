"""The base every grid scheduler is a subclass of (checked when it registers)."""

from __future__ import annotations

from abc import ABC, abstractmethod


class GridScheduler(ABC):
    """A grid scheduler: a local discipline run on one node at a time, plus the internode
    mechanisms the engine runs over an overlay.

    The kind builds one instance per run, ``cls(cfg, **options)``: ``cfg`` is the scenario
    (:class:`~scheduling.grid.config.GridConfig`), ``options`` the keywords the scheduler was
    registered with: ``overlay`` (None: local only; ``"can"`` or ``"2nn"``: PUSH/PULL of
    waiting jobs between neighbours of that overlay at every tick) and ``balance`` (queue
    balancing after PULL). The class attribute ``preemptive`` says how the engine orders each
    node's queue: by descending priority ``alpha W - beta T_rem`` (True) or by arrival (False).
    """

    preemptive = False

    def __init__(self, cfg=None, overlay: str | None = None, balance: bool = False):
        self.cfg = cfg
        self.overlay = overlay
        self.balance = balance

    @abstractmethod
    def local(self, sim, node: int, t: float) -> tuple[bool, bool]:
        """Run node ``node``'s local scheduler at time ``t`` (seconds); returns ``(acted,
        preempted)``: whether it started or suspended anything, and whether it suspended.

        Called whenever something on the node changed (an arrival, a completion, a
        migration) and at the next tick after it preempted. It may read the node's
        ``sim.queue[node]`` (sorted ``(-kappa, arrival at the node, job)`` entries, see
        ``preemptive``), ``sim.running[node]``, its free resources ``sim.free_c/free_m/
        free_d[node]``, and per job the demands ``sim.rc/rm/rd[job]``. It acts only through
        ``sim.dequeue(job, node)`` then ``sim.start(job, node, t)`` (a job must fit the free
        resources) and ``sim.preempt(job, node, t)`` (the job keeps its progress and
        rejoins the queue). It must be a fixed point: run again with nothing changed, it does
        nothing (the engine re-runs a node's scheduler only when something on it changed).
        """
