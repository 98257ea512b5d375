"""The per-window upper bound on surveillance value (target attributes (ch. 5 spec §1.4), validity
and availability (ch. 5 spec §1.5); one surveil per window, ch. 5 spec A4, new surveil after a
partial one (ch. 5 spec A5)).

A target's surveillance windows are "the time intervals in which a single surveil of the target
should occur" (dissertation §5.2.2), so with ``one_surveil_per_window`` a window is worth at most
one complete surveil: whatever the reading of partial surveils (new surveil after a partial one
(ch. 5 spec A5)), the progress a window credits adds up to at most 1 (``continue``) or the window is
credited with its best surveil (``fresh``). Every piece of a surveil earns ``ρ α γ · Δp`` at the
attributes in force, so a window can earn at most

    max ρ over the window x max over sensor types s of (max α_s over the window
                                                       x max γ_s of any UAV present in it)

and a mission at most the sum over its windows (while the target is present). The simulator
checks every run against this bound; a run above it is a model error, not a result.

The bound reads the whole mission (windows, future events): it is for reporting and checking,
never for policies.
"""

from __future__ import annotations

import math

import numpy as np

from .model import N_SENSORS, Mission


def _segments(mission: Mission):
    """Piecewise-constant attributes: UAV segments (start, end, quality by type) and per
    target segments (start, end, priority, affinity by type); 0 marks an absent sensor/type."""
    H = mission.horizon
    u_state = {}
    u_segs: list[tuple[float, float, np.ndarray]] = []
    for u in mission.uavs:
        q = np.zeros(N_SENSORS)
        for s, (_, quality) in u.sensors.items():
            q[s] = quality
        u_state[u.id] = [u.joined, q]
    t_state = {}
    t_segs: dict[int, list[tuple[float, float, float, np.ndarray]]] = {}
    for t in mission.targets:
        a = np.zeros(N_SENSORS)
        for s, aff in t.allowed.items():
            a[s] = aff
        t_state[t.id] = [t.joined, float(t.priority), a]
        t_segs[t.id] = []

    def close_u(uid, now, keep=True):
        start, q = u_state[uid]
        u_segs.append((start, now, q.copy()))
        if keep:
            u_state[uid][0] = now
        else:
            del u_state[uid]

    def close_t(tid, now, keep=True):
        start, prio, a = t_state[tid]
        t_segs[tid].append((start, now, prio, a.copy()))
        if keep:
            t_state[tid][0] = now
        else:
            del t_state[tid]

    for ev in mission.events:
        if ev.effect == "none" or ev.kind in ("E1", "E5"):
            continue  # added entities start their own segment at ``joined``
        now = ev.time
        if ev.kind in ("E2", "E3", "E4"):
            if ev.uav not in u_state:
                continue
            if ev.effect == "remove":
                close_u(ev.uav, now, keep=False)
                continue
            close_u(ev.uav, now)
            q = u_state[ev.uav][1]
            if ev.kind == "E3":
                q[ev.sensor] = 0.0
            else:
                for s, v in ev.values.items():
                    q[s] = v
        else:
            if ev.target not in t_state:
                continue
            if ev.effect == "remove":
                close_t(ev.target, now, keep=False)
                continue
            close_t(ev.target, now)
            state = t_state[ev.target]
            if ev.kind == "E7":
                state[1] = float(ev.number)
            elif ev.kind == "E9":
                state[2][ev.sensor] = ev.number
            elif ev.kind == "E10":
                state[2][ev.sensor] = 0.0
            elif ev.kind == "E11":
                for s, v in ev.values.items():
                    state[2][s] = v
            # E8 changes T_s only, which the per-window bound does not depend on
    for uid in list(u_state):
        close_u(uid, H, keep=False)
    for tid in list(t_state):
        close_t(tid, H, keep=False)
    return u_segs, t_segs


def window_bounds(mission: Mission) -> list[list[float]]:
    """For every target (in mission order) the bound of each of its windows."""
    u_segs, t_segs = _segments(mission)
    if u_segs:
        us = np.array([s[0] for s in u_segs])
        ue = np.array([s[1] for s in u_segs])
        uq = np.array([s[2] for s in u_segs])
    out = []
    for t in mission.targets:
        bounds = []
        for a, b in t.windows:
            # closed overlaps: an attribute changing exactly at a window edge counts too
            segs = [s for s in t_segs[t.id] if s[0] <= b and s[1] >= a and s[1] > s[0]]
            if not segs or not u_segs:
                bounds.append(0.0)
                continue
            live = (us <= b) & (ue >= a) & (ue > us)
            if not live.any():
                bounds.append(0.0)
                continue
            gamma = uq[live].max(axis=0)
            prio = max(s[2] for s in segs)
            alpha = np.max([s[3] for s in segs], axis=0)
            bounds.append(float(prio * (alpha * gamma).max()))
        out.append(bounds)
    return out


def value_bound(mission: Mission) -> float:
    """The most a mission can earn when each window is worth one complete surveil."""
    return math.fsum(math.fsum(b) for b in window_bounds(mission))


__all__ = ["value_bound", "window_bounds"]
