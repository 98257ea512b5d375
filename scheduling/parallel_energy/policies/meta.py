"""Metaheuristics switching between Max UPR and Max UPE with place-holders (ch. 3 spec §5.9).

Both compare the energy committed to the current day (consumed plus the future in-day energy
of running tasks and reservations, after place-holder removal, committed energy after place-holder
removal (ch. 3 spec A18)) with the linear goal ``G(now)``: ahead of the goal means Max UPE.
Event-Based keeps the choice for the whole event; Task-Based, when it starts with Max UPR, switches
to Max UPE as soon as an assignment pushes committed energy to the goal.
"""

from __future__ import annotations

import numpy as np

from ..state import STARTED, State
from .base import EventContext, Policy
from .minmin import MinMinRun, OptionLists


def goal_energy(st: State, at: str) -> float:
    ledger = st.ledger
    if not ledger.constrained:
        return np.inf
    now = st.now
    day = ledger.day_of(now)
    if not np.isfinite(ledger.budget[day]):
        return np.inf
    t = now
    # Ch. 3 spec A19's (goal energy at now) alternative: G at the latest committed finish in the day
    if at == "latest-finish":
        busy = (st.status == STARTED) | np.isin(np.arange(len(st.status)), st.reservations)
        ends = st.end[busy & (st.end > now)]
        if ends.size:
            t = min(float(ends.max()), ledger.day_bounds(day)[1])
    return ledger.goal(t)


def committed_energy(st: State) -> float:
    return st.ledger.committed_in(st.ledger.day_of(st.now))


class MetaHeuristic(Policy):
    family = "metaheuristic"
    uses_utility = True
    task_based = False

    def __init__(self, cfg, gen, energy_filter=None):
        super().__init__(cfg, gen, energy_filter)
        # set by the simulator for ch. 3 spec A18's (committed energy after place-holder removal)
        # "before" reading
        self.pre_removal_committed: float | None = None
        self.options = OptionLists()
        # Explained runs: the event's committed and goal energy, set by the simulator.
        self.why: dict | None = None

    def choose(self, st: State) -> str:
        committed = committed_energy(st)
        before = self.pre_removal_committed
        if not self.cfg.scheduler.committed_after_removal and before is not None:
            committed = before
        return "upe" if committed > goal_energy(st, self.cfg.scheduler.goal_at) else "upr"

    def map(self, st: State, ctx: EventContext) -> None:
        chosen = self.choose(st)
        ctx.chosen = chosen
        if not len(ctx.tasks):
            return
        run = MinMinRun(st, ctx, chosen, permanent=False,
                        exclude_zero=self.cfg.scheduler.exclude_zero_utility, options=self.options)
        if st.log is not None:
            run.meta = {"chosen": chosen, **(self.why or {})}
        if not self.task_based or chosen == "upe":
            run.run()
            return
        goal = goal_energy(st, self.cfg.scheduler.goal_at)

        def after_assign():
            return "upe" if committed_energy(st) >= goal else None

        run.run(after_assign)


class EventBased(MetaHeuristic):
    pass


class TaskBased(MetaHeuristic):
    task_based = True
