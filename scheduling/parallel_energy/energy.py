"""Daily energy budgets, committed energy, goal energy and the energy filters (ch. 3 spec §4.3,
metaheuristics to energy filters (ch. 3 spec §5.9-5.10)).

Days: day 0 is the warm-up ``[0, warm-up)`` with the pro-rated budget ``E x warm-up / 24 h``
(warm-up energy and start horizon (ch. 3 spec A14)); day k >= 1 is ``[warm-up + (k-1) 24 h,
warm-up + k 24 h)`` with budget E. A task's energy is charged to the days it is consumed in (energy
across the day boundary (ch. 3 spec A15)). Every scheduled task (running, finished, reserved,
place-holder) is *committed*; a day's remaining energy is its budget minus everything committed to
it, which is exactly "budget - consumed - committed future" of energy budget (ch. 3 spec §4.3)
because execution is deterministic.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from .config import EnergyConfig

DAY = 86_400.0
GJ = 1e9
TOL = 1e-6  # joules; float slack of the budget check


def window_budget_gj(params: dict, budget_gj: float | None) -> float | None:
    """The most energy (GJ) a run may use in its measured window, from the end of the warm-up
    to the end of the simulation (the summary's ``energy_gj``), under a daily budget of
    ``budget_gj`` (the run's own: a share of Max UPR PH's energy is set trial by trial): the
    budgets of the days the window spans, since no day's energy passes its budget, and, when
    energy is charged to the day a task starts in, the warm-up day's too (a task started in
    it runs on into the window). ``params`` are the scenario's, as validated. None where
    nothing bounds it: no budget, an unconstrained warm-up day that counts, or idle power
    (idle nodes draw it whatever the budget, which then need not be kept)."""
    try:
        time, energy = params["time"], params["energy"]
        warmup_h, sim_h, day_h = float(time["warmup_h"]), float(time["sim_h"]), \
            float(energy["day_h"])
        charge, warmup_budget = energy["charge"], energy["warmup_budget"]
        idle = float(energy["idle_power_w"] or 0.0)
    except (KeyError, TypeError, ValueError):
        return None
    if budget_gj is None or not math.isfinite(budget_gj) or idle > 0 or day_h <= 0 \
            or sim_h <= warmup_h:
        return None
    cap = budget_gj * math.ceil((sim_h - warmup_h) / day_h - 1e-9)
    if charge == "start-day" and warmup_h > 0:
        if warmup_budget != "prorated":
            return None
        cap += budget_gj * warmup_h / day_h
    return cap


def run_window_budget_gj(params: dict, summary: dict) -> float | None:
    """:func:`window_budget_gj` of one run, under the budget its summary records."""
    return window_budget_gj(params, summary.get("energy_budget_gj"))


class EnergyLedger:
    def __init__(self, cfg: EnergyConfig, warmup_s: float, until_s: float,
                 idle_power_total_w: float = 0.0):
        day = cfg.day_h * 3600.0
        bounds = [0.0] if warmup_s > 0 else []
        t = warmup_s
        while True:
            bounds.append(t)
            if t >= until_s:
                break
            t += day
        self.bounds = np.array(bounds)
        self._b = bounds
        self.days = len(bounds) - 1
        self.constrained = cfg.budget_gj is not None
        full = cfg.budget_gj * GJ if self.constrained else math.inf
        budget = np.full(self.days, full)
        if warmup_s > 0:
            budget[0] = full * warmup_s / day if cfg.warmup_budget == "prorated" else math.inf
        self.budget = budget
        self.start_day = cfg.charge == "start-day"
        # Idle power (ch. 3 spec A3) is a fixed commitment of every node for the whole day.
        lengths = np.diff(self.bounds)
        self.baseline = idle_power_total_w * lengths
        self.committed = self.baseline.copy()
        self._rem = (self.budget - self.committed).tolist()

    # -- days ------------------------------------------------------------------------------------
    def day_of(self, t: float) -> int:
        return min(max(bisect.bisect_right(self._b, t) - 1, 0), self.days - 1)

    def day_bounds(self, day: int) -> tuple[float, float]:
        return self._b[day], self._b[day + 1]

    def remaining(self, day: int) -> float:
        return self._rem[day]

    # -- one allocation --------------------------------------------------------------------------
    def split(self, start: float, end: float, power: float) -> list[tuple[int, float]]:
        """(day, joules) of an execution ``[start, end)`` drawing ``power`` watts."""
        d = self.day_of(start)
        if self.start_day:
            return [(d, power * (end - start))]
        out = []
        b = self._b
        while d < self.days:
            lo, hi = max(start, b[d]), min(end, b[d + 1])
            if hi > lo:
                out.append((d, power * (hi - lo)))
            if end <= b[d + 1]:
                break
            d += 1
        return out

    def fits(self, start: float, end: float, power: float) -> bool:
        if not self.constrained:
            return True
        b = self._b
        d = bisect.bisect_right(b, start) - 1
        if d < 0:
            d = 0
        elif d >= self.days:
            d = self.days - 1
        if self.start_day or end <= b[d + 1]:  # the common case: one day
            return power * (end - start) <= self._rem[d] + TOL
        rem = self._rem
        return all(j <= rem[k] + TOL for k, j in self.split(start, end, power))

    def commit(self, start: float, end: float, power: float, sign: float = 1.0) -> None:
        for d, j in self.split(start, end, power):
            self.committed[d] += sign * j
            self._rem[d] = float(self.budget[d] - self.committed[d])

    def fits_many(self, start, end, power) -> np.ndarray:
        """Vectorized :meth:`fits` (inf starts are simply infeasible): each entry checked
        against the days it touches, as :meth:`fits` checks one. Most executions fall in one
        day, so those are one comparison with their day's remaining energy; only the few that
        cross a day boundary are split over the days (an explained ch3-5k EASY run asks about
        1,757 tasks x 6 clusters at a time: splitting every one over the 3 days cost 0.2 s)."""
        start = np.asarray(start, float)
        ok = np.isfinite(start)
        if not self.constrained:
            return ok
        end = np.asarray(end, float)
        power = np.where(ok, np.asarray(power, float), 0.0)
        s = np.where(ok, start, 0.0)
        e = np.where(ok, end, 0.0)
        rem = np.asarray(self._rem)
        bounds = self.bounds
        days = np.clip(np.searchsorted(bounds, s, side="right") - 1, 0, self.days - 1)
        if self.start_day:
            return ok & (power * (e - s) <= rem[days] + TOL)
        fits = power * np.clip(e - s, 0.0, None) <= rem[days] + TOL
        crossing = e > bounds[days + 1]
        if crossing.any():
            s, e, power = s[crossing], e[crossing], power[crossing]
            lo = np.maximum(s[:, None], bounds[:-1])
            hi = np.minimum(e[:, None], bounds[1:])
            joules = power[:, None] * (hi - lo)
            # a day it does not reach (hi <= lo) is not charged, whatever is left in it
            fits[crossing] = np.all((joules <= rem + TOL) | (hi <= lo), axis=-1)
        return ok & fits

    # -- goal energy (metaheuristics (ch. 3 spec §5.9)) --------------------------------------------
    def goal(self, t: float) -> float:
        """G(t): energy the current day should have used by t at a constant rate."""
        d = self.day_of(t)
        if not math.isfinite(self.budget[d]):
            return math.inf
        lo, hi = self.day_bounds(d)
        return float(self.budget[d] * (t - lo) / (hi - lo))

    def committed_in(self, day: int) -> float:
        return float(self.committed[day])


def resources_remaining(timelines, cores_per_node, now: float, day_end: float) -> float:
    """Eq. 6: unallocated core-seconds between now and the end of the day, over all nodes."""
    total = 0.0
    span = max(day_end - now, 0.0)
    for tl, cpn in zip(timelines, cores_per_node, strict=True):
        total += (tl.n * span - tl.busy_time(now, day_end)) * float(cpn)
    return total


def epr_mask(node_power: np.ndarray, cores_per_node: np.ndarray, leniency: float,
             energy_remaining: float, resources_left: float) -> np.ndarray:
    """Energy-per-resource filter (Eq. 9): APC / cores-per-node <= L E_rem / R_rem."""
    budget = epr_threshold(leniency, energy_remaining, resources_left)
    if budget is None:
        return np.isfinite(node_power)
    return node_power / cores_per_node[None, :, None] <= budget


def epr_threshold(leniency: float, energy_remaining: float,
                  resources_left: float) -> float | None:
    """The EPR filter's bound on watts per core (None: the filter lets everything through)."""
    if not math.isfinite(energy_remaining) or resources_left <= 0:
        return None
    return leniency * max(energy_remaining, 0.0) / resources_left


def mean_option_resources(resources: np.ndarray) -> np.ndarray:
    """Each task's resources (Eq. 1) averaged over its feasible (cluster, P-state) options."""
    fin = np.isfinite(resources)
    return np.where(fin, resources, 0.0).sum(axis=(1, 2)) / np.maximum(fin.sum(axis=(1, 2)), 1)


def ept_mask(energy: np.ndarray, avg_resources: float, leniency: float, energy_remaining: float,
             resources_left: float) -> np.ndarray:
    """Energy-per-task filter (Eqs. 7-8 as reconstructed in energy-per-task budget
    (ch. 3 spec A20))."""
    budget = ept_threshold(avg_resources, leniency, energy_remaining, resources_left)
    if budget is None:
        return np.isfinite(energy)
    return energy <= budget


def ept_threshold(avg_resources: float, leniency: float, energy_remaining: float,
                  resources_left: float) -> float | None:
    """The EPT filter's bound on a task's joules (None: the filter lets everything through)."""
    if not math.isfinite(energy_remaining) or resources_left <= 0 or avg_resources <= 0:
        return None
    est_tasks = resources_left / avg_resources
    return leniency * max(energy_remaining, 0.0) / est_tasks
