"""Scenario parameters every kind that replays an SWF trace shares."""

from __future__ import annotations

from dataclasses import dataclass

from simcore.params import param

from .traces import check_trace_name


@dataclass(frozen=True)
class TraceReplayConfig:
    """The trace, the machine and the replay's metrics: what every trace-replaying kind's
    parameters start with (each kind's config subclasses it)."""

    trace: str = param("lublin_256_small", label="Trace",
                       help="library trace name (lublin_256, lublin_256_small, example_8) or "
                            "'upload:<sha256>' of an uploaded SWF file")
    nodes: int | None = param(None, unit="nodes", min=1, max=10_000_000,
                              help="machine size; empty = the trace header's MaxNodes "
                                   "(else MaxProcs / cores per node)", label="Nodes")
    cores_per_node: int = param(1, unit="cores", min=1, max=4096,
                                help="processors per node; a job takes ceil(procs / cores) "
                                     "whole nodes", label="Processors per node")
    estimate_scale: float = param(1.0, min=1.0, max=1000.0,
                                  help="runtime estimate = scale x (requested time if present, "
                                       "else actual run time), never below the run time",
                                  label="Run-time estimate scale")
    use_requested_time: bool = param(True, help="use the SWF requested time as the estimate "
                                                "when present (else the actual run time)",
                                     label="Estimate from the requested time")
    keep_failed: bool = param(False, help="also replay jobs whose SWF status is not "
                                          "'completed' (failed, cancelled, partial)",
                              label="Replay failed and cancelled jobs")
    job_limit: int = param(0, min=0, max=100_000_000, advanced=True,
                           help="replay only the first N jobs of the trace (0 = all)",
                           label="Job limit")
    bsld_tau: float = param(10.0, unit="s", min=0.0, max=86400.0, min_exclusive=True,
                            advanced=True, help="bounded-slowdown threshold tau",
                            label="Bounded-slowdown threshold τ")
    series_points: int = param(3000, min=10, max=100_000, advanced=True,
                               help="at most this many points per time series "
                                    "(per-minute bins are merged for long traces)",
                               label="Points per time series")

    def validate(self) -> None:
        check_trace_name(self.trace)
