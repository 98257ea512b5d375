"""What every heuristic shares: the per-event context and cached earliest starts (§5.5-5.6)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..state import State

INF = np.inf


@dataclass
class EventContext:
    """Inputs of one mapping event after dropping and filtering (§5.1 steps 3-4)."""

    tasks: np.ndarray  # mappable task ids in arrival order
    allowed: np.ndarray | None  # (Q, C, P) filter mask aligned with ``tasks``; None = all
    assigned: set[int] = field(default_factory=set)
    chosen: str | None = None  # metaheuristics: "upe" / "upr"


class StartCache:
    """Earliest start of each (task, cluster, P-state), refreshed when a cluster changes.

    ``pstates`` restricts the options (the comparison heuristics use P-state 0 only). Filled in
    one vectorized query per cluster; afterwards :meth:`row` re-queries only the clusters whose
    timeline version moved since the row was computed.
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
        self._elig = [np.flatnonzero(r).tolist() for r in self.eligible]
        self.nodes = opts.nodes[tasks]
        self.duration = opts.duration[tasks][:, :, self.pstates]
        self.refresh_all()

    def clusters(self, i: int) -> list[int]:
        return self._elig[i]

    def refresh(self, i: int) -> bool:
        """Bring row ``i`` up to date; True if any cluster had to be re-queried."""
        changed = False
        tls = self.st.timelines
        for c in self._elig[i]:
            tl = tls[c]
            if self.version[i, c] != tl.version:
                self.starts[i, c, :] = tl.earliest1(int(self.nodes[i, c]), self.duration[i, c])
                self.version[i, c] = tl.version
                changed = True
        return changed

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


class Policy:
    """A heuristic run once per mapping event. Subclasses implement :meth:`map`."""

    family = "comparison"
    uses_utility = False
    pstates: list[int] | None = None  # None = all P-states

    def __init__(self, cfg, gen: np.random.Generator, energy_filter: str | None = None):
        self.cfg = cfg
        self.gen = gen
        self.energy_filter = energy_filter

    @property
    def drops(self) -> bool:
        """Whether this heuristic applies task dropping (§5.4, A29)."""
        if self.cfg.scheduler.dropping_threshold is None:
            return False
        return self.uses_utility or self.cfg.scheduler.drop_comparison

    def map(self, st: State, ctx: EventContext) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
