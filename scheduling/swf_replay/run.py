"""One replay from a loaded trace to its result."""

from __future__ import annotations

from scheduling.hpc.jobs import load_drops, prepare
from scheduling.hpc.traces import LoadedTrace
from simcore.clock import RunClock
from simcore.decisions import DecisionLog
from simcore.result import Result

from .config import ReplayConfig
from .result import build_result
from .sim import Replay


def replay(trace: LoadedTrace, config: ReplayConfig, policy: type[Replay],
           clock: RunClock | None = None, check: bool = False,
           decisions: DecisionLog | None = None) -> Result:
    """Replay a loaded trace with one policy (a ``Replay`` subclass); ``check`` verifies the
    policy's guarantees as it goes; ``decisions`` records why each job started when it did."""
    clock = clock or RunClock()
    jobs = prepare(trace.header, trace.columns, config)
    sim = policy(jobs, clock, check=check)
    sim.decisions = decisions
    if decisions is not None:
        sim.load_drops = load_drops(trace.header, trace.columns, config)
    sim.run()
    return build_result(sim, trace, config, clock)
