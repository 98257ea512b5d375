"""Kind ``swf-replay`` as the web lab shows it: metrics, charts, the trace input and limits."""

from __future__ import annotations

import scheduling.engine as engine
from scheduling.hpc import gantt
from scheduling.hpc.lab import TRACE, TRACE_LIMITS, trace_facts, trace_work
from scheduling.swf_replay import charts as replay
from simcore import charts as shared
from simcore.compact import downsample, quantiles
from simcore.lab import (
    UNITLESS,
    ChartSpec,
    LabKind,
    Metric,
    MetricBars,
)


def compact_replay(result) -> dict:
    tasks = result.tasks
    return {"series": downsample(result.series, average=("utilization", "queue")),
            "dist": {"wait_h": quantiles([w / 3600.0 for w in tasks.get("wait", [])]),
                     "bsld": quantiles(tasks.get("bsld", []))}}


def _first_runs(groups):
    """Replays are deterministic per trace: one run per policy carries the time series."""
    return [(label, {"series": runs[0].series, "color": shared.group_color(label, runs)})
            for label, runs in groups.items()]


LAB = LabKind(
    kind="swf-replay",
    # reference run (benchmarks/cost_estimates.py): swf-small / fcfs: 0.002 s
    seconds_per_cost=4.7e-6,
    title="Trace replay with backfilling (SWF)",
    engine=engine,
    metrics=[
        Metric("wait_mean_s", "mean wait", "s", higher_is_better=False, lower=0),
        Metric("bsld_mean", "mean bounded slowdown", UNITLESS, higher_is_better=False, lower=1),
        Metric("utilization", "utilization", UNITLESS, higher_is_better=True, digits=1,
               scale=100.0, shown_unit="%", lower=0, upper=1),
        Metric("makespan_s", "makespan", "s", higher_is_better=False, lower=0),
        Metric("queue_mean", "mean queue", "jobs", higher_is_better=False, digits=1, lower=0),
        # Jobs wider than the machine: the trace and the machine decide them, not the policy.
        Metric("jobs_rejected", "jobs rejected", UNITLESS, higher_is_better=None, digits=0,
               lower=0),
    ],
    primary_metric="bsld_mean",
    compact=compact_replay,
    experiment_charts=[
        ChartSpec("wait-mean", "Mean wait", MetricBars("wait_mean_s", "Mean wait"),
                  facetable=False),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: shared.ecdf(g, "wait_h", "Wait time (ECDF)", "wait (h)",
                                        total_key="jobs_total", what="jobs")),
        ChartSpec("bsld", "Bounded slowdown",
                  lambda g: shared.quantile_box(g, "bsld", "Bounded slowdown (tau = 10 s)",
                                                "bounded slowdown", log_y=True),
                  facetable=False),
        ChartSpec("utilization", "Utilization over time",
                  lambda g: replay.utilization_over_time(_first_runs(g))),
        ChartSpec("queue", "Queue length over time",
                  lambda g: replay.queue_over_time(_first_runs(g))),
    ],
    run_charts=[ChartSpec("gantt", "Job Gantt (processors over time)", gantt.job_gantt,
                          reads=gantt.READS)],
    default_policies=["fcfs", "easy", "conservative"],
    default_preset="swf-small",
    inputs=[TRACE],
    deterministic=True,
    describe_inputs=trace_facts,
    task_units={"submit": "s", "start": "s", "end": "s", "wait": "s", "estimate": "s",
                "reservation": "s", "procs": "processors", "nodes": "nodes"},
    limits=TRACE_LIMITS,
    work=trace_work,
)
