"""Charts every scenario kind shares. Pure functions: chart data in, Plotly figure dict out.

Experiment charts take ``groups``: an ordered ``{label: [RunData, ...]}`` (one entry per policy
or per chosen run). A policy's colour is keyed on its name (:func:`policy_color`), so it is the
same on every chart of every page: experiment, subset, side by side and sweeps.
"""

from __future__ import annotations

import html
import re
import zlib
from collections.abc import Sequence

import numpy as np

from .bounds import UNBOUNDED, Bounds, band, interval
from .stats import mean_ci, t_quantile

# Fixed palette; a policy's slot comes from its name (see policy_color). Dark enough for white
# and dark backgrounds alike.
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
           "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#b5cf6b",
           "#e7969c", "#6baed6", "#fd8d3c"]


# Kinds with more policies than base colours (ch. 3 registers 42) continue with a second set
# of distinct mid-tone colours (Plotly's "Alphabet" set without its pale members).
PALETTE = PALETTE + ["#aa0dfe", "#3283fe", "#85660d", "#782ab6", "#565656", "#1c8356",
                     "#c4451c", "#dea0fd", "#fe00fa", "#325a9b", "#feaf16", "#f8a19f",
                     "#90ad1c", "#f6222e", "#2ed9ff", "#b10da1", "#c075a6", "#fc1cbf",
                     "#b00068", "#1cbe4f", "#0e7c7b", "#6a3d9a", "#b15928", "#33a02c"]


TIERS = [(0, 10), (10, 24), (24, len(PALETTE))]


def plain(text: str) -> str:
    """``text`` as Plotly shows it, verbatim. Plotly reads a little HTML (links, bold, line
    breaks) and entities in every title, legend and hover label, so text a user typed (an
    experiment's name) is escaped before it becomes one: a name holding ``<a href>`` would
    otherwise be drawn as a live link."""
    return html.escape(str(text), quote=False)


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def policy_color(name: str, peers: Sequence[str] = ()) -> str:
    """The colour of a policy, keyed on its name: the palette slot of a hash of the name; among
    ``peers`` (the kind's policies in registration order) a taken slot moves to the next free
    one, so the policies of one kind never share a colour while the palette lasts. A policy
    added later never changes the colour of an earlier one."""
    taken: set[int] = set()
    for peer in [*peers, name] if name not in peers else peers:
        code = zlib.crc32(peer.encode())
        # The ten strongest colours first, then the rest of the base set, then the second set;
        # within a tier, from the name's own slot on.
        order = [lo + (code + k) % (hi - lo) for lo, hi in TIERS for k in range(hi - lo)]
        slot = next((s for s in order if s not in taken), order[0])
        taken.add(slot)
        if peer == name:
            return PALETTE[slot]
    return PALETTE[zlib.crc32(name.encode()) % TIERS[0][1]]


def group_color(label: str, runs=None) -> str:
    """The colour of one group of runs: the colour its runs carry (set by the lab from the
    policy's name), else one keyed on the group's label."""
    first = runs[0] if runs else None
    found = (first.get("color") if isinstance(first, dict)
             else getattr(first, "color", "")) if first is not None else ""
    return found or policy_color(getattr(first, "policy", "") or label)


def layout(title: str, xtitle: str = "", ytitle: str = "", **extra) -> dict:
    """The house layout. The legend sits above the plot, under the title and its note, so it
    never covers an axis title however many entries it has (see :func:`place_header`)."""
    base = {
        "title": {"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 15}},
        "xaxis": {"title": {"text": xtitle}, "zeroline": False, "automargin": True},
        "yaxis": {"title": {"text": ytitle}, "zeroline": False, "automargin": True},
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02,
                   "yanchor": "bottom", "font": {"size": 11}},
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


CLIP_NOTE = "95% CI clipped to the metric's range"


def note(lay: dict, text: str) -> None:
    """A short note under the chart's title (a subtitle: it never covers a panel or legend)."""
    title = lay.setdefault("title", {})
    sub = title.get("subtitle", {}).get("text")
    if sub and text in sub.split(" · "):
        return
    title["subtitle"] = {"text": f"{sub} · {text}" if sub else text,
                         "font": {"size": 11, "color": "#666"}}


# The header above a plot, in pixels: a title line, a note line, the gap around them.
TITLE_PX, NOTE_PX, HEADER_PAD, PANEL_LABEL_PX = 24, 18, 8, 22
DEFAULT_HEIGHT = 360


def place_header(figure: dict) -> dict:
    """Stack title, note and legend above the plot in fixed pixels, the plot below them.

    Plotly's own ``title.automargin`` moves the axes down for a title with a subtitle but
    leaves the data layer where it was, so every trace was drawn about 50 px above its axes
    (on the page and in the SVG/PNG downloads alike). Here the title keeps the top of the
    figure with a margin sized for its lines, and the legend is placed in figure coordinates
    just under it, from where Plotly grows the top margin by the legend's own height, which
    moves axes and data together. Applied to every figure a page or the API hands out."""
    lay = figure.setdefault("layout", {})
    height = lay.setdefault("height", DEFAULT_HEIGHT)
    title = lay.get("title")
    if isinstance(title, str):
        title = lay["title"] = {"text": title}
    top = HEADER_PAD
    if title and title.get("text"):
        top += TITLE_PX * (1 + title["text"].count("<br>"))
        note_text = (title.get("subtitle") or {}).get("text")
        if note_text:
            top += NOTE_PX * (1 + note_text.count("<br>"))
        title.update(automargin=False, yref="container", y=1.0, yanchor="top",
                     pad={"t": HEADER_PAD})
    if any(a.get("yref") == "paper" and a.get("y", 0) > 1.0 and a.get("yanchor") == "bottom"
           for a in lay.get("annotations", [])):
        top += PANEL_LABEL_PX  # side-by-side panel names above the first row
    legend = lay.get("legend")
    if (legend and lay.get("showlegend") is not False and legend.get("orientation") == "h"
            and legend.get("y", 0) >= 1.0 and legend.get("yref") != "container"):
        legend.update(yref="container", y=max(0.0, 1.0 - top / height), yanchor="top")
    margin = lay.setdefault("margin", {})
    margin["t"] = max(int(margin.get("t", 0)), top + 6)
    fit_y_titles(figure, height - margin["t"] - legend_px(figure) - BOTTOM_PX)
    return figure


# What Plotly needs under the plot (tick labels and the x title), the width of a character of an
# axis title (14 px, generously) and of a legend entry's symbol, and the narrowest plot a
# page draws (a phone): a legend wraps into the most rows there.
BOTTOM_PX, AXIS_CHAR_PX, LEGEND_ITEM_PX, LEGEND_ROW_PX, NARROWEST_PX = 60, 7, 46, 20, 330


def legend_px(figure: dict) -> int:
    """The height a horizontal legend above the plot takes at the narrowest width a page draws
    (its entries laid in rows of that width), or 0 without one."""
    lay = figure.get("layout", {})
    legend = lay.get("legend") or {}
    if lay.get("showlegend") is False or legend.get("orientation") != "h":
        return 0
    names = [str(t.get("name", "")) for t in figure.get("data", [])
             if t.get("showlegend", True) is not False and t.get("name")]
    if not names:
        return 0
    rows, used = 1, 0
    for name in names:
        width = len(name) * AXIS_CHAR_PX + LEGEND_ITEM_PX
        if used and used + width > NARROWEST_PX:
            rows, used = rows + 1, 0
        used += width
    return rows * LEGEND_ROW_PX + HEADER_PAD


def fit_y_titles(figure: dict, plot_px: float) -> None:
    """Break a y axis title longer than its axis onto more lines (at spaces).

    A vertical title is centred on its axis: one longer than the axis runs up into the title,
    note and legend above the plot (the paired differences' "total execution time of completed
    tasks minus simple (ks)" on a 240 px axis). ``plot_px`` is the height of the plot area; an
    axis of a panel gets its share of it."""
    for key, axis in figure.get("layout", {}).items():
        if not (key.startswith("yaxis") and isinstance(axis, dict)):
            continue
        title = axis.get("title")
        text = title.get("text") if isinstance(title, dict) else None
        if not text or "<br>" in text:
            continue
        low, high = axis.get("domain", (0.0, 1.0))
        room = max(int(plot_px * (high - low) // AXIS_CHAR_PX), 12)
        if len(text) > room:
            title["text"] = "<br>".join(wrap_words(text, room))


def wrap_words(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces (a longer word
    keeps a line of its own)."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def metric_bars(groups: dict, key: str, title: str, unit: str = "",
                bounds: Bounds = UNBOUNDED, scale: float = 1.0) -> dict:
    """Mean of a summary metric per group, with 95% CI error bars that never leave the
    metric's range (``bounds`` in stored units; ``scale`` converts for display)."""
    labels, means, minus, plus, colors, n = [], [], [], [], [], []
    clipped_any = False
    shown = bounds.scaled(scale)
    for label, runs in groups.items():
        ci = interval(mean_ci([r.summary.get(key) for r in runs
                               if isinstance(r.summary.get(key), (int, float))]), shown, scale)
        clipped_any |= ci.clipped
        labels.append(label)
        means.append(np.nan if ci.mean is None else ci.mean)
        minus.append(ci.minus)
        plus.append(ci.plus)
        colors.append(group_color(label, runs))
        n.append(ci.n)
    trace = {
        "type": "bar", "x": labels, "y": rounded(means),
        "marker": {"color": colors},
        "error_y": {"type": "data", "symmetric": False, "array": rounded(plus),
                    "arrayminus": rounded(minus), "visible": True},
        "customdata": n,
        "hovertemplate": "%{x}<br>%{y:.4g} (95% CI −%{error_y.arrayminus:.3g} "
                         "+%{error_y.array:.3g}, n = %{customdata})<extra></extra>",
        "name": title,
    }
    lay = layout(title, "", f"{title} ({unit})" if unit else title, showlegend=False)
    if clipped_any:
        note(lay, CLIP_NOTE)
    return {"data": [trace], "layout": lay}


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


def curve_band(runs, key: str, axis: str = "t_min"):
    """(t, mean, low, high) over runs of a series: the pointwise mean and 95% t interval
    (low/high None with fewer than two runs)."""
    curves = [r.series.get(key) for r in runs if isinstance(r.series.get(key), list)]
    axes = [r.series.get(axis) for r in runs if isinstance(r.series.get(key), list)]
    if not curves:
        return None, None, None, None
    n = min(len(c) for c in curves)
    arr = np.array([[np.nan if v is None else v for v in c[:n]] for c in curves], dtype=float)
    t = np.asarray(axes[0][:n], dtype=float)
    mean = nanmean_columns(arr)
    if arr.shape[0] < 2:
        return t, mean, None, None
    count = np.isfinite(arr).sum(axis=0)
    sd = np.sqrt(np.nansum((arr - mean) ** 2, axis=0) / np.maximum(count - 1, 1))
    tq = t_quantile(0.975, arr.shape[0] - 1)
    half = tq * sd / np.sqrt(np.maximum(count, 1))
    half = np.where(count >= 2, half, np.nan)
    return t, mean, mean - half, mean + half


BAND_POINTS = 150


def band_traces(label: str, col: str, x, low, high, bounds: Bounds = UNBOUNDED
                ) -> tuple[list[dict], bool]:
    """A shaded 95% CI band (two traces, legend-grouped with the line of ``label``) kept inside
    ``bounds``; and whether it had to be cut there."""
    if low is None or not np.isfinite(low).any():
        return [], False
    low, high, cut = band(low, high, bounds)
    fill = _rgba(col, 0.15)
    if len(x) > BAND_POINTS:  # a band needs far fewer points than its line
        keep = np.unique(np.linspace(0, len(x) - 1, BAND_POINTS).round().astype(int))
        x, low, high = [x[i] for i in keep], np.asarray(low)[keep], np.asarray(high)[keep]
    common = {"type": "scatter", "mode": "lines", "legendgroup": label, "showlegend": False,
              "hoverinfo": "skip", "line": {"width": 0, "color": col}, "x": x}
    return [{**common, "name": f"{label} 95% CI low", "y": rounded(low)},
            {**common, "name": f"{label} 95% CI", "y": rounded(high), "fill": "tonexty",
             "fillcolor": fill}], cut


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def mean_series(groups: dict, key: str, title: str, ytitle: str, scale: float = 1.0,
                hours: bool = True, with_band: bool = True, bounds: Bounds = UNBOUNDED) -> dict:
    """One line per group: the mean over its runs of ``series[key]`` against time, with its
    95% CI as a shaded band when there are several runs, kept inside ``bounds`` (stored
    units)."""
    data = []
    banded = cut = False
    shown = bounds.scaled(scale)
    for label, runs in groups.items():
        t, y, low, high = curve_band(runs, key)
        if t is None:
            continue
        col = group_color(label, runs)
        x = rounded(t / 60.0 if hours else t)
        if with_band and low is not None:
            traces, clipped = band_traces(label, col, x, low * scale, high * scale, shown)
            data += traces
            banded = True
            cut |= clipped
        data.append({"type": "scatter", "mode": "lines", "name": label,
                     "legendgroup": label, "line": {"color": col, "width": 1.6},
                     "x": x, "y": rounded(y * scale)})
    lay = layout(title, "time (h)" if hours else "time (min)", ytitle)
    if banded:
        note(lay, "lines: mean over trials; bands: 95% CI")
    if cut:
        note(lay, CLIP_NOTE)
    return {"data": data, "layout": lay}


def queue_over_time(groups: dict) -> dict:
    """Mappable (waiting) tasks in the upper panel, running tasks (dotted) in the lower one, on
    one time axis, so the two families of lines never sit on each other. For any kind whose
    per-minute series count the tasks that could be mapped and those running (``mappable``,
    ``running``; the resource managers of ch. 2-4 all do)."""
    data = []
    for label, runs in groups.items():
        col = group_color(label, runs)
        for key, axis, dash in (("mappable", "y", "solid"), ("running", "y2", "dot")):
            t, y = mean_curve(runs, key)
            if t is None:
                continue
            data.append({"type": "scatter", "mode": "lines", "name": label,
                         "legendgroup": label, "showlegend": key == "mappable", "yaxis": axis,
                         "line": {"color": col, "width": 1.4, "dash": dash},
                         "hovertemplate": f"{label} {key}: %{{y:.3g}} at %{{x:.2f}} h"
                                          "<extra></extra>",
                         "x": rounded(t / 60.0), "y": rounded(y)})
    lay = layout("Mappable and running tasks", "time (h)", "mappable (waiting)")
    lay["xaxis"]["anchor"] = "y2"  # one time axis, under the lower panel
    lay["yaxis"]["domain"] = [0.55, 1.0]
    lay["yaxis2"] = {"domain": [0.0, 0.45], "title": {"text": "running"}, "zeroline": False,
                     "automargin": True, "anchor": "x"}
    lay["height"] = 460
    return {"data": data, "layout": lay}


def ecdf(groups: dict, key: str, title: str, xtitle: str, log_x: bool = False,
         total_key: str = "tasks_total", what: str = "tasks", counted: str = "") -> dict:
    """Empirical CDF per group from stored quantiles (averaged over runs: Vincentization).

    The y axis is the share of *all* tasks of the run (``dist[key]["total"]``, else the run's
    ``summary[total_key]``), so a curve ends at the share that started at all; the legend says
    how many never started, and of those how many were dropped when the quantiles record it
    (``dist[key]["dropped"]``): "12% never started, 40% dropped". ``counted`` names the tasks
    the shares are of when not every task of the run (the note says so). The hover gives the
    value in the x axis' unit (the parenthesised end of ``xtitle``).
    """
    unit = re.search(r"\(([^()]+)\)\s*$", xtitle)
    unit = f" {unit.group(1)}" if unit else ""
    data = []
    for label, runs in groups.items():
        dists = [r.dist.get(key) for r in runs if r.dist.get(key)]
        if not dists:
            continue
        q = np.mean(np.asarray([d["q"] for d in dists], dtype=float), axis=0)
        started = float(np.mean([d.get("n", 0) for d in dists]))
        totals = [d.get("total") or next((r.summary.get(total_key) for r in runs
                                          if isinstance(r.summary.get(total_key), (int, float))),
                                         None) for d in dists]
        totals = [t for t in totals if t]
        total = float(np.mean(totals)) if totals else 0.0
        share = started / total if total and started <= total else 1.0
        p = np.linspace(0.0, 1.0, q.size) * share
        missing = 1.0 - share
        name = f"{label} · {missing:.0%} never started" if total else label
        if total and all("dropped" in d for d in dists):
            dropped = min(float(np.mean([d["dropped"] for d in dists])) / total, missing)
            if dropped > 0:
                name = f"{label} · {missing - dropped:.0%} never started, {dropped:.0%} dropped"
        data.append({"type": "scatter", "mode": "lines", "name": name, "legendgroup": label,
                     "line": {"color": group_color(label, runs), "shape": "hv", "width": 1.6},
                     "x": rounded(q), "y": rounded(p, 4),
                     "hovertemplate": f"{label}<br>wait ≤ %{{x:.3g}}{unit}: %{{y:.1%}} of all "
                                      f"{what}<extra></extra>"})
    lay = layout(title, xtitle, f"share of all {what}")
    lay["yaxis"].update(range=[0, 1.02], tickformat=".0%")
    if log_x:
        lay["xaxis"]["type"] = "log"
    if data:
        among = f", of the {counted}" if counted else ""
        note(lay, f"covers {what} that started{among}; a curve ends at the share that did")
    return {"data": data, "layout": lay}


def facet(figure: dict, labels: Sequence[str], columns: int | None = None) -> dict:
    """Side-by-side small multiples: one panel per label, all on the same axes.

    Traces are assigned to panels by ``legendgroup`` (or ``name``); reference traces (marked
    with ``meta.every_panel``, e.g. an energy budget or goal line) are drawn in every panel.
    Every panel shares the x and y ranges, so the panels compare directly.
    """
    labels = list(labels)
    n = max(len(labels), 1)
    cols = columns or min(n, 3)
    rows = -(-n // cols)
    lay = {k: v for k, v in figure.get("layout", {}).items()
           if not k.startswith(("xaxis", "yaxis")) and k != "height"}
    x_title = figure.get("layout", {}).get("xaxis", {}).get("title", {})
    y_title = figure.get("layout", {}).get("yaxis", {}).get("title", {})
    x_type = figure.get("layout", {}).get("xaxis", {}).get("type")
    gap = 0.06
    width = (1.0 - gap * (cols - 1)) / cols
    height = (1.0 - gap * 1.6 * (rows - 1)) / rows
    annotations = []
    # One x title under the middle panel of the last row: one per panel ran into its
    # neighbours' on a narrow page, and they all said the same.
    titled = (rows - 1) * cols + (n - (rows - 1) * cols - 1) // 2
    for k, label in enumerate(labels):
        r, c = divmod(k, cols)
        suffix = "" if k == 0 else str(k + 1)
        x0 = c * (width + gap)
        y1 = 1.0 - r * (height + gap * 1.6)
        xaxis = {"domain": [x0, x0 + width], "anchor": f"y{suffix}",
                 "title": x_title if k == titled else {}}
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
        if (trace.get("meta") or {}).get("every_panel"):
            for k in range(len(labels)):
                suffix = "" if k == 0 else str(k + 1)
                data.append({**trace, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
                             "showlegend": False})
            continue
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
    for label, runs in groups.items():
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
                     "boxpoints": False, "marker": {"color": group_color(label, runs)}})
    lay = layout(title, "", ytitle, showlegend=False)
    if log_y:
        lay["yaxis"]["type"] = "log"
    return {"data": data, "layout": lay}
