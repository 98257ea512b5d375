"""Hand-built grid workloads, a traced run, the invariant checks and a reference SRPT."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from scheduling.grid.policies import GridScheduler, PreemptiveBackfill
from scheduling.grid.sim import GridSim, Options
from scheduling.grid.workload import MIB, Jobs, Nodes, Workload, eligible


def workload(nodes, jobs, candidates=None) -> Workload:
    """``nodes``: (cores, speed, memory GB, disk GB); ``jobs``: (submit, canonical work, cores,
    memory GB, disk GB, min speed), in submission order. Candidates default to every eligible
    node, by id."""
    n = np.asarray(nodes, dtype=float).reshape(-1, 4)
    j = np.asarray(jobs, dtype=float).reshape(-1, 6)
    assert np.all(np.diff(j[:, 0]) >= 0), "jobs must be given in submission order"
    nd = Nodes(cores=n[:, 0].astype(np.int64), speed=n[:, 1],
               mem=np.rint(n[:, 2] * MIB).astype(np.int64),
               disk=np.rint(n[:, 3] * MIB).astype(np.int64))
    jb = Jobs(cores=j[:, 2].astype(np.int64), min_speed=j[:, 5],
              mem=np.rint(j[:, 3] * MIB).astype(np.int64),
              disk=np.rint(j[:, 4] * MIB).astype(np.int64), work=j[:, 1], submit=j[:, 0])
    if candidates is None:
        ok = eligible(nd, jb.cores, jb.min_speed, jb.mem, jb.disk)
        width = max(1, int(ok.sum(axis=1).max()) if len(jb) else 1)
        candidates = np.full((len(jb), width), -1, dtype=np.int64)
        for i in range(len(jb)):
            row = np.flatnonzero(ok[i])
            candidates[i, :row.size] = row
    jb.candidates = np.asarray(candidates, dtype=np.int64)
    return Workload(nd, jb, {})


def run(wl: Workload, scheduler: GridScheduler | None = None, neighbours=None, seed: int = 0,
        naive: bool = False, **opts) -> GridSim:
    sim = GridSim(wl, scheduler or PreemptiveBackfill(), Options(**opts), seed,
                  neighbours=neighbours, naive=naive, trace=True)
    sim.run()
    return sim


def check_invariants(sim: GridSim, wl: Workload, migrate_suspended: bool = False) -> None:
    """Implementation notes (grid spec §11) invariants on a traced run; raises AssertionError naming
    the broken one."""
    nodes, jobs = wl.nodes, wl.jobs
    segs = sim.log.segments
    m = len(jobs)
    # Every job completes once, after its submission, with exactly its work done.
    assert sim.done == m and all(s == 3 for s in sim.state)
    done = defaultdict(float)
    by_job = defaultdict(list)
    for j, n, a, b in segs:
        assert b >= a >= jobs.submit[j] - 1e-9, (j, a, b)
        done[j] += (b - a) * nodes.speed[n]
        by_job[j].append((a, b, n))
    for j in range(m):
        assert abs(done[j] - jobs.work[j]) <= 1e-6 * max(1.0, jobs.work[j]), j
        assert abs(max(b for _, b, _ in by_job[j]) - sim.end[j]) < 1e-9
    # A job runs only on a node that satisfies every requirement (system model (grid spec §2)).
    for j, n, _, _ in segs:
        assert nodes.cores[n] >= jobs.cores[j] and nodes.speed[n] >= jobs.min_speed[j]
        assert nodes.mem[n] >= jobs.mem[j] and nodes.disk[n] >= jobs.disk[j], (j, n)
    # Per-node use never exceeds capacity, for any resource, at any instant.
    events = defaultdict(list)
    for j, n, a, b in segs:
        if b > a:
            events[n].append((a, 1, j))
            events[n].append((b, 0, j))  # ends before starts at the same instant
    for n, evs in events.items():
        used = np.zeros(3, dtype=np.int64)
        cap = np.array([nodes.cores[n], nodes.mem[n], nodes.disk[n]])
        for _, start, j in sorted(evs):
            req = np.array([jobs.cores[j], jobs.mem[j], jobs.disk[j]])
            used += req if start else -req
            assert np.all(used <= cap), (n, used, cap)
    # Only waiting jobs migrate; suspended ones only when allowed; W restarts at the new node.
    last_arrival = {j: float(jobs.submit[j]) for j in range(m)}
    moves = list(zip(sim.log.mig_t, sim.log.mig_job, sim.log.mig_from, sim.log.mig_to,
                     strict=True))
    for i, (t, j, src, dst) in enumerate(moves):
        # A job may move twice in one tick (queued at a receiver, then pulled on): only its
        # last move of the instant says where it may start.
        last = not any(t2 == t and j2 == j for t2, j2, _, _ in moves[i + 1:])
        for a, b, n in by_job[j]:
            if a < t:
                assert b <= t, f"job {j} migrated at {t} while running on {n}"
            elif a == t and b > t and last:
                assert n == dst, f"job {j} started on {n} as it migrated to {dst}"
        if not migrate_suspended:
            assert all(a >= t for a, _, _ in by_job[j]), f"suspended job {j} migrated"
        assert src != dst
        last_arrival[j] = t
    for j in range(m):
        final = [(a, b) for a, b, n in by_job[j]
                 if n == sim.node[j] and a >= last_arrival[j]]  # since its last arrival
        ran_here = sum(b - a for a, b in final)
        expect = sim.end[j] - last_arrival[j] - ran_here
        assert abs(sim.wf[j] - expect) < 1e-6, (j, sim.wf[j], expect)
        assert sim.wf[j] >= -1e-9


def srpt_one_core(submit, work):
    """Preemptive shortest remaining processing time on one core (ties: earlier arrival, then
    lower id; a running job is displaced only by a strictly shorter one; the completions and
    arrivals of one instant all take effect before the decision). Returns (end, wait,
    preemptions)."""
    m = len(submit)
    order = sorted(range(m), key=lambda j: (submit[j], j))
    rem = list(map(float, work))
    end = [None] * m
    waiting = []
    run, since = None, 0.0
    preemptions = 0
    i = 0
    while i < m or waiting or run is not None:
        t_done = since + rem[run] if run is not None else float("inf")
        t_arr = submit[order[i]] if i < m else float("inf")
        t = min(t_done, t_arr)
        if run is not None:
            rem[run] -= t - since
        since = t
        if t_done == t:
            rem[run] = 0.0
            end[run] = t
            run = None
        while i < m and submit[order[i]] == t:
            waiting.append(order[i])
            i += 1
        if waiting:
            best = min(waiting, key=lambda j: (rem[j], submit[j], j))
            if run is None:
                waiting.remove(best)
                run = best
            elif rem[best] < rem[run]:
                waiting.remove(best)
                waiting.append(run)
                run = best
                preemptions += 1
    wait = [end[j] - submit[j] - work[j] for j in range(m)]
    return end, wait, preemptions
