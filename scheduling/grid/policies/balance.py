"""Queue balancing (grid spec §6.4; described in the paper as future work, not evaluated there).

A node's normalized load is ``L_i = max_k W_i^k`` with ``W_i^k`` the queued demand of resource
k over its capacity. Once per tick, after PUSH and PULL, each node in random order may move one
queued job into a neighbour's queue (the job waits there; W restarts):

* **PUSH**: a node whose load is a strict local maximum offers its queued jobs (every queued
  job lowers L_i, since all jobs use every resource) to neighbours that can run them at all,
  whose head job the job outranks (or whose queue is empty) and whose load after the move stays
  below the sender's present load;
* **PULL**: otherwise, a node with a non-zero load no higher than that of any neighbour of
  equal or lower capability pulls from its most loaded neighbour (if that one is more loaded) a
  job that outranks its own head job, again only if its new load stays below the sender's.

The pair with the smallest larger load of the two nodes after the move wins (ties: queue
order, then lower node id). The strict-improvement rule keeps jobs from bouncing back.
"""

from __future__ import annotations

INF = float("inf")


def load(sim, n: int, dc: int = 0, dm: int = 0, dd: int = 0) -> float:
    return max((sim.q_c[n] + dc) / sim.cap_c[n], (sim.q_m[n] + dm) / sim.cap_m[n],
               (sim.q_d[n] + dd) / sim.cap_d[n])


def _can_run(sim, j: int, n: int) -> bool:
    return (sim.rs[j] <= sim.speed[n] and sim.rc[j] <= sim.cap_c[n]
            and sim.rm[j] <= sim.cap_m[n] and sim.rd[j] <= sim.cap_d[n])


def _outranks(sim, kj: float, n: int) -> bool:
    qn = sim.queue[n]
    return not qn or -qn[0][0] < kj


def _best_move(sim, src: int, dsts, limit: float):
    """(score, job, dst) of the best move of a queued job of ``src`` to one of ``dsts``."""
    best = None
    for e in sim.queue[src]:
        j = e[2]
        if not sim.migratable(j):
            continue
        kj = -e[0]
        rc, rm, rd = sim.rc[j], sim.rm[j], sim.rd[j]
        after_src = load(sim, src, -rc, -rm, -rd)
        for n in dsts:
            if not _can_run(sim, j, n) or not _outranks(sim, kj, n):
                continue
            after_dst = load(sim, n, rc, rm, rd)
            if after_dst >= limit:
                continue
            score = max(after_src, after_dst)
            if best is None or score < best[0]:
                best = (score, j, n)
    return best


def balance(sim, i: int, k: int, t: float) -> None:
    nbrs = sim.nbrs[i]
    if not nbrs:
        return
    li = load(sim, i)
    loads = {n: load(sim, n) for n in nbrs}
    if sim.queue[i] and all(li > ln for ln in loads.values()):
        move = _best_move(sim, i, nbrs, li)
        if move is not None:
            sim.migrate(move[1], i, move[2], t, 2, start=False, why=_why(
                sim, "its node's queue load is a strict local maximum: moved to the neighbour "
                "that leaves the larger of the two loads smallest", move, li, loads[move[2]]))
        return
    if li <= 0:
        return
    weaker = [n for n in nbrs if sim.cap_c[n] <= sim.cap_c[i] and sim.speed[n] <= sim.speed[i]
              and sim.cap_m[n] <= sim.cap_m[i] and sim.cap_d[n] <= sim.cap_d[i]]
    if any(loads[n] < li for n in weaker):
        return
    src = max(nbrs, key=lambda n: (loads[n], -n))
    if loads[src] <= li:
        return
    move = _best_move(sim, src, (i,), loads[src])
    if move is not None:
        sim.migrate(move[1], src, i, t, 2, start=False, why=_why(
            sim, "pulled by a less-loaded neighbour from its most loaded neighbour: the move "
            "that leaves the larger of the two loads smallest", move, loads[src], li))


def _why(sim, reason: str, move: tuple, load_from: float, load_to: float):
    """A balancing move's numbers (only when the run explains itself): the two queue loads
    before, and the larger of the two after."""
    if sim.decisions is None:
        return None
    return {"reason": reason, "load_from": load_from, "load_to": load_to, "load_after": move[0]}
