"""Charts every scenario kind shares. Pure functions: chart data in, Plotly figure dict out.

Experiment charts take ``groups``: an ordered ``{label: [RunData, ...]}`` (one entry per policy
or per chosen run). Colours follow the group order, so a policy keeps its colour on every chart
of a page.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .stats import mean_ci

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
           "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363"]


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def layout(title: str, xtitle: str = "", ytitle: str = "", **extra) -> dict:
    base = {
        "title": {"text": title, "x": 0.01, "font": {"size": 15}},
        "xaxis": {"title": {"text": xtitle}, "zeroline": False},
        "yaxis": {"title": {"text": ytitle}, "zeroline": False},
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "legend": {"orientation": "h", "y": -0.2},
        "hovermode": "closest",
        "template": "plotly_white",
    }
    base.update(extra)
    return base


def rounded(values, digits: int = 5) -> list:
    return [None if v is None or not np.isfinite(v) else float(f"{v:.{digits}g}")
            for v in values]


def contiguous_blocks(ids) -> list[tuple[int, int]]:
    """Contiguous ``(first, count)`` blocks of a list of node or core ids (for Gantt bars)."""
    blocks: list[list[int]] = []
    for i in sorted(int(x) for x in ids):
        if blocks and i == blocks[-1][0] + blocks[-1][1]:
            blocks[-1][1] += 1
        else:
            blocks.append([i, 1])
    return [(a, b) for a, b in blocks]


def metric_bars(groups: dict, key: str, title: str, unit: str = "") -> dict:
    """Mean of a summary metric per group, with 95% CI error bars."""
    labels, means, halves = [], [], []
    for label, runs in groups.items():
        ci = mean_ci([r.summary.get(key) for r in runs
                      if isinstance(r.summary.get(key), (int, float))])
        labels.append(label)
        means.append(ci["mean"])
        halves.append(ci["half_width"] or 0.0)
    trace = {
        "type": "bar", "x": labels, "y": rounded([m if m is not None else np.nan for m in means]),
        "marker": {"color": [color(i) for i in range(len(labels))]},
        "error_y": {"type": "data", "array": rounded(halves), "visible": True},
        "hovertemplate": "%{x}<br>%{y:.4g} ± %{error_y.array:.3g}<extra></extra>",
        "name": title,
    }
    return {"data": [trace], "layout": layout(title, "", f"{title} ({unit})" if unit else title,
                                              showlegend=False)}


def nanmean_columns(arr: np.ndarray) -> np.ndarray:
    """Column means ignoring NaN; NaN where a column has no value (without a warning)."""
    finite = np.isfinite(arr)
    count = finite.sum(axis=0)
    total = np.where(finite, arr, 0.0).sum(axis=0)
    return np.divide(total, count, out=np.full(total.shape, np.nan), where=count > 0)


def mean_curve(runs, key: str, axis: str = "t_min"):
    """Mean over runs of a series on the shared axis (runs of one scenario share the axis)."""
    curves = [r.series.get(key) for r in runs if isinstance(r.series.get(key), list)]
    axes = [r.series.get(axis) for r in runs if isinstance(r.series.get(key), list)]
    if not curves:
        return None, None
    n = min(len(c) for c in curves)
    arr = np.array([[np.nan if v is None else v for v in c[:n]] for c in curves], dtype=float)
    return np.asarray(axes[0][:n], dtype=float), nanmean_columns(arr)


def mean_series(groups: dict, key: str, title: str, ytitle: str, scale: float = 1.0,
                hours: bool = True) -> dict:
    """One line per group: the mean over its runs of ``series[key]``, against time."""
    data = []
    for i, (label, runs) in enumerate(groups.items()):
        t, y = mean_curve(runs, key)
        if t is None:
            continue
        data.append({"type": "scatter", "mode": "lines", "name": label,
                     "legendgroup": label, "line": {"color": color(i), "width": 1.6},
                     "x": rounded(t / 60.0 if hours else t), "y": rounded(y * scale)})
    return {"data": data, "layout": layout(title, "time (h)" if hours else "time (min)", ytitle)}


def ecdf(groups: dict, key: str, title: str, xtitle: str, log_x: bool = False) -> dict:
    """Empirical CDF per group from stored quantiles (averaged over runs: Vincentization)."""
    data = []
    for i, (label, runs) in enumerate(groups.items()):
        qs = [r.dist.get(key)["q"] for r in runs if r.dist.get(key)]
        if not qs:
            continue
        q = np.mean(np.asarray(qs, dtype=float), axis=0)
        p = np.linspace(0.0, 1.0, q.size)
        data.append({"type": "scatter", "mode": "lines", "name": label, "legendgroup": label,
                     "line": {"color": color(i), "shape": "hv", "width": 1.6},
                     "x": rounded(q), "y": rounded(p, 3)})
    lay = layout(title, xtitle, "fraction of tasks")
    if log_x:
        lay["xaxis"]["type"] = "log"
    return {"data": data, "layout": lay}


def facet(figure: dict, labels: Sequence[str], columns: int | None = None) -> dict:
    """Side-by-side small multiples: one panel per label, all on the same axes.

    Traces are assigned to panels by ``legendgroup`` (or ``name``); every panel shares the x and
    y ranges, so the panels compare directly.
    """
    labels = list(labels)
    n = max(len(labels), 1)
    cols = columns or min(n, 3)
    rows = -(-n // cols)
    lay = {k: v for k, v in figure.get("layout", {}).items()
           if k not in ("xaxis", "yaxis", "height")}
    x_title = figure.get("layout", {}).get("xaxis", {}).get("title", {})
    y_title = figure.get("layout", {}).get("yaxis", {}).get("title", {})
    x_type = figure.get("layout", {}).get("xaxis", {}).get("type")
    gap = 0.06
    width = (1.0 - gap * (cols - 1)) / cols
    height = (1.0 - gap * 1.6 * (rows - 1)) / rows
    annotations = []
    for k, label in enumerate(labels):
        r, c = divmod(k, cols)
        suffix = "" if k == 0 else str(k + 1)
        x0 = c * (width + gap)
        y1 = 1.0 - r * (height + gap * 1.6)
        xaxis = {"domain": [x0, x0 + width], "anchor": f"y{suffix}",
                 "title": x_title if r == rows - 1 else {}}
        yaxis = {"domain": [y1 - height, y1], "anchor": f"x{suffix}",
                 "title": y_title if c == 0 else {}}
        if x_type:
            xaxis["type"] = x_type
        if k:
            xaxis["matches"] = "x"
            yaxis["matches"] = "y"
        lay[f"xaxis{suffix}"] = xaxis
        lay[f"yaxis{suffix}"] = yaxis
        annotations.append({"text": f"<b>{label}</b>", "xref": "paper", "yref": "paper",
                            "x": x0 + width / 2, "y": y1 + 0.01, "showarrow": False,
                            "xanchor": "center", "yanchor": "bottom"})
    data = []
    for trace in figure.get("data", []):
        key = trace.get("legendgroup") or trace.get("name")
        if key not in labels:
            continue
        k = labels.index(key)
        suffix = "" if k == 0 else str(k + 1)
        data.append({**trace, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}", "showlegend": False})
    lay["annotations"] = list(lay.get("annotations", [])) + annotations
    lay["height"] = 320 * rows + 60
    lay["showlegend"] = False
    return {"data": data, "layout": lay}


def quantile_box(groups: dict, key: str, title: str, ytitle: str, log_y: bool = False) -> dict:
    """Box per group from stored quantiles: quartiles, whiskers at 5% and 95%, and the mean."""
    data = []
    for i, (label, runs) in enumerate(groups.items()):
        dists = [r.dist.get(key) for r in runs if r.dist.get(key)]
        if not dists:
            continue
        q = np.mean(np.asarray([d["q"] for d in dists], dtype=float), axis=0)
        pick = np.interp([0.05, 0.25, 0.5, 0.75, 0.95], np.linspace(0, 1, q.size), q)
        mean = float(np.mean([d["mean"] for d in dists]))
        data.append({"type": "box", "name": label, "x": [label], "legendgroup": label,
                     "lowerfence": rounded([pick[0]]), "q1": rounded([pick[1]]),
                     "median": rounded([pick[2]]), "q3": rounded([pick[3]]),
                     "upperfence": rounded([pick[4]]), "mean": rounded([mean]),
                     "boxpoints": False, "marker": {"color": color(i)}})
    lay = layout(title, "", ytitle, showlegend=False)
    if log_y:
        lay["yaxis"]["type"] = "log"
    return {"data": data, "layout": lay}
