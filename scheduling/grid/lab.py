"""Kind ``grid`` as the web lab shows it: metrics, charts and limits."""

from __future__ import annotations

import scheduling.engine as engine
from scheduling.grid import charts as grid
from scheduling.hpc.lab import MAX_NODES, NON_NEGATIVE, PERCENT
from simcore import charts as shared
from simcore.compact import downsample, quantiles
from simcore.lab import (
    UNITLESS,
    ChartSpec,
    LabKind,
    Limit,
    Metric,
    MetricBars,
)

LAB = LabKind(
    kind="grid",
    # reference run (benchmarks/cost_estimates.py): grid-small / fcfs: 0.022 s
    seconds_per_cost=2.9e-5,
    title="Decentralized preemptive scheduling on a grid",
    engine=engine,
    metrics=[
        Metric("wait_median_s", "median wait", "s", higher_is_better=False, digits=0, lower=0),
        Metric("wait_mean_s", "mean wait", "s", higher_is_better=False, digits=0, lower=0),
        Metric("wait_top10_median_s", "median wait of the 10% longest", "s",
               higher_is_better=False, digits=0, lower=0),
        Metric("wait_max_s", "longest wait", "s", higher_is_better=False, digits=0, lower=0),
        Metric("conv_wait_median_s", "median wait from submission", "s",
               higher_is_better=False, digits=0, lower=0),
        # How the preemptive and internode schedulers work (FCFS does neither, by design):
        # counted to explain the waits, neither side better.
        Metric("preemptions", "preemptions", UNITLESS, higher_is_better=None, digits=0,
               lower=0),
        Metric("migrations", "migrations", UNITLESS, higher_is_better=None, digits=0, lower=0),
    ],
    primary_metric="wait_median_s",
    compact=lambda result: grid.compact(result, downsample, quantiles),
    experiment_charts=[
        ChartSpec("median-wait", "Median wait",
                  MetricBars("wait_median_s", "Median wait at the run node"), facetable=False),
        ChartSpec("wait-curve", "Jobs completed vs wait (Fig. 5)", grid.wait_curve),
        ChartSpec("wait-tail", "Longest waits (Fig. 6)", grid.wait_tail),
        ChartSpec("alpha", "Aging: alpha compared (Fig. 4)", grid.alpha_comparison,
                  facetable=False, applies=grid.varies("alpha")),
        ChartSpec("iat", "Median wait vs inter-arrival time (Fig. 3)", grid.wait_vs_iat,
                  facetable=False, applies=grid.varies("iat_s")),
        ChartSpec("busy-cores", "Busy cores over time",
                  lambda g: shared.mean_series(g, "busy_cores_pct", "Busy cores", "% of cores",
                                               bounds=PERCENT)),
        ChartSpec("queued", "Queued jobs over time",
                  lambda g: shared.mean_series(g, "queued", "Queued jobs", "jobs",
                                               bounds=NON_NEGATIVE)),
        ChartSpec("preemptions", "Preemptions per run",
                  MetricBars("preemptions", "Preemptions per run"), facetable=False),
        ChartSpec("migrations-over-time", "Migrations over time",
                  lambda g: shared.mean_series(g, "migrations", "Migrations per sample interval",
                                               "migrations", bounds=NON_NEGATIVE)),
    ],
    run_charts=[ChartSpec("load", "Node load over time", grid.load_map),
                ChartSpec("migrations", "Migrations and preemptions", grid.migration_map)],
    default_policies=["fcfs", "local", "internode-can", "internode-2nn"],
    default_preset="grid-small",
    # The engine's clock is in seconds (the other times carry _s in their names).
    task_units={"submit": "s", "start": "s", "end": "s"},
    limits=[
        Limit("nodes", "nodes.n_nodes", lambda p: p["nodes"]["n_nodes"], "the node count",
              field_scale=1, default=MAX_NODES),
        Limit("jobs", "jobs.n_jobs", lambda p: p["jobs"]["n_jobs"], "the job count",
              field_scale=1, default=200_000),
    ],
)
