"""EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001)."""

from __future__ import annotations

import math
from bisect import bisect_left, insort

import numpy as np

from scheduling.hpc.backfill import shadow_time

from ..sim import InvariantError, Replay


class Easy(Replay):
    """EASY backfilling, classic form: one reservation, for the queue head.

    At every scheduling instant ``t``:

    1. Queue jobs start in submit order while the head fits in the free nodes.
    2. The head ``h`` that does not fit gets a reservation at the *shadow time*: walking the
       running jobs by estimated end (start + estimate), the first end at which the free nodes
       plus the nodes released so far reach ``h``'s size. The *extra nodes* are the nodes free
       at the shadow time beyond what ``h`` needs.
    3. Every other waiting job ``j``, in queue order, starts now if it fits in the free nodes
       and either (a) ends by the shadow time (``t + estimate_j <= shadow``) or (b) needs no
       more than the extra nodes; a job started under (b) but not (a) uses up extra nodes.

    Jobs run their actual time, which never exceeds the estimate, so the head starts no later
    than its shadow time. The shadow time and extra nodes are recomputed only when the machine
    changes (a completion, or a new head); between such changes an arrival cannot make any
    waiting job startable except itself (free nodes, extra nodes and ``shadow - t`` only
    shrink), so only new arrivals are examined. A full re-examination filters the waiting
    jobs with one vectorized test and then walks the candidates in queue order.
    """

    name = "easy"

    def __init__(self, jobs, clock=None, check=False):
        super().__init__(jobs, clock, check)
        self.waiting = np.zeros(self.J, dtype=bool)
        self.n_np = jobs.nodes
        self.e_np = jobs.estimate
        self.head = 0
        self.est_end = [math.inf] * self.J
        self.running: list[tuple[float, int]] = []  # (estimated end, job), sorted
        self.shadow = math.inf
        self.extra = 0
        self.shadow_for = -1
        self.scanned = 0

    def start(self, j, t):
        super().start(j, t)
        self.waiting[j] = False
        end = t + self.est[j]
        self.est_end[j] = end
        insort(self.running, (end, j))

    def on_complete(self, j, t):
        running = self.running
        del running[bisect_left(running, (self.est_end[j], j))]

    def _reserve(self, h: int, t: float) -> None:
        end, self.extra = shadow_time(self.running, self.n, self.n[h] - self.free)
        if end == math.inf:  # pragma: no cover - jobs larger than the machine are rejected
            raise InvariantError(f"easy: job index {h} can never start")
        self.shadow = end
        self.shadow_for = h
        if math.isnan(self.reservation[h]):
            self.reservation[h] = end
        elif self.check and end > self.reservation[h]:
            raise InvariantError(f"easy: head {h} reservation moved later "
                                 f"({self.reservation[h]} -> {end})")

    def explain_waiting(self, t, j):
        if j == self.head:  # its reservation was recorded when it was made
            return
        self.decisions.add(t, self.ids[j], "held", "behind the queue head; would backfill only "
                           "if it ended by the head's shadow time or fitted the extra nodes",
                           head=self.ids[self.head], shadow_s=self.shadow, nodes=self.n[j],
                           estimate_s=self.est[j], free=self.free, extra=self.extra)

    def schedule(self, t, completed, first_new):
        a = self.arrived
        waiting = self.waiting
        if first_new < a:
            waiting[first_new:a] = True
        n = self.n
        h = self.head
        while h < a and not waiting[h]:
            h += 1
        started_head = False
        noted = self.noted
        while h < a and n[h] <= self.free:
            if noted is not None and noted[h]:
                self.decisions.add(t, self.ids[h], "mapped", "queue head and its nodes are free",
                                   nodes=n[h], free=self.free)
            self.start(h, t)
            started_head = True
            h += 1
            while h < a and not waiting[h]:
                h += 1
        self.head = h
        if h >= a:
            self.scanned = a
            return
        if self.check and t > self.reservation[h]:
            raise InvariantError(f"easy: head {h} still waits at {t} after its reservation "
                                 f"{self.reservation[h]}")
        if completed or started_head or self.shadow_for != h:
            self._reserve(h, t)
            if noted is not None and noted[h]:
                self.decisions.add(t, self.ids[h], "held", "queue head: too few free nodes; "
                                   "reserved at the shadow time", nodes=n[h], free=self.free,
                                   shadow_s=self.shadow, extra=self.extra)
            lo = h + 1
        else:
            lo = max(h + 1, self.scanned)
        self.scanned = a
        free = self.free
        if lo >= a or free == 0:
            return
        shadow = self.shadow
        extra = self.extra
        nn = self.n_np[lo:a]
        mask = waiting[lo:a] & (nn <= free)
        if extra < free:
            mask &= (nn <= extra) | (self.e_np[lo:a] + t <= shadow)
        est = self.est
        for c in mask.nonzero()[0].tolist():
            j = lo + c
            nj = n[j]
            if nj > free:
                continue
            if t + est[j] <= shadow:
                why = "ends by the head's shadow time"
            elif nj <= extra:
                extra -= nj
                why = "uses only the extra nodes at the head's shadow time"
            else:
                continue
            if noted is not None and noted[j]:
                self.decisions.add(t, self.ids[j], "backfilled", why,
                                   reservation_of=self.ids[self.shadow_for], shadow_s=shadow,
                                   end_estimate_s=t + est[j], nodes=nj, extra=extra)
            self.start(j, t)
            free -= nj
            if free == 0:
                break
        self.extra = extra
