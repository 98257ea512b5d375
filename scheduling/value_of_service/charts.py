"""Charts of the Value of Service scenarios (spec ch. 2). Pure: data in, Plotly figure dict out.

* :func:`value_split`: % of the maximum performance and energy value per policy, with CIs;
* :func:`resources_over_time`: cores and memory in use (% of the system) per policy;
* :func:`vm_timeline`: one run; which task ran on which cores, in which configuration.

The % of maximum VoS bars and the cumulative VoS curve use the shared ``simcore.charts``
functions; see ``scheduling/lab.py``.
"""

from __future__ import annotations

import numpy as np

from simcore.bounds import Bounds, interval
from simcore.charts import contiguous_blocks, group_color, layout, mean_curve, note, rounded
from simcore.stats import mean_ci

from .result import task_fates

MAX_BARS = 12_000
CATEGORY_NAMES = {0: "regular", 1: "high performance", 2: "energy conservative"}
PERIOD_NAMES = {0: "low", 1: "medium", 2: "high"}


def _part(obj, name: str, default=None):
    """``obj.name`` for a Result / RunData, ``obj[name]`` for its dict form."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def value_split(groups: dict) -> dict:
    """Per policy, the % of the maximum performance value and of the maximum energy value
    earned (mean over runs with 95% CI): the two halves of the VoS (spec Figs. 12-13)."""
    labels = list(groups)
    data = []
    for key, name, pattern in (("pct_max_perf_value", "performance value", ""),
                               ("pct_max_energy_value", "energy value", "/")):
        cis = [interval(mean_ci([r.summary.get(key) for r in runs
                                 if isinstance(r.summary.get(key), (int, float))]),
                        Bounds(0.0, 100.0))
               for runs in groups.values()]
        data.append({"type": "bar", "name": name, "x": labels,
                     "y": rounded([np.nan if c.mean is None else c.mean for c in cis]),
                     "marker": {"color": [group_color(label, runs)
                                          for label, runs in groups.items()],
                                "pattern": {"shape": pattern}, "line": {"width": 1}},
                     "error_y": {"type": "data", "symmetric": False, "visible": True,
                                 "array": rounded([c.plus for c in cis]),
                                 "arrayminus": rounded([c.minus for c in cis])},
                     "customdata": [c.n for c in cis],
                     "hovertemplate": f"%{{x}}<br>{name}: %{{y:.4g}} % (95% CI "
                                      "−%{error_y.arrayminus:.3g} +%{error_y.array:.3g}, "
                                      "n = %{customdata})<extra></extra>"})
    lay = layout("Performance and energy value earned", "",
                 "% of the maximum (solid: performance, hatched: energy)", barmode="group")
    return {"data": data, "layout": lay}


def resources_over_time(groups: dict) -> dict:
    """Cores (solid) and memory (dotted) in use, % of the system, mean over runs, per policy."""
    data = []
    for label, runs in groups.items():
        for key, dash, what in (("cores_pct", "solid", "cores"), ("memory_pct", "dot", "memory")):
            t, y = mean_curve(runs, key)
            if t is None:
                continue
            data.append({"type": "scatter", "mode": "lines", "name": f"{label} · {what}",
                         "legendgroup": label,
                         "line": {"color": group_color(label, runs), "dash": dash,
                                  "width": 1.4},
                         "x": rounded(t / 60.0), "y": rounded(y)})
    lay = layout("Cores and memory in use", "time (h)", "% of the system in use")
    lay["yaxis"]["range"] = [0, 102]
    return {"data": data, "layout": lay}


def vm_timeline(result) -> dict:
    """Which task ran where: one lane per core (grouped by node), one bar per contiguous core
    block of a VM, coloured by the VM's memory; hovering names the task, its configuration
    (cores x GB) and the value it earned."""
    tasks = _part(result, "tasks", {}) or {}
    extra = _part(result, "extra", {}) or {}
    nodes = (extra.get("system") or {}).get("nodes") or []
    offsets = np.cumsum([0] + [n.get("cores", 0) for n in nodes]).tolist()
    starts = tasks.get("start", [])
    # Only the tasks that started in the run: a permanent reservation booked past its end
    # holds a start time too, but its task never ran (the summary's tasks_never_started).
    window = extra.get("window_min") or []
    if len(window) == 2:
        fate = task_fates(tasks, window)
        ran, booked = fate["started"].tolist(), int(fate["reserved_past_end"].sum())
    else:
        ran, booked = [s is not None for s in starts], 0
    order = sorted((i for i, s in enumerate(starts) if s is not None and ran[i]),
                   key=lambda i: starts[i])
    ys, widths, bases, lengths, colors, hover, ids = [], [], [], [], [], [], []
    truncated = False
    for i in order:
        start, end = starts[i], tasks["end"][i]
        node = tasks["node"][i]
        cores = tasks["core_ids"][i] or []
        if node is None or node < 0 or not cores:
            continue
        where = f"node {node}, " if len(nodes) > 1 else ""
        text = (f"task {tasks['id'][i]} (type {tasks['type'][i]}, "
                f"{CATEGORY_NAMES.get(tasks['category'][i], '?')}, arrived in the "
                f"{PERIOD_NAMES.get(tasks['period'][i], '?')} period)<br>"
                f"VM {tasks['cores'][i]} cores x {tasks['memory_gb'][i]:g} GB, {where}"
                f"{start / 60:.2f} h – {end / 60:.2f} h<br>"
                f"value {tasks['value'][i]:.3g} (v_p {tasks['v_p'][i]:.2f}, "
                f"v_e {tasks['v_e'][i]:.2f}), credited {tasks['credit'][i]:.3g}")
        for first, count in contiguous_blocks(cores):
            ys.append(offsets[node] + first + count / 2.0)
            widths.append(count)
            bases.append(start / 60.0)
            lengths.append((end - start) / 60.0)
            colors.append(tasks["memory_gb"][i])
            hover.append(text)
            ids.append([tasks["id"][i]])
        if len(ys) >= MAX_BARS:
            truncated = True
            break
    memory = [m for m in tasks.get("memory_gb", []) if m]
    trace = {"type": "bar", "orientation": "h", "y": rounded(ys), "x": rounded(lengths),
             "base": rounded(bases), "width": widths, "hovertext": hover,
             "hoverinfo": "text", "name": "VMs",
             "customdata": ids, "meta": {"task": 0},  # a click opens the task's story
             "marker": {"color": rounded(colors, 3), "colorscale": "Viridis",
                        "cmin": min(memory, default=0), "cmax": max(memory, default=1),
                        "line": {"width": 0.3, "color": "#fff"},
                        "colorbar": {"title": {"text": "VM memory (GB)"}, "thickness": 12}}}
    title = "VM timeline: cores held by each task"
    if truncated:
        title += f" (first {MAX_BARS:,} blocks)"
    lay = layout(title, "time (h)", "core" if len(nodes) <= 1 else "core (node lanes)")
    total = offsets[-1] if offsets[-1] else 1
    lay["yaxis"].update({"range": [0, total], "showgrid": False})
    if len(nodes) > 1:
        lay["yaxis"].update({
            "tickmode": "array",
            "tickvals": [(offsets[k] + offsets[k + 1]) / 2 for k in range(len(nodes))],
            "ticktext": [f"node {k}" for k in range(len(nodes))],
        })
    shapes = [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": o, "y1": o,
               "line": {"color": "#999", "width": 1}} for o in offsets[1:-1]]
    if len(window) == 2:  # the measurement window's start (after the warm-up)
        shapes.append({"type": "line", "yref": "paper", "y0": 0, "y1": 1,
                       "x0": window[0] / 60.0, "x1": window[0] / 60.0,
                       "line": {"color": "#444", "width": 1, "dash": "dash"}})
    lay["shapes"] = shapes
    if booked:
        note(lay, f"{booked:,} reservation{'s' if booked != 1 else ''} booked past the run's "
                  "end not drawn: those tasks never started")
    lay["bargap"] = 0
    lay["height"] = 520
    lay["showlegend"] = False
    if not ys:
        lay["annotations"] = [{"text": "no task ran in this run", "showarrow": False,
                               "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}]
    return {"data": [trace], "layout": lay}
