"""Workload of one trial: clusters, ETC matrix, bursty task arrivals, utility functions, flags.

Tasks are numbered in arrival order (bursts by time, then type); inside a burst the tasks are
ordered by their preemption flags, so the tasks of a burst that share both flags form a
contiguous id range: a *group* of interchangeable waiting tasks (performance (ch. 4 spec §15.1)).
Since flags are drawn independently per task, that order is only a relabelling.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore.sampling import gamma_mean_cov, integer_split, sinusoidal_nhpp, uniform_int_around
from simcore.sampling import rng as make_rng
from simcore.value import UtilityTable

from .config import SerialConfig
from .etc import generate_etc
from .utility import UtilityClass, build_table

DAY_MIN = 1440.0


@dataclass
class Workload:
    """Everything a simulation needs besides the policy; tests build small ones by hand."""

    cores: np.ndarray  # cores per cluster
    etc: np.ndarray  # (types, clusters) minutes
    critical_type: np.ndarray  # bool per type
    table: UtilityTable
    # Per task, in id order (non-decreasing arrival).
    type: np.ndarray
    arrival: np.ndarray
    urow: np.ndarray  # utility table row
    scale: np.ndarray  # starting utility S
    can_preempt: np.ndarray
    preemptible: np.ndarray
    burst: np.ndarray
    # Groups of interchangeable tasks: ids [group_start, group_end), by arrival.
    group_start: np.ndarray
    group_end: np.ndarray
    avg_time: np.ndarray | None = None
    classes: list[UtilityClass] | None = None
    info: dict = field(default_factory=dict)

    @property
    def n_tasks(self) -> int:
        return int(self.type.size)

    @property
    def critical(self) -> np.ndarray:
        return self.critical_type[self.type]


def cluster_sizes(cfg: SerialConfig, seed: int) -> np.ndarray:
    s = cfg.system
    if s.cluster_sizes == "equal":
        return np.full(s.n_clusters, s.cores_per_cluster, dtype=np.int64)
    draws = np.rint(gamma_mean_cov(make_rng(seed, "ch4-system"), np.full(s.n_clusters,
                    float(s.cores_per_cluster)), s.cluster_size_cov))
    draws = np.maximum(draws, s.min_cores)
    return integer_split(draws - s.min_cores, s.total_cores, minimum=s.min_cores)


def groups_of(burst: np.ndarray, combo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Contiguous runs of equal (burst, combo) as [start, end) id ranges."""
    n = burst.size
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    change = np.flatnonzero((np.diff(burst) != 0) | (np.diff(combo) != 0)) + 1
    start = np.concatenate([[0], change]).astype(np.int64)
    end = np.concatenate([change, [n]]).astype(np.int64)
    return start, end


def generate(cfg: SerialConfig, seed: int) -> Workload:
    """The trial's workload; identical for every policy with the same seed (simulation procedure
    (ch. 4 spec §10))."""
    e, w, u, r = cfg.etc, cfg.workload, cfg.utility, cfg.scheduler
    cores = cluster_sizes(cfg, seed)
    critical_type = np.arange(e.n_types) < e.n_critical_types
    nominal = np.where(critical_type, e.critical_mean_min, e.noncritical_mean_min)
    etc, q = generate_etc(make_rng(seed, "ch4-etc"), nominal, cfg.system.n_clusters,
                          e.task_cov, e.cluster_cov, e.etc_mode)
    avg_time = {"row-mean": etc.mean(axis=1), "nominal": nominal, "reference": q}[u.average_time]

    gen = make_rng(seed, "ch4-arrivals")
    n_types = e.n_types
    cycles = gen.integers(w.cycles_min, w.cycles_max + 1, size=n_types)
    phase = gen.uniform(0.0, 2.0 * np.pi, size=n_types)
    amplitude = gen.uniform(w.amplitude_min, w.amplitude_max, size=n_types)
    tasks_per_day = w.tasks_per_core_per_day * float(cores.sum())
    burst_rate = tasks_per_day / n_types / w.burst_size / DAY_MIN  # bursts per minute per type
    times, btype = sinusoidal_nhpp(gen, np.full(n_types, burst_rate), amplitude, cycles, phase,
                                   0.0, r.duration_min, DAY_MIN)
    n_bursts = times.size
    bgen = make_rng(seed, "ch4-bursts")
    sizes = uniform_int_around(bgen, w.burst_size, w.burst_spread, size=n_bursts)
    bclass = bgen.integers(0, u.n_classes, size=n_bursts)

    burst = np.repeat(np.arange(n_bursts), sizes)
    n = burst.size
    fgen = make_rng(seed, "ch4-flags")
    can_preempt = fgen.random(n) < w.p_can_preempt
    preemptible = fgen.random(n) < w.p_preemptible
    combo = 3 - (2 * can_preempt + preemptible)  # both flags first inside a burst
    order = np.lexsort((combo, burst))
    can_preempt, preemptible, combo = can_preempt[order], preemptible[order], combo[order]

    ttype = btype[burst]
    table, classes = build_table(u, avg_time, critical_type)
    urow = ttype + (bclass[burst] * n_types if u.family == "classes" else 0)
    scale = np.where(critical_type[ttype], u.critical_utility, u.noncritical_utility)
    gstart, gend = groups_of(burst, combo)
    return Workload(
        cores=cores, etc=etc, critical_type=critical_type, table=table,
        type=ttype.astype(np.int64), arrival=times[burst], urow=urow.astype(np.int64),
        scale=scale.astype(float), can_preempt=can_preempt, preemptible=preemptible,
        burst=burst.astype(np.int64), group_start=gstart, group_end=gend, avg_time=avg_time,
        classes=classes,
        info={"bursts": int(n_bursts), "reference_time": q, "burst_class": bclass,
              "type_cycles": cycles, "type_phase": phase, "type_amplitude": amplitude},
    )
