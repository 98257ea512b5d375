"""Literal, slow reference schedulers for the replay tests.

Written straight from the policy definitions in docs/replay.md, with none of the engine's
indexing, caching or skipping: every scheduling pass looks at every waiting job, free nodes
are recomputed from scratch at every breakpoint, and conservative compression re-places every
waiting job. Event handling follows the same documented rule as the engine: at each instant,
completions, then arrivals, then one scheduling pass; a zero-length job ends in a further
round at the same instant.

Each function takes jobs as (submit, run, estimate, nodes) in queue order and returns
(starts, first_reservations).
"""

from __future__ import annotations

import math


def _events(jobs, nodes, schedule):
    J = len(jobs)
    start = [None] * J
    running = {}  # job -> actual end
    state = {"free": nodes, "waiting": [], "res": [math.nan] * J}
    i = 0
    while True:
        nxt = [jobs[i][0]] if i < J else []
        nxt += list(running.values())
        nxt += [r for r in state.get("wake", [])]
        if not nxt:
            break
        t = min(nxt)
        ended = sorted(j for j, end in running.items() if end <= t)
        for j in ended:
            del running[j]
            state["free"] += jobs[j][3]
        arrived = []
        while i < J and jobs[i][0] <= t:
            state["waiting"].append(i)
            arrived.append(i)
            i += 1
        for j in schedule(t, ended, arrived, state, running, start):
            assert start[j] is None
            start[j] = t
            running[j] = t + jobs[j][1]
            state["free"] -= jobs[j][3]
            assert state["free"] >= 0
            state["waiting"].remove(j)
    assert all(s is not None for s in start)
    return start, state["res"]


def fcfs(jobs, nodes):
    def schedule(t, ended, arrived, state, running, start):
        free = state["free"]
        out = []
        for j in state["waiting"]:
            if jobs[j][3] > free:
                break
            out.append(j)
            free -= jobs[j][3]
        return out
    return _events(jobs, nodes, schedule)


def easy(jobs, nodes):
    def schedule(t, ended, arrived, state, running, start):
        free = state["free"]
        waiting = list(state["waiting"])
        out = []
        est_end = {j: start[j] + jobs[j][2] for j in running}
        while waiting and jobs[waiting[0]][3] <= free:
            j = waiting.pop(0)
            out.append(j)
            free -= jobs[j][3]
            est_end[j] = t + jobs[j][2]
        if not waiting:
            return out
        head = waiting[0]
        need = jobs[head][3]
        # Shadow: the earliest estimated end at which the head fits.
        shadow = min(e for e in est_end.values()
                     if free + sum(jobs[k][3] for k, f in est_end.items() if f <= e) >= need)
        extra = free + sum(jobs[k][3] for k, f in est_end.items() if f <= shadow) - need
        if math.isnan(state["res"][head]):
            state["res"][head] = shadow
        for j in waiting[1:]:
            n = jobs[j][3]
            if n > free:
                continue
            if t + jobs[j][2] <= shadow:
                pass
            elif n <= extra:
                extra -= n
            else:
                continue
            out.append(j)
            free -= n
        return out
    return _events(jobs, nodes, schedule)


def _free_at(x, nodes, slots):
    return nodes - sum(n for (s, e, n) in slots if s <= x < e)


def _fits(s, n, d, nodes, slots):
    points = {s} | {p for (a, b, _) in slots for p in (a, b) if s < p < s + d}
    return all(_free_at(p, nodes, slots) >= n for p in points)


def _earliest(t, n, d, nodes, slots):
    for s in sorted({t} | {b for (_, b, _) in slots if b > t}):
        if _fits(s, n, d, nodes, slots):
            return s
    raise AssertionError("no fit")


def conservative(jobs, nodes):
    est_end = {}
    slot = {}  # waiting job -> its reservation slot (start, end, n)

    def schedule(t, ended, arrived, state, running, start):
        # Profile: running jobs until their estimated end, waiting jobs at their reservation.
        def slots(exclude=None):
            out = [(start[j], est_end[j], jobs[j][3]) for j in running if est_end[j] > t]
            out += [s for k, s in slot.items() if k != exclude]
            return [(max(a, t), b, n) for (a, b, n) in out if b > t]

        if any(est_end[j] > t for j in ended):
            for j in list(state["waiting"]):
                if j not in slot:
                    continue
                old = slot[j][0]
                s = _earliest(t, jobs[j][3], jobs[j][2], nodes, slots(exclude=j))
                assert s <= old
                slot[j] = (s, s + jobs[j][2], jobs[j][3])
        for j in arrived:
            s = _earliest(t, jobs[j][3], jobs[j][2], nodes, slots())
            slot[j] = (s, s + jobs[j][2], jobs[j][3])
            state["res"][j] = s
        out = [j for j in state["waiting"] if slot[j][0] <= t]
        for j in out:
            assert slot[j][0] == t
            del slot[j]
            est_end[j] = t + jobs[j][2]
        state["wake"] = [s for (s, _, _) in slot.values()]
        return out
    return _events(jobs, nodes, schedule)
