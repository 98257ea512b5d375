"""Means with Student-t confidence intervals, as the seeds report them.

The t quantile is computed here (regularized incomplete beta by continued fraction, inverted by
bisection) so that nothing at run time needs scipy, whose import alone costs about a second.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * betainc(0.5 * df, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (``0 < p < 1``), to about 1e-12 relative."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError("need 0 < p < 1 and df > 0")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * hi:
            break
    return 0.5 * (lo + hi)


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> dict[str, float | int | None]:
    """Mean and half-width of the t interval ``mean ± t_{(1+c)/2, n-1} s/sqrt(n)``.

    With one value the half-width is undefined and returned as None.
    """
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    n = int(arr.size)
    if n == 0:
        return {"n": 0, "mean": None, "half_width": None, "low": None, "high": None}
    mean = float(arr.mean())
    if n == 1:
        return {"n": 1, "mean": mean, "half_width": None, "low": None, "high": None}
    sd = float(arr.std(ddof=1))
    half = t_quantile((1 + confidence) / 2, n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "half_width": half, "low": mean - half, "high": mean + half}


def paired_diff(a: dict, b: dict, confidence: float = 0.95) -> dict[str, float | int | None]:
    """Interval of the mean of ``a[s] - b[s]`` over the seeds ``s`` both have a value for.

    ``a`` and ``b`` map a seed to one run's metric. Runs on the same seed share their random
    numbers (the same workload), so the per-seed difference removes the workload's variance that
    two separate intervals would count twice; that is what makes small trial counts usable.
    """
    seeds = sorted(s for s in a.keys() & b.keys() if a[s] is not None and b[s] is not None)
    out = mean_ci([float(a[s]) - float(b[s]) for s in seeds], confidence)
    out["seeds"] = seeds
    return out


def verdict(low: float | None, high: float | None, higher_is_better: bool = True) -> str:
    """Whether an interval of ``better - worse`` supports "better beats worse".

    ``holds`` when the whole interval lies on the claimed side of 0, ``contradicted`` when it lies
    wholly on the other side, ``inconclusive`` when it contains 0 or is undefined (fewer than two
    paired seeds, or every difference equal to 0, so the interval is the single point 0).
    """
    if low is None or high is None:
        return "inconclusive"
    if not higher_is_better:
        low, high = -high, -low
    if low > 0:
        return "holds"
    if high < 0:
        return "contradicted"
    return "inconclusive"
