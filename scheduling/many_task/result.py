"""Result of a many-task run: the metrics of tail-chopping (trailing-tasks spec §6), the
busy/allocated worker series, one row per partition, per-task records (small workloads) and the
trade-off grid."""

from __future__ import annotations

import numpy as np

from simcore.clock import RunClock
from simcore.result import Result

from .config import ManyTaskConfig
from .sim import Planner, Schedule
from .workload import Workload, histogram, stats

H = 3600.0
#: Bin widths of the series (s); longer runs use whole multiples of a day.
NICE_STEPS = (1, 2, 5, 10, 15, 20, 30, 60, 120, 180, 300, 600, 900, 1200, 1800, 3600, 7200,
              10800, 21600, 43200, 86400)


def bin_width(span: float, points: int) -> float:
    """The smallest 'round' width that cuts ``span`` seconds into at most ``points`` bins."""
    need = span / points
    for step in NICE_STEPS:
        if step >= need:
            return float(step)
    return float(86400 * np.ceil(need / 86400))


def _area(times: np.ndarray, prefix: np.ndarray, x: np.ndarray) -> np.ndarray:
    """sum_i max(x - times_i, 0) for every x (``times`` sorted, ``prefix`` its cumsum with a
    leading 0)."""
    k = np.searchsorted(times, x, side="left")
    return k * x - prefix[k]


def _cumsum0(a: np.ndarray) -> np.ndarray:
    out = np.zeros(a.size + 1)
    np.cumsum(a, out=out[1:])
    return out


def executions(schedule: Schedule) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) of every execution, cancelled ones ending at their chop (absolute s)."""
    starts, ends = [], []
    for st in schedule.stints:
        s = st.ready + st.part.start
        e = st.ready + st.part.end
        if st.chopped:
            e = np.minimum(e, st.release)
        starts.append(s)
        ends.append(e)
    return np.concatenate(starts), np.concatenate(ends)


def final_times(schedule: Schedule, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per dispatch position: the start and end of the execution that completed, restarts."""
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    restarts = np.zeros(n, dtype=np.int64)
    for st in schedule.stints:
        q = st.part.queue
        done = np.ones(q.size, dtype=bool) if st.cancelled is None else ~st.cancelled
        start[q[done]] = st.ready + st.part.start[done]
        end[q[done]] = st.ready + st.part.end[done]
        if st.cancelled is not None:
            restarts[q[st.cancelled]] += 1
    return start, end, restarts


def series(schedule: Schedule, final_end: np.ndarray, points: int) -> tuple[dict, float]:
    """Bin averages of busy and allocated workers, and tasks completed by each bin's end."""
    tts = schedule.tts
    width = bin_width(tts, points)
    edges = np.append(np.arange(0.0, tts, width), tts) if tts > 0 else np.array([0.0, 1.0])
    s, e = executions(schedule)
    s.sort()
    e.sort()
    busy_area = _area(s, _cumsum0(s), edges) - _area(e, _cumsum0(e), edges)
    alloc_area = np.zeros(edges.size)
    for st in schedule.stints:
        alloc_area += st.m * np.clip(edges - st.ready, 0.0, st.release - st.ready)
    widths = np.diff(edges)
    busy = np.diff(busy_area) / widths
    alloc = np.diff(alloc_area) / widths
    util = np.divide(busy, alloc, out=np.full(busy.size, np.nan), where=alloc > 0)
    done = np.searchsorted(np.sort(final_end), edges[1:], side="right")
    return {
        "t_min": edges[:-1] / 60.0,
        "busy_workers": busy,
        "allocated_workers": alloc,
        "idle_workers": alloc - busy,
        "utilization": util,
        "tasks_completed": done,
    }, width


def partition_table(schedule: Schedule, d: np.ndarray) -> dict:
    """One row per partition the run used."""
    rows: dict[str, list] = {k: [] for k in (
        "partition", "workers", "request_s", "ready_s", "release_s", "queue_empty_s", "tasks",
        "completed", "cancelled", "chopped", "alloc_cpu_h", "active_cpu_h", "idle_cpu_h",
        "wasted_cpu_h", "utilization")}
    for i, st in enumerate(schedule.stints):
        part = st.part
        q = part.queue
        cancelled = int(st.cancelled.sum()) if st.cancelled is not None else 0
        done = np.ones(q.size, dtype=bool) if st.cancelled is None else ~st.cancelled
        useful = float(d[q[done]].sum())
        active = useful + st.wasted
        alloc = st.alloc
        rows["partition"].append(i + 1)
        rows["workers"].append(st.m)
        rows["request_s"].append(st.request)
        rows["ready_s"].append(st.ready)
        rows["release_s"].append(st.release)
        rows["queue_empty_s"].append(st.ready + float(part.start[-1]))
        rows["tasks"].append(int(q.size))
        rows["completed"].append(int(q.size) - cancelled)
        rows["cancelled"].append(cancelled)
        rows["chopped"].append(st.chopped)
        rows["alloc_cpu_h"].append(alloc / H)
        rows["active_cpu_h"].append(active / H)
        rows["idle_cpu_h"].append((alloc - active) / H)
        rows["wasted_cpu_h"].append(st.wasted / H)
        rows["utilization"].append(useful / alloc if alloc > 0 else 0.0)
    return rows


def summary(schedule: Schedule, st: dict, startup: float, r: float, f: float) -> dict:
    m = schedule.metrics()
    tail = sum(s.release - (s.ready + float(s.part.start[-1])) for s in schedule.stints)
    out = {
        "tts_s": m["tts_s"],
        "tts_min": m["tts_s"] / 60.0,
        "tts_h": m["tts_s"] / H,
        "makespan_s": m["tts_s"] - startup,
        "utilization": m["utilization"],
        "useful_cpu_h": schedule.useful / H,
        "allocated_cpu_h": m["alloc_cpu_s"] / H,
        "active_cpu_h": m["active_cpu_s"] / H,
        "idle_cpu_h": m["idle_cpu_s"] / H,
        "wasted_cpu_h": m["wasted_cpu_s"] / H,
        "partitions": m["partitions"],
        "chops": m["partitions"] - 1,
        "restarts": int(sum(int(s.cancelled.sum()) for s in schedule.stints
                            if s.cancelled is not None)),
        "first_partition": m["first_partition"],
        "tail_s": tail,
        "r": r,
        "f": f,
        **{k: v for k, v in st.items() if k != "useful_cpu_h"},
    }
    out["max_over_mean"] = st["runtime_max_s"] / st["runtime_mean_s"] if st[
        "runtime_mean_s"] > 0 else 0.0
    return out


def grid_json(grid: dict) -> dict:
    out = {"r": grid["r"], "f": grid["f"]}
    for key in ("tts_s", "utilization", "partitions", "first_partition"):
        out[key] = grid[key]
    for key in ("alloc_cpu_s", "active_cpu_s", "idle_cpu_s", "wasted_cpu_s"):
        out[key.replace("_s", "_h")] = grid[key] / H
    return out


def build_result(cfg: ManyTaskConfig, wl: Workload, order: np.ndarray, planner: Planner,
                 schedule: Schedule, r: float, f: float, grid: dict | None,
                 clock: RunClock) -> Result:
    n = len(wl)
    start, end, restarts = final_times(schedule, n)
    ser, width = series(schedule, end, cfg.output.series_points)
    tasks = {}
    if n <= cfg.output.task_records:
        ids = np.empty(n, dtype=np.int64)
        ids[order] = np.arange(n)  # dispatch position of each task
        tasks = {"id": np.arange(n), "runtime_s": wl.runtimes, "dispatch": ids,
                 "start_s": start[ids], "end_s": end[ids], "restarts": restarts[ids]}
    wl_stats = stats(wl.runtimes)
    extra = {
        "workload": {"label": wl.label, "description": wl.description, **wl_stats},
        "runtime_hist": histogram(wl.runtimes, cfg.output.histogram_bins),
        "series_bin_s": width,
        "partitions_simulated": planner.partitions_built,
    }
    if grid is not None:
        extra["tradeoff"] = grid_json(grid)
    timing = clock.timing()
    wall = timing["wall_s"]
    timing["tasks_per_s"] = n / wall if wall > 0 else None
    return Result(summary=summary(schedule, wl_stats, cfg.machine.startup_s, r, f), series=ser,
                  tasks=tasks, events=partition_table(schedule, planner.d), extra=extra,
                  timing=timing)
