"""First come, first served without backfilling."""

from __future__ import annotations

from ..sim import Replay


class Fcfs(Replay):
    """FCFS: jobs start strictly in queue (submit) order.

    At every scheduling instant the queue head starts if its nodes are free, then the next one,
    and so on; the first job that does not fit blocks everything behind it, even jobs that
    would fit in the idle nodes. Estimates are not used.
    """

    name = "fcfs"

    def __init__(self, jobs, clock=None, check=False):
        super().__init__(jobs, clock, check)
        self.head = 0

    def schedule(self, t, completed, first_new):
        h = self.head
        a = self.arrived
        n = self.n
        noted = self.noted
        while h < a and n[h] <= self.free:
            if noted is not None and noted[h]:
                self.decisions.add(t, self.ids[h], "mapped",
                                   "first in the queue and its nodes are free",
                                   nodes=n[h], free=self.free)
            self.start(h, t)
            h += 1
        self.head = h

    def explain_waiting(self, t, j):
        h = self.head
        self.decisions.add(t, self.ids[j], "held", "waits in queue order behind the head, which "
                           "does not fit (FCFS: no backfilling)", head=self.ids[h],
                           head_nodes=self.n[h], nodes=self.n[j], free=self.free)
