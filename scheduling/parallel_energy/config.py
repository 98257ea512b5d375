"""Scenario parameters of the ch3 environment (kind ``parallel-energy``) and its presets.

Every fixed setting of fixed settings (ch. 3 spec §6.1) and every [D]efault switch of ambiguities
and defaults (ch. 3 spec §9) is a parameter here; the A-numbers in the help texts refer to the
spec's ambiguity table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scheduling.hpc.traces import check_trace_name
from simcore.errors import ScenarioError
from simcore.params import group, param

KIND = "parallel-energy"

# Mapping events one run may ask for (time.sim_h x 3600 / time.mapping_interval_s), as the
# ch. 4 and VoS kinds: checked at validation, so the CLI, the forms and the API refuse it
# naming the parameter. Every event costs the engine 40 µs or more (docs/ch3.md "Limits and
# price"), and nine per-event records are kept until the result is built.
MAX_MAPPING_EVENTS = 200_000


@dataclass(frozen=True)
class ClusterSpec:
    name: str = param("GP1", help="cluster name")
    kind: str = param("general", choices=("general", "special"),
                      help="general-purpose clusters run GP task types; each special-purpose "
                           "cluster runs only its own SP types")
    cores_per_node: int = param(32, min=1, max=4096, unit="cores")
    nodes: int = param(360, min=1, max=100_000, unit="nodes")


def default_clusters() -> tuple[ClusterSpec, ...]:
    # Default cluster configuration (ch. 3 spec §1.6) calibrated table (cores per node and nodes per
    # cluster (ch. 3 spec A1)): 1,850 nodes, exactly 100,000 cores.
    return (
        ClusterSpec("GP1", "general", 32, 360),
        ClusterSpec("GP2", "general", 48, 280),
        ClusterSpec("GP3", "general", 64, 240),
        ClusterSpec("GP4", "general", 56, 300),
        ClusterSpec("SP1", "special", 64, 320),
        ClusterSpec("SP2", "special", 64, 350),
    )


@dataclass(frozen=True)
class SystemConfig:
    clusters: tuple[ClusterSpec, ...] = group(default_clusters, min_items=1, max_items=32,
                                              help="clusters of identical nodes (spec §1.6)",
                                              label="Clusters")
    pstate_power_factors: tuple[float, ...] = param(
        [1.0, 0.75, 0.5], min=0.01, max=1.0, min_items=1, max_items=15,
        help="base power scaling factor f_p per P-state, fastest first (spec §2.7)",
        label="P-state power factors")


@dataclass(frozen=True)
class CoreRow:
    share: float = param(0.2, min=0.0, max=1.0, help="share of task types using this row")
    min_cores: int = param(2, min=-100_000, max=1_000_000, unit="cores",
                           help="values <= 0 are relative to the type's max cores "
                                "(0 = max, -1 = max - 1)")
    max_cores: int = param(4, min=-100_000, max=1_000_000, unit="cores",
                           help="values <= 0 are relative to the type's max cores")
    pattern: str = param("sinusoidal", choices=("sinusoidal", "work-hours"),
                         help="arrival-rate pattern of types in this row (spec §2.10)")


def default_core_rows() -> tuple[CoreRow, ...]:
    # Spec Table 4.
    return (
        CoreRow(0.20, 2, 4, "sinusoidal"),
        CoreRow(0.20, 5, 256, "sinusoidal"),
        CoreRow(0.40, 257, 4096, "sinusoidal"),
        CoreRow(0.19, 4097, -1, "work-hours"),
        CoreRow(0.01, 0, 0, "work-hours"),
    )


TABLE3_PRIORITY_RANGES = ((6.0, 8.0), (4.0, 6.0), (2.0, 4.0), (1.0, 2.0))
TABLE3_URGENCIES = (0.6, 0.2, 0.1, 0.01)
TABLE3_JOINT = (
    (0.02, 0.02, 0.0005, 0.0),
    (0.0345, 0.05, 0.015, 0.03),
    (0.0, 0.10, 0.10, 0.10),
    (0.0, 0.0, 0.20, 0.33),
)


@dataclass(frozen=True)
class WorkloadConfig:
    source: str = param("synthetic", choices=("synthetic", "trace", "testbed"),
                        help="synthetic generator (spec §2), trace-driven arrivals (spec §3) or "
                             "the testbed benchmarks of spec §8", label="Workload source")
    tasks_per_day: float = param(5000.0, min=1.0, max=200_000.0, unit="tasks/day",
                                 help="mean arrivals per day over all task types",
                                 label="Arrival rate")
    gp_types: int = param(60, min=0, max=1000, help="general-purpose task types",
                          label="General-purpose task types")
    sp_types_per_cluster: int = param(20, min=0, max=1000,
                                      help="task types per special-purpose cluster",
                                      label="Special-purpose task types per cluster")
    priority_ranges: tuple[tuple[float, ...], ...] = param(
        TABLE3_PRIORITY_RANGES, min=0.0, max=1000.0, advanced=True,
        help="starting-utility range (lo, hi] per priority level (spec Table 3 rows)",
        label="Starting utility per priority level")
    urgencies: tuple[float, ...] = param(TABLE3_URGENCIES, min=0.0, max=100.0,
                                         advanced=True, unit="1/h",
                                         help="urgency (decay rate) per Table 3 column",
                                         label="Urgency levels")
    joint_probabilities: tuple[tuple[float, ...], ...] = param(
        TABLE3_JOINT, min=0.0, max=1.0, advanced=True,
        help="joint probability of (priority level, urgency), rows x columns of Table 3",
        label="Priority and urgency probabilities")
    single_core_h_low: float = param(1.0, min=0.001, max=1000.0, unit="h",
                                     label="Mean single-core time, lowest priority",
                                     help="mean single-core time at the lowest priority (spec "
                                          "§2.4)")
    single_core_h_high: float = param(18.0, min=0.001, max=1000.0, unit="h",
                                      label="Mean single-core time, highest priority",
                                      help="mean single-core time at the highest priority")
    single_core_cov: float = param(0.15, min=0.0, max=2.0, help="COV of single-core time",
                                   label="Single-core time COV")
    hetero_cov: float = param(0.3, min=0.0, max=2.0,
                              help="COV of single-core time across clusters (spec §2.5)",
                              label="Single-core time COV across clusters")
    power_mean_w: float = param(133.0, min=0.1, max=100_000.0, unit="W/node",
                                help="mean P-state-0 power per node (spec §2.6)",
                                label="Mean node power in P-state 0")
    power_cov: float = param(0.2, min=0.0, max=2.0, help="COV of power across clusters",
                             label="Power COV across clusters")
    r_cov_gp: float = param(0.3, min=0.0, max=2.0, help="COV of the P-state randomness factor, GP",
                            label="P-state randomness COV, general-purpose")
    r_cov_sp: float = param(0.2, min=0.0, max=2.0, help="COV of the P-state randomness factor, SP",
                            label="P-state randomness COV, special-purpose")
    pstate_cov_gp: float = param(0.03, min=0.0, max=2.0,
                                 help="COV of P-state power/time multipliers, GP (spec ch3 A12)",
                                 label="P-state multiplier COV, general-purpose")
    pstate_cov_sp: float = param(0.02, min=0.0, max=2.0,
                                 help="COV of P-state power/time multipliers, SP (spec ch3 A12)",
                                 label="P-state multiplier COV, special-purpose")
    r_granularity: str = param("type-cluster", choices=("type-cluster", "type-cluster-pstate"),
                               advanced=True, help="one randomness factor r per (type, cluster) "
                                                   "or per (type, cluster, P-state) (spec ch3 A11)",
                               label="Randomness factor granularity")
    core_rows: tuple[CoreRow, ...] = group(default_core_rows, min_items=1, max_items=20,
                                           help="core-count rows of spec Table 4",
                                           label="Core-count rows (Table 4)")
    row_assignment: str = param("exact", choices=("exact", "iid"), advanced=True,
                                help="rows assigned to types in exact shares (shuffled) or drawn "
                                     "i.i.d. per type (spec ch3 A6)", label="Row assignment")
    cores_per_task: str = param("uniform", choices=("uniform", "fixed-per-type"), advanced=True,
                                help="each task draws its cores within its type's row, or each "
                                     "type has one core count (spec ch3 A6)",
                                label="Cores per task")
    gp_max_cores: str = param("smallest", choices=("smallest", "largest"), advanced=True,
                              help="'max cores of cluster' for GP types: smallest or largest GP "
                                   "cluster (spec ch3 A7)",
                              label="Max cores of general-purpose types")
    sigma_min: float = param(4.0, min=0.0, max=1000.0, help="Downey sigma lower bound (§2.9)",
                             label="Smallest Downey σ")
    sigma_max: float = param(10.0, min=0.0, max=1000.0, help="Downey sigma upper bound",
                             label="Largest Downey σ")
    etc_mode: str = param("downey", choices=("downey", "table"),
                          help="ETC from the Downey model directly, or from a powers-of-two "
                               "table with linear interpolation (spec §1.3)", label="ETC model")
    arrival_amplitude: float = param(0.5, min=0.0, max=1.0,
                                     help="relative amplitude of the sinusoidal rate (spec ch3 A9)",
                                     label="Arrival-rate amplitude")
    arrival_period_h: float = param(24.0, min=0.1, max=1000.0, unit="h",
                                    label="Arrival-rate period")
    arrival_phase: str = param("random", choices=("random", "common"),
                               help="random phase per type, or a common phase peaking at 15:00 "
                                    "(spec ch3 A9)", label="Arrival-rate phase")
    work_start_h: float = param(9.0, min=0.0, max=24.0, unit="h of day", label="Work hours start")
    work_end_h: float = param(18.0, min=0.0, max=24.0, unit="h of day", label="Work hours end")
    work_factor: float = param(2.0, min=0.0, max=100.0,
                               help="work-hours rate as a multiple of the mean rate",
                               label="Work-hours rate factor")

    def validate(self):
        if self.gp_types + self.sp_types_per_cluster == 0:
            raise ScenarioError("workload.gp_types", "gp_types and sp_types_per_cluster cannot "
                                                     "both be 0")
        if len(self.priority_ranges) != len(self.joint_probabilities):
            raise ScenarioError("workload.joint_probabilities",
                                "needs one row per priority range")
        for i, rng in enumerate(self.priority_ranges):
            if len(rng) != 2 or not (0 < rng[0] <= rng[1]):
                raise ScenarioError(f"workload.priority_ranges.{i}",
                                    "must be [lo, hi] with 0 < lo <= hi")
        for i, row in enumerate(self.joint_probabilities):
            if len(row) != len(self.urgencies):
                raise ScenarioError(f"workload.joint_probabilities.{i}",
                                    f"needs {len(self.urgencies)} columns (one per urgency)")
        total = sum(sum(r) for r in self.joint_probabilities)
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ScenarioError("workload.joint_probabilities", f"must sum to 1, got {total:g}")
        shares = sum(r.share for r in self.core_rows)
        if not math.isclose(shares, 1.0, abs_tol=1e-6):
            raise ScenarioError("workload.core_rows", f"shares must sum to 1, got {shares:g}")
        for i, row in enumerate(self.core_rows):
            if row.min_cores > 0 and row.max_cores > 0 and row.min_cores > row.max_cores:
                raise ScenarioError(f"workload.core_rows.{i}.max_cores", "must be >= min_cores")
            if row.min_cores <= 0 < row.max_cores:
                raise ScenarioError(f"workload.core_rows.{i}.max_cores",
                                    "must be relative (<= 0) when min_cores is relative")
        if self.sigma_min > self.sigma_max:
            raise ScenarioError("workload.sigma_max", "must be >= sigma_min")
        if self.single_core_h_low > self.single_core_h_high:
            raise ScenarioError("workload.single_core_h_high", "must be >= single_core_h_low")
        if not self.work_start_h < self.work_end_h:
            raise ScenarioError("workload.work_end_h", "must be > work_start_h")
        day = self.work_end_h - self.work_start_h
        if self.work_factor * day > 24.0 + 1e-9:
            raise ScenarioError("workload.work_factor", f"must be <= {24.0 / day:g} so the "
                                                        "off-hours rate stays >= 0")


@dataclass(frozen=True)
class UtilityConfig:
    classes: int = param(20, min=1, max=1000, help="number of utility classes (spec §2.3)",
                         label="Classes")
    class_seed: int = param(20, min=0, max=2**31 - 1,
                            help="fixed seed of the class generator, shared by every trial",
                            label="Class generator seed")
    intervals_min: int = param(1, min=1, max=20, label="Fewest decay intervals")
    intervals_max: int = param(4, min=1, max=20, label="Most decay intervals")
    length_min_h: float = param(4.0, min=0.01, max=1000.0, unit="time units",
                                help="total class length H ~ U(min, max)",
                                label="Shortest class length")
    length_max_h: float = param(24.0, min=0.01, max=1000.0, unit="time units",
                                label="Longest class length")
    rate_mod_min: float = param(0.5, min=0.0, max=100.0, help="rate modifier m_j ~ U(min, max)",
                                label="Smallest rate modifier")
    rate_mod_max: float = param(2.0, min=0.0, max=100.0, label="Largest rate modifier")
    jump_min: float = param(0.5, min=0.001, max=1.0, help="downward jump rho_j ~ U(min, max)",
                            label="Smallest downward jump")
    jump_max: float = param(1.0, min=0.001, max=1.0, label="Largest downward jump")
    time_unit_h: float = param(0.1, min=0.001, max=1000.0, unit="h",
                               help="hours per class time unit: the calibration knob "
                                    "utility_time_unit_h (spec §2.3, docs/calibration.md)",
                               label="Class time unit")
    time_axis: str = param("unit", choices=("unit", "t_min"),
                           help="lateness in class time units of time_unit_h hours, or "
                                "normalised by the task's own T_min (spec ch3 A4's "
                                "alternative: a long task's class stretches with its length)",
                           label="Class time axis")
    time_unit_tmin: float = param(2.0, min=0.001, max=1000.0, unit="x T_min",
                                  help="with time_axis = t_min: one class time unit is this "
                                       "many times the task's T_min (set like time_unit_h, "
                                       "docs/calibration.md §1)",
                                  label="Class time unit on the T_min axis")

    def validate(self):
        for lo, hi in (("intervals_min", "intervals_max"), ("length_min_h", "length_max_h"),
                       ("rate_mod_min", "rate_mod_max"), ("jump_min", "jump_max")):
            if getattr(self, lo) > getattr(self, hi):
                raise ScenarioError(f"utility.{hi}", f"must be >= {lo}")


@dataclass(frozen=True)
class TimeConfig:
    sim_h: float = param(28.0, min=0.1, max=24.0 * 30, unit="h",
                         help="simulated time; mapping starts must be before its end (§4.3)",
                         label="Simulated time")
    warmup_h: float = param(4.0, min=0.0, max=24.0 * 29, unit="h",
                            help="warm-up; the analysed window W is [warm-up, sim end)",
                            label="Warm-up")
    start_clock_h: float = param(20.0, min=0.0, max=24.0, unit="h of day",
                                 help="time of day at t = 0 (spec §2.11)",
                                 label="Time of day at the start")
    mapping_interval_s: float = param(60.0, min=1.0, max=86_400.0, unit="s",
                                      help="period of mapping events (spec §5.1)",
                                      label="Mapping interval")

    def mapping_events(self) -> int:
        """Mapping events of a run: one every interval from t = 0 to the end (as the loop of
        ``sim.run_trial``)."""
        return int(math.ceil(self.sim_h * 3600.0 / self.mapping_interval_s - 1e-9))

    def validate(self):
        if self.warmup_h >= self.sim_h:
            raise ScenarioError("time.warmup_h", "must be < time.sim_h")
        events = self.mapping_events()
        if events > MAX_MAPPING_EVENTS:
            raise ScenarioError("time.mapping_interval_s",
                                f"gives {events:,} mapping events over time.sim_h = "
                                f"{self.sim_h:g} h; at most {MAX_MAPPING_EVENTS:,} (an "
                                f"interval of at least "
                                f"{self.sim_h * 3600.0 / MAX_MAPPING_EVENTS:.3g} s)")


@dataclass(frozen=True)
class EnergyConfig:
    budget_gj: float | None = param(12.0, min=0.0, max=1e6, unit="GJ/day",
                                    label="Daily energy budget",
                                    help="daily energy budget; null = unconstrained (§4.3)")
    budget_pct_of_max_upr: float | None = param(
        None, min=0.0, max=1000.0, min_exclusive=True, unit="%",
        label="Budget as a share of Max UPR PH's unconstrained energy",
        help="if set, the budget is this share of what Max UPR PH spends unconstrained on the "
             "same trial, which is how the testbed set its limits (§3.6.3); replaces budget_gj")
    warmup_budget: str = param("prorated", choices=("prorated", "none"),
                               help="warm-up day gets E x warm-up/24 h, or no constraint "
                                    "(spec ch3 A14)", label="Warm-up day's budget")
    charge: str = param("consumed", choices=("consumed", "start-day"), advanced=True,
                        help="energy charged to the day it is consumed in, or all of it to the "
                             "start day (spec ch3 A15)", label="Energy accounting")
    idle_power_w: float = param(0.0, min=0.0, max=100_000.0, unit="W/node", advanced=True,
                                help="idle power per node counted against the budget (spec ch3 A3; "
                                     "0 = task energy only)", label="Idle power per node")
    day_h: float = param(24.0, min=0.01, max=24.0 * 365, unit="h", advanced=True,
                         help="length of an accounting day: the budget period and the span of "
                              "the goal-energy line (24 h; the testbed run is one 3 h period)",
                         label="Accounting day")


@dataclass(frozen=True)
class SchedulerConfig:
    dropping_threshold: float | None = param(0.5, min=0.0, max=1000.0,
                                             help="drop a mappable task whose optimistic "
                                                  "utility is below this; 0 drops only "
                                                  "worthless tasks; null never drops (§5.4)",
                                             label="Dropping threshold")
    drop_comparison: bool = param(False, help="comparison heuristics also drop tasks (spec ch3 "
                                              "A29: off as in Fig. 25; on in Figs. 27-32)",
                                  label="Comparison heuristics drop tasks")
    ept_leniency: float = param(2.0, min=0.0, max=1000.0,
                                help="leniency of the energy-per-task filter (§5.10)",
                                label="Energy-per-task filter leniency")
    epr_leniency: float = param(4.0, min=0.0, max=1000.0,
                                help="leniency of the energy-per-resource filter (§5.10)",
                                label="Energy-per-resource filter leniency")
    ept_average: str = param("history", choices=("history", "arrived", "mappable"),
                             advanced=True,
                             help="average resources per task over the tasks executed so far "
                                  "(the chapter's 'tasks that will be executed', spec ch3 A20), "
                                  "over every task arrived so far, or over the mappable tasks' "
                                  "options", label="Energy-per-task filter average")
    honor_placeholders: bool = param(True, help="place-holders that start before the next "
                                                "event become running (spec ch3 A17)",
                                     label="Start imminent place-holders")
    committed_after_removal: bool = param(True, advanced=True,
                                          help="metaheuristic check after place-holder removal "
                                               "(spec ch3 A18)",
                                          label="Metaheuristic check after place-holder removal")
    goal_at: str = param("now", choices=("now", "latest-finish"), advanced=True,
                         help="goal energy compared at now or at the latest committed finish "
                              "(spec ch3 A19)", label="Goal energy compared at")
    random_reservations: bool = param(True, advanced=True,
                                      help="Random reserves its drawn option when it cannot "
                                           "start now, as the text reads (§3.3.4.2: repeated "
                                           "until all mappable tasks are assigned to some "
                                           "cluster); off = start now or skip (spec ch3 A23)",
                                      label="Random reserves when it cannot start")
    reservation_energy: str = param(
        "at-reservation", choices=("at-reservation", "at-start"),
        help="a permanent reservation's energy is committed to its day when the reservation is "
             "made, or checked and committed only when it starts (cancelled if it no longer "
             "fits); docs/reproduction.md, ch. 3 item 1", label="Reservation energy commitment")
    easy_reservations: str = param("system", choices=("system", "cluster"),
                                   help="EASY Backfilling holds one permanent reservation in "
                                        "the whole system, or one per cluster (it was designed "
                                        "for a homogeneous cluster)",
                                   label="EASY Backfilling reservations")
    mq_rmax_scope: str = param("trial", choices=("trial", "mappable"), advanced=True,
                               help="R_max of FCFS multiple queues over all tasks of the trial "
                                    "or the current mappable set (spec ch3 A25)",
                               label="Multiple queues: R_max over")
    mq_medium: float = param(0.3, min=0.0, max=1.0, help="medium queue from this share of R_max",
                             label="Multiple queues: medium from share of R_max")
    mq_large: float = param(0.6, min=0.0, max=1.0, help="large queue from this share of R_max",
                            label="Multiple queues: large from share of R_max")
    mq_quotas: tuple[int, ...] = param([1, 4, 8], min=1, max=10_000, min_items=3, max_items=3,
                                       help="tasks per cycle from the large, medium, small "
                                            "queues", label="Multiple queues: tasks per cycle")
    exclude_zero_utility: bool = param(True, advanced=True,
                                       help="utility-aware heuristics skip options that earn "
                                            "nothing (spec ch3 A27)",
                                       label="Skip options that earn nothing")
    max_utility_scope: str = param("overlap", choices=("overlap", "arrived-in-window"),
                                   advanced=True,
                                   help="maximum utility over every task whose ideal execution "
                                        "overlaps W, or only tasks arriving inside W "
                                        "(spec ch3 A16)", label="Maximum utility scope")

    def validate(self):
        if self.mq_medium > self.mq_large:
            raise ScenarioError("scheduler.mq_large", "must be >= mq_medium")


@dataclass(frozen=True)
class TraceConfig:
    file: str = param("lublin_256",
                      help="SWF trace: a library trace name or 'upload:<sha256>' of an "
                           "uploaded file (never a path)", label="Trace")
    machine_cores: int = param(0, min=0, max=10_000_000, unit="cores",
                               help="cores of the traced machine (0 = the header's MaxProcs)",
                               label="Cores of the traced machine")
    size_fraction: float = param(0.8, min=0.01, max=10.0,
                                 help="simulated system size as a fraction of the traced "
                                      "machine (spec §3)",
                                 label="System size as a share of the traced machine")
    cores_per_node: int = param(16, min=1, max=4096, unit="cores",
                                help="cores per node of every cluster of the scaled system",
                                label="Cores per node")
    max_job_cores: int = param(4096, min=1, max=10_000_000, unit="cores",
                               help="drop jobs that allocated more cores than this",
                               label="Widest job kept")
    day: int = param(0, min=0, max=100_000,
                     help="which trace day to simulate (0 = first full day); the sim starts "
                          "warm-up hours before it", label="Trace day")
    time_scale: float = param(1.0, min=0.001, max=1000.0, advanced=True,
                              help="multiply trace run times by this", label="Run-time scale")


# Testbed experiment (ch. 3 spec §8), Tables 6 and 7: NAS benchmarks IS.8, IS_CG.8, MG.16 and MG.8
# (rows) on the 4-cluster testbed (columns); None = infeasible.
TESTBED_CORES = (8, 8, 16, 8)
TESTBED_ETC_S = ((1675, 750, 552, 430), (1039, 900, 700, 1366), (702, 500, 380, 326),
                 (1100, 712, None, None))
TESTBED_EEC_J = ((25962, 35250, 17388, 28380), (23897, 47700, 27650, 105865),
                 (34398, 55000, 30400, 50530), (27500, 41296, None, None))


@dataclass(frozen=True)
class TestbedConfig:
    mix: tuple[float, ...] = param([0.4, 0.4, 0.1, 0.1], min=0.0, max=1.0, min_items=4,
                                   max_items=4, help="share of IS.8, IS_CG.8, MG.16, MG.8 (§8.3)",
                                   label="Benchmark mix (IS.8, IS_CG.8, MG.16, MG.8)")
    mean_interarrival_s: float = param(120.0, min=1.0, max=86_400.0, unit="s",
                                       label="Mean inter-arrival time")
    arrivals: str = param("exponential", choices=("exponential", "fixed"),
                          help="inter-arrival times exponential or fixed (spec ch3 A35)",
                          label="Inter-arrival times")
    decay_start: float = param(2.5, min=0.0, max=100.0, unit="x min ETC",
                               help="utility starts to decay this many minimum ETCs after "
                                    "arrival", label="Utility decay start")
    decay_length: float = param(2.5, min=0.0, max=100.0, unit="x min ETC",
                                help="... and reaches 0 this many minimum ETCs later",
                                label="Utility decay length")
    decay_shape: str = param("linear", choices=("linear", "step"),
                             help="linear decay, or a step to 0 at the decay start (spec ch3 A35)",
                             label="Utility decay shape")

    def validate(self):
        if abs(sum(self.mix) - 1.0) > 1e-6:
            raise ScenarioError("testbed.mix", "must sum to 1")


@dataclass(frozen=True)
class ParallelEnergyConfig:
    system: SystemConfig = group(SystemConfig, help="clusters and P-states", label="System")
    workload: WorkloadConfig = group(WorkloadConfig, help="task types and arrivals",
                                     label="Workload")
    utility: UtilityConfig = group(UtilityConfig, help="utility classes", label="Utility classes")
    time: TimeConfig = group(TimeConfig, help="horizon and mapping events", label="Time")
    energy: EnergyConfig = group(EnergyConfig, help="daily energy budget", label="Energy budget")
    scheduler: SchedulerConfig = group(SchedulerConfig, help="resource manager",
                                       label="Resource manager")
    trace: TraceConfig = group(TraceConfig, help="trace-driven arrivals (workload.source = "
                                                 "trace)", label="Trace-driven arrivals")
    testbed: TestbedConfig = group(TestbedConfig, help="testbed workload (workload.source = "
                                                       "testbed, spec §8)",
                                   label="Testbed workload")

    def validate(self):
        names = [c.name for c in self.system.clusters]
        if len(set(names)) != len(names):
            raise ScenarioError("system.clusters", "cluster names must be unique")
        gp = [c for c in self.system.clusters if c.kind == "general"]
        sp = [c for c in self.system.clusters if c.kind == "special"]
        if self.workload.gp_types > 0 and not gp:
            raise ScenarioError("system.clusters", "GP task types need at least one general "
                                                   "cluster (or set workload.gp_types = 0)")
        if self.workload.sp_types_per_cluster > 0 and not sp and not gp:
            raise ScenarioError("system.clusters", "needs at least one cluster")
        if self.workload.gp_types == 0 and not sp:
            raise ScenarioError("workload.gp_types", "must be > 0 when there is no special "
                                                     "cluster")
        if self.workload.source == "trace":
            try:  # the name's form; whether an upload exists is the site's to say
                check_trace_name(self.trace.file.removesuffix(".gz").removesuffix(".swf"))
            except ScenarioError as err:
                raise ScenarioError("trace.file", err.message) from None
        if self.workload.source == "testbed" and len(self.system.clusters) != 4:
            raise ScenarioError("system.clusters", "the testbed workload needs the 4 clusters "
                                                   "of spec Table 5")
        factors = self.system.pstate_power_factors
        if any(b > a for a, b in zip(factors, factors[1:], strict=False)):
            raise ScenarioError("system.pstate_power_factors",
                                "must be non-increasing (P-state 0 is the fastest)")
