"""One preemption-based backfill replay from a loaded trace to its result."""

from __future__ import annotations

from simcore.clock import RunClock
from simcore.decisions import DecisionLog
from simcore.result import Result

from .config import PreemptiveConfig
from .result import build_result
from .sim import Maui
from .workload import build, drops_at_load


def simulate_trace(trace, config: PreemptiveConfig, victims: type, seed: int = 0, clock=None,
                   check: bool = False, fast: bool = True,
                   decisions: DecisionLog | None = None) -> Result:
    """Replay a loaded trace with one victim policy class (``FirstFit`` for the baseline);
    ``decisions`` records why each job started, waited or was killed when it was."""
    clock = clock or RunClock()
    workload = build(trace, config, seed)
    sim = Maui(workload, victims, config, seed, clock, check=check, fast=fast)
    sim.decisions = decisions
    if decisions is not None:
        sim.load_drops = drops_at_load(trace, config, workload)
    sim.run()
    return build_result(sim, trace, config, clock)
