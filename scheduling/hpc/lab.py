"""The lab-face pieces several HPC kinds share: the chart data of tasks with arrival and start
times, the tasks-dropped count, the ranges of shares and percentages, and what replaying an SWF
trace brings to a form (the trace as a file input, its facts, its job count as a limit)."""

from __future__ import annotations

from scheduling.hpc import traces
from scheduling.hpc.swf import read_swf
from simcore import lab
from simcore.bounds import Bounds
from simcore.compact import downsample, quantiles
from simcore.errors import ScenarioError
from simcore.lab import UNITLESS, CheckedFile, FileInput, Limit, Metric, Opener

# Minutes per unit of a task table's times: each engine keeps its own clock (ch. 3 in seconds,
# ch. 2 and ch. 4 in minutes), and a chart in minutes converts from that unit once.
MINUTES_PER = {"s": 1 / 60.0, "min": 1.0, "h": 60.0}


def wait_quantiles(waits_min, total: int, dropped: int = 0) -> dict | None:
    """The wait ECDF's data: 101 quantiles of the waits (minutes) of the tasks that started,
    with ``total``, the tasks the curve is a share of, and ``dropped``, those of them that
    never started because they were dropped; the rest of ``total`` never started otherwise
    (still waiting, or booked past the end). None when no task started."""
    waits = quantiles(waits_min)
    if waits is not None:
        waits["total"] = int(total)
        waits["dropped"] = int(dropped)
    return waits


def _dropped(tasks: dict, status_codes: dict) -> list[bool]:
    """Per task: its status reads "dropped" (a code through the result's status words)."""
    return [status_codes.get(str(s), s) == "dropped" for s in tasks.get("status", [])]


def compact_with_waits(result, unit: str) -> dict:
    """Chart data of kinds whose task table has arrival and start times in ``unit`` (ch. 3: s,
    ch. 4: min): every task of the table counts, a task with a start time started, one without
    never did (dropped, or still waiting at the end)."""
    tasks = result.tasks
    per = MINUTES_PER[unit]
    arrival, start = tasks.get("arrival", []), tasks.get("start", [])
    dropped = _dropped(tasks, (result.extra or {}).get("status_codes") or {})
    waits = [(s - a) * per for a, s in zip(arrival, start, strict=False) if s is not None]
    gone = sum(1 for s, d in zip(start, dropped, strict=False) if s is None and d)
    return {"series": downsample(result.series),
            "dist": {"wait_min": wait_quantiles(waits, len(arrival), gone)}}


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
        path = traces.TraceLibrary(uploads=lab.uploads().store()).resolve(name)
        # The header only: every view of a scenario's page pays for this, and parsing a
        # 500,000-job upload took 4 s and 700 MB of the web process (outside audit).
        header, jobs = read_swf(path)
        jobs.close()
        count = lab.uploads().recorded(name) if sha else _trace_jobs(name, 0)
    except (ScenarioError, OSError) as err:
        return [("trace", f"{shown} (not available here: {err})")]
    facts = [("trace", shown), ("trace file", f"{path.name}, {_size(path.stat().st_size)}"),
             ("jobs in the trace", "not counted by this site's store" if count is None
              else f"{count:,}")]
    nodes = getattr(header, "max_nodes", None) or getattr(header, "max_procs", None)
    if nodes:
        facts.append(("machine in the trace header", f"{nodes:,} nodes/processors"))
    return facts


def _trace_choices() -> list[tuple[str, str]]:
    return [(t["name"], f"{t['name']} — {t['description']}") for t in traces.list_traces()]


def check_swf(open_file: Opener, *, max_bytes: int, max_records: int) -> CheckedFile:
    """An uploaded SWF trace, parsed line by line (errors name the line and field); its
    records are its job lines."""
    with open_file() as stream:
        _header, jobs = read_swf(stream, max_bytes=max_bytes, max_jobs=max_records)
        count = sum(1 for _ in jobs)
    if count == 0:
        raise ScenarioError("trace", "holds no jobs")
    return CheckedFile(count, ".swf")


TRACE = FileInput(
    "trace", "swf", _trace_choices, upload_field="trace_file",
    upload_label="Upload an SWF trace",
    upload_help="Standard Workload Format, plain or .gz; replaces the library choice",
    uploaded_label="uploaded trace", required="choose a library trace or upload one",
    check=check_swf)


def _trace_jobs(trace: str, job_limit: int) -> int:
    """Jobs the scenario replays: the trace's job lines, or its job limit when that is fewer
    (an upload's were counted when it was stored; naming an upload that does not exist is
    refused here)."""
    if traces.upload_sha(trace) is not None:
        jobs = lab.uploads().count(trace)
    else:
        jobs = len(traces.TraceLibrary().load(trace).columns["job_id"])
    return min(job_limit, jobs) if job_limit else jobs


def trace_work(params: dict) -> int:
    """A trace replay's cost: the jobs it replays."""
    return _trace_jobs(params["trace"], params["job_limit"])


# Defaults of the site limits several HPC kinds declare: a limit's name is one limit for every
# kind that declares it, so its default is written once, here.
MAX_NODES = 50_000
MAX_CORES = 20_000
MAX_TASKS_PER_DAY = 100_000
MAX_SIM_HOURS = 24 * 14

# The limits of a kind that replays a trace on a machine of ``nodes`` nodes.
TRACE_LIMITS = [
    Limit("nodes", "nodes", lambda p: p["nodes"] or 0, "the node count", field_scale=1,
          default=MAX_NODES),
    Limit("trace_jobs", "job_limit", trace_work, "the trace length (jobs)",
          default=2_000_000),
]
