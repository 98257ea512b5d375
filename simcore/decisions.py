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
  fits; the tasks named ``always`` (the ones a user asks about) are kept whatever the stride.
  Which tasks are kept depends only on their ids, so two runs of one scenario sample the
  same tasks and can be compared decision by decision (``simcore.explain``). Where a kind's
  task ids are the run's own (``across_runs``: UAV numbers surveils in start order), the hash
  is of what the task is about (``"target 5"``), so a target's surveils and waits are kept or
  left out together, and two runs keep the same targets.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Iterable
from itertools import repeat
from numbers import Integral
from typing import Any

import numpy as np

#: What can happen to a task, in the words the stories use.
ACTIONS = (
    "mapped",      # started (or assigned) somewhere: where, and why there
    "backfilled",  # started ahead of a reservation it does not delay
    "resumed",     # a preempted task starts again
    "held",        # waits in the queue: what blocked it
    "filtered",    # an option or the task was ruled out by a filter, with its numbers
    "dropped",     # removed: by the policy (its value against the threshold), at load (a
                   # job the machine cannot run) or by the run (a UAV's battery ran out)
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

_HEAD = ("t", "task", "action", "reason")  # what every record has before its numbers

DEFAULT_PER_TASK = 16
DEFAULT_LIMIT = 20_000
# A stride past every 32-bit hash: only the tasks named ``always`` (and any hashing to 0) are
# left, so sampling stops there even if their stories alone pass the limit.
_ALL = 2**33


def bucket(task: Any) -> int:
    """The hash that samples tasks: kept when ``bucket(task) % stride == 0``. An integer id
    hashes as a Python int whatever its type, so a numpy id and the JSON's number agree."""
    if type(task) is not int and isinstance(task, Integral) and not isinstance(task, bool):
        task = int(task)  # (the test of an exact int first: an abstract-class test is slow)
    return zlib.crc32(repr(task).encode())


@functools.cache
def _digit_tables(width: int) -> tuple[int, list[np.ndarray]]:
    """CRC-32 of ``width``-digit decimal texts, as a constant and one table per pair of digits.

    For messages of one length CRC-32 is affine in their bits: the CRC of a text is the CRC
    of as many zero bytes XOR, for each pair of its digits, what that pair alone changes in it.
    So ids of one width hash with one lookup per pair of digits and no chain from one to the
    next. Returns (the zero bytes' CRC, [per pair, least significant first, a table of its 100
    values (the leading digit alone: 10) as uint32])."""
    zero = bytes(width)
    base = zlib.crc32(zero)
    tables = []
    for right in range(0, width, 2):  # the pair's last digit, counted from the right
        first = width - right - 2  # where its first digit is (-1: a leading digit alone)
        table = []
        for value in range(100 if first >= 0 else 10):
            text = bytearray(zero)
            if first >= 0:
                text[first], text[first + 1] = 48 + value // 10, 48 + value % 10
            else:
                text[0] = 48 + value
            table.append(zlib.crc32(text) ^ base)
        tables.append(np.array(table, dtype=np.uint32))
    return base, tables


def _crc_of_digits(ids: np.ndarray, width: int) -> np.ndarray:
    """CRC-32 of the decimal digits of ``ids``, every one ``width`` digits wide."""
    base, tables = _digit_tables(width)
    crc = np.full(ids.size, base, dtype=np.uint32)
    hundred = ids.dtype.type(100)
    for table in tables:
        if table.size == 100:
            ids, pair = np.divmod(ids, hundred)
            crc ^= table[pair]
        else:  # the leading digit
            crc ^= table[ids]
    return crc


def buckets(ids: Any) -> np.ndarray:
    """:func:`bucket` of every id at once (uint32). Non-negative integer ids, the ids of every
    kind that samples up front, are hashed in numpy (the CRC-32 of their decimal digits, ids
    of one width together with one lookup per pair of digits, :func:`_digit_tables`: slices of
    them when the ids ascend, as a kind's usually do); any other id goes one by one."""
    arr = np.asarray(ids)
    if arr.dtype.kind not in "iu" or (arr.size and int(arr.min()) < 0):
        return np.fromiter((bucket(t) for t in ids), dtype=np.uint32, count=len(ids))
    # 32-bit arithmetic where the ids allow it: numpy divides those about twice as fast
    kind = np.uint32 if not arr.size or int(arr.max()) < 2**32 else np.uint64
    arr = arr.astype(kind)
    out = np.empty(arr.size, dtype=np.uint32)
    tens = [10 ** w for w in range(1, 20) if 10 ** w <= np.iinfo(kind).max]
    if arr.size < 2 or bool((arr[1:] >= arr[:-1]).all()):
        cuts = [0, *np.searchsorted(arr, np.array(tens, dtype=kind)).tolist(), arr.size]
        for width, (a, b) in enumerate(zip(cuts, cuts[1:], strict=False), start=1):
            if b > a:
                out[a:b] = _crc_of_digits(arr[a:b], width)
        return out
    widths = np.searchsorted(np.array(tens, dtype=kind), arr, side="right") + 1
    for width in np.flatnonzero(np.bincount(widths)).tolist():
        sel = widths == width
        out[sel] = _crc_of_digits(arr[sel], width)
    return out


def _numbers(frame: tuple[dict, tuple], values: tuple) -> dict:
    """A decision's numbers from ``add_each``'s (shared numbers, column names) and one row of
    its columns."""
    shared, names = frame
    return {**shared, **dict(zip(names, values, strict=True))}


class DecisionLog:
    """The decisions of one run, bounded as the module says.

    ``add`` is on the hot path of every explained run, so each record is built once, as the
    dict ``export`` hands out, and kept in one list in the order it was made (a replaced or
    sampled-out record becomes None); a wait's repeats are counted beside it and written
    onto a copy only at export. Building the dict where the tuple was cost 0.1 µs more per
    record and saved the 0.35 µs of building it at export (lublin_256 under EASY: 7 ms). A
    task's bookkeeping is a tuple: the garbage collector stops tracking a tuple of plain
    values (and never tracks a dict of them), where tens of thousands of lists made it walk
    the whole process again and again (grid: 5-8 points of the trace's overhead).
    """

    def __init__(self, per_task: int = DEFAULT_PER_TASK, limit: int = DEFAULT_LIMIT,
                 time_unit: str = "s", always: Iterable = ()):
        if per_task < 2 or limit < per_task:
            raise ValueError("per_task must be >= 2 and limit >= per_task")
        #: Tasks kept with their whole story whatever the sampling (the ones a user asked
        #: about): they count towards ``limit`` but are never sampled out.
        self.always = frozenset(always)
        self.per_task = per_task
        self.limit = limit
        self.time_unit = time_unit
        #: For a kind whose task ids are the run's own (UAV: surveils numbered in start
        #: order), the number every decision carries that names what it is about in any run
        #: of the scenario (``"target"``): two runs are compared by it (``simcore.explain``).
        #: A log with ``across_runs`` also samples by it: every decision about one target is
        #: kept or left out together, and two runs keep the same targets.
        self.across_runs: str | None = None
        self._subjects: dict[Any, Any] = {}  # kept task -> what it is about (``across_runs``)
        self.stride = 1
        self._records: list[dict | None] = []
        # index of a wait's record -> (times it was made, when last, its numbers then or None
        # while they were the first's; ``add_each`` keeps them as ((shared, names), values))
        self._repeats: dict[int, tuple[int, float, dict | None]] = {}
        # kept task -> (index of its latest record, its records kept, its waits and filters
        # kept, index of its latest wait (-1: none), waits omitted): one look-up per ``add``
        self._tasks: dict[Any, tuple[int, int, int, int, int]] = {}
        self._out: set = set()  # tasks the sampling left out
        self._out_counted = 0  # tasks left out before they were recorded (``sample_up_front``)
        # The tasks ``sample_up_front`` kept (None: not sampled so), narrowed when the log
        # thins itself: whether a task is kept is then a look-up, its hash worked out once.
        self._ahead: set | None = None
        self._size = 0

    def sample_up_front(self, ids: Any, per_task: Any) -> np.ndarray | None:
        """For a kind that knows all its tasks before the run: choose the stride the log would
        end with, expecting about ``per_task`` decisions of each task (a number, or one per
        task), start from it, and return which of ``ids`` to record (None: all), before the
        first record. ``ids`` are every task the run can record. A kind that then records
        only those pays nothing for the tasks the sampling leaves out; if the run makes more
        decisions than expected, the log still thins itself."""
        if self._records:
            raise ValueError("sample_up_front: before the first record")
        n = len(ids)
        kept = np.minimum(np.broadcast_to(np.asarray(per_task, dtype=float), (n,)),
                          self.per_task)
        if float(kept.sum()) <= self.limit:
            return None
        hashes = buckets(ids)
        arr = np.asarray(ids)
        asked = list(self.always)
        if arr.dtype.kind in "iu":  # (numpy would compare numbers as text beside a text id)
            asked = [a for a in asked if isinstance(a, Integral) and not isinstance(a, bool)]
        named = np.isin(arr, asked) if asked else np.zeros(n, dtype=bool)
        # A task is kept at stride 2**m when its hash has at least m trailing zero bits: the
        # decisions kept at every stride, from one pass over the tasks.
        low = hashes & (~hashes + np.uint32(1))  # the lowest set bit (0 for a zero hash)
        # its trailing zeros, the bits below it; a zero hash divides by every stride: as many
        # zeros as any stride can ask
        zeros = np.where(low == 0, np.uint8(64), np.bitwise_count(low - np.uint32(1)))
        # (the tasks asked for are counted apart; weighing them 0 here spares two copies)
        by_zeros = np.bincount(zeros, weights=np.where(named, 0.0, kept) if asked else kept,
                               minlength=65)
        at_least = by_zeros[::-1].cumsum()[::-1] + float(kept[named].sum())
        m = 1
        while at_least[m] > self.limit and m < 33:
            m += 1
        keep = (zeros >= m) | named
        self.stride = 2**m
        self._out_counted = n - int(np.count_nonzero(keep))  # they count as seen
        self._ahead = set(arr[keep].tolist())
        return keep

    def keeps(self, task: Any, subject: Any = None) -> bool:
        """Whether a decision about ``task`` would be kept now, so a kind can skip working out
        the numbers of one the sampling leaves out (a task left out counts as seen).
        ``subject``: what the task is about when the log samples by it (``across_runs``)."""
        if task in self._tasks or task in self.always:
            return True
        if self._ahead is not None:
            return task in self._ahead
        if task in self._out:
            return False
        key = task if subject is None else subject
        if self.stride > 1 and bucket(key) % self.stride and key not in self.always:
            self._out.add(task)
            return False
        return True

    def _subject(self, task: Any, numbers: dict) -> Any:
        # as ``simcore.explain.subject_of`` names it from the record, so the comparison of
        # two sampled logs can tell which subjects both kept
        field = self.across_runs
        return f"{field} {numbers[field]}" if field in numbers else task

    def add(self, t: float, task: Any, action: str, reason: str, numbers: dict | None = None,
            /, **more: Any) -> None:
        """Record a decision: its numbers as keywords, or as one dict the log may keep (a call
        site with many numbers saves building them twice: keywords cost 0.5 µs more)."""
        if numbers is None:
            numbers = more
        elif more:
            numbers = {**numbers, **more}
        tasks = self._tasks
        mine = tasks.get(task)
        wait = action in _REPEATABLE
        records = self._records
        if mine is None:  # a task's first record: is it sampled in?
            if self.across_runs is None:
                if not self.keeps(task):
                    return
            else:
                subject = self._subject(task, numbers)
                if not self.keeps(task, subject):
                    return
                self._subjects[task] = subject
            n = len(records)
            tasks[task] = (n, 1, 1, n, 0) if wait else (n, 1, 0, -1, 0)
            self._size += 1
        elif wait:
            i = mine[0]
            last = records[i]
            if last["action"] == action and last["reason"] == reason:
                # (a repeat may be counted without its numbers worked out again)
                rep = self._repeats.get(i)
                self._repeats[i] = ((2, t, numbers or None) if rep is None else
                                    (rep[0] + 1, t, numbers or rep[2]))
                return
            n = len(records)
            if mine[2] >= self.per_task:
                # keep its first waits and its latest: the latest says what it waited for last
                records[mine[3]] = None
                self._repeats.pop(mine[3], None)
                tasks[task] = (n, mine[1], mine[2], n, mine[4] + 1)
            else:
                tasks[task] = (n, mine[1] + 1, mine[2] + 1, n, mine[4])
                self._size += 1
        else:
            tasks[task] = (len(records), mine[1] + 1, mine[2], mine[3], mine[4])
            self._size += 1
        records.append({"t": t, "task": task, "action": action, "reason": reason, **numbers})
        if self._size > self.limit:
            self._thin()

    def add_each(self, t: float, tasks: Iterable, action: str, reason: str,
                 numbers: dict | None = None, /, **columns: Iterable) -> None:
        """Record the same decision about each of ``tasks``, as ``add`` one by one would:
        ``numbers`` shared by all, then ``columns``, one value per task each (in the order of
        ``tasks``; ``itertools.repeat`` for one value; a column of another length than
        ``tasks`` is a ValueError). A kind that explains a whole queue at every event (ch3
        EASY: about 1,000 tasks at 454 of its 1,680 events) mostly repeats each task's cause;
        this counts a repeat without a call to ``add`` (0.5 µs less a task)."""
        names = tuple(columns)
        if not isinstance(tasks, list | tuple):
            tasks = list(tasks)
        values = [c if isinstance(c, repeat) or hasattr(c, "__len__") else list(c)
                  for c in columns.values()]
        for column in values:
            if not isinstance(column, repeat) and len(column) != len(tasks):
                raise ValueError(f"add_each: {len(column)} values for {len(tasks)} tasks")
        # (every column as long as ``tasks`` or endless: the rows never run out before it)
        rows = zip(*values, strict=False) if names else repeat(None)
        shared = numbers or {}
        wait = action in _REPEATABLE  # a move is always a record of its own
        # a repeat's numbers as (frame, values) until export: most are replaced by the next
        # repeat's, and a dict of them costs 0.25 µs
        frame, plain = (shared, names), shared or None
        own, records, repeats = self._tasks, self._records, self._repeats
        for task, row in zip(tasks, rows, strict=False):
            mine = own.get(task) if wait else None
            if mine is not None:
                i = mine[0]
                last = records[i]
                if last["reason"] == reason and last["action"] == action:
                    rep = repeats.get(i)
                    latest = plain if row is None else (frame, row)
                    repeats[i] = ((2, t, latest) if rep is None else
                                  (rep[0] + 1, t, latest or rep[2]))
                    continue
            self.add(t, task, action, reason, shared if row is None else
                     _numbers(frame, row))
            records, repeats = self._records, self._repeats  # (a record added may thin them)

    def _thin(self) -> None:
        tasks, always, subjects = self._tasks, self.always, self._subjects
        while self._size > self.limit and self.stride < _ALL:
            self.stride *= 2
            for task in [k for k in tasks if k not in always
                         and bucket(key := subjects.get(k, k)) % self.stride
                         and key not in always]:
                self._size -= tasks.pop(task)[1]
                subjects.pop(task, None)
                self._out.add(task)
        if self._ahead is not None:  # still every task the new stride keeps, and no other
            stride = self.stride
            narrowed = {k for k in self._ahead if k in always or bucket(k) % stride == 0}
            # the ones it leaves out before their first record count as seen, as the tasks
            # left out ahead do (those recorded already went to ``_out`` above)
            self._out_counted += len(self._ahead - narrowed - self._out)
            self._ahead = narrowed
        kept, repeats = [], {}
        for i, r in enumerate(self._records):
            if r is not None and r["task"] in tasks:
                if i in self._repeats:
                    repeats[len(kept)] = self._repeats[i]
                kept.append(r)
        self._records, self._repeats = kept, repeats
        latest, waits = {}, {}
        for i, r in enumerate(kept):
            latest[r["task"]] = i
            if r["action"] in _REPEATABLE:
                waits[r["task"]] = i
        for task, mine in tasks.items():
            tasks[task] = (latest[task], mine[1], mine[2], waits.get(task, -1), mine[4])

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:  # a log is there, and asked for, even before its first record
        return True

    def export(self) -> tuple[list[dict], dict]:
        """The decisions in the order they were made, and what bounded them. The records are
        handed out as they are (a repeated wait, or one with waits omitted before it, as a
        copy that says so)."""
        records = list(self._records)
        for i, (count, t_last, latest) in self._repeats.items():
            first = records[i]
            if first is None:
                continue
            if type(latest) is tuple:  # as ``add_each`` keeps it
                latest = _numbers(*latest)
            d = {**first, "count": count, "t_last": t_last}
            if latest is not None and latest != {k: v for k, v in first.items()
                                                 if k not in _HEAD}:
                d["last"] = latest
            records[i] = d
        tasks = self._tasks
        # a task's latest wait carries how many of its waits the cap left out before it
        for mine in tasks.values():
            if mine[4]:
                records[mine[3]] = {**records[mine[3]], "omitted_before": mine[4]}
        out = [r for r in records if r is not None]
        seen = len(tasks) + len(self._out) + self._out_counted
        info = {"time_unit": self.time_unit, "per_task": self.per_task, "limit": self.limit,
                "stride": self.stride, "tasks_seen": seen,
                "tasks_kept": len(tasks), "recorded": len(out),
                "omitted": sum(mine[4] for mine in tasks.values()),
                "sampling": ("every task" if self.stride == 1 else
                             f"1 task in {self.stride}, chosen by a hash of its id"
                             if not self.across_runs else
                             f"1 {self.across_runs} in {self.stride} with all its decisions, "
                             "chosen by a hash of its number")
                + (", and every task asked for" if self.always and self.stride > 1 else "")}
        if self.always:
            info["always"] = sorted(self.always, key=str)
        if self.across_runs:
            # (``sampled_by``: results written before a log sampled by it cannot be compared
            # once sampled)
            info["across_runs"] = info["sampled_by"] = self.across_runs
        return out, info
