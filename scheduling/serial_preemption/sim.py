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
import string
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

# Why a group of tasks still waits after a mapping event (what ``SerialSim.hold`` records).
BUSY = "every cluster where it can still earn utility is busy"
BUSY_NO_VICTIM = (BUSY + ", and on each of them no running task it may preempt is worth less "
                  "than it is there (where it comes closest: its value there against the "
                  "lowest running one there)")


def cluster_names(k: int) -> list[str]:
    letters = string.ascii_uppercase
    return [letters[j] if j < 26 else f"C{j}" for j in range(k)]


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


# Decisions kept in a task's story, by whether the policy preempts: only sizes the sample
# taken before the run. Measured over ch4-small, ch4-baseline and ch4-decay-fast (seed 0):
# 2.38-2.50 a task without preemption (a start, an end, a wait or a drop for some), 3.09-3.91
# with it. Too low costs a thinning during the run, which throws away the stories of half the
# tasks recorded (the estimate of 2 did so on ch4-baseline: Max UPT's trace +40%, +29% with
# this one); too high keeps one task in 2s where the limit allows one in s.
DECISIONS_PER_TASK = (2.4, 3.4)


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
        # The cause of waiting last recorded per group (a code of ``_causes``; 0: none). A task
        # is held at the event it starts to wait, and again only when the cause changes:
        # recording every waiting task at every event would cost more than the run.
        self.g_held = np.zeros(cap, dtype=np.int32)
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
        #: The run's decision log (``simcore.decisions``) when it explains itself, else None;
        #: the policies record their choices through :meth:`explain_start`,
        #: :meth:`explain_preempt` and :meth:`hold`. Tasks are named by their id.
        self.decisions = None
        #: Per task id, whether its decisions are recorded (None: not explaining). Tasks are
        #: sampled before the run, so one the sampling leaves out costs a look-up.
        self.noted: list[bool] | None = None
        self.names = cluster_names(self.K)
        self._causes: dict[str, int] = {}
        self.held_now: set[int] = set()  # the groups the policy explained in this event
        # The victim heaps a preemptive policy compared waiting tasks with in this event
        # (``victim_heaps``, kept current as it went), for ``explain_waiting``; None: none
        self.event_victims: list | None = None
        # and the values it gave the tasks it suspended in this event, by their new group:
        # {group: [(cluster, value)]} (they re-enter with their value as victims)
        self.event_values: dict[int, list[tuple[int, float]]] | None = None
        # Groups whose cause of waiting may have changed since the last event: the ones new
        # since (fresh ones below ``_fresh_seen`` arrived, suspended ones from ``_groups_seen``
        # on) and those a policy gave a cause of its own (it may not give one next time).
        self._fresh_seen = 0
        self._groups_seen = n0
        self._policy_held: set[int] = set()

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
            for name in ("g_next", "g_end", "g_alive", "g_held"):
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
        j = int(self.core_cluster[core])
        heapq.heappush(self.idle[j], core)
        if self.noted is not None and self.noted[task]:
            self.decisions.add(ct, task, "completed", "ran its remaining execution time",
                               where=self.names[j], core=core, utility=float(self.util[task]),
                               preemptions=int(self.npre[task]))

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
        if self.decisions is not None:
            self.held_now.clear()
            self.event_victims = self.event_values = None
        gidx = np.flatnonzero(self.g_alive[: self.n_groups])
        lead = self.g_next[gidx]
        arr = self.t_arr[lead]
        urow = self.t_urow[lead]
        scale = self.t_scale[lead]
        ret, util = self._values(lead)
        valid = util > self.min_utility
        keep = valid.any(axis=1)
        if not keep.all():
            log = self.decisions
            for i in np.flatnonzero(~keep).tolist():
                g = int(gidx[i])
                a, b = int(self.g_next[g]), int(self.g_end[g])
                self.status[a:b] = DROPPED
                self.g_alive[g] = False
                self.ev_dropped += b - a
                if log is not None:
                    self._explain_drop(a, b, util[i])
            self.dropped += self.ev_dropped
            gidx, lead, arr, urow = gidx[keep], lead[keep], arr[keep], urow[keep]
            scale, ret, util, valid = scale[keep], ret[keep], util[keep], valid[keep]
        count = self.g_end[gidx] - lead
        return Context(gidx=gidx, lead=lead, count=count, arrival=arr, urow=urow, scale=scale,
                       can_preempt=self.t_cp[lead], ret=ret, util=util, valid=valid,
                       crank=self._crank(ret))

    def _values(self, lead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per task of ``lead`` and cluster: the remaining execution time, and the utility if
        started now (0 on a cluster other than the one a suspended task is bound to)."""
        bound = self.bound[lead]
        ret = self.etc[self.t_type[lead]] - self.executed[lead][:, None]
        allowed = (bound[:, None] < 0) | (bound[:, None] == np.arange(self.K))
        util = self.ufast.value(self.t_urow[lead][:, None], self.t_scale[lead][:, None],
                                self.now + ret - self.t_arr[lead][:, None])
        return ret, np.where(allowed, util, 0.0)

    def _crank(self, ret: np.ndarray) -> np.ndarray:
        g = ret.shape[0]
        if self.tie_break == "fastest":
            return np.argsort(np.argsort(ret, axis=1, kind="stable"), axis=1, kind="stable")
        if self.tie_break == "random":
            rank = np.argsort(self.tie_rng.permutation(self.K))
            return np.broadcast_to(rank, (g, self.K))
        return np.broadcast_to(np.arange(self.K), (g, self.K))

    # -- the decision trace (only with a log: callers check ``self.decisions`` first) -----------
    def _explain_drop(self, a: int, b: int, util: np.ndarray) -> None:
        """Tasks ``a..b-1`` of one group were dropped: no cluster they may use gives them
        more utility than the threshold (``util``: theirs per cluster, if started now)."""
        j = int(util.argmax())
        bound = int(self.bound[a])
        numbers = {"utility": float(util[j]), "threshold": self.min_utility,
                   "best_where": self.names[j], "waited": self.now - float(self.t_arr[a])}
        if bound >= 0:  # suspended with progress: it may only resume where it ran
            numbers["bound_to"] = self.names[bound]
        noted = self.noted
        self.decisions.add_each(self.now, [task for task in range(a, b) if noted[task]],
                                "dropped", "its utility if started now, on any cluster it may "
                                "use, is no more than the dropping threshold", numbers)

    def explain_start(self, task: int, core: int, reason: str, **numbers) -> None:
        """Record that ``task`` starts on ``core`` now (a task suspended before *resumes*);
        callers ask ``noted[task]`` first."""
        action = "resumed" if self.npre[task] else "mapped"
        self.decisions.add(self.now, task, action, reason,
                           where=self.names[int(self.core_cluster[core])], core=core, **numbers)

    def explain_preempt(self, core: int, by: int, reason: str, **numbers) -> None:
        """Record that the task on ``core`` is suspended now to make room for task ``by``;
        callers ask ``noted`` (about the suspended task) first."""
        self.decisions.add(self.now, int(self.c_task[core]), "preempted", reason, by=by,
                           where=self.names[int(self.core_cluster[core])], core=core,
                           **numbers)

    def _cause(self, reason: str) -> int:
        return self._causes.setdefault(reason, len(self._causes) + 1)

    def still_held(self, g: int, reason: str) -> bool:
        """Whether ``reason`` is already recorded as why group ``g`` waits (then it counts as
        explained in this event, and :meth:`hold` need not work out its numbers)."""
        if self.g_held[g] == self._cause(reason):
            self.held_now.add(g)
            return True
        return False

    def hold(self, g: int, reason: str, **numbers) -> None:
        """Record that the tasks of group ``g`` wait after this event, and why; a cause
        already recorded for the group is not recorded again."""
        if self.still_held(g, reason):
            return
        self._record_hold(g, reason, self._held_tasks(g, reason), numbers)

    def _held_tasks(self, g: int, reason: str) -> list[int]:
        """Mark ``reason`` as why group ``g`` waits now; its tasks the log wants to hear of."""
        self.held_now.add(g)
        self.g_held[g] = self._cause(reason)
        if reason is BUSY or reason is BUSY_NO_VICTIM:
            self._policy_held.discard(g)
        else:
            self._policy_held.add(g)
        noted = self.noted
        return [task for task in range(int(self.g_next[g]), int(self.g_end[g])) if noted[task]]

    def _record_hold(self, g: int, reason: str, tasks: list[int], numbers: dict) -> None:
        self.decisions.add_each(self.now, tasks, "held", reason, numbers)

    def explain_waiting(self, mode: str, preempts: bool) -> None:
        """After the policy's turn: why the tasks it left waiting (and did not explain itself)
        wait. A heuristic leaves a task only when every cluster where it can still earn utility
        has no idle core (and, for a preemptive one, no running preemptible task worth less
        than the task, by ``mode``)."""
        n = self.n_groups
        cand = [*range(self._fresh_seen, self.arrived), *range(self._groups_seen, n)]
        if self._policy_held:
            self._policy_held = {g for g in self._policy_held if self.g_alive[g]}
            cand += [g for g in self._policy_held if g < self._groups_seen]
        self._fresh_seen, self._groups_seen = self.arrived, n
        alive, held, held_now, cp = self.g_alive, self.g_held, self.held_now, self.t_cp
        codes = (self._cause(BUSY), self._cause(BUSY_NO_VICTIM))
        told = []  # the groups with tasks the log wants to hear of, and those tasks
        for g in cand:
            if not alive[g] or g in held_now:
                continue
            c = preempts and bool(cp[self.g_next[g]])
            if held[g] == codes[c]:
                continue
            tasks = self._held_tasks(g, BUSY_NO_VICTIM if c else BUSY)
            if tasks:
                told.append((g, c, tasks))
        if not told:
            return
        gidx = np.array([g for g, _, _ in told], dtype=np.int64)
        ret, util = self._values(self.g_next[gidx])
        valid = util > self.min_utility
        value = np.where(valid, util if mode == "util" else util / ret, -np.inf)
        if self.event_values:  # a task suspended in this event: the values the policy used
            for k, (g, _, _) in enumerate(told):
                rows = self.event_values.get(g)
                if rows is not None:
                    value[k] = -np.inf
                    for j, o in rows:
                        value[k, j] = o
                    valid[k] = value[k] > -np.inf
        if any(c for _, c, _ in told):
            # The rule is per cluster (a task preempts on a cluster where it is worth more than
            # the lowest running preemptible task there), so the numbers are one cluster's: the
            # one where its value comes closest to that task's (-inf: it cannot run there, or
            # no task there may be preempted)
            # (the policy's own heaps where it kept them: a task started in this event is in
            # them with the value it started with, which its running value can miss by a bit)
            heaps = self.event_victims or self.victim_heaps(mode)
            lowest = np.array([h[0][0] if h else np.inf for h in heaps])
            gap = value - lowest
            closest = gap.argmax(axis=1).tolist()
        best = value.argmax(axis=1).tolist()
        for k, ((g, c, tasks), j) in enumerate(zip(told, best, strict=True)):
            numbers = {"value": float(value[k, j]), "best_where": self.names[j],
                       "clusters": int(valid[k].sum())}
            if c:
                i = closest[k]
                if gap[k, i] > -np.inf:
                    numbers.update(closest_where=self.names[i], value_there=float(value[k, i]),
                                   lowest_running=float(lowest[i]))
                else:
                    numbers.update(closest_where=None, value_there=None, lowest_running=None)
            self._record_hold(g, BUSY_NO_VICTIM if c else BUSY, tasks, numbers)

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
                   clock: RunClock | None = None, trace: bool = False,
                   decisions=None) -> RunRecord:
    """Simulate ``wl`` under ``policy`` (an object with ``map(sim, ctx)``); ``decisions`` (a
    ``simcore.decisions.DecisionLog``) records why each task started, waited, was suspended,
    dropped or completed."""
    clock = clock or RunClock()
    sim = SerialSim(wl, warmup=warmup, duration=duration, interval=interval,
                    min_utility=min_utility, tie_break=tie_break, tie_rng=tie_rng,
                    trace=trace)
    sim.decisions = decisions
    if decisions is not None:
        decisions.time_unit = "min"
        mode = getattr(policy, "mode", "util")
        preempts = getattr(policy, "preempts", False)
        # Sampled before the run: a task the sampling leaves out is then one list look-up.
        keep = decisions.sample_up_front(np.arange(wl.n_tasks),
                                         DECISIONS_PER_TASK[bool(preempts)])
        sim.noted = [True] * wl.n_tasks if keep is None else keep.tolist()
    rec = RunRecord(sim, policy)
    n_events = max(1, math.ceil(duration / interval - 1e-9))
    perf = time.perf_counter
    for e in range(n_events):
        t0 = perf()
        sim.advance(e * interval)
        ctx = sim.begin_event()
        rec.mappable.append(int(ctx.count.sum()))
        policy.map(sim, ctx)
        if decisions is not None:
            sim.explain_waiting(mode, preempts)
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
