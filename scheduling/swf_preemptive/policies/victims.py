"""Victim selection (spec section 4.3): each policy is a sort order over the jobs the blocked
job may preempt; victims are taken from the front until enough processors are free.

Ties are broken towards the lower-priority job (the later one in queue order), so the order is
total and runs are reproducible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..sim import Maui


class VictimPolicy:
    """The swf-preemptive kind's policy type (checked at registration): made with the
    scheduler it serves, its one method ``order(pool, t)`` ranks the running jobs a blocked job
    may preempt, first victim first. ``preempts = False`` declares a policy that never
    preempts (the scheduler then never asks it)."""

    preempts = True

    def __init__(self, sim: Maui):
        self.sim = sim

    def order(self, pool: list[int], t: float) -> list[int]:
        raise NotImplementedError


class FirstFit(VictimPolicy):
    """The paper's non-preemptive baseline: First Fit backfill, nothing is ever preempted."""

    preempts = False


class Victims(VictimPolicy):
    """Victims by a sort key of each job, smallest first."""

    def key(self, v: int, t: float):
        raise NotImplementedError

    def order(self, pool, t):
        key = self.key
        return sorted(pool, key=lambda v: key(v, t))


class RandomVictims(Victims):
    """A random permutation of the pool: the paper's naive worst case."""

    def order(self, pool, t):
        return [pool[i] for i in self.sim.victim_rng.permutation(len(pool)).tolist()]


class DurationConsumed(Victims):
    """Shortest time run so far first ("most recently started"): wastes the fewest node-hours."""

    def key(self, v, t):
        s = self.sim
        return (-s.start_t[v], -s.pos[v])


class DurationRemaining(Victims):
    """Most wall-clock time left first ("furthest from wall-clock limit"): bigger holes."""

    def key(self, v, t):
        s = self.sim
        return (-(s.start_t[v] + s.est[v]), -s.pos[v])


class WcDuration(Victims):
    """Longest wall-clock limit first."""

    def key(self, v, t):
        s = self.sim
        return (-s.est[v], -s.pos[v])


class WcResUsage(Victims):
    """Largest share of the machine first, ties by the longer wall-clock limit (spec default);
    with ``resusage = procs-x-wallclock``, largest processors x wall-clock first."""

    def key(self, v, t):
        s = self.sim
        if s.resusage_product:
            return (-(s.n[v] * s.est[v]), -s.pos[v])
        return (-s.n[v], -s.est[v], -s.pos[v])


class ScaledRemaining(Victims):
    """Furthest from the history-scaled wall-clock limit: most of ``limit x rho_user`` left."""

    def key(self, v, t):
        s = self.sim
        return (-(s.start_t[v] + s.est[v] * s.rho_l[s.user[v]]), -s.pos[v])


class MinWork(Victims):
    """Least work done first: processors x time run so far."""

    def key(self, v, t):
        s = self.sim
        return (s.n[v] * (t - s.start_t[v]), -s.pos[v])
