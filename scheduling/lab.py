"""The scheduling engine's scenario kinds as the web lab shows them."""

from __future__ import annotations

from django import forms

import scheduling.engine as engine
from hetsite.compact import downsample, quantiles
from hetsite.kinds import PARAM_PREFIX, ChartSpec, LabKind, Limit, Metric, register
from simcore import charts as shared
from simcore import traces
from simcore.errors import ScenarioError

from .charts import grid, parallel, replay, serial


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


register(LabKind(
    kind="grid",
    title="Decentralized preemptive scheduling on a grid",
    engine=engine,
    metrics=[
        Metric("wait_median_s", "median wait", "s", higher_is_better=False, digits=0),
        Metric("wait_mean_s", "mean wait", "s", higher_is_better=False, digits=0),
        Metric("wait_top10_median_s", "median wait of the 10% longest", "s",
               higher_is_better=False, digits=0),
        Metric("wait_max_s", "longest wait", "s", higher_is_better=False, digits=0),
        Metric("conv_wait_median_s", "median wait from submission", "s",
               higher_is_better=False, digits=0),
        Metric("preemptions", "preemptions", higher_is_better=False, digits=0),
        Metric("migrations", "migrations", higher_is_better=False, digits=0),
    ],
    primary_metric="wait_median_s",
    compact=lambda result: grid.compact(result, downsample, quantiles),
    experiment_charts=[
        ChartSpec("median-wait", "Median wait",
                  _bars("wait_median_s", "Median wait at the run node", "s"), facetable=False),
        ChartSpec("wait-curve", "Jobs completed vs wait (Fig. 5)", grid.wait_curve),
        ChartSpec("wait-tail", "Longest waits (Fig. 6)", grid.wait_tail),
        ChartSpec("alpha", "Aging: alpha compared (Fig. 4)", grid.alpha_comparison,
                  facetable=False, applies=grid.varies("alpha")),
        ChartSpec("iat", "Median wait vs inter-arrival time (Fig. 3)", grid.wait_vs_iat,
                  facetable=False, applies=grid.varies("iat_s")),
        ChartSpec("busy-cores", "Busy cores over time",
                  lambda g: shared.mean_series(g, "busy_cores_pct", "Busy cores", "% of cores")),
        ChartSpec("queued", "Queued jobs over time",
                  lambda g: shared.mean_series(g, "queued", "Queued jobs", "jobs")),
        ChartSpec("preemptions", "Preemptions per run",
                  _bars("preemptions", "Preemptions per run"), facetable=False),
        ChartSpec("migrations-over-time", "Migrations over time",
                  lambda g: shared.mean_series(g, "migrations", "Migrations per sample interval",
                                               "migrations")),
    ],
    run_charts=[ChartSpec("load", "Node load over time", grid.load_map),
                ChartSpec("migrations", "Migrations and preemptions", grid.migration_map)],
    default_policies=["fcfs", "local", "internode-can", "internode-2nn"],
    default_preset="grid-small",
    limits=[
        Limit("nodes", "nodes.n_nodes", lambda p: p["nodes"]["n_nodes"], "the node count"),
        Limit("jobs", "jobs.n_jobs", lambda p: p["jobs"]["n_jobs"], "the job count"),
    ],
))
