"""The event loop of a trace replay, shared by the kinds that replay SWF traces (swf-replay,
swf-preemptive): jobs in queue order on a machine of identical nodes.

Events are job arrivals (SWF submit times) and completions (start + actual run time). All
events at one instant are applied together, completions first, then arrivals in queue order;
then the scheduler runs once. Applying simultaneous completions together lets the scheduler
see every node freed at that instant (scheduling after each of them could only start jobs on a
partial view). A job that starts and ends at the same instant is completed in a further round
at that instant.

Subclasses decide what to start in ``schedule`` (and may ``kill`` a running job: stop and
restart from zero); this class tracks the machine (free node count), the queue counters, the
per-job start times and the state series.
"""

from __future__ import annotations

import math
import time
from heapq import heapify, heappop, heappush

import numpy as np

from simcore.clock import RunClock
from simcore.errors import PolicyViolation

from .jobs import Jobs

# Decisions a job makes in a loaded trace (its start, its end, a wait): only sizes the sample
# taken before the run. A run that says more is thinned by the log itself; one whose jobs
# mostly start at once ends sampled one doubling sparser than thinning would (docs/explain.md).
DECISIONS_PER_JOB = 3


class InvariantError(AssertionError):
    """A policy broke one of its guarantees (raised only with ``check=True``)."""


class JobReplay:
    """Replays ``jobs`` on ``jobs.machine_nodes`` nodes; a subclass decides what starts in
    ``schedule`` (each trace kind's scheduler is one: swf-replay's policies, swf-preemptive's
    Maui scheduler)."""

    name = ""

    def __init__(self, jobs: Jobs, clock: RunClock | None = None, check: bool = False):
        self.jobs = jobs
        self.J = len(jobs)
        self.N = jobs.machine_nodes
        self.free = self.N
        self.check = check
        # Python lists: the event loop reads single items, which lists serve fastest.
        self.sub = jobs.submit.tolist()
        self.run_l = jobs.run.tolist()
        self.est = jobs.estimate.tolist()
        self.n = jobs.nodes.tolist()
        self.start_t = [math.nan] * self.J
        #: First reservation each job got (EASY: the shadow time when it became queue head;
        #: conservative: its reservation at arrival); NaN if it never had one.
        self.reservation = [math.nan] * self.J
        self.arrived = 0
        self.started = 0
        self.done = 0
        self._heap: list[tuple[float, int]] = []
        self.clock = clock or RunClock()
        self.log_t: list[float] = []
        self.log_wait: list[int] = []
        self.log_run: list[int] = []
        self.log_busy: list[int] = []
        #: The run's decision log (``simcore.decisions``) when it explains itself; the
        #: policies record their reasons there. ``ids`` names jobs as the result does (SWF
        #: job numbers).
        self.decisions = None
        self.ids = jobs.job_id.tolist()
        #: Which jobs' decisions are recorded (None: the run does not explain itself). A big
        #: trace is sampled before the run (``DecisionLog.sample_up_front``), so the jobs the
        #: sampling leaves out cost one look-up per decision point.
        self.noted: list[bool] | None = None
        #: The job lines dropped at load, for a run that explains itself (``jobs.load_drops``:
        #: (submit time on the replay's clock, SWF job number, reason, numbers), in submit
        #: order), each recorded as a ``dropped`` decision at its submit time, among the
        #: others in time order; they are sampled with the replayed jobs.
        self.load_drops: list[tuple[float, int, str, dict]] = []

    # -- hooks -----------------------------------------------------------------------------
    def on_complete(self, j: int, t: float) -> None:
        """Job ``j`` ended at ``t`` (its nodes are already free)."""

    def schedule(self, t: float, completed: bool, first_new: int) -> None:
        """Start jobs at ``t``; jobs ``first_new .. arrived-1`` arrived at ``t``."""
        raise NotImplementedError

    def wakeup(self) -> float:
        """Next instant the policy wants to schedule without an event (default: never)."""
        return math.inf

    def counters(self) -> dict:
        """Policy-specific counters for ``result.extra``."""
        return {}

    # -- machine -----------------------------------------------------------------------------
    def start(self, j: int, t: float) -> None:
        """Start job ``j`` at ``t``; the engine's rules are checked first, whatever the policy
        (NaN != NaN: a job not started yet)."""
        if not 0 <= j < self.arrived:
            self._refuse(j, t)
        nodes = self.n[j]
        began = self.start_t[j]
        if nodes > self.free or began == began:
            self._refuse(j, t)
        self.free -= nodes
        self.start_t[j] = t
        self.started += 1
        heappush(self._heap, (t + self.run_l[j], j))

    def _refuse(self, j: int, t: float) -> None:
        if not 0 <= j < self.J:
            raise PolicyViolation("waiting-task", None, f"job index {j} does not exist")
        if j >= self.arrived:
            raise PolicyViolation("arrival", None, f"job index {j} submitted at {self.sub[j]} s, "
                                  f"started at {t} s")
        if self.start_t[j] == self.start_t[j]:
            raise PolicyViolation("waiting-task", None, f"job index {j} started at {t} s, "
                                  f"already running since {self.start_t[j]} s")
        raise PolicyViolation("capacity", None, f"job index {j} needs {self.n[j]} nodes at {t} s, "
                              f"{self.free} free of {self.N}")

    def explain(self, t: float, j: int, action: str, reason: str, **numbers) -> None:
        """Record a decision about job ``j`` (callers check ``self.noted`` first, so a run
        that does not explain itself pays one test). The plugins' way in (docs/plugins.md);
        the built-in policies call ``self.decisions.add`` themselves, as a call through here
        costs as much again as the record (0.45 µs)."""
        self.decisions.add(t, self.ids[j], action, reason, **numbers)

    def explain_waiting(self, t: float, j: int) -> None:
        """Record why job ``j``, arrived at ``t``, did not start then."""
        self.decisions.add(t, self.ids[j], "held", "too few free nodes", nodes=self.n[j],
                           free=self.free)

    def kill(self, j: int, t: float) -> None:
        """Stop running job ``j`` at ``t`` (stop/restart): its nodes are free again, its
        completion is cancelled and it counts as waiting; its next start begins from zero."""
        heap = self._heap
        heap.remove((self.start_t[j] + self.run_l[j], j))
        heapify(heap)
        self.free += self.n[j]
        self.started -= 1
        self.start_t[j] = math.nan

    def run(self) -> JobReplay:
        sub = self.sub
        n = self.n
        heap = self._heap
        J = self.J
        i = 0
        perf = time.perf_counter
        report = self.clock.report
        record = self.clock.record
        log_t, log_wait = self.log_t, self.log_wait
        log_run, log_busy = self.log_run, self.log_busy
        drops, next_drop = [], math.inf  # the drops at load still to record, and the first's t
        if self.decisions is not None:
            ids, per_job = self.jobs.job_id, DECISIONS_PER_JOB
            drops = self.load_drops
            if drops:  # a drop is one decision
                ids = np.concatenate([ids, np.array([d[1] for d in drops], dtype=ids.dtype)])
                per_job = np.concatenate([np.full(J, float(per_job)), np.ones(len(drops))])
            keep = self.decisions.sample_up_front(ids, per_job)
            self.noted = [True] * J if keep is None else keep[:J].tolist()
            if keep is not None and drops:
                drops = [d for d, kept in zip(drops, keep[J:].tolist(), strict=True) if kept]
            drops = drops[::-1]  # popped from the end, in submit order
            next_drop = drops[-1][0] if drops else math.inf
            # the sampled jobs in arrival order, with a sentinel past the last
            arrivals_noted = (list(range(J)) if keep is None
                              else np.flatnonzero(keep[:J]).tolist()) + [J]
            p = 0
        noted = self.noted
        while True:
            t = sub[i] if i < J else math.inf
            if heap and heap[0][0] < t:
                t = heap[0][0]
            w = self.wakeup()
            if w < t:
                t = w
            if t == math.inf:
                break
            if next_drop <= t:  # jobs dropped at load, submitted by now (explained runs)
                next_drop = self._record_drops(drops, t)
            t0 = perf()
            completed = False
            while heap and heap[0][0] <= t:
                j = heappop(heap)[1]
                self.free += n[j]
                self.done += 1
                self.on_complete(j, t)
                completed = True
                if noted is not None and noted[j]:
                    self.decisions.add(t, self.ids[j], "completed",
                                       "ran its actual run time", nodes=n[j], run_s=self.run_l[j])
            first_new = i
            while i < J and sub[i] <= t:
                i += 1
            self.arrived = i
            self.schedule(t, completed, first_new)
            if noted is not None and i > first_new:
                start_t = self.start_t
                while arrivals_noted[p] < i:  # the sampled jobs that arrived now
                    j = arrivals_noted[p]
                    p += 1
                    if start_t[j] != start_t[j]:
                        self.explain_waiting(t, j)
            record(perf() - t0)
            log_t.append(t)
            log_wait.append(i - self.started)
            log_run.append(self.started - self.done)
            log_busy.append(self.N - self.free)
            report(self.done / J)
        if drops:  # submitted after the last event
            self._record_drops(drops, math.inf)
        if self.started != J:
            raise InvariantError(f"{self.name}: {J - self.started} jobs never started")
        return self

    def _record_drops(self, drops: list, t: float) -> float:
        """Record the drops at load of ``drops`` (last first) submitted by ``t``; returns the
        submit time of the next one left (inf: none)."""
        add = self.decisions.add
        while drops and drops[-1][0] <= t:
            submit, job, reason, numbers = drops.pop()
            add(submit, job, "dropped", reason, numbers)
        return drops[-1][0] if drops else math.inf
