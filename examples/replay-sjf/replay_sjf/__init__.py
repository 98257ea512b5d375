"""Shortest estimate first, without reservations: an SWF-replay policy from a plugin."""

from heapq import heappop, heappush

from scheduling.swf_replay.sim import Replay


class ShortestFirst(Replay):
    """At each instant, waiting jobs start in order of their estimate (ties: submit order)
    while any fits; a job too wide for the free nodes lets smaller ones pass. No job holds a
    reservation, so a wide job waits until the machine drains enough (it cannot wait for
    ever: every job fits the empty machine)."""

    name = "shortest-first"

    def __init__(self, jobs, clock=None, check=False):
        super().__init__(jobs, clock, check)
        self.queue = []  # (estimate, job index): the waiting jobs, shortest on top

    def schedule(self, t, completed, first_new):
        for j in range(first_new, self.arrived):  # the jobs that arrived at t
            heappush(self.queue, (self.est[j], j))
        passed = []
        while self.queue and self.free > 0:
            estimate, j = heappop(self.queue)
            if self.n[j] <= self.free:
                self.start(j, t)
            else:
                passed.append((estimate, j))
        for item in passed:
            heappush(self.queue, item)


def register(policies):
    policies.policy("shortest-first", label="Shortest estimate first", family="queue",
                    description="Waiting jobs start shortest estimate first, no reservations.",
                    spec="example plugin")(ShortestFirst)
