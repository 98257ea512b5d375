"""Greedy dispatch on leased partitions, with tail-chopping (machine model (trailing-tasks spec §3),
dispatch policies (trailing-tasks spec §5), trailing-tasks spec §6).

The model: tasks wait in one FIFO queue in dispatch order (shuffled or longest first); a
partition of ``m`` workers is requested, becomes ready after the start-up time, and every idle
worker takes the next queued task with zero delay. Once the queue is empty, workers fall idle
one by one. With tail-chopping, the first completion instant at which ``idle / m > f`` (strict)
while tasks still run and a smaller partition would be chosen cancels the partition: the
running tasks lose their progress and go back to the queue in their dispatch order, the
partition is torn down, and a new one sized by the task/worker ratio ``r`` takes them.

Two facts make this fast:

* **Greedy list scheduling** needs only the free times of the workers, not their identities:
  a task starts at the smallest free time. Runs of consecutive tasks that all start before
  any of them ends are placed at once on the sorted free times (see :func:`greedy_starts`),
  so a partition costs a few hundred numpy operations instead of one heap operation per task.
* **The chop test** is monotone: before the queue empties no worker idles; after it, the
  running count only falls, so idle workers only grow and the next partition size only
  shrinks. The chop instant is the first completion time (at or after the last dispatch) where
  both conditions hold, found by a vectorized scan of the sorted end times.

Each partition's schedule, relative to its ready time, depends only on its queue and size, and
a queue is determined by the chain of (size, chop instant) before it. :class:`Planner` keeps
those schedules in a tree, so a trade-off grid over ``r`` and ``f`` shares every partition that
two settings have in common (the first partition is shared by every ``f`` and by every ``r``
that picks the same size).

Simultaneous completions are applied together before the chop test (a tie of run times in an
SWF file must not cancel a task in the instant it ends); with continuous run times this is the
spec's one-event-at-a-time loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from heapq import heapreplace

import numpy as np

from simcore.clock import RunClock

from .config import MachineParams

#: Block mode falls back to the heap when blocks average fewer tasks than this (per-block numpy
#: overhead is worth about this many heap operations).
MIN_BLOCK = 48


def greedy_starts(d: np.ndarray, m: int) -> np.ndarray:
    """Start times (from the partition's ready time) of the tasks ``d`` dispatched in order to
    the first free of ``m`` identical workers.

    The workers' free times are kept as a sorted array ``F``. The next ``k`` tasks take
    ``F[0..k-1]`` in order as long as none of them ends before the free time the next one
    takes (``F[j] <= min(F[i] + d[i] for i < j)``): a heap would pop exactly these values, so
    the result is bit-identical to the heap loop. Their ends are merged back into ``F`` and the
    window doubles while whole windows pass. When blocks stay short (many workers free at
    nearly the same time, tiny tasks), the rest runs as a ``heapq`` loop on ``F``, which as a
    sorted list is already a heap.
    """
    n = d.size
    s = np.zeros(n)
    if n <= m:
        return s
    free = np.sort(d[:m])  # the first m tasks start at once
    pos, window, blocks = m, 64, 0
    while pos < n:
        w = min(window, m, n - pos)
        ends = free[:w] + d[pos:pos + w]
        k = w
        if w > 1:
            late = free[1:w] > np.minimum.accumulate(ends[:-1])
            if late.any():
                k = int(late.argmax()) + 1
        s[pos:pos + k] = free[:k]
        new = np.sort(ends[:k])
        rest = free[k:]
        free = np.insert(rest, np.searchsorted(rest, new), new)
        pos += k
        blocks += 1
        window = 2 * w if k == w else max(2 * k, 16)
        if blocks >= 8 and pos - m < MIN_BLOCK * blocks:
            heap = free.tolist()
            swap = heapreplace
            # heapreplace returns the smallest free time (this task's start), pushes its end.
            s[pos:] = [swap(heap, heap[0] + x) for x in d[pos:].tolist()]
            break
    return s


def choose_size(count: int, r: float, menu: tuple[int, ...]) -> int:
    """The largest menu size with ``count / size >= r``, else the smallest (tail-chopping
    (trailing-tasks spec §6))."""
    best = menu[0]
    for size in menu:
        if count / size >= r:
            best = size
        else:
            break  # count / size only falls as sizes grow
    return best


def largest_shrinking_count(m: int, r: float, menu: tuple[int, ...], top: int) -> int:
    """The largest task count ``c <= top`` for which :func:`choose_size` picks a partition
    smaller than ``m`` (-1 if none). The chosen size never falls as the count grows, so the
    counts that shrink the partition are exactly ``0..c``."""
    if choose_size(0, r, menu) >= m:
        return -1
    lo, hi = 0, top  # choose_size(lo) < m holds
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if choose_size(mid, r, menu) < m:
            lo = mid
        else:
            hi = mid - 1
    return lo


class Partition:
    """The greedy schedule of one queue on ``m`` workers, times from the ready instant.

    ``queue`` holds positions in the dispatch order (indices into the planner's run times).
    The chop data (sorted end times, candidate instants, running counts) are built on first
    use, so runs that never chop never pay for them.
    """

    __slots__ = ("queue", "m", "start", "_runtimes", "makespan", "children", "_cand",
                 "_running", "_shrink", "_chops")

    def __init__(self, queue: np.ndarray, runtimes: np.ndarray, m: int):
        """``runtimes``: every task's run time, indexed by ``queue`` (not copied)."""
        self.queue = queue
        self.m = m
        self._runtimes = runtimes
        d = runtimes[queue]
        self.start = greedy_starts(d, m)
        self.makespan = float((self.start + d).max())
        self.children: dict[tuple[int, int], Partition] = {}
        self._cand = None
        self._shrink: dict[float, int] = {}
        self._chops: dict[int, tuple[float, np.ndarray, float]] = {}

    @property
    def end(self) -> np.ndarray:
        """End times, recomputed when asked: a whole-figure run holds hundreds of partitions
        of up to 934,710 tasks, and keeping these too would take a third of its memory."""
        return self.start + self._runtimes[self.queue]

    def _chop_data(self) -> None:
        e = np.sort(self.end)
        last_dispatch = float(self.start[-1])  # starts are non-decreasing in queue order
        # Completion instants once the queue is empty (repeated instants repeat harmlessly:
        # each copy sees every completion of its instant).
        # A copy, so the whole sorted array is not kept alive by a view of its tail.
        self._cand = e[np.searchsorted(e, last_dispatch, side="left"):].copy()
        self._running = e.size - np.searchsorted(e, self._cand, side="right")

    def chop_index(self, f: float, r: float, menu: tuple[int, ...]) -> int | None:
        """Index of the chop instant for ``(f, r)`` among the candidates, or None."""
        if f >= 1.0:
            return None
        if self._cand is None:
            self._chop_data()
        running = self._running
        if running.size == 0:
            return None
        m = self.m
        shrink = self._shrink.get(r)
        if shrink is None:
            shrink = self._shrink[r] = largest_shrinking_count(m, r, menu, int(running[0]))
        ok = ((m - running) / m > f) & (running > 0) & (running <= shrink)
        k = int(ok.argmax())
        return k if ok[k] else None

    def chop(self, k: int) -> tuple[float, np.ndarray, float]:
        """(instant, cancelled mask, CPU time the cancelled tasks had used) of candidate k."""
        out = self._chops.get(k)
        if out is None:
            t = float(self._cand[k])
            cancelled = self.end > t
            out = self._chops[k] = (t, cancelled, float(np.sum(t - self.start[cancelled])))
        return out


@dataclass
class Stint:
    """One partition as a run used it, in absolute time (s)."""

    part: Partition
    request: float
    ready: float
    release: float  # chop instant or last completion
    chopped: bool
    cancelled: np.ndarray | None  # mask over part.queue
    wasted: float  # CPU-s of progress lost to the chop

    @property
    def m(self) -> int:
        return self.part.m

    @property
    def alloc(self) -> float:
        return self.part.m * (self.release - self.ready)


@dataclass
class Schedule:
    """A whole run: its partitions in order; the metrics of tail-chopping
    (trailing-tasks spec §6)."""

    stints: list[Stint]
    useful: float  # CPU-s of the workload

    @property
    def tts(self) -> float:
        return self.stints[-1].release

    @property
    def alloc(self) -> float:
        return float(sum(s.alloc for s in self.stints))

    @property
    def wasted(self) -> float:
        return float(sum(s.wasted for s in self.stints))

    @property
    def active(self) -> float:
        return self.useful + self.wasted

    @property
    def idle(self) -> float:
        return self.alloc - self.active

    @property
    def utilization(self) -> float:
        return self.useful / self.alloc if self.alloc > 0 else 0.0

    def metrics(self) -> dict:
        return {"tts_s": self.tts, "utilization": self.utilization, "alloc_cpu_s": self.alloc,
                "active_cpu_s": self.active, "idle_cpu_s": self.idle,
                "wasted_cpu_s": self.wasted, "partitions": len(self.stints),
                "first_partition": self.stints[0].m}


class Planner:
    """Schedules of one dispatch order under any (r, f), sharing common partitions.

    ``d`` are the run times in dispatch order. ``workers`` fixes the first partition's size
    (None: chosen by r).
    """

    def __init__(self, d: np.ndarray, machine: MachineParams, workers: int | None = None,
                 clock: RunClock | None = None):
        self.d = np.ascontiguousarray(d, dtype=float)
        self.useful = float(self.d.sum())
        self.menu = tuple(int(s) for s in machine.partitions)
        self.machine = machine
        self.workers = workers
        self.clock = clock or RunClock()
        self.roots: dict[int, Partition] = {}
        self.partitions_built = 0

    def _partition(self, parent: Partition | None, key, queue: np.ndarray, m: int) -> Partition:
        table = self.roots if parent is None else parent.children
        part = table.get(key)
        if part is None:
            t0 = time.perf_counter()
            part = Partition(queue, self.d, m)
            self.clock.record(time.perf_counter() - t0)
            self.partitions_built += 1
            table[key] = part
        return part

    def schedule(self, r: float, f: float) -> Schedule:
        """The run under ratio ``r`` and idle fraction ``f`` (``f >= 1``: never chop)."""
        mach = self.machine
        n = self.d.size
        m = self.workers or choose_size(n, r, self.menu)
        part = self._partition(None, m, np.arange(n, dtype=np.int32), m)
        request, ready = 0.0, mach.startup_s
        stints = []
        while True:
            k = part.chop_index(f, r, self.menu)
            if k is None:
                stints.append(Stint(part, request, ready, ready + part.makespan, False, None,
                                    0.0))
                return Schedule(stints, self.useful)
            t, cancelled, wasted = part.chop(k)
            chop_at = ready + t
            stints.append(Stint(part, request, ready, chop_at, True, cancelled, wasted))
            queue = part.queue[cancelled]
            m = choose_size(queue.size, r, self.menu)
            part = self._partition(part, (k, m), queue, m)
            request = chop_at + (mach.teardown_s if mach.teardown_first else 0.0)
            ready = request + mach.requeue_wait_s + mach.startup_s

    def tradeoff(self, ratios, fractions, keep: int | None = None) -> dict:
        """Metrics of every (f, r), as arrays indexed [f][r].

        Ratios are taken by the first partition they pick, and each first partition's tree is
        dropped once its ratios are done (except ``keep``'s), so memory holds one tree.
        """
        keys = ("tts_s", "utilization", "alloc_cpu_s", "active_cpu_s", "idle_cpu_s",
                "wasted_cpu_s", "partitions", "first_partition")
        out = {k: np.zeros((len(fractions), len(ratios))) for k in keys}
        n = self.d.size
        first = [self.workers or choose_size(n, r, self.menu) for r in ratios]
        total = len(fractions) * len(ratios)
        done = 0
        for m0 in dict.fromkeys(first):
            for j, r in enumerate(ratios):
                if first[j] != m0:
                    continue
                for i, f in enumerate(fractions):
                    for key, value in self.schedule(r, f).metrics().items():
                        out[key][i, j] = value
                    done += 1
                    self.clock.report(done / total)
            if m0 != keep:
                self.roots.pop(m0, None)
        out["r"] = np.asarray(ratios, dtype=float)
        out["f"] = np.asarray(fractions, dtype=float)
        return out
