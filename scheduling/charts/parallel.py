"""Charts of the parallel-jobs / energy-budget scenarios (spec ch. 3)."""

from __future__ import annotations

import numpy as np

from simcore.charts import color, contiguous_blocks, layout, mean_curve, nanmean_columns, rounded

MAX_GANTT_BARS = 12_000


def energy_vs_budget(groups: dict) -> dict:
    """Energy consumed in the current day per policy, with the goal line and the budget."""
    data = []
    goal = budget = None
    for i, (label, runs) in enumerate(groups.items()):
        t, y = mean_curve(runs, "energy_day_gj")
        if t is None:
            continue
        data.append({"type": "scatter", "mode": "lines", "name": label, "legendgroup": label,
                     "line": {"color": color(i), "width": 1.6},
                     "x": rounded(t / 60.0), "y": rounded(y)})
        if goal is None:
            goal = mean_curve(runs, "goal_energy_gj")
            budget = mean_curve(runs, "budget_gj")
    if goal is not None and goal[0] is not None:
        data.append({"type": "scatter", "mode": "lines", "name": "goal energy",
                     "line": {"color": "#444", "dash": "dot", "width": 1.2},
                     "x": rounded(goal[0] / 60.0), "y": rounded(goal[1])})
    if budget is not None and budget[0] is not None and np.isfinite(budget[1]).any():
        data.append({"type": "scatter", "mode": "lines", "name": "budget",
                     "line": {"color": "#000", "dash": "dash", "width": 1.2},
                     "x": rounded(budget[0] / 60.0), "y": rounded(budget[1])})
    return {"data": data, "layout": layout("Energy used against the budget", "time (h)",
                                           "energy used this day (GJ)")}


def queue_over_time(groups: dict) -> dict:
    """Mappable (waiting) tasks as solid lines and running tasks as dotted lines."""
    data = []
    for i, (label, runs) in enumerate(groups.items()):
        for key, dash, suffix in (("mappable", "solid", "mappable"),
                                  ("running", "dot", "running")):
            t, y = mean_curve(runs, key)
            if t is None:
                continue
            data.append({"type": "scatter", "mode": "lines", "name": f"{label} {suffix}",
                         "legendgroup": label,
                         "line": {"color": color(i), "dash": dash, "width": 1.4},
                         "x": rounded(t / 60.0), "y": rounded(y)})
    return {"data": data, "layout": layout("Mappable and running tasks", "time (h)", "tasks")}


def has_choices(groups: dict) -> bool:
    return any(any(v is not None for v in (r.series.get("chosen") or []))
               for runs in groups.values() for r in runs)


def metaheuristic_choice(groups: dict) -> dict:
    """Share of trials in which the metaheuristic ran Max UPE, per minute."""
    data = []
    for i, (label, runs) in enumerate(groups.items()):
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
                     "line": {"color": color(i), "shape": "hv", "width": 1.4},
                     "x": rounded(t / 60.0), "y": rounded(share, 3)})
    lay = layout("Metaheuristic choice (share of trials running Max UPE)", "time (h)",
                 "share choosing Max UPE")
    lay["yaxis"]["range"] = [-0.05, 1.05]
    return {"data": data, "layout": lay}


def node_gantt(result) -> dict:
    """Node allocation over time: one lane per cluster, one bar per contiguous node block.

    Bars are coloured by the task's priority (starting utility); hovering names the task.
    """
    tasks = result.tasks
    clusters = result.extra.get("clusters") or []
    offsets = np.cumsum([0] + [c.get("nodes", 0) for c in clusters]).tolist()
    order = [i for i, s in enumerate(tasks.get("start", [])) if s is not None]
    order.sort(key=lambda i: tasks["start"][i])
    ys, widths, bases, lengths, colors, hover = [], [], [], [], [], []
    truncated = False
    for i in order:
        cluster = tasks["cluster"][i]
        end = tasks["end"][i]
        if cluster is None or end is None:
            continue
        start = tasks["start"][i]
        node_ids = (tasks.get("node_ids") or [None] * len(tasks["id"]))[i] or []
        utility = (tasks.get("utility") or [None] * len(tasks["id"]))[i]
        where = clusters[cluster]["name"] if clusters else cluster
        text = (f"task {tasks['id'][i]} (type {tasks['type'][i]})<br>"
                f"priority {tasks['priority'][i]:.2f}, P-state {tasks['pstate'][i]}<br>"
                f"{tasks['nodes'][i]} nodes on {where}<br>"
                f"{start / 3600:.2f} h – {end / 3600:.2f} h, utility {utility or 0:.3g}")
        for first, count in contiguous_blocks(node_ids) or [(0, tasks["nodes"][i])]:
            ys.append(offsets[cluster] + first + count / 2.0)
            widths.append(count)
            bases.append(start / 3600.0)
            lengths.append((end - start) / 3600.0)
            colors.append(tasks["priority"][i])
            hover.append(text)
        if len(ys) >= MAX_GANTT_BARS:
            truncated = True
            break
    trace = {"type": "bar", "orientation": "h", "y": rounded(ys), "x": rounded(lengths),
             "base": rounded(bases), "width": widths, "hovertext": hover,
             "hoverinfo": "text", "name": "tasks",
             "marker": {"color": rounded(colors, 3), "colorscale": "Viridis", "cmin": 1,
                        "cmax": 8, "line": {"width": 0},
                        "colorbar": {"title": {"text": "priority"}, "thickness": 12}}}
    title = "Node allocation"
    if truncated:
        title += f" (first {MAX_GANTT_BARS:,} allocations)"
    lay = layout(title, "time (h)", "")
    lay["yaxis"].update({
        "tickmode": "array",
        "tickvals": [(offsets[k] + offsets[k + 1]) / 2 for k in range(len(clusters))],
        "ticktext": [c["name"] for c in clusters],
        "range": [0, offsets[-1] if offsets[-1] else 1],
        "showgrid": False,
    })
    lay["shapes"] = [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": o, "y1": o,
                      "line": {"color": "#999", "width": 1}} for o in offsets[1:-1]]
    lay["bargap"] = 0
    lay["height"] = 520
    lay["showlegend"] = False
    return {"data": [trace], "layout": lay}
