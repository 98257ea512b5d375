"""The scheduling engine's scenario kinds as the web lab shows them."""

from __future__ import annotations

from django import forms

import scheduling.engine as engine
from hetsite.compact import downsample, quantiles
from hetsite.kinds import PARAM_PREFIX, ChartSpec, LabKind, Limit, Metric, register
from simcore import charts as shared
from simcore import traces
from simcore.errors import ScenarioError

from .charts import parallel, replay, serial, vos


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


def _vos_tasks_per_day(p: dict) -> float:
    """Arrivals per simulated day: the task count spread over the run, or the phase rates."""
    hours = p["scheduler"]["duration_h"]
    a = p["arrivals"]
    if a["pattern"] == "sinusoidal":
        return p["workload"]["tasks_max"] * 24.0 / hours
    s = p["system"]
    cores = s["cores"] if s["layout"] == "pool" else s["nodes"] * s["node_cores"]
    return a["rate_per_core_h"] * cores * 24.0


register(LabKind(
    kind="value-of-service",
    title="Value of Service: time and energy value, VM configurations (ch. 2)",
    engine=engine,
    metrics=[
        Metric("pct_max_vos", "% of maximum VoS", "%"),
        Metric("pct_max_perf_value", "% of maximum performance value", "%"),
        Metric("pct_max_energy_value", "% of maximum energy value", "%"),
        Metric("vos", "VoS earned"),
        Metric("exec_time_ks", "total execution time of completed tasks", "ks", digits=1),
        Metric("energy_mj", "total energy of completed tasks", "MJ", digits=3),
        Metric("tasks_completed", "tasks completed", digits=0),
        Metric("tasks_dropped", "tasks dropped", higher_is_better=False, digits=0),
    ],
    primary_metric="pct_max_vos",
    compact=compact_with_waits,
    experiment_charts=[
        ChartSpec("pct-max-vos", "% of maximum VoS",
                  _bars("pct_max_vos", "% of maximum VoS", "%"), facetable=False),
        ChartSpec("value-split", "Performance vs energy value", vos.value_split,
                  facetable=False),
        ChartSpec("resources", "Cores and memory in use", vos.resources_over_time),
        ChartSpec("vos-over-time", "Cumulative VoS",
                  lambda g: shared.mean_series(g, "vos_cum", "Cumulative VoS earned", "VoS")),
        ChartSpec("queue", "Mappable and running tasks", parallel.queue_over_time),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: shared.ecdf(g, "wait_min", "Wait until start (ECDF)",
                                        "wait (min)")),
    ],
    run_charts=[ChartSpec("vm-timeline", "VM timeline", vos.vm_timeline)],
    default_policies=["simple", "simple-dp", "max-vptr"],
    default_preset="vos-small",
    limits=[
        Limit("cores", "system.cores",
              lambda p: p["system"]["cores"] if p["system"]["layout"] == "pool" else 0,
              "the core count"),
        Limit("cores", "system.nodes",
              lambda p: (p["system"]["nodes"] * p["system"]["node_cores"]
                         if p["system"]["layout"] == "nodes" else 0), "the core count"),
        Limit("tasks_per_day", "workload.tasks_max",
              lambda p: _vos_tasks_per_day(p) if p["arrivals"]["pattern"] == "sinusoidal"
              else 0, "the arrival rate (tasks/day)"),
        Limit("tasks_per_day", "arrivals.rate_per_core_h",
              lambda p: _vos_tasks_per_day(p) if p["arrivals"]["pattern"] == "phases" else 0,
              "the arrival rate (tasks/day)"),
        Limit("sim_hours", "scheduler.duration_h", lambda p: p["scheduler"]["duration_h"],
              "the simulated time (h)"),
    ],
))
