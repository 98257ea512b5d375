"""The Value of Service simulator: mapping events every minute on the node timelines (scheduling
framework (ch. 2 spec §6)).

At each mapping event the place-holders of the previous event are erased (permanent reservations vs.
place-holders (ch. 2 spec §6.4)), the mappable tasks (arrived, not started, not dropped, without a
permanent reservation) are handed to the policy, and the policy starts tasks now, books future
resources (a permanent reservation or a place-holder) or drops tasks. Reserved tasks start at their
reserved time; every task runs to completion without preemption or migration (simulated system
(ch. 2 spec §2.1)). A task's value is fixed when it is committed: its completion is start + ETC (Max
VPTR (ch. 2 spec §7.1)).
"""

from __future__ import annotations

import heapq

import numpy as np

from simcore.clock import RunClock
from simcore.errors import PolicyViolation

from .config import VosConfig
from .model import task_value
from .timeline import EPS, NodeTimeline
from .workload import Workload

WAITING, COMMITTED, DROPPED = 0, 1, 2
STATUS_NAMES = {WAITING: "never started", COMMITTED: "started or reserved", DROPPED: "dropped"}


class VosSim:
    """State of one run; the policies act through :meth:`options`, :meth:`earliest`,
    :meth:`values`, :meth:`assign` and :meth:`drop`."""

    def __init__(self, wl: Workload, cfg: VosConfig):
        self.wl = wl
        self.cfg = cfg
        s = cfg.system
        if s.layout == "pool":
            self.nodes = [NodeTimeline(s.cores, s.memory_gb)]
        else:
            self.nodes = [NodeTimeline(s.node_cores, s.node_memory_gb) for _ in range(s.nodes)]
        self.total_cores = s.total_cores
        self.total_memory = s.total_memory
        self.now = 0.0
        n = wl.n_tasks
        self.status = np.zeros(n, dtype=np.int64)
        self.start = np.full(n, np.nan)
        self.end = np.full(n, np.nan)
        self.node = np.full(n, -1, dtype=np.int64)
        self.config = np.full(n, -1, dtype=np.int64)
        self.cores: list[list[int] | None] = [None] * n
        self.value = np.zeros(n)
        self.v_p = np.zeros(n)
        self.v_e = np.zeros(n)
        self.placeholders: dict[int, int] = {}  # task -> node, erased at the next event
        self.placeholders_made = 0
        self.reservations_made = 0
        self.drops_at: list[float] = []
        #: The run's decision log (``simcore.decisions``) when it explains itself, else None;
        #: policies record their choices through :meth:`explain`.
        self.decisions = None
        self._ends: list[tuple[float, int]] = []  # heap of (end, task) not yet recorded
        self._said: dict[int, tuple[str, str]] = {}  # each task's last (action, reason)
        valid = np.arange(wl.cfg_cores.shape[1])[None, :] < wl.n_cfg[:, None]
        configs = np.unique(np.stack([wl.cfg_cores[valid], wl.cfg_mem[valid], wl.etc[valid]]),
                            axis=1)
        self._all_configs = (configs[0].astype(np.int64), configs[1], configs[2])

    # -- the event loop's part -----------------------------------------------------------------
    def begin_event(self, now: float) -> None:
        """Move to ``now``; place-holders of the previous event are erased (permanent reservations
        vs. place-holders (ch. 2 spec §6.4))."""
        self.now = float(now)
        if self.decisions is not None:
            self.explain_completions(self.now)
        erase = bool(self.placeholders)
        self.placeholders.clear()
        for tl in self.nodes:
            if erase:
                tl.rebuild(self.now)
            else:
                tl.advance(self.now)

    def mappable(self) -> np.ndarray:
        """Arrived, waiting tasks in arrival order (mapping events (ch. 2 spec §6.1))."""
        arrived = int(np.searchsorted(self.wl.arrival, self.now, side="right"))
        return np.flatnonzero(self.status[:arrived] == WAITING)

    # -- the decision trace (only when the run explains itself) -------------------------------
    def explain(self, task, action: str, reason: str, **numbers) -> None:
        """Record a decision about ``task`` at the current mapping event (callers check
        ``self.decisions`` first, so a run that does not explain pays nothing)."""
        self.decisions.add(self.now, int(task), action, reason, **numbers)
        self._said[int(task)] = (action, reason)

    def repeats(self, task, action: str, reason: str) -> bool:
        """Whether this would repeat the task's previous decision: the log only counts a
        repeat, so its numbers need not be worked out (a place-holder renewed every event)."""
        return self._said.get(int(task)) == (action, reason)

    def blocked(self, task: int, k: int, node: int) -> dict:
        """Why configuration ``k`` of ``task`` cannot start now on ``node``: the cores free
        long enough for its ETC and the memory free now, against what it needs."""
        wl = self.wl
        ty = wl.type[task]
        c, m, d = int(wl.cfg_cores[ty, k]), float(wl.cfg_mem[ty, k]), float(wl.etc[ty, k])
        free_c, free_m = self.nodes[node].free_now(d)
        short = [what for what, lacks in (("cores", free_c < c), ("memory", free_m < m - EPS))
                 if lacks]
        return {"blocked_by": " and ".join(short) or "bookings later in its run",
                "cores_needed": c, "cores_free": free_c, "memory_gb": m,
                "memory_free_gb": free_m}

    def drop_numbers(self, task: int, value: float) -> dict:
        """A dropped task's value against the threshold (it must earn more than 0) and why each
        allowable configuration, at its earliest start, earns nothing: ``late`` ones complete
        at or past the hard response time, ``costly`` ones use at least the hard energy
        bound; ``response_min`` and ``energy_min`` are the best any configuration does."""
        wl = self.wl
        ty = wl.type[task]
        n = int(wl.n_cfg[ty])
        d, e = wl.etc[ty, :n], wl.eec[ty, :n]
        s, _ = self.earliest(wl.cfg_cores[ty, :n], wl.cfg_mem[ty, :n], d)
        _, v_p, v_e = self.values(task, s, d, e)
        done = float(np.min(s + d))
        return {"value": float(value), "threshold": 0.0, "configs": n,
                "late": int(np.count_nonzero(v_p <= 0.0)),
                "costly": int(np.count_nonzero(v_e <= 0.0)),
                # None: no configuration ever fits the node
                "response_min": done - float(wl.arrival[task]) if np.isfinite(done) else None,
                "p_soft": float(wl.p_soft[task]), "p_hard": float(wl.p_hard[task]),
                "energy_min": float(np.min(e)), "e_soft": float(wl.e_soft[task]),
                "e_hard": float(wl.e_hard[task])}

    def explain_completions(self, until: float) -> None:
        """Record the completions up to ``until`` in the order they happened."""
        ends = self._ends
        while ends and ends[0][0] <= until:
            end, j = heapq.heappop(ends)
            self.decisions.add(end, j, "completed", "ran to completion",
                               value=float(self.value[j]), v_p=float(self.v_p[j]),
                               v_e=float(self.v_e[j]), where=int(self.node[j]))

    def explain_end(self, horizon: float) -> None:
        """At the end of the run: the last completions, and the tasks that never started."""
        self.explain_completions(horizon)
        wl = self.wl
        arrived = int(np.searchsorted(wl.arrival, horizon, side="left"))
        for j in np.flatnonzero(self.status[:arrived] == WAITING).tolist():
            self.decisions.add(horizon, j, "expired", "the run ended before it started",
                               waited_min=horizon - float(wl.arrival[j]),
                               p_hard=float(wl.p_hard[j]))

    # -- what policies use ---------------------------------------------------------------------
    def options(self, tasks: np.ndarray):
        """Per task and allowable configuration: cores, memory, ETC, EEC and a validity mask."""
        wl = self.wl
        t = wl.type[tasks]
        valid = np.arange(wl.cfg_cores.shape[1])[None, :] < wl.n_cfg[t][:, None]
        return wl.cfg_cores[t], wl.cfg_mem[t], wl.etc[t], wl.eec[t], valid

    def earliest(self, c, m, d) -> tuple[np.ndarray, np.ndarray]:
        """Earliest start over the nodes and the first node giving it, for arrays of requests."""
        if len(self.nodes) == 1:
            s, _ = self.nodes[0].earliest(c, m, d)
            return s, np.zeros(s.shape, dtype=np.int64)
        starts = np.stack([tl.earliest(c, m, d)[0] for tl in self.nodes])
        node = starts.argmin(axis=0)
        return starts[node, np.arange(starts.shape[1])], node

    def values(self, tasks, start, etc, energy):
        """(V, v_p, v_e) of tasks (broadcast against start/etc/energy) completing at
        ``start + etc`` having used ``energy`` (value of a candidate assignment
        (ch. 2 spec §6.6))."""
        wl = self.wl
        return task_value(start + etc - wl.arrival[tasks], energy, wl.p_soft[tasks],
                          wl.p_hard[tasks], wl.vp_min[tasks], wl.e_soft[tasks],
                          wl.e_hard[tasks], wl.ve_min[tasks], wl.gamma[tasks], wl.w_p[tasks],
                          wl.w_e[tasks])

    def can_start_now(self) -> bool:
        """Whether any allowable configuration of any task type could start now."""
        c, m, d = self._all_configs
        return any((tl.earliest(c, m, d)[0] == self.now).any() for tl in self.nodes)

    def assign(self, task: int, k: int, start: float, node: int, rule: str,
               placeholder: bool) -> None:
        """Start ``task`` in configuration ``k`` now, or book it from ``start`` on: a
        place-holder (``placeholder``) or a permanent reservation. ``rule`` picks the cores.
        The engine's rules are checked here, whatever the policy."""
        wl = self.wl
        self._check(task, k, start, node)
        ty = wl.type[task]
        c, m, d = int(wl.cfg_cores[ty, k]), float(wl.cfg_mem[ty, k]), float(wl.etc[ty, k])
        if rule == "voids" and len(self.nodes) > 1:  # ties between nodes: fewest, smallest voids
            best = None
            for i, tl in enumerate(self.nodes):
                s, _ = tl.earliest(c, m, d)
                if s[0] == start:
                    cores, voids, size = tl.choose(c, start, d, rule)
                    if best is None or (voids, size) < best[:2]:
                        best = (voids, size, i, cores)
            if best is None:
                raise PolicyViolation("capacity", None, f"task {task}: no node has configuration "
                                      f"{k} free from {start} min")
            node, cores = best[2], best[3]
        else:
            cores, _, _ = self.nodes[node].choose(c, start, d, rule)
        hold = placeholder and start > self.now
        self.nodes[node].book(task, cores, start, start + d, m, keep=not hold)
        if hold:
            self.placeholders[task] = node
            self.placeholders_made += 1
            return
        if start > self.now:
            self.reservations_made += 1
        energy = float(wl.eec[ty, k]) * float(wl.energy_noise[task])
        value, v_p, v_e = self.values(task, start, d, energy)
        self.status[task] = COMMITTED
        self.start[task], self.end[task] = start, start + d
        self.node[task], self.config[task] = node, k
        self.cores[task] = cores.tolist()
        self.value[task], self.v_p[task], self.v_e[task] = float(value), float(v_p), float(v_e)
        if self.decisions is not None:
            heapq.heappush(self._ends, (start + d, int(task)))

    def _check(self, task: int, k: int, start: float, node: int) -> None:
        wl = self.wl
        if not (0 <= task < len(self.status) and self.status[task] == WAITING
                and task not in self.placeholders):
            raise PolicyViolation("waiting-task", None, f"task {task} is not waiting at "
                                  f"{self.now} min")
        if wl.arrival[task] > self.now:
            raise PolicyViolation("arrival", None, f"task {task} arrives at {wl.arrival[task]} "
                                  f"min, mapped at {self.now} min")
        if not (0 <= k < wl.n_cfg[wl.type[task]] and 0 <= node < len(self.nodes)):
            raise PolicyViolation("eligibility", None, f"task {task}: configuration {k} on node "
                                  f"{node} is not one of its own")
        if not start >= self.now:
            raise PolicyViolation("start-time", None, f"task {task} booked from {start} min at "
                                  f"{self.now} min")

    def drop(self, task: int) -> None:
        if not (0 <= task < len(self.status) and self.status[task] == WAITING):
            raise PolicyViolation("waiting-task", None, f"task {task} dropped at {self.now} min "
                                  "is not waiting")
        self.status[task] = DROPPED
        self.drops_at.append(self.now)

    # -- state for the series ------------------------------------------------------------------
    def cores_busy(self) -> int:
        return sum(tl.cores_busy_now() for tl in self.nodes)

    def memory_used(self) -> float:
        return sum(tl.memory_used_now() for tl in self.nodes)


class RunRecord:
    """What a finished run hands to :mod:`.result`."""

    def __init__(self, sim: VosSim, events: dict, policy):
        self.sim = sim
        self.events = events
        self.policy = policy


def run_simulation(wl: Workload, cfg: VosConfig, policy, clock: RunClock,
                   decisions=None) -> RunRecord:
    """``decisions``: a ``simcore.decisions.DecisionLog`` to record why each task was started,
    booked, dropped, or left waiting (times in minutes), or None."""
    sim = VosSim(wl, cfg)
    sim.decisions = decisions
    r = cfg.scheduler
    duration = r.duration_h * 60.0
    n_events = int(np.ceil(duration / r.interval_min - 1e-9))
    events = {k: [] for k in ("t_min", "mappable", "started", "placeholders", "dropped",
                              "cores_busy", "memory_used", "running")}
    for e in range(n_events):
        now = e * r.interval_min
        with clock.event():
            sim.begin_event(now)
            tasks = sim.mappable()
            dropped_before = len(sim.drops_at)
            if tasks.size:
                policy.map(sim, tasks)
        # Tasks that started since the last event: this one's starts and reservations that
        # came due in between.
        started = int(np.count_nonzero((sim.start > now - r.interval_min) & (sim.start <= now)))
        running = int(np.count_nonzero((sim.start <= now) & (sim.end > now)))
        events["t_min"].append(now)
        events["mappable"].append(int(tasks.size))
        events["started"].append(started)
        events["placeholders"].append(len(sim.placeholders))
        events["dropped"].append(len(sim.drops_at) - dropped_before)
        events["cores_busy"].append(sim.cores_busy())
        events["memory_used"].append(sim.memory_used())
        events["running"].append(running)
        clock.report(now / duration)
    if decisions is not None:
        sim.explain_end(duration)
    return RunRecord(sim, events, policy)


__all__ = ["COMMITTED", "DROPPED", "STATUS_NAMES", "WAITING", "RunRecord", "VosSim",
           "run_simulation"]
