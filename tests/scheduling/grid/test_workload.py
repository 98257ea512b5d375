"""Nodes, jobs, arrivals and matchmaking samples (system model (grid spec §2), workload
(grid spec §3)) and the two overlays."""

import numpy as np
import pytest

from scheduling.engine import scenario
from scheduling.grid import overlay as ov
from scheduling.grid.workload import MIB, eligible, generate
from simcore.sampling import rng


@pytest.fixture(scope="module")
def big():
    cfg = scenario("grid", {"nodes": {"n_nodes": 20000}, "jobs": {"n_jobs": 20000,
                                                                  "iat_s": 1.5}}).params
    return cfg, generate(cfg, 11)


def _freq(values, table):
    return np.array([np.mean(values == v) for v in table])


def test_node_capabilities_follow_the_table(big):
    cfg, wl = big
    n = wl.nodes
    assert np.allclose(_freq(n.cores, cfg.nodes.cores), cfg.nodes.cores_p, atol=0.015)
    assert np.allclose(_freq(n.speed, cfg.nodes.speed), cfg.nodes.speed_p, atol=0.015)
    assert np.allclose(_freq(n.mem, np.rint(np.array(cfg.nodes.memory_gb) * MIB)),
                       cfg.nodes.memory_p, atol=0.015)
    assert np.allclose(_freq(n.disk, np.rint(np.array(cfg.nodes.disk_gb) * MIB)),
                       cfg.nodes.disk_p, atol=0.015)


def test_jobs_follow_the_table_and_the_spec_load_check(big):
    cfg, wl = big
    j = wl.jobs
    assert np.allclose(_freq(j.cores, cfg.jobs.cores), cfg.jobs.cores_p, atol=0.015)
    assert np.allclose(_freq(j.min_speed, cfg.jobs.min_speed), cfg.jobs.min_speed_p, atol=0.015)
    assert np.allclose(_freq(j.mem, np.rint(np.array(cfg.jobs.memory_gb) * MIB)),
                       cfg.jobs.memory_p, atol=0.015)
    # Uniform(0.5 T, 1.5 T) on the canonical node; Poisson arrivals at the mean IAT.
    assert j.work.min() >= 1800 and j.work.max() <= 5400
    assert abs(j.work.mean() - 3600) < 30
    gaps = np.diff(np.concatenate([[0.0], j.submit]))
    assert np.all(gaps >= 0) and abs(gaps.mean() - 1.5) < 0.05
    assert abs(np.std(gaps) / np.mean(gaps) - 1.0) < 0.05  # exponential: COV 1
    # The spec's check (workload (grid spec §3)): sum of cores ~ 3.1 per node, E[cores_job] = 1.8,
    # so at 1,000 nodes and IAT 1.5 s the offered load is about 1.39 (ignoring speed).
    assert abs(wl.info["total_cores"] / 20000 - 3.1) < 0.05
    assert abs(wl.info["mean_job_cores"] - 1.8) < 0.05
    assert abs(wl.info["offered_load"] * 20 - 1.39) < 0.06  # 20x the nodes, same arrivals


def test_every_job_has_a_node_and_unsatisfiable_classes_are_never_drawn():
    # Nodes of at most 2 cores and speed 1: the 4- and 8-core and speed-1.5 jobs cannot run.
    cfg = scenario("grid", {"nodes": {"n_nodes": 50, "cores": [1, 2], "cores_p": [0.5, 0.5],
                                      "speed": [1.0], "speed_p": [1.0]},
                            "jobs": {"n_jobs": 2000}}).params
    wl = generate(cfg, 3)
    ok = eligible(wl.nodes, wl.jobs.cores, wl.jobs.min_speed, wl.jobs.mem, wl.jobs.disk)
    assert ok.any(axis=1).all()
    assert set(np.unique(wl.jobs.cores)) <= {1, 2}
    assert set(np.unique(wl.jobs.min_speed)) <= {0.0, 1.0}
    # Conditioning keeps the table's proportions among what can run (0.70 : 0.15).
    assert abs(np.mean(wl.jobs.cores == 1) - 0.70 / 0.85) < 0.03
    assert 0 < wl.info["satisfiable_mass"] < 1


def test_matchmaking_samples_distinct_eligible_nodes_in_random_order(big):
    cfg, wl = big
    j, n = wl.jobs, wl.nodes
    cand = j.candidates
    assert cand.shape == (len(j), cfg.matchmaking.sample)
    for i in range(0, len(j), 97):
        row = cand[i][cand[i] >= 0]
        ok = np.flatnonzero(eligible(n, j.cores[i:i + 1], j.min_speed[i:i + 1], j.mem[i:i + 1],
                                     j.disk[i:i + 1])[0])
        assert len(set(row.tolist())) == row.size == min(8, ok.size)
        assert set(row.tolist()) <= set(ok.tolist())
    # Small eligible sets are taken whole.
    few = np.flatnonzero((cand < 0).any(axis=1))
    for i in few[:20]:
        ok = eligible(n, j.cores[i:i + 1], j.min_speed[i:i + 1], j.mem[i:i + 1],
                      j.disk[i:i + 1])[0]
        assert np.count_nonzero(cand[i] >= 0) == ok.sum()


def test_same_seed_same_workload_other_seed_other_workload():
    cfg = scenario("grid", {"nodes": {"n_nodes": 200}, "jobs": {"n_jobs": 300}}).params
    a, b, c = generate(cfg, 5), generate(cfg, 5), generate(cfg, 6)
    assert np.array_equal(a.jobs.submit, b.jobs.submit)
    assert np.array_equal(a.jobs.candidates, b.jobs.candidates)
    assert np.array_equal(a.nodes.cores, b.nodes.cores)
    assert not np.array_equal(a.jobs.submit, c.jobs.submit)


def test_ring_is_one_cycle_through_every_node():
    nbrs = ov.ring(101, rng(0, "r"))
    assert all(len(x) == 2 for x in nbrs)
    assert all(u in nbrs[v] for u in range(101) for v in nbrs[u])
    info = ov.describe(nbrs)
    assert info["components"] == 1 and info["edges"] == 101
    assert ov.ring(2, rng(0, "r")) == [(1,), (0,)]


def test_can_like_links_similar_nodes_with_three_or_four_neighbours(big):
    _, wl = big
    from scheduling.grid.workload import Nodes

    nodes = Nodes(*(a[:1000] for a in (wl.nodes.cores, wl.nodes.speed, wl.nodes.mem,
                                       wl.nodes.disk)))
    can = ov.can_like(nodes, rng(1, "c"))
    assert can == ov.can_like(nodes, rng(1, "c"))  # deterministic per stream
    assert all(u in can[v] for u in range(1000) for v in can[u])  # symmetric
    deg = np.array([len(x) for x in can])
    assert deg.min() >= 3 and np.mean(deg <= 4) > 0.95
    # Neighbours are near in capability space: much nearer than ring neighbours.
    pts = ov.capability_points(nodes)
    ring = ov.ring(1000, rng(1, "r"))

    def mean_gap(graph):
        return np.mean([np.linalg.norm(pts[u] - pts[v]) for u in range(1000) for v in graph[u]])

    assert mean_gap(can) < 0.25 * mean_gap(ring)
