"""Scenario parameters of the decentralized grid (``grid``; spec decentralized-preemptive-grid).

Every number of the spec and every [DEFAULT] it adds is a parameter here; the help text names
the spec section. The capability and requirement tables (workload (grid spec §3)) are given as value
lists with their probabilities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simcore.errors import ScenarioError
from simcore.params import group, param

KIND = "grid"
MAX_TABLE = 16
# Node loads one run may keep: every report.sample_s the run stores each node's used cores and
# queue length until the result is built, about 37 bytes a node and sample (measured: 631 MB
# for 50,000 nodes x 316 samples). Over the expected span (within 20% of the runs' on the
# presets), 25,000,000 is about 0.9 GB (docs/grid.md "Limits and price").
MAX_LOAD_CELLS = 25_000_000
# With alpha > beta a waiting job's priority outgrows a running one's, so the preemptive
# schedulers swap jobs at every tick: the work is the jobs in the system x the ticks (measured
# 4-9 µs and about 40 bytes of preemption records a job-tick: grid-main at alpha 1.5 took
# 16 s of CPU and +130 MB for 3.1 million). 20,000,000 is about 3 minutes and 0.8 GB.
MAX_SWAP_JOB_TICKS = 20_000_000


def _mean(values, probs) -> float:
    return sum(v * p for v, p in zip(values, probs, strict=True))


def _values(default, *, unit, help, label, integer=False, low=0.0, high=1e6):
    return param(default, unit=unit, min=low, max=high, min_exclusive=not integer,
                 min_items=1, max_items=MAX_TABLE, help=help, label=label)


def _probs(default, what, *, label):
    return param(default, min=0.0, max=1.0, min_items=1, max_items=MAX_TABLE, label=label,
                 help=f"Probability of each {what} value (same order; they sum to 1).")


@dataclass(frozen=True)
class NodeParams:
    n_nodes: int = param(1000, min=1, max=50_000, unit="nodes",
                         help="Multi-core grid nodes, each with its own queue (spec §2).",
                         label="Nodes")
    cores: tuple[int, ...] = _values([1, 2, 4, 8], unit="cores", integer=True, low=1,
                                     high=1024, help="Core counts of the nodes (spec §3 "
                                                     "capability table).", label="Core counts")
    cores_p: tuple[float, ...] = _probs([0.30, 0.30, 0.25, 0.15], "core count",
                                        label="Core count probabilities")
    speed: tuple[float, ...] = _values([0.5, 1.0, 1.5, 2.0], unit="x canonical",
                                       help="CPU speeds relative to the canonical node; a job "
                                            "of estimate E runs E / speed (spec §2, §3).",
                                       label="CPU speeds")
    speed_p: tuple[float, ...] = _probs([0.2, 0.4, 0.25, 0.15], "speed",
                                        label="Speed probabilities")
    memory_gb: tuple[float, ...] = _values([1, 2, 4, 8], unit="GB",
                                           help="Memory sizes (spec §3; whole MiB).",
                                           label="Memory sizes")
    memory_p: tuple[float, ...] = _probs([0.3, 0.3, 0.25, 0.15], "memory",
                                         label="Memory probabilities")
    disk_gb: tuple[float, ...] = _values([20, 50, 100, 200], unit="GB",
                                         help="Disk sizes (spec §3; whole MiB).",
                                         label="Disk sizes")
    disk_p: tuple[float, ...] = _probs([0.3, 0.3, 0.25, 0.15], "disk", label="Disk probabilities")


@dataclass(frozen=True)
class JobParams:
    n_jobs: int = param(5000, min=1, max=1_000_000, unit="jobs",
                        help="Jobs submitted (spec §3).", label="Jobs")
    iat_s: float = param(2.0, min=0.0, max=1e6, min_exclusive=True, unit="s",
                         help="Mean inter-arrival time of the Poisson arrivals: the load knob "
                              "(spec §3; the paper shows 1.5, 2.0, 2.5 and 4.0 s).",
                         label="Mean inter-arrival time")
    run_mean_s: float = param(3600.0, min=0.0, max=1e7, min_exclusive=True, unit="s",
                              help="T: estimated run times ~ Uniform(0.5 T, 1.5 T) on the "
                                   "canonical node of speed 1 (spec §3).", label="Mean run time T")
    run_spread: float = param(0.5, min=0.0, max=0.99, advanced=True,
                              help="Half-width of the run-time range as a fraction of T "
                                   "(0.5 gives 0.5 T .. 1.5 T).", label="Run-time spread")
    cores: tuple[int, ...] = _values([1, 2, 4, 8], unit="cores", integer=True, low=1,
                                     high=1024,
                                     help="Cores a job needs (spec §3 requirement table).",
                                     label="Cores needed")
    cores_p: tuple[float, ...] = _probs([0.70, 0.15, 0.10, 0.05], "core requirement",
                                        label="Cores needed probabilities")
    min_speed: tuple[float, ...] = param([0.0, 1.0, 1.5], unit="x canonical", min=0.0, max=1e6,
                                         min_items=1, max_items=MAX_TABLE,
                                         help="Minimum node speed a job needs; 0 = none "
                                              "(spec §3, §10 #15).", label="Minimum speed needed")
    min_speed_p: tuple[float, ...] = _probs([0.80, 0.15, 0.05], "minimum speed",
                                            label="Minimum speed probabilities")
    memory_gb: tuple[float, ...] = _values([0.5, 1, 2, 4], unit="GB",
                                           help="Memory a job needs (spec §3; whole MiB).",
                                           label="Memory needed")
    memory_p: tuple[float, ...] = _probs([0.5, 0.3, 0.15, 0.05], "memory requirement",
                                         label="Memory needed probabilities")
    disk_gb: tuple[float, ...] = _values([5, 10, 20, 50], unit="GB",
                                         help="Disk a job needs (spec §3; whole MiB).",
                                         label="Disk needed")
    disk_p: tuple[float, ...] = _probs([0.5, 0.3, 0.15, 0.05], "disk requirement",
                                       label="Disk needed probabilities")


@dataclass(frozen=True)
class MatchParams:
    sample: int = param(8, min=1, max=1000, unit="nodes",
                        help="The owner node samples up to this many random eligible nodes and "
                             "picks the one with the lowest normalized load L_i (spec §3).",
                        label="Nodes sampled")
    load: str = param("queued", choices=("queued", "queued+running"), advanced=True,
                      help="L_i = max over resources of the queued demand / capacity "
                           "(queued, spec §6.4), or of queued plus running demand.",
                      label="Load L_i")


@dataclass(frozen=True)
class SchedulerParams:
    alpha: float = param(0.0, min=0.0, max=1000.0,
                         help="Weight of the wait W in the priority alpha W - beta T_rem "
                              "(spec §4; 0 = preemptive shortest remaining time, 0.5 = aging).",
                         label="Wait weight α")
    beta: float = param(1.0, min=0.0, max=1000.0,
                        help="Weight of the remaining time T_rem in the priority (spec §4).",
                        label="Remaining-time weight β")
    delta_s: float = param(5.0, min=0.5, max=86400.0, unit="s",
                           help="Scheduling interval: local scheduling, then PUSH, then PULL "
                                "on every node (spec §5.1, §6; 2.5 s is also tested).",
                           label="Scheduling interval δ")
    victims: str = param("exact", choices=("exact", "greedy"),
                         help="Victim choice when a queued job preempts: exact search for the "
                              "subset freeing just enough (spec §5.3 default) or greedy "
                              "lowest-priority-first accumulation (the option of §5.3).",
                         label="Victim choice")
    pull_recent: int = param(3, min=0, max=1000, unit="intervals", advanced=True,
                             help="A PULL skips a neighbour it contacted within this many "
                                  "intervals (spec §6.3, §10 #14).", label="PULL skip window")
    migrated_start: str = param(
        "now", choices=("now", "next-tick"),
        help="When a PUSHed or PULLed job starts on its new node: at once (spec §6.2, 'target "
             "starts h'), or when the receiver's scheduler next runs, at the next tick or an "
             "earlier event there (the job waits in its queue meanwhile).",
        label="Migrated job start")
    migrate_suspended: bool = param(
        False, advanced=True,
        help="May a suspended job (waiting, with progress) migrate? The spec keeps preempted "
             "jobs in their node's queue (§2); on true they move like any waiting job.",
        label="Suspended jobs may migrate")


@dataclass(frozen=True)
class ReportParams:
    omit_lowest: int = param(2000, min=0, max=1_000_000, unit="jobs",
                             help="The cumulative wait curve omits this many lowest waits "
                                  "(spec §8, Fig. 5).", label="Lowest waits omitted")
    tail_jobs: int = param(200, min=1, max=1_000_000, unit="jobs",
                           help="The tail: this many highest waits (spec §8, Fig. 6).",
                           label="Tail length")
    sample_s: float = param(60.0, min=1.0, max=86400.0, unit="s", advanced=True,
                            help="Node load is sampled every this many seconds for the "
                                 "per-minute series and the load map.",
                            label="Load sample interval")


@dataclass(frozen=True)
class GridConfig:
    nodes: NodeParams = group(NodeParams, label="Nodes")
    jobs: JobParams = group(JobParams, label="Jobs")
    matchmaking: MatchParams = group(MatchParams, label="Matchmaking")
    scheduler: SchedulerParams = group(SchedulerParams, label="Scheduler")
    report: ReportParams = group(ReportParams, label="Report")

    def validate(self) -> None:
        n, j = self.nodes, self.jobs
        for prefix, table in (("nodes", n), ("jobs", j)):
            for name in ("cores", "speed", "min_speed", "memory_gb", "disk_gb"):
                if not hasattr(table, name):
                    continue
                values = getattr(table, name)
                pname = name.replace("_gb", "") + "_p"
                probs = getattr(table, pname)
                if len(probs) != len(values):
                    raise ScenarioError(f"{prefix}.{pname}",
                                        f"needs one probability per value of {prefix}.{name} "
                                        f"({len(values)}); got {len(probs)}")
                if not math.isclose(sum(probs), 1.0, abs_tol=1e-6):
                    raise ScenarioError(f"{prefix}.{pname}",
                                        f"must sum to 1; got {sum(probs):.6g}")
        for name in ("memory_gb", "disk_gb"):
            for prefix, values in (("nodes", getattr(n, name)), ("jobs", getattr(j, name))):
                if min(values) * 1024 < 0.5:
                    raise ScenarioError(f"{prefix}.{name}", "values must be at least 1 MiB")
        # Every job class must have somewhere to run (workload (grid spec §3) resamples
        # unsatisfiable jobs): at least the largest node of the table must take the smallest job.
        small = (min(j.cores), min(j.min_speed), min(j.memory_gb), min(j.disk_gb))
        if (max(n.cores) < small[0] or max(n.speed) < small[1] or max(n.memory_gb) < small[2]
                or max(n.disk_gb) < small[3]):
            raise ScenarioError("jobs.cores", "no node of the capability table can run even "
                                              "the smallest job of the requirement table")
        if self.report.tail_jobs > j.n_jobs:
            raise ScenarioError("report.tail_jobs",
                                f"must be <= jobs.n_jobs ({j.n_jobs}); got "
                                f"{self.report.tail_jobs}")
        # Bounded work: the simulated span over the interval gives the number of ticks.
        span = self.span_bound()
        ticks = span / self.scheduler.delta_s
        if ticks > 20_000_000:
            raise ScenarioError("scheduler.delta_s",
                                f"gives about {ticks:,.0f} scheduling intervals; at most "
                                "20,000,000 (raise delta_s or lower the job count)")
        samples = span / self.report.sample_s
        if samples > 200_000:
            raise ScenarioError("report.sample_s",
                                f"gives about {samples:,.0f} load samples; at most 200,000")
        swaps = self.swap_job_ticks()
        if swaps > MAX_SWAP_JOB_TICKS:
            raise ScenarioError("scheduler.delta_s",
                                f"with scheduler.alpha ({self.scheduler.alpha:g}) above "
                                f"scheduler.beta ({self.scheduler.beta:g}) the preemptive "
                                f"schedulers swap jobs at every tick: about {swaps:,.0f} "
                                f"job-ticks (jobs in the system x ticks); at most "
                                f"{MAX_SWAP_JOB_TICKS:,} (raise delta_s, or lower alpha or "
                                f"the job count)")
        cells = self.load_cells()
        if cells > MAX_LOAD_CELLS:
            raise ScenarioError("report.sample_s",
                                f"gives about {cells / n.n_nodes:,.0f} load samples x "
                                f"{n.n_nodes:,} nodes = {cells:,.0f} node loads kept; at most "
                                f"{MAX_LOAD_CELLS:,} (raise report.sample_s or lower "
                                f"nodes.n_nodes)")

    def load_cells(self) -> float:
        """Node loads the run samples: the nodes x the samples over the expected span."""
        return self.nodes.n_nodes * (self.span_expected() / self.report.sample_s + 1)

    def span_bound(self) -> float:
        """A generous bound on the simulated span (s): every arrival, then 20 of the longest
        runs on the slowest node. The caps on ticks and load samples use it."""
        n, j = self.nodes, self.jobs
        return j.n_jobs * j.iat_s + 20 * j.run_mean_s * (1 + j.run_spread) / min(n.speed)

    def swap_job_ticks(self) -> float:
        """Job-ticks of swapping when alpha > beta (else 0): the jobs in the system over the
        span (at least their run times on the average node) x the ticks, which is the job count
        x the mean run time / delta_s whatever the span."""
        n, j, s = self.nodes, self.jobs, self.scheduler
        if s.alpha <= s.beta:
            return 0.0
        run = j.run_mean_s / max(_mean(n.speed, n.speed_p), 1e-9)
        return j.n_jobs * run / s.delta_s

    def span_expected(self) -> float:
        """The simulated span (s) the price expects: the arrivals, or the work over the cores
        when that takes longer (overload), then twice the longest run on the slowest node.
        Within 20% of the runs' spans on grid-small, grid-main, grid-iat-1.5 and grid-iat-4
        (docs/grid.md "Limits and price")."""
        n, j = self.nodes, self.jobs
        work = (j.n_jobs * j.run_mean_s * _mean(j.cores, j.cores_p)
                / max(_mean(n.speed, n.speed_p), 1e-9))
        cores = n.n_nodes * _mean(n.cores, n.cores_p)
        return (max(j.n_jobs * j.iat_s, work / cores)
                + 2 * j.run_mean_s * (1 + j.run_spread) / min(n.speed))
