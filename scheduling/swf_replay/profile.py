"""Free-node profile: how many nodes are free from now on, as a step function of time.

On a homogeneous machine where a job can take any free nodes, the free-node *count* is all a
reservation needs: jobs start in time order and take whichever nodes are free, so a window with
enough free nodes at every instant is always realizable. Node identities are not tracked.

``t[i]`` is the start of segment ``i`` and ``free[i]`` the free nodes on ``[t[i], t[i+1])``;
``t`` carries a trailing ``+inf`` sentinel, so ``len(t) == len(free) + 1``. The last segment
always has every node free (all estimated ends lie before it). Queries are vectorized over the
segments with numpy; updates insert at most two breakpoints.
"""

from __future__ import annotations

import math

import numpy as np


class FreeProfile:
    __slots__ = ("nodes", "t", "free", "_tb", "_fb", "_lo", "_hi")

    def __init__(self, nodes: int, now: float = 0.0):
        self.nodes = int(nodes)
        # Buffers with spare room on the right; the live profile is _tb[_lo:_hi+1] (with the
        # sentinel) and _fb[_lo:_hi], exposed as the views ``t`` and ``free``. Inserting a
        # breakpoint shifts the tail in place instead of reallocating.
        self._tb = np.full(65, math.inf)
        self._fb = np.zeros(64, dtype=np.int64)
        self._tb[0] = now
        self._fb[0] = self.nodes
        self._lo, self._hi = 0, 1
        self._views()

    def _views(self) -> None:
        self.t = self._tb[self._lo:self._hi + 1]
        self.free = self._fb[self._lo:self._hi]

    def __len__(self) -> int:
        return self._hi - self._lo

    def advance(self, now: float) -> None:
        """Forget the past: the profile starts at ``now``."""
        t = self.t
        if now <= t[0]:
            return
        i = int(t.searchsorted(now, side="right")) - 1
        if i > 0:
            self._lo += i
            self._views()
        self.t[0] = now

    def _split(self, time: float) -> int:
        """Index of the segment starting at ``time``, inserting a breakpoint if needed.

        The caller guarantees room in the buffers (see ``add``).
        """
        t = self.t
        i = int(t.searchsorted(time))
        if t[i] == time:
            return i
        a = self._lo + i
        hi = self._hi
        tb, fb = self._tb, self._fb
        tb[a + 1:hi + 2] = tb[a:hi + 1]
        fb[a + 1:hi + 1] = fb[a:hi]
        tb[a] = time
        fb[a] = fb[a - 1]
        self._hi = hi + 1
        self._views()
        return i

    def _regrow(self) -> None:
        """Move the live profile to fresh buffers with room for as many breakpoints again;
        neighbouring segments with equal free counts are merged on the way."""
        free = self.free
        keep = np.empty(len(free), dtype=bool)
        keep[0] = True
        np.not_equal(free[1:], free[:-1], out=keep[1:])
        k = int(keep.sum())
        cap = max(64, 2 * k + 4)
        tb = np.full(cap + 1, math.inf)
        fb = np.zeros(cap, dtype=np.int64)
        tb[:k] = self.t[:-1][keep]
        fb[:k] = free[keep]
        self._tb, self._fb, self._lo, self._hi = tb, fb, 0, k
        self._views()

    def add(self, t0: float, t1: float, delta: int) -> None:
        """Add ``delta`` free nodes on ``[t0, t1)`` (negative to reserve)."""
        if not t1 > t0:
            return
        if self._hi + 2 >= len(self._fb):
            self._regrow()
        i0 = self._split(t0)
        i1 = self._split(t1)
        self.free[i0:i1] += delta

    def earliest_fit(self, n: int, duration: float) -> float:
        """Earliest start ``>= now`` with ``n`` nodes free for ``duration``."""
        free = self.free
        t = self.t
        if free[0] >= n and t[1] - t[0] >= duration:
            return float(t[0])
        s = self._first_run(n, duration, len(free))
        return float(t[s])  # the last segment has every node free, so a run always fits

    def fit_before(self, n: int, duration: float, r: float) -> float | None:
        """Earliest start ``< r`` for a job that now holds ``n`` nodes on ``[r, r + duration)``.

        Such a job may start earlier if a run of segments with ``n`` free nodes either lasts
        ``duration`` before ``r`` or reaches ``r`` (from there on it can use its own nodes).
        Returns None when it cannot start before ``r``.
        """
        t = self.t
        hi = int(t.searchsorted(r))  # segments [0, hi) start before r
        if hi == 0:
            return None
        s = self._first_run(n, duration, hi)
        return None if s is None else float(t[s])

    def _first_run(self, n: int, duration: float, hi: int) -> int | None:
        """First segment < ``hi`` that starts a run of segments with ``n`` free nodes that
        lasts ``duration`` or reaches ``hi``. Only the first segment of a run can be the
        earliest start within it."""
        t = self.t
        bad = (self.free[:hi] < n).nonzero()[0]
        if not bad.size:
            return 0
        b0 = bad[0]
        if b0 > 0 and t[b0] - t[0] >= duration:
            return 0
        if bad.size > 1:
            starts = bad[:-1] + 1
            ends = bad[1:]
            ok = (ends > starts) & (t[ends] - t[starts] >= duration)
            i = ok.argmax()
            if ok[i]:
                return int(starts[i])
        last = int(bad[-1]) + 1
        return last if last < hi else None

    def can_hold(self, n: int, t0: float, t1: float) -> bool:
        """Whether ``n`` nodes are free on all of ``[t0, t1)`` (an inspection helper for the
        tests)."""
        i0 = int(self.t.searchsorted(t0, side="right")) - 1
        i1 = max(int(self.t.searchsorted(t1)), i0 + 1)
        return bool(self.free[max(i0, 0):i1].min() >= n)

    def as_lists(self) -> tuple[list[float], list[int]]:
        """The segments' start times and free nodes (an inspection helper for the tests)."""
        return self.t[:-1].tolist(), self.free.tolist()
