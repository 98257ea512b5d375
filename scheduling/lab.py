"""The scheduling engine's scenario kinds as the web lab shows them."""

from __future__ import annotations

import scheduling.engine as engine
from hetsite.compact import downsample, quantiles
from hetsite.kinds import ChartSpec, KindUI, Metric, register

from .charts import common, parallel, replay


def _waits_min(tasks) -> list:
    return [(s - a) / 60.0 for a, s in zip(tasks.get("arrival", []), tasks.get("start", []),
                                           strict=False) if s is not None]


def compact_parallel(result) -> dict:
    return {"series": downsample(result.series),
            "dist": {"wait_min": quantiles(_waits_min(result.tasks))}}


def _bars(key, title, unit=""):
    return lambda groups: common.metric_bars(groups, key, title, unit)


register(KindUI(
    kind="parallel-energy",
    title="Parallel jobs with utility and an energy budget (ch. 3)",
    engine=engine,
    metrics=[
        Metric("pct_max_utility", "% of maximum utility", "%"),
        Metric("utility", "utility earned"),
        Metric("energy_gj", "energy used", "GJ", higher_is_better=False),
        Metric("tasks_completed", "tasks completed", digits=0),
        Metric("tasks_dropped", "tasks dropped", higher_is_better=False, digits=0),
        Metric("wait_mean_min", "mean wait", "min", higher_is_better=False),
    ],
    primary_metric="pct_max_utility",
    compact=compact_parallel,
    experiment_charts=[
        ChartSpec("pct-max-utility", "% of maximum utility",
                  _bars("pct_max_utility", "% of maximum utility", "%"), facetable=False),
        ChartSpec("utility-over-time", "Cumulative utility",
                  lambda g: common.mean_series(g, "utility_cum", "Cumulative utility earned",
                                               "utility")),
        ChartSpec("energy", "Energy against the budget", parallel.energy_vs_budget),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: common.ecdf(g, "wait_min", "Wait time (ECDF)", "wait (min)")),
        ChartSpec("queue", "Mappable and running tasks", parallel.queue_over_time),
        ChartSpec("metaheuristic", "Metaheuristic choice", parallel.metaheuristic_choice,
                  applies=parallel.has_choices),
    ],
    run_charts=[ChartSpec("gantt", "Node allocation", parallel.node_gantt)],
    default_policies=["easy", "max-upe-ph", "meta-event"],
    default_preset="small",
))


def compact_replay(result) -> dict:
    tasks = result.tasks
    return {"series": downsample(result.series),
            "dist": {"wait_h": quantiles([w / 3600.0 for w in tasks.get("wait", [])]),
                     "bsld": quantiles(tasks.get("bsld", []))}}


def _first_runs(groups):
    """Replays are deterministic per trace: one run per policy carries the time series."""
    return [(label, {"series": runs[0].series}) for label, runs in groups.items()]


register(KindUI(
    kind="swf-replay",
    title="Trace replay with backfilling (SWF)",
    engine=engine,
    metrics=[
        Metric("wait_mean_s", "mean wait", "s", higher_is_better=False, digits=0),
        Metric("bsld_mean", "mean bounded slowdown", higher_is_better=False),
        Metric("utilization", "utilization", higher_is_better=True, digits=3),
        Metric("makespan_s", "makespan", "s", higher_is_better=False, digits=0),
        Metric("queue_mean", "mean queue", "jobs", higher_is_better=False, digits=1),
        Metric("jobs_rejected", "jobs rejected", higher_is_better=False, digits=0),
    ],
    primary_metric="bsld_mean",
    compact=compact_replay,
    experiment_charts=[
        ChartSpec("wait-mean", "Mean wait", _bars("wait_mean_s", "Mean wait", "s"),
                  facetable=False),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: common.ecdf(g, "wait_h", "Wait time (ECDF)", "wait (h)")),
        ChartSpec("bsld", "Bounded slowdown",
                  lambda g: common.quantile_box(g, "bsld", "Bounded slowdown (tau = 10 s)",
                                                "bounded slowdown", log_y=True),
                  facetable=False),
        ChartSpec("utilization", "Utilization over time",
                  lambda g: replay.utilization_over_time(_first_runs(g))),
        ChartSpec("queue", "Queue length over time",
                  lambda g: replay.queue_over_time(_first_runs(g))),
    ],
    default_policies=["fcfs", "easy", "conservative"],
    default_preset="swf-small",
))
