"""The job Gantt of a trace replay (``swf-replay``, ``swf-preemptive``): one rectangle per run
over processors (y) and time (x), in the manner of evalys, with killed runs drawn apart.

Replays count free processors and do not name them, so processors are assigned here, after
the fact: runs are taken in time order (ends before starts at the same instant) and each gets
the first contiguous block of free processors that fits, else the lowest free ones (then it
is drawn as one rectangle per contiguous block). Any schedule that never exceeds the machine
can be laid out this way.

Rectangles are drawn as filled polygons without outlines (outlines double the drawing time),
two shades per kind of run, a run taking the other shade than the run before it on its first
processor, so neighbours stay apart; a few SVG paths in all, not one element per job. Hovering
shows each run from an invisible marker at its centre. Beyond ``MAX_RUNS`` runs the chart is
aggregated instead: busy processors over time, stacked by kind of run.
"""

from __future__ import annotations

import numpy as np

from simcore.charts import layout, rounded

MAX_RUNS = 20_000
#: The parts of a result the chart reads (ChartSpec.reads): runs_of's and the machine's size.
READS = ("tasks", "events", "extra")
AGGREGATE_BINS = 1500
#: Two fill shades per kind of run (priority class of completed runs, or killed).
COLORS = {"normal": ("#4c78a8", "#86a9cf"), "high": ("#9c5d92", "#c79abf"),
          "medium": ("#4c78a8", "#86a9cf"), "low": ("#4e9346", "#8cc084"),
          "killed": ("#d6454a", "#f08a8d")}
LABELS = {"normal": "jobs", "high": "High jobs", "medium": "Medium jobs", "low": "Low jobs",
          "killed": "killed runs (work lost)"}


def _get(result, part: str) -> dict:
    value = result.get(part) if isinstance(result, dict) else getattr(result, part, None)
    return value or {}


def _floats(values) -> np.ndarray:
    if isinstance(values, np.ndarray):  # read as an array (ChartSpec.reads): NaN for None
        return values.astype(float, copy=False)
    return np.asarray([np.nan if v is None else v for v in values], dtype=float)


def _column(part: dict, name: str, default):
    # A column read as a numpy array has no truth value: ``or`` would raise on it.
    values = part.get(name)
    return default if values is None or len(values) == 0 else values


def runs_of(result) -> dict[str, np.ndarray]:
    """Every run that held processors: the completing runs (``tasks``) and, for the preemptive
    replay, the killed ones (``events``). Columns: start, end, nodes, job, kind, by, submit;
    each column read as a list or a numpy array."""
    tasks, events = _get(result, "tasks"), _get(result, "events")
    n = len(_column(tasks, "job_id", []))
    kinds = list(_column(tasks, "class", ["normal"] * n))
    start = [_floats(_column(tasks, "start", []))]
    end = [_floats(_column(tasks, "end", []))]
    nodes = [np.asarray(_column(tasks, "nodes", []), dtype=np.int64)]
    job = [np.asarray(_column(tasks, "job_id", []), dtype=np.int64)]
    submit = [_floats(_column(tasks, "submit", []))]
    by = [np.full(n, -1, dtype=np.int64)]
    killed = len(_column(events, "t", []))
    if killed:
        start.append(_floats(events["start"]))
        end.append(_floats(events["t"]))
        nodes.append(np.asarray(events["nodes"], dtype=np.int64))
        job.append(np.asarray(events["job_id"], dtype=np.int64))
        by.append(np.asarray(_column(events, "by_job_id", [-1] * killed), dtype=np.int64))
        submit.append(np.full(killed, np.nan))
        kinds += ["killed"] * killed
    out = {"start": np.concatenate(start), "end": np.concatenate(end),
           "nodes": np.concatenate(nodes), "job": np.concatenate(job),
           "by": np.concatenate(by), "submit": np.concatenate(submit),
           "kind": np.asarray(kinds, dtype=object)}
    ok = np.isfinite(out["start"]) & np.isfinite(out["end"]) & (out["end"] > out["start"]) \
        & (out["nodes"] > 0)
    return {k: v[ok] for k, v in out.items()}


def assign(start: np.ndarray, end: np.ndarray, nodes: np.ndarray,
           machine: int) -> list[list[tuple[int, int]]]:
    """Processor blocks ``[(first, count), ...]`` per run, in time order on ``machine``
    processors (contiguous first fit, else the lowest free processors)."""
    order = np.argsort(start, kind="stable")
    ends = np.argsort(end, kind="stable")
    free = np.ones(machine + 2, dtype=bool)  # sentinels at both ends stay False
    free[0] = free[-1] = False
    blocks: list[list[tuple[int, int]]] = [[] for _ in range(len(start))]
    e = 0
    end_l, ends_l = end.tolist(), ends.tolist()
    for i in order.tolist():
        t = start[i]
        while e < len(ends_l) and end_l[ends_l[e]] <= t:
            for first, count in blocks[ends_l[e]]:
                free[first + 1:first + 1 + count] = True
            e += 1
        k = int(nodes[i])
        edges = np.flatnonzero(np.diff(free.astype(np.int8)))
        run_starts, run_ends = edges[0::2], edges[1::2]
        fits = np.flatnonzero(run_ends - run_starts >= k)
        if fits.size:
            first = int(run_starts[fits[0]])
            got = [(first, k)]
        else:
            ids = np.flatnonzero(free[1:-1])[:k]
            cut = np.flatnonzero(np.diff(ids) > 1) + 1
            got = [(int(p[0]), len(p)) for p in np.split(ids, cut) if len(p)]
        for first, count in got:
            free[first + 1:first + 1 + count] = False
        blocks[i] = got
    return blocks


def alternate(start: np.ndarray, blocks: list[list[tuple[int, int]]], machine: int) -> np.ndarray:
    """Shade 0 or 1 per run: the other one than the last run on its first processor."""
    last = np.ones(machine, dtype=np.int8)
    shade = np.zeros(len(blocks), dtype=np.int8)
    for i in np.argsort(start, kind="stable").tolist():
        if not blocks[i]:
            continue
        s = 1 - last[blocks[i][0][0]]
        shade[i] = s
        for first, count in blocks[i]:
            last[first:first + count] = s
    return shade


def _hours(values) -> list:
    return rounded(np.asarray(values, dtype=float) / 3600.0, 7)


def job_gantt(result) -> dict:
    runs = runs_of(result)
    machine = int(_get(result, "extra").get("nodes") or (runs["nodes"].max() if
                                                         runs["nodes"].size else 1))
    count = int(runs["start"].size)
    if count > MAX_RUNS:
        return aggregated_gantt(runs, machine)
    blocks = assign(runs["start"], runs["end"], runs["nodes"], machine)
    shade = alternate(runs["start"], blocks, machine)
    data = []
    kinds = [k for k in ("normal", "high", "medium", "low", "killed") if k in set(runs["kind"])]
    for kind in kinds:
        idx = np.flatnonzero(runs["kind"] == kind)
        xs, ys = ([], []), ([], [])
        cx, cy, custom = [], [], []
        for i in idx.tolist():
            s, e = runs["start"][i] / 3600.0, runs["end"][i] / 3600.0
            x, y = xs[shade[i]], ys[shade[i]]
            for first, size in blocks[i]:
                x += [s, e, e, s, s, None]
                y += [first, first, first + size, first + size, first, None]
            cx.append((s + e) / 2.0)
            cy.append(blocks[i][0][0] + blocks[i][0][1] / 2.0)
            wait = (runs["start"][i] - runs["submit"][i]) / 3600.0
            custom.append([int(runs["job"][i]), int(runs["nodes"][i]), round(s, 4),
                           round(e, 4), None if np.isnan(wait) else round(float(wait), 4),
                           int(runs["by"][i])])
        for k, color in enumerate(COLORS[kind]):
            data.append({"type": "scatter", "mode": "none", "fill": "toself",
                         "name": LABELS[kind], "legendgroup": kind, "showlegend": k == 0,
                         "x": rounded(xs[k], 7), "y": ys[k], "fillcolor": color,
                         "hoverinfo": "skip"})
        if kind == "killed":
            text = ("job %{customdata[0]} (%{customdata[1]} processors), killed<br>"
                    "ran %{customdata[2]:.2f} h to %{customdata[3]:.2f} h for job "
                    "%{customdata[5]}<extra></extra>")
        else:
            text = ("job %{customdata[0]} (%{customdata[1]} processors)<br>"
                    "%{customdata[2]:.2f} h to %{customdata[3]:.2f} h, waited "
                    "%{customdata[4]:.2f} h<extra></extra>")
        data.append({"type": "scatter", "mode": "markers", "x": rounded(cx, 7),
                     "y": rounded(cy), "customdata": custom, "hovertemplate": text,
                     "meta": {"task": 0},  # customdata[0] is the job: a click opens its story
                     "marker": {"size": 6, "opacity": 0, "color": COLORS[kind][0]},
                     "legendgroup": kind, "showlegend": False, "name": LABELS[kind]})
    killed = int((runs["kind"] == "killed").sum())
    title = f"Jobs over processors and time ({count - killed:,} runs"
    title += f", {killed:,} killed)" if killed else ")"
    lay = layout(title, "time (hours since trace start)", "processor")
    lay["yaxis"].update({"range": [0, machine], "showgrid": False})
    lay["height"] = 560
    lay["legend"] = {"orientation": "h", "y": -0.15}
    return {"data": data, "layout": lay}


def _ramp(edges: np.ndarray, times: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``sum_i w_i * max(edge - t_i, 0)`` at every edge, in O((runs + edges) log runs)."""
    order = np.argsort(times)
    t, w = times[order], weights[order]
    cw = np.concatenate([[0.0], np.cumsum(w)])
    cwt = np.concatenate([[0.0], np.cumsum(w * t)])
    k = np.searchsorted(t, edges, side="left")
    return edges * cw[k] - cwt[k]


def aggregated_gantt(runs: dict, machine: int) -> dict:
    """Busy processors over time, stacked by kind of run (for schedules too large to draw run
    by run): exact time averages over ``AGGREGATE_BINS`` bins."""
    t0, t1 = float(runs["start"].min()), float(runs["end"].max())
    edges = np.linspace(t0, t1, AGGREGATE_BINS + 1)
    width = edges[1] - edges[0]
    data = []
    kinds = [k for k in ("normal", "high", "medium", "low", "killed") if k in set(runs["kind"])]
    for kind in kinds:
        m = runs["kind"] == kind
        n = runs["nodes"][m].astype(float)
        # Node-seconds busy before each edge, differenced into per-bin averages.
        area = _ramp(edges, runs["start"][m], n) - _ramp(edges, runs["end"][m], n)
        busy = np.diff(area) / width
        data.append({"type": "scatter", "mode": "lines", "stackgroup": "busy",
                     "name": LABELS[kind], "x": _hours(edges[:-1]), "y": rounded(busy, 4),
                     "line": {"width": 0.5, "color": COLORS[kind][0]},
                     "fillcolor": COLORS[kind][0]})
    lay = layout(f"Busy processors over time ({runs['start'].size:,} runs, too many to draw "
                 "one by one)", "time (hours since trace start)", "processors")
    lay["yaxis"]["range"] = [0, machine]
    lay["height"] = 560
    return {"data": data, "layout": lay}
