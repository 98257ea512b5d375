"""The scheduling engine's scenario kinds as the web lab shows them."""

from __future__ import annotations

import hashlib
import json

from django import forms

import scheduling.engine as engine
from hetsite.compact import downsample, quantiles
from hetsite.kinds import PARAM_PREFIX, ChartSpec, LabKind, Limit, Metric, register
from simcore import charts as shared
from simcore import traces
from simcore.errors import ScenarioError

from .charts import manytask, parallel, replay, serial


def _waits_min(tasks) -> list:
    return [(s - a) / 60.0 for a, s in zip(tasks.get("arrival", []), tasks.get("start", []),
                                           strict=False) if s is not None]


def compact_with_waits(result) -> dict:
    """Chart data of kinds whose tasks have arrival and start times (ch. 3 and ch. 4)."""
    return {"series": downsample(result.series),
            "dist": {"wait_min": quantiles(_waits_min(result.tasks))}}


def _bars(key, title, unit=""):
    return lambda groups: shared.metric_bars(groups, key, title, unit)


register(LabKind(
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
    compact=compact_with_waits,
    experiment_charts=[
        ChartSpec("pct-max-utility", "% of maximum utility",
                  _bars("pct_max_utility", "% of maximum utility", "%"), facetable=False),
        ChartSpec("utility-over-time", "Cumulative utility",
                  lambda g: shared.mean_series(g, "utility_cum", "Cumulative utility earned",
                                               "utility")),
        ChartSpec("energy", "Energy against the budget", parallel.energy_vs_budget),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: shared.ecdf(g, "wait_min", "Wait time (ECDF)", "wait (min)")),
        ChartSpec("queue", "Mappable and running tasks", parallel.queue_over_time),
        ChartSpec("metaheuristic", "Metaheuristic choice", parallel.metaheuristic_choice,
                  applies=parallel.has_choices),
    ],
    run_charts=[ChartSpec("gantt", "Node allocation", parallel.node_gantt)],
    default_policies=["easy", "max-upe-ph", "meta-event"],
    default_preset="small",
    limits=[
        Limit("tasks_per_day", "workload.tasks_per_day",
              lambda p: p["workload"]["tasks_per_day"], "the arrival rate (tasks/day)"),
        Limit("nodes", "system.clusters",
              lambda p: sum(c["nodes"] for c in p["system"]["clusters"]), "the node count"),
        Limit("sim_hours", "time.sim_h", lambda p: p["time"]["sim_h"],
              "the simulated time (h)"),
    ],
))


def compact_replay(result) -> dict:
    tasks = result.tasks
    return {"series": downsample(result.series),
            "dist": {"wait_h": quantiles([w / 3600.0 for w in tasks.get("wait", [])]),
                     "bsld": quantiles(tasks.get("bsld", []))}}


def _first_runs(groups):
    """Replays are deterministic per trace: one run per policy carries the time series."""
    return [(label, {"series": runs[0].series}) for label, runs in groups.items()]


class TraceChoice:
    """swf-replay: pick a trace from the shipped library or upload an SWF file."""

    def customize(self, form) -> None:
        name = PARAM_PREFIX + "trace"
        old = form.fields[name]
        choices = [(t["name"], f"{t['name']} — {t['description']}")
                   for t in traces.list_traces()]
        current = form.initial.get(name) or (form.data.get(name) if form.is_bound else None)
        if current and traces.upload_sha(current):
            choices.append((current, f"uploaded trace {current[7:19]}…"))
        field = forms.ChoiceField(choices=choices, label="trace (library)",
                                  help_text="or upload your own file below", required=False)
        for attr in ("unit", "advanced", "param", "json_type", "optional"):
            setattr(field, attr, getattr(old, attr))
        form.fields[name] = field
        form.fields["trace_file"] = forms.FileField(
            required=False, label="upload an SWF trace",
            help_text="Standard Workload Format, plain or .gz; replaces the library choice")
        form.fields["trace_file"].json_type = "file"
        form.extra_names.append("trace_file")

    def clean(self, form, data: dict) -> None:
        upload = data.get("trace_file")
        if not upload:
            if not data.get(PARAM_PREFIX + "trace"):
                form.add_error(PARAM_PREFIX + "trace", "choose a library trace or upload one")
            return
        from hetsite.uploads import store_trace_upload

        try:
            data[PARAM_PREFIX + "trace"] = store_trace_upload(upload)
        except ScenarioError as err:
            form.add_error("trace_file", err.message)


register(LabKind(
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
                  lambda g: shared.ecdf(g, "wait_h", "Wait time (ECDF)", "wait (h)")),
        ChartSpec("bsld", "Bounded slowdown",
                  lambda g: shared.quantile_box(g, "bsld", "Bounded slowdown (tau = 10 s)",
                                                "bounded slowdown", log_y=True),
                  facetable=False),
        ChartSpec("utilization", "Utilization over time",
                  lambda g: replay.utilization_over_time(_first_runs(g))),
        ChartSpec("queue", "Queue length over time",
                  lambda g: replay.queue_over_time(_first_runs(g))),
    ],
    default_policies=["fcfs", "easy", "conservative"],
    default_preset="swf-small",
    form_hook=TraceChoice(),
    deterministic=True,
    limits=[
        Limit("nodes", "nodes", lambda p: p["nodes"] or 0, "the node count"),
        Limit("trace_jobs", "job_limit",
              lambda p: p["job_limit"] or _trace_jobs(p["trace"]), "the trace length (jobs)"),
    ],
))


def _trace_jobs(trace: str) -> int:
    """Job lines of a library trace (uploads were counted against the limit when stored)."""
    if traces.upload_sha(trace) is not None:
        return 0
    return len(traces.TraceLibrary().load(trace).columns["job_id"])


register(LabKind(
    kind="serial-preemption",
    title="Preemptive scheduling of urgent serial tasks (ch. 4)",
    engine=engine,
    metrics=[
        Metric("pct_max_utility", "% of maximum utility", "%"),
        Metric("utility", "utility earned"),
        Metric("pct_critical_completed", "critical tasks completed", "%"),
        Metric("pct_tasks_completed", "tasks completed", "%"),
        Metric("preemptions", "preemptions", higher_is_better=False, digits=0),
        Metric("tasks_dropped", "tasks dropped", higher_is_better=False, digits=0),
    ],
    primary_metric="pct_max_utility",
    compact=compact_with_waits,
    experiment_charts=[
        ChartSpec("pct-max-utility", "% of maximum utility",
                  _bars("pct_max_utility", "% of maximum utility", "%"), facetable=False),
        ChartSpec("critical", "Critical tasks completed",
                  _bars("pct_critical_completed", "Critical tasks completed", "%"),
                  facetable=False),
        ChartSpec("utility-over-time", "Cumulative utility",
                  lambda g: shared.mean_series(g, "utility_cum", "Cumulative utility earned",
                                               "utility")),
        ChartSpec("preemptions-per-minute", "Preemptions per minute",
                  lambda g: shared.mean_series(g, "preemptions", "Preemptions per minute",
                                               "preemptions / min")),
        ChartSpec("queue", "Mappable and running tasks", parallel.queue_over_time),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: shared.ecdf(g, "wait_min", "Wait until first start (ECDF)",
                                        "wait (min)")),
    ],
    run_charts=[ChartSpec("preemptions", "Preemption timeline", serial.preemption_timeline)],
    default_policies=["fcfs", "max-util", "max-util-greedy", "max-upt-diff"],
    default_preset="ch4-small",
    limits=[
        Limit("cores", "system.cores_per_cluster",
              lambda p: p["system"]["n_clusters"] * p["system"]["cores_per_cluster"],
              "the core count"),
        Limit("tasks_per_day", "workload.tasks_per_core_per_day",
              lambda p: p["workload"]["tasks_per_core_per_day"] * p["system"]["n_clusters"]
              * p["system"]["cores_per_cluster"], "the arrival rate (tasks/day)"),
        Limit("sim_hours", "scheduler.duration_min",
              lambda p: p["scheduler"]["duration_min"] / 60.0, "the simulated time (h)"),
    ],
))


# -- many-task (trailing tasks, tail-chopping) ---------------------------------------------------

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


class RuntimeChoice:
    """many-task: run times from a library trace or an uploaded file (one run time per line,
    or an SWF trace's run-time column); an upload switches the source to it."""

    field = PARAM_PREFIX + "workload.runtimes"

    def customize(self, form) -> None:
        old = form.fields[self.field]
        choices = [(t["name"], f"{t['name']} (run-time column) — {t['description']}")
                   for t in traces.list_traces()]
        current = form.initial.get(self.field) or (
            form.data.get(self.field) if form.is_bound else None)
        if current and traces.upload_sha(current):
            choices.append((current, f"uploaded file {current[7:19]}…"))
        field = forms.ChoiceField(choices=choices, label="run-time file (library)",
                                  help_text="used by the runtimes source; or upload your own "
                                            "file below", required=False)
        for attr in ("unit", "advanced", "param", "json_type", "optional"):
            setattr(field, attr, getattr(old, attr))
        form.fields[self.field] = field
        form.fields["runtimes_file"] = forms.FileField(
            required=False, label="upload task run times",
            help_text="one run time (s) per line, or an SWF trace (its run-time column); plain "
                      "or .gz; selects the runtimes source")
        form.fields["runtimes_file"].json_type = "file"
        form.extra_names.append("runtimes_file")

    def clean(self, form, data: dict) -> None:
        upload = data.get("runtimes_file")
        if not upload:
            if not data.get(self.field):
                data[self.field] = "lublin_256"
            return
        from hetsite.uploads import store_runtimes_upload

        try:
            data[self.field] = store_runtimes_upload(upload)
            data[PARAM_PREFIX + "workload.source"] = "runtimes"
        except ScenarioError as err:
            form.add_error("runtimes_file", err.message)


def _many_tasks(p: dict) -> int:
    """Tasks of a many-task scenario (files are counted; uploads were when stored)."""
    from scheduling.engine.manytask.workload import SURROGATES

    w = p["workload"]
    if w["source"] in SURROGATES:
        return w["tasks"] or SURROGATES[w["source"]].tasks
    if w["source"] == "list":
        return len(w["values"])
    if w["source"] == "runtimes":
        if traces.upload_sha(w["runtimes"]) is not None:
            return w["tasks"] or 0
        count = len(traces.TraceLibrary().load_runtimes(w["runtimes"]))
        return min(count, w["tasks"] or count)
    return w["tasks"] or 0


def _many_task_work(p: dict) -> int:
    grid = len(p["tradeoff"]["ratios"]) * (len(p["tradeoff"]["idle_fractions"]) + 1)
    return _many_tasks(p) * (1 + grid)


register(LabKind(
    kind="many-task",
    title="Many-task workloads and trailing tasks (tail-chopping)",
    engine=engine,
    metrics=[
        Metric("utilization", "utilization", digits=3),
        Metric("tts_h", "time to solution", "h", higher_is_better=False, digits=3),
        Metric("tts_min", "time to solution", "min", higher_is_better=False, digits=1),
        Metric("allocated_cpu_h", "allocated CPU time", "CPU-h", higher_is_better=False,
               digits=0),
        Metric("active_cpu_h", "active CPU time", "CPU-h", higher_is_better=False, digits=0),
        Metric("idle_cpu_h", "idle CPU time", "CPU-h", higher_is_better=False, digits=0),
        Metric("wasted_cpu_h", "CPU lost to cancellations", "CPU-h", higher_is_better=False,
               digits=1),
        Metric("partitions", "partitions used", higher_is_better=False, digits=2),
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
        ChartSpec("utilization", "Utilization", _bars("utilization", "Utilization"),
                  facetable=False),
        ChartSpec("tts", "Time to solution", _bars("tts_h", "Time to solution", "h"),
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
    form_hook=RuntimeChoice(),
    limits=[
        Limit("many_tasks", "workload.tasks", _many_tasks, "the number of tasks"),
        Limit("many_task_work", "tradeoff.ratios", _many_task_work,
              "the work of one run (tasks x (1 + trade-off points))"),
    ],
))
