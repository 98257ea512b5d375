"""Discrete-event simulator of one mission day (simulator design (ch. 5 spec §5)).

State lives in numpy arrays indexed by *slot*: every UAV and target of the day has a slot from
the start (those added by E1/E5 are simply not present yet), so score matrices keep their shape
all day. A surveil accrues value as ``rho * alpha * gamma * dp`` per piece, where a piece ends at
every change of an attribute that enters the value (partial surveils (ch. 5 spec §2.3)); the last
piece of a completed surveil uses ``dp = 1 - progress`` so an unchanged surveil earns exactly Eq. 1.

Ordering at equal times (same-time ordering (ch. 5 spec A22)): terminations, then dynamic events,
then the mapping event, which therefore sees the state after everything up to and including its own
time (event times vs. mapping events (ch. 5 spec A33)). Window starts need no event: eligibility is
evaluated from the windows when a mapping event asks (half-open ``[start, end)``).
"""

from __future__ import annotations

import heapq
import math
import time

import numpy as np

from simcore.clock import RunClock
from simcore.errors import PolicyViolation

from .config import UavConfig
from .model import N_SENSORS, SENSORS, Mission
from .policies.why import (
    Folded,
    byte_mask,
    cause,
    cause_numbers,
    option,
    waiting_causes,
)

TOL = 1e-12
INF = math.inf

# Termination reasons (surveil lifecycle (ch. 5 spec §5.3)), plus ARRIVE for the end of a transit
# (geometry model).
COMPLETE, ENERGY, WINDOW_END, DAY_END, ARRIVE = "complete", "energy", "window_end", "day_end", \
    "arrive"
UAV_REMOVED, TARGET_REMOVED = "uav_removed", "target_removed"
SENSOR_REMOVED, TYPE_DISALLOWED, PREEMPTED = "sensor_removed", "type_disallowed", "preempted"
REASONS = (COMPLETE, ENERGY, WINDOW_END, DAY_END, UAV_REMOVED, TARGET_REMOVED, SENSOR_REMOVED,
           TYPE_DISALLOWED, PREEMPTED)
# How each end reads in a run's decision trace (``--explain``): the action and its reason. A
# preemption is recorded where it happens, with the surveil that took over (MappingView.start).
ENDS = {
    COMPLETE: ("completed", "observed for its whole surveil time"),
    ENERGY: ("dropped", "its UAV's battery ran out before the surveil was complete"),
    WINDOW_END: ("expired", "the target's window closed before the surveil was complete"),
    DAY_END: ("expired", "the day ended before the surveil was complete"),
    UAV_REMOVED: ("dropped", "its UAV left the fleet (a dynamic event)"),
    TARGET_REMOVED: ("dropped", "its target was removed (a dynamic event)"),
    SENSOR_REMOVED: ("dropped", "its sensor was removed from its UAV (a dynamic event)"),
    TYPE_DISALLOWED: ("dropped", "its target no longer allows its sensor type (a dynamic event)"),
}


class Surveil:
    """One surveil: a UAV observing a target with one sensor, from ``start`` to ``end``.

    ``progress`` is the fraction observed so far (1 when complete); ``window`` is the index of
    the target's window it was started in and ``window_end`` that window's end. With the
    geometry model a surveil first flies from ``origin`` (``observing`` False) and arrives at
    ``arrive``; ``travel`` is the planned and ``flown`` the actual flight time (hours).
    ``version`` invalidates its queued terminations when it is rescheduled or stopped.
    """

    __slots__ = ("id", "uav", "sensor", "target", "start", "end", "progress", "value", "raw",
                 "energy", "vpe", "reason", "split", "version", "window", "window_end",
                 "arrive", "observing", "travel", "flown", "priority", "mode", "origin",
                 "floor")

    def __init__(self, sid, uav, sensor, target, start):
        self.id, self.uav, self.sensor, self.target, self.start = sid, uav, sensor, target, start
        self.end = None
        self.progress = 0.0
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
    """Runs one policy over one mission; ``run()`` returns itself, finished, for
    :func:`.result.build_result`.

    Per UAV slot (``uav_*``) and target slot (``target_*``) numpy arrays hold the current
    attributes and state. Energy is booked per piece: ``uav_energy`` is the energy at
    ``uav_piece_start`` and ``uav_drain`` the energy per hour since (0 when idle).
    ``uav_surveil`` / ``target_surveil`` are the id of the running surveil (-1 for none).
    ``target_window`` is the index of the target's current (or next) window, which spans
    ``[target_window_start, target_window_end)``.
    """

    def __init__(self, mission: Mission, cfg: UavConfig, policy, clock: RunClock | None = None):
        self.mission = mission
        self.cfg = cfg
        self.policy = policy
        self.horizon = mission.horizon
        self.clock = clock or RunClock()
        self.one_per_window = cfg.one_surveil_per_window
        self.geometry = cfg.geometry if cfg.geometry.enabled else None
        U, T = len(mission.uavs), len(mission.targets)
        self.n_uavs, self.n_targets = U, T

        self.uav_present = np.zeros(U, bool)
        self.uav_energy_total = np.array([u.energy_total for u in mission.uavs], float).reshape(U)
        self.uav_energy = self.uav_energy_total.copy()  # at the start of the current piece
        self.uav_piece_start = np.zeros(U)  # start time of the current piece (idle: now)
        self.uav_drain = np.zeros(U)  # energy per hour now (0 when idle)
        self.uav_has_sensor = np.zeros((U, N_SENSORS), bool)
        self.uav_quality = np.zeros((U, N_SENSORS))
        self.uav_energy_rate = np.ones((U, N_SENSORS))  # 1 where absent keeps divisions finite
        self.uav_surveil = np.full(U, -1, np.int64)  # running surveil id, -1 for none
        self.uav_joined = np.array([u.joined for u in mission.uavs], float).reshape(U)
        self.uav_left = np.full(U, INF)
        self.uav_started = np.zeros(U, np.int64)  # surveils started, and the sum of their VPE
        self.uav_vpe_sum = np.zeros(U)
        self.uav_value = np.zeros(U)
        self.uav_energy_used = np.zeros(U)
        for i, u in enumerate(mission.uavs):
            for s, (rate, q) in u.sensors.items():
                self.uav_has_sensor[i, s] = True
                self.uav_energy_rate[i, s] = rate
                self.uav_quality[i, s] = q

        self.target_present = np.zeros(T, bool)
        self.target_priority = np.array([t.priority for t in mission.targets], float).reshape(T)
        self.target_surveil_time = np.array([t.surveil_time for t in mission.targets],
                                            float).reshape(T)
        self.target_allowed = np.zeros((T, N_SENSORS), bool)
        self.target_affinity = np.zeros((T, N_SENSORS))
        self.target_surveil = np.full(T, -1, np.int64)
        self.target_left = np.full(T, INF)
        self.target_windows = [list(t.windows) for t in mission.targets]
        self.target_window = np.zeros(T, np.int64)
        self.target_window_start = np.full(T, INF)
        self.target_window_end = np.full(T, INF)
        self.target_done_window = np.full(T, -1, np.int64)  # window of the last completion
        # A window is worth one surveil (repeat surveils in a window, one surveil per window
        # (ch. 5 spec A4), new surveil after a partial one (ch. 5 spec A5)): target_carry is what
        # earlier surveils of the target reached in window target_carry_window, carried over to the
        # next surveil there: its progress (continue) or the best surveil value, credited already
        # (fresh).
        self.continue_partial = cfg.after_partial == "continue"
        self.best_of_window = self.one_per_window and not self.continue_partial
        self.target_carry = np.zeros(T)
        self.target_carry_window = np.full(T, -1, np.int64)
        for i, t in enumerate(mission.targets):
            for s, a in t.allowed.items():
                self.target_allowed[i, s] = True
                self.target_affinity[i, s] = a
            if t.windows:
                self.target_window_start[i], self.target_window_end[i] = t.windows[0]

        if self.geometry is not None:
            self.uav_pos = np.tile(np.asarray(mission.base, float), (U, 1))
            self.target_pos = np.array([(t.x, t.y) for t in mission.targets], float).reshape(T, 2)
            self.flight_energy_rate = self.geometry.flight_energy_rate
            self.speed_kmh = self.geometry.speed_kmh

        for i, u in enumerate(mission.uavs):
            if u.joined <= 0:
                self.uav_present[i] = True
        for i, t in enumerate(mission.targets):
            if t.joined <= 0:
                self.target_present[i] = True

        self.surveils: list[Surveil] = []
        self.stops = 0  # surveils stopped so far: with len(surveils), what changes who runs
        self.flight_energy = 0.0
        self.heap: list = []
        self.seq = 0
        self.scores_dirty = True
        self.scores_version = 0  # counts recomputations of the score matrices
        # the decision trace's sensor folds of the scores (policies.why), kept while they hold
        self._folded: Folded | None = None
        self.V = self.VPT = self.VPE = self.valid = None
        # pieces for the per-minute series: (uav, start, end, value, energy)
        self.pieces: list[tuple[int, float, float, float, float]] = []
        self.map_records: list[dict] = []
        self.event_cpu_seconds: list[float] = []  # CPU time: immune to other processes' load
        self.applied_events: list = []
        #: The run's decision log (``simcore.decisions``) when it explains itself, else None.
        #: Its tasks are the surveils' ids in the result (``tasks["id"]``, 1-based) and, for a
        #: target no surveil served, ``"target N"`` (N as in ``extra.targets.id``); times in
        #: minutes, like the result's tables.
        self.decisions = None
        # what the last event looked like (``_explain_waiting``), and the waiting targets'
        # causes then (policies.why), by target
        self._waiting_seen = None
        self._waiting_codes: dict[int, int] = {}
        # The windows that close before the day's end, by end time, as (end, target, window),
        # ending in a sentinel: a target's "expired" is recorded at its window's end, between
        # the other records in time order (``_close_windows``; only when explaining).
        self._closing: list[tuple[float, int, int]] = []
        self._close_pos = 0
        self._next_close = INF  # the end of the next window to close (INF: none to record)

    # -- scores --------------------------------------------------------------------------------
    def travel_hours(self, pos: np.ndarray) -> np.ndarray:
        d = np.sqrt(((pos[:, None, :] - self.target_pos[None, :, :]) ** 2).sum(-1))
        return d / self.speed_kmh

    def scores(self, pos: np.ndarray | None = None):
        """V, VPT, VPE over (UAV slot, target slot, sensor) at current attributes (scheduling
        metrics (ch. 5 spec §2.4))."""
        if self.scores_dirty or self.geometry is not None:
            self.valid = self.uav_has_sensor[:, None, :] & self.target_allowed[None, :, :]
            worth = self.target_priority[:, None] * self.target_affinity  # (target, sensor)
            V = self.uav_quality[:, None, :] * worth[None, :, :]
            ts = self.target_surveil_time[None, :, None]
            if self.geometry is None:
                self.VPT = V / ts
                self.VPE = V / (self.uav_energy_rate[:, None, :] * ts)
            else:
                travel = self.travel_hours(pos)[:, :, None]
                self.VPT = V / (travel + ts)
                self.VPE = V / (self.flight_energy_rate * travel
                                + self.uav_energy_rate[:, None, :] * ts)
            self.V = V
            self.scores_dirty = False
            self.scores_version += 1
        return self.V, self.VPT, self.VPE, self.valid

    # -- surveil lifecycle ---------------------------------------------------------------------
    def _push(self, sv: Surveil, when: float, reason: str) -> None:
        sv.version += 1
        self.seq += 1
        heapq.heappush(self.heap, (when, self.seq, sv.id, sv.version, reason))

    def _schedule(self, sv: Surveil, now: float) -> None:
        u, s, t = sv.uav, sv.sensor, sv.target
        e = self.uav_energy[u]
        if not sv.observing:
            rate = self.flight_energy_rate
            cands = ((sv.arrive, ARRIVE), (now + e / rate if rate > 0 else INF, ENERGY),
                     (self.horizon, DAY_END), (sv.window_end, WINDOW_END))
        else:
            ts = self.target_surveil_time[t]
            cands = ((now + (1.0 - sv.progress) * ts, COMPLETE),
                     (now + e / self.uav_energy_rate[u, s], ENERGY),
                     (self.horizon, DAY_END), (sv.window_end, WINDOW_END))
        when, reason = cands[0]
        for c in cands[1:]:  # first listed wins a tie: a window cut by the day is a day end
            if c[0] < when:
                when, reason = c
        self._push(sv, max(when, now), reason)

    def _close_piece(self, sv: Surveil, now: float, reason: str | None = None) -> None:
        """Book value, progress and energy of the piece ending at ``now``."""
        u = sv.uav
        t0 = self.uav_piece_start[u]
        dt = max(now - t0, 0.0)
        e0 = self.uav_energy[u]
        e1 = 0.0 if reason == ENERGY else max(e0 - self.uav_drain[u] * dt, 0.0)
        used = e0 - e1
        value = 0.0
        if sv.observing:
            t, s = sv.target, sv.sensor
            left = 1.0 - sv.progress
            dp = left if reason == COMPLETE else min(dt / self.target_surveil_time[t], left)
            raw = self.target_priority[t] * self.target_affinity[t, s] * self.uav_quality[u, s] * dp
            sv.progress = 1.0 if reason == COMPLETE else sv.progress + dp
            if self.best_of_window:  # the window earns its best surveil, not their sum
                value = max(sv.floor, sv.raw + raw) - max(sv.floor, sv.raw)
            else:
                value = raw
            sv.raw += raw
            sv.value += value
            self.uav_value[u] += value
        else:
            sv.flown += dt
            self.flight_energy += used
        sv.energy += used
        self.uav_energy_used[u] += used
        self.uav_energy[u] = e1
        self.uav_piece_start[u] = now
        if dt > 0 or value > 0:
            self.pieces.append((u, t0, now, value, used))

    def _position(self, sv: Surveil, now: float) -> np.ndarray:
        if sv.observing:
            return self.target_pos[sv.target]
        span = sv.arrive - sv.start
        frac = 1.0 if span <= 0 else min(max((now - sv.start) / span, 0.0), 1.0)
        return sv.origin + frac * (self.target_pos[sv.target] - sv.origin)

    def stop(self, sv: Surveil, now: float, reason: str) -> None:
        self.stops += 1
        self._close_piece(sv, now, reason)
        sv.end = now
        sv.reason = reason
        t = sv.target
        if reason == COMPLETE:
            self.target_done_window[t] = sv.window
        self.target_carry_window[t] = sv.window
        if self.continue_partial:  # a completed surveil leaves nothing to continue
            self.target_carry[t] = 0.0 if reason == COMPLETE else sv.progress
        else:
            self.target_carry[t] = max(sv.floor, sv.raw)
        u = sv.uav
        if self.geometry is not None:
            self.uav_pos[u] = self._position(sv, now)
        self.uav_surveil[u] = -1
        self.uav_drain[u] = 0.0
        self.target_surveil[sv.target] = -1
        sv.version += 1  # invalidates its queued termination
        if self.decisions is not None and reason != PREEMPTED:
            action, text = ENDS[reason]
            self.decisions.add(now * 60.0, sv.id + 1, action, text, where=f"UAV {u + 1}",
                               target=t + 1, progress=sv.progress, value=sv.value,
                               energy=sv.energy, energy_left=float(self.uav_energy[u]),
                               window_end_min=sv.window_end * 60.0)

    def begin(self, u: int, s: int, t: int, now: float, mode: str = "") -> Surveil:
        sv = Surveil(len(self.surveils), u, s, t, now)
        self.surveils.append(sv)
        sv.vpe = float(self.VPE[u, t, s])
        sv.priority = int(self.target_priority[t])
        sv.window = int(self.target_window[t])
        sv.window_end = float(self.target_window_end[t])
        sv.mode = mode
        if self.target_carry_window[t] == sv.window:
            if self.continue_partial:
                sv.progress = float(self.target_carry[t])
            elif self.best_of_window:
                sv.floor = float(self.target_carry[t])
        if self.geometry is not None:
            sv.origin = self.uav_pos[u].copy()
            sv.travel = float(np.hypot(*(self.target_pos[t] - sv.origin))) / self.speed_kmh
            if sv.travel > 0:
                sv.arrive = now + sv.travel
                sv.observing = False
        self.uav_piece_start[u] = now
        self.uav_drain[u] = self.uav_energy_rate[u, s] if sv.observing else self.flight_energy_rate
        self.uav_surveil[u] = sv.id
        self.target_surveil[t] = sv.id
        self.uav_started[u] += 1
        self.uav_vpe_sum[u] += sv.vpe
        self._schedule(sv, now)
        return sv

    def _arrive(self, sv: Surveil, now: float) -> None:
        self._close_piece(sv, now)
        sv.observing = True
        self.uav_pos[sv.uav] = self.target_pos[sv.target]
        self.uav_drain[sv.uav] = self.uav_energy_rate[sv.uav, sv.sensor]
        self._schedule(sv, now)

    def _split(self, sv: Surveil, now: float) -> None:
        """An attribute in the value changes during ``sv``: close the piece, keep going."""
        self._close_piece(sv, now)
        if sv.observing:
            sv.split = True

    # -- dynamic events ------------------------------------------------------------------------
    def _remove_uav(self, u: int, now: float, reason: str = UAV_REMOVED) -> None:
        if self.uav_surveil[u] >= 0:
            self.stop(self.surveils[self.uav_surveil[u]], now, reason)
        self.uav_present[u] = False
        self.uav_left[u] = now

    def _remove_target(self, t: int, now: float) -> None:
        if self.target_surveil[t] >= 0:
            self.stop(self.surveils[self.target_surveil[t]], now, TARGET_REMOVED)
        self.target_present[t] = False
        self.target_left[t] = now

    def apply(self, ev, now: float) -> None:
        self.applied_events.append(ev)
        if ev.effect == "none":
            return
        code = ev.kind
        u = ev.uav - 1 if ev.uav is not None else -1
        t = ev.target - 1 if ev.target is not None else -1
        self.scores_dirty = True
        if code == "E1":
            self.uav_present[u] = True
        elif code == "E5":
            self.target_present[t] = True
        elif code in ("E2", "E3") and ev.effect == "remove":
            self._remove_uav(u, now)
        elif code in ("E6", "E10") and ev.effect == "remove":
            self._remove_target(t, now)
        elif code == "E3":
            sid = self.uav_surveil[u]
            if sid >= 0 and self.surveils[sid].sensor == ev.sensor:
                self.stop(self.surveils[sid], now, SENSOR_REMOVED)
            self.uav_has_sensor[u, ev.sensor] = False
            self.uav_quality[u, ev.sensor] = 0.0
            self.uav_energy_rate[u, ev.sensor] = 1.0
        elif code == "E10":
            sid = self.target_surveil[t]
            if sid >= 0 and self.surveils[sid].sensor == ev.sensor:
                self.stop(self.surveils[sid], now, TYPE_DISALLOWED)
            self.target_allowed[t, ev.sensor] = False
            self.target_affinity[t, ev.sensor] = 0.0
        elif code == "E9":
            self.target_allowed[t, ev.sensor] = True
            self.target_affinity[t, ev.sensor] = ev.number
        elif code == "E4":
            sid = self.uav_surveil[u]
            if sid >= 0:
                self._split(self.surveils[sid], now)
            for s, q in ev.values.items():
                self.uav_quality[u, s] = q
        elif code in ("E7", "E8", "E11"):
            sid = self.target_surveil[t]
            sv = self.surveils[sid] if sid >= 0 else None
            if sv is not None:
                self._split(sv, now)
            if code == "E7":
                self.target_priority[t] = ev.number
            elif code == "E8":
                self.target_surveil_time[t] = ev.number
            else:
                for s, a in ev.values.items():
                    self.target_affinity[t, s] = a
            if sv is not None and code == "E8":
                # A surveil time change keeps the progress p: (1 - p) * T_s_new remains
                # (surveil time change mid-surveil (ch. 5 spec A13)).
                self._schedule(sv, now)

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
            first = t_term if t_term <= t_dyn else t_dyn
            if first > limit:
                return
            if self._next_close < first:  # windows that closed before it (explained runs)
                self._close_windows(first, False)
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

    def _close_windows(self, until: float, inclusive: bool) -> None:
        """Record the targets whose window closed before ``until`` (or at it, ``inclusive``)
        without a completed surveil, each at its window's end (a target present then). Called
        before the first event past a window's end and at each mapping event, so the records
        keep the log in time order; at a window's end the events of that instant come first
        (a surveil completing then completes the window)."""
        closing, i, log = self._closing, self._close_pos, self.decisions
        while closing[i][0] < until or (inclusive and closing[i][0] == until):
            end, t, k = closing[i]
            i += 1
            if self.target_present[t] and self.target_done_window[t] != k:
                log.add(end * 60.0, f"target {t + 1}", "expired",
                        "its window closed without a completed surveil", target=t + 1,
                        window_start_min=self.target_windows[t][k][0] * 60.0,
                        window_end_min=end * 60.0, priority=int(self.target_priority[t]))
        self._close_pos = i
        self._next_close = closing[i][0]

    def _windows(self, now: float) -> None:
        if self._next_close <= now:
            self._close_windows(now, True)
        for t in np.flatnonzero(self.target_window_end <= now):
            wins = self.target_windows[t]
            k = int(self.target_window[t])
            while k < len(wins) and wins[k][1] <= now:
                k += 1
            self.target_window[t] = k
            if k < len(wins):
                self.target_window_start[t], self.target_window_end[t] = wins[k]
            else:
                self.target_window_start[t] = self.target_window_end[t] = INF

    def mapping_times(self) -> np.ndarray:
        # k * Δ in minutes first, so integer Δ gives exact hours (3.0, not 2.9999999999999996)
        delta = self.cfg.mapping_interval_min
        n = math.ceil(self.horizon * 60.0 / delta - 1e-9)
        return np.arange(n) * delta / 60.0

    def run(self) -> Simulator:
        events = self.mission.events
        pos = [0]
        if self.decisions is not None:
            # a window ending with the day is the day's end (as a surveil's is), not recorded
            self._closing = sorted((end, t, k) for t, wins in enumerate(self.target_windows)
                                   for k, (_, end) in enumerate(wins) if end < self.horizon)
            self._closing.append((INF, -1, -1))
            self._close_pos = 0
            self._next_close = self._closing[0][0]
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
        self._advance(self.horizon, events, pos)
        if self._next_close < self.horizon:  # windows that closed after the last event
            self._close_windows(self.horizon, False)
        for sv in self.surveils:  # nothing should be left; guard against float edge cases
            if sv.end is None:
                self.stop(sv, self.horizon, DAY_END)
        return self

    def mapping(self, now: float) -> dict:
        self._windows(now)
        view = MappingView(self, now)
        self.policy.map(view)
        if self.decisions is not None:
            self._explain_waiting(view)
        return view.event_record()

    def _explain_waiting(self, view: MappingView) -> None:
        """Why each eligible target left without a surveil at this event got none, recorded
        when a target starts waiting or the cause changes (it holds until the target's next
        decision).

        The cause follows from which targets wait, which UAVs can act and are idle, and which
        combinations are valid: the policies leave no waiting target to an idle UAV that could
        take it and passes their filter. So an event where none of these changed is skipped
        without a look, as is one where no target waits: this runs at every event. It is
        skipped when no target opened or closed, no UAV's energy ran out, no surveil started
        or stopped and the scores held since the one before (138 of a day's 288 events on the
        small baseline): a look at two arrays' bytes and three counters, where working out
        which targets wait costs three numpy calls.
        """
        uav_ok = view.uav_ok.tobytes()
        seen = (view.target_ok.tobytes(), uav_ok, len(self.surveils), self.stops,
                self.scores_version)
        if seen == self._waiting_seen:
            return
        self._waiting_seen = seen
        waiting = view.target_ok & (view.running_uav < 0)
        if 1 not in waiting.tobytes():  # (the bytes: a numpy call costs more on a few targets)
            self._waiting_codes = {}
            return
        log, t_min = self.decisions, view.now * 60.0
        policy = self.policy
        folded = self._folded
        if folded is None or folded.version != self.scores_version or self.geometry is not None:
            folded = self._folded = Folded(self.scores_version)
        # the UAVs with energy left and the idle ones as ints, one byte per UAV
        ok = int.from_bytes(uav_ok, "little")
        idle = byte_mask(view.running_target < 0)
        targets = np.flatnonzero(waiting).tolist()
        codes = dict(zip(targets, waiting_causes(view, targets, getattr(policy, "filtering",
                                                                            False), folded,
                                                 ok, idle),
                         strict=True))
        preemption = getattr(policy, "preemption", False)
        before = self._waiting_codes
        for t, code in codes.items():
            if before.get(t) != code:
                action, reason = cause(code, preemption)
                log.add(t_min, f"target {t + 1}", action, reason, target=t + 1,
                        priority=int(self.target_priority[t]),
                        **cause_numbers(view, t, code, folded, ok, idle))
        self._waiting_codes = codes


class MappingView:
    """What a policy may see at a mapping event (heuristic knowledge, heuristics' knowledge of
    energy (ch. 5 spec A34)) and the one action it may take.

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
        self.n_uavs, self.n_targets = sim.n_uavs, sim.n_targets
        self.energy_remaining = sim.uav_energy - sim.uav_drain * (now - sim.uav_piece_start)
        self.energy_total = sim.uav_energy_total
        if sim.geometry is not None:
            pos = sim.uav_pos.copy()
            for u in np.flatnonzero(sim.uav_surveil >= 0):
                pos[u] = sim._position(sim.surveils[sim.uav_surveil[u]], now)
            self.V, self.VPT, self.VPE, self.valid = sim.scores(pos)
        else:
            self.V, self.VPT, self.VPE, self.valid = sim.scores()
        self.uav_ok = (sim.uav_present & (self.energy_remaining > TOL)
                       & sim.uav_has_sensor.any(1))
        eligible = (sim.target_present & (sim.target_window_start <= now)
                    & (now < sim.target_window_end))
        if sim.one_per_window:
            eligible &= sim.target_done_window != sim.target_window
        self.target_ok = eligible
        # The energy pace of the Metaheuristic and the filter (ch. 5 spec §4.5, filtering
        # (ch. 5 spec §4.7)): delta, the fraction of the UAV's day elapsed (of the whole day or
        # since it joined, UAVs that join mid-day (ch. 5 spec A16)), and epsilon, the fraction of
        # its energy spent.
        horizon = sim.horizon
        if cfg.pacing_clock == "day":
            self.day_elapsed = np.full(self.n_uavs, now / horizon)
        else:
            span = np.maximum(horizon - sim.uav_joined, TOL)
            self.day_elapsed = np.clip((now - sim.uav_joined) / span, 0.0, 1.0)
        self.energy_spent = 1.0 - self.energy_remaining / self.energy_total
        self.quality, self.affinity = sim.uav_quality, sim.target_affinity
        self.n_started, self.vpe_sum = sim.uav_started, sim.uav_vpe_sum
        self.value_earned, self.energy_used = sim.uav_value, sim.uav_energy_used
        self.filter_base = cfg.filter_base
        # running assignments, kept current as the policy acts: per UAV its target and sensor,
        # per target its UAV (-1 for none), and the unfinished fraction of each UAV's surveil
        self.running_target = np.full(self.n_uavs, -1, np.int64)
        self.running_sensor = np.full(self.n_uavs, -1, np.int64)
        self.running_uav = np.full(self.n_targets, -1, np.int64)
        self.running_remaining = np.ones(self.n_uavs)
        for u in np.flatnonzero(sim.uav_surveil >= 0):
            sv = sim.surveils[sim.uav_surveil[u]]
            self.running_target[u], self.running_sensor[u] = sv.target, sv.sensor
            self.running_uav[sv.target] = u
            if sv.observing:
                observed = (now - sim.uav_piece_start[u]) / sim.target_surveil_time[sv.target]
                self.running_remaining[u] = 1.0 - min(sv.progress + observed, 1.0)
        self.assigned = 0
        self.preempted = 0
        self.modes: dict[str, int] = {}
        #: The run's decision log, or None: a policy gives ``start`` its reasons only when set.
        self.decisions = sim.decisions

    def start(self, u: int, s: int, t: int, mode: str = "",
              why: dict | None = None) -> tuple[int, int]:
        """Start surveil (u, s, t) now, preempting whatever u or t was doing.

        Returns (UAV freed, target freed) by the preemptions, -1 for none: the UAV that was
        observing ``t`` and the target ``u`` was observing. ``why`` (only when the run explains
        itself, ``decisions`` set): the policy's reason and numbers for this choice, ``reason``
        a sentence, the rest numbers; ``beats`` (with preemption) maps ``"uav"``/``"target"``
        to (the running surveil's score on that side, the new one's).
        """
        sim, now = self._sim, self.now
        if not (0 <= u < self.n_uavs and 0 <= t < self.n_targets and 0 <= s < N_SENSORS
                and self.uav_ok[u] and self.target_ok[t] and self.valid[u, t, s]):
            self._refuse(u, s, t)
        log = self.decisions
        if log is not None:
            why = dict(why or {"reason": "started by the policy"})
            beats = why.pop("beats", {})
        freed_u = freed_t = -1
        for sid in {int(sim.uav_surveil[u]), int(sim.target_surveil[t])} - {-1}:
            sv = sim.surveils[sid]
            sim.stop(sv, now, PREEMPTED)
            if log is not None:
                self._explain_preempted(sv, u, t, s, beats)
            self.preempted += 1
            self.running_target[sv.uav] = self.running_sensor[sv.uav] = -1
            self.running_uav[sv.target] = -1
            self.running_remaining[sv.uav] = 1.0
            if sv.uav != u:
                freed_u = sv.uav
            if sv.target != t:
                freed_t = sv.target
        sv = sim.begin(u, s, t, now, mode)
        self.running_target[u], self.running_sensor[u], self.running_uav[t] = t, s, u
        self.assigned += 1
        if log is not None:
            reason = why.pop("reason")
            log.add(now * 60.0, sv.id + 1, "mapped", reason, where=option(u, t, s),
                    uav=u + 1, target=t + 1, sensor=SENSORS[s], **why,
                    energy_left=self.energy_remaining.item(u),
                    energy_total=self.energy_total.item(u),
                    energy_needed=(sim.uav_energy_rate.item(u, s)
                                   * sim.target_surveil_time.item(t) * (1.0 - sv.progress)
                                   + (sim.flight_energy_rate * sv.travel
                                      if sim.geometry is not None else 0.0)),
                    window_end_min=sv.window_end * 60.0)
        return freed_u, freed_t

    def _explain_preempted(self, sv: Surveil, u: int, t: int, s: int, beats: dict) -> None:
        """Record that ``sv`` stops for the surveil (u, s, t) about to start, with the scores
        the policy compared on the side it lost (its UAV, or its target)."""
        side = "uav" if sv.uav == u else "target"
        numbers = {}
        if side in beats:
            numbers["score"], numbers["by_score"], numbers["score_name"] = beats[side]
        self.decisions.add(self.now * 60.0, sv.id + 1, "preempted",
                           "a surveil that outscores it took its UAV" if side == "uav" else
                           "a surveil that outscores it took its target",
                           by=len(self._sim.surveils) + 1, by_option=option(u, t, s),
                           where=f"UAV {sv.uav + 1}", target=sv.target + 1,
                           progress=sv.progress, value=sv.value, **numbers)

    def _refuse(self, u: int, s: int, t: int) -> None:
        """The rule a refused start (u, s, t) breaks, checked before anything changes."""
        sim, now = self._sim, self.now
        at = f"at {now:.4f} h"
        if not (0 <= u < self.n_uavs and 0 <= t < self.n_targets and 0 <= s < N_SENSORS):
            raise PolicyViolation("eligibility", None, f"no UAV {u}, sensor {s} or target {t}")
        if not sim.uav_present[u]:
            raise PolicyViolation("capacity", None, f"UAV {u} is not in the fleet {at}")
        if not self.energy_remaining[u] > TOL:
            raise PolicyViolation("energy-budget", None, f"UAV {u} has no energy left {at}")
        if not (sim.target_present[t] and sim.target_window_start[t] <= now):
            raise PolicyViolation("arrival", None, f"target {t} is not open for surveillance "
                                  f"yet {at}")
        if not self.target_ok[t]:
            raise PolicyViolation("waiting-task", None, f"target {t}'s window is over or it was "
                                  f"surveilled in this window {at}")
        raise PolicyViolation("eligibility", None, f"UAV {u} cannot surveil target {t} with "
                              f"sensor {s} {at}")

    def event_record(self) -> dict:
        """This event's row of ``result.events``."""
        return {"t_min": self.now * 60.0, "assigned": self.assigned, "preempted": self.preempted,
                **self.modes}
