"""The result of a replay: the metrics and series every trace replay has
(:mod:`scheduling.hpc.replay_metrics`) and what the trace was."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scheduling.hpc.replay_metrics import bin_minutes, job_metrics, series
from scheduling.hpc.traces import LoadedTrace
from simcore.clock import RunClock
from simcore.result import Result

from .config import ReplayConfig

if TYPE_CHECKING:
    from .sim import Replay


def build_result(sim: Replay, trace: LoadedTrace, config: ReplayConfig, clock: RunClock) -> Result:
    jobs = sim.jobs
    summary, tasks = job_metrics(sim, config.bsld_tau)
    extra = {
        "trace": trace.name,
        "header": dict(trace.header.fields),
        "nodes": jobs.machine_nodes,
        "cores_per_node": config.cores_per_node,
        "series_bin_min": bin_minutes(sim, config.series_points),
        "rejected_job_ids": jobs.rejected,
        "dropped_status_job_ids": jobs.dropped_status,
        "dropped_invalid_job_ids": jobs.dropped_invalid,
        "scheduling_passes": len(clock.event_seconds),
        **sim.counters(),
    }
    timing = clock.timing()
    timing["jobs_per_s"] = len(jobs) / timing["wall_s"] if timing["wall_s"] > 0 else None
    return Result(summary=summary, series=series(sim, config.series_points), tasks=tasks,
                  extra=extra, timing=timing)
