"""Charts of the decentralized grid (kind ``grid``). Pure: data in, Plotly figure dict out.

Experiment charts take ``groups`` (``{label: [RunData, ...]}``) whose ``dist`` holds the
compact data of :func:`compact`:

* :func:`wait_curve` (paper Fig. 5): jobs completed against wait, without the lowest waits;
* :func:`wait_tail` (Fig. 6): the same curve's last jobs, the longest waits;
* :func:`alpha_comparison` (Fig. 4): top-10% and overall median wait per alpha, when the runs
  differ in alpha (a sweep, or runs compared side by side);
* :func:`wait_vs_iat` (Fig. 3): median wait against the inter-arrival time with 95% CIs, when
  the runs differ in IAT.

Run charts take one full result: :func:`load_map` (core utilization and queued jobs per node
group over time) and :func:`migration_map` (which job moved from which node to which, when).
Figures stay under about :data:`MAX_POINTS` plotted points.
"""

from __future__ import annotations

import numpy as np

from simcore.bounds import Bounds, interval
from simcore.charts import color, group_color, layout, rounded
from simcore.stats import mean_ci

MAX_POINTS = 2000
CURVE_POINTS = 300  # body points of a stored wait curve (the tail is kept in full)
KIND_COLORS = {"push": "#1f77b4", "pull": "#2ca02c", "balance": "#9467bd"}


def _part(obj, name: str, default=None):
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


# -- compact data ------------------------------------------------------------------------------
def rank_curve(waits, omit: int, tail: int, points: int = CURVE_POINTS) -> dict | None:
    """The cumulative curve of Figs. 5-6: wait of the job of each rank (ascending), from rank
    ``omit + 1``; sampled in the body, every rank in the last ``tail``."""
    w = np.sort(np.asarray([v for v in waits if v is not None], dtype=float))
    n = w.size
    if n == 0:
        return None
    first = min(max(int(omit), 0), n - 1)
    tail = min(max(int(tail), 1), n - first)
    body_end = n - tail
    body = np.unique(np.linspace(first, max(first, body_end - 1), points).round()
                     .astype(np.int64)) if body_end > first else np.zeros(0, dtype=np.int64)
    idx = np.concatenate([body, np.arange(body_end, n)])
    return {"n": int(n), "omit": first, "tail": int(tail), "rank": (idx + 1).tolist(),
            "wait": [float(f"{v:.6g}") for v in w[idx]]}


def compact(result, downsample, quantiles) -> dict:
    """Chart data of one run: downsampled series and the wait distributions."""
    tasks = _part(result, "tasks", {}) or {}
    meta = _part(result, "meta", {}) or {}
    report = (meta.get("scenario", {}).get("params", {}) or {}).get("report", {})
    waits = tasks.get("wait_s", [])
    return {"series": downsample(_part(result, "series", {}) or {}),
            "dist": {"wait_s": quantiles(waits),
                     "conv_wait_s": quantiles(tasks.get("conv_wait_s", [])),
                     "wait_rank": rank_curve(waits, report.get("omit_lowest", 0),
                                             report.get("tail_jobs", 200))}}


# -- experiment charts -------------------------------------------------------------------------
def _mean_rank_curve(runs):
    """Vincentized curve of a group: mean wait at each rank over its runs."""
    curves = [r.dist.get("wait_rank") for r in runs if r.dist.get("wait_rank")]
    if not curves:
        return None
    ref = curves[0]
    ranks = np.asarray(ref["rank"], dtype=float)
    stack = []
    for c in curves:
        # Runs of one scenario share ranks; others are placed by their share of the jobs.
        x = np.asarray(c["rank"], dtype=float) / c["n"] * ref["n"]
        stack.append(np.interp(ranks, x, np.asarray(c["wait"], dtype=float)))
    return ranks, np.mean(stack, axis=0), ref


def _curve_figure(groups: dict, tail: bool) -> dict:
    data = []
    meta = None
    for label, runs in groups.items():
        got = _mean_rank_curve(runs)
        if got is None:
            continue
        ranks, wait, meta = got
        if tail:
            keep = ranks > meta["n"] - meta["tail"]
            ranks, wait = ranks[keep], wait[keep]
        data.append({"type": "scatter", "mode": "lines", "name": label, "legendgroup": label,
                     "line": {"color": group_color(label, runs), "width": 1.6, "shape": "hv"},
                     "x": rounded(wait / 3600.0), "y": ranks.astype(int).tolist(),
                     "hovertemplate": f"{label}<br>%{{y}} jobs waited ≤ %{{x:.3g}} h"
                                      "<extra></extra>"})
    if tail:
        title = "Tail: the longest waits (Fig. 6)"
        if meta:
            title = f"Tail: the {meta['tail']} longest waits (Fig. 6)"
    else:
        title = "Jobs completed vs wait (Fig. 5)"
        if meta and meta["omit"]:
            title = f"Jobs completed vs wait, without the {meta['omit']:,} lowest (Fig. 5)"
    lay = layout(title, "wait at the run node (h)", "jobs completed (cumulative)")
    return {"data": data, "layout": lay}


def wait_curve(groups: dict) -> dict:
    return _curve_figure(groups, tail=False)


def wait_tail(groups: dict) -> dict:
    return _curve_figure(groups, tail=True)


def _values(groups: dict, key: str) -> set:
    return {r.summary.get(key) for runs in groups.values() for r in runs
            if isinstance(r.summary.get(key), (int, float))}


def varies(key: str):
    """``applies`` test: the runs differ in summary ``key`` (e.g. a sweep over alpha)."""
    return lambda groups: len(_values(groups, key)) > 1


def alpha_comparison(groups: dict) -> dict:
    """Fig. 4: median wait of the 10% longest-waiting jobs (left) and the overall median
    (right), per scheduler, one bar per alpha, with 95% CIs over the runs."""
    alphas = sorted(_values(groups, "alpha"))
    data = []
    for a_i, alpha in enumerate(alphas):
        for panel, key in ((1, "wait_top10_median_s"), (2, "wait_median_s")):
            labels, cis = [], []
            for label, runs in groups.items():
                ci = interval(mean_ci([r.summary.get(key) for r in runs
                                       if r.summary.get("alpha") == alpha
                                       and isinstance(r.summary.get(key), (int, float))]),
                              Bounds(0.0), 1 / 3600.0)
                if ci.mean is None:
                    continue
                labels.append(label)
                cis.append(ci)
            # Coloured by alpha (the legend), not by policy: the policies are the x axis.
            data.append({"type": "bar", "name": f"alpha = {alpha:g}", "legendgroup": str(alpha),
                         "showlegend": panel == 1, "x": labels,
                         "y": rounded([c.mean for c in cis]),
                         "marker": {"color": color(a_i)},
                         "error_y": {"type": "data", "symmetric": False, "visible": True,
                                     "array": rounded([c.plus for c in cis]),
                                     "arrayminus": rounded([c.minus for c in cis])},
                         "xaxis": "x" if panel == 1 else "x2",
                         "yaxis": "y" if panel == 1 else "y2"})
    lay = layout("Aging: alpha compared (Fig. 4)", "", "median wait of the top 10% (h)",
                 barmode="group")
    lay["xaxis"]["domain"] = [0.0, 0.46]
    lay["xaxis2"] = {"domain": [0.54, 1.0], "anchor": "y2"}
    lay["yaxis2"] = {"anchor": "x2", "title": {"text": "overall median wait (h)"}}
    lay["annotations"] = [
        {"text": "<b>(a) 10% longest waits</b>", "xref": "paper", "yref": "paper",
         "x": 0.23, "y": 1.02, "showarrow": False, "xanchor": "center"},
        {"text": "<b>(b) all jobs</b>", "xref": "paper", "yref": "paper", "x": 0.77,
         "y": 1.02, "showarrow": False, "xanchor": "center"}]
    return {"data": data, "layout": lay}


def wait_vs_iat(groups: dict, key: str = "wait_median_s") -> dict:
    """Fig. 3: median wait against the mean inter-arrival time, per scheduler (95% CIs)."""
    data = []
    for label, runs in groups.items():
        iats = sorted({r.summary.get("iat_s") for r in runs
                       if isinstance(r.summary.get("iat_s"), (int, float))})
        cis = [interval(mean_ci([r.summary.get(key) for r in runs
                                 if r.summary.get("iat_s") == iat]), Bounds(0.0), 1 / 60.0)
               for iat in iats]
        data.append({"type": "scatter", "mode": "lines+markers", "name": label,
                     "legendgroup": label, "x": iats,
                     "y": rounded([c.mean if c.mean is not None else np.nan for c in cis]),
                     "line": {"color": group_color(label, runs), "width": 1.6},
                     "error_y": {"type": "data", "symmetric": False, "visible": True,
                                 "array": rounded([c.plus for c in cis]),
                                 "arrayminus": rounded([c.minus for c in cis])}})
    return {"data": data, "layout": layout("Median wait vs inter-arrival time (Fig. 3)",
                                           "mean inter-arrival time (s)", "median wait (min)")}


# -- run charts --------------------------------------------------------------------------------
def load_map(result) -> dict:
    """Core utilization (top) and queued jobs (bottom) per node group over time; node groups
    in capability order (cores, speed, memory, disk), so the big nodes are at the top."""
    extra = _part(result, "extra", {}) or {}
    lm = extra.get("load_map") or {}
    t = lm.get("t_min") or []
    hours = rounded(np.asarray(t, dtype=float) / 60.0)
    labels = lm.get("row_label") or []
    rows = list(range(len(labels)))
    data = [
        {"type": "heatmap", "name": "core utilization", "x": hours, "y": rows,
         "z": lm.get("util_pct") or [], "zmin": 0, "zmax": 100, "colorscale": "Viridis",
         "text": [[lab] * len(hours) for lab in labels],
         "hovertemplate": "%{text}<br>t = %{x} h<br>cores busy %{z:.0f}%<extra></extra>",
         "colorbar": {"title": {"text": "% busy"}, "len": 0.45, "y": 0.77}, "yaxis": "y"},
        {"type": "heatmap", "name": "queued jobs", "x": hours, "y": rows,
         "z": lm.get("queued") or [], "zmin": 0, "colorscale": "Reds",
         "text": [[lab] * len(hours) for lab in labels],
         "hovertemplate": "%{text}<br>t = %{x} h<br>queued jobs %{z:.2f}<extra></extra>",
         "colorbar": {"title": {"text": "queued"}, "len": 0.45, "y": 0.23},
         "xaxis": "x2", "yaxis": "y2"},
    ]
    lay = layout("Node load over time", "", "node groups (busy cores)")
    lay["yaxis"].update({"domain": [0.54, 1.0], "showticklabels": False})
    lay["xaxis"].update({"anchor": "y", "matches": "x2", "showticklabels": False})
    lay["xaxis2"] = {"anchor": "y2", "title": {"text": "time (h)"}}
    lay["yaxis2"] = {"domain": [0.0, 0.46], "anchor": "x2", "showticklabels": False,
                     "title": {"text": "node groups (queued jobs)"}}
    lay["height"] = 560
    if not t:
        lay["annotations"] = [{"text": "no load samples in this run", "showarrow": False,
                               "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}]
    return {"data": data, "layout": lay}


def _stride(n: int, budget: int) -> np.ndarray:
    if n <= budget:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, budget).round().astype(np.int64))


def migration_map(result, max_points: int = MAX_POINTS) -> dict:
    """Each migration as a vertical segment at its time from the sending node to the
    receiving one (nodes in capability order), coloured by kind; preemptions as grey marks."""
    extra = _part(result, "extra", {}) or {}
    log = extra.get("migration_log") or {}
    nodes = extra.get("nodes") or {}
    rank = nodes.get("rank") or []
    cores = nodes.get("cores") or []
    speed = nodes.get("speed") or []
    t = np.asarray(log.get("t", []), dtype=float)
    job = log.get("job", [])
    src = log.get("from", [])
    dst = log.get("to", [])
    kind = log.get("kind", [])

    def node_text(u: int) -> str:
        if u < len(cores):
            return f"node {u} ({cores[u]} cores, speed {speed[u]:g})"
        return f"node {u}"

    keep = _stride(t.size, max(1, max_points // 4))
    data = []
    for name in ("push", "pull", "balance"):
        idx = [int(i) for i in keep if kind[i] == name]
        if not idx:
            continue
        xs, ys, mx, my, text = [], [], [], [], []
        for i in idx:
            h = t[i] / 3600.0
            a, b = rank[src[i]], rank[dst[i]]
            xs += [h, h, None]
            ys += [a, b, None]
            mx.append(h)
            my.append(b)
            text.append(f"job {job[i]} {name}ed<br>from {node_text(src[i])}<br>"
                        f"to {node_text(dst[i])}<br>t = {t[i] / 3600.0:.2f} h")
        col = KIND_COLORS[name]
        data.append({"type": "scatter", "mode": "lines", "name": f"{name} path",
                     "legendgroup": name, "showlegend": False, "hoverinfo": "skip",
                     "x": rounded(xs), "y": ys, "line": {"color": col, "width": 1}})
        data.append({"type": "scatter", "mode": "markers", "name": name, "legendgroup": name,
                     "x": rounded(mx), "y": my, "text": text,
                     "customdata": [[job[i]] for i in idx], "meta": {"task": 0},  # its story
                     "hovertemplate": "%{text}<extra></extra>",
                     "marker": {"color": col, "size": 5, "symbol": "triangle-right"}})
    pre = extra.get("preemption_log") or {}
    pt = np.asarray(pre.get("t", []), dtype=float)
    pick = _stride(pt.size, max(1, max_points - sum(len(d["x"]) for d in data)))
    if pick.size:
        pnode = pre.get("node", [])
        pjob = pre.get("job", [])
        data.append({"type": "scatter", "mode": "markers", "name": "preemption",
                     "x": rounded(pt[pick] / 3600.0),
                     "y": [rank[pnode[i]] for i in pick.tolist()],
                     "text": [f"job {pjob[i]} suspended on {node_text(pnode[i])}"
                              for i in pick.tolist()],
                     "customdata": [[pjob[i]] for i in pick.tolist()], "meta": {"task": 0},
                     "hovertemplate": "%{text}<br>t = %{x:.2f} h<extra></extra>",
                     "marker": {"color": "#bbb", "size": 4, "symbol": "x-thin",
                                "line": {"width": 1, "color": "#999"}}})
    title = "Migrations (which job moved where, when)"
    if keep.size < t.size:
        title += f" — showing {keep.size:,} of {t.size:,}"
    lay = layout(title, "time (h)", "node (capability order: small at the bottom)")
    if t.size == 0:
        lay["annotations"] = [{"text": "no migrations in this run (FCFS and local "
                                       "schedulers never migrate)", "showarrow": False,
                               "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5}]
    return {"data": data, "layout": lay}
