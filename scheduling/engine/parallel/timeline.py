"""Per-cluster node timelines: earliest start for (n nodes, duration) and node choice (§5.5).

Each node keeps its busy intervals ``[start, end)`` (running tasks, permanent reservations and
place-holders) sorted by start in a padded array row. Earliest-start queries use an index built
from those rows (spec §10.2):

* the candidate starts are ``now`` and every interval end in ``(now, horizon)``;
* ``gap[k, i]`` is how long node ``i`` stays free from candidate ``k`` (``-inf`` if busy then);
* each row sorted ascending gives, in column ``N - n``, the n-th largest gap, so a task of ``n``
  nodes and duration ``d`` can start at the first candidate whose entry is ``>= d``. A batch of
  queries is one gather and one comparison.

Adding an interval changes the gaps of its nodes only at candidates before its end, so an
assignment re-computes those cells and re-sorts those rows instead of rebuilding the index.
"""

from __future__ import annotations

import numpy as np

EPS = 1e-6  # seconds; tolerance of interval comparisons (spec §10.1)
INF = np.inf


class ClusterTimeline:
    def __init__(self, nodes: int, horizon: float, slots: int = 4):
        self.n = int(nodes)
        self.horizon = float(horizon)
        self.now = 0.0
        self.version = 0  # bumped on every change; callers cache per version
        self._alloc(max(slots, 1))
        self._cand: np.ndarray | None = None  # candidate starts (K,)
        self._gap: np.ndarray | None = None  # (K, N)
        self._sorted: np.ndarray | None = None  # (K, N), each row ascending

    def _alloc(self, slots: int) -> None:
        # One spare +inf column so "the first interval ending after t" always exists.
        self.start = np.full((self.n, slots + 1), INF)
        self.end = np.full((self.n, slots + 1), INF)
        self.task = np.full((self.n, slots + 1), -1, dtype=np.int64)
        self.count = np.zeros(self.n, dtype=np.int64)

    @property
    def slots(self) -> int:
        return self.start.shape[1] - 1

    # -- mutation --------------------------------------------------------------------------------
    def advance(self, now: float) -> None:
        """Move the clock; intervals that ended by ``now`` are forgotten."""
        self.now = float(now)
        expired = self.end <= self.now
        if expired.any():
            self._drop(expired)
        self._invalidate()

    def remove_tasks(self, tasks) -> None:
        """Delete every interval of the given task ids (place-holder removal, §5.3)."""
        tasks = np.asarray(list(tasks), dtype=np.int64)
        if tasks.size == 0:
            return
        hit = np.isin(self.task, tasks)
        if hit.any():
            self._drop(hit)
            self._invalidate()

    def _drop(self, mask: np.ndarray) -> None:
        rows = np.flatnonzero(mask.any(axis=1))
        start = np.where(mask[rows], INF, self.start[rows])
        order = np.argsort(start, axis=1, kind="stable")
        self.start[rows] = np.take_along_axis(start, order, axis=1)
        self.end[rows] = np.take_along_axis(np.where(mask[rows], INF, self.end[rows]), order, 1)
        self.task[rows] = np.take_along_axis(np.where(mask[rows], -1, self.task[rows]), order, 1)
        self.count[rows] -= mask[rows].sum(axis=1)
        self.version += 1

    def _invalidate(self) -> None:
        self.version += 1
        self._cand = self._gap = self._sorted = None

    def add(self, task: int, nodes, start: float, end: float) -> None:
        """Book ``[start, end)`` on ``nodes`` (they must be free then)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if (self.count[nodes] >= self.slots).any():
            old = (self.start, self.end, self.task, self.count)
            k = old[0].shape[1]
            self._alloc(2 * self.slots)
            self.start[:, :k], self.end[:, :k], self.task[:, :k] = old[0], old[1], old[2]
            self.count = old[3]
        # Insert at the sorted position of each node's row.
        pos = (self.start[nodes] < start).sum(axis=1)
        for arr, value in ((self.start, start), (self.end, end), (self.task, task)):
            rows = arr[nodes]
            width = rows.shape[1]
            shifted = np.empty_like(rows)
            col = np.arange(width)[None, :]
            before = col < pos[:, None]
            shifted[:, 1:] = rows[:, :-1]
            shifted[:, 0] = rows[:, 0]
            new = np.where(before, rows, shifted)
            new[np.arange(len(nodes)), pos] = value
            arr[nodes] = new
        self.count[nodes] += 1
        self.version += 1
        if self._cand is not None:
            self._update_index(nodes, start, end)

    # -- index -----------------------------------------------------------------------------------
    def _gaps(self, times: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """gap[k, i]: free time of node ``rows[i]`` from ``times[k]`` (-inf when busy)."""
        start = self.start if rows is None else self.start[rows]
        end = self.end if rows is None else self.end[rows]
        used = int(self.count.max()) if rows is None else int(self.count[rows].max(initial=0))
        idx = np.zeros((len(times), start.shape[0]), dtype=np.int64)
        for j in range(used):  # number of intervals that ended by each candidate
            idx += end[None, :, j] <= times[:, None]
        nxt = start[np.arange(start.shape[0])[None, :], idx]
        gap = nxt - times[:, None]
        gap[nxt <= times[:, None]] = -INF
        return gap

    def _build(self) -> None:
        ends = self.end[:, : max(int(self.count.max(initial=0)), 1)].ravel()
        cand = ends[(ends > self.now) & (ends < self.horizon)]
        head = [self.now] if self.now < self.horizon else []
        self._cand = np.unique(np.concatenate((head, cand)))
        self._gap = self._gaps(self._cand)
        self._sorted = np.sort(self._gap, axis=1)

    def _update_index(self, nodes: np.ndarray, start: float, end: float) -> None:
        cand = self._cand
        k_end = int(np.searchsorted(cand, end))
        if end < self.horizon and (k_end == len(cand) or cand[k_end] != end):
            row = self._gaps(np.array([end]))
            self._cand = cand = np.insert(cand, k_end, end)
            self._gap = np.insert(self._gap, k_end, row[0], axis=0)
            self._sorted = np.insert(self._sorted, k_end, np.sort(row[0]), axis=0)
        # Gaps of these nodes change only from their previous busy end up to the new end.
        ends = self.end[nodes]
        prev_end = np.where(ends <= start, ends, -INF).max(axis=1)
        lo_time = max(self.now, float(prev_end.min()))
        k_lo = int(np.searchsorted(cand, lo_time))
        if k_lo >= k_end:
            return
        self._gap[k_lo:k_end, nodes] = self._gaps(cand[k_lo:k_end], nodes)
        self._sorted[k_lo:k_end] = np.sort(self._gap[k_lo:k_end], axis=1)

    def _ensure(self) -> None:
        if self._cand is None:
            self._build()

    def earliest(self, n, duration) -> np.ndarray:
        """Earliest start < horizon with ``n`` nodes free for ``duration`` (inf if none)."""
        self._ensure()
        n, duration = np.broadcast_arrays(np.atleast_1d(np.asarray(n, dtype=np.int64)),
                                          np.atleast_1d(np.asarray(duration, dtype=float)))
        if len(self._cand) == 0:
            return np.full(n.shape, INF)
        ok_n = (n >= 1) & (n <= self.n)
        col = self._sorted[:, np.clip(self.n - n, 0, self.n - 1)]  # (K, q)
        ok = col >= duration - EPS
        first = ok.argmax(axis=0)
        found = ok[first, np.arange(n.size)] & ok_n
        return np.where(found, self._cand[first], INF)

    def earliest1(self, n: int, duration) -> np.ndarray:
        """Earliest starts for one node count and several durations (one task's P-states)."""
        self._ensure()
        duration = np.asarray(duration, dtype=float)
        if len(self._cand) == 0 or not 1 <= n <= self.n:
            return np.full(duration.shape, INF)
        col = self._sorted[:, self.n - n]
        ok = col[:, None] >= duration[None, :] - EPS
        first = ok.argmax(axis=0)
        return np.where(ok[first, np.arange(duration.size)], self._cand[first], INF)

    def select_nodes(self, n: int, start: float, duration: float) -> np.ndarray:
        """The ``n`` nodes for a task at ``start`` (spec §5.5, Fig. 21).

        Among the nodes free for ``[start, start + duration)``: fewest idle voids created,
        then the smallest void the task is placed into, then the lowest node index.
        """
        self._ensure()
        k = int(np.searchsorted(self._cand, start))
        if k < len(self._cand) and self._cand[k] == start:
            gap = self._gap[k]
        else:
            gap = self._gaps(np.array([start]))[0]
        free = np.flatnonzero(gap >= duration - EPS)
        if len(free) < n:
            raise RuntimeError(f"only {len(free)} of {n} nodes free at {start}")
        ends = self.end[free]
        before = np.where(ends <= start, ends, -INF).max(axis=1)
        prev_end = np.maximum(self.now, before)
        next_start = start + gap[free]
        finish = start + duration
        gap_before = start - prev_end
        gap_after = np.where(np.isfinite(next_start), next_start - finish, 0.0)
        voids = (gap_before > EPS).astype(np.int64) + (gap_after > EPS)
        host = next_start - prev_end
        order = np.lexsort((free, host, voids))
        return np.sort(free[order[:n]])

    # -- queries for metrics and filters ---------------------------------------------------------
    def busy_time(self, t0: float, t1: float) -> float:
        """Node-seconds of ``[t0, t1)`` covered by intervals."""
        s = np.clip(self.start, t0, t1)
        e = np.clip(self.end, t0, t1)
        return float(np.where(self.task >= 0, e - s, 0.0).sum())

    def intervals(self):
        """(node, start, end, task) of every stored interval."""
        node, slot = np.nonzero(self.task >= 0)
        return node, self.start[node, slot], self.end[node, slot], self.task[node, slot]
