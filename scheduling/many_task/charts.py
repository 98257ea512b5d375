"""Charts of the many-task kind (trailing tasks, tail-chopping). Pure functions: Plotly dicts.

Experiment charts take ``groups`` (``{policy label: [RunData, ...]}``). The trade-off charts
pool every observation of an experiment: the trade-off grid a run carries (``dist["grid"]``)
and each run's own operating point (``summary`` r, f, TTS, utilization), so they draw both an
experiment whose runs hold grids and one that sweeps ``chop.r`` / ``chop.f`` /
``machine.workers`` as axes. Observations are keyed by setting (the scenario apart from its
chopping parameters), dispatch order (a policy's name before ``+``), idle fraction f, ratio r
and fixed first-partition size; repeated seeds are counted once, so ``random`` and
``random+chop`` runs of one seed (the same shuffle) do not double count. Means come with 95%
CIs over the seeds.

Run charts take a full result (a ``Result`` or its JSON dict).
"""

from __future__ import annotations

import numpy as np

from simcore.bounds import Bounds, interval
from simcore.charts import color, group_color, layout, rounded
from simcore.stats import mean_ci, t_quantile

ORDER_TITLE = {"random": "random order", "sorted": "longest first"}
NO_CHOP = 1.0
# Idle fractions 0.1..0.9 from light to dark; no chopping in black.
F_COLORS = ["#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#fd8d3c", "#e6550d",
            "#a63603", "#7f2704"]
DASHES = ["solid", "dash", "dot", "dashdot", "longdash"]


def order_of(policy: str) -> str:
    return policy.split("+", 1)[0]


def f_color(f: float, fractions: list[float]) -> str:
    if f >= NO_CHOP:
        return "#111111"
    chopped = [x for x in fractions if x < NO_CHOP]
    if len(chopped) <= 1:
        return F_COLORS[4]
    pos = chopped.index(f) / (len(chopped) - 1)
    return F_COLORS[int(round(pos * (len(F_COLORS) - 1)))]


def f_name(f: float) -> str:
    return "no chopping" if f >= NO_CHOP else f"f = {f:g}"


# -- observations --------------------------------------------------------------------------------

class Cell:
    """The observations of one (setting, order): whole grids by seed, and single points (runs'
    operating points) where no grid covers them."""

    __slots__ = ("grids", "points", "_curves")

    def __init__(self):
        self.grids: dict = {}  # (f tuple, r tuple, workers) -> {seed: (tts_h, utilization)}
        self.points: dict = {}  # (f, r, workers) -> {seed: (tts_h, utilization)}
        self._curves = None

    def keys(self) -> set:
        out = {(f, r, w) for (fs, rs, w) in self.grids for f in fs for r in rs}
        return out | set(self.points)

    def curves(self) -> dict:
        """{f: [(r, workers, tts CI, utilization CI), ...]}, points ordered along the curve
        (r ascending, then larger fixed partitions first)."""
        if self._curves is None:
            self._curves = _curves(self)
        return self._curves


_last: tuple = (None, None)


def observations(groups: dict) -> tuple[dict, dict]:
    """``({(setting, order): Cell}, {setting: label})``, computed once per ``groups`` (every
    chart of a page reads the same groups)."""
    global _last
    cached_groups, cached = _last
    if cached_groups is groups:
        return cached
    data: dict = {}
    labels: dict = {}
    for runs in groups.values():
        for run in runs:
            setting = run.dist.get("setting") or {}
            key = setting.get("key", "")
            labels.setdefault(key, setting.get("label", ""))
            workers = int(setting.get("workers") or 0)
            cell = data.get((key, order_of(run.policy)))
            if cell is None:
                cell = data[(key, order_of(run.policy))] = Cell()
            grid = run.dist.get("grid")
            if grid:
                where = (tuple(grid["f"]), tuple(grid["r"]), workers)
                cell.grids.setdefault(where, {})[run.seed] = (grid["tts_h"],
                                                              grid["utilization"])
            s = run.summary
            if all(isinstance(s.get(k), (int, float)) for k in ("f", "r", "tts_h",
                                                                "utilization")):
                cell.points.setdefault((s["f"], s["r"], workers), {})[run.seed] = (
                    s["tts_h"], s["utilization"])
    _last = (groups, (data, labels))
    return data, labels


SHARE, TTS_BOUNDS = Bounds(0.0, 1.0), Bounds(0.0)


def _ci_arrays(values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Means and 95% CI half-widths over axis 0 (None with one value)."""
    n = values.shape[0]
    mean = values.mean(axis=0)
    if n < 2:
        return mean, None
    half = t_quantile(0.975, n - 1) * values.std(axis=0, ddof=1) / np.sqrt(n)
    return mean, half


def _errors(cis: list[dict], bounds: Bounds) -> dict:
    """Asymmetric 95% CI error bars of mean_ci-like dicts, kept inside ``bounds``."""
    shown = [interval(ci, bounds) for ci in cis]
    return {"type": "data", "symmetric": False, "visible": True, "thickness": 0.8,
            "array": rounded([c.plus for c in shown]),
            "arrayminus": rounded([c.minus for c in shown])}


def _ci(n: int, mean: float, half) -> dict:
    return {"n": n, "mean": float(mean), "half_width": None if half is None else float(half)}


def _curves(cell: Cell) -> dict:
    out: dict = {}
    covered = set()
    for (fs, rs, workers), by_seed in cell.grids.items():
        n = len(by_seed)
        tts = np.asarray([v[0] for v in by_seed.values()], dtype=float)
        util = np.asarray([v[1] for v in by_seed.values()], dtype=float)
        (tm, th), (um, uh) = _ci_arrays(tts), _ci_arrays(util)
        for i, f in enumerate(fs):
            for j, r in enumerate(rs):
                if (f, r, workers) in covered or not (np.isfinite(tm[i, j])
                                                      and np.isfinite(um[i, j])):
                    continue
                covered.add((f, r, workers))
                out.setdefault(f, []).append((
                    r, workers, _ci(n, tm[i, j], None if th is None else th[i, j]),
                    _ci(n, um[i, j], None if uh is None else uh[i, j])))
    for (f, r, workers), by_seed in cell.points.items():
        if (f, r, workers) in covered:
            continue  # a grid of the same runs holds this point already
        values = list(by_seed.values())
        out.setdefault(f, []).append((r, workers, mean_ci([v[0] for v in values]),
                                      mean_ci([v[1] for v in values])))
    for points in out.values():
        points.sort(key=lambda p: (p[0], -p[1]))
    return dict(sorted(out.items()))


def curves(cell: Cell) -> dict:
    return cell.curves()


def setting_names(labels: dict) -> dict:
    """Readable names of the settings; repeated labels get their key."""
    counts: dict = {}
    for label in labels.values():
        counts[label] = counts.get(label, 0) + 1
    return {key: (label if counts[label] == 1 else f"{label} #{key[:6]}")
            for key, label in labels.items()}


def _varies_by_workers(cell: Cell) -> bool:
    keys = cell.keys()
    rs = {r for (_, r, _) in keys}
    ws = {w for (_, _, w) in keys}
    return len(rs) <= 1 and len(ws) > 1


def has_order(order: str):
    return lambda groups: any(order_of(p) == order for p in groups)


# -- experiment charts ---------------------------------------------------------------------------

def _point_text(r, workers, tts, util, by_workers: bool) -> str:
    where = f"{workers:,} workers" if by_workers else f"r = {r:g}"
    half_t = f" ± {tts['half_width']:.3g}" if tts["half_width"] is not None else ""
    half_u = f" ± {util['half_width']:.3f}" if util["half_width"] is not None else ""
    return (f"{where}<br>TTS {tts['mean']:.3g} h{half_t}<br>utilization "
            f"{util['mean']:.3f}{half_u}<br>{tts['n']} trial(s)")


def tradeoff(groups: dict, order: str) -> dict:
    """TTS against utilization for one dispatch order: one curve per f (and no chopping),
    points along r; log TTS axis for random order (paper Figs. 4 and 6)."""
    data_all, labels = observations(groups)
    names = setting_names(labels)
    traces = []
    keys = [k for k in data_all if k[1] == order]
    for si, key in enumerate(keys):
        cell = data_all[key]
        by_workers = _varies_by_workers(cell)
        lines = curves(cell)
        fractions = list(lines)
        for f, points in lines.items():
            name = f_name(f) if len(keys) == 1 else f"{names[key[0]]} · {f_name(f)}"
            tts = [p[2] for p in points]
            util = [p[3] for p in points]
            traces.append({
                "type": "scatter", "mode": "lines+markers", "name": name,
                "legendgroup": name,
                "x": rounded([t["mean"] for t in tts]),
                "y": rounded([u["mean"] for u in util]),
                "error_x": _errors(tts, TTS_BOUNDS),
                "error_y": _errors(util, SHARE),
                "line": {"color": f_color(f, fractions), "dash": DASHES[si % len(DASHES)],
                         "width": 2.2 if f >= NO_CHOP else 1.4},
                "marker": {"size": 5},
                "text": [_point_text(p[0], p[1], p[2], p[3], by_workers) for p in points],
                "hovertemplate": f"{name}<br>%{{text}}<extra></extra>",
            })
    lay = layout(f"Time to solution against utilization ({ORDER_TITLE.get(order, order)})",
                 "time to solution (h)", "utilization")
    lay["yaxis"]["tickformat"] = ".0%"
    if order == "random":
        lay["xaxis"]["type"] = "log"
    lay["legend"] = {"orientation": "v", "x": 1.02, "y": 1}
    return {"data": traces, "layout": lay}


def versus_ratio(groups: dict, metric: str) -> dict:
    """TTS (``metric="tts"``) or utilization against r, one curve per order and f (paper
    Figs. 5 and 7); against the worker count when runs fix the partition instead."""
    data_all, labels = observations(groups)
    names = setting_names(labels)
    traces = []
    by_workers_any = False
    for key, order in data_all:
        cell = data_all[(key, order)]
        by_workers = _varies_by_workers(cell)
        by_workers_any |= by_workers
        lines = curves(cell)
        fractions = list(lines)
        for f, points in lines.items():
            base = f"{ORDER_TITLE.get(order, order)} · {f_name(f)}"
            name = base if len({k for k, _ in data_all}) == 1 else f"{names[key]} · {base}"
            pick = 2 if metric == "tts" else 3
            values = [p[pick] for p in points]
            traces.append({
                "type": "scatter", "mode": "lines+markers", "name": name, "legendgroup": name,
                "x": [p[1] for p in points] if by_workers else [p[0] for p in points],
                "y": rounded([v["mean"] for v in values]),
                "error_y": _errors(values, TTS_BOUNDS if metric == "tts" else SHARE),
                "line": {"color": f_color(f, fractions),
                         "dash": "solid" if order == "random" else "dash",
                         "width": 2.2 if f >= NO_CHOP else 1.4},
                "marker": {"size": 4, "symbol": "circle" if order == "random" else "square"},
                "hovertemplate": f"{name}<br>%{{x}}: %{{y:.4g}}<extra></extra>",
            })
    what = "Time to solution" if metric == "tts" else "Utilization"
    xtitle = "first partition (workers)" if by_workers_any else "minimum task/worker ratio r"
    lay = layout(f"{what} against {'the worker count' if by_workers_any else 'r'}", xtitle,
                 "time to solution (h)" if metric == "tts" else "utilization")
    lay["xaxis"]["type"] = "log"  # the paper's r list is dense below 15 and sparse above
    if metric == "tts":
        lay["yaxis"]["type"] = "log"
    else:
        lay["yaxis"]["tickformat"] = ".0%"
    lay["legend"] = {"orientation": "v", "x": 1.02, "y": 1}
    return {"data": traces, "layout": lay}


def workers_over_time(groups: dict) -> dict:
    """Busy and allocated workers over time, the first trial of each policy (the falling
    utilization of the tail, paper Figs. 1 and 8)."""
    traces = []
    for label, runs in groups.items():
        run = min(runs, key=lambda r: r.trial)
        col = group_color(label, runs)
        s = run.series
        if not s.get("t_min"):
            continue
        t_h = [t / 60.0 for t in s["t_min"]]
        traces.append({"type": "scatter", "mode": "lines", "name": f"{label} · busy",
                       "legendgroup": label, "x": rounded(t_h), "y": rounded(s["busy_workers"]),
                       "line": {"color": col, "width": 1.6, "shape": "hv"}})
        traces.append({"type": "scatter", "mode": "lines", "name": f"{label} · allocated",
                       "legendgroup": label, "x": rounded(t_h),
                       "y": rounded(s["allocated_workers"]),
                       "line": {"color": col, "width": 1.2, "dash": "dot", "shape": "hv"}})
    return {"data": traces, "layout": layout("Busy and allocated workers (first trial)",
                                             "time (h)", "workers")}


def runtime_histogram(groups: dict) -> dict:
    """Run-time histogram of each workload setting (paper Figs. 1 and 6)."""
    seen, traces = set(), []
    names = setting_names(observations(groups)[1])
    for runs in groups.values():
        for run in runs:
            setting = (run.dist.get("setting") or {}).get("key", "")
            hist = run.dist.get("hist")
            if not hist or setting in seen:
                continue
            seen.add(setting)
            traces.append(_hist_trace(hist, names.get(setting) or "run times",
                                      color(len(traces))))
    return {"data": traces, "layout": _hist_layout(len(traces) > 1)}


def _hist_trace(hist: dict, name: str, colour: str) -> dict:
    edges = np.asarray(hist["edges"], dtype=float)
    mids = (edges[:-1] + edges[1:]) / 2
    return {"type": "bar", "name": name, "x": rounded(mids), "y": list(hist["counts"]),
            "width": float(edges[1] - edges[0]) if edges.size > 1 else None,
            "marker": {"color": colour}, "opacity": 0.7,
            "hovertemplate": "%{x:.4g} s: %{y} tasks<extra>" + name + "</extra>"}


def _hist_layout(overlay: bool) -> dict:
    lay = layout("Task run times", "run time (s)", "tasks", barmode="overlay" if overlay
                 else "group", bargap=0)
    lay["updatemenus"] = [{"type": "buttons", "direction": "right", "x": 1, "y": 1.15,
                           "xanchor": "right", "showactive": True,
                           "buttons": [{"label": "linear", "method": "relayout",
                                        "args": [{"yaxis.type": "linear"}]},
                                       {"label": "log", "method": "relayout",
                                        "args": [{"yaxis.type": "log"}]}]}]
    return lay


# -- run charts ----------------------------------------------------------------------------------

def _part(result, name: str) -> dict:
    value = result.get(name) if isinstance(result, dict) else getattr(result, name, None)
    return value or {}


def run_workers(result) -> dict:
    """One run: active (green) and idle (red) workers stacked to the allocation, partitions
    marked (the paper's Fig. 1 bottom and Fig. 8)."""
    s = _part(result, "series")
    ev = _part(result, "events")
    t_h = [t / 60.0 for t in s.get("t_min", [])]
    busy = s.get("busy_workers", [])
    idle = s.get("idle_workers", [])
    data = [
        {"type": "scatter", "mode": "lines", "name": "active workers", "x": rounded(t_h),
         "y": rounded(busy), "stackgroup": "w", "line": {"color": "#2ca02c", "width": 0.5,
                                                         "shape": "hv"}},
        {"type": "scatter", "mode": "lines", "name": "idle workers", "x": rounded(t_h),
         "y": rounded(idle), "stackgroup": "w", "line": {"color": "#d62728", "width": 0.5,
                                                         "shape": "hv"}},
    ]
    shapes, notes = [], []
    for i in range(len(ev.get("partition", []))):
        ready, release = ev["ready_s"][i] / 3600.0, ev["release_s"][i] / 3600.0
        shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": ev["request_s"][i]
                       / 3600.0, "x1": ready, "y0": 0, "y1": 1, "fillcolor": "#bbbbbb",
                       "opacity": 0.25, "line": {"width": 0}})
        label = f"{ev['workers'][i]:,} workers" + (" · chopped" if ev["chopped"][i] else "")
        notes.append({"x": (ready + release) / 2, "y": 1.0, "xref": "x", "yref": "paper",
                      "text": label, "showarrow": False, "yanchor": "bottom",
                      "font": {"size": 10}})
    lay = layout("Active and idle workers (grey: partition start-up)", "time (h)", "workers")
    lay["shapes"] = shapes
    lay["annotations"] = notes
    return {"data": data, "layout": lay}


def run_histogram(result) -> dict:
    hist = _part(result, "extra").get("runtime_hist")
    if not hist:
        return {"data": [], "layout": _hist_layout(False)}
    label = (_part(result, "extra").get("workload") or {}).get("label", "run times")
    return {"data": [_hist_trace(hist, label, color(0))], "layout": _hist_layout(False)}


def run_tradeoff(result) -> dict:
    """One run's own trade-off grid (when it has one)."""
    grid = _part(result, "extra").get("tradeoff")
    meta = _part(result, "meta")
    order = order_of(meta.get("policy", "random"))
    lay = layout("Time to solution against utilization (this run's grid)",
                 "time to solution (h)", "utilization")
    lay["yaxis"]["tickformat"] = ".0%"
    if order == "random":
        lay["xaxis"]["type"] = "log"
    if not grid:
        lay["annotations"] = [{"text": "this run has no trade-off grid (set tradeoff.ratios)",
                               "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5,
                               "showarrow": False}]
        return {"data": [], "layout": lay}
    fractions = list(grid["f"])
    data = []
    for i, f in enumerate(fractions):
        tts_h = np.asarray(grid["tts_s"][i], dtype=float) / 3600.0
        data.append({"type": "scatter", "mode": "lines+markers", "name": f_name(f),
                     "x": rounded(tts_h), "y": rounded(grid["utilization"][i]),
                     "text": [f"r = {r:g}" for r in grid["r"]],
                     "hovertemplate": f"{f_name(f)}<br>%{{text}}<br>%{{x:.3g}} h, "
                                      "%{y:.3f}<extra></extra>",
                     "line": {"color": f_color(f, fractions),
                              "width": 2.2 if f >= NO_CHOP else 1.4},
                     "marker": {"size": 5}})
    return {"data": data, "layout": lay}


def figures(groups: dict) -> dict:
    """Every experiment chart (for tests and exports)."""
    out = {"workers": workers_over_time(groups), "histogram": runtime_histogram(groups),
           "tts-vs-r": versus_ratio(groups, "tts"),
           "utilization-vs-r": versus_ratio(groups, "utilization")}
    for order in ("random", "sorted"):
        if has_order(order)(groups):
            out[f"tradeoff-{order}"] = tradeoff(groups, order)
    return out

