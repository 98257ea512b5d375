"""Kind ``many-task`` as the web lab shows it: metrics, charts, the run-time input and limits."""

from __future__ import annotations

import hashlib
import json

import scheduling.engine as engine
from scheduling.hpc import traces
from scheduling.hpc.runtimes import LIST, read_runtime_list, sniff
from scheduling.hpc.swf import read_swf
from scheduling.many_task import charts as manytask
from simcore import charts as shared
from simcore import lab
from simcore.compact import downsample
from simcore.errors import ScenarioError
from simcore.lab import (
    UNITLESS,
    ChartSpec,
    CheckedFile,
    FileInput,
    LabKind,
    Limit,
    Metric,
    MetricBars,
    Opener,
)


def _setting(params: dict, label: str) -> dict:
    """What a run's trade-off observations are pooled by: the scenario without its chopping,
    grid and output parameters (and without the fixed first partition, an axis of Fig. 2)."""
    core = {k: v for k, v in params.items() if k in ("workload", "machine")}
    core["machine"] = {k: v for k, v in core.get("machine", {}).items() if k != "workers"}
    digest = hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()[:12]
    return {"key": digest, "label": label,
            "workers": (params.get("machine") or {}).get("workers")}


def compact_manytask(result) -> dict:
    params = (result.meta.get("scenario") or {}).get("params") or {}
    workload = result.extra.get("workload") or {}
    dist = {"setting": _setting(params, workload.get("label", "")),
            "hist": result.extra.get("runtime_hist")}
    grid = result.extra.get("tradeoff")
    # An experiment holds hundreds of runs (the paper's 100 shuffles per policy) and its page
    # reads every one: keep what the experiment charts draw, at the digits they show.
    if grid:
        dist["grid"] = {"r": grid["r"], "f": grid["f"],
                        "utilization": [shared.rounded(row, 5) for row in grid["utilization"]],
                        "tts_h": [shared.rounded([t / 3600.0 for t in row], 5)
                                  for row in grid["tts_s"]]}
    keep = ("t_min", "busy_workers", "allocated_workers")
    series = downsample({k: result.series[k] for k in keep if k in result.series}, 200)
    return {"series": {k: shared.rounded(v, 5) for k, v in series.items()}, "dist": dist}


def check_runtimes(open_file: Opener, *, max_bytes: int, max_records: int) -> CheckedFile:
    """Uploaded task run times: a list with one run time (s) per line, or an SWF trace whose
    known run times are used (``scheduling.hpc.runtimes``); its records are the run times."""
    with open_file() as stream:
        form = sniff(stream, max_bytes)
    with open_file() as stream:
        if form == LIST:
            return CheckedFile(len(read_runtime_list(stream, max_bytes=max_bytes,
                                                     max_values=max_records)), ".txt")
        # An SWF trace's known run times (scheduling.hpc.runtimes.swf_runtimes), counted as they
        # stream by rather than read into columns.
        _header, jobs = read_swf(stream, max_bytes=max_bytes, max_jobs=max_records)
        count = sum(1 for job in jobs if job.run_time >= 0)
    if count == 0:
        raise ScenarioError("runtimes", "the SWF trace has no job with a known run time")
    return CheckedFile(count, ".swf")


RUNTIMES = FileInput(
    "workload.runtimes", "runtimes",
    lambda: [(t["name"], f"{t['name']} (run-time column) — {t['description']}")
             for t in traces.list_traces()],
    upload_field="runtimes_file", upload_label="Upload task run times",
    upload_help="one run time (s) per line, or an SWF trace (its run-time column); plain or "
                ".gz; selects the runtimes source",
    choice_help="used by the runtimes source; or upload your own file below",
    default="lublin_256", on_upload=(("workload.source", "runtimes"),), check=check_runtimes)


def _many_tasks(p: dict) -> int:
    """Tasks of a many-task scenario (files are counted; uploads were when checked)."""
    from scheduling.many_task.workload import SURROGATES

    w = p["workload"]
    if w["source"] in SURROGATES:
        return w["tasks"] or SURROGATES[w["source"]].tasks
    if w["source"] == "list":
        return len(w["values"])
    if w["source"] == "runtimes":
        if traces.upload_sha(w["runtimes"]) is not None:
            count = lab.uploads().count(w["runtimes"])
        else:
            count = len(traces.TraceLibrary().load_runtimes(w["runtimes"]))
        return min(count, w["tasks"] or count) if count else w["tasks"] or 0
    return w["tasks"] or 0


def _many_task_work(p: dict) -> int:
    grid = len(p["tradeoff"]["ratios"]) * (len(p["tradeoff"]["idle_fractions"]) + 1)
    return _many_tasks(p) * (1 + grid)


LAB = LabKind(
    kind="many-task",
    # reference run (benchmarks/cost_estimates.py): fig6-synth15k / random: 0.068 s
    seconds_per_cost=9.9e-8,
    title="Many-task workloads and trailing tasks (tail-chopping)",
    engine=engine,
    metrics=[
        Metric("utilization", "utilization", UNITLESS, higher_is_better=True, digits=1,
               scale=100.0, shown_unit="%", lower=0, upper=1),
        # Stored in seconds, shown in minutes or hours as the values' size asks.
        Metric("tts_s", "time to solution", "s", higher_is_better=False, lower=0),
        Metric("allocated_cpu_h", "allocated CPU time", "CPU-h", higher_is_better=False,
               digits=0, lower=0),
        # The tasks' work plus the CPU lost to cancellations: only the loss differs.
        Metric("active_cpu_h", "active CPU time", "CPU-h", higher_is_better=False, digits=0,
               lower=0),
        Metric("idle_cpu_h", "idle CPU time", "CPU-h", higher_is_better=False, digits=0,
               lower=0),
        Metric("wasted_cpu_h", "CPU lost to cancellations", "CPU-h", higher_is_better=False,
               digits=1, lower=0),
        # Tail-chopping asks for more partitions by design; what that buys shows in the time
        # to solution and the utilization.
        Metric("partitions", "partitions used", UNITLESS, higher_is_better=None, digits=2,
               lower=1),
    ],
    primary_metric="utilization",
    compact=compact_manytask,
    experiment_charts=[
        ChartSpec("tradeoff-random", "TTS against utilization (random order)",
                  lambda g: manytask.tradeoff(g, "random"), facetable=False,
                  applies=manytask.has_order("random")),
        ChartSpec("tradeoff-sorted", "TTS against utilization (longest first)",
                  lambda g: manytask.tradeoff(g, "sorted"), facetable=False,
                  applies=manytask.has_order("sorted")),
        ChartSpec("tts-vs-r", "TTS against r", lambda g: manytask.versus_ratio(g, "tts"),
                  facetable=False),
        ChartSpec("utilization-vs-r", "Utilization against r",
                  lambda g: manytask.versus_ratio(g, "utilization"), facetable=False),
        ChartSpec("utilization", "Utilization", MetricBars("utilization", "Utilization"),
                  facetable=False),
        ChartSpec("tts", "Time to solution", MetricBars("tts_s", "Time to solution"),
                  facetable=False),
        ChartSpec("workers", "Busy and allocated workers", manytask.workers_over_time),
        ChartSpec("histogram", "Run-time histogram", manytask.runtime_histogram,
                  facetable=False),
    ],
    run_charts=[ChartSpec("workers", "Active and idle workers", manytask.run_workers),
                ChartSpec("histogram", "Run-time histogram", manytask.run_histogram),
                ChartSpec("tradeoff", "This run's trade-off grid", manytask.run_tradeoff)],
    default_policies=["random", "random+chop", "sorted", "sorted+chop"],
    default_preset="fig6-synth15k",
    default_trials=100,
    inputs=[RUNTIMES],
    limits=[
        Limit("many_tasks", "workload.tasks", _many_tasks, "the number of tasks",
              default=2_000_000),
        Limit("many_task_work", "tradeoff.ratios", _many_task_work,
              "the work of one run (tasks x (1 + trade-off points))", default=1_000_000_000),
    ],
)
