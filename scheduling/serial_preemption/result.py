"""Turn a finished run into the ``serial-preemption`` :class:`Result` (metric and accounting
(ch. 4 spec §7), outputs (ch. 4 spec §15.3))."""

from __future__ import annotations

import math

import numpy as np

from simcore.accounting import cumulative_per_minute, overlap
from simcore.clock import RunClock
from simcore.result import Result

from .sim import DONE, EPS, RUNNING, STATUS_NAMES, RunRecord, SerialSim, cluster_names
from .workload import Workload


def max_utility(wl: Workload, w0: float, w1: float) -> float:
    """Every task started on arrival on its fastest cluster at full S, pro-rated by its overlap
    with the window (the maximum-utility denominator, maximum-utility window (ch. 4 spec A13))."""
    fastest = wl.etc.min(axis=1)[wl.type]
    inside = overlap(wl.arrival, wl.arrival + fastest, w0, w1)
    return float(np.sum(wl.scale * inside / fastest))


def _pct(num: float, den: float) -> float:
    return 100.0 * num / den if den > 0 else 0.0


def summary_metrics(sim: SerialSim, wl: Workload) -> dict:
    """The run's ``Result.summary`` (docs/ch4.md, Result)."""
    w0, w1 = sim.window
    crit = sim.t_crit
    arrived = (wl.arrival >= w0) & (wl.arrival < w1)
    completed = (sim.status == DONE) & (sim.end >= w0 - EPS) & (sim.end <= w1 + EPS)
    utility = float(sim.credit.sum())
    maxu = max_utility(wl, w0, w1)
    # Critical completion is per arrival cohort (bounded by 100%): critical tasks that arrived
    # in the window and completed by the end of the run.
    crit_done = int(np.count_nonzero((sim.status == DONE) & arrived & crit))
    crit_total = int(np.count_nonzero(arrived & crit))
    done = int(np.count_nonzero(completed))
    total = int(np.count_nonzero(arrived))
    return {
        "utility": utility,
        "max_utility": maxu,
        "pct_max_utility": _pct(utility, maxu),
        "utility_critical": float(sim.credit[crit].sum()),
        "utility_noncritical": float(sim.credit[~crit].sum()),
        "critical_completed": crit_done,
        "critical_total": crit_total,
        "pct_critical_completed": _pct(crit_done, crit_total),
        "tasks_total": total,
        "tasks_completed": done,
        "pct_tasks_completed": _pct(done, total),
        "tasks_dropped": int(sim.dropped),
        "preemptions": int(sim.preemptions),
        "mapping_events": int(sim.event + 1),
    }


def per_minute(rec: RunRecord) -> dict:
    sim = rec.sim
    horizon = int(math.ceil(sim.duration - 1e-9))
    minutes = np.arange(horizon + 1)
    ev_min = np.floor(np.asarray(rec.event_t) + EPS).astype(np.int64)
    last = np.searchsorted(ev_min, minutes, side="right") - 1
    last = np.maximum(last, 0)
    booked = (sim.status == DONE) | (sim.status == RUNNING)
    booked &= ~np.isnan(sim.end)

    def level(values):
        return np.asarray(values, dtype=np.int64)[last].tolist()

    return {
        "t_min": minutes.tolist(),
        "utility_cum": cumulative_per_minute(sim.end[booked], sim.credit[booked],
                                             horizon).tolist(),
        "mappable": level(rec.mappable),
        "running": level(rec.running),
        "preemptions": np.bincount(np.clip(ev_min, 0, horizon),
                                   weights=np.asarray(rec.preempted, float),
                                   minlength=horizon + 1)[: horizon + 1].astype(np.int64).tolist(),
        "critical_running": level(rec.critical_running),
    }


def task_table(sim: SerialSim, wl: Workload) -> dict:
    def floats(a):
        return [None if x != x else x for x in a.tolist()]

    return {
        "id": list(range(wl.n_tasks)),
        "type": wl.type.tolist(),
        "critical": sim.t_crit.tolist(),
        "arrival": wl.arrival.tolist(),
        "start": floats(sim.first_start),
        "end": floats(sim.end),
        "cluster": sim.last_cluster.tolist(),
        "utility": sim.util.tolist(),
        "credit": sim.credit.tolist(),
        "preemptions": sim.npre.tolist(),
        "status": sim.status.astype(np.int64).tolist(),
    }


def extra(sim: SerialSim, wl: Workload, cfg, policy) -> dict:
    names = cluster_names(sim.K)
    u = cfg.utility
    if wl.classes is not None:
        classes = [{"class": i, **c.public()} for i, c in enumerate(wl.classes)]
    elif u.family == "step":
        classes = [{"class": 0, "shape": "step", "critical_window": "E_k",
                    "noncritical_window": f"{u.step_noncritical_factor:g} E_k",
                    "inclusive": True}]
    else:
        classes = [{"class": 0, "shape": "decay", "flat_until": "E_k",
                    "decay_length_min": u.decay_length_min,
                    "rate_per_min": u.urgency / u.urgency_time_unit_min, "inclusive": True}]
    cores = np.asarray(sim.log_core, dtype=np.int64)
    out = {
        "preemption_log": {
            "t": list(sim.log_t),
            "task": list(sim.log_task),
            "cluster": sim.core_cluster[cores].tolist() if cores.size else [],
            "core": cores.tolist(),
            "kind": ["resume" if k else "suspend" for k in sim.log_kind],
        },
        "utility_family": u.family,
        "utility_classes": classes,
        "clusters": [{"index": j, "name": names[j], "cores": int(c),
                      "first_core": int(np.sum(wl.cores[:j]))}
                     for j, c in enumerate(wl.cores.tolist())],
        "etc": wl.etc.tolist(),
        "critical_type": wl.critical_type.tolist(),
        "average_time": (wl.avg_time.tolist() if wl.avg_time is not None else None),
        "window_min": list(sim.window),
        "status_codes": {str(k): v for k, v in STATUS_NAMES.items()},
        "tasks_generated": wl.n_tasks,
        "bursts": int(wl.info.get("bursts", 0)),
    }
    counters = getattr(policy, "counters", None)
    if counters is not None:
        out["policy_stats"] = counters()
    return out


def build_result(rec: RunRecord, wl: Workload, cfg, clock: RunClock) -> Result:
    sim = rec.sim
    return Result(
        summary=summary_metrics(sim, wl),
        series=per_minute(rec),
        tasks=task_table(sim, wl),
        events={"t_min": list(rec.event_t), "mappable": list(rec.mappable),
                "dropped": list(rec.dropped), "assigned": list(rec.assigned),
                "preempted": list(rec.preempted)},
        extra=extra(sim, wl, cfg, rec.policy),
        timing=clock.timing(),
    )
