"""One trial: the static workload data and the dynamic schedule the policies act on."""

from __future__ import annotations

import functools
import heapq
from dataclasses import dataclass

import numpy as np

from scheduling.hpc.traces import TraceLibrary
from simcore.errors import PolicyViolation

from .config import ParallelEnergyConfig
from .energy import GJ, EnergyLedger, mean_option_resources
from .execution import DecayUtility, Options, TaskUtility, build_options
from .system import System
from .timeline import EPS, ClusterTimeline
from .workload import (
    HOUR,
    Tasks,
    TaskTypes,
    load_trace,
    make_types,
    synthetic_tasks,
    testbed_tasks,
    testbed_types,
    trace_system_config,
    trace_tasks,
    utility_classes,
)

# Task status codes.
PENDING, MAPPABLE, RESERVED, PLACEHOLDER, STARTED, DROPPED = range(6)


@dataclass
class Trial:
    """Everything fixed by (scenario, seed): system, types, tasks, option data, utility."""

    cfg: ParallelEnergyConfig
    system: System
    types: TaskTypes
    tasks: Tasks
    options: Options
    utility: TaskUtility | DecayUtility
    sim_end: float
    warmup: float

    @classmethod
    def generate(cls, cfg: ParallelEnergyConfig, seed: int,
                 traces: TraceLibrary | None = None) -> Trial:
        system_cfg = cfg.system
        jobs = info = None
        if cfg.workload.source == "trace":
            jobs, info = load_trace(cfg, traces or TraceLibrary())
            system_cfg = trace_system_config(cfg, info["machine_cores"])
        system = System.from_config(system_cfg)
        if cfg.workload.source == "testbed":
            types = testbed_types(system)
            tasks = testbed_tasks(cfg, types, seed)
        else:
            types = make_types(cfg.workload, system, seed, trace=jobs is not None)
            if jobs is not None:
                tasks = trace_tasks(cfg, types, system, jobs, info, seed)
            else:
                tasks = synthetic_tasks(cfg, types, seed)
        options = build_options(types, tasks, system, cfg.workload.etc_mode)
        if tasks.priority is not None:
            tb = cfg.testbed
            utility = DecayUtility(tasks, options.t_min, tb.decay_start, tb.decay_length,
                                   tb.decay_shape)
        else:
            u = cfg.utility
            utility = TaskUtility(utility_classes(u), tasks, types, options.t_min,
                                  u.time_unit_h, u.time_axis, u.time_unit_tmin)
        return cls(cfg, system, types, tasks, options, utility, cfg.time.sim_h * HOUR,
                   cfg.time.warmup_h * HOUR)


class State:
    """The schedule during a run: task status, node timelines and the energy ledger."""

    def __init__(self, trial: Trial):
        self.trial = trial
        cfg = trial.cfg
        opts = trial.options
        self.options = opts
        self.utility = trial.utility
        # every start must be before the end of W (energy budget (ch. 3 spec §4.3))
        self.horizon = trial.sim_end
        self.now = 0.0
        self.timelines = [ClusterTimeline(int(n), self.horizon) for n in trial.system.nodes]
        finite = opts.duration[np.isfinite(opts.duration)]
        longest = float(finite.max()) if finite.size else 0.0
        idle = cfg.energy.idle_power_w
        self.ledger = EnergyLedger(cfg.energy, trial.warmup, self.horizon + longest + 1.0,
                                   idle * float(trial.system.nodes.sum()))
        # Power the ledger charges per option: with idle power counted as a fixed baseline,
        # a running node adds only what it draws above idle.
        self.charge_power = opts.power if idle <= 0 else np.maximum(
            opts.power - idle * opts.nodes[:, :, None], 0.0)
        n = trial.tasks.n
        self.status = np.full(n, PENDING, dtype=np.int64)
        self.start = np.full(n, np.nan)
        self.end = np.full(n, np.nan)
        self.cluster = np.full(n, -1, dtype=np.int64)
        self.pstate = np.full(n, -1, dtype=np.int64)
        self.node_ids: list[np.ndarray | None] = [None] * n
        self.mappable: list[int] = []
        self.placeholders: list[int] = []
        self.reservations: list[int] = []
        self.next_arrival = 0
        # for the EPT filter's "history" average (energy-per-task budget (ch. 3 spec A20))
        self.history_resources = [0.0, 0]
        # Item-1 reading of the comparison figures: a permanent reservation's energy is
        # committed when it is made (default) or checked and committed when it starts.
        self.energy_at_start = cfg.scheduler.reservation_energy == "at-start"
        self.uncommitted: set[int] = set()  # reservations whose energy is not committed yet
        self.cancelled = 0  # reservations cancelled at their start for lack of energy
        # The run's decision log (``simcore.decisions``) when it explains itself, else None;
        # then the started tasks' (end, id), to record each completion when the clock passes it.
        self.log = None
        self._ends: list[tuple[float, int]] = []

    @functools.cached_property
    def option_resource_sums(self) -> np.ndarray:
        """Running sums, in arrival order, of each task's mean option resources: the EPT
        filter's "arrived" average, computed once and only for runs that read it."""
        return np.cumsum(mean_option_resources(self.options.resources))

    # -- clock -----------------------------------------------------------------------------------
    def advance(self, now: float, honor_placeholders: bool) -> None:
        """Step 1-2 of a mapping event: arrivals, starts, then place-holder removal."""
        self.now = now
        arrival = self.trial.tasks.arrival
        new = []
        while self.next_arrival < len(arrival) and arrival[self.next_arrival] <= now:
            new.append(self.next_arrival)
            self.next_arrival += 1
        if new:
            self.status[new] = MAPPABLE
            self.mappable.extend(new)
        log = self.log
        kept, cancelled = [], []
        for t in self.reservations:
            if self.start[t] > now:
                kept.append(t)
            elif t not in self.uncommitted or self._commit_at_start(t):
                self._started(t)
                if log is not None:
                    self._explain_start(t, "its permanent reservation started")
            else:
                cancelled.append(t)
        self.reservations = kept
        removed = []
        for t in self.placeholders:
            if honor_placeholders and self.start[t] <= now:
                self._started(t)
                if log is not None:
                    self._explain_start(t, "its place-holder started before this mapping event")
            else:
                removed.append(t)
        if log is not None:
            self._explain_completions(now)
        self.placeholders = []
        by_cluster = self._unassign(removed)
        for c, ts in self._unassign(cancelled, committed=False).items():
            by_cluster.setdefault(c, []).extend(ts)
        for c, tl in enumerate(self.timelines):
            tl.advance(now, by_cluster.get(c))
        if removed or cancelled:
            self.mappable.extend(removed + cancelled)
            self.mappable.sort()

    def _commit_at_start(self, t: int) -> bool:
        """Energy reading "at-start": commit a reservation's energy when it starts if it still
        fits the day(s) it runs in; otherwise the reservation is cancelled."""
        self.uncommitted.discard(t)
        c, p = int(self.cluster[t]), int(self.pstate[t])
        power = float(self.charge_power[t, c, p])
        if not self.ledger.fits(self.start[t], self.end[t], power):
            self.cancelled += 1
            if self.log is not None:
                s = float(self.start[t])
                self.log.add(s, t, "held", "its reservation was cancelled at its start: the "
                             "energy left in the day is too little", where=c, pstate=p,
                             energy_gj=power * (float(self.end[t]) - s) / GJ,
                             energy_left_gj=self.ledger.remaining(self.ledger.day_of(s)) / GJ)
            return False
        self.ledger.commit(self.start[t], self.end[t], power)
        return True

    def _unassign(self, tasks: list[int], committed: bool = True) -> dict[int, list[int]]:
        """Forget the bookings of ``tasks`` (and their energy, if ``committed``); returns them
        per cluster for the timelines."""
        by_cluster: dict[int, list[int]] = {}
        for t in tasks:
            c, p = int(self.cluster[t]), int(self.pstate[t])
            if committed:
                self.ledger.commit(self.start[t], self.end[t], self.charge_power[t, c, p], -1.0)
            by_cluster.setdefault(c, []).append(t)
            self.status[t] = MAPPABLE
            self.start[t] = self.end[t] = np.nan
            self.cluster[t] = self.pstate[t] = -1
            self.node_ids[t] = None
        return by_cluster

    def drop(self, tasks) -> None:
        tasks = set(int(t) for t in tasks)
        if tasks:
            self.status[list(tasks)] = DROPPED
            self.mappable = [t for t in self.mappable if t not in tasks]

    # -- assignment ------------------------------------------------------------------------------
    def assign(self, t: int, c: int, p: int, s: float, permanent: bool,
               why: tuple[str, str, dict] | None = None) -> None:
        """Start ``t`` now, or book a permanent reservation or a place-holder at ``s``.

        The engine's rules are checked here, before anything changes, whatever the policy.
        ``why`` (explained runs): the policy's (action if it starts now, rule, numbers)."""
        opts = self.options
        self._check(t, c, p, s)
        d = float(opts.duration[t, c, p])
        n = int(opts.nodes[t, c])
        defer = self.energy_at_start and permanent and s > self.now + EPS
        if not defer and not self.ledger.fits(s, s + d, float(self.charge_power[t, c, p])):
            raise PolicyViolation("energy-budget", None, f"task {t} on cluster {c}, P-state "
                                  f"{p} from {s} s needs more energy than the day has left")
        nodes = self.timelines[c].book(t, n, s, d)
        if defer:
            self.uncommitted.add(t)
        else:
            self.ledger.commit(s, s + d, float(self.charge_power[t, c, p]))
        self.start[t], self.end[t] = s, s + d
        self.cluster[t], self.pstate[t] = c, p
        self.node_ids[t] = nodes
        if s <= self.now + EPS:
            self._started(t)
        elif permanent:
            self.status[t] = RESERVED
            self.reservations.append(t)
        else:
            self.status[t] = PLACEHOLDER
            self.placeholders.append(t)
        if self.log is not None:
            self._explain_assign(t, c, p, s, permanent, why or ("mapped", "chosen by the policy",
                                                                 {}))

    def _check(self, t: int, c: int, p: int, s: float) -> None:
        status = self.status[t] if 0 <= t < len(self.status) else None
        if status != MAPPABLE:
            if status == PENDING:
                raise PolicyViolation("arrival", None, f"task {t} arrives at "
                                      f"{self.trial.tasks.arrival[t]} s, mapped at {self.now} s")
            raise PolicyViolation("waiting-task", None, f"task {t} is not waiting at {self.now} s")
        if not (0 <= c < len(self.timelines) and 0 <= p < self.options.duration.shape[2]
                and self.options.eligible[t, c]):
            raise PolicyViolation("eligibility", None, f"task {t} may not run on cluster {c} "
                                  f"in P-state {p}")
        if not s >= self.now - EPS:
            raise PolicyViolation("start-time", None, f"task {t} booked from {s} s at {self.now} s")

    def _started(self, t: int) -> None:
        self.status[t] = STARTED
        self.history_resources[0] += float(
            self.options.resources[t, self.cluster[t], self.pstate[t]])
        self.history_resources[1] += 1

    # -- decisions (explained runs only) -------------------------------------------------------
    def _explain_assign(self, t: int, c: int, p: int, s: float, permanent: bool,
                        why: tuple[str, str, dict]) -> None:
        # A booking for later is recorded as "held" with its reserved start; the task is
        # "mapped" when it actually starts (here, or at the event that starts it).
        action, rule, numbers = why
        if s <= self.now + EPS:
            self.log.add(self.now, t, action, rule, where=c, pstate=p, start=s, **numbers)
            heapq.heappush(self._ends, (float(self.end[t]), t))
        elif permanent:
            self.log.add(self.now, t, "held", "booked a permanent reservation at a later start",
                         rule=rule, where=c, pstate=p, start=s, **numbers)
        else:
            self.log.add(self.now, t, "held", "booked a place-holder at a later start (given "
                         "up at the next mapping event)", rule=rule, where=c, pstate=p, start=s,
                         **numbers)

    def _explain_start(self, t: int, reason: str) -> None:
        s = float(self.start[t])
        self.log.add(s, t, "mapped", reason, where=int(self.cluster[t]),
                     pstate=int(self.pstate[t]), start=s)
        heapq.heappush(self._ends, (float(self.end[t]), t))

    def _explain_completions(self, now: float) -> None:
        ends = self._ends
        while ends and ends[0][0] <= now + 1e-9:
            end, t = heapq.heappop(ends)
            self.log.add(end, t, "completed", "ran to its end", where=int(self.cluster[t]),
                         pstate=int(self.pstate[t]), utility=self.utility.value1(t, end))

    def finish_mapping(self, assigned: set[int]) -> None:
        if assigned:
            self.mappable = [t for t in self.mappable if t not in assigned]

    @property
    def n_reserved(self) -> int:
        return len(self.reservations) + len(self.placeholders)
