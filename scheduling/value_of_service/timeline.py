"""The resources of one node over time: per-core busy intervals and a memory profile (resource
timeline (ch. 2 spec §6.2)).

A VM needs ``c`` cores and ``m`` GB for ``d`` minutes. ``earliest(c, m, d)`` is the smallest
start ``s >= now`` with at least ``c`` cores each free over all of ``[s, s + d)`` and at least
``m`` GB free over all of it. Busy intervals are running tasks, permanent reservations and the
current event's place-holders; every interval holds cores *and* memory, so memory only changes
where an interval starts or ends.

Index (rebuilt when place-holders are erased, updated in place on every booking):

* candidate starts ``T`` = now and every interval start and end after now, ascending; the
  earliest start is always one of them (feasibility only appears where something ends);
* ``G[k, i]``: how long core ``i`` stays free from ``T[k]`` (-inf when busy then), and ``S[k]``
  the same row sorted, so ``S[k, n - c] >= d`` says that ``c`` cores are free long enough;
* ``F[k]``: free memory on ``[T[k], T[k + 1])``.

A query is one gather and a few vectorized comparisons over the candidates; a booking ``[s, e)``
on cores ``I`` sets ``G[k, I] = -inf`` for ``s <= T[k] < e``, caps ``G[k, I]`` at ``s - T[k]``
before ``s``, and subtracts ``m`` from ``F`` on ``[s, e)``; only changed rows are re-sorted.
Running tasks and permanent reservations are also kept per core (sorted padded rows, the store
every node-placing kind shares: ``scheduling.hpc.intervals``) so the index can be rebuilt;
place-holders live in the index only, so a rebuild erases them.

The ch. 3 kind's ``ClusterTimeline`` indexes whole nodes only; here memory is a second resource
(so interval starts are candidates too, and a memory row goes with every candidate), a gap no
longer than ``EPS`` counts as none (times are minutes), and the two core choices of the chapter
(lowest ids for Simple, fewest and smallest idle voids for Max VPTR) apply, so the index is its
own; only the store and the gap matrix are shared.
"""

from __future__ import annotations

import bisect
import heapq

import numpy as np

from scheduling.hpc.intervals import BusyIntervals
from simcore.errors import PolicyViolation

EPS = 1e-9  # minutes; tolerance of time comparisons
INF = np.inf


class NodeTimeline(BusyIntervals):
    def __init__(self, cores: int, memory: float, slots: int = 4):
        super().__init__(cores, slots)
        self.memory = float(memory)
        self.now = 0.0
        self.ivals: dict[int, tuple[np.ndarray, float, float, float]] = {}
        self._ends: list[tuple[float, int]] = []  # heap of (end, task) for expiry
        self._cap = 0
        self.T = np.empty(0)
        self.G = self.S = np.empty((0, self.n))
        self.F = np.empty(0)
        self.lo = self.hi = 0
        self.rebuild(0.0)

    # -- per-core interval store -------------------------------------------------------------
    def _store_insert(self, task: int, cores: np.ndarray, s: float, e: float) -> None:
        pos = (self.start[cores] < s).sum(axis=1)
        self._store(task, cores, s, e, bool((pos == self.count[cores]).all()))

    def _expire(self, now: float) -> None:
        """Forget intervals that ended by ``now``."""
        ends = self._ends
        gone = False
        while ends and ends[0][0] <= now:
            end, task = heapq.heappop(ends)
            held = self.ivals.get(task)
            if held is not None and held[2] == end:  # not an erased, since re-made, booking
                del self.ivals[task]
                gone = True
        if gone:
            rows = np.flatnonzero(self.end[:, 0] <= now)
            if rows.size:
                self._remove(rows, self.end[rows] <= now)

    # -- index ---------------------------------------------------------------------------------
    def _gaps(self, times: np.ndarray) -> np.ndarray:
        """gap[k, i]: free time of core i from ``times[k]`` (-inf when busy)."""
        return self.gaps(times, EPS)

    def _reserve(self, extra: int) -> None:
        """Room for ``extra`` more rows after ``hi`` (moving the live rows to the front and
        growing the buffers when needed); row indices change, so call before taking any."""
        live = self.hi - self.lo
        if self.hi + extra < self._cap:  # one spare row: T[hi] is always +inf
            return
        cap = max(self._cap, 32)
        while live + extra >= cap // 2:
            cap *= 2
        T = np.full(cap, INF)
        G = np.empty((cap, self.n))
        S = np.empty((cap, self.n))
        F = np.empty(cap)
        rows = slice(self.lo, self.hi)
        T[:live], G[:live], S[:live], F[:live] = self.T[rows], self.G[rows], self.S[rows], \
            self.F[rows]
        self.T, self.G, self.S, self.F, self._cap = T, G, S, F, cap
        self.lo, self.hi = 0, live

    def rebuild(self, now: float) -> None:
        """Move to ``now`` and build the index from the stored intervals."""
        self.now = float(now)
        self._expire(self.now)
        spans = list(self.ivals.values())
        starts = np.array([v[1] for v in spans], dtype=float)
        ends = np.array([v[2] for v in spans], dtype=float)
        mems = np.array([v[3] for v in spans], dtype=float)
        times = np.unique(np.concatenate(([self.now], starts[starts > self.now], ends)))
        k = len(times)
        self.lo = self.hi = 0
        self._reserve(k)
        self.hi = k
        self.T[:k] = times
        self.T[k:] = INF
        self.G[:k] = self._gaps(times)
        self.S[:k] = np.sort(self.G[:k], axis=1)
        if spans:
            cover = (starts[None, :] <= times[:, None]) & (times[:, None] < ends[None, :])
            self.F[:k] = self.memory - cover.astype(float) @ mems
        else:
            self.F[:k] = self.memory

    def advance(self, now: float) -> None:
        """Move to ``now`` keeping the index (no interval is removed except those that ended)."""
        now = float(now)
        self._expire(now)
        r = bisect.bisect_right(self.T, now, self.lo, self.hi) - 1
        if self.T[r] < now:  # no interval ends in (T[r], now]: age row r in place
            row = self.G[r] - (now - self.T[r])
            row[row <= EPS] = -INF
            self.G[r] = row
            self.S[r] = np.sort(row)
            self.T[r] = now
        self.lo = r
        self.now = now

    def _row(self, t: float) -> int:
        """The index row of candidate ``t``, inserted (by ageing the row before) if missing."""
        pos = bisect.bisect_left(self.T, t, self.lo, self.hi)
        if pos < self.hi and self.T[pos] == t:
            return pos
        if pos == self.lo:
            raise ValueError(f"time {t} is before now ({self.now})")
        prev = pos - 1
        row = self.G[prev] - (t - self.T[prev])
        row[row <= EPS] = -INF
        f = self.F[prev]
        hi = self.hi
        if pos < hi:
            for arr in (self.T, self.G, self.S, self.F):
                arr[pos + 1:hi + 1] = arr[pos:hi]
        self.T[pos] = t
        self.G[pos] = row
        self.S[pos] = np.sort(row)
        self.F[pos] = f
        self.hi = hi + 1
        return pos

    # -- bookings ------------------------------------------------------------------------------
    def book(self, task: int, cores, start: float, end: float, mem: float,
             keep: bool = True) -> None:
        """Hold ``cores`` and ``mem`` GB on ``[start, end)`` (they must be free then).

        ``keep=False`` books a place-holder: it enters the index only, so the next
        :meth:`rebuild` (from the stored intervals) erases it (permanent reservations vs.
        place-holders (ch. 2 spec §6.4))."""
        cores = np.asarray(cores, dtype=np.int64)
        if keep:
            self._store_insert(task, cores, start, end)
            self.ivals[task] = (cores, start, end, float(mem))
            heapq.heappush(self._ends, (end, task))
        self._reserve(2)
        a = self._row(start)
        b = self._row(end)
        if mem > 0 and (self.F[a:b] < mem - EPS).any():
            raise PolicyViolation("capacity", None, f"task {task}: {mem} GB booked from "
                                  f"{start} min on a node without that much memory free")
        G = self.G
        G[a:b, cores] = -INF
        self.F[a:b] -= mem
        lo = self.lo
        if a > lo:
            block = G[lo:a][:, cores]
            capped = np.minimum(block, (start - self.T[lo:a])[:, None])
            changed = np.flatnonzero((capped < block).any(axis=1))
            if changed.size:
                rows = lo + changed
                G[np.ix_(rows, cores)] = capped[changed]
                self.S[rows] = np.sort(G[rows], axis=1)
        self.S[a:b] = np.sort(G[a:b], axis=1)

    # -- queries -------------------------------------------------------------------------------
    def earliest(self, c, m, d) -> tuple[np.ndarray, np.ndarray]:
        """Earliest starts (inf if impossible) and their index rows, for arrays of requests."""
        c = np.atleast_1d(np.asarray(c, dtype=np.int64))
        m = np.atleast_1d(np.asarray(m, dtype=float))
        d = np.atleast_1d(np.asarray(d, dtype=float))
        lo, hi = self.lo, self.hi
        k = hi - lo
        T = self.T[lo:hi]
        need = d - EPS
        fits = (c >= 1) & (c <= self.n) & (m <= self.memory + EPS)
        every = bool(fits.all())
        ok = self.S[lo:hi][:, self.n - c if every else np.where(fits, self.n - c, 0)] >= need
        short = self.F[lo:hi, None] < m[None, :] - EPS
        if short.any():
            # First segment at or after each row where memory runs short (k: never); T[hi] is
            # +inf, so that index reads as "enough memory forever".
            first = np.where(short, np.arange(k)[:, None], k)
            first = np.minimum.accumulate(first[::-1], axis=0)[::-1]
            ok &= self.T[lo:hi + 1][first] - T[:, None] >= need
        if not every:
            ok &= fits[None, :]
        row = ok.argmax(axis=0)
        found = ok[row, np.arange(len(c))]
        return np.where(found, T[row], INF), np.where(found, lo + row, -1)

    def choose(self, c: int, start: float, d: float, rule: str):
        """The ``c`` cores a task of ``d`` minutes takes at ``start``; ``rule`` is ``lowest``
        (Simple: lowest ids) or ``voids`` (Max VPTR, core selection on equal start
        (ch. 2 spec §6.3): fewest idle voids created, then the smallest voids, then lowest id).
        Returns (cores, voids created, void size)."""
        r = bisect.bisect_left(self.T, start, self.lo, self.hi)
        if r >= self.hi or self.T[r] != start:
            raise ValueError(f"{start} is not a candidate start")
        gap = self.G[r]
        free = np.flatnonzero(gap >= d - EPS)
        if free.size < c:
            raise PolicyViolation("capacity", None,
                                  f"only {free.size} of {c} cores free at {start} min for {d}")
        if rule == "lowest":
            return free[:c], 0, 0.0
        # The previous interval on a core ended where the core last turned free before
        # ``start``: the row after its last busy row (every interval end is a row).
        lo = self.lo
        busy = self.G[lo:r, free] == -INF
        if busy.shape[0]:
            seen = busy.any(axis=0)
            last = busy.shape[0] - 1 - busy[::-1].argmax(axis=0)
            prev = np.where(seen, self.T[lo + np.minimum(last + 1, r - lo)], self.now)
        else:
            prev = np.full(free.size, self.now)
        before = start - prev
        after = gap[free] - d  # inf when nothing follows on the core
        has_before = before > EPS
        has_after = np.isfinite(after) & (after > EPS)
        voids = has_before.astype(np.int64) + has_after
        size = np.where(has_before, before, 0.0) + np.where(has_after, after, 0.0)
        pick = np.lexsort((free, size, voids))[:c]
        return np.sort(free[pick]), int(voids[pick].sum()), float(size[pick].sum())

    # -- state ---------------------------------------------------------------------------------
    def cores_busy_now(self) -> int:
        return int(np.count_nonzero(self.G[self.lo] == -INF))

    def memory_used_now(self) -> float:
        return self.memory - float(self.F[self.lo])

    def free_now(self, d: float) -> tuple[int, float]:
        """Cores free from now for at least ``d`` minutes, and the memory free now."""
        return int(np.count_nonzero(self.G[self.lo] >= d - EPS)), float(self.F[self.lo])
