"""Why each task ran where and when it did: the decisions of a finished many-task run.

The schedule is computed in whole partitions at once (:mod:`.sim`), so the decisions are read
back from it afterwards, in the order they happened: every start (the partition, the worker,
the task's place in the queue and why it had that place), every task the tail-chopping
heuristic cancelled (the idle workers against the fraction ``f``, the progress lost) and every
completion. Task ids are the workload's indices, the ``id`` column of the task table.
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
           f: float) -> None:
    """Record the run's decisions in ``log`` (a ``simcore.decisions.DecisionLog``; times in
    seconds). ``runtimes`` are in the workload's order, ``order`` is the dispatch order (task
    ids), ``order_name`` the policy's order ("sorted" or "random")."""
    log.time_unit = "s"
    first = ORDER_REASONS.get(order_name, "the policy's order: the next queued task goes to "
                                          "the first idle worker")
    add = log.add
    stints = schedule.stints
    for i, st in enumerate(stints):
        part = st.part
        ids = order[part.queue]
        d = runtimes[ids]
        start = st.ready + part.start
        end = st.ready + part.end  # as the task table adds it up
        worker = workers(part.start, d, part.m)
        n = ids.size
        # Every event of the partition in time order: starts, completions and the chop.
        done = np.ones(n, dtype=bool) if st.cancelled is None else ~st.cancelled
        pos_done = np.flatnonzero(done)
        t = np.concatenate([start, end[pos_done]])
        what = np.concatenate([np.full(n, _START), np.full(pos_done.size, _COMPLETE)])
        pos = np.concatenate([np.arange(n), pos_done])
        if st.cancelled is not None:
            pos_cut = np.flatnonzero(st.cancelled)
            t = np.concatenate([t, np.full(pos_cut.size, st.release)])
            what = np.concatenate([what, np.full(pos_cut.size, _KILL)])
            pos = np.concatenate([pos, pos_cut])
            running = int(pos_cut.size)
            chop = {"where": i + 1, "workers": part.m, "idle": part.m - running,
                    "idle_fraction": (part.m - running) / part.m, "f": f,
                    "next_workers": stints[i + 1].m}
        seq = np.lexsort((pos, what, t))
        reason = first if i == 0 else REQUEUED
        ids_l, t_l, what_l, pos_l = (ids.tolist(), t[seq].tolist(), what[seq].tolist(),
                                     pos[seq].tolist())
        start_l, d_l, w_l = start.tolist(), d.tolist(), worker.tolist()
        for when, kind, p in zip(t_l, what_l, pos_l, strict=True):
            task = ids_l[p]
            if kind == _START:
                add(when, task, "mapped", reason, where=i + 1, worker=w_l[p], position=p,
                    runtime_s=d_l[p])
            elif kind == _COMPLETE:
                add(when, task, "completed", COMPLETED, where=i + 1, worker=w_l[p])
            else:
                add(when, task, "killed", CHOPPED, elapsed_s=when - start_l[p],
                    runtime_s=d_l[p], **chop)
