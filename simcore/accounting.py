"""Metrics shared by the workloads: window overlap, pro-rated credit, per-minute binning."""

from __future__ import annotations

import numpy as np


def overlap(start, end, w0: float, w1: float) -> np.ndarray:
    """Length of ``[start, end) ∩ [w0, w1)`` (vectorized)."""
    inside = np.minimum(np.asarray(end, float), w1) - np.maximum(np.asarray(start, float), w0)
    return np.clip(inside, 0.0, None)


def prorated(value, in_window, duration) -> np.ndarray:
    """The seeds' pro-rated credit: ``value x (execution inside the window) / duration``.

    A task that does 70% of its execution inside the window credits 70% of its final value to
    it. Zero-length executions get full credit when they lie inside the window.
    """
    value = np.asarray(value, float)
    duration = np.asarray(duration, float)
    frac = np.divide(in_window, duration, out=np.ones_like(value * duration), where=duration > 0)
    return value * np.clip(frac, 0.0, 1.0)


def cumulative_per_minute(times_min, amounts, horizon_min: int) -> np.ndarray:
    """Running total of ``amounts`` booked at ``times_min``, sampled at minutes 0..horizon."""
    idx = np.clip(np.ceil(np.asarray(times_min, float)).astype(np.int64), 0, horizon_min)
    per_minute = np.bincount(idx, weights=np.asarray(amounts, float), minlength=horizon_min + 1)
    return np.cumsum(per_minute[: horizon_min + 1])
