"""Charts of the preemptive serial-task scenarios (spec ch. 4). Pure: data in, figure dict out.

* :func:`preemption_timeline`: one run; when and where tasks were suspended and resumed.

Per-policy bars (critical completion) and lines (preemptions per minute) use the shared
``simcore.charts`` functions; see ``scheduling/lab.py``.

Every figure stays under about :data:`MAX_POINTS` plotted points so pages stay light.
"""

from __future__ import annotations

import numpy as np

from simcore.charts import layout, rounded

MAX_POINTS = 2000
SUSPEND_COLOR = "#d62728"
RESUME_COLOR = "#2ca02c"


def _part(obj, name: str, default=None):
    """``obj.name`` for a Result / RunData, ``obj[name]`` for its dict form."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _stride_pick(n: int, budget: int) -> np.ndarray:
    """Indices of at most ``budget`` items spread evenly over ``n`` (deterministic)."""
    if n <= budget:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, budget).round().astype(np.int64))


def preemption_timeline(result, max_points: int = MAX_POINTS) -> dict:
    """Suspensions (down triangles) and resumptions (up triangles) per core, in cluster lanes,
    with a dotted line for each suspension period (suspend core, until the resumption)."""
    extra = _part(result, "extra", {}) or {}
    log = extra.get("preemption_log") or {}
    clusters = extra.get("clusters") or []
    tasks = _part(result, "tasks", {}) or {}
    t = np.asarray(log.get("t", []), dtype=float)
    task = np.asarray(log.get("task", []), dtype=np.int64)
    core = np.asarray(log.get("core", []), dtype=np.int64)
    cluster = np.asarray(log.get("cluster", []), dtype=np.int64)
    resume = np.asarray([k == "resume" for k in log.get("kind", [])], dtype=bool)
    names = [c.get("name", str(c.get("index", i))) for i, c in enumerate(clusters)]
    critical = tasks.get("critical") or []

    # Suspension periods: each suspend paired with the same task's next resume.
    periods = []
    open_at: dict[int, int] = {}
    for i in range(t.size):
        k = int(task[i])
        if resume[i]:
            if k in open_at:
                periods.append((open_at.pop(k), i))
        else:
            open_at[k] = i
    # Budget: markers take one point, periods three (start, end, gap).
    n_mark = t.size
    mark_budget = min(n_mark, max(1, max_points // 2))
    period_budget = max(0, (max_points - min(n_mark, mark_budget)) // 3)
    keep = _stride_pick(n_mark, mark_budget)
    keep_periods = [periods[i] for i in _stride_pick(len(periods), period_budget)]

    def hover(i: int) -> str:
        k = int(task[i])
        crit = " (critical)" if k < len(critical) and critical[k] else ""
        what = "resumed" if resume[i] else "suspended"
        lane = names[cluster[i]] if 0 <= cluster[i] < len(names) else str(cluster[i])
        return f"task {k}{crit} {what}<br>cluster {lane}, core {int(core[i])}<br>" \
               f"t = {t[i] / 60.0:.2f} h"

    data = []
    if keep_periods:
        xs, ys = [], []
        for s, r in keep_periods:
            xs += [t[s] / 60.0, t[r] / 60.0, None]
            ys += [int(core[s]), int(core[s]), None]
        data.append({"type": "scatter", "mode": "lines", "name": "suspended period",
                     "x": rounded(xs), "y": ys, "hoverinfo": "skip",
                     "line": {"color": "#999", "width": 1, "dash": "dot"}})
    for flag, name, symbol, col in ((False, "suspend", "triangle-down", SUSPEND_COLOR),
                                    (True, "resume", "triangle-up", RESUME_COLOR)):
        idx = keep[resume[keep] == flag]
        data.append({"type": "scatter", "mode": "markers", "name": name,
                     "x": rounded(t[idx] / 60.0), "y": core[idx].tolist(),
                     "text": [hover(int(i)) for i in idx],
                     "hovertemplate": "%{text}<extra></extra>",
                     # customdata[0] is the task: a click opens its story
                     "customdata": [[int(task[i])] for i in idx], "meta": {"task": 0},
                     "marker": {"symbol": symbol, "size": 6, "color": col, "opacity": 0.75}})

    title = "Preemption timeline"
    if keep.size < n_mark or len(keep_periods) < len(periods):
        title += f" (showing {keep.size:,} of {n_mark:,} events)"
    lay = layout(title, "time (h)", "core (cluster lanes)")
    shapes, ticks, labels = [], [], []
    for i, c in enumerate(clusters):
        lo = int(c.get("first_core", 0))
        hi = lo + int(c.get("cores", 0))
        if i % 2 == 0:
            shapes.append({"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "yref": "y",
                           "y0": lo - 0.5, "y1": hi - 0.5, "fillcolor": "#f0f0f0",
                           "line": {"width": 0}, "layer": "below"})
        ticks.append((lo + hi - 1) / 2)
        labels.append(f"cluster {names[i]}")
    lay["shapes"] = shapes
    if ticks:
        total = max(int(c.get("first_core", 0)) + int(c.get("cores", 0)) for c in clusters)
        # Tall enough that every lane label has room (>= 16 px a lane), and a label is left
        # out only where its lane is still too thin to hold it.
        lay["height"] = max(420, min(1600, 16 * len(clusters) + 160))
        plot_px = lay["height"] - 160
        keep = [k for k, c in enumerate(clusters)
                if int(c.get("cores", 0)) / max(total, 1) * plot_px >= 12]
        lay["yaxis"].update({"tickvals": [ticks[k] for k in keep],
                             "ticktext": [labels[k] for k in keep], "automargin": True,
                             "tickfont": {"size": 11}, "range": [-0.5, total - 0.5]})
    if n_mark == 0:
        lay["annotations"] = [{"text": "no preemptions in this run", "showarrow": False,
                               "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}]
    return {"data": data, "layout": lay}
