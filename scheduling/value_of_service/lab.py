"""Kind ``value-of-service`` as the web lab shows it: metrics, charts and limits."""

from __future__ import annotations

import numpy as np

import scheduling.engine as engine
from scheduling.hpc.lab import (
    DROPPED,
    MAX_CORES,
    MAX_SIM_HOURS,
    MAX_TASKS_PER_DAY,
    NON_NEGATIVE,
    wait_quantiles,
)
from scheduling.value_of_service import charts as vos
from scheduling.value_of_service.result import task_fates
from simcore import charts as shared
from simcore.compact import downsample
from simcore.lab import (
    UNITLESS,
    ChartSpec,
    LabKind,
    Limit,
    Metric,
    MetricBars,
)


def _vos_tasks_per_day(p: dict) -> float:
    """Arrivals per simulated day: the task count spread over the run, or the phase rates."""
    hours = p["scheduler"]["duration_h"]
    a = p["arrivals"]
    if a["pattern"] == "sinusoidal":
        return p["workload"]["tasks_max"] * 24.0 / hours
    s = p["system"]
    cores = s["cores"] if s["layout"] == "pool" else s["nodes"] * s["node_cores"]
    return a["rate_per_core_h"] * cores * 24.0


def compact_vos(result) -> dict:
    """Chart data: the waits (the engine keeps minutes) of the tasks the summary counts (those
    arriving in the window) that started in the run. A permanent reservation booked past the
    end gives its task a start time, but the task never started: it counts, with the tasks
    still waiting, among ``tasks_never_started``; the ECDF ends at the share that started."""
    tasks = result.tasks
    fate = task_fates(tasks, result.extra["window_min"])
    counted = fate["counted"]
    arrival = np.asarray(tasks.get("arrival", []), dtype=float)
    start = np.asarray(tasks.get("start", []), dtype=float)  # (numpy reads None as nan)
    waits = (start - arrival)[counted & fate["started"]]
    return {"series": downsample(result.series),
            "dist": {"wait_min": wait_quantiles(waits.tolist(), int(counted.sum()),
                                                int((counted & fate["dropped"]).sum()))}}


def task_records(result: dict) -> dict:
    """The task table as the exports write it: the status as the summary counts it ("started",
    "never started", "reserved past the end, never started", "dropped") and, after the
    arrival, whether the task arrived in the window (the summary's tasks)."""
    tasks = result.get("tasks") or {}
    window = (result.get("extra") or {}).get("window_min")
    if not window or "status" not in tasks:
        return tasks
    fate = task_fates(tasks, window)
    words = np.full(fate["counted"].size, "never started", dtype=object)
    words[fate["reserved_past_end"]] = "reserved past the end, never started"
    words[fate["dropped"]] = "dropped"
    words[fate["started"]] = "started"
    out = {}
    for column, values in tasks.items():
        out[column] = words.tolist() if column == "status" else values
        if column == "arrival":
            out["arrived_in_window"] = fate["counted"].tolist()
    return out


LAB = LabKind(
    kind="value-of-service",
    # reference run (benchmarks/cost_estimates.py): vos-small / simple: 0.042 s
    seconds_per_cost=2.2e-5,
    title="Value of Service: time and energy value, VM configurations (ch. 2)",
    engine=engine,
    metrics=[
        Metric("pct_max_vos", "% of maximum VoS", "%", higher_is_better=True, lower=0,
               upper=100),
        Metric("pct_max_perf_value", "% of maximum performance value", "%",
               higher_is_better=True, lower=0, upper=100),
        Metric("pct_max_energy_value", "% of maximum energy value", "%", higher_is_better=True,
               lower=0, upper=100),
        Metric("vos", "VoS earned", UNITLESS, higher_is_better=True, lower=0),
        # Both grow with the work completed: neither side is better.
        Metric("exec_time_ks", "total execution time of completed tasks", "ks",
               higher_is_better=None, digits=1, lower=0),
        Metric("energy_mj", "total energy of completed tasks", "MJ", higher_is_better=None,
               digits=3, lower=0),
        Metric("tasks_completed", "tasks completed", UNITLESS, higher_is_better=True, digits=0,
               lower=0),
        DROPPED,
    ],
    primary_metric="pct_max_vos",
    compact=compact_vos,
    experiment_charts=[
        ChartSpec("pct-max-vos", "% of maximum VoS",
                  MetricBars("pct_max_vos", "% of maximum VoS"), facetable=False),
        ChartSpec("value-split", "Performance vs energy value", vos.value_split,
                  facetable=False),
        ChartSpec("resources", "Cores and memory in use", vos.resources_over_time),
        ChartSpec("vos-over-time", "Cumulative VoS",
                  lambda g: shared.mean_series(g, "vos_cum", "Cumulative VoS earned", "VoS",
                                               bounds=NON_NEGATIVE)),
        ChartSpec("queue", "Mappable and running tasks", shared.queue_over_time),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: shared.ecdf(g, "wait_min", "Wait until start (ECDF)",
                                        "wait (min)", counted="arrivals in the window")),
    ],
    run_charts=[ChartSpec("vm-timeline", "VM timeline", vos.vm_timeline)],
    default_policies=["simple", "simple-dp", "max-vptr"],
    # The engine's clock is in minutes.
    task_units={"arrival": "min", "start": "min", "end": "min"},
    task_records=task_records,
    default_preset="vos-small",
    limits=[
        Limit("cores", "system.cores",
              lambda p: p["system"]["cores"] if p["system"]["layout"] == "pool" else 0,
              "the core count", default=MAX_CORES),
        Limit("cores", "system.nodes",
              lambda p: (p["system"]["nodes"] * p["system"]["node_cores"]
                         if p["system"]["layout"] == "nodes" else 0), "the core count",
              default=MAX_CORES),
        Limit("tasks_per_day", "workload.tasks_max",
              lambda p: _vos_tasks_per_day(p) if p["arrivals"]["pattern"] == "sinusoidal"
              else 0, "the arrival rate (tasks/day)", default=MAX_TASKS_PER_DAY),
        Limit("tasks_per_day", "arrivals.rate_per_core_h",
              lambda p: _vos_tasks_per_day(p) if p["arrivals"]["pattern"] == "phases" else 0,
              "the arrival rate (tasks/day)", default=MAX_TASKS_PER_DAY),
        Limit("sim_hours", "scheduler.duration_h", lambda p: p["scheduler"]["duration_h"],
              "the simulated time (h)", field_scale=1, default=MAX_SIM_HOURS),
    ],
)
