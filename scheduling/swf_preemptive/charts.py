"""Charts of preemption-based backfill experiments (``swf-preemptive``), drawn as in the paper's
Figs. 6-11: one group of bars per processor-count class, one bar per policy (First Fit beside
every victim policy), mean and 95% CI over the seeds.

Experiment charts take ``groups``: ``{policy label: [RunData, ...]}`` (summary keys
``xf_mean_p8``, ``queue_time_mean_s_high_p32``, ...; see ``scheduling.swf_preemptive.result``).
"""

from __future__ import annotations

import re

from simcore.bounds import Bounds, interval
from simcore.charts import group_color, layout, mean_curve, rounded
from simcore.stats import mean_ci

CLASSES = ("high", "medium", "low")
_SIZE = re.compile(r"^jobs_p(\d+)$")


def size_classes(groups: dict) -> list[int]:
    """Processor-count classes present in any run (upper bounds of the bins 1, 2, 4, ...)."""
    found = set()
    for runs in groups.values():
        for r in runs:
            found |= {int(m.group(1)) for k in r.summary if (m := _SIZE.match(k))}
    return sorted(found)


def has_class(name: str):
    """``applies`` hook: the experiment's runs have jobs of this priority class."""
    def applies(groups: dict) -> bool:
        return any((r.summary.get(f"jobs_{name}") or 0) > 0
                   for runs in groups.values() for r in runs)
    return applies


def by_size(groups: dict, metric: str, title: str, ytitle: str, cls: str = "",
            scale: float = 1.0, log_y: bool = False) -> dict:
    """Grouped bars: x = "all" and each size class, one bar per policy, 95% CI error bars.

    ``metric`` is ``xf_mean`` or ``queue_time_mean_s``; ``cls`` restricts to one priority class.
    """
    sizes = size_classes(groups)
    infix = f"_{cls}" if cls else ""
    keys = [f"{metric}{infix}"] + [f"{metric}{infix}_p{b}" for b in sizes]
    counts = [f"jobs{infix}" if cls else "jobs_completed"] + [f"jobs{infix}_p{b}"
                                                              for b in sizes]
    x = ["all"] + [str(b) for b in sizes]
    # An expansion factor is at least 1, a queue time at least 0.
    bounds = Bounds(1.0 if metric.startswith("xf") else 0.0)
    data = []
    for label, runs in groups.items():
        cis, ns = [], []
        for key, count in zip(keys, counts, strict=True):
            cis.append(interval(mean_ci([r.summary.get(key) * scale for r in runs
                                         if isinstance(r.summary.get(key), (int, float))]),
                                bounds))
            jobs = [r.summary.get(count) for r in runs if r.summary.get(count) is not None]
            ns.append(round(sum(jobs) / len(jobs)) if jobs else 0)
        data.append({
            "type": "bar", "name": label, "legendgroup": label, "x": x,
            "y": rounded([c.mean if c.mean is not None else float("nan") for c in cis]),
            "error_y": {"type": "data", "symmetric": False, "visible": True, "thickness": 1,
                        "array": rounded([c.plus for c in cis]),
                        "arrayminus": rounded([c.minus for c in cis])},
            "customdata": ns, "marker": {"color": group_color(label, runs)},
            "hovertemplate": f"{label}<br>%{{x}} processors: %{{y:.4g}} (95% CI "
                             "−%{error_y.arrayminus:.3g} +%{error_y.array:.3g})"
                             "<br>%{customdata} jobs per run<extra></extra>",
        })
    lay = layout(title, "processors per job (size class: up to)", ytitle)
    lay["barmode"] = "group"
    lay["xaxis"]["type"] = "category"
    if log_y:
        lay["yaxis"]["type"] = "log"
    return {"data": data, "layout": lay}


def xf_by_size(groups: dict, cls: str = "") -> dict:
    who = f"{cls.capitalize()} jobs" if cls else "all jobs"
    return by_size(groups, "xf_mean", f"Expansion factor by job size, {who}",
                   "mean expansion factor (log scale)", cls, log_y=True)


def queue_by_size(groups: dict, cls: str = "") -> dict:
    who = f"{cls.capitalize()} jobs" if cls else "all jobs"
    return by_size(groups, "queue_time_mean_s", f"Queue time by job size, {who}",
                   "mean queue time (h)", cls, scale=1 / 3600.0)


def kills_over_time(groups: dict) -> dict:
    """Cumulative preemptions over trace time, mean over the seeds of each policy."""
    data = []
    for label, runs in groups.items():
        t, y = mean_curve(runs, "kills_cum")
        if t is None or not (y > 0).any():
            continue
        data.append({"type": "scatter", "mode": "lines", "name": label, "legendgroup": label,
                     "line": {"color": group_color(label, runs), "width": 1.6, "shape": "hv"},
                     "x": rounded(t / 60.0), "y": rounded(y)})
    return {"data": data, "layout": layout("Preemptions over time (cumulative)",
                                           "time (hours since trace start)", "jobs killed")}
