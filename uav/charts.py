"""Charts of UAV mission results: pure functions from results to Plotly figure dicts.

No Django. Every function accepts a :class:`~simcore.result.Result` (or the dict of
``Result.to_dict()``), returns ``{"data": [...], "layout": {...}}`` of plain JSON types, and
keeps each trace to about 2,000 points so pages stay light. Comparisons across policies (bars
with CIs, value over time) use the shared ``simcore.charts`` functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from simcore.charts import color, layout

MAX_POINTS = 2000  # per trace
TOTAL_POINTS = 60000  # per figure, for many-UAV line charts
# priority 1 .. 10: Turbo in 10 distinct steps, dark blue (low) to dark red (high)
PRIORITY_COLORS = ["#30123b", "#4662d7", "#36aaf9", "#1ae4b6", "#72fe5e", "#c8ef34", "#faba39",
                   "#f66b19", "#cb2a04", "#7a0403"]
UAV_EVENTS = {"E1", "E2", "E3", "E4"}
# One symbol and one colour per event type, so that no two types look alike (E1 add UAV and
# E5 add target used to share a triangle).
EVENT_SYMBOLS = {"E1": "triangle-up", "E2": "x", "E3": "triangle-down", "E4": "diamond",
                 "E5": "star-triangle-up", "E6": "square", "E7": "star", "E8": "hourglass",
                 "E9": "cross", "E10": "pentagon", "E11": "hexagon"}
EVENT_COLORS = {"E1": "#1b9e77", "E2": "#d95f02", "E3": "#7570b3", "E4": "#e7298a",
                "E5": "#66a61e", "E6": "#a6761d", "E7": "#e6ab02", "E8": "#1f78b4",
                "E9": "#b2182b", "E10": "#525252", "E11": "#8c510a"}
EVENT_LANE = "target events"


def _part(result, name: str) -> dict:
    return result.get(name, {}) if isinstance(result, dict) else getattr(result, name)


def _num(v, digits: int = 6):
    if v is None:
        return None
    v = float(v)
    return None if not math.isfinite(v) else float(f"{v:.{digits}g}")


def _step(n: int, traces: int = 1) -> int:
    """Sampling stride keeping a trace under MAX_POINTS and the figure under TOTAL_POINTS."""
    per_trace = min(MAX_POINTS, max(TOTAL_POINTS // max(traces, 1), 50))
    return max(1, math.ceil(n / per_trace))


def _sample(values: Sequence, step: int) -> list:
    values = list(values)
    if step <= 1 or not values:
        return values
    out = values[::step]
    if (len(values) - 1) % step:
        out.append(values[-1])  # keep the end of the day
    return out


def _lane(uav) -> str:
    return f"UAV {uav}"


def mission_timeline(result) -> dict:
    """Gantt chart: a lane per UAV, surveils coloured by target priority, dynamic events marked.

    Preempted surveils have an outline (white on the two darkest colours, black otherwise), split
    ones (an attribute changed mid-surveil) are
    hatched. Hover shows target, sensor, value, times and why the surveil ended.
    """
    sv = _part(result, "tasks")
    extra = _part(result, "extra")
    uav_ids = list(extra.get("uavs", {}).get("id", [])) or sorted(set(sv.get("uav", [])))
    lanes = [_lane(u) for u in uav_ids]
    n = len(sv.get("uav", []))
    by_priority: dict[int, list[int]] = {}
    for i in range(n):
        by_priority.setdefault(int(sv["priority"][i]), []).append(i)
    data = []
    for prio in sorted(by_priority):
        idx = by_priority[prio]
        if len(idx) > MAX_POINTS:  # keep the longest bars
            idx = sorted(idx, key=lambda i: sv["start"][i] - sv["end"][i])[:MAX_POINTS]
            idx.sort()
        starts = [sv["start"][i] / 60.0 for i in idx]
        data.append({
            "type": "bar", "orientation": "h", "name": f"priority {prio}",
            "legendgroup": "priority",
            "y": [_lane(sv["uav"][i]) for i in idx],
            "base": [_num(s) for s in starts],
            "x": [_num(max(sv["end"][i] / 60.0 - s, 1e-3)) for i, s in zip(idx, starts,
                                                                           strict=True)],
            "marker": {
                "color": PRIORITY_COLORS[min(max(prio, 1), 10) - 1],
                # outline visible on the darkest colours too
                "line": {"color": "#ffffff" if prio <= 2 else "#000000",
                         "width": [2 if sv["preempted"][i] else 0 for i in idx]},
                "pattern": {"shape": ["/" if sv["split"][i] else "" for i in idx]},
            },
            "customdata": [[sv["target"][i], sv["sensor"][i], _num(sv["value"][i], 5),
                            _num(sv["start"][i] / 60.0, 4), _num(sv["end"][i] / 60.0, 4),
                            sv["reason"][i].replace("_", " ") if "reason" in sv else "",
                            sv["id"][i] if "id" in sv else None]
                           for i in idx],
            "meta": {"task": 6},  # customdata[6] is the surveil: a click opens its story
            "hovertemplate": ("target %{customdata[0]} with %{customdata[1]}<br>"
                              "value %{customdata[2]}<br>%{customdata[3]} h - %{customdata[4]} h"
                              "<br>ended: %{customdata[5]}<extra>priority " + str(prio)
                              + "</extra>"),
        })
    dyn = extra.get("dynamic_events", {})
    types = dyn.get("type", [])
    effects = dyn.get("effect") or ["update"] * len(types)
    groups: dict[str, list[int]] = {}
    for i, code in enumerate(types):
        if effects[i] != "none":  # no-op events (nothing present to act on) are not drawn
            groups.setdefault(code, []).append(i)
    has_target_lane = False
    for code in sorted(groups, key=lambda c: int(c[1:])):
        idx = groups[code][:MAX_POINTS]
        on_uav = code in UAV_EVENTS
        has_target_lane |= not on_uav
        data.append({
            "type": "scatter", "mode": "markers", "name": f"{code} {dyn['name'][idx[0]]}",
            "legendgroup": "events",
            "x": [_num(dyn["t_min"][i] / 60.0, 5) for i in idx],
            "y": [_lane(dyn["uav"][i]) if on_uav else EVENT_LANE for i in idx],
            "marker": {"symbol": EVENT_SYMBOLS.get(code, "circle"), "size": 10,
                       "color": EVENT_COLORS.get(code, "#222222"),
                       "line": {"width": 1, "color": "#ffffff"}},
            "text": [(f"UAV {dyn['uav'][i]}" if on_uav else f"target {dyn['target'][i]}")
                     + f": {dyn['detail'][i]}" for i in idx],
            "hovertemplate": "%{x:.2f} h<br>%{text}<extra>" + code + "</extra>",
        })
    order = ([EVENT_LANE] if has_target_lane else []) + lanes
    height = max(320, 24 * len(order) + 140)
    lay = layout("Mission timeline", "time (h)", "", barmode="overlay", height=height,
                 bargap=0.25)
    horizon = extra.get("horizon_min", 1440) / 60.0
    lay["xaxis"].update({"range": [0, horizon], "dtick": 2 if horizon > 8 else 1})
    lay["yaxis"].update({"type": "category", "categoryorder": "array",
                         "categoryarray": list(reversed(order)), "automargin": True})
    lay["legend"] = {"orientation": "v", "x": 1.01, "y": 1, "font": {"size": 11}}
    return {"data": data, "layout": lay}


def energy_remaining(result, normalized: bool = True) -> dict:
    """Energy remaining per UAV against the linear pace line that runs dry at the end of day.

    ``normalized`` plots the fraction of each UAV's capacity against the single pace line
    ``1 - t/24`` (the Metaheuristic compares exactly these); otherwise absolute energy with one
    dashed pace line ``E_tot x (1 - t/24)`` per UAV.
    """
    series = _part(result, "series")
    extra = _part(result, "extra")
    t = series.get("t_min", [])
    curves = series.get("energy_remaining", {})
    if isinstance(curves, list):
        curves = {str(i + 1): c for i, c in enumerate(curves)}
    caps = dict(zip((str(u) for u in extra.get("uavs", {}).get("id", [])),
                    extra.get("uavs", {}).get("energy_total", []), strict=False))
    pace = series.get("energy_pace", [])
    traces = len(curves) * (1 if normalized else 2) + 1
    step = _step(len(t), traces)
    x = [_num(v / 60.0, 5) for v in _sample(t, step)]
    data = []
    for k, (uid, curve) in enumerate(curves.items()):
        cap = caps.get(uid) or 1.0
        ys = [None if v is None else v / cap if normalized else v for v in _sample(curve, step)]
        data.append({"type": "scatter", "mode": "lines", "name": _lane(uid),
                     "legendgroup": _lane(uid), "x": x, "y": [_num(v, 5) for v in ys],
                     "line": {"color": color(k), "width": 1.4},
                     "hovertemplate": "%{x:.2f} h: %{y:.3f}<extra>" + _lane(uid) + "</extra>"})
        if not normalized:
            data.append({"type": "scatter", "mode": "lines", "name": f"pace {_lane(uid)}",
                         "legendgroup": _lane(uid), "showlegend": False, "x": x,
                         "y": [_num(cap * p, 5) for p in _sample(pace, step)],
                         "line": {"color": color(k), "width": 1, "dash": "dot"},
                         "hoverinfo": "skip"})
    if normalized:
        data.append({"type": "scatter", "mode": "lines", "name": "linear pace",
                     "x": x, "y": [_num(p, 5) for p in _sample(pace, step)],
                     "line": {"color": "#000000", "width": 2, "dash": "dash"}})
    ytitle = "energy remaining (fraction of capacity)" if normalized else "energy remaining"
    lay = layout("Energy remaining per UAV", "time (h)", ytitle)
    lay["legend"] = {"orientation": "v", "x": 1.01, "y": 1, "font": {"size": 11}}
    if normalized:
        lay["yaxis"]["range"] = [0, 1.02]
    return {"data": data, "layout": lay}


__all__ = ["energy_remaining", "mission_timeline"]
