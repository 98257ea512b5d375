"""Monotone value (utility) functions, shared by every workload.

Two families live here:

* :class:`UtilityTable`: piecewise-exponential utility of completion time (utility classes and
  step functions of dissertation ch. 3 and 4);
* :func:`soft_hard`: the Value of Service value function (dissertation ch. 2, Eq. 1): full value
  up to a soft threshold, linear down to a minimum at a hard threshold, zero from there on.

The seeds' utility functions (Khemka et al.; dissertation ch. 3 and 4) all fit one shape: a
sequence of intervals; inside interval j the value decays exponentially from its start fraction,
between intervals it may jump down, and after the last interval it is zero.

For a *shape* with lengths ``L_j``, decay rates ``m_j`` and jump factors ``rho_j`` (applied
when leaving interval j), a task with scale ``S`` (starting utility) and urgency ``u`` has, for
``x`` in interval j (``B_{j-1} <= x < B_j``):

    U(x) = S * prod_{i<j}(rho_i * exp(-u m_i L_i)) * exp(-u m_j (x - B_{j-1}))

and ``U(x) = 0`` for ``x >= B_J`` (``x > B_J`` when the shape is ``closed``, e.g. step
functions whose deadline is inclusive). ``x`` is whatever time axis the workload defines
(lateness in hours for ch. 3, minutes since arrival for ch. 4); negative ``x`` counts as 0.

:class:`UtilityTable` stores many shapes in padded numpy arrays so that thousands of
(task, option) pairs are evaluated in one vectorized call; :meth:`UtilityTable.value1` is the
scalar fast path for inner loops that touch one task at a time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Shape:
    lengths: tuple[float, ...]
    rates: tuple[float, ...]
    jumps: tuple[float, ...] = ()  # rho_j for j = 1..J-1; missing ones are 1 (no jump)
    closed: bool = False

    def __post_init__(self):
        if not self.lengths or len(self.lengths) != len(self.rates):
            raise ValueError("a shape needs as many rates as interval lengths (at least one)")
        if any(length < 0 for length in self.lengths) or any(r < 0 for r in self.rates):
            raise ValueError("interval lengths and decay rates must be >= 0")
        if any(not (0 < j <= 1) for j in self.jumps):
            raise ValueError("jump factors must be in (0, 1]")

    @property
    def end(self) -> float:
        return float(sum(self.lengths))


def step(length: float) -> Shape:
    """Full value until ``length`` (inclusive), then zero."""
    return Shape((length,), (0.0,), closed=True)


class UtilityTable:
    """Many shapes in padded arrays; row ``k`` is ``shapes[k]``."""

    def __init__(self, shapes: Sequence[Shape]):
        self.shapes = tuple(shapes)
        k = len(self.shapes)
        jmax = max(len(s.lengths) for s in self.shapes)
        self.n_intervals = np.array([len(s.lengths) for s in self.shapes], dtype=np.int64)
        self.bounds = np.full((k, jmax + 1), np.inf)  # B_0..B_J, padded with +inf
        self.rates = np.zeros((k, jmax))
        self.cum_decay = np.zeros((k, jmax))  # sum_{i<j} m_i L_i  (times urgency at use)
        self.cum_logjump = np.zeros((k, jmax))  # sum_{i<j} log rho_i
        self.end = np.zeros(k)
        self.closed = np.array([s.closed for s in self.shapes], dtype=bool)
        for row, s in enumerate(self.shapes):
            n = len(s.lengths)
            jumps = list(s.jumps) + [1.0] * (n - 1 - len(s.jumps))
            b = np.concatenate([[0.0], np.cumsum(s.lengths)])
            self.bounds[row, : n + 1] = b
            self.rates[row, :n] = s.rates
            decay = np.array(s.lengths) * np.array(s.rates)
            self.cum_decay[row, 1:n] = np.cumsum(decay)[: n - 1]
            self.cum_logjump[row, 1:n] = np.cumsum(np.log(jumps[: n - 1]))
            self.end[row] = b[n]
        # Plain-Python copies for the scalar path.
        self._py = [
            (list(self.bounds[r, : self.n_intervals[r] + 1]), list(self.rates[r]),
             list(self.cum_decay[r]), list(self.cum_logjump[r]), bool(self.closed[r]))
            for r in range(k)
        ]

    def __len__(self) -> int:
        return len(self.shapes)

    def value(self, row, scale, urgency, x) -> np.ndarray:
        """Vectorized U for broadcastable arrays of row index, scale, urgency and time x."""
        row, scale, urgency, x = np.broadcast_arrays(
            np.asarray(row, dtype=np.int64), np.asarray(scale, dtype=float),
            np.asarray(urgency, dtype=float), np.maximum(np.asarray(x, dtype=float), 0.0))
        inner = self.bounds[row, 1:]  # (..., jmax) upper bounds of each interval
        j = np.sum(x[..., None] >= inner, axis=-1)
        j = np.minimum(j, self.n_intervals[row] - 1)
        start = np.take_along_axis(self.bounds[row], j[..., None], axis=-1)[..., 0]
        rate = np.take_along_axis(self.rates[row], j[..., None], axis=-1)[..., 0]
        decay = np.take_along_axis(self.cum_decay[row], j[..., None], axis=-1)[..., 0]
        logjump = np.take_along_axis(self.cum_logjump[row], j[..., None], axis=-1)[..., 0]
        val = scale * np.exp(logjump - urgency * (decay + rate * (x - start)))
        end = self.end[row]
        dead = np.where(self.closed[row], x > end, x >= end)
        return np.where(dead, 0.0, val)

    def value1(self, row: int, scale: float, urgency: float, x: float) -> float:
        """Scalar U, for inner loops over one task."""
        bounds, rates, decay, logjump, closed = self._py[row]
        if x < 0.0:
            x = 0.0
        end = bounds[-1]
        if x > end or (x == end and not closed):
            return 0.0
        j = len(bounds) - 2
        for i in range(1, len(bounds) - 1):
            if x < bounds[i]:
                j = i - 1
                break
        return scale * math.exp(logjump[j] - urgency * (decay[j] + rates[j] * (x - bounds[j])))

    def zero_time(self, row) -> np.ndarray:
        """The smallest x with U(x) = 0 (the end of the last interval)."""
        return self.end[np.asarray(row, dtype=np.int64)]

    def table(self) -> list[dict]:
        """JSON description of every shape, for results and docs."""
        return [{"lengths": list(s.lengths), "rates": list(s.rates), "jumps": list(s.jumps),
                 "closed": s.closed} for s in self.shapes]


def soft_hard(obj, soft, hard, vmin, vmax=1.0) -> np.ndarray:
    """Value of an objective (completion time, energy) with soft and hard thresholds.

    Eq. 1 of dissertation ch. 2, vectorized over broadcastable arrays::

        obj <= soft          -> vmax
        soft < obj < hard    -> (obj - hard) (vmax - vmin) / (soft - hard) + vmin
        obj >= hard          -> 0

    The middle branch is the straight line from (soft, vmax) down to (hard, vmin); the value
    jumps from vmin to 0 at the hard threshold. Negative objectives count as 0 (full value);
    ``soft >= hard`` leaves no middle branch (vmax up to ``soft``, then 0 from ``hard`` on, the
    first branch winning where both apply, as in the source's order of cases).
    """
    obj = np.asarray(obj, dtype=float)
    span = np.asarray(hard, dtype=float) - soft
    # The share of the way from hard back to soft, in [0, 1] on the middle branch: no overflow
    # for tiny spans, and an infinite objective (an impossible start) simply reads as past hard.
    ahead = np.minimum(np.maximum(hard - obj, 0.0), span)
    share = ahead / np.where(span > 0.0, span, 1.0)
    line = vmin + (np.asarray(vmax, dtype=float) - vmin) * share
    return np.where(obj <= soft, vmax, np.where(obj < hard, line, 0.0))
