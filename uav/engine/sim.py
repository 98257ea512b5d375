"""Discrete-event simulator of one mission day (spec §5).

State lives in numpy arrays indexed by *slot*: every UAV and target of the day has a slot from
the start (those added by E1/E5 are simply not present yet), so score matrices keep their shape
all day. A surveil accrues value as ``rho * alpha * gamma * dp`` per piece, where a piece ends at
every change of an attribute that enters the value (§2.3); the last piece of a completed surveil
uses ``dp = 1 - p`` so an unchanged surveil earns exactly Eq. 1.

Ordering at equal times (A22): terminations, then dynamic events, then the mapping event, which
therefore sees the state after everything up to and including its own time (A33). Window starts
need no event: eligibility is evaluated from the windows when a mapping event asks (half-open
``[start, end)``).
"""

from __future__ import annotations

import heapq
import math
import time

import numpy as np

from simcore.clock import RunClock

from .config import UavConfig
from .model import N_SENSORS, Mission

TOL = 1e-12
INF = math.inf

# Termination reasons (§5.3), plus ARRIVE for the end of a transit in the geometry model.
COMPLETE, ENERGY, WINDOW_END, DAY_END, ARRIVE = "complete", "energy", "window_end", "day_end", \
    "arrive"
UAV_REMOVED, TARGET_REMOVED = "uav_removed", "target_removed"
SENSOR_REMOVED, TYPE_DISALLOWED, PREEMPTED = "sensor_removed", "type_disallowed", "preempted"
REASONS = (COMPLETE, ENERGY, WINDOW_END, DAY_END, UAV_REMOVED, TARGET_REMOVED, SENSOR_REMOVED,
           TYPE_DISALLOWED, PREEMPTED)


class Surveil:
    __slots__ = ("id", "uav", "sensor", "target", "start", "end", "p", "value", "raw", "energy",
                 "vpe", "reason", "split", "version", "win", "win_end", "arrive", "observing",
                 "travel", "flown", "priority", "mode", "origin", "floor")

    def __init__(self, sid, uav, sensor, target, start):
        self.id, self.uav, self.sensor, self.target, self.start = sid, uav, sensor, target, start
        self.end = None
        self.p = 0.0
        self.value = 0.0  # value credited to the run
        self.raw = 0.0  # value the surveil observed (differs only under after_partial=fresh)
        self.floor = 0.0  # fresh: the best earlier surveil of the window, credited already
        self.energy = 0.0
        self.reason = ""
        self.split = False
        self.version = 0
        self.travel = 0.0
        self.flown = 0.0
        self.arrive = start
        self.observing = True
        self.mode = ""
        self.origin = None


class Simulator:
    """Runs one policy over one mission; ``run()`` returns the raw record for ``report``."""

    def __init__(self, mission: Mission, cfg: UavConfig, policy, clock: RunClock | None = None):
        self.m = mission
        self.cfg = cfg
        self.policy = policy
        self.H = mission.horizon
        self.clock = clock or RunClock()
        self.one_per_window = cfg.one_surveil_per_window
        self.geo = cfg.geometry if cfg.geometry.enabled else None
        U, T = len(mission.uavs), len(mission.targets)
        self.U, self.T = U, T

        self.u_present = np.zeros(U, bool)
        self.u_etot = np.array([u.energy_total for u in mission.uavs], float).reshape(U)
        self.u_e = self.u_etot.copy()  # energy at the start of the current piece (idle: now)
        self.u_seg = np.zeros(U)  # start time of the current piece
        self.u_drain = np.zeros(U)  # energy per hour now (0 when idle)
        self.u_has = np.zeros((U, N_SENSORS), bool)
        self.u_q = np.zeros((U, N_SENSORS))
        self.u_rate = np.ones((U, N_SENSORS))  # 1 where absent keeps divisions finite
        self.u_run = np.full(U, -1, np.int64)
        self.u_join = np.array([u.joined for u in mission.uavs], float).reshape(U)
        self.u_left = np.full(U, INF)
        self.u_nstart = np.zeros(U, np.int64)
        self.u_vpe_sum = np.zeros(U)
        self.u_value = np.zeros(U)
        self.u_used = np.zeros(U)
        for i, u in enumerate(mission.uavs):
            for s, (rate, q) in u.sensors.items():
                self.u_has[i, s] = True
                self.u_rate[i, s] = rate
                self.u_q[i, s] = q

        self.t_present = np.zeros(T, bool)
        self.t_prio = np.array([t.priority for t in mission.targets], float).reshape(T)
        self.t_ts = np.array([t.surveil_time for t in mission.targets], float).reshape(T)
        self.t_allowed = np.zeros((T, N_SENSORS), bool)
        self.t_aff = np.zeros((T, N_SENSORS))
        self.t_run = np.full(T, -1, np.int64)
        self.t_join = np.array([t.joined for t in mission.targets], float).reshape(T)
        self.t_left = np.full(T, INF)
        self.windows = [list(t.windows) for t in mission.targets]
        self.t_ptr = np.zeros(T, np.int64)
        self.t_ws = np.full(T, INF)
        self.t_we = np.full(T, INF)
        self.t_done = np.full(T, -1, np.int64)
        # A window is worth one surveil (A4, A5): t_wprog is the progress (continue) or the best
        # surveil value (fresh) reached in window t_wwin by earlier surveils of the target.
        self.continue_partial = cfg.after_partial == "continue"
        self.best_of_window = self.one_per_window and not self.continue_partial
        self.t_wprog = np.zeros(T)
        self.t_wwin = np.full(T, -1, np.int64)
        for i, t in enumerate(mission.targets):
            for s, a in t.allowed.items():
                self.t_allowed[i, s] = True
                self.t_aff[i, s] = a
            if t.windows:
                self.t_ws[i], self.t_we[i] = t.windows[0]

        if self.geo is not None:
            base = np.asarray(mission.base, float)
            self.base = base
            self.u_pos = np.tile(base, (U, 1))
            self.t_pos = np.array([(t.x, t.y) for t in mission.targets], float).reshape(T, 2)
            self.e_fly = self.geo.flight_energy_rate
            self.speed = self.geo.speed_kmh

        for i, u in enumerate(mission.uavs):
            if u.joined <= 0:
                self.u_present[i] = True
        for i, t in enumerate(mission.targets):
            if t.joined <= 0:
                self.t_present[i] = True

        self.surveils: list[Surveil] = []
        self.flight_energy = 0.0
        self.heap: list = []
        self.seq = 0
        self.scores_dirty = True
        self.V = self.VPT = self.VPE = self.valid = None
        # pieces for the per-minute series: (uav, start, end, value, energy)
        self.pieces: list[tuple[int, float, float, float, float]] = []
        self.map_records: list[dict] = []
        self.event_cpu_seconds: list[float] = []  # CPU time: immune to other processes' load
        self.applied_events: list = []

    # -- scores --------------------------------------------------------------------------------
    def travel_hours(self, pos: np.ndarray) -> np.ndarray:
        d = np.sqrt(((pos[:, None, :] - self.t_pos[None, :, :]) ** 2).sum(-1))
        return d / self.speed

    def scores(self, pos: np.ndarray | None = None):
        """V, VPT, VPE over (UAV slot, target slot, sensor) at current attributes (§2.4)."""
        if self.scores_dirty or self.geo is not None:
            self.valid = self.u_has[:, None, :] & self.t_allowed[None, :, :]
            V = self.u_q[:, None, :] * (self.t_prio[:, None] * self.t_aff)[None, :, :]
            ts = self.t_ts[None, :, None]
            if self.geo is None:
                self.VPT = V / ts
                self.VPE = V / (self.u_rate[:, None, :] * ts)
            else:
                travel = self.travel_hours(pos)[:, :, None]
                self.VPT = V / (travel + ts)
                self.VPE = V / (self.e_fly * travel + self.u_rate[:, None, :] * ts)
            self.V = V
            self.scores_dirty = False
        return self.V, self.VPT, self.VPE, self.valid

    # -- surveil lifecycle ---------------------------------------------------------------------
    def _push(self, sv: Surveil, when: float, reason: str) -> None:
        sv.version += 1
        self.seq += 1
        heapq.heappush(self.heap, (when, self.seq, sv.id, sv.version, reason))

    def _schedule(self, sv: Surveil, now: float) -> None:
        u, s, t = sv.uav, sv.sensor, sv.target
        e = self.u_e[u]
        if not sv.observing:
            cands = ((sv.arrive, ARRIVE),
                     (now + e / self.e_fly if self.e_fly > 0 else INF, ENERGY),
                     (self.H, DAY_END), (sv.win_end, WINDOW_END))
        else:
            ts = self.t_ts[t]
            cands = ((now + (1.0 - sv.p) * ts, COMPLETE),
                     (now + e / self.u_rate[u, s], ENERGY),
                     (self.H, DAY_END), (sv.win_end, WINDOW_END))
        when, reason = cands[0]
        for c in cands[1:]:  # first listed wins a tie: a window cut by the day is a day end
            if c[0] < when:
                when, reason = c
        self._push(sv, max(when, now), reason)

    def _close_piece(self, sv: Surveil, now: float, reason: str | None = None) -> None:
        """Book value, progress and energy of the piece ending at ``now``."""
        u = sv.uav
        t0 = self.u_seg[u]
        dt = max(now - t0, 0.0)
        e0 = self.u_e[u]
        e1 = 0.0 if reason == ENERGY else max(e0 - self.u_drain[u] * dt, 0.0)
        used = e0 - e1
        value = 0.0
        if sv.observing:
            t, s = sv.target, sv.sensor
            dp = 1.0 - sv.p if reason == COMPLETE else min(dt / self.t_ts[t], 1.0 - sv.p)
            raw = self.t_prio[t] * self.t_aff[t, s] * self.u_q[u, s] * dp
            sv.p = 1.0 if reason == COMPLETE else sv.p + dp
            if self.best_of_window:  # the window earns its best surveil, not their sum
                value = max(sv.floor, sv.raw + raw) - max(sv.floor, sv.raw)
            else:
                value = raw
            sv.raw += raw
            sv.value += value
            self.u_value[u] += value
        else:
            sv.flown += dt
            self.flight_energy += used
        sv.energy += used
        self.u_used[u] += used
        self.u_e[u] = e1
        self.u_seg[u] = now
        if dt > 0 or value > 0:
            self.pieces.append((u, t0, now, value, used))

    def _position(self, sv: Surveil, now: float) -> np.ndarray:
        if sv.observing:
            return self.t_pos[sv.target]
        span = sv.arrive - sv.start
        frac = 1.0 if span <= 0 else min(max((now - sv.start) / span, 0.0), 1.0)
        return sv.origin + frac * (self.t_pos[sv.target] - sv.origin)

    def stop(self, sv: Surveil, now: float, reason: str) -> None:
        self._close_piece(sv, now, reason)
        sv.end = now
        sv.reason = reason
        t = sv.target
        if reason == COMPLETE:
            self.t_done[t] = sv.win
        self.t_wwin[t] = sv.win
        if self.continue_partial:  # a completed surveil leaves nothing to continue
            self.t_wprog[t] = 0.0 if reason == COMPLETE else sv.p
        else:
            self.t_wprog[t] = max(sv.floor, sv.raw)
        u = sv.uav
        if self.geo is not None:
            self.u_pos[u] = self._position(sv, now)
        self.u_run[u] = -1
        self.u_drain[u] = 0.0
        self.t_run[sv.target] = -1
        sv.version += 1  # invalidates its queued termination

    def begin(self, u: int, s: int, t: int, now: float, mode: str = "") -> Surveil:
        sv = Surveil(len(self.surveils), u, s, t, now)
        self.surveils.append(sv)
        sv.vpe = float(self.VPE[u, t, s])
        sv.priority = int(self.t_prio[t])
        sv.win = int(self.t_ptr[t])
        sv.win_end = float(self.t_we[t])
        sv.mode = mode
        if self.t_wwin[t] == sv.win:
            if self.continue_partial:
                sv.p = float(self.t_wprog[t])
            elif self.best_of_window:
                sv.floor = float(self.t_wprog[t])
        if self.geo is not None:
            sv.origin = self.u_pos[u].copy()
            sv.travel = float(np.hypot(*(self.t_pos[t] - sv.origin))) / self.speed
            if sv.travel > 0:
                sv.arrive = now + sv.travel
                sv.observing = False
        self.u_seg[u] = now
        self.u_drain[u] = self.u_rate[u, s] if sv.observing else self.e_fly
        self.u_run[u] = sv.id
        self.t_run[t] = sv.id
        self.u_nstart[u] += 1
        self.u_vpe_sum[u] += sv.vpe
        self._schedule(sv, now)
        return sv

    def _arrive(self, sv: Surveil, now: float) -> None:
        self._close_piece(sv, now)
        sv.observing = True
        self.u_pos[sv.uav] = self.t_pos[sv.target]
        self.u_drain[sv.uav] = self.u_rate[sv.uav, sv.sensor]
        self._schedule(sv, now)

    def _split(self, sv: Surveil, now: float) -> None:
        """An attribute in the value changes during ``sv``: close the piece, keep going."""
        self._close_piece(sv, now)
        if sv.observing:
            sv.split = True

    # -- dynamic events ------------------------------------------------------------------------
    def _remove_uav(self, u: int, now: float, reason: str = UAV_REMOVED) -> None:
        if self.u_run[u] >= 0:
            self.stop(self.surveils[self.u_run[u]], now, reason)
        self.u_present[u] = False
        self.u_left[u] = now

    def _remove_target(self, t: int, now: float) -> None:
        if self.t_run[t] >= 0:
            self.stop(self.surveils[self.t_run[t]], now, TARGET_REMOVED)
        self.t_present[t] = False
        self.t_left[t] = now

    def apply(self, ev, now: float) -> None:
        self.applied_events.append(ev)
        if ev.effect == "none":
            return
        code = ev.kind
        u = ev.uav - 1 if ev.uav is not None else -1
        t = ev.target - 1 if ev.target is not None else -1
        self.scores_dirty = True
        if code == "E1":
            self.u_present[u] = True
        elif code == "E5":
            self.t_present[t] = True
        elif code in ("E2", "E3") and ev.effect == "remove":
            self._remove_uav(u, now)
        elif code in ("E6", "E10") and ev.effect == "remove":
            self._remove_target(t, now)
        elif code == "E3":
            sid = self.u_run[u]
            if sid >= 0 and self.surveils[sid].sensor == ev.sensor:
                self.stop(self.surveils[sid], now, SENSOR_REMOVED)
            self.u_has[u, ev.sensor] = False
            self.u_q[u, ev.sensor] = 0.0
            self.u_rate[u, ev.sensor] = 1.0
        elif code == "E10":
            sid = self.t_run[t]
            if sid >= 0 and self.surveils[sid].sensor == ev.sensor:
                self.stop(self.surveils[sid], now, TYPE_DISALLOWED)
            self.t_allowed[t, ev.sensor] = False
            self.t_aff[t, ev.sensor] = 0.0
        elif code == "E9":
            self.t_allowed[t, ev.sensor] = True
            self.t_aff[t, ev.sensor] = ev.number
        elif code == "E4":
            sid = self.u_run[u]
            if sid >= 0:
                self._split(self.surveils[sid], now)
            for s, q in ev.values.items():
                self.u_q[u, s] = q
        elif code in ("E7", "E8", "E11"):
            sid = self.t_run[t]
            sv = self.surveils[sid] if sid >= 0 else None
            if sv is not None:
                self._split(sv, now)
            if code == "E7":
                self.t_prio[t] = ev.number
            elif code == "E8":
                self.t_ts[t] = ev.number
            else:
                for s, a in ev.values.items():
                    self.t_aff[t, s] = a
            if sv is not None and code == "E8":
                self._schedule(sv, now)  # keep progress p; (1 - p) * T_s_new remains (A13)

    # -- main loop -----------------------------------------------------------------------------
    def _advance(self, limit: float, events: list, pos: list) -> None:
        """Process terminations and dynamic events with time <= limit, in order."""
        heap = self.heap
        while True:
            while heap:
                when, _, sid, version, _ = heap[0]
                sv = self.surveils[sid]
                if sv.version == version and sv.end is None:
                    break
                heapq.heappop(heap)
            t_term = heap[0][0] if heap else INF
            t_dyn = events[pos[0]].time if pos[0] < len(events) else INF
            if min(t_term, t_dyn) > limit:
                return
            if t_term <= t_dyn:
                when, _, sid, _, reason = heapq.heappop(heap)
                sv = self.surveils[sid]
                if reason == ARRIVE:
                    self._arrive(sv, when)
                else:
                    self.stop(sv, when, reason)
            else:
                self.apply(events[pos[0]], t_dyn)
                pos[0] += 1

    def _windows(self, now: float) -> None:
        for t in np.flatnonzero(self.t_we <= now):
            wins = self.windows[t]
            k = int(self.t_ptr[t])
            while k < len(wins) and wins[k][1] <= now:
                k += 1
            self.t_ptr[t] = k
            if k < len(wins):
                self.t_ws[t], self.t_we[t] = wins[k]
            else:
                self.t_ws[t] = self.t_we[t] = INF

    def mapping_times(self) -> np.ndarray:
        # k * Δ in minutes first, so integer Δ gives exact hours (3.0, not 2.9999999999999996)
        delta = self.cfg.mapping_interval_min
        n = math.ceil(self.H * 60.0 / delta - 1e-9)
        return np.arange(n) * delta / 60.0

    def run(self) -> Simulator:
        events = self.m.events
        pos = [0]
        times = self.mapping_times()
        n = len(times)
        clock = self.clock
        for k, now in enumerate(times):
            now = float(now)
            self._advance(now, events, pos)
            started, cpu = time.perf_counter(), time.thread_time()
            record = self.mapping(now)
            clock.record(time.perf_counter() - started)
            self.event_cpu_seconds.append(time.thread_time() - cpu)
            self.map_records.append(record)
            clock.report((k + 1) / n)
        self._advance(self.H, events, pos)
        for sv in self.surveils:  # nothing should be left; guard against float edge cases
            if sv.end is None:
                self.stop(sv, self.H, DAY_END)
        return self

    def mapping(self, now: float) -> dict:
        self._windows(now)
        view = MappingView(self, now)
        self.policy.map(view)
        return view.record()


class MappingView:
    """What a policy may see at a mapping event (A34) and the one action it may take.

    Exposes current attributes, energy, scores, and whether each target is eligible *now*;
    never window ends, future windows or future events.
    """

    def __init__(self, sim: Simulator, now: float):
        self._sim = sim
        cfg = sim.cfg
        self.now = now
        self.rng = getattr(sim.policy, "rng", None)
        self.tie_break = cfg.tie_break
        self.preemption_basis = cfg.preemption_basis
        self.U, self.T = sim.U, sim.T
        self.e_rem = sim.u_e - sim.u_drain * (now - sim.u_seg)
        self.e_tot = sim.u_etot
        if sim.geo is not None:
            pos = sim.u_pos.copy()
            for u in np.flatnonzero(sim.u_run >= 0):
                pos[u] = sim._position(sim.surveils[sim.u_run[u]], now)
            self.V, self.VPT, self.VPE, self.valid = sim.scores(pos)
        else:
            self.V, self.VPT, self.VPE, self.valid = sim.scores()
        self.uav_ok = sim.u_present & (self.e_rem > TOL) & sim.u_has.any(1)
        eligible = sim.t_present & (sim.t_ws <= now) & (now < sim.t_we)
        if sim.one_per_window:
            eligible &= sim.t_done != sim.t_ptr
        self.target_ok = eligible
        H = sim.H
        if cfg.pacing_clock == "day":
            self.delta = np.full(self.U, now / H)
        else:
            span = np.maximum(H - sim.u_join, TOL)
            self.delta = np.clip((now - sim.u_join) / span, 0.0, 1.0)
        self.eps = 1.0 - self.e_rem / self.e_tot
        self.quality, self.affinity = sim.u_q, sim.t_aff
        self.n_started, self.vpe_sum = sim.u_nstart, sim.u_vpe_sum
        self.value_earned, self.energy_used = sim.u_value, sim.u_used
        self.filter_base = cfg.filter_base
        # running assignments, kept current as the policy acts
        self.run_t = np.full(self.U, -1, np.int64)
        self.run_s = np.full(self.U, -1, np.int64)
        self.run_u = np.full(self.T, -1, np.int64)
        self.run_left = np.ones(self.U)  # 1 - progress of the running surveil
        for u in np.flatnonzero(sim.u_run >= 0):
            sv = sim.surveils[sim.u_run[u]]
            self.run_t[u], self.run_s[u] = sv.target, sv.sensor
            self.run_u[sv.target] = u
            if sv.observing:
                self.run_left[u] = 1.0 - min(sv.p + (now - sim.u_seg[u]) / sim.t_ts[sv.target],
                                             1.0)
        self.assigned = 0
        self.preempted = 0
        self.modes: dict[str, int] = {}

    def start(self, u: int, s: int, t: int, mode: str = "") -> tuple[int, int]:
        """Start surveil (u, s, t) now, preempting whatever u or t was doing.

        Returns (UAV freed, target freed) by the preemptions, -1 for none: the UAV that was
        observing ``t`` and the target ``u`` was observing.
        """
        sim, now = self._sim, self.now
        freed_u = freed_t = -1
        for sid in {int(sim.u_run[u]), int(sim.t_run[t])} - {-1}:
            sv = sim.surveils[sid]
            sim.stop(sv, now, PREEMPTED)
            self.preempted += 1
            self.run_t[sv.uav] = self.run_s[sv.uav] = -1
            self.run_u[sv.target] = -1
            self.run_left[sv.uav] = 1.0
            if sv.uav != u:
                freed_u = sv.uav
            if sv.target != t:
                freed_t = sv.target
        sim.begin(u, s, t, now, mode)
        self.run_t[u], self.run_s[u], self.run_u[t] = t, s, u
        self.assigned += 1
        return freed_u, freed_t

    def record(self) -> dict:
        return {"t_min": self.now * 60.0, "assigned": self.assigned, "preempted": self.preempted,
                **self.modes}
