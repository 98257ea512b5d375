"""Means with Student-t confidence intervals, as the seeds report them."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as _st


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
    half = float(_st.t.ppf((1 + confidence) / 2, n - 1)) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "half_width": half, "low": mean - half, "high": mean + half}
