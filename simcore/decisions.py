"""Why a run did what it did: the decisions of one run with their reasons, kept within bounds.

A kind records a decision where it makes one (``log.add(t, task, action, reason, **numbers)``)
only when the run was asked to explain itself (``Engine.simulate(..., explain=True)``); when it
was not, ``RunContext.decisions`` is None and the kind skips the call, so runs that do not
explain (sweeps, figures) pay nothing.

A decision is ``{t, task, action, reason, ...numbers}``: ``t`` in the kind's clock unit (stated
in ``meta.decisions.time_unit``), ``task`` the id the result's task table uses, ``action`` one of
:data:`ACTIONS`, ``reason`` a short sentence in the model's own terms, and the numbers it rests
on (``where`` names the place a task went: a cluster, node, VM, UAV or grid node).

Bounds, stated in ``meta.decisions``:

- a wait or a filter that repeats the task's previous decision (same action and reason: a task
  held at every mapping event for the same cause) is counted on it (``count``, ``t_last``, and
  ``last``: its numbers the last time, when they changed), not stored again; a move (a start, a
  preemption, a migration) is always a record of its own;
- each task keeps every move and at most ``per_task`` waits and filters: its first
  ``per_task - 1`` and always its latest (``omitted_before`` on it counts the ones in
  between), so no start, drop or preemption is ever lost to the cap;
- the whole log keeps at most ``limit`` decisions: past it, tasks are sampled by a hash of
  their id, one in ``stride`` kept with their whole story, ``stride`` doubling until the log
  fits. Which tasks are kept depends only on their ids, so two runs of one scenario sample the
  same tasks and can be compared decision by decision (``simcore.explain``).
"""

from __future__ import annotations

import zlib
from numbers import Integral
from typing import Any

#: What can happen to a task, in the words the stories use.
ACTIONS = (
    "mapped",      # started (or assigned) somewhere: where, and why there
    "backfilled",  # started ahead of a reservation it does not delay
    "resumed",     # a preempted task starts again
    "held",        # waits in the queue: what blocked it
    "filtered",    # an option or the task was ruled out by a filter, with its numbers
    "dropped",     # removed by the policy: its value against the threshold
    "expired",     # its value or deadline ran out before it could run
    "preempted",   # stopped to make room, by which task, the values compared
    "killed",      # stopped and restarted from zero
    "migrated",    # moved to another place (grid: from, to, why)
    "completed",   # finished
)

#: Actions that start a task running.
STARTS = frozenset({"mapped", "backfilled", "resumed"})
#: Actions that change what happens to a task (the others explain why nothing did).
MOVES = frozenset(ACTIONS) - {"held", "filtered"}

# A wait or a filter repeated for the same cause is one state that lasts; a move (a start, a
# migration, a preemption) is an event of its own even when it repeats.
_REPEATABLE = frozenset(ACTIONS) - MOVES

DEFAULT_PER_TASK = 16
DEFAULT_LIMIT = 20_000


def bucket(task: Any) -> int:
    """The hash that samples tasks: kept when ``bucket(task) % stride == 0``. An integer id
    hashes as a Python int whatever its type, so a numpy id and the JSON's number agree."""
    if isinstance(task, Integral) and not isinstance(task, bool):
        task = int(task)
    return zlib.crc32(repr(task).encode())


class DecisionLog:
    """The decisions of one run, bounded as the module says.

    ``add`` is on the hot path of every explained run, so records are kept as small lists in
    one list in the order they were made (a replaced or sampled-out record becomes None) and
    turned into dicts only by ``export``.
    """

    def __init__(self, per_task: int = DEFAULT_PER_TASK, limit: int = DEFAULT_LIMIT,
                 time_unit: str = "s"):
        if per_task < 2 or limit < per_task:
            raise ValueError("per_task must be >= 2 and limit >= per_task")
        self.per_task = per_task
        self.limit = limit
        self.time_unit = time_unit
        self.stride = 1
        self._records: list[list | None] = []
        self._last: dict[Any, int] = {}  # kept task -> index of its latest record
        self._count: dict[Any, int] = {}  # kept task -> its records kept
        self._waits: dict[Any, int] = {}  # kept task -> its waits and filters kept
        self._last_wait: dict[Any, int] = {}  # kept task -> index of its latest wait
        self._omitted: dict[Any, int] = {}
        self._out: set = set()  # tasks the sampling left out
        self._out_counted = 0  # tasks left out before they were recorded (``presample``)
        self._size = 0

    def presample(self, stride: int, left_out: int) -> None:
        """Start with one task in ``stride`` (a power of two) kept, for a kind that knows all
        its tasks up front and applies ``bucket(task) % stride == 0`` itself, recording only
        those: ``left_out`` is how many tasks that left out (they count as seen). Saves the
        cost of recording a large run's every task only to sample it afterwards."""
        if stride < 1 or stride & (stride - 1) or self._records:
            raise ValueError("presample: a power-of-two stride, before the first record")
        self.stride = stride
        self._out_counted = left_out

    def keeps(self, task: Any) -> bool:
        """Whether a decision about ``task`` would be kept now, so a kind can skip working out
        the numbers of one the sampling leaves out (a task left out counts as seen)."""
        if task in self._last:
            return True
        if task in self._out:
            return False
        if self.stride > 1 and bucket(task) % self.stride:
            self._out.add(task)
            return False
        return True

    def add(self, t: float, task: Any, action: str, reason: str, **numbers: Any) -> None:
        i = self._last.get(task)
        wait = action in _REPEATABLE
        if i is None:  # a task's first record: is it sampled in?
            if not self.keeps(task):
                return
            self._count[task] = 0
            self._waits[task] = 0
        elif wait:
            last = self._records[i]
            if last[2] == action and last[3] == reason:
                last[5] += 1
                last[6] = t
                if numbers:  # a repeat may be counted without its numbers worked out again
                    last[7] = numbers
                return
        records = self._records
        if wait and self._waits[task] >= self.per_task:
            # keep its first waits and its latest: the latest says what it waited for last
            records[self._last_wait[task]] = None
            self._omitted[task] = self._omitted.get(task, 0) + 1
        else:
            self._waits[task] += wait
            self._count[task] += 1
            self._size += 1
        n = len(records)
        self._last[task] = n
        if wait:
            self._last_wait[task] = n
        records.append([t, task, action, reason, numbers, 1, t, numbers])
        if self._size > self.limit:
            self._thin()

    def _thin(self) -> None:
        while self._size > self.limit:
            self.stride *= 2
            for task in [k for k in self._last if bucket(k) % self.stride]:
                del self._last[task]
                self._size -= self._count.pop(task)
                self._waits.pop(task)
                self._omitted.pop(task, None)
                self._out.add(task)
        kept = self._last
        self._records = [r for r in self._records if r is not None and r[1] in kept]
        self._last_wait = {}
        for i, r in enumerate(self._records):
            kept[r[1]] = i
            if r[2] in _REPEATABLE:
                self._last_wait[r[1]] = i

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:  # a log is there, and asked for, even before its first record
        return True

    def export(self) -> tuple[list[dict], dict]:
        """The decisions in the order they were made, and what bounded them."""
        out = []
        for i, r in enumerate(self._records):
            if r is None:
                continue
            t, task, action, reason, numbers, count, t_last, latest = r
            d = {"t": t, "task": task, "action": action, "reason": reason, **numbers}
            if count > 1:
                d["count"] = count
                d["t_last"] = t_last
                if latest != numbers:
                    d["last"] = latest
            if task in self._omitted and self._last_wait.get(task) == i:
                d["omitted_before"] = self._omitted[task]
            out.append(d)
        seen = len(self._last) + len(self._out) + self._out_counted
        info = {"time_unit": self.time_unit, "per_task": self.per_task, "limit": self.limit,
                "stride": self.stride, "tasks_seen": seen,
                "tasks_kept": len(self._last), "recorded": len(out),
                "omitted": sum(self._omitted.values()),
                "sampling": ("every task" if self.stride == 1 else
                             f"1 task in {self.stride}, chosen by a hash of its id")}
        return out, info
