"""Busy intervals of identical resources over time: the store under the availability indexes of
the kinds that place tasks on named nodes or cores (parallel-energy's cluster timeline,
value-of-service's node timeline).

Each resource (a node of a cluster, a core of a node) keeps its busy intervals ``[start, end)``
sorted by start in one row of padded arrays (``start``, ``end``, ``task``; unused cells hold
``+inf``/``-1``, with one spare ``+inf`` column so "the first interval ending after t" always
exists). :meth:`BusyIntervals.gaps` turns the rows into the free time of every resource from
each of a list of instants, the matrix both indexes are built from.

What differs between the two kinds stays in their own index (their modules say how): the
candidate start times, memory as a second resource, place-holders kept in the index only, the
rule that picks among free resources, and the tolerance under which a gap counts as none. The
swf-replay kind's conservative backfilling needs none of this: on a machine whose jobs take any
free nodes the free-node count is enough (``scheduling.swf_replay.profile``).
"""

from __future__ import annotations

import numpy as np

INF = np.inf


class BusyIntervals:
    def __init__(self, n: int, slots: int = 4):
        self.n = int(n)
        self._alloc(max(slots, 1))
        self.count = np.zeros(self.n, dtype=np.int64)

    def _alloc(self, slots: int) -> None:
        self.start = np.full((self.n, slots + 1), INF)
        self.end = np.full((self.n, slots + 1), INF)
        self.task = np.full((self.n, slots + 1), -1, dtype=np.int64)

    @property
    def slots(self) -> int:
        return self.start.shape[1] - 1

    def _widen(self) -> None:
        """Twice the columns (a row is full)."""
        old = (self.start, self.end, self.task)
        k = old[0].shape[1]
        self._alloc(2 * (k - 1))
        self.start[:, :k], self.end[:, :k], self.task[:, :k] = old

    def _store(self, task: int, rows: np.ndarray, start: float, end: float,
               appended: bool) -> None:
        """Store ``[start, end)`` on ``rows``; ``appended``: it follows everything booked on
        them (the usual case), else it goes into a void and later intervals shift right."""
        cnt = self.count[rows]
        if cnt.max() >= self.start.shape[1] - 1:
            self._widen()
        if appended:
            flat = rows * self.start.shape[1] + cnt
            self.start.ravel()[flat] = start
            self.end.ravel()[flat] = end
            self.task.ravel()[flat] = task
        else:
            pos = (self.start[rows] < start).sum(axis=1)
            later = np.arange(self.start.shape[1])[None, :] > pos[:, None]
            for arr, value in ((self.start, start), (self.end, end), (self.task, task)):
                block = arr[rows]
                shifted = np.concatenate((block[:, :1], block[:, :-1]), axis=1)
                new = np.where(later, shifted, block)
                new[np.arange(len(rows)), pos] = value
                arr[rows] = new
        self.count[rows] = cnt + 1

    def _remove(self, rows: np.ndarray, mask: np.ndarray) -> None:
        """Delete the intervals ``mask`` (over ``start[rows]``) of the resources ``rows``."""
        start = np.where(mask, INF, self.start[rows])
        order = np.argsort(start, axis=1, kind="stable")
        self.start[rows] = np.take_along_axis(start, order, axis=1)
        self.end[rows] = np.take_along_axis(np.where(mask, INF, self.end[rows]), order, axis=1)
        self.task[rows] = np.take_along_axis(np.where(mask, -1, self.task[rows]), order, axis=1)
        self.count[rows] -= mask.sum(axis=1)

    def gaps(self, times: np.ndarray, none_below: float) -> np.ndarray:
        """``gap[k, i]``: how long resource ``i`` stays free from ``times[k]`` (ascending);
        ``-inf`` when it is busy then or free for no more than ``none_below``."""
        used = int(self.count.max(initial=0))
        if used == 0:
            return np.full((len(times), self.n), INF)
        # Number of intervals that ended by each time = index of the next interval. An interval
        # ending at e has ended by times[k] exactly when k >= #(times < e), so count those
        # positions per resource and accumulate down the times (O(K N), not O(K N slots)).
        k = len(times)
        first = np.searchsorted(times, self.end[:, :used], side="left")  # (N, used) in [0, K]
        flat = (first * self.n + np.arange(self.n)[:, None]).ravel()
        idx = np.bincount(flat, minlength=(k + 1) * self.n)[: k * self.n].reshape(k, self.n)
        idx = np.cumsum(idx, axis=0, out=idx)
        nxt = self.start[np.arange(self.n)[None, :], idx]
        gap = nxt - times[:, None]
        gap[gap <= none_below] = -INF
        return gap

    def intervals(self):
        """(resource, start, end, task) of every stored interval."""
        row, slot = np.nonzero(self.task >= 0)
        return row, self.start[row, slot], self.end[row, slot], self.task[row, slot]
