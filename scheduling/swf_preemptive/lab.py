"""Kind ``swf-preemptive`` as the web lab shows it: metrics, charts, the trace input and limits."""

from __future__ import annotations

import scheduling.engine as engine
from scheduling.hpc import gantt
from scheduling.hpc.lab import SHARE, TRACE, TRACE_LIMITS, trace_facts, trace_work
from scheduling.swf_preemptive import charts as pbb
from simcore import charts as shared
from simcore.compact import downsample, quantiles
from simcore.lab import (
    UNITLESS,
    ChartSpec,
    LabKind,
    Metric,
    MetricBars,
)


def compact_pbb(result) -> dict:
    tasks = result.tasks
    return {"series": downsample(result.series),
            "dist": {"queue_h": quantiles([w / 3600.0 for w in tasks.get("wait", [])]),
                     "xf": quantiles(tasks.get("xf", []))}}


def _class_charts() -> list[ChartSpec]:
    return [spec for cls in pbb.CLASSES for spec in (
        ChartSpec(f"xf-{cls}", f"Expansion factor of {cls.capitalize()} jobs by size",
                  lambda g, c=cls: pbb.xf_by_size(g, c), facetable=False,
                  applies=pbb.has_class(cls)),
        ChartSpec(f"queue-{cls}", f"Queue time of {cls.capitalize()} jobs by size",
                  lambda g, c=cls: pbb.queue_by_size(g, c), facetable=False,
                  applies=pbb.has_class(cls)))]


LAB = LabKind(
    kind="swf-preemptive",
    # reference run (benchmarks/cost_estimates.py): pbb-small / first-fit: 0.007 s
    seconds_per_cost=1.4e-5,
    title="Preemption-based backfill (SWF, Snell-Clement-Jackson)",
    engine=engine,
    metrics=[
        Metric("xf_mean", "mean expansion factor", UNITLESS, higher_is_better=False, digits=1,
               lower=1),
        Metric("queue_time_mean_s", "mean queue time", "s", higher_is_better=False, lower=0),
        # A kill loses the job's work: the victim choices aim at fewer kills and less waste
        # for the same waits (duration-remaining: "bigger holes with fewer kills").
        Metric("preemptions", "jobs killed", UNITLESS, higher_is_better=False, digits=0,
               lower=0),
        Metric("node_hours_wasted", "node-hours wasted", "node-h", higher_is_better=False,
               digits=0, lower=0),
        Metric("utilization", "utilization (useful)", UNITLESS, higher_is_better=True, digits=1,
               scale=100.0, shown_unit="%", lower=0, upper=1),
        # Busy includes the work later killed: more of it is not better.
        Metric("utilization_busy", "utilization (busy)", UNITLESS, higher_is_better=None,
               digits=1, scale=100.0, shown_unit="%", lower=0, upper=1),
        Metric("xf_mean_high", "mean XF of High jobs", UNITLESS, higher_is_better=False,
               digits=2, lower=1),
        Metric("queue_time_mean_s_high", "mean queue time of High jobs", "s",
               higher_is_better=False, lower=0),
    ],
    primary_metric="xf_mean",
    compact=compact_pbb,
    experiment_charts=[
        ChartSpec("xf-size", "Expansion factor by job size (Fig. 6)", pbb.xf_by_size,
                  facetable=False),
        ChartSpec("queue-size", "Queue time by job size (Fig. 7)", pbb.queue_by_size,
                  facetable=False),
        *_class_charts(),
        ChartSpec("kills", "Preemptions over time", pbb.kills_over_time),
        ChartSpec("wasted", "Node-hours wasted by kills",
                  MetricBars("node_hours_wasted", "Node-hours wasted by kills"),
                  facetable=False),
        ChartSpec("queue-time", "Queue time distribution",
                  lambda g: shared.ecdf(g, "queue_h", "Queue time (ECDF)", "queue time (h)")),
        ChartSpec("utilization", "Busy processors over time",
                  lambda g: shared.mean_series(g, "utilization", "Busy processors over time "
                                               "(useful and wasted work)", "busy (%)", 100.0,
                                               bounds=SHARE)),
    ],
    run_charts=[ChartSpec("gantt", "Job Gantt (killed runs in red)", gantt.job_gantt,
                          reads=gantt.READS)],
    default_policies=["first-fit", "random", "duration-consumed", "duration-remaining",
                      "wcduration", "wcduration-percentresusage"],
    default_preset="pbb-small",
    inputs=[TRACE],
    describe_inputs=trace_facts,
    # Trace time, in seconds like the SWF file: the completed run's length and the EASY
    # reservation too.
    task_units={"submit": "s", "start": "s", "end": "s", "wait": "s", "estimate": "s",
                "reservation": "s", "run": "s", "procs": "processors", "nodes": "nodes"},
    # The job's run time is ``run`` in the result; tasks.csv names it apart from its run id.
    task_names={"run": "runtime"},
    limits=TRACE_LIMITS,
    work=trace_work,
)
