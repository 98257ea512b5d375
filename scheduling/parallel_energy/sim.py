"""The event loop (ch. 3 spec §5.1): periodic mapping events over the 28 h trial.

Execution times are deterministic and nothing happens between mapping events except starts of
reservations/place-holders and completions, which the node timelines already encode; so the
loop just visits t = 0, Δ, 2Δ, ... and performs, at each:

1. arrivals up to now; starts of reservations and (place-holders that start before the next event
   (ch. 3 spec A17)) place-holders whose time has come;
2. removal of the remaining place-holders, whose tasks become mappable again;
3. task dropping (ch. 3 spec §5.4); 4. energy filter masks (energy filters (ch. 3 spec §5.10)); 5.
   the heuristic.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np

from scheduling.hpc.traces import TraceLibrary
from simcore.clock import RunClock
from simcore.decisions import DecisionLog
from simcore.result import Result
from simcore.sampling import rng

from .config import ParallelEnergyConfig
from .energy import (
    GJ,
    epr_mask,
    epr_threshold,
    ept_mask,
    ept_threshold,
    mean_option_resources,
    resources_remaining,
)
from .policies.base import EventContext, Policy
from .policies.meta import MetaHeuristic, committed_energy, goal_energy
from .policies.minmin import MinMin
from .result import build_result
from .state import State, Trial
from .waiting import explain_waiting


def _event_context(st: State, policy: Policy, tasks: np.ndarray) -> EventContext:
    """The event's context: the waiting tasks and their allowed (task, cluster, P-state) options
    (energy filters (ch. 3 spec §5.10); computed once per event, filter budgets once per event
    (ch. 3 spec A21)). An explained run also gets the filter's bound in
    ``ctx.filter_threshold``."""
    ctx = EventContext(tasks, None)
    if policy.energy_filter is None or len(tasks) == 0 or not st.ledger.constrained:
        return ctx
    sched = st.trial.cfg.scheduler
    ledger = st.ledger
    day = ledger.day_of(st.now)
    e_rem = ledger.remaining(day)
    if not math.isfinite(e_rem):
        return ctx
    day_end = ledger.day_bounds(day)[1]
    r_rem = resources_remaining(st.timelines, st.options.cores_per_node, st.now, day_end)
    opts = st.options
    if policy.energy_filter == "epr":
        ctx.allowed = epr_mask(opts.node_power[tasks], opts.cores_per_node, sched.epr_leniency,
                               e_rem, r_rem)
        if st.log is not None:
            ctx.filter_threshold = epr_threshold(sched.epr_leniency, e_rem, r_rem)
        return ctx
    if sched.ept_average == "history" and st.history_resources[1] > 0:
        avg = st.history_resources[0] / st.history_resources[1]
    elif sched.ept_average == "arrived":
        avg = float(st.option_resource_sums[st.next_arrival - 1]) / st.next_arrival
    else:
        avg = float(mean_option_resources(opts.resources[tasks]).mean())
    ctx.allowed = ept_mask(opts.energy[tasks], avg, sched.ept_leniency, e_rem, r_rem)
    if st.log is not None:
        ctx.filter_threshold = ept_threshold(avg, sched.ept_leniency, e_rem, r_rem)
    return ctx


def _drop(st: State, threshold: float) -> int:
    """Remove mappable tasks whose optimistic utility U(now + T_min) is below the threshold."""
    if not st.mappable:
        return 0
    tasks = np.asarray(st.mappable, dtype=np.int64)
    t_min = st.options.t_min[tasks]
    best = st.utility.value(tasks, st.now + t_min)
    doomed = (best < threshold) | (best <= 0.0)
    if st.log is not None:
        for t, u, d in zip(tasks[doomed].tolist(), best[doomed].tolist(),
                           t_min[doomed].tolist(), strict=True):
            reason = ("even started now on its fastest option, its utility would be below "
                      "the dropping threshold" if u < threshold else
                      "even started now on its fastest option, it would earn no utility")
            st.log.add(st.now, t, "dropped", reason, utility=u, threshold=threshold, t_min=d)
    doomed = tasks[doomed]
    st.drop(doomed.tolist())
    return len(doomed)


def simulate_trial(cfg: ParallelEnergyConfig, policy: Policy, policy_name: str, seed: int,
                   clock: RunClock | None = None, traces: TraceLibrary | None = None,
                   decisions: DecisionLog | None = None) -> Result:
    trial = Trial.generate(cfg, seed, traces or TraceLibrary())
    return run_trial(trial, policy, policy_name, clock, decisions)


def run_trial(trial: Trial, policy: Policy, policy_name: str, clock: RunClock | None = None,
              decisions: DecisionLog | None = None) -> Result:
    """The mapping events of one trial; ``decisions`` records why each task fared as it did."""
    clock = clock or RunClock()
    cfg = trial.cfg
    st = State(trial)
    st.log = decisions
    interval = cfg.time.mapping_interval_s
    n_events = int(math.ceil(trial.sim_end / interval - 1e-9))
    sched = cfg.scheduler
    ev_t = np.zeros(n_events)
    ev_mappable = np.zeros(n_events, dtype=np.int64)
    ev_dropped = np.zeros(n_events, dtype=np.int64)
    ev_assigned = np.zeros(n_events, dtype=np.int64)
    ev_left = np.zeros(n_events, dtype=np.int64)
    ev_reserved = np.zeros(n_events, dtype=np.int64)
    ev_chosen: list[str | None] = [None] * n_events
    ev_committed: list[float | None] = [None] * n_events
    ev_goal: list[float | None] = [None] * n_events
    is_meta = isinstance(policy, MetaHeuristic)
    for k in range(n_events):
        now = k * interval
        t0 = time.perf_counter()
        if is_meta and not sched.committed_after_removal:
            st.now = now
            policy.pre_removal_committed = committed_energy(st)
        st.advance(now, sched.honor_placeholders)
        dropped = _drop(st, sched.dropping_threshold) if policy.drops else 0
        if st.ledger.constrained:
            ev_committed[k] = committed_energy(st) / GJ
            goal = goal_energy(st, sched.goal_at)
            ev_goal[k] = goal / GJ if math.isfinite(goal) else None
        tasks = np.asarray(st.mappable, dtype=np.int64)
        ctx = _event_context(st, policy, tasks)
        if decisions is not None and is_meta:
            policy.why = {"committed_gj": ev_committed[k], "goal_gj": ev_goal[k]}
        policy.map(st, ctx)
        if decisions is not None:
            explain_waiting(st, policy, ctx)
        st.finish_mapping(ctx.assigned)
        clock.record(time.perf_counter() - t0)
        ev_t[k] = now / 60.0
        ev_mappable[k] = len(tasks)
        ev_dropped[k] = dropped
        ev_assigned[k] = len(ctx.assigned)
        ev_left[k] = len(st.mappable)
        ev_reserved[k] = st.n_reserved
        ev_chosen[k] = ctx.chosen
        clock.report((k + 1) / n_events)
    # Final bookkeeping at the end of W: reservations and place-holders before it start.
    st.advance(trial.sim_end, sched.honor_placeholders)
    if decisions is not None:
        _explain_late_arrivals(st, decisions, (n_events - 1) * interval, trial.sim_end)
    events = {"t_min": ev_t, "mappable": ev_mappable, "dropped": ev_dropped,
              "assigned": ev_assigned, "unassigned": ev_left, "reserved": ev_reserved,
              "chosen": ev_chosen, "committed_gj": ev_committed, "goal_gj": ev_goal}
    result = build_result(st, events, is_meta)
    result.timing = clock.timing()
    result.meta = {"policy_family": policy.family, "energy_filter": policy.energy_filter,
                   "policy_label": policy_name}
    return result


def _explain_late_arrivals(st: State, log: DecisionLog, last_event: float, end: float) -> None:
    """A task that arrived after the last mapping event never met one: say so, or its story
    would be empty beside an "unscheduled" row (the small preset: 4 of 536 tasks)."""
    arrival = st.trial.tasks.arrival
    for t in range(int(np.searchsorted(arrival, last_event, side="right")), st.next_arrival):
        log.add(float(arrival[t]), t, "held", "it arrived after the run's last mapping event: "
                "none was left to consider it", last_event=last_event, window_end=end)


def run(config: ParallelEnergyConfig, policy_info, seed: int, ctx) -> Result:
    traces = TraceLibrary(ctx.inputs)
    config = _resolve_budget(config, seed, traces)
    policy = policy_info.build(config, rng(seed, "policy"))
    return simulate_trial(config, policy, policy_info.label, seed, ctx.clock, traces,
                          ctx.decisions)


def _resolve_budget(config: ParallelEnergyConfig, seed: int, traces) -> ParallelEnergyConfig:
    """A budget given as a share of Max UPR PH's own unconstrained energy on this trial: run
    Max UPR PH without a budget on the same workload first (the testbed's procedure, testbed results
    (dissertation §3.6.3))."""
    pct = config.energy.budget_pct_of_max_upr
    if pct is None:
        return config
    free = replace(config, energy=replace(config.energy, budget_gj=None,
                                          budget_pct_of_max_upr=None))
    budget = _unconstrained_max_upr_gj(free, seed, traces) * pct / 100.0
    return replace(config, energy=replace(config.energy, budget_gj=budget,
                                          budget_pct_of_max_upr=None))


_REFERENCE_GJ: dict[tuple[ParallelEnergyConfig, int], float] = {}


def _unconstrained_max_upr_gj(free: ParallelEnergyConfig, seed: int, traces) -> float:
    # Every policy and every share of one trial needs the same reference run, so it is kept per
    # process. The config names the workload (a trace by library name or upload hash), so the
    # trace library, a new object per call, is not part of the key.
    key = (free, seed)
    if key not in _REFERENCE_GJ:
        if len(_REFERENCE_GJ) >= 64:
            _REFERENCE_GJ.clear()
        reference = simulate_trial(free, MinMin(free, rng(seed, "policy"), "upr", False),
                                   "max-upr-ph", seed, traces=traces)
        _REFERENCE_GJ[key] = reference.summary["energy_gj"]
    return _REFERENCE_GJ[key]
