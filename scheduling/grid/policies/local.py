"""Local scheduling on one node: FCFS with backfilling (grid spec §7) and the preemptive scheduler
of grid spec §5.3.

Both start every queued job that fits the free resources, scanning the queue in its order
(arrival for FCFS, descending priority for the preemptive one): the in-order phase and the
aggressive backfill of the spec are one scan, because the in-order phase is the scan's prefix.
The preemptive scheduler then lets queued jobs displace lower-priority running ones (preemptive
scheduler (grid spec §5.3)):

* for each queued job ``h`` in descending priority (the queue as it was when the phase began),
  the running jobs with a strictly lower priority are the candidates; none left means no later
  queued job can preempt either;
* if even all of them cannot free enough for ``h``, ``h`` waits and the next job is tried;
* otherwise the victims are the subset that frees just enough: least normalized surplus, then
  the lowest highest victim priority, then the fewest victims (``victims = "exact"``, over the
  ``MAX_EXACT`` lowest-priority candidates); or the lowest-priority candidates one by one until
  ``h`` fits (``"greedy"``, the option of preemptive scheduler (grid spec §5.3), and the fallback
  when the exact search is too small);
* victims rejoin the queue with their progress and wait; the surplus they free is used at the
  node's next invocation (the next tick at the latest).

Departures from the garbled pseudo-code (preemptive scheduler (grid spec §5.3)): the outer loop
condition ``P_jh > P_min(J_running) || P_jh != 0`` is read as "the queued job outranks the weakest
running job"; ``R_jh < R_f`` as ``<=``; ``R_f - R_ja`` as ``R_f - R_jh``; the inner search
(``FindJobstoPreempt`` / ``FindOptimal``) as the exact subset search above.
"""

from __future__ import annotations

from .base import GridScheduler

MAX_EXACT = 12  # candidates of the exact victim search (2^12 subsets at most)


def _backfill(sim, n: int, t: float) -> bool:
    q = sim.queue[n]
    if not q:
        return False
    fc = sim.free_c[n]
    if fc <= 0:
        return False
    fm, fd = sim.free_m[n], sim.free_d[n]
    rc, rm, rd = sim.rc, sim.rm, sim.rd
    chosen = []
    log = sim.decisions
    passed = []  # per chosen job, the first earlier queued job that did not fit (-1: none)
    blocked = -1
    for e in q:
        j = e[2]
        if rc[j] <= fc and rm[j] <= fm and rd[j] <= fd:
            chosen.append(j)
            if log is not None:
                passed.append(blocked)
            fc -= rc[j]
            fm -= rm[j]
            fd -= rd[j]
            if fc <= 0:
                break
        elif log is not None and blocked < 0:
            blocked = j
    for i, j in enumerate(chosen):
        sim.dequeue(j, n)
        if log is not None:
            explain_backfill(sim, j, n, t, passed[i])
        sim.start(j, n, t)
    return bool(chosen)


def explain_backfill(sim, j: int, n: int, t: float, passed: int) -> None:
    """Record why the scan started ``j``: first in queue order among those that fit, or past
    ``passed``, an earlier queued job that does not fit (backfilling here is aggressive: no
    reservation protects ``passed``)."""
    fits, past = _BACKFILL_REASONS[sim.preemptive]
    if passed < 0:
        sim.explain_start(j, n, t, fits)
    else:
        sim.explain_start(j, n, t, past, action="backfilled", passed=passed,
                          passed_cores=sim.rc[passed])


# (a start in queue order, a start past a job that does not fit), by whether queues are in
# priority order (the preemptive scheduler) or in arrival order
_BACKFILL_REASONS = {
    preemptive: (f"fits the node's free resources, in {order} order",
                 f"backfilled: fits the free resources left by jobs ahead in {order} order, "
                 "past an earlier queued job that does not fit")
    for preemptive, order in ((True, "priority"), (False, "arrival"))}


def fcfs_pass(sim, n: int, t: float) -> tuple[bool, bool]:
    """FCFS with aggressive backfill on the residual resources, no preemption (FCFS with backfilling
    (grid spec §7)): (acted, False)."""
    return _backfill(sim, n, t), False


def preemptive_pass(sim, n: int, t: float) -> tuple[bool, bool]:
    """One invocation of the preemptive scheduler (grid spec §5.3): (acted, preempted)."""
    started = _backfill(sim, n, t)
    q = sim.queue[n]
    run = sim.running[n]
    if not q or not run:
        return started, False
    alpha, beta = sim.alpha, sim.beta
    rho = sim.rho
    rc, rm, rd = sim.rc, sim.rm, sim.rd
    exact = sim.opts.victims == "exact"
    preempted = False
    bt = beta * t
    for e in list(q):
        ph = alpha * t - e[0]
        lower = [(rho[r] + bt, r) for r in run if rho[r] + bt < ph]
        if not lower:
            break
        h = e[2]
        fc, fm, fd = sim.free_c[n], sim.free_m[n], sim.free_d[n]
        if (rc[h] > fc + sum(rc[r] for _, r in lower)
                or rm[h] > fm + sum(rm[r] for _, r in lower)
                or rd[h] > fd + sum(rd[r] for _, r in lower)):
            continue
        lower.sort()
        victims = None
        if exact:
            victims = exact_victims(sim, n, h, lower[:MAX_EXACT])
        if victims is None:
            victims = greedy_victims(sim, n, h, lower)
        if sim.decisions is not None:
            explain_preemption(sim, h, n, t, victims, ph)
        for v in victims:
            sim.preempt(v, n, t)
        sim.dequeue(h, n)
        sim.start(h, n, t)
        preempted = True
    return started or preempted, preempted


def explain_preemption(sim, h: int, n: int, t: float, victims: list[int], ph: float) -> None:
    """Record the suspensions that make room for queued ``h`` (priority ``ph``) and its start
    (called before they happen, so the free resources are those it lacked)."""
    bt = sim.beta * t
    log = sim.decisions
    for v in victims:
        log.add(t, v, "preempted", "suspended for a queued job of higher priority; keeps its "
                "progress", where=sim.where[n], by=h, priority=sim.rho[v] + bt, by_priority=ph,
                cores=sim.rc[v])
    if not victims:  # an earlier suspension of this pass freed more than its job needed
        sim.explain_start(h, n, t, "fits what a suspension earlier in this scheduler run freed",
                          priority=ph)
        return
    sim.explain_start(h, n, t, "outranks lower-priority running jobs: suspended enough of them "
                      "to fit", priority=ph, victims=len(victims),
                      freed_cores=sum(sim.rc[v] for v in victims),
                      top_victim_priority=max(sim.rho[v] + bt for v in victims))


def greedy_victims(sim, n: int, h: int, lower: list) -> list[int]:
    """Lowest-priority running jobs one by one until ``h`` fits."""
    rc, rm, rd = sim.rc, sim.rm, sim.rd
    fc, fm, fd = sim.free_c[n], sim.free_m[n], sim.free_d[n]
    out = []
    for _, r in lower:
        if rc[h] <= fc and rm[h] <= fm and rd[h] <= fd:
            break
        out.append(r)
        fc += rc[r]
        fm += rm[r]
        fd += rd[r]
    return out


def exact_victims(sim, n: int, h: int, lower: list) -> list[int] | None:
    """The subset of ``lower`` (ascending priority) that frees just enough for ``h``: least
    normalized surplus, then lowest highest priority, then fewest jobs; None if none fits."""
    rc, rm, rd = sim.rc, sim.rm, sim.rd
    fc, fm, fd = sim.free_c[n], sim.free_m[n], sim.free_d[n]
    cc, cm, cd = sim.cap_c[n], sim.cap_m[n], sim.cap_d[n]
    need_c, need_m, need_d = rc[h] - fc, rm[h] - fm, rd[h] - fd
    k = len(lower)
    size = 1 << k
    sc = [0] * size
    sm = [0] * size
    sd = [0] * size
    jobs = [r for _, r in lower]
    best, best_key = 0, None
    for mask in range(1, size):
        low = mask & -mask
        i = low.bit_length() - 1
        prev = mask ^ low
        r = jobs[i]
        c = sc[mask] = sc[prev] + rc[r]
        mm = sm[mask] = sm[prev] + rm[r]
        d = sd[mask] = sd[prev] + rd[r]
        if c < need_c or mm < need_m or d < need_d:
            continue
        key = ((c - need_c) / cc + (mm - need_m) / cm + (d - need_d) / cd,
               lower[mask.bit_length() - 1][0], mask.bit_count())
        if best_key is None or key < best_key:
            best, best_key = mask, key
    if best_key is None:
        return None
    return [jobs[i] for i in range(k) if best >> i & 1]


class FcfsBackfill(GridScheduler):
    """FCFS with backfilling, the paper's baseline: queues in arrival order, never
    preempts."""

    # The pass itself rather than a method calling it: it runs at every node visit.
    local = staticmethod(fcfs_pass)


class PreemptiveBackfill(GridScheduler):
    """The paper's preemptive scheduler with backfilling: queues by priority, queued jobs
    may suspend lower-priority running ones."""

    preemptive = True
    local = staticmethod(preemptive_pass)
