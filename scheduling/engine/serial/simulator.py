"""The event loop: one mapping event per interval from t = 0 until the horizon (spec §10)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..registry import ProgressThrottle
from .sim import SerialSim
from .workload import Workload


@dataclass
class RunRecord:
    sim: SerialSim
    policy: object
    event_t: list[float] = field(default_factory=list)
    mappable: list[int] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    assigned: list[int] = field(default_factory=list)
    preempted: list[int] = field(default_factory=list)
    running: list[int] = field(default_factory=list)
    critical_running: list[int] = field(default_factory=list)
    event_seconds: list[float] = field(default_factory=list)
    wall_seconds: float = 0.0


def run_simulation(wl: Workload, policy, *, warmup: float, duration: float,
                   interval: float = 1.0, min_utility: float = 0.0, tie_break: str = "index",
                   tie_rng: np.random.Generator | None = None,
                   progress: Callable[[float], None] | None = None,
                   trace: bool = False) -> RunRecord:
    """Simulate ``wl`` under ``policy`` (an object with ``map(sim, ctx)``)."""
    started = time.perf_counter()
    sim = SerialSim(wl, warmup=warmup, duration=duration, interval=interval,
                    min_utility=min_utility, tie_break=tie_break, tie_rng=tie_rng,
                    trace=trace)
    rec = RunRecord(sim, policy)
    n_events = max(1, math.ceil(duration / interval - 1e-9))
    report = ProgressThrottle(progress) if progress is not None else None
    clock = time.perf_counter
    for e in range(n_events):
        t0 = clock()
        sim.advance(e * interval)
        ctx = sim.begin_event()
        rec.mappable.append(int(ctx.count.sum()))
        policy.map(sim, ctx)
        rec.event_seconds.append(clock() - t0)
        rec.event_t.append(sim.now)
        rec.dropped.append(sim.ev_dropped)
        rec.assigned.append(sim.ev_assigned)
        rec.preempted.append(sim.ev_preempted)
        rec.running.append(sim.busy_cores())
        rec.critical_running.append(sim.critical_running())
        if report is not None:
            report((e + 1) / n_events)
    sim.finish()
    rec.wall_seconds = time.perf_counter() - started
    return rec
