"""Scenario parameters of the ch4 environment (``serial-preemption``).

Every [DEFAULT] of ``spec/ch4-preemption-serial.md`` is a parameter here; the help text names
the spec section it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.errors import ScenarioError
from simcore.params import group, param

KIND = "serial-preemption"


@dataclass(frozen=True)
class SystemParams:
    n_clusters: int = param(5, min=1, max=20, help="Clusters of identical cores (spec ch4 §2).",
                            label="Clusters")
    cores_per_cluster: int = param(
        160, min=1, max=4000, unit="cores",
        help="Average cores per cluster; the total is n_clusters x this (spec ch4 §2, A2).",
        label="Cores per cluster")
    cluster_sizes: str = param(
        "equal", choices=("equal", "gamma"),
        help="equal: every cluster has cores_per_cluster cores. gamma: per-trial sizes "
             "round(Gamma(mean, COV)), at least min_cores, rescaled to the same total "
             "(spec ch4 A2).", label="Cluster sizes")
    cluster_size_cov: float = param(0.3, min=0.0, max=2.0, advanced=True,
                                    help="COV of the gamma cluster sizes (spec ch4 A2).",
                                    label="Cluster size COV")
    min_cores: int = param(16, min=1, max=4000, unit="cores", advanced=True,
                           help="Smallest gamma cluster (spec ch4 A2).", label="Smallest cluster")

    @property
    def total_cores(self) -> int:
        return self.n_clusters * self.cores_per_cluster


@dataclass(frozen=True)
class EtcParams:
    n_types: int = param(100, min=1, max=2000, help="Task types (spec ch4 §3.1, A1).",
                         label="Task types")
    n_critical_types: int = param(20, min=0, max=2000,
                                  help="Task types used for critical tasks (spec ch4 §3.1, A1).",
                                  label="Critical task types")
    critical_mean_min: float = param(10.0, min=0.1, max=10000, unit="min",
                                     help="Nominal mean execution time of critical types "
                                          "(spec ch4 §3.2; Fig. 39 sweeps 10/30/50).",
                                     label="Mean execution time of critical types")
    noncritical_mean_min: float = param(50.0, min=0.1, max=10000, unit="min",
                                        help="Nominal mean execution time of non-critical types.",
                                        label="Mean execution time of non-critical types")
    task_cov: float = param(0.1, min=0.0, max=2.0, advanced=True,
                            help="COV across task types (reference cluster draw, spec ch4 §3.2).",
                            label="COV across task types")
    cluster_cov: float = param(0.3, min=0.0, max=2.0, advanced=True,
                               help="COV across clusters (machine heterogeneity, spec ch4 §3.2).",
                               label="COV across clusters")
    etc_mode: str = param(
        "text", choices=("text", "classic"), advanced=True,
        help="text: cluster 0 keeps the reference time q_k, the others ~ Gamma(q_k, COV). "
             "classic: every cluster ~ Gamma(q_k, COV) (spec ch4 §3.2 step 4, A3).",
        label="ETC generation")


@dataclass(frozen=True)
class WorkloadParams:
    tasks_per_core_per_day: float = param(
        75.0, min=0.01, max=10000, unit="tasks/core/day",
        help="Mean arrivals per core per 24 h; 75 on 800 cores = 60,000/day (spec ch4 §4.1).",
        label="Arrival rate")
    burst_size: float = param(64.0, min=1, max=10000, unit="tasks",
                              help="Mean burst size B; sizes are uniform on "
                                   "[ceil(B/2), floor(3B/2)] (spec ch4 §4.3, A6).",
                              label="Mean burst size B")
    burst_spread: float = param(0.5, min=0.0, max=0.99, advanced=True,
                                help="Half-width of the burst-size range as a fraction of B.",
                                label="Burst-size spread")
    cycles_min: int = param(1, min=0, max=1000, advanced=True, unit="cycles/day",
                            help="Fewest whole sine cycles per day of a type's burst rate "
                                 "(spec ch4 A5).", label="Fewest burst-rate cycles")
    cycles_max: int = param(23, min=0, max=1000, advanced=True, unit="cycles/day",
                            help="Most whole sine cycles per day of a type's burst rate "
                                 "(spec ch4 A5).", label="Most burst-rate cycles")
    amplitude_min: float = param(0.25, min=0.0, max=1.0, advanced=True,
                                 help="Smallest relative amplitude of the burst rate "
                                      "(spec ch4 A5).", label="Smallest burst-rate amplitude")
    amplitude_max: float = param(0.90, min=0.0, max=1.0, advanced=True,
                                 help="Largest relative amplitude of the burst rate "
                                      "(spec ch4 A5).", label="Largest burst-rate amplitude")
    p_can_preempt: float = param(1.0, min=0.0, max=1.0,
                                 help="Probability that a task may preempt others "
                                      "(per task; Fig. 38 sweeps 0..1, spec ch4 §4.5).",
                                 label="Probability a task may preempt")
    p_preemptible: float = param(1.0, min=0.0, max=1.0,
                                 help="Probability that a task may be preempted "
                                      "(per task, independent of p_can_preempt).",
                                 label="Probability a task may be preempted")


@dataclass(frozen=True)
class UtilityParams:
    family: str = param(
        "classes", choices=("step", "decay", "classes"),
        help="step: S until E_k (critical) / 10 E_k; decay: flat to E_k then one 200-min "
             "exponential interval; classes: 20 generated utility classes (spec ch4 §5, A20).",
        label="Utility family")
    critical_utility: float = param(8.0, min=0.0, max=1e6, min_exclusive=True,
                                    help="Starting utility S of critical tasks (spec ch4 §4.2).",
                                    label="Starting utility of critical tasks")
    noncritical_utility: float = param(1.0, min=0.0, max=1e6, min_exclusive=True,
                                       help="Starting utility S of non-critical tasks.",
                                       label="Starting utility of non-critical tasks")
    average_time: str = param(
        "row-mean", choices=("row-mean", "nominal", "reference"), advanced=True,
        help="E_k, the type's average execution time used by the utility functions: mean of "
             "its ETC row, the nominal 10/50 min, or the reference draw q_k (spec ch4 A4).",
        label="Average execution time E_k")
    step_noncritical_factor: float = param(10.0, min=0.0, max=1000, min_exclusive=True,
                                           advanced=True, unit="x E_k",
                                           help="Non-critical step window in units of E_k "
                                                "(spec ch4 §5.2).",
                                           label="Non-critical step window")
    decay_length_min: float = param(200.0, min=0.0, max=100000, unit="min", advanced=True,
                                    help="Length of the decaying class's decay interval "
                                         "(spec ch4 §5.3).", label="Decay-family decay length")
    urgency: float = param(0.3, min=0.0, max=100, advanced=True,
                           help="Urgency of the decaying class (spec ch4 §5.3).",
                           label="Decay-family urgency")
    urgency_time_unit_min: float = param(
        10.0, min=0.0, max=10000, min_exclusive=True, unit="min", advanced=True,
        help="Time unit of the urgency: decay rate = urgency / this per minute (spec ch4 A7; "
             "the sensitivity run uses 1).", label="Urgency time unit")
    n_classes: int = param(20, min=1, max=1000, advanced=True,
                           help="Utility classes of the 'classes' family (spec ch4 §5.4, A8).",
                           label="Utility classes")
    classes_seed: int = param(20, min=0, max=2**31 - 1, advanced=True,
                              help="Seed of the class table; shared by all trials (spec ch4 A8).",
                              label="Class table seed")
    class_start: str = param(
        "arrival", choices=("arrival", "after-average"), advanced=True,
        help="When a class starts to decay: at arrival, after its optional lead-in (like "
             "the Fig. 34 example, 5.18 of 8 at 15 min), or only after the type's average "
             "execution time E_k (at least; as the chapter builds its step and decaying "
             "families), so a task's own length costs no utility (spec ch4 §5.4, A8).",
        label="Class decay starts")
    lead_in_prob: float = param(0.5, min=0.0, max=1.0, advanced=True,
                                help="Probability that a class has its optional flat lead-in.",
                                label="Lead-in probability")
    lead_in_max: float = param(1.0, min=0.0, max=100, advanced=True, unit="x E_k",
                               help="Lead-in length a_c E_k with a_c ~ U(0, this).",
                               label="Longest lead-in")
    intervals_min: int = param(1, min=1, max=10, advanced=True,
                               help="Fewest decay intervals per class.",
                               label="Fewest decay intervals")
    intervals_max: int = param(3, min=1, max=10, advanced=True,
                               help="Most decay intervals per class.", label="Most decay intervals")
    interval_min: float = param(20.0, min=0.0, max=100000, unit="min", advanced=True,
                                help="Shortest decay interval of a class.",
                                label="Shortest decay interval")
    interval_max: float = param(100.0, min=0.0, max=100000, unit="min", advanced=True,
                                help="Longest decay interval of a class.",
                                label="Longest decay interval")
    rate_min: float = param(0.005, min=0.0, max=100, unit="1/min", advanced=True,
                            help="Smallest decay rate of a class interval.",
                            label="Smallest decay rate")
    rate_max: float = param(0.05, min=0.0, max=100, unit="1/min", advanced=True,
                            help="Largest decay rate of a class interval.",
                            label="Largest decay rate")
    jump_min: float = param(0.5, min=0.0, max=1.0, min_exclusive=True, advanced=True,
                            help="Smallest drop factor between class intervals.",
                            label="Smallest drop factor")
    jump_max: float = param(1.0, min=0.0, max=1.0, min_exclusive=True, advanced=True,
                            help="Largest drop factor between class intervals.",
                            label="Largest drop factor")


@dataclass(frozen=True)
class SchedulerParams:
    duration_min: float = param(1680.0, min=1, max=20160, unit="min",
                                help="Simulated time; 28 h (spec ch4 §4.1).",
                                label="Simulated time")
    warmup_min: float = param(240.0, min=0, max=20160, unit="min",
                              help="Warm-up excluded from the statistics; 4 h (spec ch4 §4.1).",
                              label="Warm-up")
    mapping_interval_min: float = param(1.0, min=0.05, max=1440, unit="min",
                                        help="Time between mapping events (spec ch4 §8.1, A10).",
                                        label="Mapping interval")
    tie_break: str = param(
        "index", choices=("index", "random", "fastest"), advanced=True,
        help="Clusters with equal objective: lowest index, random order per event, or the "
             "fastest for the task (spec ch4 §8.4).", label="Ties between clusters")
    fcfs_core: str = param("random", choices=("random", "first"), advanced=True,
                           help="FCFS's 'arbitrary' idle core: uniform random or the lowest "
                                "feasible index (spec ch4 §9.2).", label="FCFS idle core choice")
    pair_tie: str = param(
        "wait", choices=("wait", "preempt"), advanced=True,
        help="Pair, equal nets of the two orderings on a core: no preemption (spec ch4 A18; "
             "the text: 'Tasks are not preempted unless higher utility can be earned for another "
             "task'), or preempt (the Pair paragraph drops preemption on a core only 'if the "
             "second ordering results in higher Util'; with flat utilities two tasks then "
             "swap cores at every event).", label="Pair: equal orderings")
    min_utility: float = param(0.0, min=0.0, max=1e6, advanced=True,
                               help="Dropping threshold: assignments need utility strictly "
                                    "above it (spec ch4 A9).", label="Dropping threshold")


@dataclass(frozen=True)
class SerialConfig:
    system: SystemParams = group(SystemParams, label="System")
    etc: EtcParams = group(EtcParams, label="Execution times (ETC)")
    workload: WorkloadParams = group(WorkloadParams, label="Workload")
    utility: UtilityParams = group(UtilityParams, label="Utility functions")
    scheduler: SchedulerParams = group(SchedulerParams, label="Resource manager")

    def validate(self):
        s, e, w, u, r = self.system, self.etc, self.workload, self.utility, self.scheduler
        if s.cluster_sizes == "gamma" and s.min_cores > s.cores_per_cluster:
            raise ScenarioError("system.min_cores",
                                f"must be <= cores_per_cluster ({s.cores_per_cluster})")
        if e.n_critical_types > e.n_types:
            raise ScenarioError("etc.n_critical_types",
                                f"must be <= etc.n_types ({e.n_types}); got {e.n_critical_types}")
        for lo, hi, name in [
            (w.cycles_min, w.cycles_max, "workload.cycles_min"),
            (w.amplitude_min, w.amplitude_max, "workload.amplitude_min"),
            (u.intervals_min, u.intervals_max, "utility.intervals_min"),
            (u.interval_min, u.interval_max, "utility.interval_min"),
            (u.rate_min, u.rate_max, "utility.rate_min"),
            (u.jump_min, u.jump_max, "utility.jump_min"),
        ]:
            if lo > hi:
                partner = name.rsplit("_", 1)[0] + "_max"
                raise ScenarioError(name, f"must be <= {partner} ({hi}); got {lo}")
        if r.warmup_min >= r.duration_min:
            raise ScenarioError("scheduler.warmup_min",
                                f"must be < scheduler.duration_min ({r.duration_min}); "
                                f"got {r.warmup_min}")
        rows = u.n_classes * e.n_types
        if u.family == "classes" and rows > 50_000:
            raise ScenarioError("utility.n_classes",
                                f"n_classes x etc.n_types must be <= 50000 (one utility "
                                f"function per class and type); got {rows}")
        cores = s.total_cores
        if cores > 20000:
            raise ScenarioError("system.cores_per_cluster",
                                f"n_clusters x cores_per_cluster must be <= 20000; got {cores}")
        tasks = w.tasks_per_core_per_day * cores * r.duration_min / 1440.0
        if tasks > 2_000_000:
            raise ScenarioError("workload.tasks_per_core_per_day",
                                f"gives about {tasks:,.0f} tasks; at most 2,000,000 per run")
        events = r.duration_min / r.mapping_interval_min
        if events > 200_000:
            raise ScenarioError("scheduler.mapping_interval_min",
                                f"gives {events:,.0f} mapping events; at most 200,000")
