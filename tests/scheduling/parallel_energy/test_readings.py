"""The ambiguous readings of ch3 carried as parameters (docs/ch3.md, docs/reproduction.md): each
reading changes what the model does in the way its name says, and the default is the one the
text supports."""

import numpy as np
import pytest

from scheduling.engine import preset_scenario, simulate
from scheduling.parallel_energy.config import ParallelEnergyConfig

from .test_invariants import check_result, watch

SHORT = {"time.sim_h": 10.0, "time.warmup_h": 2.0}
BUSY = {**SHORT, "workload.tasks_per_day": 900.0}


def _run(policy, overrides, seed=2):
    with watch() as log:
        result = simulate(preset_scenario("small", {**BUSY, **overrides}), policy, seed=seed)
    check_result(result, policy, log)
    return result, log


def test_random_reserves_by_default_and_start_now_is_the_alternative():
    # Random (dissertation §3.3.4.2) (Random's reservations (ch. 3 spec A23))
    assert ParallelEnergyConfig().scheduler.random_reservations is True
    _, reserving = _run("random", {})
    _, start_now = _run("random", {"scheduler.random_reservations": False})
    assert len(reserving["reservations"]) > 0
    assert len(start_now["reservations"]) == 0


def _mask_after_some_events(overrides, events=40):
    """The EPT mask of the mappable tasks after ``events`` events of Max UPR PH + EPT."""
    from scheduling.engine import ENGINE
    from scheduling.parallel_energy.sim import _event_context
    from scheduling.parallel_energy.state import State, Trial
    from simcore.sampling import rng

    cfg = preset_scenario("small", {**BUSY, **overrides}).params
    policy = ENGINE.get_policy("parallel-energy", "max-upr-ph+ept").build(cfg, rng(2, "policy"))
    st = State(Trial.generate(cfg, 2))
    for k in range(events):
        st.advance(k * cfg.time.mapping_interval_s, True)
        tasks = np.asarray(st.mappable, dtype=np.int64)
        ctx = _event_context(st, policy, tasks)
        policy.map(st, ctx)
        st.finish_mapping(ctx.assigned)
    tasks = np.asarray(st.mappable, dtype=np.int64)
    return st, tasks, _event_context(st, policy, tasks).allowed


def _option_mean(st, ids):
    """Mean over tasks of each task's resources averaged over its feasible options."""
    res = st.options.resources[ids]
    fin = np.isfinite(res)
    return float((np.where(fin, res, 0.0).sum(axis=(1, 2)) / fin.sum(axis=(1, 2))).mean())


def test_ept_averages_the_executed_tasks_by_default():
    from scheduling.parallel_energy.energy import ept_mask, resources_remaining

    # Energy-per-task budget (ch. 3 spec A20)
    assert ParallelEnergyConfig().scheduler.ept_average == "history"
    averages = {}
    for reading in ("history", "arrived", "mappable"):
        st, tasks, mask = _mask_after_some_events({"scheduler.ept_average": reading})
        assert st.history_resources[1] > 0 and len(tasks) > 0
        day = st.ledger.day_of(st.now)
        r_rem = resources_remaining(st.timelines, st.options.cores_per_node, st.now,
                                    st.ledger.day_bounds(day)[1])
        if reading == "history":  # mean resources of the tasks started so far
            avg = st.history_resources[0] / st.history_resources[1]
        elif reading == "arrived":  # mean over every arrived task's options, placed or not
            arrived = np.flatnonzero(st.trial.tasks.arrival <= st.now)
            assert len(arrived) > len(tasks)
            avg = _option_mean(st, arrived)
        else:  # mean over the waiting tasks' options
            avg = _option_mean(st, tasks)
        expected = ept_mask(st.options.energy[tasks], avg, st.trial.cfg.scheduler.ept_leniency,
                            st.ledger.remaining(day), r_rem)
        assert np.array_equal(mask, expected)
        assert not mask.all()  # the budget binds, so the average matters
        averages[reading] = avg
    # The heuristic starts small tasks first and large ones wait: the executed tasks are the
    # smallest sample, the waiting ones the largest, the whole workload in between.
    assert averages["history"] < averages["arrived"] < averages["mappable"]


def test_time_axis_unit_by_default_and_t_min_scales_lateness_per_task():
    from scheduling.parallel_energy.state import Trial

    assert ParallelEnergyConfig().utility.time_axis == "unit"
    cfg = preset_scenario("small").params
    unit = Trial.generate(cfg, 3).utility
    tmin = Trial.generate(preset_scenario("small", {"utility.time_axis": "t_min",
                                                    "utility.time_unit_tmin": 2.0}).params,
                          3)
    u, trial = tmin.utility, tmin
    tasks = np.arange(trial.tasks.n)
    t_min = trial.options.t_min
    table = u.table
    for k in (0.0, 0.5, 3.0, 11.0):
        finish = trial.tasks.arrival + t_min + k * 2.0 * t_min  # k class units late
        want = table.value(u.cls, u.scale, u.urgency, np.full(tasks.size, k))
        assert np.allclose(u.value(tasks, finish), want)
        scalar = [u.value1(int(t), float(finish[t])) for t in tasks[:50]]
        assert np.allclose(scalar, want[:50])
        # The global unit: the same lateness in seconds is lateness / (time_unit_h h) units.
        x = k * 2.0 * t_min / (cfg.utility.time_unit_h * 3600.0)
        assert np.allclose(unit.value(tasks, finish), table.value(u.cls, u.scale, u.urgency, x))
    # Long tasks decay more slowly on the t_min axis: an hour late costs them less.
    late = trial.tasks.arrival + t_min + 3600.0
    long_, short = t_min > np.quantile(t_min, 0.9), t_min < np.quantile(t_min, 0.1)
    kept = u.value(tasks, late) / u.scale
    assert kept[long_].mean() > kept[short].mean()


def test_t_min_axis_runs_and_keeps_the_invariants():
    _run("max-upe-ph", {"utility.time_axis": "t_min"})
    _run("conservative", {"utility.time_axis": "t_min", "utility.time_unit_tmin": 0.5})


def _state(overrides):
    from scheduling.parallel_energy.state import State, Trial

    return State(Trial.generate(preset_scenario("small", {**BUSY, **overrides}).params, 2))


def test_reservation_energy_committed_when_made_by_default_or_checked_at_start():
    from scheduling.parallel_energy.state import MAPPABLE, RESERVED, STARTED

    assert ParallelEnergyConfig().scheduler.reservation_energy == "at-reservation"
    for reading in ("at-reservation", "at-start"):
        st = _state({"scheduler.reservation_energy": reading})
        st.advance(3600.0 * 4.5, True)  # inside day 1, with tasks waiting
        t = st.mappable[0]
        c = int(np.flatnonzero(st.options.eligible[t])[0])
        s = st.now + 1800.0
        day = st.ledger.day_of(s)
        before = st.ledger.remaining(day)
        st.assign(t, c, 0, s, permanent=True)
        assert st.status[t] == RESERVED
        energy = float(st.options.energy[t, c, 0])
        spent = before - st.ledger.remaining(day)
        if reading == "at-reservation":
            assert spent == pytest.approx(energy)
            continue
        assert spent == 0.0
        # Someone else takes all the energy of the day before the reservation starts.
        d2 = 1000.0
        t0, blocker = st.now, (st.ledger.remaining(day) - 0.5 * energy) / d2
        st.ledger.commit(t0, t0 + d2, blocker)
        st.advance(s, True)
        assert st.status[t] == MAPPABLE and t in st.mappable and st.cancelled == 1
        assert t not in set(st.timelines[c].intervals()[3].tolist())  # nodes freed
        assert st.ledger.remaining(day) == pytest.approx(0.5 * energy)
        # With the energy back (the blocker withdrawn), the task reserves again and its
        # energy is committed when it starts.
        st.ledger.commit(t0, t0 + d2, blocker, -1.0)
        s2 = float(st.timelines[c].earliest1(int(st.options.nodes[t, c]),
                                             np.array([st.options.duration[t, c, 0]]))[0])
        s2 = max(s2, st.now + 600.0)
        st.assign(t, c, 0, s2, permanent=True)
        left = st.ledger.remaining(day)
        st.advance(s2, True)
        assert st.status[t] == STARTED
        assert left - st.ledger.remaining(day) == pytest.approx(energy)


def test_energy_at_start_cancels_reservations_under_a_tight_budget():
    result, log = _run("conservative", {"scheduler.reservation_energy": "at-start",
                                        "energy.budget_gj": 0.3})
    assert result.summary["reservations_cancelled"] > 0 and log["cancelled"] > 0


def test_easy_holds_one_reservation_per_system_by_default_or_per_cluster():
    assert ParallelEnergyConfig().scheduler.easy_reservations == "system"
    _, system = _run("easy", {"energy.budget_gj": None})
    _, cluster = _run("easy", {"energy.budget_gj": None, "scheduler.easy_reservations": "cluster"})
    assert system["max_reservations"] == 1  # the invariant check bounds it; it is reached
    assert cluster["max_reservations"] > 1  # several clusters hold one each
    assert cluster["max_reservations_per_cluster"] == 1
