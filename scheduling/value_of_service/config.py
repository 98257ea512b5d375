"""Scenario parameters of the Value of Service environment (``value-of-service``).

Every [DEFAULT] of ``spec/ch2-value-of-service.md`` is a parameter here; the help text names the
spec section it comes from. Times are in minutes, energy in joules, memory in GB.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.errors import ScenarioError
from simcore.params import group, param

KIND = "value-of-service"
CATEGORIES = ("regular", "performance", "energy")  # Table 3 rows
PERIODS = ("low", "medium", "high")  # Table 3 columns
NPB_KERNELS = ("FT", "IS", "EP", "LU")  # testbed task types (testbed experiment (ch. 2 spec §8.2))


@dataclass(frozen=True)
class SystemParams:
    layout: str = param(
        "pool", choices=("pool", "nodes"),
        help="pool: one homogeneous cluster seen as a pool of cores and a pool of memory "
             "(the simulation, spec §2.1). nodes: testbed blades; a VM lives on one node and "
             "needs its cores and memory free there (spec §2.2).", label="Layout")
    cores: int = param(256, min=1, max=20000, unit="cores",
                       help="Cores of the pool (pool layout; the paper varies 128..384, §2.1).",
                       label="Cores")
    memory_gb: float = param(256.0, min=0.0, max=1e6, min_exclusive=True, unit="GB",
                             help="Memory of the pool (pool layout; the paper varies 128..384 GB).",
                             label="Memory")
    nodes: int = param(4, min=1, max=1000,
                       help="Nodes (nodes layout; 1, 2, 4 nodes give the testbed's 20, 40, 80 "
                            "VM cores, §8.2).", label="Nodes")
    node_cores: int = param(20, min=1, max=4096, unit="cores",
                            help="Cores (hardware threads) per node given to VMs: 20 of 24 "
                                 "(§2.2).", label="Cores per node")
    node_memory_gb: float = param(
        24.0, min=0.0, max=1e5, min_exclusive=True, unit="GB",
        help="Usable memory per node. [DEFAULT] 24 GB, all of it: the source does not say how "
             "much the host kept; 20 GB models such a reserve (§2.2).", label="Memory per node")

    @property
    def total_cores(self) -> int:
        return self.cores if self.layout == "pool" else self.nodes * self.node_cores

    @property
    def total_memory(self) -> float:
        return self.memory_gb if self.layout == "pool" else self.nodes * self.node_memory_gb

    @property
    def node_count(self) -> int:
        return 1 if self.layout == "pool" else self.nodes

    @property
    def largest_vm(self) -> tuple[int, float]:
        """Cores and memory of the largest VM one placement can hold."""
        if self.layout == "pool":
            return self.cores, self.memory_gb
        return self.node_cores, self.node_memory_gb


@dataclass(frozen=True)
class WorkloadParams:
    source: str = param(
        "synthetic", choices=("synthetic", "npb"),
        help="synthetic: the simulation's generated task types (spec §5). npb: the testbed's "
             "four NAS kernels FT, IS, EP, LU with synthesized ETC/EEC tables (spec §8.2).",
        label="Task source")
    tasks_min: int = param(1300, min=1, max=200000,
                           help="Fewest tasks per scenario (uniform count, §5.1; synthetic).",
                           label="Fewest tasks")
    tasks_max: int = param(1500, min=1, max=200000,
                           help="Most tasks per scenario (uniform count, §5.1; synthetic).",
                           label="Most tasks")
    types_min: int = param(30, min=1, max=1000, help="Fewest task types (§5.1; synthetic).",
                           label="Fewest task types")
    types_max: int = param(40, min=1, max=1000, help="Most task types (§5.1; synthetic).",
                           label="Most task types")
    base_time_min: float = param(150.0, min=0.0, max=1e6, min_exclusive=True, unit="min",
                                 help="Mean system base execution time on 1 core / 1 GB (§5.1).",
                                 label="Mean base execution time")
    base_time_cov: float = param(0.1, min=0.0, max=1.0, advanced=True,
                                 help="COV of the system base execution time (§5.1).",
                                 label="Base execution time COV")
    base_energy_j: float = param(100.0, min=0.0, max=1e12, min_exclusive=True, unit="J",
                                 help="Mean system base energy on 1 core / 1 GB (§5.1).",
                                 label="Mean base energy")
    base_energy_cov: float = param(0.1, min=0.0, max=1.0, advanced=True,
                                   help="COV of the system base energy (§5.1).",
                                   label="Base energy COV")
    type_cov: float = param(0.2, min=0.0, max=2.0, advanced=True,
                            help="COV of a type's base values around the system's (§5.1).",
                            label="COV of a type's base values")
    type_clamp_lo: float = param(0.4, min=0.0, max=1.0, advanced=True, unit="x system base",
                                 help="Type base values are clamped to at least this x the "
                                      "system base value (§5.1).", label="Lowest type base value")
    type_clamp_hi: float = param(1.6, min=1.0, max=100.0, advanced=True, unit="x system base",
                                 help="... and at most this x the system base value (§5.1).",
                                 label="Highest type base value")
    sigma_min: float = param(4.0, min=1.0, max=1000.0, advanced=True,
                             help="Smallest Downey sigma of a type, uniform (§5.1, §8.2).",
                             label="Smallest Downey σ")
    sigma_max: float = param(10.0, min=1.0, max=1000.0, advanced=True,
                             help="Largest Downey sigma of a type, uniform (§5.1, §8.2).",
                             label="Largest Downey σ")
    config_cores: list[int] = param(
        [4, 8, 16, 32], min=1, max=4096, min_items=1, max_items=16, advanced=True,
        unit="cores", help="[DEFAULT] Core counts a type's configurations draw from (4..32 in "
                           "the source, §5.1-5.2; synthetic).", label="Configuration core counts")
    config_memory_gb: list[float] = param(
        [6.0, 10.0, 20.0, 40.0], min=0.0, max=1e5, min_exclusive=True, min_items=1,
        max_items=16, advanced=True, unit="GB",
        help="[DEFAULT] Memory sizes a type's configurations draw from (6..40 GB, §5.2).",
        label="Configuration memory sizes")
    configs_min: int = param(4, min=1, max=256, advanced=True,
                             help="[DEFAULT] Fewest allowable configurations per type (random "
                                  "subset of cores x memory, §5.2).",
                             label="Fewest configurations per type")
    configs_max: int = param(8, min=1, max=256, advanced=True,
                             help="[DEFAULT] Most allowable configurations per type (§5.2).",
                             label="Most configurations per type")
    memory_speedup: float = param(
        0.5, min=0.0, max=100.0, advanced=True,
        help="[DEFAULT] Memory factor f_mem(m) = 1 + this x (m_max - m) / m_max on the Downey "
             "time, m_max the type's largest memory: less memory runs up to 1 + this slower "
             "(§5.2).", label="Memory slowdown factor")
    energy_core_weight: float = param(
        0.5, min=0.0, max=1e6, advanced=True,
        help="[DEFAULT] EEC = E_k x (this x cores + energy_memory_weight x GB): energy linear "
             "in cores and memory, E_k at 1 core / 1 GB (§5.2).", label="EEC core weight")
    energy_memory_weight: float = param(0.5, min=0.0, max=1e6, advanced=True,
                                        help="[DEFAULT] Memory weight of the EEC line (§5.2).",
                                        label="EEC memory weight")
    gamma_min: float = param(1.0, min=0.0, max=1e6, advanced=True,
                             help="Smallest importance gamma of a type (§5.1).",
                             label="Smallest importance γ")
    gamma_max: float = param(10.0, min=0.0, max=1e6, advanced=True,
                             help="Largest importance gamma of a type (§5.1).",
                             label="Largest importance γ")
    gamma_cov: float = param(
        0.2, min=0.0, max=2.0, advanced=True,
        help="COV of gamma around its mean; [DEFAULT] the mean maps the type's clamped base "
             "time linearly onto [gamma_min, gamma_max] (§5.2).", label="Importance γ COV")
    threshold_cov: float = param(0.2, min=0.0, max=2.0, advanced=True,
                                 help="COV of the soft and hard thresholds (§5.1, §8.2).",
                                 label="Threshold COV")
    soft_offset: float = param(0.05, min=0.0, max=1.0, advanced=True,
                               help="Soft threshold mean = min + this x (max - min) over the "
                                    "type's configurations (§5.1).", label="Soft threshold offset")
    vmin_lo: float = param(0.0, min=0.0, max=1.0, advanced=True,
                           help="v_min of each value function ~ U(vmin_lo, vmin_hi) (§5.1).",
                           label="Lowest v_min")
    vmin_hi: float = param(1.0, min=0.0, max=1.0, advanced=True,
                           help="Upper end of the v_min range; v_max is 1 (§5.1).",
                           label="Highest v_min")


@dataclass(frozen=True)
class NpbParams:
    base_min: list[float] = param(
        [20.0, 4.0, 10.0, 40.0], min=0.0, max=1e5, min_exclusive=True, min_items=4,
        max_items=4, unit="min",
        help="[DEFAULT] Single-core time of FT, IS, EP, LU on 1 core with enough memory "
             "(\"a few to tens of minutes\", §8.2).", label="Single-core times of FT, IS, EP, LU")
    working_set_gb: list[float] = param(
        [8.0, 4.0, 1.0, 2.0], min=0.0, max=1e5, min_items=4, max_items=4, unit="GB",
        help="[DEFAULT] Working set W_k of FT, IS, EP, LU; less memory inflates the time "
             "(§8.2).", label="Working sets of FT, IS, EP, LU")
    memory_penalty: float = param(
        1.0, min=0.0, max=100.0, advanced=True,
        help="[DEFAULT] Time x (1 + this x (W_k - m) / W_k) below the working set: up to 2x "
             "(§8.2).", label="Memory penalty")
    config_cores: list[int] = param([1, 4, 8, 16], min=1, max=4096, min_items=1, max_items=16,
                                    unit="cores", advanced=True,
                                    help="VM core counts of the testbed (§2.2).",
                                    label="VM core counts")
    config_memory_gb: list[float] = param(
        [1.0, 2.0, 4.0, 8.0, 16.0], min=0.0, max=1e5, min_exclusive=True, min_items=1,
        max_items=16, unit="GB", advanced=True, help="VM memory sizes of the testbed (§2.2).",
        label="VM memory sizes")
    idle_power_w: float = param(
        120.0, min=0.0, max=1e5, unit="W", advanced=True,
        help="[DEFAULT] Node idle power; a VM is charged its share (cores / node cores) "
             "(§8.2: energy = (idle share + dynamic power x cores) x time).",
        label="Node idle power")
    core_power_w: float = param(6.0, min=0.0, max=1e5, unit="W", advanced=True,
                                help="[DEFAULT] Dynamic power per busy core (§8.2).",
                                label="Power per busy core")
    tables_seed: int = param(
        1, min=0, max=2**31 - 1, advanced=True,
        help="Seed of the synthetic ETC/EEC tables (the per-kernel Downey sigma); the same "
             "for every trial, as historical tables would be (§8.2).", label="ETC/EEC table seed")
    gamma: float = param(1.0, min=0.0, max=1e6, min_exclusive=True, advanced=True,
                         help="Importance of every testbed task (all equal, §8.2).",
                         label="Importance γ")


@dataclass(frozen=True)
class ArrivalParams:
    pattern: str = param(
        "sinusoidal", choices=("sinusoidal", "phases"),
        help="sinusoidal: the simulation's daily curve (spec §5.2). phases: the testbed's "
             "Gaussian inter-arrivals with a rate per usage period (spec §8.2).",
        label="Arrival pattern")
    amplitude: float = param(
        0.5, min=0.0, max=1.0, advanced=True,
        help="[DEFAULT] Rate ∝ 1 + amplitude x sin(2π(h - peak + 6)/24): 0.5 gives a "
             "peak/trough ratio of 3 (§5.2).", label="Daily amplitude")
    peak_hour: float = param(14.0, min=0.0, max=24.0, advanced=True, unit="h",
                             help="[DEFAULT] Hour of day of the arrival peak (§5.2).",
                             label="Peak hour")
    start_hour: float = param(
        22.0, min=0.0, max=24.0, unit="h",
        help="[DEFAULT] Time of day when the simulation starts: 22:00 puts the 24-h window "
             "after the 2-h warm-up at 00:00-24:00 (§5.2).", label="Time of day at the start")
    phases: list[str] = param(
        ["low", "medium", "high", "high", "medium", "low"], choices=PERIODS, min_items=1,
        max_items=96,
        help="Usage period of each phase (phases pattern): Workload 1 is low, medium, high, "
             "high, medium, low; Workload 2 is high throughout (§8.2).",
        label="Usage period of each phase")
    phase_h: float = param(1.0, min=0.0, max=1000.0, min_exclusive=True, unit="h",
                           help="[DEFAULT] Length of each phase (§8.2).", label="Phase length")
    rate_per_core_h: float = param(
        2.4, min=0.0, max=1e4, min_exclusive=True, unit="tasks/core/h",
        help="Arrival rate in the high period per VM core, so the task count scales with the "
             "cores (§8.2: chosen so that the high period oversubscribes the system; set on "
             "80 cores, see docs/vos.md).", label="High-period arrival rate")
    medium_ratio: float = param(0.7, min=0.0, max=1.0, advanced=True,
                                help="Medium-period rate / high rate: 30% lower (§8.2).",
                                label="Medium-period rate ratio")
    low_ratio: float = param(0.4, min=0.0, max=1.0, advanced=True,
                             help="Low-period rate / high rate: 60% lower (§8.2).",
                             label="Low-period rate ratio")
    interarrival_cov: float = param(
        0.2, min=0.0, max=2.0, advanced=True,
        help="[DEFAULT] COV of the Gaussian inter-arrival times (redrawn if <= 0) (§8.2).",
        label="Inter-arrival time COV")


@dataclass(frozen=True)
class ValueParams:
    categories: str = param(
        "per-type", choices=("per-type", "per-task"),
        help="Table 3 category drawn uniformly per task type (simulation, §5.1) or per task "
             "(testbed [DEFAULT], §8.2).", label="Category drawn")
    low_end_h: float = param(4.0, min=0.0, max=24.0, advanced=True, unit="h",
                             help="The low usage period is 00:00 to this hour (Table 3).",
                             label="Low period ends")
    high_start_h: float = param(10.0, min=0.0, max=24.0, advanced=True, unit="h",
                                help="The high usage period starts at this hour (Table 3).",
                                label="High period starts")
    high_end_h: float = param(18.0, min=0.0, max=24.0, advanced=True, unit="h",
                              help="... and ends at this hour; the rest is medium (Table 3).",
                              label="High period ends")
    regular_wp: list[float] = param([1.0, 1.0, 1.0], min=0.0, max=1e6, min_items=3,
                                    max_items=3, advanced=True,
                                    help="Performance weight w_p of regular tasks in the low, "
                                         "medium, high periods (Table 3).",
                                    label="Regular tasks: performance weight w_p")
    regular_we: list[float] = param([1.0, 2.0, 4.0], min=0.0, max=1e6, min_items=3,
                                    max_items=3, advanced=True,
                                    help="Energy weight w_e of regular tasks (Table 3).",
                                    label="Regular tasks: energy weight w_e")
    performance_wp: list[float] = param([10.0, 10.0, 10.0], min=0.0, max=1e6, min_items=3,
                                        max_items=3, advanced=True,
                                        help="w_p of tasks with a high performance requirement "
                                             "(Table 3).",
                                        label="High-performance tasks: performance weight w_p")
    performance_we: list[float] = param([1.0, 1.0, 1.0], min=0.0, max=1e6, min_items=3,
                                        max_items=3, advanced=True,
                                        help="w_e of tasks with a high performance requirement.",
                                        label="High-performance tasks: energy weight w_e")
    energy_wp: list[float] = param([1.0, 1.0, 1.0], min=0.0, max=1e6, min_items=3,
                                   max_items=3, advanced=True,
                                   help="w_p of energy-conservative tasks (Table 3).",
                                   label="Energy-conservative tasks: performance weight w_p")
    energy_we: list[float] = param([10.0, 10.0, 10.0], min=0.0, max=1e6, min_items=3,
                                   max_items=3, advanced=True,
                                   help="w_e of energy-conservative tasks: <1, 10> as in the "
                                        "table (the prose's <10, 1> is a typo, spec §3.4).",
                                   label="Energy-conservative tasks: energy weight w_e")


@dataclass(frozen=True)
class SchedulerParams:
    duration_h: float = param(26.0, min=0.0, max=336.0, min_exclusive=True, unit="h",
                              help="Simulated time; arrivals cover all of it (26 h, §5.1).",
                              label="Simulated time")
    warmup_h: float = param(2.0, min=0.0, max=336.0, unit="h",
                            help="Warm-up excluded from the statistics (2 h, §5.1).",
                            label="Warm-up")
    interval_min: float = param(1.0, min=0.05, max=1440.0, unit="min",
                                help="Time between mapping events (1 minute, §6.1).",
                                label="Mapping interval")
    tr_core_weight: float = param(
        1.0, min=0.0, max=1e6, advanced=True,
        help="[DEFAULT] Eq. 4, total resources TR = ETC x (this x cores / system cores + "
             "tr_memory_weight x memory / system memory); equal weights in the study (§7.1).",
        label="TR core weight")
    tr_memory_weight: float = param(1.0, min=0.0, max=1e6, advanced=True,
                                    help="[DEFAULT] Memory weight of TR (Eq. 4, §7.1).",
                                    label="TR memory weight")
    energy_noise_cov: float = param(
        0.0, min=0.0, max=2.0, advanced=True,
        help="[DEFAULT] Realised energy = EEC x lognormal noise of mean 1 and this COV, to "
             "emulate testbed measurements; the heuristics plan with EEC (§4). 0: exact.",
        label="Energy noise COV")
    max_vos_tasks: str = param(
        "window-arrivals", choices=("window-arrivals", "all-arrivals"),
        help="Tasks in the maximum-VoS denominator: those arriving inside the window "
             "([DEFAULT], §8.1) or every task of the run, warm-up arrivals included (a strict "
             "upper bound: warm-up tasks can earn pro-rated value inside the window).",
        label="Maximum VoS denominator")


@dataclass(frozen=True)
class VosConfig:
    system: SystemParams = group(SystemParams, label="System")
    workload: WorkloadParams = group(WorkloadParams, label="Workload (task types, ETC/EEC)")
    npb: NpbParams = group(NpbParams, label="Testbed kernels (workload source npb)",
                           advanced=True)
    arrivals: ArrivalParams = group(ArrivalParams, label="Arrivals")
    value: ValueParams = group(ValueParams, label="Value functions and Table 3 weights")
    scheduler: SchedulerParams = group(SchedulerParams, label="Resource manager and window")

    def validate(self):
        s, w, n, a, v, r = (self.system, self.workload, self.npb, self.arrivals, self.value,
                            self.scheduler)
        for lo, hi, name, partner in [
            (w.tasks_min, w.tasks_max, "workload.tasks_min", "tasks_max"),
            (w.types_min, w.types_max, "workload.types_min", "types_max"),
            (w.sigma_min, w.sigma_max, "workload.sigma_min", "sigma_max"),
            (w.configs_min, w.configs_max, "workload.configs_min", "configs_max"),
            (w.gamma_min, w.gamma_max, "workload.gamma_min", "gamma_max"),
            (w.vmin_lo, w.vmin_hi, "workload.vmin_lo", "vmin_hi"),
            (v.low_end_h, v.high_start_h, "value.low_end_h", "high_start_h"),
            (v.high_start_h, v.high_end_h, "value.high_start_h", "high_end_h"),
        ]:
            if lo > hi:
                raise ScenarioError(name, f"must be <= {partner} ({hi}); got {lo}")
        if r.warmup_h >= r.duration_h:
            raise ScenarioError("scheduler.warmup_h",
                                f"must be < scheduler.duration_h ({r.duration_h}); "
                                f"got {r.warmup_h}")
        events = r.duration_h * 60.0 / r.interval_min
        if events > 200_000:
            raise ScenarioError("scheduler.interval_min",
                                f"gives {events:,.0f} mapping events; at most 200,000")
        cores, memory = s.largest_vm
        if s.total_cores > 20000:
            raise ScenarioError("system.nodes", f"gives {s.total_cores} cores; at most 20000")
        if w.source == "synthetic":
            combos = len(set(w.config_cores)) * len(set(w.config_memory_gb))
            if w.configs_min > combos:
                raise ScenarioError("workload.configs_min",
                                    f"must be <= the {combos} distinct cores x memory "
                                    f"combinations; got {w.configs_min}")
            need_c, need_m = max(w.config_cores), max(w.config_memory_gb)
            c_field, m_field = "workload.config_cores", "workload.config_memory_gb"
        else:
            need_c, need_m = max(n.config_cores), max(n.config_memory_gb)
            c_field, m_field = "npb.config_cores", "npb.config_memory_gb"
        where = "the pool" if s.layout == "pool" else "one node"
        if need_c > cores:
            raise ScenarioError(c_field, f"the largest configuration ({need_c} cores) must fit "
                                         f"{where} ({cores} cores)")
        if need_m > memory:
            raise ScenarioError(m_field, f"the largest configuration ({need_m:g} GB) must fit "
                                         f"{where} ({memory:g} GB)")
        if a.pattern == "phases":
            hours = len(a.phases) * a.phase_h
            if hours > r.duration_h + 1e-9:
                raise ScenarioError("arrivals.phases",
                                    f"{len(a.phases)} phases of {a.phase_h:g} h last {hours:g} h, "
                                    f"longer than scheduler.duration_h ({r.duration_h:g} h)")
            expected = a.rate_per_core_h * s.total_cores * hours
            if expected > 200_000:
                raise ScenarioError("arrivals.rate_per_core_h",
                                    f"gives about {expected:,.0f} tasks; at most 200,000")
        elif w.tasks_max > 200_000:
            raise ScenarioError("workload.tasks_max", "at most 200,000 tasks per run")
