"""Conservative backfilling (Mu'alem and Feitelson 2001)."""

from __future__ import annotations

import math
from heapq import heappop, heappush

import numpy as np

from .profile import FreeProfile
from .simulator import InvariantError, Replay


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
    Compression skips the jobs that provably cannot move: a job can start earlier only if,
    somewhere before its reservation, the profile has as many free nodes as it needs (one
    vectorized test over all waiting jobs, refreshed after each job that moves); the rest are
    checked exactly on the profile before their reservation.
    """

    name = "conservative"

    def __init__(self, jobs, progress=None, check=False):
        super().__init__(jobs, progress, check)
        self.profile = FreeProfile(self.N, self.sub[0] if self.J else 0.0)
        self.res = np.full(self.J, math.inf)
        self.waiting = np.zeros(self.J, dtype=bool)
        self.n_np = jobs.nodes
        self.est_end = [math.inf] * self.J
        self.head = 0
        self._rheap: list[tuple[float, int]] = []
        self._ended: list[int] = []
        self.compressions = 0
        self.moves = 0

    def on_complete(self, j, t):
        self._ended.append(j)

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
            early = False
            for j in self._ended:
                end = self.est_end[j]
                if end > t:
                    p.add(t, end, n[j])
                    early = True
            self._ended.clear()
            if early:
                self._compress(t)
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
        while rheap and rheap[0][0] <= t:
            r, j = heappop(rheap)
            if res[j] != r:
                continue
            if self.check and r != t:
                raise InvariantError(f"conservative: reservation {r} of job index {j} "
                                     f"passed without a start (now {t})")
            self.start(j, t)
        if self.check:
            self._check(t)

    def _compress(self, t: float) -> None:
        """Move waiting jobs earlier, in queue order, without delaying any reservation."""
        self.compressions += 1
        h = self.head
        a = self.arrived
        waiting = self.waiting
        while h < a and not waiting[h]:
            h += 1
        self.head = h
        if h >= a:
            return
        w = np.flatnonzero(waiting[h:a]) + h
        p = self.profile
        res = self.res
        r_w = res[w]
        n_w = self.n_np[w]
        n = self.n
        est = self.est
        pos = 0
        while pos < len(w):
            # Necessary condition to move: n free nodes somewhere in [t, reservation).
            peak = np.maximum.accumulate(p.free)
            hi = np.searchsorted(p.t, r_w[pos:])
            movable = (hi > 0) & (peak[np.maximum(hi - 1, 0)] >= n_w[pos:])
            moved_at = -1
            for c in np.flatnonzero(movable).tolist():
                j = int(w[pos + c])
                r = float(res[j])
                nj, ej = n[j], est[j]
                s = p.fit_before(nj, ej, r)
                if s is None:
                    continue
                p.add(r, r + ej, nj)
                p.add(s, s + ej, -nj)
                res[j] = s
                heappush(self._rheap, (s, j))
                self.moves += 1
                moved_at = pos + c
                break
            if moved_at < 0:
                break
            pos = moved_at + 1  # the profile changed: refresh the test for the jobs behind

    def _check(self, t: float) -> None:
        p = self.profile
        if p.free.min() < 0:
            raise InvariantError(f"conservative: profile over-committed at {t}")
        if int(p.free[0]) != self.free:
            raise InvariantError(f"conservative: profile says {int(p.free[0])} nodes free at "
                                 f"{t}, machine has {self.free}")
        w = np.flatnonzero(self.waiting)
        if w.size and (self.res[w] > np.asarray(self.reservation)[w]).any():
            raise InvariantError("conservative: a reservation moved later")
