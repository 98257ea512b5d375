"""Metrics of a preemptive replay (spec section 5): queue time and expansion factor overall, per
processor-count class and per priority class; preemptions, node-hours wasted, utilization.

The per-job table, the waiting/running series and the replay metrics (bounded slowdown, mean
queue length, makespan) are every trace replay's (:mod:`scheduling.hpc.replay_metrics`).
"""

from __future__ import annotations

import math

import numpy as np

from scheduling.hpc.replay_metrics import job_metrics, series
from scheduling.hpc.traces import LoadedTrace
from simcore.clock import RunClock
from simcore.result import Result

from .config import PreemptiveConfig
from .sim import Maui
from .workload import CLASS_NAMES

#: Run times below this count as this in the expansion factor (the SWF time resolution), so a
#: zero-length job has a finite one.
XF_MIN_RUN_S = 1.0
START_MODES = ("normal", "first-fit", "preemptive")


def size_class(procs: np.ndarray) -> np.ndarray:
    """Upper bound of the processor-count bin: (0,1] -> 1, (1,2] -> 2, (2,4] -> 4, ..."""
    procs = np.maximum(np.asarray(procs, dtype=np.int64), 1)
    return (2 ** np.ceil(np.log2(procs)).astype(np.int64)).astype(np.int64)


def _mean(values: np.ndarray):
    return float(values.mean()) if values.size else None


def breakdown(qt: np.ndarray, xf: np.ndarray, sizes: np.ndarray, classes: np.ndarray,
              names: list[str]) -> dict:
    """``xf_mean``/``queue_time_mean_s``/``jobs`` overall, per size class (``_p8``), per
    priority class (``_high``) and per class and size (``_high_p8``); ``xf_median`` overall
    and per class. Keys exist for every size
    class up to the largest job and every class present; an empty group's means are None."""
    out = {"xf_mean": _mean(xf), "queue_time_mean_s": _mean(qt), "queue_time_max_s":
           float(qt.max()) if qt.size else None}
    top = int(sizes.max()) if sizes.size else 1
    bins = [2 ** k for k in range(int(math.log2(top)) + 1)]
    groups = [("", np.ones(len(qt), dtype=bool))]
    groups += [(f"_{name}", classes == name) for name in names]
    for label, members in groups:
        # The mean XF is ruled by a few short jobs that waited long; the median is the typical.
        out[f"xf_median{label}"] = float(np.median(xf[members])) if members.any() else None
        if label:
            out[f"xf_mean{label}"] = _mean(xf[members])
            out[f"queue_time_mean_s{label}"] = _mean(qt[members])
            out[f"jobs{label}"] = int(members.sum())
        for b in bins:
            m = members & (sizes == b)
            out[f"xf_mean{label}_p{b}"] = _mean(xf[m])
            out[f"queue_time_mean_s{label}_p{b}"] = _mean(qt[m])
            out[f"jobs{label}_p{b}"] = int(m.sum())
    return out


def series_width(sim: Maui, max_points: int) -> int:
    """Bin width (minutes) from the arrival span, the same for every policy and seed of a
    workload, with room for a makespan of twice the span within ``max_points`` bins."""
    sub = sim.jobs.submit
    if len(sub) < 2:
        return 1
    span_min = (float(sub[-1]) - float(sub[0])) / 60.0
    return max(1, math.ceil(2.0 * span_min / max_points))


def build_result(sim: Maui, trace: LoadedTrace, config: PreemptiveConfig,
                 clock: RunClock) -> Result:
    wl = sim.workload
    jobs = sim.jobs
    base, tasks = job_metrics(sim, config.bsld_tau)
    qt = np.asarray(tasks["wait"], dtype=float)
    run = jobs.run
    xf = (qt + np.maximum(run, XF_MIN_RUN_S)) / np.maximum(run, XF_MIN_RUN_S)
    names = ([CLASS_NAMES[r] for r in sorted(set(wl.rank.tolist()))] if config.prioritized
             else [])
    classes = np.array([CLASS_NAMES[r] for r in wl.rank.tolist()] if config.prioritized
                       else ["normal"] * len(jobs), dtype=object)
    sizes = size_class(jobs.procs)

    k_job = np.asarray(sim.k_job, dtype=np.int64)
    k_start = np.asarray(sim.k_start, dtype=float)
    k_end = np.asarray(sim.k_end, dtype=float)
    k_nodes = jobs.nodes[k_job] if k_job.size else np.zeros(0, dtype=np.int64)
    N = jobs.machine_nodes
    span = base["makespan_s"]
    useful = float((jobs.nodes * run).sum())
    kills = np.asarray(sim.kills, dtype=np.int64)

    summary = {
        **base,
        "jobs_total": jobs.total,
        "jobs_dropped_size": int(wl.dropped_size.size),
        **breakdown(qt, xf, sizes, classes, names),
        "preemptions": int(k_job.size),
        "jobs_preempted": int((kills > 0).sum()),
        "node_hours_wasted": sim.wasted / 3600.0,
        "utilization_busy": (useful + sim.wasted) / (N * span) if span > 0 else 0.0,
        "limit_kills": wl.limit_kills,
        "limits_synthesized": wl.limits_synthesized,
        "offered_load": wl.offered_load,
        "starts_normal": sim.starts[0],
        "starts_first_fit": sim.starts[1],
        "starts_preemptive": sim.starts[2],
    }
    summary.pop("estimates_raised", None)  # limits below the run are kills here (limit_kills)
    tasks.update({
        "xf": xf,
        "run": run,
        "class": classes.tolist(),
        "user": wl.user,
        "kills": kills,
        "start_mode": [START_MODES[m] for m in sim.mode],
    })
    width = series_width(sim, config.series_points)
    out_series = series(sim, config.series_points, width)
    edges = np.append(out_series["t_min"], out_series["t_min"][-1] + width) * 60.0 \
        if len(out_series["t_min"]) else np.zeros(1)
    kills_per_bin = np.histogram(k_end, bins=edges)[0] if len(edges) > 1 else np.zeros(0)
    out_series["kills"] = kills_per_bin
    out_series["kills_cum"] = np.cumsum(kills_per_bin)  # exact where the lab samples it
    events = {
        "t": k_end,
        "job_id": jobs.job_id[k_job] if k_job.size else k_job,
        "start": k_start,
        "nodes": k_nodes,
        "by_job_id": jobs.job_id[np.asarray(sim.k_by, dtype=np.int64)] if k_job.size else k_job,
        "start_mode": [START_MODES[m] for m in sim.k_mode],  # how the killed run had started
        "node_hours": k_nodes * (k_end - k_start) / 3600.0,
    }
    extra = {
        "trace": trace.name,
        "header": dict(trace.header.fields),
        "nodes": N,
        "cores_per_node": config.cores_per_node,
        "series_bin_min": width,
        "rejected_job_ids": jobs.rejected,
        "dropped_status_job_ids": jobs.dropped_status,
        "dropped_invalid_job_ids": jobs.dropped_invalid,
        "dropped_size_job_ids": wl.dropped_size,
        "load_scale": wl.load_scale,
        "users": wl.n_users,
        "classes": names or ["normal"],
        "size_classes": sorted({int(s) for s in sizes.tolist()}),
        "scheduling_passes": len(clock.event_seconds),
        "full_iterations": sim.full_passes,
        "triggers": sim.triggers,
    }
    timing = clock.timing()
    timing["jobs_per_s"] = len(jobs) / timing["wall_s"] if timing["wall_s"] > 0 else None
    timing["preemptions_per_s"] = k_job.size / timing["wall_s"] if timing["wall_s"] > 0 \
        else None
    return Result(summary=summary, series=out_series, tasks=tasks, events=events, extra=extra,
                  timing=timing)
