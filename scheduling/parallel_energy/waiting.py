"""Why a task is still waiting after a mapping event (explained runs only).

The heuristics assign every task that has a feasible option, except where a policy's own rule
holds it back (EASY's single reservation, Random's draw), which the policy records itself. So
a task left waiting had no feasible option at the end of the event, and the first rule that
ruled out its last options is the reason: the energy filter, no nodes free before the end of
the window, the energy left in the day, or (utility heuristics) no option earning any
utility. The checks run on the schedule as the event left it (this event's place-holders
included), which is what the task was up against: feasibility only shrinks during an event.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np

from .energy import GJ
from .policies.base import EventContext, Policy
from .state import State

FILTER_NAMES = {"epr": "energy-per-resource", "ept": "energy-per-task"}


def explain_waiting(st: State, policy: Policy, ctx: EventContext) -> None:
    """Record a reason for every task of ``ctx.tasks`` the event left waiting."""
    assigned, explained = ctx.assigned, ctx.explained
    rows = [i for i, t in enumerate(ctx.tasks.tolist())
            if t not in assigned and t not in explained]
    if not rows:
        return
    log, now, opts = st.log, st.now, st.options
    rows = np.asarray(rows, dtype=np.int64)
    tasks = ctx.tasks[rows]
    pstates = policy.pstates if policy.pstates is not None else list(range(opts.shape[2]))
    ok = np.repeat(opts.eligible[tasks][:, :, None], len(pstates), axis=2)
    left = ok.any(axis=(1, 2))  # still has an option after the checks so far
    if ctx.allowed is not None:
        ok &= ctx.allowed[rows][:, :, pstates]
        out = left & ~ok.any(axis=(1, 2))
        if out.any():
            _filtered(st, policy, ctx, tasks[out], pstates)
        left &= ~out
    duration = opts.duration[tasks][:, :, pstates]
    starts = _starts(st, ctx, rows, tasks, left & ok.any(axis=(1, 2)), duration)
    ok &= np.isfinite(starts)
    out = left & ~ok.any(axis=(1, 2))
    if out.any():
        fewest = np.where(opts.eligible[tasks[out]], opts.nodes[tasks[out]], np.iinfo(np.int64).max)
        log.add_each(now, tasks[out].tolist(), "held",
                     "no nodes free for it before the end of the window",
                     nodes=fewest.min(axis=1).tolist(), window_end=repeat(st.horizon))
    left &= ~out
    finish = starts + duration
    charge = st.charge_power[tasks][:, :, pstates]
    need = np.where(ok, charge * duration, np.inf)  # of the options left before the energy
    ok &= st.ledger.fits_many(starts, finish, charge)
    out = left & ~ok.any(axis=(1, 2))
    if out.any():
        energy_left = st.ledger.remaining(st.ledger.day_of(now)) / GJ
        log.add_each(now, tasks[out].tolist(), "held", "no option fits the energy left in its day",
                     least_energy_gj=(need[out].min(axis=(1, 2)) / GJ).tolist(),
                     energy_left_gj=repeat(energy_left))
    left &= ~out
    if policy.uses_utility and st.trial.cfg.scheduler.exclude_zero_utility and left.any():
        idx = np.nonzero(ok & left[:, None, None])
        util = np.zeros(ok.shape)
        util[idx] = st.utility.value(tasks[idx[0]], finish[idx])
        out = left & ~(ok & (util > 0.0)).any(axis=(1, 2))
        log.add_each(now, tasks[out].tolist(), "held",
                     "every option it could get would earn no utility")
        left &= ~out
    # not expected: a feasible option the policy passed over
    log.add_each(now, tasks[left].tolist(), "held",
                 "left waiting by the policy with a feasible option")


def _starts(st: State, ctx: EventContext, rows: np.ndarray, tasks: np.ndarray,
            wanted: np.ndarray, duration: np.ndarray) -> np.ndarray:
    """Earliest starts of the waiting rows on the schedule the event left (inf = none)."""
    cache = ctx.cache
    if cache is not None:  # the policy's, brought up to date where a cluster changed since
        current = np.array([tl.version for tl in st.timelines])
        stale = ((cache.version[rows] != current) & cache.eligible[rows]).any(axis=1)
        for i in rows[wanted & stale].tolist():
            cache.refresh(i)
        return cache.starts[rows]
    starts = np.full(duration.shape, np.inf)
    for c, tl in enumerate(st.timelines):
        sel = np.flatnonzero(wanted & st.options.eligible[tasks, c])
        if sel.size:
            n = np.repeat(st.options.nodes[tasks[sel], c], duration.shape[2])
            starts[sel, c, :] = tl.earliest(n, duration[sel, c, :].ravel()).reshape(sel.size, -1)
    return starts


def _filtered(st: State, policy: Policy, ctx: EventContext, tasks: np.ndarray,
              pstates: list[int]) -> None:
    """The filter ruled out every option: its bound and the task's least value against it."""
    opts = st.options
    if policy.energy_filter == "epr":
        value = opts.node_power[tasks][:, :, pstates] / opts.cores_per_node[None, :, None]
        unit = "w_per_core"
    else:
        value = opts.energy[tasks][:, :, pstates]
        unit = "energy_j"
    name = FILTER_NAMES[policy.energy_filter]
    least = np.where(np.isfinite(value), value, np.inf).min(axis=(1, 2))
    st.log.add_each(st.now, tasks.tolist(), "filtered", f"the {name} filter rules out every option",
                    {"filter": policy.energy_filter, "threshold": ctx.filter_threshold},
                    **{f"least_{unit}": least.tolist()})
