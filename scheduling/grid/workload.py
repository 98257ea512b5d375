"""Nodes, jobs, arrivals and matchmaking samples of one grid trial (system model (grid spec §2),
workload (grid spec §3)).

Everything here depends on the seed only, never on the scheduler, so all schedulers of a seed
see the same nodes, jobs, arrival times and candidate samples (common random numbers). Memory
and disk are whole MiB so that free-resource bookkeeping is exact integer arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore.errors import ScenarioError
from simcore.sampling import rng

from .config import GridConfig

MIB = 1024  # MiB per GB
CHUNK = 1 << 21  # random keys drawn at once by the matchmaking sampler


@dataclass
class Nodes:
    """Capabilities per node (numpy arrays of length n)."""

    cores: np.ndarray  # int
    speed: np.ndarray  # float
    mem: np.ndarray  # int, MiB
    disk: np.ndarray  # int, MiB

    def __len__(self) -> int:
        return int(self.cores.size)

    def capability_order(self) -> np.ndarray:
        """Node ids sorted by capability (cores, speed, memory, disk, id): chart row order."""
        return np.lexsort((np.arange(len(self)), self.disk, self.mem, self.speed, self.cores))


@dataclass
class Jobs:
    """Requirements, estimates and arrivals per job (numpy arrays of length m)."""

    cores: np.ndarray  # int
    min_speed: np.ndarray  # float, 0 = any node
    mem: np.ndarray  # int, MiB
    disk: np.ndarray  # int, MiB
    work: np.ndarray  # estimated run time on the canonical node (s)
    submit: np.ndarray  # arrival times (s), non-decreasing
    # Matchmaking: up to ``sample`` eligible node ids per job in random order (-1 = padding).
    candidates: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))

    def __len__(self) -> int:
        return int(self.cores.size)


@dataclass
class Workload:
    nodes: Nodes
    jobs: Jobs
    info: dict


def _pick(gen: np.random.Generator, values, probs, size: int) -> np.ndarray:
    p = np.asarray(probs, dtype=float)
    return np.asarray(values)[gen.choice(len(values), size=size, p=p / p.sum())]


def _mib(gb) -> np.ndarray:
    return np.rint(np.asarray(gb, dtype=float) * MIB).astype(np.int64)


def make_nodes(cfg: GridConfig, seed: int) -> Nodes:
    n = cfg.nodes
    gen = rng(seed, "grid/nodes")
    size = n.n_nodes
    return Nodes(cores=_pick(gen, n.cores, n.cores_p, size).astype(np.int64),
                 speed=_pick(gen, n.speed, n.speed_p, size).astype(float),
                 mem=_mib(_pick(gen, n.memory_gb, n.memory_p, size)),
                 disk=_mib(_pick(gen, n.disk_gb, n.disk_p, size)))


def eligible(nodes: Nodes, cores, min_speed, mem, disk) -> np.ndarray:
    """Boolean (jobs x nodes): the node satisfies every requirement of the job (system model
    (grid spec §2))."""
    return ((nodes.cores[None, :] >= np.asarray(cores)[:, None])
            & (nodes.speed[None, :] >= np.asarray(min_speed)[:, None])
            & (nodes.mem[None, :] >= np.asarray(mem)[:, None])
            & (nodes.disk[None, :] >= np.asarray(disk)[:, None]))


def make_jobs(cfg: GridConfig, nodes: Nodes, seed: int) -> tuple[Jobs, dict]:
    """Jobs from the requirement table, conditioned on some node satisfying them.

    The spec resamples any job no node can satisfy; drawing each job's requirement class from
    the table restricted to satisfiable classes is the same distribution in one step.
    """
    j = cfg.jobs
    tables = [(j.cores, j.cores_p), (j.min_speed, j.min_speed_p),
              (j.memory_gb, j.memory_p), (j.disk_gb, j.disk_p)]
    grids = np.meshgrid(*[np.arange(len(v)) for v, _ in tables], indexing="ij")
    idx = [g.ravel() for g in grids]
    prob = np.ones(idx[0].size)
    for (_, p), i in zip(tables, idx, strict=True):
        prob *= np.asarray(p, dtype=float)[i]
    cores = np.asarray(j.cores, dtype=np.int64)[idx[0]]
    speed = np.asarray(j.min_speed, dtype=float)[idx[1]]
    mem = _mib(j.memory_gb)[idx[2]]
    disk = _mib(j.disk_gb)[idx[3]]
    ok = eligible(nodes, cores, speed, mem, disk).any(axis=1)
    mass = float(prob[ok].sum())
    if mass <= 0:
        raise ScenarioError("nodes.n_nodes", "the drawn nodes cannot run any job of the "
                                             "requirement table; add nodes or larger ones")
    gen = rng(seed, "grid/jobs")
    p = np.where(ok, prob, 0.0)
    cls = gen.choice(p.size, size=j.n_jobs, p=p / p.sum())
    lo, hi = j.run_mean_s * (1 - j.run_spread), j.run_mean_s * (1 + j.run_spread)
    work = rng(seed, "grid/runtimes").uniform(lo, hi, size=j.n_jobs)
    submit = np.cumsum(rng(seed, "grid/arrivals").exponential(j.iat_s, size=j.n_jobs))
    jobs = Jobs(cores=cores[cls], min_speed=speed[cls], mem=mem[cls], disk=disk[cls],
                work=work, submit=submit)
    info = {"satisfiable_mass": mass, "requirement_classes": int(ok.sum()),
            "requirement_classes_total": int(ok.size)}
    return jobs, info


def matchmaking_candidates(jobs: Jobs, nodes: Nodes, sample: int, seed: int) -> np.ndarray:
    """Per job, up to ``sample`` distinct random eligible nodes, in random order (workload
    (grid spec §3)).

    Drawn once per seed from the job's eligible set, so the sample is the same under every
    scheduler; the order doubles as the random tie-break of the owner's choice.
    """
    gen = rng(seed, "grid/matchmaking")
    m = len(jobs)
    out = np.full((m, sample), -1, dtype=np.int64)
    keys = np.stack([jobs.cores, jobs.mem, jobs.disk], axis=1)
    # Jobs of one requirement class share the eligible set: draw class by class.
    classes, inverse = np.unique(np.column_stack([keys, jobs.min_speed]), axis=0,
                                 return_inverse=True)
    inverse = inverse.ravel()
    for c in range(classes.shape[0]):
        members = np.flatnonzero(inverse == c)
        row = classes[c]
        ok = np.flatnonzero((nodes.cores >= row[0]) & (nodes.mem >= row[1])
                            & (nodes.disk >= row[2]) & (nodes.speed >= row[3]))
        k = min(sample, ok.size)
        block = max(1, CHUNK // max(ok.size, 1))
        for lo in range(0, members.size, block):
            rows = members[lo:lo + block]
            keys_c = gen.random((rows.size, ok.size))
            if k < ok.size:
                part = np.argpartition(keys_c, k - 1, axis=1)[:, :k]
            else:
                part = np.broadcast_to(np.arange(ok.size), (rows.size, ok.size))
            order = np.take_along_axis(keys_c, part, axis=1).argsort(axis=1, kind="stable")
            out[rows, :k] = ok[np.take_along_axis(part, order, axis=1)]
    return out


def generate(cfg: GridConfig, seed: int) -> Workload:
    nodes = make_nodes(cfg, seed)
    jobs, info = make_jobs(cfg, nodes, seed)
    jobs.candidates = matchmaking_candidates(jobs, nodes, cfg.matchmaking.sample, seed)
    total_cores = int(nodes.cores.sum())
    mean_run = float(np.mean(jobs.work)) if len(jobs) else 0.0
    mean_cores = float(np.mean(jobs.cores)) if len(jobs) else 0.0
    lam = 1.0 / cfg.jobs.iat_s
    info.update({
        "total_cores": total_cores,
        "mean_node_speed": float(nodes.speed.mean()),
        "mean_job_cores": mean_cores,
        "mean_work_s": mean_run,
        # Offered load of the spec's check (workload (grid spec §3)): lambda E[run] E[cores] / sum
        # of cores, on the canonical node; the speed-weighted form divides by each core's speed
        # instead.
        "offered_load": lam * mean_run * mean_cores / total_cores,
        "offered_load_speed": lam * mean_run * mean_cores
        / float(np.sum(nodes.cores * nodes.speed)),
    })
    return Workload(nodes, jobs, info)
