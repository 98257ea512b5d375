"""Maui-style scheduling with preemption-based backfill, on the shared trace-replay event loop.

The event loop, the machine's free-node count, the per-job start times and the state log are
those of every trace replay (:class:`scheduling.hpc.replay.JobReplay`); this class is one more
scheduler on it, which may also *kill* running jobs (stop/restart: a killed job loses its work
and waits again with its original submit time). Its policies are the victim orders
(:class:`.policies.victims.VictimPolicy`).

**Priority order.** Class first (High, Medium, Low), then Maui's queue-time priority. Queue time
grows at the same rate for every waiting job and a killed job keeps its submit time, so within a
class the order is the submit order and never changes: the order is a fixed permutation of the
jobs (``order``/``pos``), and class ``c`` holds the positions ``[lo[c], lo[c] + count[c])``.

**One iteration** at ``t`` (spec section 9):

1. start jobs in priority order while the first one fits;
2. the first that does not fit, ``h``, may preempt (section 4.2): when
   ``free < procs(h) <= free + pool(h)`` the victim policy orders ``pool(h)`` (the running jobs
   ``h`` may preempt), victims are taken until ``h`` fits, a minimality pass drops the ones not
   needed (latest picked first), the rest are killed and ``h`` starts; then back to 1;
3. ``h`` gets the depth-1 reservation: the *shadow time* (walking running jobs by wall-clock
   end, the first end at which ``h`` fits) and the *extra* processors free then beyond its need;
4. First Fit backfill: in priority order, every waiting job that fits the free processors and
   ends by the shadow time (``t + limit <= shadow``) or needs no more than the extra processors;
5. preemptive backfill: in priority order, every waiting job that fits the free processors,
   optionally only if its history-scaled limit ends by the shadow time; jobs started in 4 or 5
   are flagged *backfilled*.

Iterations run at every submit and completion, and every 60 s. The shadow time is computed
from the limits of *every* running job, so a backfill past the reservation can move it later,
which may let more jobs pass the time tests; the next iteration sees that. Otherwise a
periodic iteration is a no-op: nothing else in an iteration depends on the clock but the time
tests ``t + x <= shadow``, which only get harder as time passes. So the 60 s iterations run
only after an iteration that backfilled past the reservation (with ``check=True`` all of them
run, and the others are checked to do nothing).

**Between events.** After an iteration that backfilled nothing past the reservation, every
waiting job failed every test, and an arrival that queues behind ``h`` changes none of those
outcomes (free processors only shrink; the running set, ``h`` and its shadow time are
unchanged; First Fit keeps the shadow time by construction), so only the new jobs are
examined. A completion, an arrival ahead of ``h``, or any event after a backfill past the
reservation runs the whole iteration. ``fast=False`` runs it at every event (tests compare).
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort

import numpy as np

from scheduling.hpc.backfill import shadow_time
from scheduling.hpc.replay import InvariantError, JobReplay
from simcore.clock import RunClock
from simcore.errors import PolicyViolation
from simcore.sampling import rng

from .config import KIND, PreemptiveConfig
from .workload import CLASS_NAMES, HIGH, LOW, MEDIUM, Workload

#: How a run started: in priority order, by First Fit backfill, or past the reservation.
NORMAL, FIRST_FIT, PREEMPTIVE = 0, 1, 2
MODE_NAMES = ("normal", "first-fit", "preemptive")

# What the decision trace says (the numbers it records carry what changes).
HEAD_FITS = "first waiting job in priority order and its processors are free"
HEAD_KILLS = ("first waiting job in priority order: started on the processors of running jobs "
              "it may preempt")
HEAD_WAITS = ("first waiting job in priority order: too few free processors; reserved at the "
              "shadow time")
HEAD_WAITS_POOL = ("first waiting job in priority order: too few free processors, even with "
                   "every running job it may preempt; reserved at the shadow time")
ENDS_BY_SHADOW = "First Fit backfill: its wall-clock limit ends by the reservation's shadow time"
USES_EXTRA = "First Fit backfill: uses only the processors the reservation leaves spare"
QUEUE_KILLS = ("First Fit backfill: passed the reservation test and started on the processors "
               "of lower-priority running jobs it may preempt")
PAST_RESERVATION = ("backfilled past the reservation on free processors; it may be killed when "
                    "a job it delays needs them")
PAST_RESERVATION_HISTORY = ("backfilled past the reservation on free processors: its "
                            "history-scaled limit ends by the shadow time; it may be killed "
                            "when a job it delays needs them")
KILLED_FOR_HEAD = ("the first waiting job in priority order may preempt it and needs "
                   "its processors; taken in the victim policy's order")
KILLED_FOR_QUEUE = ("a waiting job that passed the First Fit test may preempt it and "
                    "needs its processors; taken in the victim policy's order")


def preemption_rights(config: PreemptiveConfig, enabled: bool = True
                      ) -> list[list[tuple[bool, bool]]]:
    """``rights[h][v] = (normal, backfilled)``: may a blocked job of class ``h`` preempt a
    running job of class ``v`` that started normally / through backfill (spec section 4.4)."""
    none = (False, False)
    rights = [[none] * 3 for _ in range(3)]
    if not (enabled and config.preemption):
        return rights
    if not config.prioritized:
        rights[MEDIUM][MEDIUM] = (False, True)  # every backfilled job is preemptible
        return rights
    rights[HIGH][LOW] = (True, True)  # High always preempts Low
    rights[HIGH][MEDIUM] = (False, True)  # High preempts Medium only when it was backfilled
    if config.within_class:
        for c in (HIGH, MEDIUM, LOW):
            rights[c][c] = (False, True)
    return rights


class Maui(JobReplay):
    name = "maui"

    def __init__(self, workload: Workload, victims: type, config: PreemptiveConfig,
                 seed: int = 0, clock: RunClock | None = None, check: bool = False,
                 fast: bool = True):
        super().__init__(workload.jobs, clock, check)
        J = self.J
        self.workload = workload
        self.fast = fast
        self.period = config.iteration_s
        self.victims = victims(self)
        self.prioritized = config.prioritized
        self._told = (-1, math.nan)  # the reservation the decision trace recorded last
        self.preempt = bool(config.preemption and victims.preempts)
        self.resusage_product = config.resusage == "procs-x-wallclock"
        self.victim_rng = rng(seed, f"{KIND}/victims")

        rank = workload.rank
        order = np.lexsort((np.arange(J), rank))
        pos = np.empty(J, dtype=np.int64)
        pos[order] = np.arange(J)
        self.order = order.tolist()
        self.pos = pos.tolist()
        self.rank = rank.tolist()
        counts = np.bincount(rank, minlength=3).tolist()
        self.lo = [0, counts[0], counts[0] + counts[1]]
        self.narr = [0, 0, 0]  # arrived jobs per class: positions [lo, lo + narr)
        self.hp = list(self.lo)  # per class, no waiting job before this position
        self.present = [c for c in range(3) if counts[c]]
        self.wq = np.zeros(J, dtype=bool)  # waiting, by position
        self.n_pos = workload.jobs.nodes[order]
        self.wc_pos = workload.jobs.estimate[order]
        self.rank_pos = rank[order]
        self.user_pos = workload.user[order]
        self.user = workload.user.tolist()

        rights = preemption_rights(config, self.preempt)
        self.rights = rights
        self.relaxed_ok = [np.array([rights[h][v][1] or config.relaxed_scope == "any"
                                     for v in range(3)]) for h in range(3)]
        self.queue_trigger = self.preempt and config.trigger == "queue"
        # Classes that hold preemption rights over some class (candidates for the queue trigger).
        self.may_queue = np.array([any(any(r) for r in rights[c]) for c in range(3)])
        self.history = config.history_filter
        self.rho_p80 = config.history_rho == "p80"
        n_users = max(workload.n_users, 1)
        self.rho = np.ones(n_users)
        self.rho_l = [1.0] * n_users
        self._hsum = [0.0] * n_users
        self._hcount = [0] * n_users
        self._hsorted: list[list[float]] = [[] for _ in range(n_users)]

        self.running: list[tuple[float, int]] = []  # (wall-clock end, job), sorted
        self.limit_end = [math.inf] * J
        self.mode = [NORMAL] * J
        # Which starts count as "backfilled" for the preemption rights (spec ambiguity 3).
        self.bf = [False, config.preemptible == "backfilled", True]
        self.busy_nm = [0, 0, 0]  # processors of running jobs by class: not backfilled
        self.busy_bf = [0, 0, 0]  # ... and backfilled
        self.holder = -1  # the job holding the reservation after the last iteration
        # A preemptive backfill since the last full iteration: the shadow time may have moved
        # (it is computed from every running job's limit), so the next event, or else the next
        # periodic iteration, runs a full one.
        self.dirty = False
        self.shadow = math.inf
        self.extra = 0
        self.last_t = self.sub[0] if J else 0.0

        self.kills = [0] * J
        self.k_job: list[int] = []
        self.k_start: list[float] = []
        self.k_end: list[float] = []
        self.k_by: list[int] = []
        self.k_mode: list[int] = []
        self.wasted = 0.0  # node-seconds of killed runs
        self.starts = [0, 0, 0]  # by NORMAL, FIRST_FIT, PREEMPTIVE
        self.triggers = 0
        self.full_passes = 0

    # -- machine -----------------------------------------------------------------------------
    def start(self, j, t, mode=NORMAL):
        super().start(j, t)
        self.wq[self.pos[j]] = False
        self.mode[j] = mode
        end = t + self.est[j]
        self.limit_end[j] = end
        insort(self.running, (end, j))
        if not self.bf[mode]:
            self.busy_nm[self.rank[j]] += self.n[j]
        else:
            self.busy_bf[self.rank[j]] += self.n[j]
        self.starts[mode] += 1

    def _leave(self, j):
        running = self.running
        del running[bisect_left(running, (self.limit_end[j], j))]
        if not self.bf[self.mode[j]]:
            self.busy_nm[self.rank[j]] -= self.n[j]
        else:
            self.busy_bf[self.rank[j]] -= self.n[j]

    def kill(self, j, t, by=-1):
        self._leave(j)
        start = self.start_t[j]
        self.k_job.append(j)
        self.k_start.append(start)
        self.k_end.append(t)
        self.k_by.append(by)
        self.k_mode.append(self.mode[j])
        self.wasted += self.n[j] * (t - start)
        self.kills[j] += 1
        super().kill(j, t)
        p = self.pos[j]
        self.wq[p] = True
        c = self.rank[j]
        if p < self.hp[c]:
            self.hp[c] = p

    def on_complete(self, j, t):
        self._leave(j)
        u = self.user[j]
        ratio = self.run_l[j] / self.est[j]
        if self.rho_p80:
            hist = self._hsorted[u]
            insort(hist, ratio)
            rho = hist[math.ceil(0.8 * len(hist)) - 1]
        else:
            self._hsum[u] += ratio
            self._hcount[u] += 1
            rho = self._hsum[u] / self._hcount[u]
        self.rho[u] = rho
        self.rho_l[u] = rho

    # -- the iteration -----------------------------------------------------------------------
    def wakeup(self):
        if self.done == self.J or not (self.dirty or self.check):
            return math.inf
        return (math.floor(self.last_t / self.period) + 1) * self.period

    def schedule(self, t, completed, first_new):
        a = self.arrived
        pos, rank, wq, narr = self.pos, self.rank, self.wq, self.narr
        ahead = False
        holder_pos = self.pos[self.holder] if self.holder >= 0 else -1
        for j in range(first_new, a):
            p = pos[j]
            wq[p] = True
            narr[rank[j]] += 1
            if p < holder_pos:
                ahead = True
        tick = not completed and first_new == a
        self.last_t = t
        if tick and not self.dirty:
            if self.check:
                self._tick(t)
            return
        if (completed or ahead or tick or self.dirty or self.holder < 0 or not self.fast
                or self.queue_trigger):
            self.dirty = False
            self.iterate(t)
        else:
            self._backfill_new(t, first_new, a)
        if self.check:
            self._check(t)

    def iterate(self, t):
        """One full scheduling iteration at ``t`` (steps 1-5 of the module docstring)."""
        self.full_passes += 1
        n = self.n
        order = self.order
        while True:
            hp = self._head()
            if hp < 0:
                self.holder = -1
                return
            h = order[hp]
            if n[h] <= self.free:
                if self.noted is not None and self.noted[h]:
                    self._explain_start(t, h, "mapped", HEAD_FITS, {"nodes": n[h],
                                                                    "free": self.free})
                self.start(h, t)
                continue
            if self.preempt and self._trigger(h, t):
                continue
            break
        self._reserve(h)
        if self.noted is not None:
            self._explain_reservation(t, h)
        if self.free or self.queue_trigger:
            self._scan(t, h, hp)

    def _head(self) -> int:
        """Position of the first waiting job in priority order, or -1."""
        wq = self.wq
        for c in self.present:
            lo = self.hp[c]
            hi = self.lo[c] + self.narr[c]
            if lo < hi:
                k = lo + int(wq[lo:hi].argmax())
                if wq[k]:
                    self.hp[c] = k
                    return k
                self.hp[c] = hi
        return -1

    def _pool_size(self, ch: int) -> int:
        rights = self.rights[ch]
        size = 0
        for v in self.present:
            normal, backfilled = rights[v]
            if normal:
                size += self.busy_nm[v]
            if backfilled:
                size += self.busy_bf[v]
        return size

    def _trigger(self, h: int, t: float) -> bool:
        """Preempt for ``h`` if that lets it start now (spec section 4.2); True if it started."""
        if self.n[h] > self.free + self._pool_size(self.rank[h]):
            return False
        rights = self.rights[self.rank[h]]
        rank, mode, bf = self.rank, self.mode, self.bf
        pool = [j for _, j in self.running if rights[rank[j]][bf[mode[j]]]]
        self._preempt_for(h, t, pool, NORMAL)
        return True

    def _queue_trigger(self, j: int, t: float) -> bool:
        """``trigger = queue``: a waiting job behind the reservation holder that passed the First
        Fit test but lacks processors preempts jobs it has rights over and that rank below it."""
        if self.n[j] > self.free + self._pool_size(self.rank[j]):
            return False  # not even every job it has rights over would do
        rights = self.rights[self.rank[j]]
        rank, mode, bf, pos, n = self.rank, self.mode, self.bf, self.pos, self.n
        pj = pos[j]
        pool = [v for _, v in self.running if rights[rank[v]][bf[mode[v]]] and pos[v] > pj]
        if n[j] > self.free + sum(n[v] for v in pool):
            return False
        self._preempt_for(j, t, pool, FIRST_FIT)
        self.dirty = True  # its victims were not First Fit candidates of this iteration
        return True

    def _preempt_for(self, h: int, t: float, pool: list[int], mode: int) -> None:
        """Kill the policy's minimal victim set from ``pool`` and start ``h``."""
        need = self.n[h]
        free = self.free
        n = self.n
        chosen = []
        freed = 0
        allowed = set(pool)
        for v in self.victims.order(pool, t):
            if v not in allowed:  # the policy may only reorder the pool
                raise PolicyViolation("preemptible", None, f"job index {v} killed at {t} s "
                                      f"for job index {h} is not one it may preempt")
            chosen.append(v)
            freed += n[v]
            if free + freed >= need:
                break
        ranked = chosen[:]  # in the policy's order
        for v in reversed(ranked):  # minimality: drop victims h does not need
            if free + freed - n[v] >= need:
                chosen.remove(v)
                freed -= n[v]
        if self.noted is not None:
            self._explain_kills(t, h, chosen, ranked, len(pool), mode)
        for v in chosen:
            self.kill(v, t, h)
        self.triggers += 1
        if self.noted is not None and self.noted[h]:
            self._explain_killer(t, h, len(chosen), freed, free, mode)
        self.start(h, t, mode)

    def _reserve(self, h: int) -> None:
        end, self.extra = shadow_time(self.running, self.n, self.n[h] - self.free)
        if end == math.inf:  # pragma: no cover - jobs larger than the machine are rejected
            raise InvariantError(f"{self.name}: job index {h} can never start")
        self.shadow = end
        self.holder = h
        if math.isnan(self.reservation[h]):
            self.reservation[h] = end

    def _ranges(self, hp: int):
        """Position ranges of the waiting jobs behind position ``hp``, in priority order."""
        out = []
        for c in self.present:
            hi = self.lo[c] + self.narr[c]
            lo = max(self.hp[c], hp + 1)
            if lo < hi:
                out.append((lo, hi))
        return out

    def _scan(self, t: float, h: int, hp: int) -> None:
        """Steps 4 and 5 over every waiting job behind ``h``."""
        ranges = self._ranges(hp)
        if not ranges:
            return
        n = self.n
        est = self.est
        order = self.order
        queue = self.queue_trigger
        free, shadow, extra = self.free, self.shadow, self.extra
        cands = []  # the First Fit candidates, fixed before any start or kill
        for lo, hi in ranges:
            nn = self.n_pos[lo:hi]
            if queue:
                mask = self.wq[lo:hi] & ((nn <= free) | self.may_queue[self.rank_pos[lo:hi]])
                mask &= (nn <= extra) | (self.wc_pos[lo:hi] + t <= shadow)
            else:
                mask = self.wq[lo:hi] & (nn <= free)
                if extra < free:
                    mask &= (nn <= extra) | (self.wc_pos[lo:hi] + t <= shadow)
            cands.extend((mask.nonzero()[0] + lo).tolist())
        for p in cands:  # First Fit backfill (with trigger = queue: also by preemption)
            j = order[p]
            nj = n[j]
            late = t + est[j] > shadow
            if late and nj > self.extra:
                continue
            if nj <= self.free:
                if late:
                    self.extra -= nj
                if self.noted is not None and self.noted[j]:
                    self._explain_first_fit(t, j, late)
                self.start(j, t, FIRST_FIT)
                if not (self.free or queue):
                    return
            elif queue and self._queue_trigger(j, t) and late:
                self.extra -= nj
        if not self.preempt:
            return
        ok = self.relaxed_ok[self.rank[h]]
        for lo, hi in ranges:  # preemptive backfill
            free = self.free
            if not free:
                return
            nn = self.n_pos[lo:hi]
            mask = self.wq[lo:hi] & (nn <= free) & ok[self.rank_pos[lo:hi]]
            if self.history:
                mask &= self.wc_pos[lo:hi] * self.rho[self.user_pos[lo:hi]] + t <= self.shadow
            for c in mask.nonzero()[0].tolist():
                j = order[lo + c]
                if n[j] <= self.free:
                    if self.noted is not None and self.noted[j]:
                        self._explain_past(t, j)
                    self.start(j, t, PREEMPTIVE)
                    self.dirty = True
                    if not self.free:
                        return

    def _backfill_new(self, t: float, first: int, a: int) -> None:
        """Steps 4 and 5 for jobs that arrived at ``t`` behind the reservation holder."""
        if not self.free:
            return
        n, est, pos = self.n, self.est, self.pos
        new = sorted(range(first, a), key=pos.__getitem__) if a - first > 1 else [first]
        for j in new:
            nj = n[j]
            if nj > self.free:
                continue
            late = t + est[j] > self.shadow
            if late:
                if nj > self.extra:
                    continue
                self.extra -= nj
            if self.noted is not None and self.noted[j]:
                self._explain_first_fit(t, j, late)
            self.start(j, t, FIRST_FIT)
        if not self.preempt:
            return
        ok = self.relaxed_ok[self.rank[self.holder]]
        hist = self.history
        for j in new:
            if (self.wq[pos[j]] and n[j] <= self.free and ok[self.rank[j]]
                    and (not hist or t + est[j] * self.rho_l[self.user[j]] <= self.shadow)):
                if self.noted is not None and self.noted[j]:
                    self._explain_past(t, j)
                self.start(j, t, PREEMPTIVE)
                self.dirty = True

    # -- the decision trace (only when the run explains itself) -----------------------------
    def _class(self, j: int) -> str:
        return CLASS_NAMES[self.rank[j]] if self.prioritized else "normal"

    def _explain_start(self, t: float, j: int, action: str, reason: str, numbers: dict) -> None:
        """A start of ``j`` (with its priority class when there are classes); a job killed
        before restarts from zero (``resumed``). ``numbers`` is a dict the callers build (and
        this completes): passing keywords down would build it again at every call."""
        if self.kills[j]:
            numbers["restart"] = self.kills[j]
            numbers["starts_as"] = action
            action = "resumed"
        if self.prioritized:
            numbers["priority"] = CLASS_NAMES[self.rank[j]]
        self.decisions.add(t, self.ids[j], action, reason, numbers)

    def _explain_reservation(self, t: float, h: int) -> None:
        """The holder's reservation, when it is new or moved (most iterations leave it)."""
        if self._told == (h, self.shadow):
            return
        self._told = (h, self.shadow)  # whether or not h is sampled: the next holder's is new
        if not self.noted[h]:
            return
        if self.preempt:
            self.decisions.add(t, self.ids[h], "held", HEAD_WAITS_POOL, nodes=self.n[h],
                               free=self.free, preemptible=self._pool_size(self.rank[h]),
                               shadow_s=self.shadow, extra=self.extra)
        else:
            self.decisions.add(t, self.ids[h], "held", HEAD_WAITS, nodes=self.n[h], free=self.free,
                               shadow_s=self.shadow, extra=self.extra)

    def _explain_first_fit(self, t: float, j: int, late: bool) -> None:
        self._explain_start(t, j, "backfilled", USES_EXTRA if late else ENDS_BY_SHADOW,
                            {"reservation_of": self.ids[self.holder], "shadow_s": self.shadow,
                             "limit_end_s": t + self.est[j], "nodes": self.n[j],
                             "free": self.free, "extra": self.extra})

    def _explain_past(self, t: float, j: int) -> None:
        numbers = {"reservation_of": self.ids[self.holder], "shadow_s": self.shadow,
                   "limit_end_s": t + self.est[j], "nodes": self.n[j], "free": self.free}
        if self.history:
            numbers["scaled_end_s"] = t + self.est[j] * self.rho_l[self.user[j]]
        self._explain_start(t, j, "backfilled",
                            PAST_RESERVATION_HISTORY if self.history else PAST_RESERVATION,
                            numbers)

    def _explain_kills(self, t: float, h: int, chosen: list[int], ranked: list[int], pool: int,
                       mode: int) -> None:
        """The victims of ``h``, with the priorities compared (class, then place in priority
        order: 0 first) and where each came in the victim policy's order (``ranked``: the
        victims it took, before those ``h`` did not need were let go)."""
        why = KILLED_FOR_HEAD if mode == NORMAL else KILLED_FOR_QUEUE
        pos = self.pos
        noted = self.noted
        for v in chosen:
            if not noted[v]:
                continue
            self.decisions.add(t, self.ids[v], "killed", why, by=self.ids[h],
                               by_priority=self._class(h), priority=self._class(v),
                               by_place=pos[h], place=pos[v],
                               started_as=MODE_NAMES[self.mode[v]],
                               victim_order=ranked.index(v) + 1, taken=len(ranked),
                               pool=pool, ran_s=t - self.start_t[v], nodes=self.n[v])

    def _explain_killer(self, t: float, h: int, victims: int, freed: int, free: int,
                        mode: int) -> None:
        if mode == NORMAL:
            self._explain_start(t, h, "mapped", HEAD_KILLS, {"nodes": self.n[h], "free": free,
                                                             "victims": victims, "freed": freed})
        else:
            self._explain_start(t, h, "backfilled", QUEUE_KILLS,
                                {"reservation_of": self.ids[self.holder], "shadow_s": self.shadow,
                                 "limit_end_s": t + self.est[h], "nodes": self.n[h],
                                 "free": free, "victims": victims, "freed": freed})

    def explain_waiting(self, t: float, j: int) -> None:
        """Why job ``j``, arrived at ``t``, did not start then (the reservation holder's
        reason was recorded with its reservation)."""
        h = self.holder
        if h == j:
            return
        if h < 0:
            super().explain_waiting(t, j)
            return
        nj, free = self.n[j], self.free
        numbers = {"reservation_of": self.ids[h], "shadow_s": self.shadow, "nodes": nj,
                   "free": free}
        if nj > free:
            why = "behind the reservation: too few free processors to backfill"
        else:
            numbers.update(limit_end_s=t + self.est[j], extra=self.extra)
            if not self.preempt:
                why = ("behind the reservation: its limit ends after the shadow time and it "
                       "needs more than the spare processors (no backfill past the "
                       "reservation without preemption)")
            elif not self.relaxed_ok[self.rank[h]][self.rank[j]]:
                why = ("behind the reservation: its limit ends after the shadow time, it "
                       "needs more than the spare processors, and its class may not "
                       "backfill past this reservation")
            elif self.history:
                numbers["scaled_end_s"] = t + self.est[j] * self.rho_l[self.user[j]]
                why = ("behind the reservation: its limit ends after the shadow time, it "
                       "needs more than the spare processors, and its history-scaled limit "
                       "ends after the shadow time too")
            else:  # pragma: no cover - a job that passes every test is started
                why = "behind the reservation in priority order"
        if self.prioritized:
            numbers["priority"] = CLASS_NAMES[self.rank[j]]
        self.decisions.add(t, self.ids[j], "held", why, numbers)

    # -- checks (tests only) -----------------------------------------------------------------
    def _tick(self, t: float) -> None:
        before = (self.started, len(self.k_job))
        self.iterate(t)
        if (self.started, len(self.k_job)) != before:
            raise InvariantError(f"{self.name}: a periodic iteration at {t} started or killed "
                                 "a job (the iterations between events are not no-ops)")

    def _check(self, t: float) -> None:
        if self.free < 0 or self.free != self.N - sum(self.busy_nm) - sum(self.busy_bf):
            raise InvariantError(f"{self.name}: {self.free} free nodes at {t} do not add up")
        h = self.holder
        if h >= 0:
            if self.n[h] <= self.free:
                raise InvariantError(f"{self.name}: job index {h} fits but waits at {t}")
            if self.preempt and self.n[h] <= self.free + self._pool_size(self.rank[h]):
                raise InvariantError(f"{self.name}: job index {h} waits at {t} for jobs it "
                                     "may preempt")
