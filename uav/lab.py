"""The UAV engine's scenario kind as the web lab shows it."""

from __future__ import annotations

import uav.engine as engine
from hetsite.compact import downsample
from hetsite.kinds import ChartSpec, LabKind, Limit, Metric, register
from simcore import charts as shared

from . import charts


def compact_uav(result) -> dict:
    return {"series": downsample(result.series), "dist": {}}


def _bars(key, title, unit=""):
    return lambda groups: shared.metric_bars(groups, key, title, unit)


register(LabKind(
    kind="uav",
    title="UAV surveillance missions (ch. 5)",
    engine=engine,
    metrics=[
        Metric("value", "surveillance value"),
        Metric("value_pct_over_random", "value over Random", "%"),
        # the most one complete surveil per window could earn (None with unlimited repeats)
        Metric("value_pct_of_bound", "value of the per-window bound", "%"),
        Metric("surveils_completed", "surveils completed", digits=1),
        Metric("surveils_preempted", "surveils preempted", higher_is_better=False, digits=1),
        Metric("energy_used_total", "energy used", higher_is_better=False, digits=3),
    ],
    primary_metric="value",
    compact=compact_uav,
    experiment_charts=[
        ChartSpec("value", "Surveillance value", _bars("value", "Surveillance value"),
                  facetable=False),
        ChartSpec("value-over-random", "Value over Random",
                  _bars("value_pct_over_random", "Value over Random", "%"), facetable=False),
        ChartSpec("value-over-time", "Surveillance value over time",
                  lambda g: shared.mean_series(g, "value_cum", "Surveillance value earned",
                                               "value")),
        ChartSpec("active", "Active surveils",
                  lambda g: shared.mean_series(g, "active_surveils", "Active surveils",
                                               "surveils")),
    ],
    run_charts=[ChartSpec("timeline", "Mission timeline", charts.mission_timeline),
                ChartSpec("energy", "Energy remaining per UAV", charts.energy_remaining)],
    default_policies=["random", "max-vpe", "meta+pf"],
    default_preset="small-baseline",
    limits=[
        Limit("uavs", "uavs_mean", lambda p: p["uavs_mean"], "the mean number of UAVs"),
        Limit("targets", "targets_mean", lambda p: p["targets_mean"],
              "the mean number of targets"),
    ],
))
