"""Scenario parameters of kind ``swf-replay``: those of every trace replay, nothing more."""

from __future__ import annotations

from dataclasses import dataclass

from scheduling.hpc.replay_config import TraceReplayConfig

KIND = "swf-replay"


@dataclass(frozen=True)
class ReplayConfig(TraceReplayConfig):
    pass
