"""A literal, slow simulation of tail-chopping (trailing-tasks spec §6) (the paper's loop), event by
event with a heap, to check the vectorized engine against. Simultaneous completions are applied
together before the chop test, as the engine documents."""

from __future__ import annotations

import heapq
from collections import deque


def choose_size(count, r, menu):
    best = None
    for size in menu:
        if count / size >= r:
            best = size
    return best if best is not None else menu[0]


def simulate(d, menu, r, f, startup=170.0, teardown=2.4, teardown_first=True, requeue=0.0,
             workers=None):
    """``d``: run times in dispatch order. Returns a dict of the spec's observations."""
    n = len(d)
    pending = list(range(n))
    t = 0.0
    first = True
    alloc = active = 0.0
    parts = []
    final_end = [None] * n
    restarts = [0] * n
    while pending:
        m = workers if (first and workers) else choose_size(len(pending), r, menu)
        if first:
            ready = t + startup
        else:
            ready = t + (teardown if teardown_first else 0.0) + requeue + startup
        first = False
        queue = deque(pending)
        pending = []
        running = {}  # task -> start, in dispatch order
        events = []

        def start(task, now, running=running, events=events):
            running[task] = now
            heapq.heappush(events, (now + d[task], task))

        for _ in range(min(m, len(queue))):
            start(queue.popleft(), ready)
        chopped = False
        last = ready
        while events:
            now = events[0][0]
            done = []
            while events and events[0][0] == now:
                done.append(heapq.heappop(events)[1])
            for task in done:
                active += d[task]
                del running[task]
                final_end[task] = now
            last = now
            for _ in done:
                if queue:
                    start(queue.popleft(), now)
            if not queue:
                idle = m - len(running)
                if (f < 1 and running and idle / m > f
                        and choose_size(len(running), r, menu) < m):
                    for task, s in running.items():
                        active += now - s
                        pending.append(task)
                        restarts[task] += 1
                    alloc += m * (now - ready)
                    parts.append((m, ready, now, True))
                    t = now
                    chopped = True
                    break
        if not chopped:
            alloc += m * (last - ready)
            parts.append((m, ready, last, False))
            t = last
    useful = float(sum(d))
    return {"tts_s": t, "alloc": alloc, "active": active, "useful": useful,
            "wasted": active - useful, "idle": alloc - active, "partitions": parts,
            "utilization": useful / alloc if alloc > 0 else 0.0, "final_end": final_end,
            "restarts": restarts}


def greedy_starts(d, m):
    """Start times of greedy list scheduling, one heap operation per task."""
    free = [0.0] * m
    out = []
    for x in d:
        s = heapq.heappop(free)
        out.append(s)
        heapq.heappush(free, s + x)
    return out
