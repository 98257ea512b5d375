"""The UAV engine's scenario kind as the web lab shows it."""

from __future__ import annotations

import uav.engine as engine
from simcore import charts as shared
from simcore.bounds import Bounds
from simcore.compact import downsample
from simcore.lab import UNITLESS, ChartSpec, Condition, LabKind, Limit, Metric, MetricBars

from . import charts


def compact_uav(result) -> dict:
    return {"series": downsample(result.series), "dist": {}}


METRICS = [
    # Value: priority x affinity x quality per complete surveil (a fraction for a partial one).
    Metric("value", "surveillance value", "priority-weighted surveils", higher_is_better=True,
           lower=0),
    Metric("value_pct_over_random", "value over Random", "%", higher_is_better=True,
           lower=-100,
           missing="a run has one only when Random flies the same mission beside it (the "
                   "scenario's “Also run Random”, compare_random) and earns some value there"),
    # the most one complete surveil per window could earn (None with unlimited repeats)
    Metric("value_pct_of_bound", "value of the per-window bound", "%", higher_is_better=True,
           lower=0, upper=100),
    Metric("surveils_completed", "surveils completed", UNITLESS, higher_is_better=True,
           digits=1, lower=0),
    # Preempting is one of the chapter's add-ons: counted to explain the value, no better side.
    Metric("surveils_preempted", "surveils preempted", UNITLESS, higher_is_better=None,
           digits=1, lower=0),
    # Energy is normalized: 1 is one UAV's full capacity. Each UAV's budget is there to be
    # spent (the metaheuristic paces it to run dry at the end of the day): no better side.
    Metric("energy_used_total", "energy used", "full charges", higher_is_better=None,
           digits=3, lower=0),
]

LAB = LabKind(
    kind="uav",
    # reference run (benchmarks/cost_estimates.py): small-baseline / random: 0.018 s
    seconds_per_cost=8.5e-8,
    title="UAV surveillance missions (ch. 5)",
    engine=engine,
    metrics=METRICS,
    primary_metric="value",
    compact=compact_uav,
    experiment_charts=[
        ChartSpec("value", "Surveillance value", MetricBars("value", "Surveillance value"),
                  facetable=False),
        ChartSpec("value-over-random", "Value over Random",
                  MetricBars("value_pct_over_random", "Value over Random"), facetable=False),
        ChartSpec("value-over-time", "Surveillance value over time",
                  lambda g: shared.mean_series(g, "value_cum", "Surveillance value earned",
                                               "value", bounds=Bounds(0.0))),
        ChartSpec("active", "Active surveils",
                  lambda g: shared.mean_series(g, "active_surveils", "Active surveils",
                                               "surveils", with_band=False)),
    ],
    run_charts=[ChartSpec("timeline", "Mission timeline", charts.mission_timeline),
                ChartSpec("energy", "Energy remaining per UAV", charts.energy_remaining)],
    default_policies=["random", "max-vpe", "meta+pf"],
    default_preset="small-baseline",
    task_units={"start": "min", "end": "min", "travel_min": "min"},
    conditions=[Condition(("geometry.",), "geometry.enabled", (True,))],
    limits=[
        Limit("uavs", "uavs_mean", lambda p: p["uavs_mean"], "the mean number of UAVs",
              field_scale=1, default=2_000),
        Limit("targets", "targets_mean", lambda p: p["targets_mean"],
              "the mean number of targets", field_scale=1, default=5_000),
    ],
)
