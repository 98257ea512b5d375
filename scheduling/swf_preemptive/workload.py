"""From a trace to the preemptive replay's jobs: the paper's surrogate recipe, wall-clock limits
from the accuracy model with a per-user tendency, and priority classes drawn from the seed.

The trace part (status filter, nodes, queue order, requested times) is every trace replay's
(:func:`scheduling.hpc.jobs.prepare`); this module only adds what the preemptive study needs on
top of it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from scheduling.hpc.jobs import MIN_ESTIMATE_S, Jobs, load_drops, prepare
from scheduling.hpc.swf import UNKNOWN
from scheduling.hpc.traces import LoadedTrace
from simcore.sampling import rng

from .config import KIND, PreemptiveConfig

#: Priority classes by rank: a lower rank is served first and may hold preemption rights.
HIGH, MEDIUM, LOW = 0, 1, 2
CLASS_NAMES = ("high", "medium", "low")

#: The accuracy model of spec section 3 (CTC SP2 study): (probability, low, high, log-uniform).
ACCURACY_MIX = ((0.38, 0.005, 0.04, False), (0.57, 0.04, 0.4, True), (0.05, 0.4, 1.0, False))


@dataclass(frozen=True)
class Workload:
    """Jobs in queue order (``jobs.run`` is the run that can complete: cut at the limit when the
    job outlives it; ``jobs.estimate`` is the wall-clock limit) plus the study's attributes."""

    jobs: Jobs
    rank: np.ndarray  # priority class per job (HIGH, MEDIUM, LOW; MEDIUM when no classes)
    user: np.ndarray  # dense user index per job, 0 .. n_users - 1
    n_users: int
    run_actual: np.ndarray  # the trace's run time, before any cut at the limit
    dropped_size: np.ndarray  # SWF ids of jobs wider than max_procs
    limit_kills: int  # jobs that reach their limit before their run ends
    limits_synthesized: int  # limits drawn from the accuracy model
    offered_load: float  # of the replayed jobs on this machine (after any rescaling)
    load_scale: float  # factor applied to the arrival times (1 = unchanged)

    def __len__(self) -> int:
        return len(self.jobs)


def _trace_columns(trace: LoadedTrace, config: PreemptiveConfig):
    """The trace's columns after ``job_limit`` and the ``max_procs`` cut (a wide job is dropped
    here, not rejected as too big for the machine); also the SWF ids cut."""
    cols = trace.columns
    if config.job_limit:
        cols = {k: v[: config.job_limit] for k, v in cols.items()}
    total = len(cols["job_id"])
    dropped = np.zeros(0, dtype=np.int64)
    if config.max_procs:
        procs = np.where(cols["allocated_procs"] != UNKNOWN, cols["allocated_procs"],
                         cols["requested_procs"])
        wide = procs > config.max_procs
        dropped = cols["job_id"][wide].astype(np.int64)
        cols = {k: v[~wide] for k, v in cols.items()}
    return cols, total, dropped


def offered_load(jobs: Jobs) -> float:
    """Node-seconds of work over node-seconds of the arrival span (0 when it has no length)."""
    if len(jobs) < 2:
        return 0.0
    span = float(jobs.submit[-1] - jobs.submit[0])
    work = float((jobs.nodes * jobs.run).sum())
    return work / (jobs.machine_nodes * span) if span > 0 else 0.0


def accuracy_quantile(u: np.ndarray) -> np.ndarray:
    """The ratio r = actual / limit at quantile ``u`` of the accuracy mix (increasing in u)."""
    u = np.asarray(u, dtype=float)
    r = np.empty_like(u)
    lo = 0.0
    for p, a, b, log in ACCURACY_MIX:
        inside = (u >= lo) & (u < lo + p) if lo + p < 1.0 else (u >= lo)
        x = (u[inside] - lo) / p
        r[inside] = a * (b / a) ** x if log else a + (b - a) * x
        lo += p
    return r


_ERF = np.frompyfunc(math.erf, 1, 1)


def _normal_cdf(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + _ERF(z / math.sqrt(2.0)).astype(float))


def users_of(jobs: Jobs, config: PreemptiveConfig, seed: int) -> tuple[np.ndarray, int]:
    """Dense user indices: the SWF user ids, or Zipf-popular synthetic users where unknown."""
    ids = jobs.user.copy() if jobs.user is not None else np.full(len(jobs), -1, dtype=np.int64)
    unknown = ids < 0
    if unknown.any():
        weights = 1.0 / np.arange(1, config.users + 1)
        draw = rng(seed, f"{KIND}/users").choice(config.users, size=int(unknown.sum()),
                                                 p=weights / weights.sum())
        offset = int(ids.max()) + 1 if (~unknown).any() else 0
        ids[unknown] = offset + draw
    if not len(ids):
        return np.zeros(0, dtype=np.int64), 0
    uniq, dense = np.unique(ids, return_inverse=True)
    return dense.astype(np.int64), len(uniq)


def model_limits(run: np.ndarray, user: np.ndarray, n_users: int, config: PreemptiveConfig,
                 seed: int) -> np.ndarray:
    """Limits from the accuracy model: r = actual / limit follows the mix over all jobs, and a
    Gaussian copula makes one user's draws correlated (``user_tendency``), so a user's history
    predicts their next job. limit = max(run, min(run / r, limit_max)), whole seconds."""
    g = rng(seed, f"{KIND}/limits")
    a = config.user_tendency
    z_user = g.standard_normal(n_users)
    z_job = g.standard_normal(len(run))
    z = math.sqrt(a) * z_user[user] + math.sqrt(1.0 - a) * z_job
    r = accuracy_quantile(_normal_cdf(z))
    limit = np.minimum(run / r, config.limit_max_h * 3600.0)
    return np.maximum(np.ceil(np.maximum(limit, run)), MIN_ESTIMATE_S)


def classes_of(n: int, config: PreemptiveConfig, seed: int) -> np.ndarray:
    rank = np.full(n, MEDIUM, dtype=np.int64)
    if config.classes != "none":
        high = rng(seed, f"{KIND}/classes").random(n) < config.high_share
        rank[:] = MEDIUM if config.classes == "mix-a" else LOW
        rank[high] = HIGH
    return rank


#: Why a job wider than ``max_procs`` is not replayed (its ``dropped`` decision).
DROPPED_SIZE = ("it is wider than max_procs processors: the study drops such jobs before the "
                "replay")


def drops_at_load(trace: LoadedTrace, config: PreemptiveConfig,
                  workload: Workload) -> list[tuple[float, int, str, dict]]:
    """The jobs that never reach the queue (the ``max_procs`` cut, then every replay's classes,
    ``scheduling.hpc.jobs.load_drops``), each as its ``dropped`` decision, at its submit time
    on the replay's (rescaled) clock. Only for a run that explains itself."""
    cols = trace.columns
    if config.job_limit:
        cols = {k: v[: config.job_limit] for k, v in cols.items()}
    procs = np.where(cols["allocated_procs"] != UNKNOWN, cols["allocated_procs"],
                     cols["requested_procs"])
    wide = (procs > config.max_procs if config.max_procs
            else np.zeros(len(procs), dtype=bool))
    cut = (wide, DROPPED_SIZE,
           lambda r: {"procs": int(procs[r]), "max_procs": config.max_procs})
    drops = load_drops(trace.header, cols, dataclasses.replace(config, job_limit=0), cut)
    scale = workload.load_scale
    if scale != 1.0 and len(workload.jobs):  # as ``build`` rescales the replayed jobs
        t0 = float(workload.jobs.submit[0])
        drops = [(t0 + (s - t0) * scale, job, why, numbers) for s, job, why, numbers in drops]
    return drops


def build(trace: LoadedTrace, config: PreemptiveConfig, seed: int) -> Workload:
    cols, total, dropped = _trace_columns(trace, config)
    jobs = prepare(trace.header, cols, dataclasses.replace(config, job_limit=0),
                   raise_estimates=False)
    jobs = dataclasses.replace(jobs, total=total)
    load = offered_load(jobs)
    scale = 1.0
    if config.target_load > 0 and load > 0:
        scale = load / config.target_load
        t0 = jobs.submit[0]
        jobs = dataclasses.replace(jobs, submit=t0 + (jobs.submit - t0) * scale)
        load = offered_load(jobs)
    user, n_users = users_of(jobs, config, seed)
    run = jobs.run
    limit = jobs.estimate.copy()
    synth = ~jobs.requested if config.limit_model else np.zeros(len(jobs), dtype=bool)
    if synth.any():
        limit[synth] = model_limits(run[synth], user[synth], n_users, config, seed)
    if config.kill_at_limit:
        cut = run > limit
        run_eff = np.minimum(run, limit)
    else:
        cut = np.zeros(len(jobs), dtype=bool)
        limit = np.maximum(limit, run)
        run_eff = run
    return Workload(
        jobs=dataclasses.replace(jobs, run=run_eff, estimate=limit),
        rank=classes_of(len(jobs), config, seed),
        user=user,
        n_users=n_users,
        run_actual=run,
        dropped_size=dropped,
        limit_kills=int(cut.sum()),
        limits_synthesized=int(synth.sum()),
        offered_load=load,
        load_scale=scale,
    )
