"""The comparison heuristics of the literature (ch. 3 spec §5.7): Random, Conservative Backfilling,
EASY Backfilling and FCFS with multiple queues. They ignore utility and, except Random, use
P-state 0 only; all of them obey the energy budget and the start horizon.
"""

from __future__ import annotations

import numpy as np

from ..energy import GJ
from ..state import State
from .base import INF, EventContext, Policy, StartCache

# The rule (``_fcfs_choice``): any start now before any later one, so "finishes first" is among
# the clusters where it may start now; a cluster where it starts later may finish earlier.
FCFS_NOW = ("FCFS at P-state 0: starts now, on the cluster where it finishes first of those "
            "where it may start now (free, and within the energy budget and filter)")
FCFS_LATER = ("FCFS at P-state 0: no cluster where it may start now (free, and within the energy "
              "budget and filter), so the earliest start, then the earliest finish")


def _fcfs_choice(st: State, cache: StartCache, i: int, allowed,
                 no_reserve: set[int] | None = None, skip: int = -1) -> tuple | None:
    """Best P-state-0 option of row ``i`` as in Conservative Backfilling (comparison heuristics
    (ch. 3 spec §5.7), cluster tie-breaks (ch. 3 spec A24)).

    Start now on the cluster with the earliest finish; otherwise the earliest start, then the
    earliest finish, then the lowest cluster index. Options failing the energy check or the
    filter are skipped, and so are future starts on the clusters in ``no_reserve`` and the
    cluster ``skip`` (the runner-up of the decision trace).
    """
    cache.refresh(i)
    t = int(cache.tasks[i])
    now = st.now
    best = None
    for c in cache.clusters(i):
        if c == skip:
            continue
        s = float(cache.starts[i, c, 0])
        if s == INF:
            continue
        if allowed is not None and not allowed[i, c, 0]:
            continue
        if no_reserve is not None and s > now and c in no_reserve:
            continue
        d = float(cache.duration[i, c, 0])
        if not st.ledger.fits(s, s + d, float(st.charge_power[t, c, 0])):
            continue
        key = (0, s + d, 0.0, c) if s <= now else (1, s, s + d, c)
        if best is None or key < best[0]:
            best = (key, c, s)
    return best


def _fcfs_why(st: State, cache: StartCache, i: int, allowed, best: tuple, prefix: str = "",
              no_reserve: set[int] | None = None) -> tuple[str, str, dict]:
    """The decision trace's account of an FCFS choice: the chosen cluster's start and finish,
    the runner-up cluster's, and, for a task that starts now while an earlier task holds a
    reservation, that reservation (a backfill)."""
    key, c, s = best
    t = int(cache.tasks[i])
    d = float(cache.duration[i, c, 0])
    numbers = {"finish": s + d}
    runner = _fcfs_choice(st, cache, i, allowed, no_reserve, skip=c)
    if runner is not None:
        r_start = runner[2]
        numbers.update(runner_up_where=runner[1], runner_up_start=r_start,
                       runner_up_finish=r_start + float(cache.duration[i, runner[1], 0]))
    if s > st.now:
        return "mapped", prefix + FCFS_LATER, numbers
    ahead = [r for r in st.reservations if r < t]  # ids follow arrival order
    if not ahead:
        return "mapped", prefix + FCFS_NOW, numbers
    passed = min(ahead, key=lambda r: (st.start[r], r))
    return "backfilled", prefix + FCFS_NOW + ", ahead of an earlier task's reservation", {
        **numbers, "passed": passed, "shadow": float(st.start[passed])}


class Conservative(Policy):
    """FCFS; start now if possible, else a permanent reservation at the earliest start."""

    pstates = [0]

    def map(self, st: State, ctx: EventContext) -> None:
        cache = ctx.cache = StartCache(st, ctx.tasks, self.pstates)
        for i, t in enumerate(ctx.tasks.tolist()):
            best = _fcfs_choice(st, cache, i, ctx.allowed)
            if best is not None:
                why = None if st.log is None else _fcfs_why(st, cache, i, ctx.allowed, best)
                st.assign(t, best[1], 0, best[2], permanent=True, why=why)
                ctx.assigned.add(t)


class Easy(Policy):
    """Like Conservative, but at most one permanent reservation in the whole system, or one
    per cluster (``scheduler.easy_reservations``)."""

    pstates = [0]

    def map(self, st: State, ctx: EventContext) -> None:
        cache = ctx.cache = StartCache(st, ctx.tasks, self.pstates)
        per_cluster = self.cfg.scheduler.easy_reservations == "cluster"
        for i, t in enumerate(ctx.tasks.tolist()):
            held = None
            if per_cluster:
                held = {int(st.cluster[r]) for r in st.reservations}
                best = _fcfs_choice(st, cache, i, ctx.allowed, held)
            else:
                best = _fcfs_choice(st, cache, i, ctx.allowed)
            if best is None:
                if per_cluster and st.log is not None:
                    self._explain_blocked(st, cache, i, ctx)
                continue
            if per_cluster or best[2] <= st.now or not st.reservations:
                why = None if st.log is None else _fcfs_why(st, cache, i, ctx.allowed, best,
                                                            no_reserve=held)
                st.assign(t, best[1], 0, best[2], permanent=True, why=why)
                ctx.assigned.add(t)
            elif st.log is not None:
                r = st.reservations[0]
                st.log.add(st.now, t, "held", "EASY: it cannot start now and the one "
                           "reservation is taken", earliest_start=best[2], where=best[1],
                           reservation_task=r, reservation_start=float(st.start[r]))
                ctx.explained.add(t)

    @staticmethod
    def _explain_blocked(st: State, cache: StartCache, i: int, ctx: EventContext) -> None:
        """One reservation per cluster: say so when only reserved clusters could take it."""
        best = _fcfs_choice(st, cache, i, ctx.allowed)
        if best is None:
            return  # no option at all: the simulator finds out why
        t = int(cache.tasks[i])
        st.log.add(st.now, t, "held", "EASY: it cannot start now and every cluster where it "
                   "could start later already holds a reservation", earliest_start=best[2],
                   where=best[1])
        ctx.explained.add(t)


MQ_QUEUES = ("large queue; ", "medium queue; ", "small queue; ")


class MultiQueue(Policy):
    """FCFS with small / medium / large queues served round-robin 8 / 4 / 1 (comparison heuristics
    (ch. 3 spec §5.7), MQ's R_max scope (ch. 3 spec A25))."""

    pstates = [0]

    def __init__(self, cfg, gen, energy_filter=None):
        super().__init__(cfg, gen, energy_filter)
        self._rmax: float | None = None

    def _resources(self, st: State, tasks: np.ndarray) -> np.ndarray:
        res = st.options.resources[tasks, :, 0]
        elig = st.options.eligible[tasks]
        return np.where(elig, res, 0.0).sum(axis=1) / np.maximum(elig.sum(axis=1), 1)

    def map(self, st: State, ctx: EventContext) -> None:
        sched = self.cfg.scheduler
        if len(ctx.tasks) == 0:
            return
        res = self._resources(st, ctx.tasks)
        if sched.mq_rmax_scope == "trial":
            if self._rmax is None:
                self._rmax = float(self._resources(st, np.arange(st.trial.tasks.n)).max())
            rmax = self._rmax
        else:
            rmax = float(res.max())
        share = res / rmax if rmax > 0 else np.zeros_like(res)
        queues = [np.flatnonzero(share >= sched.mq_large).tolist(),
                  np.flatnonzero((share >= sched.mq_medium) & (share < sched.mq_large)).tolist(),
                  np.flatnonzero(share < sched.mq_medium).tolist()]
        quotas = list(sched.mq_quotas)
        cache = ctx.cache = StartCache(st, ctx.tasks, self.pstates)
        pos = [0, 0, 0]
        while any(pos[q] < len(queues[q]) for q in range(3)):
            for q in range(3):
                placed = 0
                while placed < quotas[q] and pos[q] < len(queues[q]):
                    i = queues[q][pos[q]]
                    pos[q] += 1
                    best = _fcfs_choice(st, cache, i, ctx.allowed)
                    if best is None:
                        continue  # skipped tasks do not count toward the quota
                    t = int(ctx.tasks[i])
                    why = None if st.log is None else _fcfs_why(
                        st, cache, i, ctx.allowed, best, MQ_QUEUES[q])
                    st.assign(t, best[1], 0, best[2], permanent=True, why=why)
                    ctx.assigned.add(t)
                    placed += 1


class RandomPolicy(Policy):
    """Arrival order; a random eligible cluster and P-state; start now or reserve (Random's
    reservations (ch. 3 spec A23))."""

    def map(self, st: State, ctx: EventContext) -> None:
        opts = st.options
        P = opts.duration.shape[2]
        reserve = self.cfg.scheduler.random_reservations
        log = st.log
        for i, t in enumerate(ctx.tasks.tolist()):
            clusters = np.flatnonzero(opts.eligible[t])
            c = int(clusters[self.gen.integers(len(clusters))])
            p = int(self.gen.integers(P))
            if ctx.allowed is not None and not ctx.allowed[i, c, p]:
                if log is not None:
                    log.add(st.now, t, "filtered", "Random drew an option the energy filter "
                            "rules out", where=c, pstate=p, filter=self.energy_filter,
                            threshold=ctx.filter_threshold)
                    ctx.explained.add(t)
                continue
            d = float(opts.duration[t, c, p])
            s = float(st.timelines[c].earliest1(int(opts.nodes[t, c]), np.array([d]))[0])
            if s == INF or not st.ledger.fits(s, s + d, float(st.charge_power[t, c, p])):
                if log is not None:
                    self._explain_miss(st, t, c, p, s, d)
                    ctx.explained.add(t)
                continue
            if s > st.now and not reserve:
                if log is not None:
                    log.add(st.now, t, "held", "Random drew an option that cannot start now "
                            "and reservations are off", where=c, pstate=p, earliest_start=s)
                    ctx.explained.add(t)
                continue
            why = None if log is None else ("mapped", "Random: a random eligible cluster and "
                                                      "P-state", {})
            st.assign(t, c, p, s, permanent=True, why=why)
            ctx.assigned.add(t)

    @staticmethod
    def _explain_miss(st: State, t: int, c: int, p: int, s: float, d: float) -> None:
        if s == INF:
            st.log.add(st.now, t, "held", "Random drew a cluster with no nodes free for it "
                       "before the end of the window", where=c, pstate=p)
            return
        st.log.add(st.now, t, "held", "Random drew an option that does not fit the energy "
                   "left in its day", where=c, pstate=p, start=s,
                   energy_gj=float(st.charge_power[t, c, p]) * d / GJ,
                   energy_left_gj=st.ledger.remaining(st.ledger.day_of(s)) / GJ)
