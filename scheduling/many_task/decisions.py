"""Why each task ran where and when it did: the decisions of a finished many-task run.

The schedule is computed in whole partitions at once (:mod:`.sim`), so the decisions are read
back from it afterwards, in the order they happened: every start (the partition, the worker,
the task's place in the queue and why it had that place), every task the tail-chopping
heuristic cancelled (the idle workers against the fraction ``f``, the progress lost) and every
completion. Task ids are the workload's indices, the ``id`` column of the task table.

A bag can hold close to a million tasks whose whole schedule costs about a second of numpy;
a Python call per decision would cost several times that, and the log keeps only a hash
sample of the tasks past its limit anyway. So the sample is chosen first, with the log's own
rule (``DecisionLog.sample_up_front``: one task in ``stride``, a power of two, by the CRC-32 of
its id, computed for all tasks at once), and only the sampled tasks' decisions are built and
recorded.
"""

from __future__ import annotations

from heapq import heapreplace

import numpy as np

from .sim import Schedule

ORDER_REASONS = {
    "sorted": "longest first: the longest queued task goes to the first idle worker",
    "random": "shuffled order: the next queued task goes to the first idle worker",
}
REQUEUED = "requeued by tail-chopping: restarts from zero, in its dispatch order, on the new " \
           "partition"
CHOPPED = "tail-chopping: more than the fraction f of the partition's workers idle, so the " \
          "partition was cancelled and a smaller one requested; progress is lost"
COMPLETED = "ran to completion"

# At one instant a worker first finishes its task and takes the next queued one; the chop is
# decided after both.
_COMPLETE, _START, _KILL = 0, 1, 2


def expected_decisions(schedule: Schedule, order: np.ndarray) -> np.ndarray:
    """How many decisions each task (by id) makes: a start and a completion, and a kill and a
    start for each execution tail-chopping cancelled."""
    per_task = np.full(order.size, 2, dtype=np.int64)
    for st in schedule.stints:
        if st.cancelled is not None:
            per_task[order[st.part.queue[st.cancelled]]] += 2
    return per_task


def workers(start: np.ndarray, runtimes: np.ndarray, m: int) -> np.ndarray:
    """The worker (0..m-1) each queued task ran on: greedy dispatch to the worker free first,
    the lowest-numbered among those free at the same instant. Gives the same start times as
    :func:`.sim.greedy_starts`, which tracks free times only."""
    n = start.size
    out = np.arange(n, dtype=np.int64)
    if n <= m:
        return out
    heap = [(float(t), w) for w, t in enumerate(runtimes[:m].tolist())]
    heap.sort()
    for i, d in enumerate(runtimes[m:].tolist(), start=m):
        free, w = heap[0]
        out[i] = w
        heapreplace(heap, (free + d, w))
    return out


def record(log, schedule: Schedule, order: np.ndarray, runtimes: np.ndarray, order_name: str,
           f: float, with_workers: bool = True) -> None:
    """Record the run's decisions in ``log`` (a ``simcore.decisions.DecisionLog``; times in
    seconds). ``runtimes`` are in the workload's order, ``order`` is the dispatch order (task
    ids), ``order_name`` the policy's order ("sorted" or "random"); ``with_workers`` names the
    worker of each start (a heap pass over every task of every partition)."""
    log.time_unit = "s"
    first = ORDER_REASONS.get(order_name, "the policy's order: the next queued task goes to "
                                          "the first idle worker")
    sampled = log.sample_up_front(np.arange(order.size), expected_decisions(schedule, order))
    add = log.add
    stints = schedule.stints
    for i, st in enumerate(stints):
        part = st.part
        ids = order[part.queue]
        worker = workers(part.start, runtimes[ids], part.m) if with_workers else None
        pos = np.arange(ids.size) if sampled is None else np.flatnonzero(sampled[ids])
        d = runtimes[ids[pos]]
        start = st.ready + part.start[pos]
        end = st.ready + part.end[pos]  # as the task table adds it up
        cut = (np.zeros(pos.size, dtype=bool) if st.cancelled is None
               else st.cancelled[pos])
        # Every event of the partition in time order: starts, completions and the chop.
        k = np.arange(pos.size)
        done, gone = k[~cut], k[cut]
        t = np.concatenate([start, end[done], np.full(gone.size, st.release)])
        what = np.concatenate([np.full(k.size, _START), np.full(done.size, _COMPLETE),
                               np.full(gone.size, _KILL)])
        row = np.concatenate([k, done, gone])
        if st.cancelled is not None:
            running = int(st.cancelled.sum())
            chop = {"where": i + 1, "workers": part.m, "idle": part.m - running,
                    "idle_fraction": (part.m - running) / part.m, "f": f,
                    "next_workers": stints[i + 1].m}
        seq = np.lexsort((row, what, t))
        reason = first if i == 0 else REQUEUED
        ids_l, pos_l = ids[pos].tolist(), pos.tolist()
        start_l, d_l = start.tolist(), d.tolist()
        w_l = worker[pos].tolist() if worker is not None else None
        for when, kind, r in zip(t[seq].tolist(), what[seq].tolist(), row[seq].tolist(),
                                 strict=True):
            # (the numbers as one dict: keywords, and ``**where`` into them, cost a dict more)
            task = ids_l[r]
            if kind == _START:
                add(when, task, "mapped", reason,
                    {"where": i + 1, "position": pos_l[r], "runtime_s": d_l[r]} if w_l is None
                    else {"where": i + 1, "worker": w_l[r], "position": pos_l[r],
                          "runtime_s": d_l[r]})
            elif kind == _COMPLETE:
                add(when, task, "completed", COMPLETED,
                    {"where": i + 1} if w_l is None else {"where": i + 1, "worker": w_l[r]})
            else:
                add(when, task, "killed", CHOPPED, elapsed_s=when - start_l[r],
                    runtime_s=d_l[r], **chop)
