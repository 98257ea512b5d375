"""One grid simulation: per-node queues, the event loop and the scheduling ticks (system model to
FCFS with backfilling (grid spec §2-7)).

**Events.** Job arrivals (after matchmaking, workload (grid spec §3)), completions (a heap with lazy
invalidation by run epoch, implementation notes (grid spec §11)) and the periodic tick every
``delta_s`` (global and synchronous). At one instant every completion and arrival takes effect first
(completions before arrivals), then each node they touched runs its local scheduler once (when the
scheduler runs (grid spec §5.1)), then the tick, if one falls on that instant. A tick runs local
scheduling on the nodes, then PUSH, then PULL (then queue balancing), with the node order of each
phase drawn afresh per tick (implementation notes (grid spec §11)).

**Only nodes that changed are touched.** Between events a node's local schedule is a fixed
point as long as ``alpha <= beta`` (queued jobs gain priority at rate alpha, running ones at
rate beta, so no queued job can newly outrank a running one), except after a preemption
(the freed surplus is used at the next invocation) or a migration that started a job without
an invocation; those nodes are kept for the next tick. Priorities of queued jobs all move
together, so a PUSH or PULL that failed keeps failing until something in the node's
neighbourhood changes. Each phase therefore visits only the nodes whose closed neighbourhood
changed since their last visit, in the phase's random order (a per-tick hash of the seed, the
tick and the node, so that any node set can be ordered without drawing for all nodes); a node
that changes mid-phase is queued for the rest of the phase when its turn is still ahead, and
for the next tick otherwise. PULL remembers whom it contacted (grid spec §6.3); the contacts a
skipped node would have made are replayed arithmetically when it is next visited. Ticks with
nothing to visit are skipped. ``naive=True`` visits every node at every tick instead (tests
compare both).

**Data.** Per-node capacities, free resources, queues and running sets, and per-job state
live in Python lists (the inner loops touch single elements, where lists beat numpy scalars);
the workload and the results are numpy arrays. A queue is a list of ``(-kappa, arrival at the
node, job)`` kept sorted, where ``kappa + alpha t`` is the job's priority ``alpha W - beta
T_rem`` (grid spec §4); FCFS queues use 0 for ``-kappa``, which leaves arrival order.
"""

from __future__ import annotations

import heapq
import math
import time
from bisect import insort
from dataclasses import dataclass, field

import numpy as np

from simcore.clock import RunClock
from simcore.errors import PolicyViolation

from .policies.balance import balance
from .policies.base import GridScheduler
from .policies.internode import pull, push
from .workload import Workload

PENDING, QUEUED, RUNNING, DONE = 0, 1, 2, 3
INF = math.inf
M64 = (1 << 64) - 1
PUSH_PHASE, PULL_PHASE, QB_PHASE = 1, 2, 3
MOVES = ("push", "pull", "balance")  # migration kinds, as the result's migration log names them


def _mix(x: int) -> int:
    """splitmix64's finalizer: a bijection on 64-bit integers with good avalanche."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


@dataclass
class Options:
    alpha: float = 0.0
    beta: float = 1.0
    delta: float = 5.0
    victims: str = "exact"
    pull_recent: int = 3
    migrate_suspended: bool = False
    migrated_start: str = "now"
    load: str = "queued"
    sample_s: float = 60.0


@dataclass
class Log:
    """What the result needs besides the final job state."""

    mig_t: list = field(default_factory=list)
    mig_job: list = field(default_factory=list)
    mig_from: list = field(default_factory=list)
    mig_to: list = field(default_factory=list)
    mig_kind: list = field(default_factory=list)  # 0 push, 1 pull, 2 queue balancing
    pre_t: list = field(default_factory=list)
    pre_job: list = field(default_factory=list)
    pre_node: list = field(default_factory=list)
    tick_t: list = field(default_factory=list)
    tick_visits: list = field(default_factory=list)
    tick_moves: list = field(default_factory=list)
    sample_t: list = field(default_factory=list)
    sample_used: list = field(default_factory=list)  # per sample: used cores per node
    sample_queue: list = field(default_factory=list)  # per sample: queued jobs per node
    sample_done: list = field(default_factory=list)
    segments: list | None = None  # (job, node, start, end) when tracing


class GridSim:
    def __init__(self, wl: Workload, scheduler: GridScheduler, opts: Options, seed: int, *,
                 neighbours: list[tuple[int, ...]] | None = None, naive: bool = False,
                 trace: bool = False):
        self.wl = wl
        self.sched = scheduler
        self.opts = opts
        self.naive = naive
        nodes, jobs = wl.nodes, wl.jobs
        self.n = n = len(nodes)
        self.m = m = len(jobs)
        self.alpha, self.beta = float(opts.alpha), float(opts.beta)
        self.preemptive = scheduler.preemptive
        self.internode = scheduler.overlay is not None
        self.balancing = scheduler.balance
        self.local = scheduler.local
        self.time_dependent = self.preemptive and self.alpha > self.beta
        self.nbrs = neighbours if neighbours is not None else [() for _ in range(n)]
        self.closed = [(u, *self.nbrs[u]) for u in range(n)]
        self.rank_key = _mix(int(seed) * 0x2545F4914F6CDD1D + 0x51ED27)

        # Nodes.
        self.cap_c = nodes.cores.tolist()
        self.cap_m = nodes.mem.tolist()
        self.cap_d = nodes.disk.tolist()
        self.speed = nodes.speed.tolist()
        self.free_c = list(self.cap_c)
        self.free_m = list(self.cap_m)
        self.free_d = list(self.cap_d)
        self.queue: list[list[tuple[float, float, int]]] = [[] for _ in range(n)]
        self.running: list[list[int]] = [[] for _ in range(n)]
        self.q_c = [0] * n  # queued demand per resource (matchmaking and balancing loads)
        self.q_m = [0] * n
        self.q_d = [0] * n
        self.nonempty = 0  # nodes with a non-empty queue
        self.stamps: list[dict[int, int]] = [{} for _ in range(n)]  # PULL contacts, by tick
        self.pull_last: list[tuple | None] = [None] * n  # (tick, senders) of a failed PULL

        # Jobs.
        self.rc = jobs.cores.tolist()
        self.rm = jobs.mem.tolist()
        self.rd = jobs.disk.tolist()
        self.rs = jobs.min_speed.tolist()
        self.submit = jobs.submit.tolist()
        self.work = jobs.work.tolist()  # remaining canonical work (s)
        self.cand = jobs.candidates.tolist() if jobs.candidates.size else [[] for _ in range(m)]
        self.state = [PENDING] * m
        self.node = [-1] * m
        self.entry: list[tuple | None] = [None] * m
        self.t_q = [0.0] * m  # when the job last entered its node's queue
        self.w0 = [0.0] * m  # W at that moment
        self.arr_node = [0.0] * m  # arrival at the current node (W counts from here)
        self.seg = [0.0] * m  # start of the current run segment
        self.wf = [0.0] * m  # W frozen at the last start
        self.rho = [0.0] * m  # running priority = rho + beta t
        self.epoch = [0] * m
        self.npre = [0] * m
        self.nmig = [0] * m
        self.first_node = [-1] * m
        self.first_start = [INF] * m
        self.end = [INF] * m
        self.exec_wall = [0.0] * m
        self.progressed = [False] * m  # has run before (a suspended job when queued)

        # The smallest job: a node with less free than this cannot start anything (PULL).
        self.min_c = min(self.rc, default=1)
        self.min_m = min(self.rm, default=1)
        self.min_d = min(self.rd, default=1)

        self.heap: list[tuple[float, int, int]] = []
        self.now = 0.0
        self.tick = 0
        self.done = 0
        self.preemptions = 0
        self.invocations = 0
        self.log = Log(segments=[] if trace else None)
        #: The run's decision log (``simcore.decisions``) when it explains itself, else None;
        #: tasks are job ids (the result's ``tasks["id"]``), times in seconds.
        self.decisions = None
        self.matched: dict[int, dict] = {}  # matchmaking's numbers, until the job's next decision
        self.where = [f"node {n}" for n in range(len(self.cap_c))]  # as the decisions name nodes

        # Change tracking: the nodes each phase must visit at its next run.
        self.pend_local: set[int] = set()
        self.pend = {PUSH_PHASE: set(), PULL_PHASE: set(), QB_PHASE: set()}
        self.phase = 0
        self.phase_rank = 0
        self.phase_base = 0
        self.phase_heap: list[tuple[int, int]] = []
        self.phase_in: set[int] = set()
        self.wakes: dict[int, set[int]] = {}
        self.wake_ticks: list[int] = []
        self.phases = []
        if self.internode:
            self.phases = [PUSH_PHASE, PULL_PHASE] + ([QB_PHASE] if self.balancing else [])

    # -- priorities --------------------------------------------------------------------------------
    def kappa(self, j: int, n: int, w0: float, t: float) -> float:
        """Time-free part of a queued job's priority: P(t) = kappa + alpha t (grid spec §4)."""
        return self.alpha * (w0 - t) - self.beta * self.work[j] / self.speed[n]

    def migratable(self, j: int) -> bool:
        return self.opts.migrate_suspended or not self.progressed[j]

    # -- state changes -----------------------------------------------------------------------------
    def changed(self, u: int) -> None:
        """Node ``u`` changed: the internode phases must look at it and its neighbours again."""
        if not self.phases:
            return
        phase = self.phase
        for y in self.closed[u]:
            for p in self.phases:
                if p == phase:
                    r = _mix((self.phase_base + y) & M64)
                    if r > self.phase_rank:  # its turn is still ahead in this phase
                        if y not in self.phase_in:
                            self.phase_in.add(y)
                            heapq.heappush(self.phase_heap, (r, y))
                        continue
                self.pend[p].add(y)

    def base(self, phase: int) -> int:
        """The random order of one phase of the current tick: node ``u`` has rank
        ``_mix(base + u)`` (distinct nodes, distinct ranks: ``_mix`` is a bijection)."""
        return self.rank_key ^ _mix(self.tick * 4 + phase)

    def enqueue(self, j: int, n: int, t: float, w0: float) -> None:
        if self.preemptive:
            e = (-self.kappa(j, n, w0, t), self.arr_node[j], j)
        else:
            e = (0.0, self.arr_node[j], j)
        q = self.queue[n]
        if not q:
            self.nonempty += 1
        insort(q, e)
        self.entry[j] = e
        self.state[j] = QUEUED
        self.node[j] = n
        self.t_q[j] = t
        self.w0[j] = w0
        self.q_c[n] += self.rc[j]
        self.q_m[n] += self.rm[j]
        self.q_d[n] += self.rd[j]

    def dequeue(self, j: int, n: int) -> None:
        q = self.queue[n]
        e = self.entry[j]
        if q[0] is e:
            del q[0]
        else:
            q.remove(e)
        if not q:
            self.nonempty -= 1
        self.entry[j] = None
        self.q_c[n] -= self.rc[j]
        self.q_m[n] -= self.rm[j]
        self.q_d[n] -= self.rd[j]

    def start(self, j: int, n: int, t: float) -> None:
        """Start (or resume) the already dequeued job ``j`` on node ``n`` at ``t``; the
        engine's rules are checked first, whatever the policy (exact: whole cores and MiB)."""
        if (self.state[j] != QUEUED or self.entry[j] is not None or self.submit[j] > t
                or self.rc[j] > self.free_c[n] or self.rm[j] > self.free_m[n]
                or self.rd[j] > self.free_d[n] or self.rs[j] > self.speed[n]):
            self._refuse(j, n, t)
        self.free_c[n] -= self.rc[j]
        self.free_m[n] -= self.rm[j]
        self.free_d[n] -= self.rd[j]
        self.running[n].append(j)
        self.state[j] = RUNNING
        self.node[j] = n
        self.seg[j] = t
        w = self.w0[j] + (t - self.t_q[j])
        self.wf[j] = w
        trem = self.work[j] / self.speed[n]
        self.rho[j] = self.alpha * w - self.beta * trem - self.beta * t
        self.epoch[j] += 1
        if self.first_start[j] == INF:
            self.first_start[j] = t
        heapq.heappush(self.heap, (t + trem, j, self.epoch[j]))

    def _refuse(self, j: int, n: int, t: float) -> None:
        if self.state[j] == PENDING or self.submit[j] > t:
            raise PolicyViolation("arrival", None, f"job {j} submitted at {self.submit[j]} s, "
                                  f"started at {t} s")
        if self.state[j] != QUEUED or self.entry[j] is not None:
            raise PolicyViolation("waiting-task", None, f"job {j} started on node {n} at {t} s "
                                  "is not a dequeued waiting job")
        if self.rs[j] > self.speed[n]:
            raise PolicyViolation("eligibility", None, f"job {j} needs speed {self.rs[j]}, "
                                  f"node {n} has {self.speed[n]}")
        raise PolicyViolation("capacity", None, f"job {j} ({self.rc[j]} cores, {self.rm[j]} "
                              f"MiB, {self.rd[j]} MiB disk) started on node {n} at {t} s with "
                              f"{self.free_c[n]} cores, {self.free_m[n]} MiB, {self.free_d[n]} "
                              "MiB disk free")

    def preempt(self, j: int, n: int, t: float) -> None:
        """Suspend running ``j``: it keeps its progress and rejoins ``n``'s queue (system model
        (grid spec §2))."""
        ran = t - self.seg[j]
        self.work[j] = max(0.0, self.work[j] - ran * self.speed[n])
        self.exec_wall[j] += ran
        if self.log.segments is not None:
            self.log.segments.append((j, n, self.seg[j], t))
        self.free_c[n] += self.rc[j]
        self.free_m[n] += self.rm[j]
        self.free_d[n] += self.rd[j]
        self.running[n].remove(j)
        self.epoch[j] += 1  # its completion event is stale now
        self.npre[j] += 1
        self.progressed[j] = True
        self.preemptions += 1
        self.log.pre_t.append(t)
        self.log.pre_job.append(j)
        self.log.pre_node.append(n)
        self.enqueue(j, n, t, self.wf[j])

    def migrate(self, j: int, src: int, dst: int, t: float, kind: int, start: bool,
                why: dict | None = None) -> None:
        """Move waiting ``j`` from ``src`` to ``dst``; W restarts at the new node (priority
        (grid spec §4)). ``why``: the mover's reason and numbers, when the run explains itself."""
        if self.decisions is not None:
            why = dict(why or {"reason": "moved"})
            self.decisions.add(t, j, "migrated", why.pop("reason"), where=self.where[dst],
                               from_node=src, to_node=dst, kind=MOVES[kind], **why)
        self.dequeue(j, src)
        self.arr_node[j] = t
        self.nmig[j] += 1
        log = self.log
        log.mig_t.append(t)
        log.mig_job.append(j)
        log.mig_from.append(src)
        log.mig_to.append(dst)
        log.mig_kind.append(kind)
        if start and self.opts.migrated_start == "now":
            self.w0[j] = 0.0
            self.t_q[j] = t
            if self.decisions is not None:
                self.explain_start(j, dst, t, "started at once on the node it moved to, which it "
                                   "fits now")
            self.start(j, dst, t)
            self.pend_local.add(dst)  # the receiver's scheduler runs at the next tick
        elif start:
            # The other reading: the receiver queues the job and its scheduler starts it at
            # the next tick, unless an event there runs the scheduler sooner.
            self.enqueue(j, dst, t, 0.0)
            self.pend_local.add(dst)
        else:
            self.enqueue(j, dst, t, 0.0)
            self.invoke(dst, t)
        self.changed(src)
        self.changed(dst)

    def invoke(self, n: int, t: float) -> bool:
        """Run the local scheduler of ``n`` (local preemptive scheduling (grid spec §5), FCFS with
        backfilling (grid spec §7)); True if it started or preempted."""
        self.invocations += 1
        acted, preempted = self.local(self, n, t)
        if preempted:
            self.pend_local.add(n)  # the surplus it freed is used at the next tick
        return acted

    # -- decisions (``--explain``) ----------------------------------------------------------------
    def explain_start(self, j: int, n: int, t: float, reason: str, action: str = "mapped",
                      **numbers) -> None:
        """Record that dequeued ``j`` starts on ``n`` now (called just before ``start``): a
        suspended job resumes; its first start carries matchmaking's numbers."""
        if self.progressed[j]:
            action = "resumed"
        self.decisions.add(t, j, action, reason, {
            "where": self.where[n], "cores": self.rc[j], "free_cores": self.free_c[n],
            **numbers, **self.matched.pop(j, {})})

    def explain_waiting(self, j: int, t: float) -> None:
        """Record why ``j``, queued at its node on arrival, did not start there at once."""
        n = self.node[j]
        if (self.rc[j] <= self.free_c[n] and self.rm[j] <= self.free_m[n]
                and self.rd[j] <= self.free_d[n]):
            reason = ("queued where matchmaking sent it: it fits what a suspension just freed, "
                      "which the node's scheduler uses at its next run")
        elif self.preemptive:
            reason = ("queued where matchmaking sent it: too few free resources, and suspending "
                      "lower-priority running jobs did not make room")
        else:
            reason = "queued where matchmaking sent it: too few free resources"
        self.decisions.add(t, j, "held", reason, {
            "where": self.where[n], "cores": self.rc[j], "free_cores": self.free_c[n],
            "mem_mib": self.rm[j], "free_mem_mib": self.free_m[n], "disk_mib": self.rd[j],
            "free_disk_mib": self.free_d[n], "queued": len(self.queue[n]),
            **self.matched.pop(j, {})})

    # -- events ------------------------------------------------------------------------------------
    def arrive(self, j: int, t: float) -> int:
        """Matchmaking (workload (grid spec §3)): the lowest normalized load among the sampled
        eligible nodes; ties: fewer queued jobs, then the sample's random order. Returns the run
        node."""
        best, best_key = -1, None
        with_running = self.opts.load != "queued"
        explain = self.decisions is not None
        second, second_key = -1, None  # the runner-up, only followed when explaining
        for n in self.cand[j]:
            if n < 0:
                break
            if with_running:
                load = max((self.q_c[n] + self.cap_c[n] - self.free_c[n]) / self.cap_c[n],
                           (self.q_m[n] + self.cap_m[n] - self.free_m[n]) / self.cap_m[n],
                           (self.q_d[n] + self.cap_d[n] - self.free_d[n]) / self.cap_d[n])
            else:
                load = max(self.q_c[n] / self.cap_c[n], self.q_m[n] / self.cap_m[n],
                           self.q_d[n] / self.cap_d[n])
            key = (load, len(self.queue[n]))
            if best_key is None or key < best_key:
                if explain:
                    second, second_key = best, best_key
                best, best_key = n, key
            elif explain and (second_key is None or key < second_key):
                second, second_key = n, key
        if explain:
            self.matched[j] = {"matched_load": best_key[0]} if second < 0 else {
                "matched_load": best_key[0], "runner_up_node": second,
                "runner_up_load": second_key[0]}
        self.first_node[j] = best
        self.arr_node[j] = t
        self.enqueue(j, best, t, 0.0)
        return best

    def complete(self, j: int, t: float) -> int:
        """Job ``j`` ends at ``t``; returns its node."""
        n = self.node[j]
        self.exec_wall[j] += t - self.seg[j]
        if self.log.segments is not None:
            self.log.segments.append((j, n, self.seg[j], t))
        self.work[j] = 0.0
        self.free_c[n] += self.rc[j]
        self.free_m[n] += self.rm[j]
        self.free_d[n] += self.rd[j]
        self.running[n].remove(j)
        self.state[j] = DONE
        self.end[j] = t
        self.done += 1
        if self.decisions is not None:
            self.decisions.add(t, j, "completed", "ran its remaining work", {
                "where": self.where[n], "wait_s": self.wf[j], "preemptions": self.npre[j],
                "migrations": self.nmig[j]})
        return n

    # -- ticks -------------------------------------------------------------------------------------
    def wake(self, u: int, tick: int) -> None:
        """Visit ``u`` in the PULL phase of ``tick`` (a neighbour it may not ask before then
        would give it a job)."""
        if tick not in self.wakes:
            self.wakes[tick] = set()
            heapq.heappush(self.wake_ticks, tick)
        self.wakes[tick].add(u)

    def next_tick(self, k: int) -> int | None:
        """The next tick from ``k`` on that has work, or None."""
        if self.naive or self.pend_local or (self.time_dependent and self.nonempty):
            return k
        if any(self.pend[p] for p in self.phases):
            return k
        return self.wake_ticks[0] if self.wake_ticks else None

    def run_tick(self, k: int, t: float) -> None:
        self.tick = k
        moves0 = len(self.log.mig_t)
        visits = 0
        # 1. Local scheduling (implementation notes (grid spec §11): on all nodes; only those not at
        #    a fixed point act).
        if self.naive or self.time_dependent:
            todo = [u for u in range(self.n) if self.queue[u] or u in self.pend_local]
        else:
            todo = sorted(self.pend_local)
        self.pend_local = set()
        while self.wake_ticks and self.wake_ticks[0] <= k:
            self.pend[PULL_PHASE] |= self.wakes.pop(heapq.heappop(self.wake_ticks))
        for u in todo:
            visits += 1
            if self.invoke(u, t):
                self.changed(u)
        # 2.-4. PUSH, PULL, queue balancing, each in its own random node order.
        for phase in self.phases:
            visits += self.run_phase(phase, k, t)
        log = self.log
        log.tick_t.append(t)
        log.tick_visits.append(visits)
        log.tick_moves.append(len(log.mig_t) - moves0)

    def run_phase(self, phase: int, k: int, t: float) -> int:
        todo = range(self.n) if self.naive else self.pend[phase]
        self.pend[phase] = set()
        base = self.phase_base = self.base(phase)
        heap = [(_mix((base + u) & M64), u) for u in todo]
        heapq.heapify(heap)
        self.phase, self.phase_heap, self.phase_in = phase, heap, set(todo)
        visits = 0
        act = push if phase == PUSH_PHASE else pull if phase == PULL_PHASE else balance
        while heap:
            r, u = heapq.heappop(heap)
            self.phase_rank = r
            visits += 1
            act(self, u, k, t)
        self.phase, self.phase_rank, self.phase_heap, self.phase_in = 0, 0, [], set()
        return visits

    # -- sampling ----------------------------------------------------------------------------------
    def sample(self, t: float) -> None:
        log = self.log
        log.sample_t.append(t)
        log.sample_used.append(np.subtract(self.cap_c, self.free_c, dtype=np.int32))
        log.sample_queue.append(np.fromiter(map(len, self.queue), dtype=np.int32,
                                            count=self.n))
        log.sample_done.append(self.done)

    # -- the loop ----------------------------------------------------------------------------------
    def run(self, clock: RunClock | None = None) -> None:
        clock = clock or RunClock()
        perf = time.perf_counter
        delta = self.opts.delta
        sample_dt = self.opts.sample_s
        next_sample = 0.0
        submit = self.submit
        heap = self.heap
        epoch = self.epoch
        m = self.m
        ia = 0
        k = 1  # the next tick
        while self.done < m:
            while heap and heap[0][2] != epoch[heap[0][1]]:
                heapq.heappop(heap)
            t_c = heap[0][0] if heap else INF
            t_a = submit[ia] if ia < m else INF
            due = self.next_tick(k)
            t_k = due * delta if due is not None else INF
            t = min(t_c, t_a, t_k)
            if t == INF:
                raise RuntimeError("grid simulation stalled with unfinished jobs")
            while next_sample <= t:
                self.sample(next_sample)
                next_sample += sample_dt
            self.now = t
            if t_k < t_c and t_k < t_a:
                t0 = perf()
                self.run_tick(due, t)
                clock.record(perf() - t0)
                k = due + 1
                continue
            # Every completion and arrival of this instant takes effect, then each node they
            # touched runs its scheduler once (when the scheduler runs (grid spec §5.1)).
            touched = []
            while heap and heap[0][0] == t:
                _, j, ep = heapq.heappop(heap)
                if ep == epoch[j]:
                    touched.append(self.complete(j, t))
            first_new = ia
            while ia < m and submit[ia] == t:
                touched.append(self.arrive(ia, t))
                ia += 1
            for n in dict.fromkeys(touched):
                self.invoke(n, t)
                self.changed(n)
            if self.decisions is not None:
                for j in range(first_new, ia):
                    if self.state[j] == QUEUED:
                        self.explain_waiting(j, t)
            clock.report(self.done / m)
            # After an event, the next tick is the first one at or after it.
            if k * delta < t:
                k = max(k, math.ceil(t / delta))
                while k * delta < t:
                    k += 1
        self.sample(self.now)
        self.last_tick = k - 1
