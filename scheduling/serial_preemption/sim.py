"""State of one ch4 simulation: cores, tasks, groups of waiting tasks, and the event step.

Mapping happens only on the timer (ch. 4 spec §8.1; timer-only mapping events, ch. 4 spec A10), so
the simulation is a loop over mapping events: at each event, completions due by ``t_now`` free their
cores, bursts due by ``t_now`` arrive, hopeless waiting tasks are dropped (task dropping
(ch. 4 spec §8.2)), and the policy starts and suspends tasks through :meth:`SerialSim.start` and
:meth:`SerialSim.preempt`. Nothing else can happen between events, so this is exact.

Waiting tasks live in *groups* (``g_next..g_end`` id ranges): a fresh group holds the
not-yet-started tasks of one burst that share both flags; a suspended task forms a singleton
group with its own progress and bound cluster (performance (ch. 4 spec §15.1)). Groups only shrink
from the front, so the lowest id is always taken first (the spec's phase-2 tie-break).
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field

import numpy as np

from simcore.clock import RunClock
from simcore.errors import PolicyViolation

from .ufast import FastUtility
from .workload import Workload

EPS = 1e-9

WAITING, RUNNING, DONE, DROPPED = 0, 1, 2, 3
STATUS_NAMES = {WAITING: "waiting", RUNNING: "running", DONE: "completed", DROPPED: "dropped"}


@dataclass
class Context:
    """The waiting groups at one mapping event, after dropping, with their objective values.

    Row ``i`` describes simulator group ``gidx[i]``; ``util``, ``ret`` and ``allowed`` are
    (groups x clusters). Disallowed pairs have ``util = 0``.
    """

    gidx: np.ndarray
    lead: np.ndarray  # the group's lowest task id
    count: np.ndarray
    arrival: np.ndarray
    urow: np.ndarray
    scale: np.ndarray
    can_preempt: np.ndarray
    ret: np.ndarray
    util: np.ndarray
    valid: np.ndarray  # util above the dropping threshold
    crank: np.ndarray  # cluster preference for ties, lower first

    def obj(self, mode: str) -> np.ndarray:
        if mode == "util":
            return self.util
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.valid, self.util / self.ret, 0.0)


class SerialSim:
    def __init__(self, wl: Workload, *, warmup: float, duration: float, interval: float = 1.0,
                 min_utility: float = 0.0, tie_break: str = "index",
                 tie_rng: np.random.Generator | None = None, trace: bool = False):
        self.wl = wl
        # trace: keep every execution segment (task, core, start, end) for invariant checks.
        self.trace: list[tuple[int, int, float, float]] | None = [] if trace else None
        self.window = (float(warmup), float(duration))
        self.duration = float(duration)
        self.interval = float(interval)
        self.min_utility = float(min_utility)
        self.tie_break = tie_break
        self.tie_rng = tie_rng
        self.etc = np.asarray(wl.etc, dtype=float)
        self.ufast = FastUtility(wl.table)
        self.K = int(len(wl.cores))
        cores = np.asarray(wl.cores, dtype=np.int64)
        self.M = int(cores.sum())
        self.core_cluster = np.repeat(np.arange(self.K), cores)
        first = np.concatenate([[0], np.cumsum(cores)[:-1]])
        # Idle cores per cluster as min-heaps: the lowest index is used first (tie-breaking
        # (ch. 4 spec §8.4)).
        self.idle: list[list[int]] = [list(range(int(f), int(f + c)))
                                      for f, c in zip(first, cores, strict=True)]
        self.c_task = np.full(self.M, -1, dtype=np.int64)
        self.c_end = np.full(self.M, np.inf)
        self.c_util = np.zeros(self.M)  # utility the running task earns at c_end
        # The event that started each running task (the tests' literal Pair reads it for the
        # per-event guard).
        self.c_event = np.full(self.M, -1, dtype=np.int64)

        n = wl.n_tasks
        self.t_type = wl.type
        self.t_arr = wl.arrival
        self.t_urow = wl.urow
        self.t_scale = wl.scale
        self.t_cp = np.asarray(wl.can_preempt, dtype=bool)
        self.t_pre = np.asarray(wl.preemptible, dtype=bool)
        self.t_crit = wl.critical
        self.status = np.zeros(n, dtype=np.int8)
        self.executed = np.zeros(n)
        self.bound = np.full(n, -1, dtype=np.int64)
        self.first_start = np.full(n, np.nan)
        self.end = np.full(n, np.nan)
        self.last_cluster = np.full(n, -1, dtype=np.int64)
        self.npre = np.zeros(n, dtype=np.int64)
        self.in_window = np.zeros(n)
        self.seg_start = np.full(n, np.nan)
        self.util = np.zeros(n)
        self.credit = np.zeros(n)

        n0 = int(wl.group_start.size)
        cap = max(16, 2 * n0)
        self.g_next = np.zeros(cap, dtype=np.int64)
        self.g_end = np.zeros(cap, dtype=np.int64)
        self.g_alive = np.zeros(cap, dtype=bool)
        self.g_next[:n0] = wl.group_start
        self.g_end[:n0] = wl.group_end
        self.n_groups = n0
        self.n_fresh = n0
        self.g_arrival = wl.arrival[wl.group_start] if n0 else np.zeros(0)
        self.arrived = 0

        self.now = 0.0
        self.event = -1
        self.log_t: list[float] = []
        self.log_task: list[int] = []
        self.log_core: list[int] = []
        self.log_kind: list[int] = []  # 0 suspend, 1 resume
        self.ev_assigned = 0
        self.ev_preempted = 0
        self.ev_dropped = 0
        self.preemptions = 0
        self.dropped = 0

    # -- groups -----------------------------------------------------------------------------------
    def take(self, g: int) -> int:
        """Remove and return the lowest task id of group ``g``."""
        task = int(self.g_next[g])
        self.g_next[g] = task + 1
        if task + 1 >= self.g_end[g]:
            self.g_alive[g] = False
        return task

    def new_singleton(self, task: int) -> int:
        if self.n_groups == self.g_next.size:
            for name in ("g_next", "g_end", "g_alive"):
                old = getattr(self, name)
                new = np.zeros(2 * old.size, dtype=old.dtype)
                new[: old.size] = old
                setattr(self, name, new)
        g = self.n_groups
        self.n_groups += 1
        self.g_next[g] = task
        self.g_end[g] = task + 1
        self.g_alive[g] = True
        return g

    # -- task transitions -------------------------------------------------------------------------
    def start(self, task: int, core: int, util: float) -> None:
        """Start (or resume) ``task`` on the idle ``core`` now; ``util`` is U at completion.

        The engine's rules are checked here, whatever the policy."""
        now = self.now
        if not (0 <= task < len(self.status) and self.status[task] == WAITING):
            raise PolicyViolation("waiting-task", None, f"task {task} is not waiting at {now} min")
        if self.t_arr[task] > now + EPS:
            raise PolicyViolation("arrival", None, f"task {task} arrives at "
                                  f"{self.t_arr[task]} min, started at {now} min")
        if not 0 <= core < self.M:
            raise PolicyViolation("capacity", None, f"task {task} started on core {core}, "
                                  f"of {self.M}")
        j = int(self.core_cluster[core])
        bound = self.bound[task]
        if bound >= 0 and bound != j:
            raise PolicyViolation("bound-cluster", None, f"task {task} is bound to cluster "
                                  f"{bound}, resumed on {j} at {now} min")
        if self.c_task[core] >= 0:
            raise PolicyViolation("capacity", None, f"task {task} started at {now} min on core "
                                  f"{core}, which runs task {self.c_task[core]}")
        ret = self.etc[self.t_type[task], j] - self.executed[task]
        self.c_task[core] = task
        self.c_end[core] = now + ret
        self.c_util[core] = util
        self.c_event[core] = self.event
        self.status[task] = RUNNING
        self.seg_start[task] = now
        if math.isnan(self.first_start[task]):
            self.first_start[task] = now
        if self.npre[task] > 0:
            self._log(task, core, 1)
        self.last_cluster[task] = j
        self.ev_assigned += 1

    def preempt(self, core: int) -> int:
        """Suspend the task on ``core`` now, keeping its progress; returns the task id."""
        task = int(self.c_task[core]) if 0 <= core < self.M else -1
        now = self.now
        if task < 0 or not self.t_pre[task]:
            raise PolicyViolation("preemptible", None, f"core {core} at {now} min runs "
                                  + ("no task" if task < 0 else f"task {task}, not preemptible"))
        s = self.seg_start[task]
        self.executed[task] += now - s
        self.in_window[task] += self._overlap(s, now)
        if self.trace is not None:
            self.trace.append((task, core, float(s), now))
        if self.executed[task] > 0:
            self.bound[task] = self.core_cluster[core]
        self.npre[task] += 1
        self.status[task] = WAITING
        self.c_task[core] = -1
        self.c_end[core] = np.inf
        self._log(task, core, 0)
        self.ev_preempted += 1
        self.preemptions += 1
        return task

    def _complete(self, core: int) -> None:
        task = int(self.c_task[core])
        ct = float(self.c_end[core])
        s = self.seg_start[task]
        self.executed[task] += ct - s
        self.in_window[task] += self._overlap(s, ct)
        if self.trace is not None:
            self.trace.append((task, core, float(s), ct))
        self._book(task, core, ct)
        self.status[task] = DONE
        self.c_task[core] = -1
        self.c_end[core] = np.inf
        heapq.heappush(self.idle[int(self.core_cluster[core])], core)

    def _book(self, task: int, core: int, ct: float) -> None:
        j = int(self.core_cluster[core])
        self.util[task] = self.c_util[core]
        self.end[task] = ct
        self.credit[task] = (self.c_util[core] * self.in_window[task]
                             / self.etc[self.t_type[task], j])

    def _overlap(self, s: float, e: float) -> float:
        w0, w1 = self.window
        return max(0.0, min(e, w1) - max(s, w0))

    def _log(self, task: int, core: int, kind: int) -> None:
        self.log_t.append(self.now)
        self.log_task.append(task)
        self.log_core.append(core)
        self.log_kind.append(kind)

    # -- event step -------------------------------------------------------------------------------
    def advance(self, t: float) -> None:
        """Move to time ``t``: complete due tasks, then admit due bursts."""
        self.now = t
        due = np.flatnonzero(self.c_end <= t + EPS)
        if due.size:
            for core in due[np.lexsort((due, self.c_end[due]))].tolist():
                self._complete(core)
        n0 = self.n_fresh
        while self.arrived < n0 and self.g_arrival[self.arrived] <= t + EPS:
            self.g_alive[self.arrived] = True
            self.arrived += 1

    def begin_event(self) -> Context:
        """Start a mapping event at ``self.now``: drop hopeless tasks and value the rest."""
        self.event += 1
        self.ev_assigned = self.ev_preempted = self.ev_dropped = 0
        t = self.now
        gidx = np.flatnonzero(self.g_alive[: self.n_groups])
        lead = self.g_next[gidx]
        ty = self.t_type[lead]
        arr = self.t_arr[lead]
        urow = self.t_urow[lead]
        scale = self.t_scale[lead]
        bound = self.bound[lead]
        ret = self.etc[ty] - self.executed[lead][:, None]
        allowed = (bound[:, None] < 0) | (bound[:, None] == np.arange(self.K))
        util = self.ufast.value(urow[:, None], scale[:, None], t + ret - arr[:, None])
        util = np.where(allowed, util, 0.0)
        valid = util > self.min_utility
        keep = valid.any(axis=1)
        if not keep.all():
            for g in gidx[~keep].tolist():
                a, b = int(self.g_next[g]), int(self.g_end[g])
                self.status[a:b] = DROPPED
                self.g_alive[g] = False
                self.ev_dropped += b - a
            self.dropped += self.ev_dropped
            gidx, lead, arr, urow = gidx[keep], lead[keep], arr[keep], urow[keep]
            scale, ret, util, valid = scale[keep], ret[keep], util[keep], valid[keep]
        count = self.g_end[gidx] - lead
        return Context(gidx=gidx, lead=lead, count=count, arrival=arr, urow=urow, scale=scale,
                       can_preempt=self.t_cp[lead], ret=ret, util=util, valid=valid,
                       crank=self._crank(ret))

    def _crank(self, ret: np.ndarray) -> np.ndarray:
        g = ret.shape[0]
        if self.tie_break == "fastest":
            return np.argsort(np.argsort(ret, axis=1, kind="stable"), axis=1, kind="stable")
        if self.tie_break == "random":
            rank = np.argsort(self.tie_rng.permutation(self.K))
            return np.broadcast_to(rank, (g, self.K))
        return np.broadcast_to(np.arange(self.K), (g, self.K))

    # -- running tasks ----------------------------------------------------------------------------
    def running_values(self, mode: str, cores: np.ndarray | None = None) -> np.ndarray:
        """Val(r) of the tasks on ``cores`` (default: all busy cores) at ``self.now``."""
        if cores is None:
            cores = np.flatnonzero(self.c_task >= 0)
        if mode == "util":
            return self.c_util[cores]
        return self.c_util[cores] / (self.c_end[cores] - self.now)

    def victim_heaps(self, mode: str) -> list[list[tuple[float, int]]]:
        """Per cluster, the running preemptible tasks as a min-heap of (Val, core)."""
        busy = np.flatnonzero(self.c_task >= 0)
        busy = busy[self.t_pre[self.c_task[busy]]]
        val = self.running_values(mode, busy)
        heaps: list[list[tuple[float, int]]] = [[] for _ in range(self.K)]
        order = np.lexsort((busy, val))
        for v, core, j in zip(val[order].tolist(), busy[order].tolist(),
                              self.core_cluster[busy[order]].tolist(), strict=True):
            heaps[j].append((v, core))  # sorted input is already a valid heap
        return heaps

    def busy_cores(self) -> int:
        return int(np.count_nonzero(self.c_task >= 0))

    def critical_running(self) -> int:
        busy = self.c_task[self.c_task >= 0]
        return int(np.count_nonzero(self.t_crit[busy]))

    # -- end of run -------------------------------------------------------------------------------
    def finish(self) -> None:
        """End of the horizon: complete due tasks, project the running ones to completion
        without preemption (end-of-run credit, ch. 4 spec A12)."""
        self.advance(self.duration)
        for core in np.flatnonzero(self.c_task >= 0).tolist():
            task = int(self.c_task[core])
            self.in_window[task] += self._overlap(self.seg_start[task], float(self.c_end[core]))
            if self.trace is not None:
                self.trace.append((task, core, float(self.seg_start[task]),
                                   float(self.c_end[core])))
            self._book(task, core, float(self.c_end[core]))


@dataclass
class RunRecord:
    sim: SerialSim
    policy: object
    event_t: list[float] = field(default_factory=list)
    mappable: list[int] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    assigned: list[int] = field(default_factory=list)
    preempted: list[int] = field(default_factory=list)
    running: list[int] = field(default_factory=list)
    critical_running: list[int] = field(default_factory=list)


def run_simulation(wl: Workload, policy, *, warmup: float, duration: float,
                   interval: float = 1.0, min_utility: float = 0.0, tie_break: str = "index",
                   tie_rng: np.random.Generator | None = None,
                   clock: RunClock | None = None, trace: bool = False) -> RunRecord:
    """Simulate ``wl`` under ``policy`` (an object with ``map(sim, ctx)``)."""
    clock = clock or RunClock()
    sim = SerialSim(wl, warmup=warmup, duration=duration, interval=interval,
                    min_utility=min_utility, tie_break=tie_break, tie_rng=tie_rng,
                    trace=trace)
    rec = RunRecord(sim, policy)
    n_events = max(1, math.ceil(duration / interval - 1e-9))
    perf = time.perf_counter
    for e in range(n_events):
        t0 = perf()
        sim.advance(e * interval)
        ctx = sim.begin_event()
        rec.mappable.append(int(ctx.count.sum()))
        policy.map(sim, ctx)
        clock.record(perf() - t0)
        rec.event_t.append(sim.now)
        rec.dropped.append(sim.ev_dropped)
        rec.assigned.append(sim.ev_assigned)
        rec.preempted.append(sim.ev_preempted)
        rec.running.append(sim.busy_cores())
        rec.critical_running.append(sim.critical_running())
        clock.report((e + 1) / n_events)
    sim.finish()
    return rec
