"""Turn a finished :class:`Simulator` into a :class:`UavResult` (summary, series, surveils)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.clock import RunClock
from simcore.result import Result

from .model import EVENT_TYPES, SENSORS
from .sim import PREEMPTED, REASONS, Simulator

EVENT_NAMES = {code: label for code, _, label in EVENT_TYPES}


@dataclass
class UavResult(Result):
    """A Result whose ``tasks`` are the per-surveil records (ARCHITECTURE calls them surveils)."""

    @property
    def surveils(self) -> dict:
        return self.tasks


def _integral(a: np.ndarray, b: np.ndarray, amount: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Cumulative ``amount`` spread uniformly over each ``[a, b)``, evaluated on ``grid``."""
    if a.size == 0:
        return np.zeros_like(grid)
    dur = b - a
    point = dur <= 0
    rate = np.divide(amount, dur, out=np.zeros_like(amount), where=~point)
    # piecewise-linear: slope changes by +rate at a and -rate at b; point amounts jump at a
    knots = np.concatenate([a, b])
    slope = np.concatenate([rate, -rate])
    jump = np.concatenate([np.where(point, amount, 0.0), np.zeros_like(amount)])
    order = np.argsort(knots, kind="stable")
    knots, slope, jump = knots[order], slope[order], jump[order]
    cum_slope = np.cumsum(slope)
    # value at each knot (after applying the knot's jump)
    gaps = np.diff(knots, prepend=knots[0])
    prev_slope = np.concatenate([[0.0], cum_slope[:-1]])
    at_knot = np.cumsum(prev_slope * gaps + jump)
    idx = np.searchsorted(knots, grid, side="right") - 1
    out = np.zeros_like(grid)
    ok = idx >= 0
    out[ok] = at_knot[idx[ok]] + cum_slope[idx[ok]] * (grid[ok] - knots[idx[ok]])
    return out


def _active(starts: np.ndarray, ends: np.ndarray, grid: np.ndarray) -> np.ndarray:
    s = np.sort(starts)
    e = np.sort(ends)
    return (np.searchsorted(s, grid, side="right") - np.searchsorted(e, grid, side="right"))


def series(sim: Simulator) -> dict:
    horizon_min = int(round(sim.horizon * 60))
    t_min = np.arange(horizon_min + 1, dtype=float)
    grid = t_min / 60.0
    if sim.pieces:
        pu, pa, pb, pv, pe = (np.asarray(c) for c in zip(*sim.pieces, strict=True))
        pu = pu.astype(np.int64)
    else:
        pu = np.zeros(0, np.int64)
        pa = pb = pv = pe = np.zeros(0)
    value_cum = _integral(pa, pb, pv, grid)
    energy = {}
    for u in range(sim.n_uavs):
        sel = pu == u
        rem = sim.uav_energy_total[u] - _integral(pa[sel], pb[sel], pe[sel], grid)
        rem = np.maximum(rem, 0.0)
        alive = (grid >= sim.uav_joined[u]) & (grid < sim.uav_left[u])
        energy[str(u + 1)] = np.where(alive, np.round(rem, 6), np.nan)
    sv = sim.surveils
    starts = np.array([s.start for s in sv], float)
    ends = np.array([s.end for s in sv], float)
    return {
        "t_min": t_min,
        "value_cum": np.round(value_cum, 6),
        "energy_remaining": energy,
        # Linear pace as a fraction of each UAV's capacity: pace(u, t) = E_tot(u) x this.
        "energy_pace": np.round(1.0 - grid / sim.horizon, 6),
        "active_surveils": _active(starts, ends, grid) if sv else np.zeros_like(grid, int),
    }


def surveil_records(sim: Simulator) -> dict:
    sv = sim.surveils
    return {
        "id": [s.id + 1 for s in sv],
        "uav": [s.uav + 1 for s in sv],
        "sensor": [SENSORS[s.sensor] for s in sv],
        "target": [s.target + 1 for s in sv],
        "priority": [s.priority for s in sv],
        "start": [s.start * 60.0 for s in sv],
        "end": [s.end * 60.0 for s in sv],
        "value": [s.value for s in sv],
        "progress": [s.progress for s in sv],
        "energy": [s.energy for s in sv],
        "vpe_at_start": [s.vpe for s in sv],
        "preempted": [s.reason == PREEMPTED for s in sv],
        "split": [s.split for s in sv],
        "partial": [s.reason != "complete" for s in sv],
        "reason": [s.reason for s in sv],
        "mode": [s.mode for s in sv],
        "travel_min": [s.flown * 60.0 for s in sv],
    }


def _events(sim: Simulator) -> dict:
    recs = sim.map_records
    keys = ["t_min", "assigned", "preempted"]
    for r in recs:
        keys += [k for k in r if k not in keys]
    return {k: [r.get(k, "" if k == "chosen" else 0) for r in recs] for k in keys}


def _extra(sim: Simulator) -> dict:
    m = sim.mission
    evs = sim.applied_events
    extra = {
        "horizon_min": sim.horizon * 60.0,
        "sensor_types": list(SENSORS),
        "dynamic_events": {
            "t_min": [e.time * 60.0 for e in evs],
            "type": [e.kind for e in evs],
            "name": [EVENT_NAMES[e.kind] for e in evs],
            "uav": [e.uav for e in evs],
            "target": [e.target for e in evs],
            "effect": [e.effect for e in evs],
            "detail": [e.detail() for e in evs],
        },
        "uavs": {
            "id": [u.id for u in m.uavs],
            "energy_total": [u.energy_total for u in m.uavs],
            "sensors": [u.describe() for u in m.uavs],
            "joined_min": [u.joined * 60.0 for u in m.uavs],
            "left_min": [None if not np.isfinite(x) else x * 60.0 for x in sim.uav_left],
            "energy_used": sim.uav_energy_used.copy(),
            "value": sim.uav_value.copy(),
        },
        "targets": {
            "id": [t.id for t in m.targets],
            "priority": [t.priority for t in m.targets],
            "surveil_time_h": [t.surveil_time for t in m.targets],
            "allowed": [t.describe() for t in m.targets],
            "joined_min": [t.joined * 60.0 for t in m.targets],
            "left_min": [None if not np.isfinite(x) else x * 60.0 for x in sim.target_left],
            "windows_min": [[[a * 60.0, b * 60.0] for a, b in t.windows] for t in m.targets],
        },
    }
    if sim.geometry is not None:
        extra["geometry"] = {
            "base_km": list(m.base),
            "target_x_km": [t.x for t in m.targets],
            "target_y_km": [t.y for t in m.targets],
        }
    return extra


def summary_metrics(sim: Simulator) -> dict:
    """The run's ``Result.summary``: value, energy, surveil counts by end reason, value by
    priority (``run`` in ``__init__`` adds the per-window bound and the Random comparison)."""
    sv = sim.surveils
    value = float(sum(s.value for s in sv))
    used = float(sim.uav_energy_used.sum())
    reasons = {r: 0 for r in REASONS}
    for s in sv:
        reasons[s.reason] += 1
    n_uavs = sim.n_uavs
    out = {
        "value": value,
        "energy_used_total": used,
        "energy_used_per_uav_mean": used / n_uavs if n_uavs else 0.0,
        "energy_capacity_total": float(sim.uav_energy_total.sum()),
        "surveils_started": len(sv),
        "surveils_completed": reasons["complete"],
        "surveils_partial": len(sv) - reasons["complete"],
        "surveils_preempted": reasons["preempted"],
        "surveils_split": sum(s.split for s in sv),
        "uavs_total": n_uavs,
        "targets_total": sim.n_targets,
        "mapping_events": len(sim.map_records),
        "dynamic_events": sum(e.effect != "none" for e in sim.applied_events),
    }
    for r in REASONS:
        out[f"ended_{r}"] = reasons[r]
    for p in range(1, 11):
        out[f"value_priority_{p}"] = float(sum(s.value for s in sv if s.priority == p))
    if sim.geometry is not None:
        out["flight_hours_total"] = float(sum(s.flown for s in sv))
        out["flight_energy_total"] = sim.flight_energy
    return out


def build_result(sim: Simulator, clock: RunClock) -> UavResult:
    timing = clock.timing()
    cpu = np.asarray(sim.event_cpu_seconds) * 1000.0
    timing["event_cpu_ms"] = cpu.tolist()
    if cpu.size:
        timing["event_cpu_ms_mean"] = float(cpu.mean())
        timing["event_cpu_ms_p95"] = float(np.percentile(cpu, 95))
        timing["event_cpu_ms_max"] = float(cpu.max())
    return UavResult(summary=summary_metrics(sim), series=series(sim), tasks=surveil_records(sim),
                     events=_events(sim), extra=_extra(sim), timing=timing)
