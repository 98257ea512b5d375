"""System utility in the analysed window W, maximum utility, energy, and the Result (problem and
metrics (ch. 3 spec §4)).

W = [warm-up, sim end). A task that executes partly inside W credits that fraction of its final
utility (system utility of the day (ch. 3 spec §4.1)); tasks still running at the end are credited
with their (deterministic) future completion. The maximum utility starts every task at its arrival
on its fastest option (maximum system utility (ch. 3 spec §4.2)).
"""

from __future__ import annotations

import numpy as np

from simcore.accounting import cumulative_per_minute, overlap, prorated
from simcore.result import Result

from .energy import GJ
from .state import DROPPED, STARTED, State


def cumulative(start, end, weight, times) -> np.ndarray:
    """sum_i weight_i |[start_i, end_i) ∩ [0, t)| at each t, in O((n + m) log n)."""
    times = np.asarray(times, float)
    out = np.zeros(times.shape)
    for edge, sign in ((np.asarray(start, float), 1.0), (np.asarray(end, float), -1.0)):
        order = np.argsort(edge, kind="stable")
        e, w = edge[order], np.asarray(weight, float)[order]
        cw = np.concatenate(([0.0], np.cumsum(w)))
        cwe = np.concatenate(([0.0], np.cumsum(w * e)))
        k = np.searchsorted(e, times, side="right")
        out += sign * (times * cw[k] - cwe[k])
    return out


def max_utility(st: State) -> float:
    """Every task started at arrival on its fastest option, pro-rated on W (maximum system utility
    (ch. 3 spec §4.2), ch. 3 spec A16)."""
    tr = st.trial
    a = tr.tasks.arrival
    tmin = st.options.t_min
    ok = np.isfinite(tmin)
    if tr.cfg.scheduler.max_utility_scope == "arrived-in-window":
        ok &= a >= tr.warmup
    u0 = st.utility.scale
    inside = overlap(a[ok], a[ok] + tmin[ok], tr.warmup, tr.sim_end)
    return float(prorated(u0[ok], inside, tmin[ok]).sum())


def _sample_events(values, n_minutes: int, interval: float) -> list:
    """Per-minute samples of per-event values (the last event at or before each minute)."""
    n = len(values)
    if n == 0:
        return [None] * (n_minutes + 1)
    idx = np.minimum((np.arange(n_minutes + 1) * 60.0 // interval).astype(np.int64), n - 1)
    if isinstance(values, np.ndarray):
        return values[idx]
    return [values[i] for i in idx]


def build_result(st: State, events: dict, is_meta: bool) -> Result:
    tr = st.trial
    opts = st.options
    cfg = tr.cfg
    n = tr.tasks.n
    W0, W1 = tr.warmup, tr.sim_end
    started = np.flatnonzero(st.status == STARTED)
    s, e = st.start[started], st.end[started]
    c, p = st.cluster[started], st.pstate[started]
    power = opts.power[started, c, p]
    utility = st.utility.value(started, e)
    credit = prorated(utility, overlap(s, e, W0, W1), e - s)

    idle = cfg.energy.idle_power_w
    nodes_total = float(tr.system.nodes.sum())
    n_nodes = opts.nodes[started, c].astype(float)

    def consumed(times):
        times = np.asarray(times, float)
        task = cumulative(s, e, power, times)
        if idle <= 0:
            return task
        busy = cumulative(s, e, n_nodes, times)
        return task + idle * (nodes_total * times - busy)

    minutes = int(round(W1 / 60.0))
    t_min = np.arange(minutes + 1)
    t_sec = t_min * 60.0
    ledger = st.ledger
    cum = consumed(t_sec)
    # Minute m shows the state at the end of that minute, so a day's last sample (e.g. 28 h)
    # still belongs to it and the energy line reaches the day's total.
    day_idx = np.array([ledger.day_of(t - 1e-6) if t > 0 else 0 for t in t_sec])
    day_start = ledger.bounds[day_idx]
    energy_day = cum - consumed(day_start)
    constrained = ledger.constrained
    budget_series = [float(ledger.budget[d]) / GJ if constrained and np.isfinite(
        ledger.budget[d]) else None for d in day_idx]
    goal_series = [float(ledger.budget[d] * (t - ledger.bounds[d])
                         / (ledger.bounds[d + 1] - ledger.bounds[d])) / GJ
                   if b is not None else None
                   for t, d, b in zip(t_sec, day_idx, budget_series, strict=True)]
    starts_sorted = np.sort(s)
    ends_sorted = np.sort(e)
    running = (np.searchsorted(starts_sorted, t_sec, side="right")
               - np.searchsorted(ends_sorted, t_sec, side="right"))
    interval = cfg.time.mapping_interval_s
    series = {
        "t_min": t_min,
        "utility_cum": cumulative_per_minute(e / 60.0, credit, minutes),
        "energy_day_gj": energy_day / GJ,
        "goal_energy_gj": goal_series,
        "budget_gj": budget_series,
        "mappable": _sample_events(events["mappable"], minutes, interval),
        "running": running,
        "reserved": _sample_events(events["reserved"], minutes, interval),
    }
    if is_meta:
        series["chosen"] = _sample_events(events["chosen"], minutes, interval)

    # Per-task records, one row per task that arrived.
    arrived = tr.tasks.arrival < W1
    ids = np.flatnonzero(arrived)
    util_all = np.full(n, np.nan)
    credit_all = np.full(n, np.nan)
    energy_all = np.full(n, np.nan)
    util_all[started] = utility
    credit_all[started] = credit
    energy_all[started] = power * (e - s)
    status = np.full(n, "unscheduled", dtype=object)
    status[st.status == DROPPED] = "dropped"
    done = np.zeros(n, dtype=bool)
    done[started] = e <= W1 + 1e-9
    status[started] = "running"
    status[done] = "completed"

    def col(values, kind=float):
        out = []
        for i in ids:
            v = values[i]
            if kind is float:
                out.append(None if not np.isfinite(v) else float(v))
            else:
                out.append(None if v < 0 else int(v))
        return out

    nodes_used = np.full(n, -1, dtype=np.int64)
    nodes_used[started] = opts.nodes[started, c]
    tasks = {
        "id": ids.tolist(),
        "type": tr.tasks.type[ids].tolist(),
        "priority": st.utility.scale[ids].tolist(),
        "arrival": tr.tasks.arrival[ids].tolist(),
        "start": col(st.start),
        "end": col(st.end),
        "cluster": col(st.cluster, int),
        "pstate": col(st.pstate, int),
        "nodes": col(nodes_used, int),
        "node_ids": [None if st.node_ids[i] is None or st.status[i] != STARTED
                     else st.node_ids[i].tolist() for i in ids],
        "utility": col(util_all),
        "credit": col(credit_all),
        "energy_j": col(energy_all),
        "status": status[ids].tolist(),
    }

    max_u = max_utility(st)
    total_u = float(credit.sum())
    energy_w = float(consumed([W1])[0] - consumed([W0])[0])
    waits = (s - tr.tasks.arrival[started]) / 60.0
    chosen = [x for x in events["chosen"] if x is not None]
    days = []
    bounds = ledger.bounds
    per_day = consumed(bounds)
    for d in range(ledger.days):
        lo, hi = float(bounds[d]), float(bounds[d + 1])
        if lo >= W1:
            break
        b = ledger.budget[d]
        days.append({"day": d, "start_h": lo / 3600.0, "end_h": hi / 3600.0,
                     "budget_gj": float(b) / GJ if np.isfinite(b) else None,
                     "consumed_gj": float(per_day[d + 1] - per_day[d]) / GJ,
                     "committed_gj": float(ledger.committed[d]) / GJ})
    budget = cfg.energy.budget_gj
    summary = {
        "utility": total_u,
        "max_utility": max_u,
        "pct_max_utility": 100.0 * total_u / max_u if max_u > 0 else 0.0,
        "energy_gj": energy_w / GJ,
        "energy_budget_gj": budget,
        "energy_pct_budget": 100.0 * energy_w / GJ / budget if budget else None,
        "tasks_total": int(arrived.sum()),
        "tasks_completed": int((status[ids] == "completed").sum()),
        "tasks_running_at_end": int((status[ids] == "running").sum()),
        "tasks_dropped": int((status[ids] == "dropped").sum()),
        "tasks_unscheduled": int((status[ids] == "unscheduled").sum()),
        "reservations_cancelled": st.cancelled,
        "wait_mean_min": float(waits.mean()) if waits.size else 0.0,
        "mapping_events": int(len(events["t_min"])),
        "mappable_mean": float(np.mean(events["mappable"])) if len(events["mappable"]) else 0.0,
    }
    if is_meta:
        summary["upe_fraction"] = (sum(x == "upe" for x in chosen) / len(chosen)) if chosen else 0.0
    extra = {
        "clusters": tr.system.public(),
        "utility_classes": st.utility.describe(),
        "utility_time_unit_h": cfg.utility.time_unit_h,
        "window_s": [W0, W1],
        "days": days,
        "types": tr.types.public(),
    }
    if tr.tasks.info:
        extra["trace"] = tr.tasks.info
    series = {k: v.tolist() if isinstance(v, np.ndarray) else list(v) for k, v in series.items()}
    events = {k: v.tolist() if isinstance(v, np.ndarray) else list(v) for k, v in events.items()}
    return Result(summary=summary, series=series, tasks=tasks, events=events, extra=extra)
