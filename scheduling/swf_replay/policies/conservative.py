"""Conservative backfilling (Mu'alem and Feitelson 2001)."""

from __future__ import annotations

import math
from heapq import heappop, heappush

import numpy as np

from ..profile import FreeProfile
from ..sim import InvariantError, Replay


class Conservative(Replay):
    """Conservative backfilling: every waiting job holds a reservation.

    The scheduler keeps a free-node profile over time built from the running jobs (until
    their estimated ends) and the reservations of all waiting jobs.

    * **Arrival**: the job gets the earliest start at which enough nodes are free for its whole
      estimate, given every existing reservation (it may land in a hole before jobs that
      arrived earlier, which is the backfilling); it never moves an existing reservation.
    * **Start**: a job starts when its reservation time comes (it is then exactly ``t``).
    * **Early completion** (actual run time shorter than the estimate): the nodes it held
      until its estimated end are returned to the profile and the schedule is *compressed*:
      each waiting job in queue (submit) order is taken out of the profile and put back at
      its earliest start, all other reservations staying in place. Its old slot is still
      free, so a reservation never moves later; one pass in queue order, as in the paper.

    Simultaneous events are applied together (completions, then compression, then arrivals
    in queue order). With exact estimates no job completes early, so only arrivals do work.
    Compression skips the jobs that provably cannot move (see ``_compress``) with one
    vectorized test over the waiting jobs, updated after each job that moves; the others are
    checked exactly on the profile before their reservation.
    """

    name = "conservative"

    def __init__(self, jobs, clock=None, check=False):
        super().__init__(jobs, clock, check)
        self.profile = FreeProfile(self.N, self.sub[0] if self.J else 0.0)
        self.res = np.full(self.J, math.inf)
        self.waiting = np.zeros(self.J, dtype=bool)
        self.n_np = jobs.nodes
        self.est_end = [math.inf] * self.J
        self.head = 0
        self._placed = 0
        self._rheap: list[tuple[float, int]] = []
        self._ended: list[int] = []
        self.e_np = jobs.estimate
        self.compressions = 0
        self.moves = 0
        self._gains: list[tuple] = []
        self._thr = 1
        self._oldest = 0  # the oldest job that may still wait (decision log only)

    def on_complete(self, j, t):
        self._ended.append(j)

    def counters(self):
        return {"compressions": self.compressions, "reservation_moves": self.moves}

    def wakeup(self):
        rheap = self._rheap
        res = self.res
        while rheap and res[rheap[0][1]] != rheap[0][0]:
            heappop(rheap)  # stale: the job moved earlier or started
        return rheap[0][0] if rheap else math.inf

    def start(self, j, t):
        super().start(j, t)
        self.waiting[j] = False
        self.res[j] = math.inf
        self.est_end[j] = t + self.est[j]

    def schedule(self, t, completed, first_new):
        p = self.profile
        p.advance(t)
        n = self.n
        est = self.est
        if completed:
            freed = []
            for j in self._ended:
                end = self.est_end[j]
                if end > t:
                    p.add(t, end, n[j])
                    freed.append(end)
            self._ended.clear()
            if freed:
                self._compress(t, freed)
        a = self.arrived
        res = self.res
        rheap = self._rheap
        for j in range(first_new, a):
            nj, ej = n[j], est[j]
            s = p.earliest_fit(nj, ej)
            p.add(s, s + ej, -nj)
            res[j] = s
            self.reservation[j] = s
            self.waiting[j] = True
            heappush(rheap, (s, j))
            if s > t and self.noted is not None and self.noted[j]:
                self.decisions.add(t, self.ids[j], "held", "reserved at the earliest time its "
                                   "nodes are free for its whole estimate, behind every "
                                   "earlier reservation",
                                   reservation_s=s, nodes=nj, estimate_s=ej, free=self.free)
        self._placed = a
        while rheap and rheap[0][0] <= t:
            r, j = heappop(rheap)
            if res[j] != r:
                continue
            if self.check and r != t:
                raise InvariantError(f"conservative: reservation {r} of job index {j} "
                                     f"passed without a start (now {t})")
            if self.noted is not None and self.noted[j]:
                self._explain_start(j, t)
            self.start(j, t)
        if self.check:
            self._check(t)

    def explain_waiting(self, t, j):
        pass  # its reservation was recorded when it was made

    def _explain_start(self, j, t):
        # The oldest waiting job only moves forward (a started job never waits again), so
        # one pointer finds it in time linear in the trace over the whole run.
        h = self._oldest
        waiting = self.waiting
        while h < self.arrived and not waiting[h]:
            h += 1
        self._oldest = h
        if h < j:  # an earlier job still waits: this one passed it without delaying it
            self.decisions.add(t, self.ids[j], "backfilled", "its reservation came before that "
                               "of an earlier job, whose reservation it does not delay",
                               reservation_of=self.ids[h], reservation_s=float(self.res[h]),
                               nodes=self.n[j], estimate_s=self.est[j])
        else:
            self.decisions.add(t, self.ids[j], "mapped", "its reservation time came",
                               nodes=self.n[j], free=self.free)

    def _gained(self, a: float, b: float) -> tuple:
        """Record that free nodes grew on ``[a, b)``: (compression, a, b, mx, span).

        ``mx`` is the most free nodes on ``[a, b)`` and ``span`` the length of the stretch
        around it where at least ``thr`` nodes stay free (``thr`` the smallest waiting job);
        later changes inside the stretch are recorded as gains of their own, so both stay
        upper bounds for the jobs checked before this gain.
        """
        p = self.profile
        t, free = p.t, p.free
        ia = int(t.searchsorted(a, side="right")) - 1
        ib = int(t.searchsorted(b))
        mx = int(free[ia:ib].max())
        low = (free < self._thr).nonzero()[0]
        k = int(low.searchsorted(ia))
        left = t[low[k - 1] + 1] if k > 0 else t[0]
        k = int(low.searchsorted(ib))
        right = t[low[k]] if k < len(low) else math.inf
        return (self.compressions, a, b, mx, right - left)

    def _compress(self, t: float, freed: list[float]) -> None:
        """Move waiting jobs earlier, in queue order, without delaying any reservation.

        Skipping: a job's reservation is its earliest start when it is placed or checked, so
        it can move only into a window that contains a time before its reservation where free
        nodes grew since (a *gain*), with at least its nodes free there, and that window lies
        in a stretch at least as long as its estimate or reaching its reservation. Every
        waiting job is checked in every compression, so gains recorded since the previous
        compression began cover all jobs; those that pass this test are checked exactly.
        """
        self.compressions += 1
        h = self.head
        a = self._placed  # arrivals of this instant are placed after the compression
        waiting = self.waiting
        while h < a and not waiting[h]:
            h += 1
        self.head = h
        if h >= a:
            self._gains = []
            return
        w = waiting[h:a].nonzero()[0] + h
        p = self.profile
        res = self.res
        r_w = res[w]
        n_w = self.n_np[w]
        e_w = self.e_np[w]
        self._thr = int(n_w.min())
        gains = [g for g in self._gains if g[0] >= self.compressions - 1 and g[2] > t]
        gains.extend(self._gained(t, end) for end in freed)
        self._gains = gains
        g = np.array([g[1:] for g in gains])
        ga, gb, gmx, gspan = (g[:, i, None] for i in range(4))
        flags = ((ga < r_w) & (gmx >= n_w) & ((gspan >= e_w) | (gb >= r_w))).any(axis=0)
        n = self.n
        est = self.est
        # With check=True every job is visited, to prove the skipped ones could not move.
        cands = list(range(len(w))) if self.check else flags.nonzero()[0].tolist()
        k = 0
        while k < len(cands):
            c = cands[k]
            k += 1
            j = int(w[c])
            r = float(res[j])
            nj, ej = n[j], est[j]
            s = p.fit_before(nj, ej, r)
            if s is None:
                continue
            if not flags[c]:
                raise InvariantError(f"conservative: job index {j} could move from {r} to {s} "
                                     "but the compression filter skipped it")
            p.add(r, r + ej, nj)
            p.add(s, s + ej, -nj)
            res[j] = s
            heappush(self._rheap, (s, j))
            self.moves += 1
            # (moved to now, it starts at this instant: its start says so, a wait would not)
            if self.noted is not None and self.noted[j] and s > t:
                self.decisions.add(t, self.ids[j], "held", "reservation moved earlier: a job "
                                   "ended before its estimate", reservation_s=s, was_s=r)
            gain = self._gained(max(r, s + ej), r + ej)
            gains.append(gain)
            pos = c + 1
            _, ga, gb, gmx, gspan = gain
            rest = r_w[pos:]
            hit = (ga < rest) & (gmx >= n_w[pos:]) & ((gspan >= e_w[pos:]) | (gb >= rest))
            flags[pos:] |= hit
            if not self.check:
                cands = (flags[pos:].nonzero()[0] + pos).tolist()
                k = 0

    def _check(self, t: float) -> None:
        p = self.profile
        if p.free.min() < 0:
            raise InvariantError(f"conservative: profile over-committed at {t}")
        if int(p.free[0]) != self.free:
            raise InvariantError(f"conservative: profile says {int(p.free[0])} nodes free at "
                                 f"{t}, machine has {self.free}")
        w = self.waiting.nonzero()[0]
        if w.size and (self.res[w] > np.asarray(self.reservation)[w]).any():
            raise InvariantError("conservative: a reservation moved later")
