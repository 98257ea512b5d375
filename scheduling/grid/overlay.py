"""The two neighbour graphs of the paper (system model (grid spec §2)): the 2-NN ring and the
CAN-like CAN'.

* **2-NN**: a ring over a random permutation of the nodes, so each node has exactly two
  neighbours of unrelated capability.
* **CAN'**: capability vectors (cores, speed, memory, disk) min-max normalized per dimension;
  each node is joined to its ``k`` = 4 nearest nodes in Euclidean distance (ties at random);
  the edges are made symmetric; then, farthest edges first, an edge is dropped while an end
  has more than ``max_degree`` = 4 neighbours and neither end would fall below
  ``min_degree`` = 3.

Graphs are lists of neighbour tuples (sorted by node id) and are symmetric. Nodes of equal
capability are at distance 0, so a large class of identical nodes forms its own cluster; the
component count is reported with the graph.
"""

from __future__ import annotations

import numpy as np

from .workload import Nodes


def ring(n: int, gen: np.random.Generator) -> list[tuple[int, ...]]:
    """Each node joined to its two ring neighbours in a random cyclic order."""
    if n <= 1:
        return [() for _ in range(n)]
    perm = gen.permutation(n)
    nbrs: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        a, b = int(perm[i]), int(perm[(i + 1) % n])
        if a != b:
            nbrs[a].add(b)
            nbrs[b].add(a)
    return [tuple(sorted(s)) for s in nbrs]


def capability_points(nodes: Nodes) -> np.ndarray:
    """(n x 4) capabilities scaled to [0, 1] per dimension (constant dimensions are 0)."""
    x = np.column_stack([nodes.cores, nodes.speed, nodes.mem, nodes.disk]).astype(float)
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (x - lo) / span


def can_like(nodes: Nodes, gen: np.random.Generator, k: int = 4, max_degree: int = 4,
             min_degree: int = 3) -> list[tuple[int, ...]]:
    n = len(nodes)
    if n <= 1:
        return [() for _ in range(n)]
    pts = capability_points(nodes)
    # Nodes of one capability class are interchangeable: work on distinct points and pick the
    # k nearest per node level by level (all points at one distance form a level).
    classes, member_of = np.unique(pts, axis=0, return_inverse=True)
    member_of = member_of.ravel()
    members = [np.flatnonzero(member_of == c) for c in range(classes.shape[0])]
    dist = np.sqrt(((classes[:, None, :] - classes[None, :, :]) ** 2).sum(axis=2))
    levels = []
    for c in range(classes.shape[0]):
        d = dist[c]
        order = np.argsort(d, kind="stable")
        values, starts = np.unique(d[order], return_index=True)
        bounds = list(starts) + [order.size]
        levels.append([(float(values[i]), order[bounds[i]:bounds[i + 1]])
                       for i in range(values.size)])
    edges: set[tuple[int, int]] = set()
    want = min(k, n - 1)
    for u in range(n):
        need = want
        for _, cls in levels[member_of[u]]:
            pool = np.concatenate([members[c] for c in cls])
            pool = pool[pool != u]
            if pool.size == 0:
                continue
            take = pool if pool.size <= need else gen.choice(pool, size=need, replace=False)
            for v in take.tolist():
                edges.add((min(u, v), max(u, v)))
            need -= int(take.size)
            if need == 0:
                break
    edge_list = sorted(edges)
    deg = np.zeros(n, dtype=np.int64)
    for a, b in edge_list:
        deg[a] += 1
        deg[b] += 1
    d = np.array([dist[member_of[a], member_of[b]] for a, b in edge_list])
    tie = gen.random(len(edge_list))
    order = np.lexsort((tie, -d))  # farthest first, ties at random
    keep = np.ones(len(edge_list), dtype=bool)
    for both in (True, False):
        for e in order.tolist():
            if not keep[e]:
                continue
            a, b = edge_list[e]
            over = (deg[a] > max_degree and deg[b] > max_degree) if both else (
                deg[a] > max_degree or deg[b] > max_degree)
            if over and deg[a] > min_degree and deg[b] > min_degree:
                keep[e] = False
                deg[a] -= 1
                deg[b] -= 1
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for e in np.flatnonzero(keep).tolist():
        a, b = edge_list[e]
        nbrs[a].append(b)
        nbrs[b].append(a)
    return [tuple(sorted(s)) for s in nbrs]


def components(nbrs: list[tuple[int, ...]]) -> int:
    """Connected components of a symmetric graph."""
    n = len(nbrs)
    seen = np.zeros(n, dtype=bool)
    count = 0
    for s in range(n):
        if seen[s]:
            continue
        count += 1
        stack = [s]
        seen[s] = True
        while stack:
            u = stack.pop()
            for v in nbrs[u]:
                if not seen[v]:
                    seen[v] = True
                    stack.append(v)
    return count


def describe(nbrs: list[tuple[int, ...]]) -> dict:
    deg = np.array([len(x) for x in nbrs], dtype=np.int64)
    hist = np.bincount(deg) if deg.size else np.zeros(1, dtype=np.int64)
    return {"degree_min": int(deg.min()) if deg.size else 0,
            "degree_max": int(deg.max()) if deg.size else 0,
            "degree_mean": float(deg.mean()) if deg.size else 0.0,
            "degree_histogram": hist.tolist(),
            "edges": int(deg.sum() // 2),
            "components": components(nbrs)}
