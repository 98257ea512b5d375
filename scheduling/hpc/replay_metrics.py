"""Per-job and per-run metrics of a trace replay, and its time series (shared by the kinds that
replay SWF traces)."""

from __future__ import annotations

import math

import numpy as np

from .replay import JobReplay


def step_average(times, values, edges) -> np.ndarray:
    """Time average of the step function ``values[k]`` on ``[times[k], times[k+1])`` over
    each bin ``[edges[i], edges[i+1])`` (0 before the first time; the last value holds on)."""
    times = np.asarray(times, dtype=float)
    values = np.asarray(values, dtype=float)
    edges = np.asarray(edges, dtype=float)
    if times.size == 0:
        return np.zeros(max(len(edges) - 1, 0))
    area = np.concatenate([[0.0], np.cumsum(values[:-1] * np.diff(times))])
    k = np.searchsorted(times, edges, side="right") - 1
    inside = k >= 0
    kk = np.maximum(k, 0)
    cum = np.where(inside, area[kk] + values[kk] * (edges - times[kk]), 0.0)
    width = np.diff(edges)
    return np.divide(np.diff(cum), width, out=np.zeros_like(width), where=width > 0)


def job_metrics(sim: JobReplay, tau: float) -> tuple[dict, dict]:
    """(summary, tasks) of a finished replay."""
    jobs = sim.jobs
    start = np.asarray(sim.start_t, dtype=float)
    end = start + jobs.run
    wait = start - jobs.submit
    response = end - jobs.submit
    bsld = np.maximum(response / np.maximum(jobs.run, tau), 1.0)
    n_done = len(jobs)
    if n_done:
        t0, t1 = float(jobs.submit.min()), float(end.max())
    else:
        t0 = t1 = 0.0
    span = t1 - t0
    busy = float((jobs.nodes * jobs.run).sum())
    queue_mean = float(step_average(sim.log_t, sim.log_wait, [t0, t1])[0]) if span > 0 else 0.0

    def stat(values, fn):
        return float(fn(values)) if values.size else 0.0

    summary = {
        "jobs_total": jobs.total,
        "jobs_completed": n_done,
        "jobs_rejected": int(jobs.rejected.size),
        "jobs_dropped_status": int(jobs.dropped_status.size),
        "jobs_dropped_invalid": int(jobs.dropped_invalid.size),
        "estimates_raised": jobs.estimates_raised,
        "wait_mean_s": stat(wait, np.mean),
        "wait_max_s": stat(wait, np.max),
        "response_mean_s": stat(response, np.mean),
        "response_max_s": stat(response, np.max),
        "bsld_mean": stat(bsld, np.mean),
        "bsld_max": stat(bsld, np.max),
        "utilization": busy / (jobs.machine_nodes * span) if span > 0 else 0.0,
        "makespan_s": span,
        "queue_mean": queue_mean,
        "queue_max": max(sim.log_wait, default=0),
        "nodes": jobs.machine_nodes,
    }
    tasks = {
        "job_id": jobs.job_id,
        "submit": jobs.submit,
        "start": start,
        "end": end,
        "procs": jobs.procs,
        "nodes": jobs.nodes,
        "wait": wait,
        "bsld": bsld,
        "estimate": jobs.estimate,
        "reservation": np.asarray(sim.reservation, dtype=float),
    }
    return summary, tasks


def bin_minutes(sim: JobReplay, max_points: int) -> int:
    """Width of the series bins: one minute, or more so there are at most ``max_points``."""
    if not sim.log_t:
        return 1
    m0 = math.floor(sim.log_t[0] / 60.0)
    m1 = max(math.ceil(sim.log_t[-1] / 60.0), m0 + 1)
    return max(1, math.ceil((m1 - m0) / max_points))


def series(sim: JobReplay, max_points: int, width: int | None = None) -> dict:
    """Per-minute state averages (bins merged to at most ``max_points``); ``t_min`` = bin start.

    queue: waiting jobs; running_jobs; busy_nodes; utilization = busy_nodes / nodes.
    ``width`` (minutes) fixes the bin width instead, so runs of one workload that end at
    different times share their bins (their means over seeds line up).
    """
    if not sim.log_t:
        return {"t_min": [], "queue": [], "running_jobs": [], "busy_nodes": [],
                "utilization": []}
    m0 = math.floor(sim.log_t[0] / 60.0)
    m1 = max(math.ceil(sim.log_t[-1] / 60.0), m0 + 1)
    width = width or bin_minutes(sim, max_points)
    count = math.ceil((m1 - m0) / width)
    edges_min = m0 + width * np.arange(count + 1, dtype=float)
    edges = edges_min * 60.0
    busy = step_average(sim.log_t, sim.log_busy, edges)
    return {
        "t_min": edges_min[:-1],
        "queue": step_average(sim.log_t, sim.log_wait, edges),
        "running_jobs": step_average(sim.log_t, sim.log_run, edges),
        "busy_nodes": busy,
        "utilization": busy / sim.N,
    }
