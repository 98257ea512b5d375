"""Per-cluster node timelines: earliest start for (n nodes, duration) and node choice (allocation
options (ch. 3 spec §5.5)).

Each node keeps its busy intervals ``[start, end)`` (running tasks, permanent reservations and
place-holders) sorted by start in a padded array row (the store every node-placing kind shares,
``scheduling.hpc.intervals``). Earliest-start queries use an index built from those rows
(performance (ch. 3 spec §10.2)):

* the candidate starts are ``now`` and every interval end in ``(now, horizon)``;
* ``gap[k, i]`` is how long node ``i`` stays free from candidate ``k`` (``-inf`` if busy then);
* each row sorted ascending gives, in column ``N - n``, the n-th largest gap, so a task of ``n``
  nodes and duration ``d`` can start at the first candidate whose entry is ``>= d``. A batch of
  queries is one gather, one comparison and one minimum.

Booking ``[s, e)`` on a set of nodes changes the index in closed form: for a booked node whose
previous busy interval ended at ``p`` (or now), its gap at a candidate ``t`` becomes ``s - t``
for ``p <= t < s`` and ``-inf`` for ``s <= t < e``; other cells are untouched. The new candidate
row at ``e`` is the latest earlier row aged by ``e - t_prev`` (no interval ends in between, or
that end would be a candidate) with the booked nodes' own gaps filled in. Candidate rows are
appended to preallocated buffers in any order; a sorted Python list maps times to rows.
"""

from __future__ import annotations

import bisect

import numpy as np

from scheduling.hpc.intervals import BusyIntervals
from simcore.errors import PolicyViolation

EPS = 1e-6  # seconds; tolerance of interval comparisons (module layout (ch. 3 spec §10.1))
INF = np.inf


class ClusterTimeline(BusyIntervals):
    def __init__(self, nodes: int, horizon: float, slots: int = 4):
        super().__init__(nodes, slots)
        self.horizon = float(horizon)
        self.now = 0.0
        self.version = 0  # bumped on every change; callers cache per version
        self.last_end = np.full(self.n, -INF)  # end of each node's last interval
        self._built = False
        self._cand = self._gap = self._sorted = None

    # -- mutation --------------------------------------------------------------------------------
    def advance(self, now: float, remove=None) -> None:
        """Move the clock, forgetting intervals that ended by ``now`` and (place-holder
        removal, permanent reservations vs. place-holders (ch. 3 spec §5.3)) every interval of the
        task ids in ``remove``."""
        self.now = float(now)
        gone = self.end <= self.now
        if remove:
            gone |= np.isin(self.task, np.asarray(list(remove), dtype=np.int64))
        if gone.any():
            self._drop(gone)
        self._invalidate()

    def remove_tasks(self, tasks) -> None:
        """Delete every interval of the given task ids (place-holder removal, permanent reservations
        vs. place-holders (ch. 3 spec §5.3))."""
        tasks = np.asarray(list(tasks), dtype=np.int64)
        if tasks.size == 0:
            return
        hit = np.isin(self.task, tasks)
        if hit.any():
            self._drop(hit)
            self._invalidate()

    def _drop(self, mask: np.ndarray) -> None:
        rows = np.flatnonzero(mask.any(axis=1))
        self._remove(rows, mask[rows])
        cnt = self.count[rows]
        self.last_end[rows] = np.where(cnt > 0, self.end[rows, np.maximum(cnt - 1, 0)], -INF)
        self.version += 1

    def _invalidate(self) -> None:
        self.version += 1
        self._built = False

    def _insert(self, task: int, nodes: np.ndarray, start: float, end: float,
                appended: bool | None = None) -> None:
        """Store ``[start, end)`` on ``nodes``; ``appended``: known to follow everything booked
        on them (None: check)."""
        if appended is None:
            appended = bool((self.last_end[nodes] <= start).all())
        self._store(task, nodes, start, end, appended)
        self.last_end[nodes] = end if appended else np.maximum(self.last_end[nodes], end)
        self.version += 1

    def add(self, task: int, nodes, start: float, end: float) -> None:
        """Book ``[start, end)`` on explicitly given ``nodes`` (they must be free then)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if self._built:
            ends = self.end[nodes]
            prev_end = np.maximum(np.where(ends <= start, ends, -INF).max(axis=1), self.now)
            nxt = self.start[nodes, (ends <= start).sum(axis=1)]
        self._insert(task, nodes, start, end)
        if self._built:
            self._update_index(nodes, prev_end, nxt, start, end)

    def book(self, task: int, n: int, start: float, duration: float) -> np.ndarray:
        """Choose ``n`` nodes at ``start`` (Fig. 21), book them and return their indices."""
        end = start + duration
        free, prev_end, nxt, appended = self._free_at(n, start, duration, task)
        if len(free) > n:
            pick = self._choose(free, prev_end, nxt, start, end)[:n]
            free, prev_end, nxt = free[pick], prev_end[pick], nxt[pick]
        self._insert(task, free, start, end, appended)
        self._update_index(free, prev_end, nxt, start, end)
        return np.sort(free)

    def _free_at(self, n: int, start: float, duration: float, task: int | None = None):
        """Nodes free for ``[start, start + duration)``, with the end of their previous busy
        interval and the start of their next one, and whether nothing is booked on any of them
        after ``start``; at least ``n`` of them, or the booking breaks the rule "capacity"."""
        self._ensure()
        row = self._row_of.get(start)
        gap = self._gap[row] if row is not None else self._gaps(np.array([start]))[0]
        free = np.flatnonzero(gap >= duration - EPS)
        if len(free) < n:
            raise PolicyViolation("capacity", None, f"task {task}: {n} nodes booked on a "
                                  f"cluster with {len(free)} free from {start} s")
        last = self.last_end[free]
        appended = bool(last.max() <= start)
        if appended:  # the usual case: the previous interval is the last one
            prev_end = np.maximum(last, self.now)
        else:
            ends = self.end[free]
            prev_end = np.maximum(np.where(ends <= start, ends, -INF).max(axis=1), self.now)
        return free, prev_end, start + gap[free], appended

    @staticmethod
    def _choose(free, prev_end, next_start, start, end) -> np.ndarray:
        """Order of the free nodes by (voids created, size of the hosting void, index)."""
        gap_before = start - prev_end
        gap_after = np.where(next_start < INF, next_start - end, 0.0)
        voids = (gap_before > EPS).astype(np.int64) + (gap_after > EPS)
        host = next_start - prev_end
        return np.lexsort((free, host, voids))

    def select_nodes(self, n: int, start: float, duration: float) -> np.ndarray:
        """The ``n`` nodes :meth:`book` would choose for a task at ``start`` (allocation options
        (ch. 3 spec §5.5))."""
        free, prev_end, nxt, _ = self._free_at(n, start, duration)
        order = self._choose(free, prev_end, nxt, start, start + duration)
        return np.sort(free[order[:n]])

    # -- index -----------------------------------------------------------------------------------
    def _gaps(self, times: np.ndarray) -> np.ndarray:
        """gap[k, i]: free time of node i from ``times[k]`` (ascending; -inf when busy)."""
        return self.gaps(times, 0.0)

    def _build(self) -> None:
        used = max(int(self.count.max(initial=0)), 1)
        ends = self.end[:, :used].ravel()
        cand = ends[(ends > self.now) & (ends < self.horizon)]
        head = [self.now] if self.now < self.horizon else []
        cand = np.sort(np.concatenate((head, cand)))
        if len(cand) > 1:  # distinct times (np.unique, without its overhead)
            cand = cand[np.concatenate(([True], cand[1:] != cand[:-1]))]
        k = len(cand)
        # Buffers are reused across events; rows at and beyond _k are never read.
        if getattr(self, "_cand", None) is None or len(self._cand) < k:
            cap = max(2 * k, 16)
            self._cand = np.empty(cap)
            self._gap = np.empty((cap, self.n))
            self._sorted = np.empty((cap, self.n))
        self._cand[:k] = cand
        busy_until = np.where(self.count > 0, self.end[:, 0], -INF)
        if used == 1 and (np.where(self.count > 0, self.start[:, 0], -INF) <= self.now).all():
            # Only running intervals (the state after place-holder removal): a node is busy
            # until its end and free for good afterwards, so every gap is -inf or +inf and a
            # sorted row is its busy nodes' -inf then +inf (the values _gaps would compute).
            free = busy_until[None, :] <= cand[:, None]
            self._gap[:k] = np.where(free, INF, -INF)
            n_busy = self.n - np.count_nonzero(free, axis=1)
            self._sorted[:k] = np.where(np.arange(self.n)[None, :] < n_busy[:, None], -INF, INF)
        else:
            self._gap[:k] = self._gaps(cand)
            self._sorted[:k] = np.sort(self._gap[:k], axis=1)
        self._k = k
        self._times = cand.tolist()  # ascending
        self._rows = list(range(k))  # row of each entry of _times
        self._row_of = dict(zip(self._times, self._rows, strict=True))
        self._built = True

    def _grow(self) -> None:
        cap = 2 * len(self._cand)
        for name in ("_cand", "_gap", "_sorted"):
            old = getattr(self, name)
            new = np.empty((cap,) + old.shape[1:])
            new[: len(old)] = old
            setattr(self, name, new)

    def _update_index(self, nodes, prev_end, next_start, start: float, end: float) -> None:
        times = self._times
        if end < self.horizon and end not in self._row_of:
            k = self._k
            if k == len(self._cand):
                self._grow()
            pos = bisect.bisect_left(times, end)
            prev = self._rows[pos - 1]  # pos >= 1: now < start < end is always a candidate
            row = self._gap[prev] - (end - times[pos - 1])
            row[row <= 0.0] = -INF
            row[nodes] = next_start - end
            self._cand[k] = end
            self._gap[k] = row
            self._sorted[k] = np.sort(row)
            times.insert(pos, end)
            self._rows.insert(pos, k)
            self._row_of[end] = k
            self._k = k + 1
        lo = bisect.bisect_left(times, float(prev_end.min()))
        hi = bisect.bisect_left(times, end)
        if hi <= lo:
            return
        rows = np.array(self._rows[lo:hi])
        gap = self._gap
        mid = bisect.bisect_left(times, start, lo, hi)  # rows from here on: busy, -inf
        if mid > lo:  # before the start: free until it, from their previous end on
            before = rows[: mid - lo, None]
            t = self._cand[before]
            cells = (before, nodes[None, :])
            gap[cells] = np.where(t >= prev_end[None, :], start - t, gap[cells])
        if mid < hi:
            gap[rows[mid - lo:, None], nodes[None, :]] = -INF
        self._sorted[rows] = np.sort(gap[rows], axis=1)

    def _ensure(self) -> None:
        if not self._built:
            self._build()

    def earliest(self, n, duration) -> np.ndarray:
        """Earliest start < horizon with ``n`` nodes free for ``duration`` (inf if none)."""
        self._ensure()
        n, duration = np.broadcast_arrays(np.atleast_1d(np.asarray(n, dtype=np.int64)),
                                          np.atleast_1d(np.asarray(duration, dtype=float)))
        k = self._k
        if k == 0:
            return np.full(n.shape, INF)
        col = self._sorted[:k, np.clip(self.n - n, 0, self.n - 1)]  # (K, q)
        times = np.where(col >= duration - EPS, self._cand[:k, None], INF).min(axis=0)
        return np.where((n >= 1) & (n <= self.n), times, INF)

    def earliest1(self, n: int, duration: np.ndarray) -> np.ndarray:
        """Earliest starts for one node count and several durations (one task's P-states)."""
        if not self._built:
            self._build()
        k = self._k
        if k == 0 or not 1 <= n <= self.n:
            return np.full(np.shape(duration), INF)
        ok = self._sorted[:k, self.n - n, None] >= np.subtract(duration, EPS)
        return np.minimum.reduce(np.where(ok, self._cand[:k, None], INF), axis=0)

    # -- queries for metrics and filters ---------------------------------------------------------
    def busy_time(self, t0: float, t1: float) -> float:
        """Node-seconds of ``[t0, t1)`` covered by intervals."""
        s = np.clip(self.start, t0, t1)
        e = np.clip(self.end, t0, t1)
        return float(np.where(self.task >= 0, e - s, 0.0).sum())
