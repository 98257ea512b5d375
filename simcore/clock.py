"""The run clock: one place for a run's progress reports and wall-clock measurements.

Every kind's event loop reports progress and times its mapping events through the
:class:`RunClock` the engine hands it, so throttling, cancellation points and the timing summary
(``events``, ``event_ms_mean/p95/max``, ``wall_s``, ``event_ms``) are the same for every kind.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

Progress = Callable[[float], None]


def _ignore(frac: float) -> None:
    return None


class RunClock:
    """Progress (throttled to every ``step``) and per-event wall times of one run.

    ``progress`` may raise (the web app raises RunCancelled when the experiment was cancelled),
    which stops the run at the event that reported.
    """

    def __init__(self, progress: Progress | None = None, step: float = 0.01):
        self._progress = progress or _ignore
        self._step = step
        self._next = 0.0  # the next fraction worth reporting (one comparison per report)
        self.started = time.perf_counter()
        self.event_seconds: list[float] = []

    # -- progress ----------------------------------------------------------------------------------
    def report(self, frac: float) -> None:
        """Report that ``frac`` of the run is done (passed on at most every ``step``)."""
        if frac >= self._next:
            self._next = frac + self._step
            self._progress(min(max(frac, 0.0), 1.0))

    def part(self, lo: float, hi: float) -> RunClock:
        """A clock for one part of a run made of several simulations: its progress maps into
        ``[lo, hi]`` of this run's, its events are its own."""
        return RunClock(lambda frac: self._progress(lo + (hi - lo) * frac),
                        self._step / max(hi - lo, 1e-9))

    def finish(self) -> None:
        self._progress(1.0)

    # -- timing ------------------------------------------------------------------------------------
    def event(self) -> _Event:
        """``with clock.event(): ...`` times one mapping event."""
        return _Event(self.event_seconds)

    def record(self, seconds: float) -> None:
        """Add one event's wall time measured by the caller (for the tightest loops)."""
        self.event_seconds.append(seconds)

    def timing(self, **extra) -> dict:
        """The timing summary of the events recorded so far and the whole run."""
        out = timing_summary(self.event_seconds, time.perf_counter() - self.started)
        out["event_ms"] = [s * 1000.0 for s in self.event_seconds]
        out.update(extra)
        return out


class _Event:
    __slots__ = ("_sink", "_t0")

    def __init__(self, sink: list[float]):
        self._sink = sink

    def __enter__(self):
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self._sink.append(time.perf_counter() - self._t0)
        return False


def timing_summary(event_seconds, wall_seconds: float) -> dict:
    """Per-mapping-event and whole-run wall times, in the units the benchmarks print."""
    ms = np.asarray(event_seconds, dtype=float) * 1000.0
    if ms.size == 0:
        ms = np.zeros(1)
    return {
        "events": int(len(event_seconds)),
        "event_ms_mean": float(ms.mean()),
        "event_ms_p95": float(np.percentile(ms, 95)),
        "event_ms_max": float(ms.max()),
        "wall_s": float(wall_seconds),
    }
