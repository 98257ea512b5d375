"""The lab-face pieces several HPC kinds share: the chart data of tasks with arrival and start
times, the tasks-dropped count, the ranges of shares and percentages, and what replaying an SWF
trace brings to a form (the trace as a file input, its facts, its job count as a limit)."""

from __future__ import annotations

from scheduling.hpc import traces
from simcore import lab
from simcore.bounds import Bounds
from simcore.compact import downsample, quantiles
from simcore.errors import ScenarioError
from simcore.lab import UNITLESS, FileInput, Limit, Metric


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


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000.0
    return ""


def trace_facts(params: dict) -> list[tuple[str, str]]:
    """The replayed trace: its name (or upload digest), file size and job count."""
    name = params.get("trace") or ""
    sha = traces.upload_sha(name)
    shown = f"uploaded file, SHA-256 {sha[:16]}…" if sha else name
    try:
        library = traces.TraceLibrary(uploads=lab.uploads().store())
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


def _trace_choices() -> list[tuple[str, str]]:
    return [(t["name"], f"{t['name']} — {t['description']}") for t in traces.list_traces()]


TRACE = FileInput(
    "trace", "swf", _trace_choices, upload_field="trace_file",
    upload_label="Upload an SWF trace",
    upload_help="Standard Workload Format, plain or .gz; replaces the library choice",
    uploaded_label="uploaded trace", required="choose a library trace or upload one")


def _trace_jobs(trace: str, job_limit: int) -> int:
    """Jobs the scenario replays: its job limit, else the trace's job lines (an upload's were
    counted when it was stored; naming an upload that does not exist is refused here)."""
    if traces.upload_sha(trace) is not None:
        jobs = lab.uploads().count(trace)
        return job_limit or jobs
    return job_limit or len(traces.TraceLibrary().load(trace).columns["job_id"])


def trace_work(params: dict) -> int:
    """A trace replay's cost: the jobs it replays."""
    return _trace_jobs(params["trace"], params["job_limit"])


# The limits of a kind that replays a trace on a machine of ``nodes`` nodes.
TRACE_LIMITS = [
    Limit("nodes", "nodes", lambda p: p["nodes"] or 0, "the node count", field_scale=1),
    Limit("trace_jobs", "job_limit", trace_work, "the trace length (jobs)"),
]
