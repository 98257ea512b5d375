"""Utility-aware Min-Min heuristics: Max Util, Max UPT, Max UPR, Max UPE (utility-aware heuristics
(ch. 3 spec §5.8)).

Algorithm 4 re-evaluates every mappable task after each assignment. Because an assignment only
adds busy time and commits energy, a task's best objective can only fall during an event
(later starts, fewer energy-feasible options, non-increasing utility; filter masks are fixed per
event, filter budgets once per event (ch. 3 spec A21)). So a lazy greedy is exact: keep every task
in a heap keyed by its last known best ``(-objective, arrival, id)``, pop the top, re-evaluate it
against the current schedule, and assign it only if it still beats the (stale, hence optimistic) key
of the next task; otherwise push it back. Cached earliest starts are re-queried only on clusters
that changed.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

from ..state import State
from .base import INF, EventContext, Policy, StartCache

OBJECTIVES = ("util", "upt", "upr", "upe")
#: How each objective ranks a task's options, for the decision trace.
RULES = {
    "util": "Min-Min: the most utility among its options",
    "upt": "Min-Min: the most utility per second of execution among its options",
    "upr": "Min-Min: the most utility per core-second allocated among its options",
    "upe": "Min-Min: the most utility per joule among its options",
}
#: Why a metaheuristic ran the objective it did: (its choice for the event, the objective).
META_RULES = {
    ("upe", "upe"): "the metaheuristic chose Max UPE, committed energy being above the goal; ",
    ("upr", "upr"): "the metaheuristic chose Max UPR, committed energy not being above the "
                    "goal; ",
    ("upr", "upe"): "the metaheuristic switched to Max UPE within the event, an assignment "
                    "having brought committed energy to the goal; ",
}


def cost_array(st: State, objective: str, tasks=slice(None)) -> np.ndarray:
    """Denominator of each objective per (task, cluster, P-state) (utility-aware heuristics
    (ch. 3 spec §5.8) table)."""
    opts = st.options
    if objective == "util":
        return np.ones_like(opts.duration[tasks])
    if objective == "upt":
        return opts.duration[tasks]
    if objective == "upr":
        return opts.resources[tasks]
    if objective == "upe":
        return opts.energy[tasks]
    raise ValueError(objective)


class OptionLists:
    """Each task's allocation options per objective, cheapest first.

    They are fixed for a trial, so they are built once per task (not at every event) and the
    scalar re-evaluation can stop at the first option whose cost is too high for even the
    task's full utility to reach the best objective found so far.
    """

    def __init__(self):
        self._options = None
        self._lists: dict[str, dict[int, list[tuple]]] = {}

    def of(self, st: State, objective: str, task: int) -> list[tuple]:
        """(cluster, P-state, duration, cost, energy, charged power) of ``task``'s eligible
        options, by ascending cost."""
        if self._options is not st.options:  # a new trial
            self._options, self._lists = st.options, {}
        lists = self._lists.setdefault(objective, {})
        out = lists.get(task)
        if out is None:
            opts = st.options
            clusters = np.array(opts.eligible_clusters[task], dtype=np.int64)
            dur = opts.duration[task, clusters].tolist()
            cost = cost_array(st, objective, task)[clusters].tolist()
            energy = opts.energy[task, clusters].tolist()
            charge = st.charge_power[task, clusters].tolist()
            out = [(c, p, dur[i][p], cost[i][p], energy[i][p], charge[i][p])
                   for i, c in enumerate(clusters.tolist()) for p in range(len(dur[i]))]
            out.sort(key=lambda o: o[3])
            lists[task] = out
        return out

    def retain(self, tasks: list[int]) -> None:
        """Forget the lists of tasks that left the queue (started, reserved or dropped), so
        memory follows the queue rather than the trial."""
        keep = set(tasks)
        for objective, lists in list(self._lists.items()):
            if len(lists) > len(keep):
                self._lists[objective] = {t: v for t, v in lists.items() if t in keep}


class MinMinRun:
    """One event's greedy loop over ``ctx.tasks`` with a given objective."""

    def __init__(self, st: State, ctx: EventContext, objective: str, permanent: bool,
                 exclude_zero: bool, options: OptionLists | None = None):
        self.st = st
        self.ctx = ctx
        self.permanent = permanent
        self.exclude_zero = exclude_zero
        self.options = options or OptionLists()
        self.cache = ctx.cache = StartCache(st, ctx.tasks)
        tasks = ctx.tasks
        self._tasks = tasks.tolist()
        self.options.retain(self._tasks)
        self.arrival = st.trial.tasks.arrival[tasks].tolist()
        self.energy = st.options.energy[tasks]
        self.charge = st.charge_power[tasks]
        self._ceiling = [st.utility.ceiling(t) for t in self._tasks]
        self._allowed = None if ctx.allowed is None else ctx.allowed.tolist()
        # Explained runs: a metaheuristic's choice and the energies it compared.
        self.meta: dict | None = None
        self.set_objective(objective)

    def set_objective(self, objective: str) -> None:
        self.objective = objective
        self.cost = cost_array(self.st, objective, self.ctx.tasks)

    # -- evaluation ------------------------------------------------------------------------------
    def evaluate_all(self, rows: np.ndarray) -> list:
        """Vectorized best option of each row: heap entries for rows with a feasible option."""
        st = self.st
        if rows.size == 0:
            return []
        starts = self.cache.starts[rows]  # (q, C, P)
        dur = self.cache.duration[rows]
        finish = starts + dur
        ok = np.isfinite(starts)
        if self.ctx.allowed is not None:
            ok &= self.ctx.allowed[rows]
        ok &= st.ledger.fits_many(starts, finish, self.charge[rows])
        tasks = self.ctx.tasks[rows]
        util = np.zeros(starts.shape)
        idx = np.nonzero(ok)
        util[idx] = st.utility.value(tasks[idx[0]], finish[idx])
        if self.exclude_zero:
            ok &= util > 0
        obj = np.where(ok, util / self.cost[rows], -INF)
        q = len(rows)
        flat_obj = obj.reshape(q, -1)
        flat_fin = np.where(ok, finish, INF).reshape(q, -1)
        flat_en = self.energy[rows].reshape(q, -1)
        order_idx = np.broadcast_to(np.arange(flat_obj.shape[1]), flat_obj.shape)
        order = np.lexsort((order_idx, flat_en, flat_fin, -flat_obj), axis=-1)
        best = order[:, 0]
        best_obj = flat_obj[np.arange(q), best]
        entries = []
        for r, b in zip(rows.tolist(), best_obj.tolist(), strict=True):
            if b > -INF:
                entries.append((-b, self.arrival[r], self._tasks[r], r))
        return entries

    def evaluate(self, r: int, skip: tuple[int, int] = (-1, -1)):
        """Scalar best option of row ``r``: (objective, finish, energy, c, p, start) or None;
        ``skip`` leaves one (cluster, P-state) out (the runner-up of the decision trace).

        Clusters are re-queried only when an option on them is still worth looking at.
        """
        st = self.st
        cache = self.cache
        starts = cache.row(r)
        seen = cache.versions(r)
        current = [tl.version for tl in st.timelines]
        t = self._tasks[r]
        fits = st.ledger.fits
        value1 = st.utility.value1
        exclude_zero = self.exclude_zero
        allowed = None if self._allowed is None else self._allowed[r]
        ceiling = self._ceiling[r]
        skip_c, skip_p = skip
        best = None
        best_obj = -INF
        for c, p, d, cost, energy, charge in self.options.of(st, self.objective, t):
            if ceiling / cost < best_obj:
                break  # cheapest first: no later option can reach the best objective either
            if allowed is not None and not allowed[c][p]:
                continue
            if c == skip_c and p == skip_p:
                continue
            if seen[c] != current[c]:
                cache.requery(r, c)
            s = starts[c][p]
            if s == INF:
                continue
            f = s + d
            if not fits(s, f, charge):
                continue
            u = value1(t, f)
            if exclude_zero and u <= 0.0:
                continue
            key = (-u / cost, f, energy, c, p)
            if best is None or key < best:
                best = key
                best_obj = -key[0]
        if best is None:
            return None
        return (-best[0], best[1], best[2], best[3], best[4], starts[best[3]][best[4]])

    # -- the greedy loop ---------------------------------------------------------------------------
    def run(self, after_assign: Callable[[], str | None] | None = None) -> None:
        """Assign tasks best-first; ``after_assign`` may return a new objective (Task-Based)."""
        rows = np.arange(len(self.ctx.tasks))
        heap = self.evaluate_all(rows)
        heapq.heapify(heap)
        st = self.st
        while heap:
            key = heapq.heappop(heap)
            r = key[3]
            best = self.evaluate(r)
            if best is None:
                continue  # no feasible option now means none for the rest of the event
            new_key = (-best[0], key[1], key[2], r)
            if heap and new_key > heap[0]:
                heapq.heappush(heap, new_key)
                continue
            t, c, p, s = key[2], best[3], best[4], best[5]
            st.assign(t, c, p, s, permanent=self.permanent,
                      why=None if st.log is None else self.why(r, t, best))
            self.ctx.assigned.add(t)
            if after_assign is not None:
                switch = after_assign()
                if switch is not None and switch != self.objective:
                    self.set_objective(switch)
                    left = np.array(sorted(e[3] for e in heap), dtype=np.int64)
                    self.cache.refresh_all()
                    heap = self.evaluate_all(left)
                    heapq.heapify(heap)

    def why(self, r: int, t: int, best: tuple) -> tuple[str, str, dict]:
        """The decision trace's account of assigning row ``r``'s best option: its score and the
        runner-up option's (evaluated before the assignment changes the schedule)."""
        score, finish, _, c, p, _ = best
        numbers = {"objective": self.objective, "score": score, "finish": finish,
                   "utility": self.st.utility.value1(t, finish)}
        second = self.evaluate(r, skip=(c, p))
        if second is not None:
            numbers.update(runner_up_where=second[3], runner_up_pstate=second[4],
                           runner_up_score=second[0])
        rule = RULES[self.objective]
        if self.meta is not None:
            rule = META_RULES[self.meta["chosen"], self.objective] + rule
            numbers.update(heuristic=self.objective, **self.meta)
        return "mapped", rule, numbers


class MinMin(Policy):
    family = "utility"
    uses_utility = True

    def __init__(self, cfg, gen, objective: str, permanent: bool, energy_filter=None):
        super().__init__(cfg, gen, energy_filter)
        if objective not in OBJECTIVES:
            raise ValueError(objective)
        self.objective = objective
        self.permanent = permanent
        self.options = OptionLists()

    def map(self, st: State, ctx: EventContext) -> None:
        if len(ctx.tasks):
            MinMinRun(st, ctx, self.objective, self.permanent,
                      self.cfg.scheduler.exclude_zero_utility, self.options).run()
