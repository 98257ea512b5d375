"""Scenario generator (scenario generation (ch. 5 spec §6)): fleet, targets with hidden windows,
resolved dynamic events.

``generate(config, seed)`` draws from ``rng(seed, "mission")`` only, so the mission is the same
for every policy (common random numbers). Positions for the optional geometry model come from
their own stream, so switching geometry on leaves the fleet, targets and events unchanged.
"""

from __future__ import annotations

import math

import numpy as np

from simcore.sampling import rng as stream

from .config import SENSORS, UavConfig, beta_params, gamma_params
from .model import EVENT_TYPES, N_SENSORS, SENSOR_INDEX, DynamicEvent, Mission, TargetSpec, UavSpec


class Draws:
    """The spec's distributions with the parameters of one config."""

    def __init__(self, cfg: UavConfig, gen: np.random.Generator):
        self.cfg = cfg
        self.gen = gen
        self.floor = cfg.integerize == "floor"
        self.e_tot = beta_params(cfg.energy_total_mean, cfg.energy_total_mean * cfg.energy_total_cv)
        self.e_rate = beta_params(cfg.energy_rate_mean, cfg.energy_rate_mean * cfg.energy_rate_cv)
        self.quality_ab = beta_params(cfg.quality_mean, cfg.quality_mean * cfg.quality_cv)
        self.affinity_ab = beta_params(cfg.affinity_mean, cfg.affinity_mean * cfg.affinity_cv)
        self.prio = gamma_params(cfg.priority_mean, cfg.priority_cv)
        self.win = gamma_params(cfg.window_duration_mean, cfg.window_duration_cv)
        w = np.asarray(cfg.sensor_type_weights, float)
        self.type_weights = w / w.sum()

    def integer(self, x: float) -> int:
        """The spec's "integerize 1-10" rule: floor or ceil, clamped to 1..10 (beta draws to
        integers (ch. 5 spec A2), priority to integer (ch. 5 spec A3))."""
        v = math.floor(x) if self.floor else math.ceil(x)
        return min(max(v, 1), 10)

    def quality(self) -> int:
        return self.integer(10.0 * self.gen.beta(*self.quality_ab))

    def affinity(self) -> int:
        return self.integer(10.0 * self.gen.beta(*self.affinity_ab))

    def priority(self) -> int:
        return self.integer(self.gen.gamma(*self.prio))

    def surveil_time(self) -> float:
        return float(self.gen.uniform(self.cfg.surveil_time_min, self.cfg.surveil_time_max))

    def energy_rate(self) -> float:
        # A Beta draw is > 0 in exact arithmetic; guard the float underflow so VPE stays finite.
        return max(float(self.gen.beta(*self.e_rate)), 1e-9)

    def sensor_count(self) -> int:
        x = self.gen.rayleigh(self.cfg.sensor_count_scale)
        n = math.floor(x) if self.cfg.sensor_count_rounding == "floor" else round(x)
        return min(max(int(n), 1), N_SENSORS)

    def uav(self, uid: int, joined: float) -> UavSpec:
        e_tot = float(self.gen.beta(*self.e_tot))
        n = self.sensor_count()
        weights = self.type_weights.copy()
        types = []
        # weighted draws without replacement, renormalizing each time (generating a UAV
        # (ch. 5 spec §6.2))
        for _ in range(n):
            s = int(self.gen.choice(N_SENSORS, p=weights / weights.sum()))
            types.append(s)
            weights[s] = 0.0
        sensors = {s: (self.energy_rate(), self.quality()) for s in sorted(types)}
        return UavSpec(uid, max(e_tot, 1e-9), sensors, joined)

    def windows(self, start: float) -> list[tuple[float, float]]:
        horizon = self.cfg.horizon_h
        out = []
        c = start
        while True:
            s = c + self.gen.exponential(self.cfg.window_gap_mean)
            if s > horizon:
                break
            dur = self.gen.gamma(*self.win)
            if s < horizon:  # a window starting exactly at the horizon would be empty
                out.append((float(s), float(min(s + dur, horizon))))
            c = s + dur
        return out

    def target(self, tid: int, joined: float) -> TargetSpec:
        prio = self.priority()
        ts = self.surveil_time()
        k = 1 + int(self.gen.binomial(3, self.cfg.allowed_types_p))
        types = sorted(int(s) for s in self.gen.choice(N_SENSORS, size=k, replace=False))
        allowed = {s: self.affinity() for s in types}
        if joined > 0 and self.cfg.added_target_windows == "from-zero":
            wins = [(max(a, joined), b) for a, b in self.windows(0.0) if b > joined]
        else:
            wins = self.windows(joined)
        return TargetSpec(tid, prio, ts, allowed, wins, joined)


def _event_times(gen: np.random.Generator, rate_per_day: float, horizon: float) -> list[float]:
    """An independent Poisson process on [0, horizon) with mean gap 24/rate hours (generating events
    (ch. 5 spec §6.5))."""
    if rate_per_day <= 0:
        return []
    mean_gap = 24.0 / rate_per_day
    out = []
    t = gen.exponential(mean_gap)
    while t < horizon:
        out.append(float(t))
        t += gen.exponential(mean_gap)
    return out


def _fixed_population(cfg: UavConfig) -> tuple[list[UavSpec], list[TargetSpec]]:
    uavs = [UavSpec(i + 1, u.energy_total,
                    {SENSOR_INDEX[s.type]: (s.rate, s.quality) for s in u.sensors})
            for i, u in enumerate(cfg.fixed_uavs)]
    targets = [TargetSpec(i + 1, t.priority, t.surveil_time,
                          {SENSOR_INDEX[a.type]: a.affinity for a in t.allowed},
                          [(float(a), float(b)) for a, b in t.windows], 0.0, t.x_km, t.y_km)
               for i, t in enumerate(cfg.fixed_targets)]
    return uavs, targets


def generate(cfg: UavConfig, seed: int) -> Mission:
    gen = stream(seed, "mission")
    d = Draws(cfg, gen)
    horizon = cfg.horizon_h
    fixed_u, fixed_t = _fixed_population(cfg)
    n_u = len(fixed_u) if cfg.fixed_uavs else int(gen.poisson(cfg.uavs_mean))
    n_t = len(fixed_t) if cfg.fixed_targets else int(gen.poisson(cfg.targets_mean))
    uavs = fixed_u if cfg.fixed_uavs else [d.uav(i + 1, 0.0) for i in range(n_u)]
    targets = fixed_t if cfg.fixed_targets else [d.target(i + 1, 0.0) for i in range(n_t)]

    # Draw every process's times first, then resolve the merged stream in time order, so each
    # event picks among the entities present at its own time (entity hit by an event
    # (ch. 5 spec A10)).
    rates = cfg.event_rates.by_code()
    timed = []
    for order, (code, _, _) in enumerate(EVENT_TYPES):
        for t in _event_times(gen, rates[code] * cfg.event_multiplier, horizon):
            timed.append((t, order, code))
    timed.sort()

    # Live view of the present entities, to resolve choices: id -> mutable sensor/type sets.
    live_u = {u.id: set(u.sensors) for u in uavs}
    live_t = {t.id: set(t.allowed) for t in targets}
    events = []
    for t, _, code in timed:
        ev = DynamicEvent(t, code)
        if code == "E1":
            spec = d.uav(len(uavs) + 1, t)
            uavs.append(spec)
            live_u[spec.id] = set(spec.sensors)
            ev.uav, ev.new_uav, ev.effect = spec.id, spec, "add"
        elif code == "E5":
            spec = d.target(len(targets) + 1, t)
            targets.append(spec)
            live_t[spec.id] = set(spec.allowed)
            ev.target, ev.new_target, ev.effect = spec.id, spec, "add"
        elif code in ("E2", "E3", "E4"):
            if not live_u:
                ev.effect = "none"
            else:
                ids = sorted(live_u)
                uid = ids[int(gen.integers(len(ids)))]
                ev.uav = uid
                if code == "E2":
                    ev.effect = "remove"
                elif code == "E3":
                    types = sorted(live_u[uid])
                    ev.sensor = types[int(gen.integers(len(types)))]
                    if len(types) == 1:
                        ev.effect = "remove"
                    else:
                        live_u[uid].discard(ev.sensor)
                else:
                    ev.values = {s: d.quality() for s in sorted(live_u[uid])}
                if ev.effect == "remove":
                    del live_u[uid]
        else:
            if not live_t:
                ev.effect = "none"
            else:
                ids = sorted(live_t)
                tid = ids[int(gen.integers(len(ids)))]
                ev.target = tid
                allowed = live_t[tid]
                if code == "E6":
                    ev.effect = "remove"
                elif code == "E7":
                    ev.number = float(d.priority())
                elif code == "E8":
                    ev.number = d.surveil_time()
                elif code == "E9":
                    missing = [s for s in range(N_SENSORS) if s not in allowed]
                    if not missing:
                        ev.effect = "none"
                    else:
                        ev.sensor = missing[int(gen.integers(len(missing)))]
                        ev.number = float(d.affinity())
                        allowed.add(ev.sensor)
                elif code == "E10":
                    types = sorted(allowed)
                    ev.sensor = types[int(gen.integers(len(types)))]
                    if len(types) == 1:
                        ev.effect = "remove"
                    else:
                        allowed.discard(ev.sensor)
                else:  # E11
                    ev.values = {s: d.affinity() for s in sorted(allowed)}
                if ev.effect == "remove":
                    del live_t[tid]
        events.append(ev)

    mission = Mission(horizon, uavs, targets, events)
    if cfg.geometry.enabled:
        place(mission, cfg, seed)
    return mission


def place(mission: Mission, cfg: UavConfig, seed: int) -> None:
    """Geometry model: targets uniform in the square area, UAVs start at the base."""
    g = cfg.geometry
    gen = stream(seed, "geometry")
    mission.base = (g.base_x_km, g.base_y_km)
    fixed = len(cfg.fixed_targets)
    for i, t in enumerate(mission.targets):
        xy = gen.uniform(0.0, g.area_km, size=2)  # drawn for every target to keep streams aligned
        if i >= fixed:  # fixed targets keep their configured x_km, y_km
            t.x, t.y = float(xy[0]), float(xy[1])
    for u in mission.uavs:
        u.x, u.y = mission.base


__all__ = ["SENSORS", "Draws", "generate", "place"]
