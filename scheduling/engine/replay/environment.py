"""The ``swf-replay`` environment: registration, policies, presets, and the replay itself."""

from __future__ import annotations

import time

from .. import ENGINE
from ..registry import PolicyInfo
from ..result import Result, timing_summary
from . import traces
from .config import KIND, ReplayConfig
from .conservative import Conservative
from .easy import Easy
from .fcfs import Fcfs
from .jobs import prepare
from .metrics import bin_minutes, series, summarize

SPEC = "SWF replay (issue 4)"

ENGINE.policy(KIND, "fcfs", label="FCFS", family="queue",
              description="First come, first served; no backfilling.",
              spec="SWF replay: FCFS")(Fcfs)
ENGINE.policy(KIND, "easy", label="EASY backfilling", family="backfilling",
              description="Head job reserved at the shadow time; others backfill if they end "
                          "by it or use only the extra nodes (Lifka; Mu'alem & Feitelson 2001).",
              spec="SWF replay: EASY")(Easy)
ENGINE.policy(KIND, "conservative", label="Conservative backfilling", family="backfilling",
              description="Every waiting job holds a reservation; a job starts early only if "
                          "it delays no reservation (Mu'alem & Feitelson 2001).",
              spec="SWF replay: conservative")(Conservative)

ENGINE.preset("swf-small", KIND, params={"trace": "lublin_256_small"},
              description="First 500 jobs of the Lublin 256-node trace (runs in well under "
                          "a second).",
              source="Parallel Workloads Archive, Lublin-Feitelson model")
ENGINE.preset("lublin-256", KIND, params={"trace": "lublin_256"},
              description="Lublin 256-node trace, 10,000 jobs, over-saturated.",
              source="Parallel Workloads Archive, Lublin-Feitelson model")
ENGINE.preset("swf-example", KIND, params={"trace": "example_8"},
              description="Hand-made 16-job trace on 8 nodes with requested times.",
              source="hetsite trace library")


def replay(trace: traces.LoadedTrace, config: ReplayConfig, policy: PolicyInfo | type,
           progress=None, check: bool = False) -> Result:
    """Replay a loaded trace with one policy (a PolicyInfo or a Replay subclass)."""
    started = time.perf_counter()
    jobs = prepare(trace.header, trace.columns, config)
    cls = policy.factory if isinstance(policy, PolicyInfo) else policy
    sim = cls(jobs, progress, check=check).run()
    summary, tasks = summarize(sim, config.bsld_tau)
    extra = {
        "trace": trace.name,
        "header": dict(trace.header.fields),
        "nodes": jobs.machine_nodes,
        "cores_per_node": config.cores_per_node,
        "series_bin_min": bin_minutes(sim, config.series_points),
        "rejected_job_ids": jobs.rejected,
        "dropped_status_job_ids": jobs.dropped_status,
        "dropped_invalid_job_ids": jobs.dropped_invalid,
        "scheduling_passes": len(sim.pass_seconds),
    }
    if isinstance(sim, Conservative):
        extra["compressions"] = sim.compressions
        extra["reservation_moves"] = sim.moves
    wall = time.perf_counter() - started
    timing = timing_summary(sim.pass_seconds, wall)
    timing["event_ms"] = [s * 1000.0 for s in sim.pass_seconds]
    timing["jobs_per_s"] = len(jobs) / wall if wall > 0 else None
    return Result(summary=summary, series=series(sim, config.series_points), tasks=tasks,
                  extra=extra, timing=timing)


@ENGINE.environment(KIND, title="SWF trace replay",
                    description="Replay a Parallel Workloads Archive trace on a homogeneous "
                                "machine with FCFS, EASY or conservative backfilling.",
                    config_cls=ReplayConfig, spec=SPEC)
def run(config: ReplayConfig, policy: PolicyInfo, seed: int, progress) -> Result:
    # A replay is deterministic: the seed is accepted for the common contract and unused.
    return replay(traces.load(config.trace), config, policy, progress)
