"""Charts of SWF trace replays: ``[(label, result), ...] -> Plotly figure dict``.

A result is a :class:`scheduling.engine.Result` or its JSON dict (``summary``, ``series``,
``tasks``). Figures stay small whatever the trace length: distributions are drawn from at most
``MAX_POINTS`` quantiles and time series are block-averaged down to at most ``MAX_POINTS``
points.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simcore.charts import group_color, layout, rounded

MAX_POINTS = 2000
# Levels that swing minute to minute (utilization) are averaged over this many time bins.
LEVEL_BINS = 150


def _part(result, name: str) -> dict:
    value = result.get(name) if isinstance(result, dict) else getattr(result, name, None)
    return value or {}


def _column(result, part: str, key: str) -> np.ndarray:
    values = _part(result, part).get(key)
    if values is None:
        return np.zeros(0)
    arr = np.asarray([np.nan if v is None else v for v in values], dtype=float)
    return arr[np.isfinite(arr)]


def downsample(t, y, max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Block means of ``y`` (and the first ``t`` of each block) so at most ``max_points``."""
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    n = min(len(t), len(y))
    t, y = t[:n], y[:n]
    k = -(-n // max_points) if n else 1
    if k <= 1:
        return t, y
    m = n // k * k
    tb = t[:m:k]
    yb = y[:m].reshape(-1, k).mean(axis=1)
    if m < n:
        tb = np.append(tb, t[m])
        yb = np.append(yb, y[m:].mean())
    return tb, yb


def _ecdf_points(values: np.ndarray, max_points: int = MAX_POINTS):
    """(x, p) of the empirical CDF, sampled at no more than ``max_points`` quantiles."""
    x = np.sort(values)
    n = len(x)
    if n <= max_points:
        return x, np.arange(1, n + 1) / n
    p = np.linspace(1.0 / max_points, 1.0, max_points)
    idx = np.ceil(p * n).astype(int) - 1
    return x[idx], (idx + 1) / n


def wait_ecdf(runs: Sequence[tuple[str, object]]) -> dict:
    """Share of jobs that waited at most x hours, one curve per policy."""
    data = []
    for label, result in runs:
        wait_h = _column(result, "tasks", "wait") / 3600.0
        if wait_h.size == 0:
            continue
        x, p = _ecdf_points(wait_h)
        data.append({"type": "scatter", "mode": "lines", "name": label,
                     "x": rounded(x), "y": rounded(p, 4), "line": {"color": group_color(label),
                                                                      "shape": "hv"},
                     "hovertemplate": f"{label}<br>wait ≤ %{{x:.3g}} h: %{{y:.1%}}<extra></extra>"})
    fig = {"data": data, "layout": layout("Wait time distribution", "wait (hours)",
                                          "share of jobs")}
    fig["layout"]["yaxis"].update(range=[0, 1.02], tickformat=".0%")
    return fig


def bsld_box(runs: Sequence[tuple[str, object]]) -> dict:
    """Bounded slowdown per policy: box of quartiles, whiskers at the 5th and 95th
    percentiles, and the mean (precomputed, so the figure holds a handful of numbers)."""
    data = []
    for label, result in runs:
        b = _column(result, "tasks", "bsld")
        if b.size == 0:
            continue
        q = np.percentile(b, [5, 25, 50, 75, 95])
        data.append({"type": "box", "name": label, "x": [label],
                     "q1": rounded([q[1]]), "median": rounded([q[2]]),
                     "q3": rounded([q[3]]), "lowerfence": rounded([q[0]]),
                     "upperfence": rounded([q[4]]), "mean": rounded([b.mean()]),
                     "boxpoints": False, "marker": {"color": group_color(label)},
                     "hoverinfo": "y+name"})
    fig = {"data": data, "layout": layout("Bounded slowdown", "",
                                          "bounded slowdown (log scale)", showlegend=False)}
    fig["layout"]["yaxis"]["type"] = "log"
    return fig


def _series_chart(runs, key: str, title: str, ytitle: str, scale: float = 1.0,
                  max_points: int = MAX_POINTS, unit: str = "") -> dict:
    data = []
    widths = []
    for label, result in runs:
        series = _part(result, "series")
        if key not in series or "t_min" not in series:
            continue
        t_raw = np.asarray(series["t_min"], dtype=float)
        t, y = downsample(t_raw, series[key], max_points)
        if t.size > 1:
            widths.append(float(np.median(np.diff(t))))
        col = result.get("color") if isinstance(result, dict) else None
        data.append({"type": "scatter", "mode": "lines", "name": label, "legendgroup": label,
                     "x": rounded(t / 60.0), "y": rounded(y * scale, 4),
                     "line": {"color": col or group_color(label), "width": 1.5, "shape": "hv"},
                     "hovertemplate": f"{label}<br>%{{x:.1f}} h: %{{y:.3g}}{unit}"
                                      "<extra></extra>"})
    fig = {"data": data, "layout": layout(title, "time (hours since trace start)", ytitle)}
    fig["bin_minutes"] = max(widths) if widths else 0.0
    return fig


def utilization_over_time(runs: Sequence[tuple[str, object]]) -> dict:
    """Share of nodes busy over time, one line per policy, averaged over at most
    ``LEVEL_BINS`` time bins so that a long trace stays readable."""
    fig = _series_chart(runs, "utilization", "Utilization over time", "busy nodes (%)", 100.0,
                        max_points=LEVEL_BINS, unit="%")
    minutes = fig.pop("bin_minutes")
    if minutes:
        bin_text = f"{minutes / 60:.1f} h" if minutes >= 90 else f"{minutes:.0f} min"
        fig["layout"]["title"]["text"] = f"Utilization over time (mean per {bin_text} bin)"
    fig["layout"]["yaxis"]["range"] = [0, 102]
    return fig


def queue_over_time(runs: Sequence[tuple[str, object]]) -> dict:
    """Waiting jobs over time, one line per policy."""
    fig = _series_chart(runs, "queue", "Queue length over time", "waiting jobs")
    fig.pop("bin_minutes")
    return fig


def figures(runs: Sequence[tuple[str, object]]) -> dict[str, dict]:
    """Every replay chart, by name, for the results page."""
    return {
        "wait_ecdf": wait_ecdf(runs),
        "bsld_box": bsld_box(runs),
        "utilization": utilization_over_time(runs),
        "queue": queue_over_time(runs),
    }
