"""Charts of sweeps and paired comparisons. Pure functions: summary rows in, Plotly dict out.

``rows`` are the sweep table rows of ``simcore.sweep.table`` or an experiment's stored summary:
``{"point": k, "setting": {param: value}, "policy": name, <metric>: {"mean", "low", "high",
"n", ...}}``. Every point carries its index in ``customdata`` so a page can open the point a
user clicks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from .bounds import UNBOUNDED, Bounds, PerPoint, interval
from .charts import CLIP_NOTE, layout, note, rounded
from .sweep import axis_value

ColorOf = Callable[[str], str]


def spans_decades(values: Sequence) -> bool:
    """Positive numeric values whose range covers at least two decades (a log axis reads them)."""
    nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return len(nums) == len(values) and len(nums) > 2 and min(nums) > 0 and \
        max(nums) / min(nums) >= 100


def _ci(row: dict, key: str, bounds: Bounds | PerPoint) -> tuple:
    """(mean, low, high, n, clipped) of a row's metric, the interval kept inside ``bounds``
    (at the row's point, where they differ from point to point)."""
    ci = interval(row.get(key), bounds.at(row.get("point")))
    return ci.mean, ci.low, ci.high, ci.n, ci.clipped


def _band(x, low, high, colour: str, group: str) -> dict | None:
    """The 95% CI as a filled polygon around a line (points without a CI are skipped)."""
    pts = [(a, lo, hi) for a, lo, hi in zip(x, low, high, strict=True)
           if lo is not None and hi is not None]
    if len(pts) < 2:
        return None
    xs = [p[0] for p in pts] + [p[0] for p in reversed(pts)]
    ys = [p[2] for p in pts] + [p[1] for p in reversed(pts)]
    return {"type": "scatter", "mode": "lines", "x": xs, "y": rounded(ys), "fill": "toself",
            "fillcolor": _alpha(colour, 0.15), "line": {"width": 0, "color": colour},
            "hoverinfo": "skip", "showlegend": False, "legendgroup": group}


def _alpha(colour: str, alpha: float) -> str:
    if colour.startswith("#") and len(colour) == 7:
        r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
        return f"rgba({r},{g},{b},{alpha})"
    return colour


def sweep_lines(rows: list[dict], axes: list[dict], key: str, title: str, unit: str,
                policies: Sequence[str], colour_of: ColorOf,
                labels: dict[str, str] | None = None, *, bounds: Bounds | PerPoint = UNBOUNDED,
                axis_titles: dict[str, str] | None = None) -> dict:
    """A metric against the first swept parameter: one line per policy (and per value of a
    second parameter, dashed), the 95% CI as a band kept inside ``bounds``, a log x axis when
    the values span decades. Hover gives mean, CI and n; ``customdata`` holds each point's
    index. ``axis_titles`` names the swept parameters in words (default: their names)."""
    labels = labels or {}
    axis_titles = axis_titles or {}
    clipped_any = False
    param = axes[0]["param"]
    values = list(axes[0]["values"])
    second = axes[1] if len(axes) > 1 else None
    dashes = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
    data = []
    for policy in policies:
        mine = [r for r in rows if r["policy"] == policy]
        for j, other in enumerate(second["values"] if second else [None]):
            chosen = [r for r in mine if second is None
                      or axis_value(r["setting"], second["param"]) == other]
            chosen.sort(key=lambda r: values.index(axis_value(r["setting"], param))
                        if axis_value(r["setting"], param) in values else 0)
            if not chosen:
                continue
            x = [axis_value(r["setting"], param) for r in chosen]
            mean, low, high, n, clipped = zip(*(_ci(r, key, bounds) for r in chosen),
                                              strict=True)
            clipped_any |= any(clipped)
            name = labels.get(policy, policy)
            if second is not None:
                name = f"{name}, {axis_titles.get(second['param'], second['param'])} = {other}"
            colour = colour_of(policy)
            band = _band(x, low, high, colour, name)
            if band:
                data.append(band)
            data.append({
                "type": "scatter", "mode": "lines+markers", "name": name, "legendgroup": name,
                "x": x, "y": rounded([m if m is not None else math.nan for m in mean]),
                "line": {"color": colour, "width": 2, "dash": dashes[j % len(dashes)]},
                "customdata": [[r["point"], lo, hi, k] for r, lo, hi, k
                               in zip(chosen, low, high, n, strict=True)],
                "hovertemplate": (f"{name}<br>{axis_titles.get(param, param)} = %{{x}}"
                                  "<br>mean %{y:.4g}"
                                  "<br>95% CI [%{customdata[1]:.4g}, %{customdata[2]:.4g}]"
                                  "<br>n = %{customdata[3]}<extra></extra>"),
            })
    lay = layout(title, axis_titles.get(param, param), f"{title} ({unit})" if unit else title)
    if spans_decades(values):
        lay["xaxis"]["type"] = "log"
    if clipped_any:
        note(lay, CLIP_NOTE)
    return {"data": data, "layout": lay}


def paired_bars(rows: list[dict], key: str, baseline: str, title: str, unit: str,
                policies: Sequence[str], colour_of: ColorOf,
                labels: dict[str, str] | None = None, *,
                bounds: Bounds | PerPoint = UNBOUNDED) -> dict:
    """Each policy's mean per-trial difference to the baseline (same seed) with its 95% CI,
    kept inside ``bounds`` (the metric's own: a difference lies in its ``difference()``)."""
    labels = labels or {}
    diff = f"{key}:diff"
    shown = [r for p in policies if p != baseline for r in rows if r["policy"] == p]
    names = [labels.get(r["policy"], r["policy"]) for r in shown]
    trace, clipped = _ci_bars(shown, names, diff, colour_of, "difference", " paired trials",
                              bounds.difference())
    what = f"{title} minus {labels.get(baseline, baseline)}"
    lay = layout(f"{title}: difference to {labels.get(baseline, baseline)}", "",
                 f"{what} ({unit})" if unit else what, showlegend=False)
    if clipped:
        note(lay, CLIP_NOTE)
    return {"data": [trace], "layout": lay}


def _ci_bars(shown: list[dict], names: list[str], key: str, colour_of: ColorOf, what: str,
             n_unit: str, bounds: Bounds | PerPoint = UNBOUNDED) -> tuple[dict, bool]:
    """One bar per row: the mean of ``key`` with asymmetric 95% CI error bars kept inside
    ``bounds``; and whether any had to be cut."""
    mean, low, high, n, clipped = zip(*(_ci(r, key, bounds) for r in shown), strict=True) \
        if shown else ((), (), (), (), ())
    return {
        "type": "bar", "x": names, "y": rounded([m if m is not None else math.nan
                                                 for m in mean]),
        "marker": {"color": [colour_of(r["policy"]) for r in shown]},
        "error_y": {"type": "data", "symmetric": False, "visible": True,
                    "array": rounded([(h - m) if None not in (h, m) else 0.0
                                      for h, m in zip(high, mean, strict=True)]),
                    "arrayminus": rounded([(m - lo) if None not in (lo, m) else 0.0
                                           for lo, m in zip(low, mean, strict=True)])},
        "customdata": [[lo, hi, k] for lo, hi, k in zip(low, high, n, strict=True)],
        "hovertemplate": (f"%{{x}}<br>{what} %{{y:.4g}}<br>95% CI [%{{customdata[0]:.4g}}, "
                          f"%{{customdata[1]:.4g}}]<br>n = %{{customdata[2]}}{n_unit}"
                          "<extra></extra>"),
    }, any(clipped)


def point_bars(rows: list[dict], key: str, title: str, unit: str, policies: Sequence[str],
               colour_of: ColorOf, labels: dict[str, str] | None = None, *,
               bounds: Bounds | PerPoint = UNBOUNDED) -> dict:
    """A metric per policy at one point (an experiment without axes): mean with its 95% CI
    kept inside ``bounds``."""
    labels = labels or {}
    shown = [r for p in policies for r in rows if r["policy"] == p]
    names = [labels.get(r["policy"], r["policy"]) for r in shown]
    trace, clipped = _ci_bars(shown, names, key, colour_of, "mean", "", bounds)
    lay = layout(title, "", f"{title} ({unit})" if unit else title, showlegend=False)
    if clipped:
        note(lay, CLIP_NOTE)
    return {"data": [trace], "layout": lay}
