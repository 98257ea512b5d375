"""Where a quantity's values can lie, and 95% intervals kept there.

A Student-t interval of two or three trials easily reaches past what the quantity can be (a
share below 0% or above 100%, a negative count, more energy than the budget allows). Every
table cell, error bar, band and hover of every kind and page clips its interval here, so they
all agree; the clipped ends are what is shown, and whoever shows them says that they were cut.
With few trials the honest statement is the half-width and how many trials would make the
interval useful (:func:`trials_for`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .stats import t_quantile


@dataclass(frozen=True)
class Bounds:
    """The closed range ``[lower, upper]`` of a quantity (None: unbounded on that side). For a
    band (:func:`band`) a side may be an array, one bound per point (a budget that changes
    over the day)."""

    lower: float | None = None
    upper: float | None = None

    def scaled(self, factor: float) -> Bounds:
        """The same range in another unit (``factor`` > 0)."""
        return Bounds(None if self.lower is None else self.lower * factor,
                      None if self.upper is None else self.upper * factor)

    def difference(self) -> Bounds:
        """The range of ``a - b`` for ``a`` and ``b`` in this range (a paired difference)."""
        if self.lower is None or self.upper is None:
            return Bounds()
        span = self.upper - self.lower
        return Bounds(-span, span)

    @property
    def span(self) -> float | None:
        return None if self.lower is None or self.upper is None else self.upper - self.lower

    def clip(self, value: float | None) -> float | None:
        if value is None or not math.isfinite(value):
            return value
        if self.lower is not None:
            value = max(value, self.lower)
        if self.upper is not None:
            value = min(value, self.upper)
        return value

    def clip_array(self, values) -> np.ndarray:
        """Element-wise :meth:`clip` of an array (NaN stays NaN)."""
        arr = np.asarray(values, dtype=float)
        lo = -np.inf if self.lower is None else self.lower
        hi = np.inf if self.upper is None else self.upper
        return np.where(np.isnan(arr), np.nan, np.clip(arr, lo, hi))

    def at(self, point: int | None) -> Bounds:
        """The range at a sweep point: the same at every one (see :class:`PerPoint`)."""
        return self


UNBOUNDED = Bounds()


@dataclass(frozen=True)
class PerPoint:
    """A range that differs from one sweep point to another, where the scenario sets it (an
    energy budget swept over its values bounds the energy used at each point by its own):
    ``points[k]`` at point k, ``default`` (the metric's declared range) elsewhere. Charts of
    sweep rows ask each row's range with :meth:`at`, as they would a :class:`Bounds`."""

    default: Bounds
    points: dict[int, Bounds]

    def at(self, point: int | None) -> Bounds:
        return self.points.get(point, self.default) if point is not None else self.default

    def difference(self) -> PerPoint:
        return PerPoint(self.default.difference(),
                        {k: b.difference() for k, b in self.points.items()})

    def scaled(self, factor: float) -> PerPoint:
        return PerPoint(self.default.scaled(factor),
                        {k: b.scaled(factor) for k, b in self.points.items()})


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval inside a quantity's bounds. ``half_width`` is the t
    interval's own (unclipped) half-width; ``low``/``high`` its ends after clipping, and
    ``clipped`` says whether clipping moved either end."""

    mean: float | None
    low: float | None = None
    high: float | None = None
    half_width: float | None = None
    n: int = 0
    clipped: bool = False

    @property
    def minus(self) -> float:
        return 0.0 if self.mean is None or self.low is None else self.mean - self.low

    @property
    def plus(self) -> float:
        return 0.0 if self.mean is None or self.high is None else self.high - self.mean


def interval(ci: dict | None, bounds: Bounds = UNBOUNDED, scale: float = 1.0) -> Interval:
    """The interval of a ``simcore.stats.mean_ci`` result, in units of ``scale`` x the stored
    ones, clipped to ``bounds`` (given in the same shown units)."""
    ci = ci or {}
    mean, half, n = ci.get("mean"), ci.get("half_width"), int(ci.get("n") or 0)
    if mean is None:
        return Interval(None, n=n)
    mean *= scale
    if half is None:
        return Interval(mean, n=n)
    half *= scale
    low, high = bounds.clip(mean - half), bounds.clip(mean + half)
    return Interval(mean, low, high, half, n, low > mean - half or high < mean + half)


def band(low, high, bounds: Bounds = UNBOUNDED) -> tuple[np.ndarray, np.ndarray, bool]:
    """A pointwise band kept inside ``bounds``: (low, high, whether any point was cut)."""
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    c_lo, c_hi = bounds.clip_array(lo), bounds.clip_array(hi)
    finite = np.isfinite(lo) & np.isfinite(hi)
    cut = bool(np.any(finite & ((c_lo != lo) | (c_hi != hi))))
    return c_lo, c_hi, cut


MAX_TRIALS_ADVICE = 10_000


def useful_half_width(mean: float | None, bounds: Bounds = UNBOUNDED) -> float | None:
    """The half-width an interval needs to say something: 5% of a bounded range (±5 points of
    a percentage), else 10% of the mean's size; None when neither applies (a mean of 0)."""
    if bounds.span:
        return 0.05 * bounds.span
    if mean:
        return 0.1 * abs(mean)
    return None


def trials_for(half_width: float | None, n: int, target: float | None) -> int | None:
    """About how many trials would bring a t interval of ``half_width`` (from ``n`` trials)
    down to ``target``, if the trials' spread stays what it is; None without an estimate, and
    ``n`` when it is already there."""
    if half_width is None or target is None or n < 2 or target <= 0:
        return None
    if half_width <= target:
        return n
    sd = half_width * math.sqrt(n) / t_quantile(0.975, n - 1)
    m = max(n + 1, math.ceil((1.96 * sd / target) ** 2))
    while m < MAX_TRIALS_ADVICE and t_quantile(0.975, m - 1) * sd / math.sqrt(m) > target:
        m += max(1, m // 20)
    return min(m, MAX_TRIALS_ADVICE)
