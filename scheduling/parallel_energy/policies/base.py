"""What every heuristic shares: the per-event context and cached earliest starts (allocation options
to feasibility constraints (ch. 3 spec §5.5-5.6))."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from ..state import State

INF = np.inf


@dataclass
class EventContext:
    """Inputs of one mapping event after dropping and filtering (mapping events (ch. 3 spec §5.1)
    steps 3-4)."""

    tasks: np.ndarray  # mappable task ids in arrival order
    allowed: np.ndarray | None  # (Q, C, P) filter mask aligned with ``tasks``; None = all
    assigned: set[int] = field(default_factory=set)
    chosen: str | None = None  # metaheuristics: "upe" / "upr"
    # Explained runs only: the filter's bound this event (W per core for EPR, J for EPT), and
    # the tasks a policy left waiting for a reason of its own that it has already recorded.
    filter_threshold: float | None = None
    explained: set[int] = field(default_factory=set)
    # The policy's earliest starts of ``tasks``, if it kept them: the simulator reads why a
    # task waits from them instead of querying every cluster again.
    cache: StartCache | None = None


class StartCache:
    """Earliest start of each (task, cluster, P-state), refreshed when a cluster changes.

    ``pstates`` restricts the options (the comparison heuristics use P-state 0 only). Filled in
    one vectorized query per cluster; afterwards :meth:`refresh` re-queries only the clusters
    whose timeline version moved since the row was computed. :meth:`row` gives a row as plain
    nested lists for the scalar inner loops.
    """

    def __init__(self, st: State, tasks: np.ndarray, pstates: list[int] | None = None):
        opts = st.options
        self.st = st
        self.tasks = tasks
        self.pstates = list(range(opts.duration.shape[2])) if pstates is None else pstates
        q, C, P = len(tasks), opts.duration.shape[1], len(self.pstates)
        self.starts = np.full((q, C, P), INF)
        self.version = np.full((q, C), -1, dtype=np.int64)
        self.eligible = opts.eligible[tasks]
        self._elig = [opts.eligible_clusters[t] for t in tasks.tolist()]
        self.nodes = opts.nodes[tasks]
        self.duration = opts.duration[tasks][:, :, self.pstates]
        self.refresh_all()

    def clusters(self, i: int) -> list[int]:
        return self._elig[i]

    def refresh(self, i: int) -> bool:
        """Bring row ``i`` up to date; True if any cluster had to be re-queried."""
        changed = False
        tls = self.st.timelines
        ver = self._ver[i]
        for c in self._elig[i]:
            if ver[c] != tls[c].version:
                self.requery(i, c)
                changed = True
        return changed

    def requery(self, i: int, c: int) -> list[float]:
        """Re-query row ``i`` on cluster ``c`` now; returns its starts per P-state."""
        tl = self.st.timelines[c]
        starts = tl.earliest1(self._nodes[i][c], self.duration[i, c])
        self.starts[i, c, :] = starts
        self.version[i, c] = self._ver[i][c] = tl.version
        starts = starts.tolist()
        py = self._py[i]
        if py is not None:
            py[c] = starts
        return starts

    def row(self, i: int) -> list[list[float]]:
        """Row ``i`` of :attr:`starts` as nested lists, as of each cluster's last query (the
        cluster versions they were computed at are ``versions(i)``)."""
        py = self._py[i]
        if py is None:
            py = self._py[i] = self.starts[i].tolist()
        return py

    def versions(self, i: int) -> list[int]:
        return self._ver[i]

    def refresh_all(self) -> None:
        """Re-query, per cluster in one batch, every stale row."""
        P = len(self.pstates)
        for c, tl in enumerate(self.st.timelines):
            rows = np.flatnonzero(self.eligible[:, c] & (self.version[:, c] != tl.version))
            if rows.size == 0:
                continue
            n = np.repeat(self.nodes[rows, c], P)
            d = self.duration[rows, c, :].ravel()
            self.starts[rows, c, :] = tl.earliest(n, d).reshape(-1, P)
            self.version[rows, c] = tl.version
        self._ver = self.version.tolist()
        self._nodes = self.nodes.tolist()
        self._py: list[list | None] = [None] * len(self.tasks)


class Policy(ABC):
    """The base of every parallel-energy policy; the kind refuses to register any other type.

    The engine builds one instance per run, ``cls(cfg, gen, **options)``: ``cfg`` is the
    scenario (:class:`~scheduling.parallel_energy.config.ParallelEnergyConfig`), ``gen`` the
    policy's own random stream (so a policy's draws never shift the workload's), ``options``
    the keywords the policy was registered with (``energy_filter`` here; a subclass may take
    more, e.g. :class:`~.minmin.MinMin`'s ``objective`` and ``permanent``). It then calls
    :meth:`map` once per mapping event. Class attributes a subclass may set: ``family``
    (recorded in the result), ``uses_utility`` (utility-aware policies drop hopeless tasks
    first), ``pstates`` (the P-states :class:`StartCache` offers; None = all).

    Helpers for policy authors: :class:`StartCache` (earliest start of every task, cluster and
    P-state, refreshed only where the schedule changed), ``st.ledger.fits(start, end, power)``
    (whether an option stays within the energy budget), ``st.utility.value(tasks, finish)``.
    """

    family = "comparison"
    uses_utility = False
    pstates: list[int] | None = None  # None = all P-states

    def __init__(self, cfg, gen: np.random.Generator, energy_filter: str | None = None):
        self.cfg = cfg
        self.gen = gen
        self.energy_filter = energy_filter

    @property
    def drops(self) -> bool:
        """Whether this heuristic applies task dropping (ch. 3 spec §5.4, no dropping for comparison
        heuristics (ch. 3 spec A29))."""
        if self.cfg.scheduler.dropping_threshold is None:
            return False
        return self.uses_utility or self.cfg.scheduler.drop_comparison

    @abstractmethod
    def map(self, st: State, ctx: EventContext) -> None:
        """Map the waiting tasks of one mapping event; called once per event at ``st.now``.

        Reads: ``ctx.tasks`` (the mappable task ids, in arrival order, after dropping) and
        ``ctx.allowed`` (the energy filter's (task, cluster, P-state) mask aligned with
        ``ctx.tasks``, or None for all); the schedule ``st``: ``now``, ``options`` (per task,
        cluster and P-state: ``duration``, ``nodes``, ``power``, ``energy``, ``resources``,
        ``eligible``), ``timelines`` (per cluster, ``earliest1``/``earliest`` start of n nodes
        for a duration), ``ledger`` (the energy budget: ``fits``, ``remaining``),
        ``charge_power`` (what an option charges the ledger), ``utility``, ``reservations``.

        Acts only through ``st.assign(task, cluster, pstate, start, permanent)`` (start now
        when ``start <= st.now``, else a permanent reservation or, ``permanent=False``, a
        place-holder removed at the next event) followed by ``ctx.assigned.add(task)``; a
        task left unassigned waits for the next event. Returns nothing.

        When the run explains itself (``st.log`` is a ``simcore.decisions.DecisionLog``), a
        policy may pass ``why=(action, rule, numbers)`` to ``st.assign`` (its rule as a
        sentence and the scores behind the choice) and record why it left a task waiting
        (``st.log.add``, then ``ctx.explained.add(task)``); the simulator explains the other
        waiting tasks itself.

        The engine enforces: a booking needs that many nodes free on the cluster over the
        whole interval (else ``RuntimeError``); the policy must itself keep starts before the
        end of the simulated window (``st.horizon``, which the timelines' earliest starts
        respect) and options within the energy budget (``st.ledger.fits``).
        """
        raise NotImplementedError
