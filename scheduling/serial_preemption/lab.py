"""Kind ``serial-preemption`` as the web lab shows it: metrics, charts and limits."""

from __future__ import annotations

import scheduling.engine as engine
from scheduling.hpc.lab import (
    DROPPED,
    MAX_CORES,
    MAX_SIM_HOURS,
    MAX_TASKS_PER_DAY,
    NON_NEGATIVE,
    compact_with_waits,
)
from scheduling.serial_preemption import charts as serial
from simcore import charts as shared
from simcore.lab import (
    UNITLESS,
    ChartSpec,
    Condition,
    LabKind,
    Limit,
    Metric,
    MetricBars,
)

LAB = LabKind(
    kind="serial-preemption",
    # reference run (benchmarks/cost_estimates.py): ch4-small / fcfs: 0.18 s
    seconds_per_cost=5.9e-5,
    title="Preemptive scheduling of urgent serial tasks (ch. 4)",
    engine=engine,
    metrics=[
        Metric("pct_max_utility", "% of maximum utility", "%", higher_is_better=True, lower=0,
               upper=100),
        Metric("utility", "utility earned", UNITLESS, higher_is_better=True, lower=0),
        Metric("pct_critical_completed", "critical tasks completed", "%", higher_is_better=True,
               lower=0, upper=100),
        # The chapter counts completing more tasks in the utility-aware heuristics' favour.
        Metric("pct_tasks_completed", "tasks completed", "%", higher_is_better=True, lower=0,
               upper=100),
        # Logged by the chapter to explain the utility: preempting is how the best heuristics
        # earn it, so neither side is better.
        Metric("preemptions", "preemptions", UNITLESS, higher_is_better=None, digits=0,
               lower=0),
        DROPPED,
    ],
    primary_metric="pct_max_utility",
    # The engine's clock is in minutes (duration_min; arrival, start and end of the task table).
    compact=lambda result: compact_with_waits(result, "min"),
    experiment_charts=[
        ChartSpec("pct-max-utility", "% of maximum utility",
                  MetricBars("pct_max_utility", "% of maximum utility"), facetable=False),
        ChartSpec("critical", "Critical tasks completed",
                  MetricBars("pct_critical_completed", "Critical tasks completed"),
                  facetable=False),
        ChartSpec("utility-over-time", "Cumulative utility",
                  lambda g: shared.mean_series(g, "utility_cum", "Cumulative utility earned",
                                               "utility", bounds=NON_NEGATIVE)),
        ChartSpec("preemptions-per-minute", "Preemptions per minute",
                  lambda g: shared.mean_series(g, "preemptions", "Preemptions per minute",
                                               "preemptions / min", with_band=False)),
        ChartSpec("queue", "Mappable and running tasks", shared.queue_over_time),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: shared.ecdf(g, "wait_min", "Wait until first start (ECDF)",
                                        "wait (min)")),
    ],
    run_charts=[ChartSpec("preemptions", "Preemption timeline", serial.preemption_timeline)],
    default_policies=["fcfs", "max-util", "max-util-greedy", "max-upt-diff"],
    default_preset="ch4-small",
    task_units={"arrival": "min", "start": "min", "end": "min"},
    conditions=[
        Condition(("utility.step_noncritical_factor",), "utility.family", ("step",)),
        Condition(("utility.decay_length_min", "utility.urgency", "utility.urgency_time_unit_min"),
                  "utility.family", ("decay",)),
        Condition(("utility.n_classes", "utility.classes_seed", "utility.lead_in_prob",
                   "utility.lead_in_max", "utility.intervals_min", "utility.intervals_max",
                   "utility.interval_min", "utility.interval_max", "utility.rate_min",
                   "utility.rate_max", "utility.jump_min", "utility.jump_max"),
                  "utility.family", ("classes",)),
    ],
    limits=[
        Limit("cores", "system.cores_per_cluster",
              lambda p: p["system"]["n_clusters"] * p["system"]["cores_per_cluster"],
              "the core count", default=MAX_CORES),
        Limit("tasks_per_day", "workload.tasks_per_core_per_day",
              lambda p: p["workload"]["tasks_per_core_per_day"] * p["system"]["n_clusters"]
              * p["system"]["cores_per_cluster"], "the arrival rate (tasks/day)",
              default=MAX_TASKS_PER_DAY),
        Limit("sim_hours", "scheduler.duration_min",
              lambda p: p["scheduler"]["duration_min"] / 60.0, "the simulated time (h)",
              field_scale=1 / 60, default=MAX_SIM_HOURS),
    ],
)
