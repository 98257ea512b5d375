"""Scenario parameters of kind ``many-task`` (spec ``trailing-tasks.md``).

Every [DEFAULT] of the spec is a parameter here; the help text names the spec section it comes
from. Times are seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore.errors import ScenarioError
from simcore.params import group, param
from simcore.traces import check_trace_name

KIND = "many-task"

#: Partition sizes (cores) of Blue Gene/P Intrepid as simulated in the paper (machine model
#: (trailing-tasks spec §3)).
INTREPID_MENU = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 98304, 131072, 163840)

#: The task/worker ratios of the paper's sweep (simulation sweep (trailing-tasks spec §7.1); 7.5 and
#: 8 are skipped as printed).
PAPER_RATIOS = (1, 1.2, 1.4, 1.6, 1.8, 2, 2.2, 2.4, 2.6, 2.8, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5,
                7, 8.5, 9, 9.5, 10, 11, 12, 13, 14, 15, 20, 25, 30, 35, 40, 45, 50, 60)

#: Maximum idle fractions plotted (simulation sweep (trailing-tasks spec §7.1) [DEFAULT]); "no
#: chopping" is always added.
PAPER_IDLE_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)

SOURCES = ("real935k", "real15k", "synth15k", "lognormal", "runtimes", "list")
MAX_TASKS = 20_000_000


@dataclass(frozen=True)
class WorkloadParams:
    source: str = param(
        "real15k", choices=SOURCES,
        help="real935k / real15k / synth15k: the calibrated log-normal surrogates of the "
             "paper's workloads (spec §4); lognormal: your own mean, CoV and truncation; "
             "runtimes: the run times of a file (one per line, or the run-time column of an "
             "SWF trace); list: the run times given inline below.", label="Run-time source")
    tasks: int | None = param(
        None, min=1, max=MAX_TASKS, unit="tasks",
        help="number of tasks; empty = the source's own count (934,710 for real935k, 15,000 "
             "for the 15k workloads, every run time of a file or list). Fewer than a file "
             "holds takes its first ones.", label="Number of tasks")
    mean_s: float = param(700.0, unit="s", min=0.0, max=1e7, min_exclusive=True,
                          label="Mean run time",
                          help="lognormal source: mean run time")
    cov: float = param(0.5, min=0.0, max=20.0, label="Run-time COV",
                       help="lognormal source: coefficient of variation (std / mean)")
    truncate_s: float | None = param(
        None, unit="s", min=0.0, max=1e9, min_exclusive=True, label="Truncate above",
        help="lognormal source: run times above this are redrawn (empty = no truncation)")
    runtimes: str = param(
        "lublin_256", label="Run-time file",
        help="runtimes source: a library SWF trace (lublin_256, lublin_256_small, "
             "example_8: its run-time column) or 'upload:<sha256>' of an uploaded file")
    values: tuple[float, ...] = param(
        (), unit="s", min=0.0, max=1e9, max_items=100_000,
        help="list source: the run times themselves, in the given order", label="Run times")
    scale: float = param(1.0, min=0.0, max=1e6, min_exclusive=True, advanced=True,
                         help="every run time is multiplied by this ('if tasks were longer', "
                              "spec §8)", label="Run-time scale")
    instance_seed: int = param(
        0, min=0, max=2**62, advanced=True,
        help="seed of the one surrogate instance every trial uses (the paper reshuffled one "
             "fixed trace, spec §5)", label="Instance seed")
    redraw: bool = param(
        False, advanced=True,
        help="draw a fresh surrogate instance in every trial (from the trial's seed) instead "
             "of one fixed instance", label="New instance every trial")


@dataclass(frozen=True)
class MachineParams:
    partitions: tuple[int, ...] = param(
        INTREPID_MENU, unit="cores", min=1, max=100_000_000, min_items=1, max_items=64,
        help="the partition menu, ascending: sizes (workers) that can be allocated "
             "(spec §3: Intrepid, 256 to 163,840 cores)", label="Partition sizes")
    workers: int | None = param(
        None, unit="workers", min=1, max=100_000_000, label="First partition",
        help="size of the first partition; empty = chosen from the menu by the task/worker "
             "ratio r (fix it to reproduce Fig. 2's worker counts)")
    startup_s: float = param(170.0, unit="s", min=0.0, max=1e7, label="Partition start-up",
                             help="partition start-up: request to all workers ready "
                                  "(spec §3, measured on Intrepid)")
    teardown_s: float = param(2.4, unit="s", min=0.0, max=1e7, label="Partition tear-down",
                              help="partition tear-down (spec §3, measured on Intrepid)")
    teardown_first: bool = param(
        True, advanced=True,
        help="after a chop, tear the old partition down before requesting the new one "
             "(spec §6 [DEFAULT]); off: request the new one at once, tear-down in parallel",
        label="Tear down before the next request")
    requeue_wait_s: float = param(
        0.0, unit="s", min=0.0, max=1e8, advanced=True, label="Extra queue wait",
        help="extra queue wait before every partition after the first (spec §7.2: the real "
             "second allocation waited much longer than 170 s)")

    def validate(self) -> None:
        sizes = self.partitions
        if any(b <= a for a, b in zip(sizes, sizes[1:], strict=False)):
            raise ScenarioError("machine.partitions",
                                "must be strictly ascending (each size once)")


@dataclass(frozen=True)
class ChopParams:
    r: float = param(5.0, min=0.0, max=1e7, min_exclusive=True, label="Task/worker ratio r",
                     help="minimum task/worker ratio: every partition is the largest menu size "
                          "with remaining tasks / size >= r, else the smallest (spec §6)")
    f: float = param(0.5, min=0.0, max=1.0, label="Max idle fraction f",
                     help="tail-chopping policies cancel the partition when idle workers / "
                          "size > f and a smaller partition exists; 1 = never (spec §6)")


@dataclass(frozen=True)
class TradeoffParams:
    ratios: tuple[float, ...] = param(
        (), min=0.0, max=1e7, min_exclusive=True, max_items=200, label="Trade-off ratios r",
        help="also simulate every r of this list x every f below (and no chopping) with the "
             "run's task order, for the TTS-vs-utilization trade-off (spec §7.1; empty = off)")
    idle_fractions: tuple[float, ...] = param(
        PAPER_IDLE_FRACTIONS, min=0.0, max=1.0, max_items=50, label="Trade-off idle fractions f",
        help="the f values of the trade-off grid; no chopping (f = 1) is always included")

    def validate(self) -> None:
        for name, values in (("tradeoff.ratios", self.ratios),
                             ("tradeoff.idle_fractions", self.idle_fractions)):
            if len(set(values)) != len(values):
                raise ScenarioError(name, "values repeat")


@dataclass(frozen=True)
class OutputParams:
    series_points: int = param(2000, min=10, max=100_000, advanced=True,
                               help="at most this many points per time series",
                               label="Points per time series")
    task_records: int = param(2_000, min=0, max=2_000_000, advanced=True, unit="tasks",
                              help="per-task records are kept for workloads of at most this "
                                   "many tasks (a stored 15k-task run grows about 1 MB with "
                                   "them)", label="Per-task record limit")
    histogram_bins: int = param(60, min=2, max=1000, advanced=True,
                                help="bins of the run-time histogram", label="Histogram bins")


@dataclass(frozen=True)
class ManyTaskConfig:
    workload: WorkloadParams = group(WorkloadParams, label="Workload")
    machine: MachineParams = group(MachineParams, label="Machine")
    chop: ChopParams = group(ChopParams, label="Tail-chopping")
    tradeoff: TradeoffParams = group(TradeoffParams, label="Trade-off grid")
    output: OutputParams = group(OutputParams, label="Output", advanced=True)

    def validate(self) -> None:
        w = self.workload
        if w.source == "runtimes":
            try:
                check_trace_name(w.runtimes)
            except ScenarioError as err:
                raise ScenarioError("workload.runtimes", err.message) from None
        if w.source == "list" and not w.values:
            raise ScenarioError("workload.values", "give at least one run time for the list "
                                                   "source")

    @property
    def grid(self) -> bool:
        return bool(self.tradeoff.ratios)
