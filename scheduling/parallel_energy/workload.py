"""Task types, tasks and utility classes of one trial (synthetic workload (ch. 3 spec §2)),
synthetic or trace-driven (Curie trace workload (ch. 3 spec §3)).

Randomness comes from named streams of the trial seed (``registry.rng``): types, arrivals and
per-task draws use separate streams, so e.g. changing the arrival rate leaves the task types
alone, and no policy decision can shift the workload (common random numbers, synthetic workload
(ch. 3 spec §2)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simcore.errors import ScenarioError
from simcore.sampling import rng as stream
from simcore.swf import read_swf_arrays
from simcore.traces import TraceLibrary
from simcore.value import Shape, UtilityTable

from .config import (
    TESTBED_CORES,
    TESTBED_EEC_J,
    TESTBED_ETC_S,
    ParallelEnergyConfig,
    UtilityConfig,
    WorkloadConfig,
)
from .system import System

HOUR = 3600.0
DAY = 86_400.0


def gamma(gen: np.random.Generator, mean, cov: float, size=None) -> np.ndarray:
    """Gamma with the spec's parameterization: shape = 1/COV², scale = mean·COV²."""
    mean = np.asarray(mean, dtype=float)
    if cov <= 0:
        return np.broadcast_to(mean, size if size is not None else mean.shape).astype(float)
    shape = 1.0 / cov**2
    return gen.gamma(shape, mean * cov**2, size=size if size is not None else mean.shape)


def utility_classes(cfg: UtilityConfig) -> UtilityTable:
    """The seeded class table shared by every trial and heuristic (utility function
    (ch. 3 spec §2.3) [D])."""
    gen = np.random.default_rng(cfg.class_seed)
    shapes = []
    for _ in range(cfg.classes):
        j = int(gen.integers(cfg.intervals_min, cfg.intervals_max + 1))
        total = gen.uniform(cfg.length_min_h, cfg.length_max_h)
        lengths = total * gen.dirichlet(np.ones(j))
        rates = gen.uniform(cfg.rate_mod_min, cfg.rate_mod_max, j)
        jumps = gen.uniform(cfg.jump_min, cfg.jump_max, j - 1)
        # A jump factor of exactly 0 is impossible (jump_min > 0); clip the float edge case.
        jumps = np.clip(jumps, 1e-12, 1.0)
        shapes.append(Shape(tuple(float(x) for x in lengths), tuple(float(x) for x in rates),
                            tuple(float(x) for x in jumps)))
    return UtilityTable(shapes)


@dataclass
class TaskTypes:
    """Per-type data, arrays indexed [type] or [type, cluster] or [type, cluster, pstate]."""

    eligible: np.ndarray  # (Y, C) bool
    special: np.ndarray  # (Y,) bool
    level: np.ndarray  # (Y,) priority level row of Table 3
    priority: np.ndarray  # (Y,) starting utility U0
    urgency: np.ndarray  # (Y,) per time unit
    reference: np.ndarray  # (Y,) reference cluster
    t_single: np.ndarray  # (Y, C) seconds, single core, P-state 0 multiplier excluded
    base_power: np.ndarray  # (Y, C) W per node before P-state scaling
    power_mult: np.ndarray  # (Y, C, P)
    time_mult: np.ndarray  # (Y, C, P)
    row: np.ndarray  # (Y,) Table 4 row
    cores_lo: np.ndarray  # (Y,)
    cores_hi: np.ndarray  # (Y,)
    work_hours: np.ndarray  # (Y,) bool: work-hours arrival pattern
    sigma: np.ndarray  # (Y,) Downey sigma
    downey_a: np.ndarray  # (Y, C) mean node count A
    phase_h: np.ndarray  # (Y,) sinusoid phase

    @property
    def n(self) -> int:
        return len(self.priority)

    def public(self) -> dict:
        return {
            "priority": self.priority, "urgency": self.urgency, "level": self.level,
            "special": self.special, "reference": self.reference,
            "cores_lo": self.cores_lo, "cores_hi": self.cores_hi, "sigma": self.sigma,
            "t_single_h": np.where(self.eligible, self.t_single / HOUR, np.nan),
            "work_hours": self.work_hours,
        }


@dataclass
class Tasks:
    """The arrival stream, sorted by arrival time; index = task id."""

    type: np.ndarray  # (T,) int
    cores: np.ndarray  # (T,) int
    utility_class: np.ndarray  # (T,) int
    arrival: np.ndarray  # (T,) seconds
    # Trace-driven tasks carry their own P-state-0 time per cluster (seconds, nan = use model).
    fixed_time: np.ndarray | None = None  # (T, C)
    info: dict = field(default_factory=dict)
    priority: np.ndarray | None = None  # (T,) per-task starting utility (testbed)

    @property
    def n(self) -> int:
        return len(self.arrival)


def _exact_rows(gen: np.random.Generator, shares: list[float], n: int) -> np.ndarray:
    """Row per type in exact shares (largest remainder), shuffled (core and node counts
    (ch. 3 spec §2.8) [D])."""
    quota = np.asarray(shares) * n
    counts = np.floor(quota).astype(int)
    order = np.argsort(-(quota - counts), kind="stable")
    counts[order[: n - counts.sum()]] += 1
    rows = np.repeat(np.arange(len(shares)), counts)
    gen.shuffle(rows)
    return rows


def _mean_nodes(lo: int, hi: int, cpn: int) -> float:
    """E[ceil(X / cpn)] for X uniform on the integers lo..hi (Downey parallel speedup
    (ch. 3 spec §2.9), Downey A across clusters (ch. 3 spec A8))."""
    x = np.arange(lo, hi + 1)
    return float(np.ceil(x / cpn).mean())


def sample_priority(gen: np.random.Generator, cfg: WorkloadConfig, n: int):
    """(level, U0, urgency) per type: level and urgency jointly from Table 3, U0 uniform in
    the level's range (priority and urgency (ch. 3 spec §2.2))."""
    joint = np.asarray(cfg.joint_probabilities, dtype=float)
    cell = gen.choice(joint.size, size=n, p=joint.ravel() / joint.sum())
    level, ucol = np.divmod(cell, joint.shape[1])
    ranges = np.asarray(cfg.priority_ranges, dtype=float)
    priority = gen.uniform(ranges[level, 0], ranges[level, 1])
    return level, priority, np.asarray(cfg.urgencies, dtype=float)[ucol]


def make_types(cfg: WorkloadConfig, system: System, seed: int,
               trace: bool = False) -> TaskTypes:
    """The trial's task types. Trace-driven trials take core counts and times from the trace,
    so Table 4 rows and the Downey parameters are not used there."""
    gen = stream(seed, "ch3/types")
    gp, sp = system.general, system.special
    n_gp = cfg.gp_types if gp else 0
    n_sp = cfg.sp_types_per_cluster * len(sp)
    n = n_gp + n_sp
    if n == 0:
        raise ScenarioError("workload.gp_types", "the system and type counts give no task types")
    C, P = system.n_clusters, system.n_pstates
    eligible = np.zeros((n, C), dtype=bool)
    eligible[:n_gp, gp] = True
    for k, c in enumerate(sp):
        start = n_gp + k * cfg.sp_types_per_cluster
        eligible[start:start + cfg.sp_types_per_cluster, c] = True
    special = np.zeros(n, dtype=bool)
    special[n_gp:] = True

    level, priority, urgency = sample_priority(gen, cfg, n)
    ranges = np.asarray(cfg.priority_ranges, dtype=float)

    # Single-core time tied to U0 (single-core execution time (ch. 3 spec §2.4)): linear from
    # (U_min, low) to (U_max, high).
    u_lo, u_hi = ranges[:, 0].min(), ranges[:, 1].max()
    slope = (cfg.single_core_h_high - cfg.single_core_h_low) / max(u_hi - u_lo, 1e-12)
    mu = cfg.single_core_h_low + (priority - u_lo) * slope
    t_ref = gen.normal(mu, cfg.single_core_cov * mu)
    for _ in range(1000):  # resample the (rare) near-zero draws
        bad = t_ref <= 0.05 * mu
        if not bad.any():
            break
        t_ref[bad] = gen.normal(mu[bad], cfg.single_core_cov * mu[bad])
    t_ref = np.maximum(t_ref, 0.05 * mu)

    reference = np.array([gen.choice(np.flatnonzero(eligible[y])) for y in range(n)])
    t_single = np.zeros((n, C))
    base_power = np.zeros((n, C))
    p_ref = gamma(gen, np.full(n, cfg.power_mean_w), cfg.power_cov)
    for y in range(n):
        for c in np.flatnonzero(eligible[y]):
            if c == reference[y]:
                t_single[y, c] = t_ref[y] * HOUR
                base_power[y, c] = p_ref[y]
            else:
                # COV method (heterogeneity across clusters (ch. 3 spec §2.5), power generation
                # (ch. 3 spec §2.6))
                t_single[y, c] = float(gamma(gen, t_ref[y], cfg.hetero_cov)) * HOUR
                base_power[y, c] = float(gamma(gen, p_ref[y], cfg.power_cov))

    # P-state multipliers (P-state scaling (ch. 3 spec §2.7)): r per (type, cluster) (P-state
    # randomness granularity (ch. 3 spec A11)), power ~ f_p r, time 1/s_p.
    f = system.power_factors
    power_mult = np.ones((n, C, P))
    time_mult = np.ones((n, C, P))
    for y in range(n):
        r_cov = cfg.r_cov_sp if special[y] else cfg.r_cov_gp
        p_cov = cfg.pstate_cov_sp if special[y] else cfg.pstate_cov_gp
        for c in np.flatnonzero(eligible[y]):
            if cfg.r_granularity == "type-cluster":
                r = np.full(P, float(gamma(gen, 1.0, r_cov)))
            else:
                r = gamma(gen, np.ones(P), r_cov)
            power_mult[y, c] = gamma(gen, f * r, p_cov)
            time_mult[y, c] = 1.0 / gamma(gen, np.sqrt(f * r), p_cov)

    # Core rows (Table 4) and the max-cores rule (max cores of a GP type (ch. 3 spec A7)).
    shares = [row.share for row in cfg.core_rows]
    if cfg.row_assignment == "exact":
        row = _exact_rows(gen, shares, n)
    else:
        row = gen.choice(len(shares), size=n, p=np.asarray(shares) / sum(shares))
    cores = system.cores
    gp_max = (cores[gp].min() if cfg.gp_max_cores == "smallest" else cores[gp].max()) if gp else 0
    cores_lo = np.zeros(n, dtype=np.int64)
    cores_hi = np.zeros(n, dtype=np.int64)
    work_hours = np.zeros(n, dtype=bool)
    for y in range(n):
        spec = cfg.core_rows[row[y]]
        work_hours[y] = spec.pattern == "work-hours"
        if trace:
            cores_lo[y] = cores_hi[y] = 1
            continue
        max_c = int(cores[np.flatnonzero(eligible[y])[0]]) if special[y] else int(gp_max)
        lo = spec.min_cores if spec.min_cores > 0 else max_c + spec.min_cores
        hi = spec.max_cores if spec.max_cores > 0 else max_c + spec.max_cores
        hi = min(hi, max_c)
        if lo < 1 or lo > hi:
            raise ScenarioError(f"workload.core_rows.{row[y]}",
                                f"gives an empty core range [{lo}, {hi}] on a cluster with "
                                f"{max_c} cores; shrink the row or enlarge the cluster")
        cores_lo[y], cores_hi[y] = lo, hi
    if cfg.cores_per_task == "fixed-per-type":
        fixed = gen.integers(cores_lo, cores_hi + 1)
        cores_lo, cores_hi = fixed, fixed.copy()

    sigma = gen.uniform(cfg.sigma_min, cfg.sigma_max, n)
    downey_a = np.ones((n, C))
    for y in range(n):
        for c in np.flatnonzero(eligible[y]):
            downey_a[y, c] = _mean_nodes(int(cores_lo[y]), int(cores_hi[y]),
                                         int(system.cores_per_node[c]))
    if cfg.arrival_phase == "random":
        phase_h = gen.uniform(0.0, cfg.arrival_period_h, n)
    else:  # common phase peaking at 15:00
        phase_h = np.full(n, 15.0 - cfg.arrival_period_h / 4.0)
    return TaskTypes(eligible, special, level, priority, urgency, reference, t_single,
                     base_power, power_mult, time_mult, row, cores_lo, cores_hi, work_hours,
                     sigma, downey_a, phase_h)


def arrival_rate(cfg: WorkloadConfig, types: TaskTypes, y: int, t, start_clock_h: float,
                 mean_rate: float) -> np.ndarray:
    """λ_y(t) in 1/s (arrival process (ch. 3 spec §2.10)): sinusoidal, or work-hours with the
    matching low rate."""
    tod_h = ((np.asarray(t, float) / HOUR) + start_clock_h) % 24.0
    if types.work_hours[y]:
        span = cfg.work_end_h - cfg.work_start_h
        low = (24.0 - cfg.work_factor * span) / (24.0 - span) if span < 24.0 else 0.0
        inside = (tod_h >= cfg.work_start_h) & (tod_h < cfg.work_end_h)
        return mean_rate * np.where(inside, cfg.work_factor, low)
    clock_h = np.asarray(t, float) / HOUR + start_clock_h
    wave = np.sin(2.0 * np.pi * (clock_h - types.phase_h[y]) / cfg.arrival_period_h)
    return mean_rate * (1.0 + cfg.arrival_amplitude * wave)


def synthetic_tasks(cfg: ParallelEnergyConfig, types: TaskTypes, seed: int) -> Tasks:
    """Per-type non-homogeneous Poisson arrivals by thinning (arrival process (ch. 3 spec A10)) over
    [0, sim end)."""
    w = cfg.workload
    gen = stream(seed, "ch3/arrivals")
    horizon = cfg.time.sim_h * HOUR
    mean_rate = w.tasks_per_day / types.n / DAY
    times, kinds = [], []
    for y in range(types.n):
        if types.work_hours[y]:
            span = w.work_end_h - w.work_start_h
            low = (24.0 - w.work_factor * span) / (24.0 - span) if span < 24.0 else 0.0
            peak = mean_rate * max(w.work_factor, low)
        else:
            peak = mean_rate * (1.0 + w.arrival_amplitude)
        if peak <= 0:
            continue
        count = gen.poisson(peak * horizon)
        t = np.sort(gen.uniform(0.0, horizon, count))
        keep = gen.random(count) * peak < arrival_rate(w, types, y, t, cfg.time.start_clock_h,
                                                        mean_rate)
        times.append(t[keep])
        kinds.append(np.full(int(keep.sum()), y, dtype=np.int64))
    arrival = np.concatenate(times) if times else np.zeros(0)
    type_ = np.concatenate(kinds) if kinds else np.zeros(0, dtype=np.int64)
    order = np.lexsort((type_, arrival))
    arrival, type_ = arrival[order], type_[order]
    per_task = stream(seed, "ch3/tasks")
    cores = per_task.integers(types.cores_lo[type_], types.cores_hi[type_] + 1)
    cls = per_task.integers(0, cfg.utility.classes, size=len(arrival))
    return Tasks(type_, cores.astype(np.int64), cls.astype(np.int64), arrival)


# -- trace-driven arrivals (Curie trace workload (ch. 3 spec §3)) ----------------------------------

def trace_path(name: str, traces: TraceLibrary) -> Path:
    """The file of the trace a scenario names: a library trace (``lublin_256``, with or without
    ``.swf``/``.swf.gz``) or an uploaded one (``upload:<sha256>``), never a path, so web input
    cannot reach the file system. Same lookup as the replay scenarios."""
    base = name.removesuffix(".gz").removesuffix(".swf")
    try:
        return traces.resolve(base)
    except ScenarioError as err:
        raise ScenarioError("trace.file", err.message) from None


def load_trace(cfg: ParallelEnergyConfig, traces: TraceLibrary) -> tuple[dict, dict]:
    """Jobs of the selected trace day (plus the warm-up before it) and header facts."""
    t = cfg.trace
    path = trace_path(t.file, traces)
    header, cols = read_swf_arrays(path)
    submit = cols["submit"].astype(float)
    run = cols["run_time"].astype(float) * t.time_scale
    procs = np.where(cols["allocated_procs"] >= 0, cols["allocated_procs"],
                     cols["requested_procs"]).astype(np.int64)
    valid = (run > 0) & (procs > 0)
    too_big = valid & (procs > t.max_job_cores)
    keep = valid & ~too_big
    machine = t.machine_cores or header.max_procs or header.max_nodes
    if not machine:
        raise ScenarioError("trace.machine_cores", "the trace header gives no MaxProcs; set it")
    # Day blocks of 86,400 s from the first local midnight (header start + time zone when known).
    offset = 0.0
    if header.unix_start_time is not None:
        try:
            from datetime import datetime
            from zoneinfo import ZoneInfo

            tz = ZoneInfo(header.time_zone_string) if header.time_zone_string else None
            start = datetime.fromtimestamp(header.unix_start_time, tz)
            offset = float((-(start.hour * 3600 + start.minute * 60 + start.second)) % DAY)
        except (ValueError, KeyError, OSError):
            offset = 0.0
    warm = cfg.time.warmup_h * HOUR
    first = submit[keep].min() if keep.any() else 0.0
    # First full day that has a whole warm-up of trace before it.
    k0 = math.ceil((first + warm - offset) / DAY)
    day_start = offset + (k0 + t.day) * DAY
    t0 = day_start - warm
    sim = cfg.time.sim_h * HOUR
    last_day = int((submit.max() - offset) // DAY) if submit.size else 0
    if t0 + sim > submit.max() + DAY:
        raise ScenarioError("trace.day", f"is past the end of the trace (at most "
                                         f"{max(last_day - k0, 0)})")
    window = keep & (submit >= t0) & (submit < t0 + sim)
    jobs = {"arrival": submit[window] - t0, "run_time": run[window], "procs": procs[window],
            "line": cols["line"][window]}
    info = {"trace": path.name, "machine_cores": int(machine),
            "jobs_in_trace": int(len(submit)), "jobs_invalid": int((~valid).sum()),
            "jobs_too_big": int(too_big.sum()), "day_start_s": float(day_start),
            "sim_start_s": float(t0), "jobs_selected": int(window.sum())}
    return jobs, info


def trace_system_config(cfg: ParallelEnergyConfig, machine_cores: int):
    """Clusters of the default cluster configuration (ch. 3 spec §1.6) shape scaled to
    ``size_fraction`` of the traced machine (Curie trace workload (ch. 3 spec §3) [D])."""
    from dataclasses import replace

    t = cfg.trace
    clusters = cfg.system.clusters
    total = sum(c.nodes * c.cores_per_node for c in clusters)
    target = t.size_fraction * machine_cores
    scaled = tuple(replace(c, cores_per_node=t.cores_per_node,
                           nodes=max(1, round(c.nodes * c.cores_per_node / total * target
                                              / t.cores_per_node)))
                   for c in clusters)
    return replace(cfg.system, clusters=scaled)


def trace_tasks(cfg: ParallelEnergyConfig, types: TaskTypes, system: System, jobs: dict,
                info: dict, seed: int) -> Tasks:
    """Trace jobs as tasks: random type, trace run time on the reference cluster (Curie trace
    workload (ch. 3 spec §3) [D])."""
    gen = stream(seed, "ch3/trace-jobs")
    n = len(jobs["arrival"])
    type_ = gen.integers(0, types.n, size=n)
    cls = gen.integers(0, cfg.utility.classes, size=n)
    C = system.n_clusters
    fixed = np.full((n, C), np.nan)
    run = jobs["run_time"]
    for i in range(n):
        y = type_[i]
        for c in np.flatnonzero(types.eligible[y]):
            fixed[i, c] = run[i] if c == types.reference[y] else float(
                gamma(gen, run[i], cfg.workload.hetero_cov))
    procs = jobs["procs"]
    fits = np.zeros(n, dtype=bool)
    for c in range(C):
        fits |= types.eligible[type_, c] & (np.ceil(procs / system.cores_per_node[c])
                                            <= system.nodes[c])
    info = dict(info, jobs_not_fitting=int((~fits).sum()))
    sel = np.flatnonzero(fits)
    order = sel[np.lexsort((sel, jobs["arrival"][sel]))]
    return Tasks(type_[order].astype(np.int64), procs[order].astype(np.int64),
                 cls[order].astype(np.int64), jobs["arrival"][order], fixed[order], info)


# -- testbed (testbed experiment (ch. 3 spec §8)) --------------------------------------------------

def testbed_types(system: System) -> TaskTypes:
    """The four NAS benchmarks of Tables 6-7 as task types (one P-state; infeasible = n.a.)."""
    k, C = len(TESTBED_ETC_S), system.n_clusters
    etc = np.array([[np.nan if v is None else v for v in row] for row in TESTBED_ETC_S], float)
    eec = np.array([[np.nan if v is None else v for v in row] for row in TESTBED_EEC_J], float)
    cores = np.array(TESTBED_CORES)
    nodes = np.ceil(cores[:, None] / system.cores_per_node[None, :])
    eligible = ~np.isnan(etc)
    node_power = np.where(eligible, eec / (etc * nodes), 0.0)
    P = system.n_pstates
    ones = np.ones((k, C, P))
    zeros = np.zeros(k)
    return TaskTypes(eligible, np.zeros(k, bool), zeros.astype(int), zeros + 1.0, zeros,
                     np.argmax(eligible, axis=1), np.where(eligible, etc, 0.0), node_power, ones,
                     ones.copy(), zeros.astype(int), cores.copy(), cores.copy(),
                     np.zeros(k, bool), zeros, np.ones((k, C)), zeros)


def testbed_tasks(cfg: ParallelEnergyConfig, types: TaskTypes, seed: int) -> Tasks:
    """Arrivals every 120 s on average with the testbed workload and flow (ch. 3 spec §8.3) mix;
    utility 1-4 per task (uniform)."""
    t = cfg.testbed
    gen = stream(seed, "ch3/testbed")
    horizon = cfg.time.sim_h * HOUR
    if t.arrivals == "fixed":
        arrival = np.arange(0.0, horizon, t.mean_interarrival_s)
    else:
        gaps = gen.exponential(t.mean_interarrival_s, int(horizon / t.mean_interarrival_s * 3)
                               + 20)
        arrival = np.cumsum(gaps)
        arrival = arrival[arrival < horizon]
    n = len(arrival)
    mix = np.asarray(t.mix) / sum(t.mix)
    kind = gen.choice(len(mix), size=n, p=mix)
    priority = gen.integers(1, 5, size=n).astype(float)
    fixed = np.where(types.eligible[kind], types.t_single[kind], np.nan)
    return Tasks(kind.astype(np.int64), types.cores_lo[kind].astype(np.int64),
                 np.zeros(n, dtype=np.int64), arrival, fixed, {"testbed": True}, priority)

