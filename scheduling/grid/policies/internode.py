"""Internode scheduling: PUSH and PULL of waiting jobs between neighbours (grid spec §6).

Both move a waiting job to a neighbour that can run it *now* and start it there; running jobs
never move. Candidates are ranked by the multi-resource balance objective of grid spec §6.1 on the
receiving node ``n`` with K = 3 consumable resources (cores, memory, disk):

    a_k = S_n^k + R_j^k        (utilization after the move; R normalized by n's capacity)
    BM  = max_k a_k / sum_k a_k,   FM = 1 - sum_k a_k / K
    f_PUSH = BM FM / speed_n,      f_PULL = BM FM          (both minimized)

Priorities of queued jobs are compared through ``kappa`` (``P = kappa + alpha t`` for every
queued job, so the comparison does not depend on t). Neighbour state is read directly: no
message latency, no staleness, and the confirming handshake always succeeds (PULL (grid spec §6.3)).
"""

from __future__ import annotations

INF = float("inf")


def objective(sim, j: int, n: int) -> float:
    """BM x FM of job ``j`` on node ``n`` (balance objective (grid spec §6.1)); the job must fit
    ``n`` now."""
    cc, cm, cd = sim.cap_c[n], sim.cap_m[n], sim.cap_d[n]
    a = (cc - sim.free_c[n] + sim.rc[j]) / cc
    b = (cm - sim.free_m[n] + sim.rm[j]) / cm
    c = (cd - sim.free_d[n] + sim.rd[j]) / cd
    s = a + b + c
    return max(a, b, c) / s * (1.0 - s / 3.0)


def fits_now(sim, j: int, n: int) -> bool:
    return (sim.rs[j] <= sim.speed[n] and sim.rc[j] <= sim.free_c[n]
            and sim.rm[j] <= sim.free_m[n] and sim.rd[j] <= sim.free_d[n])


def push(sim, s: int, k: int, t: float) -> None:
    """Sender-initiated (PUSH (grid spec §6.2)): the blocked head job of ``s`` goes to the neighbour
    that can start it now, whose head job it outranks, with the least f_PUSH (ties: lower id)."""
    q = sim.queue[s]
    if not q:
        return
    e = q[0]
    h = e[2]
    if not sim.migratable(h):
        return
    kh = -e[0]
    queue = sim.queue
    best, best_f = -1, INF
    explain = sim.decisions is not None
    second, second_f, options = -1, INF, 0  # the runner-up, only counted when explaining
    for n in sim.nbrs[s]:
        qn = queue[n]
        if qn and -qn[0][0] >= kh:
            continue
        if not fits_now(sim, h, n):
            continue
        f = objective(sim, h, n) / sim.speed[n]
        if f < best_f:
            if explain:
                second, second_f = best, best_f
            best, best_f = n, f
        elif explain and f < second_f:
            second, second_f = n, f
        if explain:
            options += 1
    if best >= 0:
        why = None
        if explain:
            why = {"reason": "blocked at the head of its node's queue: pushed to the neighbour "
                             "that can start it now with the least f_PUSH",
                   "cores": sim.rc[h], "free_cores_from": sim.free_c[s], "f_push": best_f,
                   "neighbours_able": options, **_runner_up("node", second, second_f)}
        sim.migrate(h, s, best, t, 0, start=True, why=why)


def _runner_up(what: str, who: int, f: float) -> dict:
    return {} if who < 0 else {f"runner_up_{what}": who, "runner_up_f": f}


def pull(sim, r: int, k: int, t: float) -> None:
    """Receiver-initiated (PULL (grid spec §6.3)): a node with free resources asks the neighbours
    whose head job outranks its own, closest priority first, then the longest queue (then lower
    id), skipping those it contacted within ``pull_recent`` intervals; the first that holds a
    job ``r`` can start now gives the one with the least f_PULL (ties: queue order).

    A node with an empty queue ranks every neighbour's head job as infinitely far above its
    own, so only the queue length orders them.
    """
    recent = sim.opts.pull_recent
    stamps = sim.stamps[r]
    last = sim.pull_last[r]
    if last is not None:
        # Visits skipped since the last (failed) one would have failed the same way and
        # contacted every sender whose last contact was more than ``recent`` ticks before.
        lk, senders = last
        if k - 1 > lk:
            period = recent + 1
            for n in senders:
                s0 = stamps[n]
                if k - 1 >= s0 + period:
                    stamps[n] = s0 + period * ((k - 1 - s0) // period)
        sim.pull_last[r] = None
    if (sim.free_c[r] < sim.min_c or sim.free_m[r] < sim.min_m
            or sim.free_d[r] < sim.min_d):
        return
    queue = sim.queue
    q = queue[r]
    own = -q[0][0] if q else None
    order = []
    for n in sim.nbrs[r]:
        qn = queue[n]
        if not qn:
            continue
        kn = -qn[0][0]
        if own is None:
            order.append((0.0, -len(qn), n))
        elif kn > own:
            order.append((kn - own, -len(qn), n))
    if not order:
        return
    order.sort()
    wake = None
    for gap, _, n in order:
        s0 = stamps.get(n)
        if s0 is not None and k - s0 <= recent:
            # Skipped for now; if it would give a job, come back when it may be asked again
            # (nothing else can change the outcome before then without a visit anyway).
            if (wake is None or s0 + recent + 1 < wake) and _pick(sim, n, r) >= 0:
                wake = s0 + recent + 1
            continue
        stamps[n] = k
        best = _pick(sim, n, r)
        if best >= 0:
            why = None
            if sim.decisions is not None:
                f, second, second_f = _pick_ranked(sim, n, r)
                why = {"reason": "pulled by a neighbour with free resources: of the queued jobs "
                                 "it can start now, the one with the least f_PULL",
                       "free_cores_to": sim.free_c[r], "cores": sim.rc[best], "f_pull": f,
                       **({} if own is None else {"priority_gap": gap}),
                       **_runner_up("job", second, second_f)}
            sim.migrate(best, n, r, t, 1, start=True, why=why)
            return
    sim.pull_last[r] = (k, [n for _, _, n in order])
    if wake is not None:
        sim.wake(r, wake)


def _pick(sim, n: int, r: int) -> int:
    """The queued job of ``n`` that ``r`` can start now with the least f_PULL, or -1."""
    best, best_f = -1, INF
    for e in sim.queue[n]:
        j = e[2]
        if not sim.migratable(j) or not fits_now(sim, j, r):
            continue
        f = objective(sim, j, r)
        if f < best_f:
            best, best_f = j, f
    return best


def _pick_ranked(sim, n: int, r: int) -> tuple[float, int, float]:
    """For a decision's numbers: f_PULL of ``_pick``'s job, and the runner-up job and its
    f_PULL (-1 and inf when there is none), in ``_pick``'s order."""
    ranked = []
    for i, e in enumerate(sim.queue[n]):
        j = e[2]
        if sim.migratable(j) and fits_now(sim, j, r):
            ranked.append((objective(sim, j, r), i, j))
    ranked.sort()
    second = ranked[1] if len(ranked) > 1 else (INF, 0, -1)
    return ranked[0][0], second[2], second[0]
