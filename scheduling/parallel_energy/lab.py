"""Kind ``parallel-energy`` as the web lab shows it: metrics, charts and limits."""

from __future__ import annotations

import scheduling.engine as engine
from scheduling.hpc.lab import (
    DROPPED,
    MAX_NODES,
    MAX_SIM_HOURS,
    MAX_TASKS_PER_DAY,
    NON_NEGATIVE,
    compact_with_waits,
)
from scheduling.parallel_energy import charts as parallel
from scheduling.parallel_energy.energy import run_window_budget_gj
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
    kind="parallel-energy",
    # reference run (benchmarks/cost_estimates.py): small / easy: 0.31 s
    seconds_per_cost=3.1e-7,
    title="Parallel jobs with utility and an energy budget (ch. 3)",
    engine=engine,
    metrics=[
        Metric("pct_max_utility", "% of maximum utility", "%", higher_is_better=True, lower=0,
               upper=100),
        Metric("utility", "utility earned", UNITLESS, higher_is_better=True, lower=0),
        # Under the budget, the chapter counts less energy for the same utility in a
        # heuristic's favour (Max UPE "often uses significantly less energy").
        # No run uses more than its budget allows in the measured window: every interval of
        # it is kept there (the energy chart keeps its band under the day's budget alike).
        Metric("energy_gj", "energy used", "GJ", higher_is_better=False, lower=0,
               upper_of=run_window_budget_gj),
        Metric("tasks_completed", "tasks completed", UNITLESS, higher_is_better=True, digits=0,
               lower=0),
        DROPPED,
        Metric("wait_mean_min", "mean wait", "min", higher_is_better=False, lower=0),
    ],
    primary_metric="pct_max_utility",
    # The engine's clock is in seconds (arrival, start and end of the task table).
    compact=lambda result: compact_with_waits(result, "s"),
    experiment_charts=[
        ChartSpec("pct-max-utility", "% of maximum utility",
                  MetricBars("pct_max_utility", "% of maximum utility"), facetable=False),
        ChartSpec("utility-over-time", "Cumulative utility",
                  lambda g: shared.mean_series(g, "utility_cum", "Cumulative utility earned",
                                               "utility", bounds=NON_NEGATIVE)),
        ChartSpec("energy", "Energy against the budget", parallel.energy_vs_budget),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: shared.ecdf(g, "wait_min", "Wait time (ECDF)", "wait (min)")),
        ChartSpec("queue", "Mappable and running tasks", shared.queue_over_time),
        ChartSpec("metaheuristic", "Metaheuristic choice", parallel.metaheuristic_choice,
                  applies=parallel.has_choices),
    ],
    run_charts=[ChartSpec("gantt", "Node allocation", parallel.node_gantt)],
    default_policies=["easy", "max-upe-ph", "meta-event"],
    default_preset="small",
    task_units={"arrival": "s", "start": "s", "end": "s", "energy_j": "J"},
    conditions=[Condition(("trace.",), "workload.source", ("trace",)),
                Condition(("testbed.",), "workload.source", ("testbed",))],
    limits=[
        Limit("tasks_per_day", "workload.tasks_per_day",
              lambda p: p["workload"]["tasks_per_day"], "the arrival rate (tasks/day)",
              field_scale=1, default=MAX_TASKS_PER_DAY),
        Limit("nodes", "system.clusters",
              lambda p: sum(c["nodes"] for c in p["system"]["clusters"]), "the node count",
              default=MAX_NODES),
        Limit("sim_hours", "time.sim_h", lambda p: p["time"]["sim_h"],
              "the simulated time (h)", field_scale=1, default=MAX_SIM_HOURS),
    ],
)
