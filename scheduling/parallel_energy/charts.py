"""Charts of the parallel-jobs / energy-budget scenarios (spec ch. 3)."""

from __future__ import annotations

import numpy as np

from simcore.bounds import Bounds
from simcore.charts import (
    CLIP_NOTE,
    band_traces,
    contiguous_blocks,
    curve_band,
    group_color,
    layout,
    mean_curve,
    nanmean_columns,
    note,
    rounded,
)

MAX_GANTT_BARS = 12_000
# Above this many allocations the Gantt is drawn as a heatmap of node x time bins.
GANTT_BINS = 400
GANTT_ROWS = 400


def energy_vs_budget(groups: dict) -> dict:
    """Energy consumed in the current day per policy (mean and 95% CI band over trials), with
    the goal line and the budget drawn in every panel of a side-by-side view."""
    data = []
    goal = budget = None
    cut = False
    for label, runs in groups.items():
        t, y, low, high = curve_band(runs, "energy_day_gj")
        if t is None:
            continue
        col = group_color(label, runs)
        x = rounded(t / 60.0)
        bounds = Bounds(0.0, _budget_cap(runs, len(t)))
        traces, clipped = band_traces(label, col, x, low, high, bounds)
        data += traces
        cut |= clipped
        data.append({"type": "scatter", "mode": "lines", "name": label, "legendgroup": label,
                     "line": {"color": col, "width": 1.6}, "x": x, "y": rounded(y)})
        if goal is None:
            goal = mean_curve(runs, "goal_energy_gj")
            budget = mean_curve(runs, "budget_gj")
    every = {"every_panel": True}
    if goal is not None and goal[0] is not None:
        data.append({"type": "scatter", "mode": "lines", "name": "goal energy", "meta": every,
                     "line": {"color": "#777", "dash": "dot", "width": 1.4},
                     "x": rounded(goal[0] / 60.0), "y": rounded(goal[1])})
    if budget is not None and budget[0] is not None and np.isfinite(budget[1]).any():
        data.append({"type": "scatter", "mode": "lines", "name": "budget", "meta": every,
                     "line": {"color": "#555", "dash": "dash", "width": 1.6},
                     "x": rounded(budget[0] / 60.0), "y": rounded(budget[1])})
    lay = layout("Energy used against the budget", "time (h)", "energy used this day (GJ)")
    if cut:
        note(lay, CLIP_NOTE)
    return {"data": data, "layout": lay}


def _budget_cap(runs, n: int) -> np.ndarray | None:
    """The budget in force at each sample as the bound of the energy used that day, where it
    is one: a budget every run kept at every sample (None without a budget, or if any run
    went past it, which the chart then shows). Runs under different budgets (a share of Max
    UPR PH's energy is set trial by trial) bound their mean by the largest, not the smallest:
    a mean of runs each under its own budget can pass the smallest."""
    rows = []
    for r in runs:
        b, e = r.series.get("budget_gj"), r.series.get("energy_day_gj")
        if not isinstance(b, list) or not isinstance(e, list) or len(b) < n or len(e) < n:
            return None
        b = np.array([np.nan if v is None else v for v in b[:n]], dtype=float)
        e = np.array([np.nan if v is None else v for v in e[:n]], dtype=float)
        if np.any(e > b * (1 + 1e-9)) or not np.isfinite(b).any():
            return None
        rows.append(b)
    if not rows:
        return None
    cap = np.max(rows, axis=0)
    return np.where(np.isfinite(cap), cap, np.inf)


def has_choices(groups: dict) -> bool:
    return any(any(v is not None for v in (r.series.get("chosen") or []))
               for runs in groups.values() for r in runs)


def metaheuristic_choice(groups: dict) -> dict:
    """Share of trials in which the metaheuristic ran Max UPE, per minute."""
    data = []
    for label, runs in groups.items():
        chosen = [r.series.get("chosen") for r in runs]
        chosen = [c for c in chosen if c and any(v is not None for v in c)]
        if not chosen:
            continue
        n = min(len(c) for c in chosen)
        upe = np.array([[1.0 if v == "upe" else (0.0 if v == "upr" else np.nan) for v in c[:n]]
                        for c in chosen])
        share = nanmean_columns(upe)
        t = np.asarray(runs[0].series["t_min"][:n], dtype=float)
        data.append({"type": "scatter", "mode": "lines", "name": label, "legendgroup": label,
                     "line": {"color": group_color(label, runs), "shape": "hv", "width": 1.4},
                     "x": rounded(t / 60.0), "y": rounded(share, 3)})
    lay = layout("Metaheuristic choice (share of trials running Max UPE)", "time (h)",
                 "share choosing Max UPE")
    lay["yaxis"]["range"] = [-0.05, 1.05]
    return {"data": data, "layout": lay}


def _allocations(result):
    """(cluster, first node, node count, start s, end s, task index) of every allocation, in
    start order; a task on scattered nodes gives one allocation per contiguous block."""
    tasks = result.tasks
    n = len(tasks.get("id", []))
    node_ids = tasks.get("node_ids") or [None] * n
    order = [i for i, s in enumerate(tasks.get("start", [])) if s is not None]
    order.sort(key=lambda i: tasks["start"][i])
    out = []
    for i in order:
        cluster, end = tasks["cluster"][i], tasks["end"][i]
        if cluster is None or end is None:
            continue
        for first, count in contiguous_blocks(node_ids[i] or []) or [(0, tasks["nodes"][i])]:
            out.append((cluster, first, count, tasks["start"][i], end, i))
    return out


def _lanes(lay: dict, clusters, offsets) -> None:
    lay["yaxis"].update({
        "tickmode": "array",
        "tickvals": [(offsets[k] + offsets[k + 1]) / 2 for k in range(len(clusters))],
        "ticktext": [c["name"] for c in clusters],
        "range": [0, offsets[-1] if offsets[-1] else 1],
        "showgrid": False,
    })
    lay["shapes"] = [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": o, "y1": o,
                      "line": {"color": "#999", "width": 1}} for o in offsets[1:-1]]


def node_gantt(result) -> dict:
    """Node allocation over time: one lane per cluster, nodes stacked inside it.

    Up to ``MAX_GANTT_BARS`` allocations, one bar per contiguous node block, coloured by the
    task's priority; hovering names the task. Larger runs (a day of ch3-5k) are drawn whole as
    a heatmap of nodes x ``GANTT_BINS`` time bins (one image, fast to draw), each cell coloured
    by the priority of the task holding the node in that bin; nothing is cut off.
    """
    tasks = result.tasks
    clusters = result.extra.get("clusters") or []
    offsets = np.cumsum([0] + [c.get("nodes", 0) for c in clusters]).tolist()
    allocations = _allocations(result)
    if len(allocations) > MAX_GANTT_BARS and offsets[-1]:
        return _binned_gantt(allocations, tasks, clusters, offsets)
    ys, widths, bases, lengths, colors, hover, ids = [], [], [], [], [], [], []
    for cluster, first, count, start, end, i in allocations:
        utility = (tasks.get("utility") or [None] * len(tasks["id"]))[i]
        where = clusters[cluster]["name"] if clusters else cluster
        ys.append((offsets[cluster] if clusters else 0) + first + count / 2.0)
        widths.append(count)
        bases.append(start / 3600.0)
        lengths.append((end - start) / 3600.0)
        colors.append(tasks["priority"][i])
        hover.append(f"task {tasks['id'][i]} (type {tasks['type'][i]})<br>"
                     f"priority {tasks['priority'][i]:.2f}, P-state {tasks['pstate'][i]}<br>"
                     f"{tasks['nodes'][i]} nodes on {where}<br>"
                     f"{start / 3600:.2f} h – {end / 3600:.2f} h, utility {utility or 0:.3g}")
        ids.append([tasks["id"][i]])
    trace = {"type": "bar", "orientation": "h", "y": rounded(ys), "x": rounded(lengths),
             "base": rounded(bases), "width": widths, "hovertext": hover,
             "hoverinfo": "text", "name": "tasks",
             "customdata": ids, "meta": {"task": 0},  # a click opens the task's story
             "marker": {"color": rounded(colors, 3), "colorscale": "Viridis", "cmin": 1,
                        "cmax": 8, "line": {"width": 0},
                        "colorbar": {"title": {"text": "priority"}, "thickness": 12}}}
    lay = layout("Node allocation", "time (h)", "")
    _lanes(lay, clusters, offsets)
    lay["bargap"] = 0
    lay["height"] = 520
    lay["showlegend"] = False
    return {"data": [trace], "layout": lay}


def _binned_gantt(allocations, tasks, clusters, offsets) -> dict:
    """The whole run as nodes x time bins; beyond ``GANTT_ROWS`` nodes, neighbouring nodes of a
    cluster share a row (cells show the mean priority of their busy node-bins)."""
    horizon = max(end for *_, end, _i in allocations)
    width = horizon / GANTT_BINS
    full = np.full((int(offsets[-1]), GANTT_BINS), np.nan)
    priority = np.asarray(tasks["priority"], dtype=float)
    for cluster, first, count, start, end, i in allocations:
        row = int(offsets[cluster]) + int(first)
        b0 = int(start // width)
        b1 = max(b0 + 1, int(np.ceil(end / width)))
        full[row:row + int(count), b0:min(b1, GANTT_BINS)] = priority[i]
    busy = float(np.isfinite(full).mean()) if full.size else 0.0
    per_row = max(1, -(-int(offsets[-1]) // GANTT_ROWS))
    rows, row_offsets = [], [0]
    for k in range(len(clusters)):
        block = full[int(offsets[k]):int(offsets[k + 1])]
        for a in range(0, block.shape[0], per_row):
            part = block[a:a + per_row]
            rows.append(nanmean_columns(part))
        row_offsets.append(len(rows))
    z = np.vstack(rows) if rows else np.zeros((0, GANTT_BINS))
    x = (np.arange(GANTT_BINS) + 0.5) * width / 3600.0
    trace = {"type": "heatmap", "z": [rounded(r, 3) for r in z], "x": rounded(x),
             "y": [r + 0.5 for r in range(z.shape[0])], "zmin": 1, "zmax": 8,
             "colorscale": "Viridis", "name": "tasks", "hoverongaps": False,
             "hovertemplate": "%{x:.2f} h<br>mean priority %{z:.2f}<extra></extra>",
             "colorbar": {"title": {"text": "priority"}, "thickness": 12}}
    grain = f"{width / 60:.0f}-min bins" + (f", {per_row} nodes per row" if per_row > 1 else "")
    title = (f"Node allocation, whole run ({len(allocations):,} allocations; {grain}; "
             f"{busy:.0%} of node-time busy)")
    lay = layout(title, "time (h)", "")
    _lanes(lay, clusters, row_offsets)
    lay["xaxis"]["range"] = [0, horizon / 3600.0]
    lay["height"] = 560
    lay["showlegend"] = False
    return {"data": [trace], "layout": lay}
