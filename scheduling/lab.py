"""The scheduling engine's scenario kinds as the web lab shows them."""

from __future__ import annotations

import hashlib
import json

from django import forms

import scheduling.engine as engine
from hetsite.compact import downsample, quantiles
from hetsite.kinds import (
    PARAM_PREFIX,
    UNITLESS,
    ChartSpec,
    Condition,
    LabKind,
    Limit,
    Metric,
    register,
)
from hetsite.presenters import MetricBars
from simcore import charts as shared
from simcore import traces
from simcore.bounds import Bounds
from simcore.errors import ScenarioError

from .charts import gantt, grid, manytask, parallel, pbb, replay, serial, vos


def _waits_min(tasks) -> list:
    return [(s - a) / 60.0 for a, s in zip(tasks.get("arrival", []), tasks.get("start", []),
                                           strict=False) if s is not None]


def compact_with_waits(result) -> dict:
    """Chart data of kinds whose tasks have arrival and start times (ch. 3 and ch. 4); the wait
    quantiles also record how many tasks there were, so the ECDF can show the share that never
    started."""
    waits = quantiles(_waits_min(result.tasks))
    if waits is not None:
        waits["total"] = len(result.tasks.get("arrival", []))
    return {"series": downsample(result.series), "dist": {"wait_min": waits}}


NON_NEGATIVE = Bounds(0.0)
# Dropping a task that can no longer earn anything is part of the resource manager (ch. 2, 3
# and 4): a count that explains the others, with no better side.
DROPPED = Metric("tasks_dropped", "tasks dropped", UNITLESS, higher_is_better=None, digits=0,
                 lower=0)
SHARE = Bounds(0.0, 1.0)
PERCENT = Bounds(0.0, 100.0)


register(LabKind(
    kind="parallel-energy",
    # reference run (benchmarks/cost_estimates.py): small / easy: 0.31 s
    seconds_per_cost=5.2e-6,
    title="Parallel jobs with utility and an energy budget (ch. 3)",
    engine=engine,
    metrics=[
        Metric("pct_max_utility", "% of maximum utility", "%", higher_is_better=True, lower=0,
               upper=100),
        Metric("utility", "utility earned", UNITLESS, higher_is_better=True, lower=0),
        # Under the budget, the chapter counts less energy for the same utility in a
        # heuristic's favour (Max UPE "often uses significantly less energy").
        Metric("energy_gj", "energy used", "GJ", higher_is_better=False, lower=0),
        Metric("tasks_completed", "tasks completed", UNITLESS, higher_is_better=True, digits=0,
               lower=0),
        DROPPED,
        Metric("wait_mean_min", "mean wait", "min", higher_is_better=False, lower=0),
    ],
    primary_metric="pct_max_utility",
    compact=compact_with_waits,
    experiment_charts=[
        ChartSpec("pct-max-utility", "% of maximum utility",
                  MetricBars("pct_max_utility", "% of maximum utility"), facetable=False),
        ChartSpec("utility-over-time", "Cumulative utility",
                  lambda g: shared.mean_series(g, "utility_cum", "Cumulative utility earned",
                                               "utility", bounds=NON_NEGATIVE)),
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
    task_units={"arrival": "s", "start": "s", "end": "s", "energy_j": "J"},
    conditions=[Condition(("trace.",), "workload.source", ("trace",)),
                Condition(("testbed.",), "workload.source", ("testbed",))],
    limits=[
        Limit("tasks_per_day", "workload.tasks_per_day",
              lambda p: p["workload"]["tasks_per_day"], "the arrival rate (tasks/day)",
              field_scale=1),
        Limit("nodes", "system.clusters",
              lambda p: sum(c["nodes"] for c in p["system"]["clusters"]), "the node count"),
        Limit("sim_hours", "time.sim_h", lambda p: p["time"]["sim_h"],
              "the simulated time (h)", field_scale=1),
    ],
))


def compact_replay(result) -> dict:
    tasks = result.tasks
    return {"series": downsample(result.series, average=("utilization", "queue")),
            "dist": {"wait_h": quantiles([w / 3600.0 for w in tasks.get("wait", [])]),
                     "bsld": quantiles(tasks.get("bsld", []))}}


def _first_runs(groups):
    """Replays are deterministic per trace: one run per policy carries the time series."""
    return [(label, {"series": runs[0].series, "color": shared.group_color(label, runs)})
            for label, runs in groups.items()]


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000.0
    return ""


def trace_facts(params: dict) -> list[tuple[str, str]]:
    """The replayed trace: its name (or upload digest), file size and job count."""
    from hetsite.uploads import trace_library

    name = params.get("trace") or ""
    sha = traces.upload_sha(name)
    shown = f"uploaded file, SHA-256 {sha[:16]}…" if sha else name
    try:
        library = trace_library()
        path = library.resolve(name)
        loaded = library.load(name)
    except (ScenarioError, OSError) as err:
        return [("trace", f"{shown} (not available here: {err})")]
    header = loaded.header
    facts = [("trace", shown), ("trace file", f"{path.name}, {_size(path.stat().st_size)}"),
             ("jobs in the trace", f"{len(loaded.columns['job_id']):,}")]
    nodes = getattr(header, "max_nodes", None) or getattr(header, "max_procs", None)
    if nodes:
        facts.append(("machine in the trace header", f"{nodes:,} nodes/processors"))
    return facts


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
        field = forms.ChoiceField(choices=choices, label=f"{old.label} (library)",
                                  help_text="or upload your own file below", required=False)
        for attr in ("unit", "advanced", "param", "json_type", "optional", "group"):
            setattr(field, attr, getattr(old, attr))
        form.fields[name] = field
        form.fields["trace_file"] = forms.FileField(
            required=False, label="Upload an SWF trace",
            help_text="Standard Workload Format, plain or .gz; replaces the library choice")
        form.fields["trace_file"].json_type = "file"
        form.extra_names.append("trace_file")

    def clean(self, form, data: dict) -> None:
        upload = data.get("trace_file")
        if not upload:
            if not data.get(PARAM_PREFIX + "trace") and "trace_file" not in form.errors:
                form.add_error(PARAM_PREFIX + "trace", "choose a library trace or upload one")
            return
        from hetsite.uploads import stage_trace_upload

        try:
            staged = stage_trace_upload(upload)
        except ScenarioError as err:
            form.add_error("trace_file", err.message)
        else:
            form.staged.append(staged)
            data[PARAM_PREFIX + "trace"] = staged.ref


register(LabKind(
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
    run_charts=[ChartSpec("gantt", "Job Gantt (processors over time)", gantt.job_gantt)],
    default_policies=["fcfs", "easy", "conservative"],
    default_preset="swf-small",
    form_hook=TraceChoice(),
    deterministic=True,
    describe_inputs=trace_facts,
    task_units={"submit": "s", "start": "s", "end": "s", "wait": "s", "estimate": "s",
                "reservation": "s", "procs": "processors", "nodes": "nodes"},
    limits=[
        Limit("nodes", "nodes", lambda p: p["nodes"] or 0, "the node count", field_scale=1),
        Limit("trace_jobs", "job_limit", lambda p: _trace_jobs(p["trace"], p["job_limit"]),
              "the trace length (jobs)"),
    ],
    work=lambda p: _trace_jobs(p["trace"], p["job_limit"]),
))


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


register(LabKind(
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
    run_charts=[ChartSpec("gantt", "Job Gantt (killed runs in red)", gantt.job_gantt)],
    default_policies=["first-fit", "random", "duration-consumed", "duration-remaining",
                      "wcduration", "wcduration-percentresusage"],
    default_preset="pbb-small",
    form_hook=TraceChoice(),
    describe_inputs=trace_facts,
    task_units={"submit": "s", "start": "s", "end": "s", "wait": "s", "estimate": "s"},
    limits=[
        Limit("nodes", "nodes", lambda p: p["nodes"] or 0, "the node count", field_scale=1),
        Limit("trace_jobs", "job_limit", lambda p: _trace_jobs(p["trace"], p["job_limit"]),
              "the trace length (jobs)"),
    ],
    work=lambda p: _trace_jobs(p["trace"], p["job_limit"]),
))


def _trace_jobs(trace: str, job_limit: int) -> int:
    """Jobs the scenario replays: its job limit, else the trace's job lines (an upload's were
    counted when it was stored; naming an upload that does not exist is refused here)."""
    if traces.upload_sha(trace) is not None:
        from hetsite.uploads import uploaded_trace_jobs

        jobs = uploaded_trace_jobs(trace)
        return job_limit or jobs
    return job_limit or len(traces.TraceLibrary().load(trace).columns["job_id"])


register(LabKind(
    kind="serial-preemption",
    # reference run (benchmarks/cost_estimates.py): ch4-small / fcfs: 0.18 s
    seconds_per_cost=5.9e-5,
    title="Preemptive scheduling of urgent serial tasks (ch. 4)",
    engine=engine,
    metrics=[
        Metric("pct_max_utility", "% of maximum utility", "%", higher_is_better=True, lower=0,
               upper=100),
        Metric("utility", "utility earned", UNITLESS, higher_is_better=True, lower=0),
        Metric("pct_critical_completed", "critical tasks completed", "%", higher_is_better=True,
               lower=0, upper=100),
        # The chapter counts completing more tasks in the utility-aware heuristics' favour.
        Metric("pct_tasks_completed", "tasks completed", "%", higher_is_better=True, lower=0,
               upper=100),
        # Logged by the chapter to explain the utility: preempting is how the best heuristics
        # earn it, so neither side is better.
        Metric("preemptions", "preemptions", UNITLESS, higher_is_better=None, digits=0,
               lower=0),
        DROPPED,
    ],
    primary_metric="pct_max_utility",
    compact=compact_with_waits,
    experiment_charts=[
        ChartSpec("pct-max-utility", "% of maximum utility",
                  MetricBars("pct_max_utility", "% of maximum utility"), facetable=False),
        ChartSpec("critical", "Critical tasks completed",
                  MetricBars("pct_critical_completed", "Critical tasks completed"),
                  facetable=False),
        ChartSpec("utility-over-time", "Cumulative utility",
                  lambda g: shared.mean_series(g, "utility_cum", "Cumulative utility earned",
                                               "utility", bounds=NON_NEGATIVE)),
        ChartSpec("preemptions-per-minute", "Preemptions per minute",
                  lambda g: shared.mean_series(g, "preemptions", "Preemptions per minute",
                                               "preemptions / min", with_band=False)),
        ChartSpec("queue", "Mappable and running tasks", parallel.queue_over_time),
        ChartSpec("wait-time", "Wait time distribution",
                  lambda g: shared.ecdf(g, "wait_min", "Wait until first start (ECDF)",
                                        "wait (min)")),
    ],
    run_charts=[ChartSpec("preemptions", "Preemption timeline", serial.preemption_timeline)],
    default_policies=["fcfs", "max-util", "max-util-greedy", "max-upt-diff"],
    default_preset="ch4-small",
    task_units={"arrival": "s", "start": "s", "end": "s"},
    conditions=[
        Condition(("utility.step_noncritical_factor",), "utility.family", ("step",)),
        Condition(("utility.decay_length_min", "utility.urgency", "utility.urgency_time_unit_min"),
                  "utility.family", ("decay",)),
        Condition(("utility.n_classes", "utility.classes_seed", "utility.lead_in_prob",
                   "utility.lead_in_max", "utility.intervals_min", "utility.intervals_max",
                   "utility.interval_min", "utility.interval_max", "utility.rate_min",
                   "utility.rate_max", "utility.jump_min", "utility.jump_max"),
                  "utility.family", ("classes",)),
    ],
    limits=[
        Limit("cores", "system.cores_per_cluster",
              lambda p: p["system"]["n_clusters"] * p["system"]["cores_per_cluster"],
              "the core count"),
        Limit("tasks_per_day", "workload.tasks_per_core_per_day",
              lambda p: p["workload"]["tasks_per_core_per_day"] * p["system"]["n_clusters"]
              * p["system"]["cores_per_cluster"], "the arrival rate (tasks/day)"),
        Limit("sim_hours", "scheduler.duration_min",
              lambda p: p["scheduler"]["duration_min"] / 60.0, "the simulated time (h)",
              field_scale=1 / 60),
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
    compact=compact_with_waits,
    experiment_charts=[
        ChartSpec("pct-max-vos", "% of maximum VoS",
                  MetricBars("pct_max_vos", "% of maximum VoS"), facetable=False),
        ChartSpec("value-split", "Performance vs energy value", vos.value_split,
                  facetable=False),
        ChartSpec("resources", "Cores and memory in use", vos.resources_over_time),
        ChartSpec("vos-over-time", "Cumulative VoS",
                  lambda g: shared.mean_series(g, "vos_cum", "Cumulative VoS earned", "VoS",
                                               bounds=NON_NEGATIVE)),
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
              "the simulated time (h)", field_scale=1),
    ],
))


register(LabKind(
    kind="grid",
    # reference run (benchmarks/cost_estimates.py): grid-small / fcfs: 0.020 s
    seconds_per_cost=3.9e-5,
    title="Decentralized preemptive scheduling on a grid",
    engine=engine,
    metrics=[
        Metric("wait_median_s", "median wait", "s", higher_is_better=False, digits=0, lower=0),
        Metric("wait_mean_s", "mean wait", "s", higher_is_better=False, digits=0, lower=0),
        Metric("wait_top10_median_s", "median wait of the 10% longest", "s",
               higher_is_better=False, digits=0, lower=0),
        Metric("wait_max_s", "longest wait", "s", higher_is_better=False, digits=0, lower=0),
        Metric("conv_wait_median_s", "median wait from submission", "s",
               higher_is_better=False, digits=0, lower=0),
        # How the preemptive and internode schedulers work (FCFS does neither, by design):
        # counted to explain the waits, neither side better.
        Metric("preemptions", "preemptions", UNITLESS, higher_is_better=None, digits=0,
               lower=0),
        Metric("migrations", "migrations", UNITLESS, higher_is_better=None, digits=0, lower=0),
    ],
    primary_metric="wait_median_s",
    compact=lambda result: grid.compact(result, downsample, quantiles),
    experiment_charts=[
        ChartSpec("median-wait", "Median wait",
                  MetricBars("wait_median_s", "Median wait at the run node"), facetable=False),
        ChartSpec("wait-curve", "Jobs completed vs wait (Fig. 5)", grid.wait_curve),
        ChartSpec("wait-tail", "Longest waits (Fig. 6)", grid.wait_tail),
        ChartSpec("alpha", "Aging: alpha compared (Fig. 4)", grid.alpha_comparison,
                  facetable=False, applies=grid.varies("alpha")),
        ChartSpec("iat", "Median wait vs inter-arrival time (Fig. 3)", grid.wait_vs_iat,
                  facetable=False, applies=grid.varies("iat_s")),
        ChartSpec("busy-cores", "Busy cores over time",
                  lambda g: shared.mean_series(g, "busy_cores_pct", "Busy cores", "% of cores",
                                               bounds=PERCENT)),
        ChartSpec("queued", "Queued jobs over time",
                  lambda g: shared.mean_series(g, "queued", "Queued jobs", "jobs",
                                               bounds=NON_NEGATIVE)),
        ChartSpec("preemptions", "Preemptions per run",
                  MetricBars("preemptions", "Preemptions per run"), facetable=False),
        ChartSpec("migrations-over-time", "Migrations over time",
                  lambda g: shared.mean_series(g, "migrations", "Migrations per sample interval",
                                               "migrations", bounds=NON_NEGATIVE)),
    ],
    run_charts=[ChartSpec("load", "Node load over time", grid.load_map),
                ChartSpec("migrations", "Migrations and preemptions", grid.migration_map)],
    default_policies=["fcfs", "local", "internode-can", "internode-2nn"],
    default_preset="grid-small",
    limits=[
        Limit("nodes", "nodes.n_nodes", lambda p: p["nodes"]["n_nodes"], "the node count",
              field_scale=1),
        Limit("jobs", "jobs.n_jobs", lambda p: p["jobs"]["n_jobs"], "the job count",
              field_scale=1),
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
        field = forms.ChoiceField(choices=choices, label=f"{old.label} (library)",
                                  help_text="used by the runtimes source; or upload your own "
                                            "file below", required=False)
        for attr in ("unit", "advanced", "param", "json_type", "optional", "group"):
            setattr(field, attr, getattr(old, attr))
        form.fields[self.field] = field
        form.fields["runtimes_file"] = forms.FileField(
            required=False, label="Upload task run times",
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
        from hetsite.uploads import stage_runtimes_upload

        try:
            staged = stage_runtimes_upload(upload)
        except ScenarioError as err:
            form.add_error("runtimes_file", err.message)
        else:
            form.staged.append(staged)
            data[self.field] = staged.ref
            data[PARAM_PREFIX + "workload.source"] = "runtimes"


def _many_tasks(p: dict) -> int:
    """Tasks of a many-task scenario (files are counted; uploads were when checked)."""
    from scheduling.engine.manytask.workload import SURROGATES

    w = p["workload"]
    if w["source"] in SURROGATES:
        return w["tasks"] or SURROGATES[w["source"]].tasks
    if w["source"] == "list":
        return len(w["values"])
    if w["source"] == "runtimes":
        if traces.upload_sha(w["runtimes"]) is not None:
            from hetsite.uploads import uploaded_trace_jobs

            count = uploaded_trace_jobs(w["runtimes"])  # 0: a store that does not count
        else:
            count = len(traces.TraceLibrary().load_runtimes(w["runtimes"]))
        return min(count, w["tasks"] or count) if count else w["tasks"] or 0
    return w["tasks"] or 0


def _many_task_work(p: dict) -> int:
    grid = len(p["tradeoff"]["ratios"]) * (len(p["tradeoff"]["idle_fractions"]) + 1)
    return _many_tasks(p) * (1 + grid)


register(LabKind(
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
    form_hook=RuntimeChoice(),
    limits=[
        Limit("many_tasks", "workload.tasks", _many_tasks, "the number of tasks"),
        Limit("many_task_work", "tradeoff.ratios", _many_task_work,
              "the work of one run (tasks x (1 + trade-off points))"),
    ],
))
