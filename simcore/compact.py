"""Chart-sized copies of engine results, stored beside the full (compressed) result.

A page shows many runs at once, so it never loads full results: it reads these downsampled
series and quantile summaries instead.
"""

from __future__ import annotations

import numpy as np

MAX_POINTS = 400
QUANTILES = np.linspace(0.0, 1.0, 101)


def downsample(series: dict, max_points: int = MAX_POINTS, axis: str = "t_min",
               average: tuple[str, ...] = ()) -> dict:
    """Every list-valued series sampled at the same evenly spaced indices (last point kept).

    Sampling (rather than averaging) keeps cumulative curves exact at the kept points and keeps
    every series aligned on the shared time axis. Levels named in ``average`` (utilization, a
    queue length) are instead averaged over the samples each kept point stands for, so a
    minute-to-minute swing does not decide the curve.
    """
    t = series.get(axis)
    if not isinstance(t, list) or len(t) <= max_points:
        return dict(series)
    n = len(t)
    idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(int))
    edges = np.append(idx, n)
    out = {}
    for key, values in series.items():
        if key in average and isinstance(values, list) and len(values) == n:
            arr = np.asarray([np.nan if v is None else v for v in values], dtype=float)
            sums = np.add.reduceat(np.nan_to_num(arr), edges[:-1])
            counts = np.add.reduceat(np.isfinite(arr).astype(float), edges[:-1])
            means = np.divide(sums, counts, out=np.full(sums.shape, np.nan), where=counts > 0)
            out[key] = [None if not np.isfinite(v) else float(f"{v:.6g}") for v in means]
        elif isinstance(values, list) and len(values) == n:
            out[key] = [values[i] for i in idx]
        elif isinstance(values, dict):  # e.g. one series per UAV
            out[key] = {k: ([v[i] for i in idx] if isinstance(v, list) and len(v) == n else v)
                        for k, v in values.items()}
        elif (isinstance(values, list) and values and isinstance(values[0], list)
              and all(len(v) == n for v in values)):
            out[key] = [[v[i] for i in idx] for v in values]
        else:
            out[key] = values
    return out


def quantiles(values) -> dict | None:
    """101 quantiles (0%, 1%, ..., 100%), mean and count of a sample; None when empty."""
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    arr = arr[np.isfinite(arr)]
    if arr.size == 0:
        return None
    return {"q": [float(f"{v:.6g}") for v in np.quantile(arr, QUANTILES)],
            "mean": float(arr.mean()), "n": int(arr.size)}
