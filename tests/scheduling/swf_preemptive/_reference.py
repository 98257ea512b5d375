"""A literal, slow Maui scheduler with preemption-based backfill, written straight from the spec
to check the engine's fast one (``scheduling.swf_preemptive.sim``) against.

Everything is recomputed from scratch at every iteration: the queue is re-sorted, the free
processors recounted, the shadow time rebuilt from the running jobs; iterations run at every
submit and completion *and* every ``period`` seconds (the engine skips those, claiming they are
no-ops). No incremental state, no numpy.
"""

from __future__ import annotations

import math

from simcore.sampling import rng

HIGH, MEDIUM, LOW = 0, 1, 2


def may_preempt(h_class, v_class, v_backfilled, prioritized, within_class):
    """Spec section 4.4 (prioritized) and the non-prioritized default (section 4.1)."""
    if not prioritized:
        return v_backfilled
    if h_class == HIGH and v_class == LOW:
        return True
    if h_class == HIGH and v_class == MEDIUM:
        return v_backfilled
    return within_class and h_class == v_class and v_backfilled


def victim_key(policy, v, t, start, limit, nodes, pos, rho_v, product):
    if policy == "duration-consumed":
        return (t - start, -pos)
    if policy == "duration-remaining":
        return (-(start + limit - t), -pos)
    if policy == "wcduration":
        return (-limit, -pos)
    if policy == "wcduration-percentresusage":
        return (-(nodes * limit), -pos) if product else (-nodes, -limit, -pos)
    if policy == "scaled-remaining":
        return (-(start + limit * rho_v - t), -pos)
    if policy == "min-work":
        return (nodes * (t - start), -pos)
    raise ValueError(policy)


def simulate(submit, run, limit, nodes, rank, user, N, policy, *, preemption=True,
             preemptible="backfilled", scope="preemptible", history=False, rho_p80=False,
             within_class=False, trigger="head",
             prioritized=False, product=False, seed=0, period=60.0):
    """Returns (final start per job, [(job, start, kill time, killer)])."""
    J = len(submit)
    preempt = preemption and policy != "first-fit"
    order = sorted(range(J), key=lambda j: (rank[j], j))
    pos = {j: k for k, j in enumerate(order)}
    victims_rng = rng(seed, "swf-preemptive/victims")
    start = [None] * J
    end = [None] * J
    mode = [None] * J
    waiting = set()
    running = set()
    kills = []
    ratios = {}
    arrived = 0
    done = 0

    def free():
        return N - sum(nodes[j] for j in running)

    def rho(u):
        r = ratios.get(u)
        if not r:
            return 1.0
        if rho_p80:
            return sorted(r)[math.ceil(0.8 * len(r)) - 1]
        return sum(r) / len(r)

    def backfilled(j):
        return mode[j] == 2 or (mode[j] == 1 and preemptible == "backfilled")

    def begin(j, t, m):
        waiting.discard(j)
        running.add(j)
        start[j], end[j], mode[j] = t, t + run[j], m

    def preempt_for(h, t, pool, m):
        if policy == "random":
            ordered = [pool[i] for i in victims_rng.permutation(len(pool)).tolist()]
        else:
            ordered = sorted(pool, key=lambda v: victim_key(
                policy, v, t, start[v], limit[v], nodes[v], pos[v], rho(user[v]), product))
        chosen = []
        for v in ordered:
            if free() + sum(nodes[c] for c in chosen) >= nodes[h]:
                break
            chosen.append(v)
        for v in list(reversed(chosen)):
            rest = [c for c in chosen if c != v]
            if free() + sum(nodes[c] for c in rest) >= nodes[h]:
                chosen = rest
        for v in chosen:
            kills.append((v, start[v], t, h))
            running.discard(v)
            waiting.add(v)
            start[v] = end[v] = mode[v] = None
        begin(h, t, m)

    def iteration(t):
        while True:
            queue = sorted(waiting, key=pos.get)
            if not queue:
                return
            h = queue[0]
            if nodes[h] <= free():
                begin(h, t, 0)
                continue
            by_end = sorted(running, key=lambda j: (start[j] + limit[j], j))
            pool = [v for v in by_end if preempt and may_preempt(
                rank[h], rank[v], backfilled(v), prioritized, within_class)]
            if preempt and free() < nodes[h] <= free() + sum(nodes[v] for v in pool):
                preempt_for(h, t, pool, 0)
                continue
            break
        # Depth-1 reservation for h.
        need = nodes[h] - free()
        got, shadow = 0, math.inf
        for j in sorted(running, key=lambda j: (start[j] + limit[j], j)):
            e = start[j] + limit[j]
            if e > shadow:
                break
            got += nodes[j]
            if got >= need and shadow == math.inf:
                shadow = e
        extra = got - need
        for j in sorted(waiting - {h}, key=pos.get):  # First Fit backfill
            time_ok = t + limit[j] <= shadow
            if not time_ok and nodes[j] > extra:
                continue
            if nodes[j] <= free():
                if not time_ok:
                    extra -= nodes[j]
                begin(j, t, 1)
            elif preempt and trigger == "queue":  # preempt jobs ranked below j
                by_end = sorted(running, key=lambda v: (start[v] + limit[v], v))
                pool = [v for v in by_end if pos[v] > pos[j] and may_preempt(
                    rank[j], rank[v], backfilled(v), prioritized, within_class)]
                if nodes[j] <= free() + sum(nodes[v] for v in pool):
                    preempt_for(j, t, pool, 1)
                    if not time_ok:
                        extra -= nodes[j]
        if not preempt:
            return
        for j in sorted(waiting - {h}, key=pos.get):  # preemptive backfill
            if nodes[j] > free():
                continue
            if scope == "preemptible" and not may_preempt(rank[h], rank[j], True, prioritized,
                                                          within_class):
                continue
            if history and t + limit[j] * rho(user[j]) > shadow:
                continue
            begin(j, t, 2)

    t = submit[0] if J else 0.0
    next_tick = (math.floor(t / period) + 1) * period
    while done < J:
        events = [end[j] for j in running] + ([submit[arrived]] if arrived < J else [])
        t = min(min(events), next_tick)
        for j in sorted(running, key=lambda j: (end[j], j)):
            if end[j] <= t:
                running.discard(j)
                done += 1
                ratios.setdefault(user[j], []).append(run[j] / limit[j])
        while arrived < J and submit[arrived] <= t:
            waiting.add(arrived)
            arrived += 1
        iteration(t)
        if t >= next_tick:
            next_tick += period
    return start, kills
