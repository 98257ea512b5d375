"""Daily budgets, day accounting, goal energy and the energy filters (energy budget
(ch. 3 spec §4.3), metaheuristics (ch. 3 spec §5.9), ch. 3 spec §5.10)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.parallel_energy.config import EnergyConfig
from scheduling.parallel_energy.energy import GJ, EnergyLedger, epr_mask, ept_mask

H = 3600.0


def ledger(**kw):
    return EnergyLedger(EnergyConfig(**{"budget_gj": 12.0, **kw}), 4 * H, 60 * H)


def test_days_and_prorated_warmup_budget():
    led = ledger()
    assert led.bounds[:3].tolist() == [0.0, 4 * H, 28 * H]
    assert led.budget[0] == pytest.approx(12 * GJ * 4 / 24)
    assert led.budget[1] == pytest.approx(12 * GJ)
    assert ledger(warmup_budget="none").budget[0] == math.inf
    assert EnergyLedger(EnergyConfig(budget_gj=None), 4 * H, 60 * H).fits(0, 1e9, 1e12)


def test_energy_is_charged_to_the_day_it_is_consumed_in():
    led = ledger()
    parts = led.split(3 * H, 5 * H, 1000.0)
    assert parts == [(0, 1000.0 * H), (1, 1000.0 * H)]
    start_day = ledger(charge="start-day")
    assert start_day.split(3 * H, 5 * H, 1000.0) == [(0, 2000.0 * H)]


def test_fits_checks_every_day_touched_and_commit_updates_remaining():
    led = ledger()
    day0 = led.budget[0]
    power = day0 / H  # uses all of day 0 in one hour
    assert led.fits(3 * H, 4 * H, power)
    assert not led.fits(2.5 * H, 4 * H, power)  # 1.5 h of it would fall in day 0
    led.commit(3 * H, 4 * H, power)
    assert led.remaining(0) == pytest.approx(0.0, abs=1e-3)
    assert not led.fits(3.5 * H, 4.5 * H, 1.0)  # touches day 0, which has nothing left
    assert led.fits(4 * H, 5 * H, 1.0)
    vec = led.fits_many(np.array([3.5 * H, 4 * H, np.inf]), np.array([4.5 * H, 5 * H, np.inf]),
                        np.array([1.0, 1.0, 1.0]))
    assert vec.tolist() == [False, True, False]
    led.commit(3 * H, 4 * H, power, -1.0)
    assert led.remaining(0) == pytest.approx(day0)


def test_goal_energy_is_linear_in_the_day():
    led = ledger()
    assert led.goal(2 * H) == pytest.approx(12 * GJ * 2 / 24)  # warm-up: E x t / 24 h
    assert led.goal(4 * H) == pytest.approx(0.0)
    assert led.goal(16 * H) == pytest.approx(6 * GJ)
    assert ledger(budget_gj=None).goal(10 * H) == math.inf


def test_epr_filter_is_power_per_core():
    node_power = np.array([[[100.0, 50.0]], [[400.0, 200.0]]])  # (task, cluster, P-state)
    cpn = np.array([32])
    # Budget = L E_rem / R_rem = 2 * 1e6 / 1e6 = 2 W per core-second... per core.
    mask = epr_mask(node_power, cpn, 2.0, 1e6, 1e6)
    assert mask.tolist() == [[[False, True]], [[False, False]]]  # 100/32 > 2, 50/32 <= 2
    assert epr_mask(node_power, cpn, 2.0, math.inf, 1e6).all()


def test_ept_filter_uses_estimated_remaining_tasks():
    energy = np.array([[[5.0, 3.0]], [[20.0, 9.0]]])
    # est_tasks = R_rem / avg = 100 / 10 = 10; budget = 2 * 50 / 10 = 10 J
    mask = ept_mask(energy, 10.0, 2.0, 50.0, 100.0)
    assert mask.tolist() == [[[True, True]], [[False, True]]]
    assert not ept_mask(energy, 10.0, 2.0, 0.0, 100.0).any()


@pytest.mark.parametrize("pct", [100.0, 70.0])
def test_budget_as_a_share_of_max_upr_unconstrained_energy_on_the_same_trial(pct):
    """Testbed results (dissertation §3.6.3): the testbed's limits are shares of what Max UPR spends
    without one."""
    from scheduling.engine import ENGINE

    free = ENGINE.simulate(ENGINE.preset_scenario("ch3-testbed", {"energy.budget_gj": None}),
                           "max-upr-ph", seed=3).summary["energy_gj"]
    scenario = ENGINE.preset_scenario("ch3-testbed", {"energy.budget_pct_of_max_upr": pct})
    for policy in ("max-upr-ph", "max-upe-ph"):
        summary = ENGINE.simulate(scenario, policy, seed=3).summary
        assert summary["energy_budget_gj"] == pytest.approx(free * pct / 100.0, rel=1e-12)
        assert summary["energy_gj"] <= summary["energy_budget_gj"] * (1 + 1e-9)
    assert ENGINE.simulate(scenario, "max-upr-ph", seed=4).summary["energy_budget_gj"] != \
        pytest.approx(free * pct / 100.0)  # another trial, another reference run


@settings(max_examples=150, deadline=None)
@given(charge=st.sampled_from(["consumed", "start-day"]),
       commits=st.lists(st.tuples(st.floats(0, 70 * H), st.floats(0, 30 * H),
                                  st.floats(0, 2e6)), max_size=6),
       asked=st.lists(st.tuples(st.floats(0, 70 * H) | st.just(math.inf),
                                st.floats(0, 50 * H), st.floats(0, 2e6)),
                      min_size=1, max_size=40))
def test_fits_many_is_fits_for_each(charge, commits, asked):
    """The vectorized check gives, entry by entry, what ``fits`` says of one execution: on
    ledgers whose days are committed past their budget too (an untouched day with nothing
    left rules nothing out), for executions within a day, across days and past the last."""
    led = ledger(charge=charge)
    for start, length, power in commits:
        led.commit(start, start + length, power * 100.0)  # unchecked: may overdraw a day
    start = np.array([a[0] for a in asked])
    end = start + np.array([a[1] for a in asked])
    power = np.array([a[2] for a in asked])
    expected = [math.isfinite(s) and led.fits(s, e, p)
                for s, e, p in zip(start, end, power, strict=True)]
    assert led.fits_many(start, end, power).tolist() == expected
    grid = led.fits_many(start.reshape(-1, 1), end.reshape(-1, 1), power.reshape(-1, 1))
    assert grid.shape == (len(asked), 1) and grid.ravel().tolist() == expected


# The energy a run uses in its measured window never passes what its budget allows there
# (window_budget_gj): the lab keeps every interval of the energy used under it, so it must hold
# for every way the budget is accounted.
@pytest.mark.parametrize("preset, overrides, policy", [
    ("small", {}, "easy"),
    ("small", {}, "max-upe-ph"),
    ("small", {"time.sim_h": 40.0}, "easy"),  # a window of a day and a half
    ("small", {"energy.day_h": 6.0, "energy.budget_gj": 0.25}, "easy"),  # four days
    ("small", {"energy.charge": "start-day"}, "easy"),
    ("small", {"energy.charge": "start-day", "time.sim_h": 40.0}, "max-upe-ph"),
    ("small", {"time.warmup_h": 0.0, "time.sim_h": 20.0}, "easy"),
    ("ch3-testbed", {"energy.budget_pct_of_max_upr": 70.0}, "max-upr-ph"),
])
def test_a_run_never_uses_more_than_its_budget_allows_in_the_window(preset, overrides, policy):
    from scheduling.engine import ENGINE
    from scheduling.parallel_energy.energy import window_budget_gj
    from simcore.params import to_dict

    scenario = ENGINE.preset_scenario(preset, overrides)
    summary = ENGINE.simulate(scenario, policy, seed=2).summary
    cap = window_budget_gj(to_dict(scenario.params), summary["energy_budget_gj"])
    assert cap is not None and cap > 0
    assert summary["energy_gj"] <= cap * (1 + 1e-9)


def test_the_window_s_budget_counts_its_days_and_is_none_where_nothing_bounds_it():
    from scheduling.parallel_energy.energy import window_budget_gj

    def params(sim_h=28.0, warmup_h=4.0, day_h=24.0, charge="consumed",
               warmup_budget="prorated", idle=0.0):
        return {"time": {"sim_h": sim_h, "warmup_h": warmup_h},
                "energy": {"day_h": day_h, "charge": charge, "warmup_budget": warmup_budget,
                           "idle_power_w": idle}}

    assert window_budget_gj(params(), 0.9) == pytest.approx(0.9)  # ch. 3: one day measured
    assert window_budget_gj(params(sim_h=40.0), 0.9) == pytest.approx(1.8)  # part of a 2nd
    assert window_budget_gj(params(sim_h=52.0), 0.9) == pytest.approx(1.8)
    assert window_budget_gj(params(day_h=3.0, sim_h=3.0, warmup_h=0.0), 0.0027) == \
        pytest.approx(0.0027)  # the testbed's one 3 h period
    # Charged to the start day, a task started in the warm-up runs on into the window.
    assert window_budget_gj(params(charge="start-day"), 0.9) == pytest.approx(0.9 + 0.15)
    assert window_budget_gj(params(charge="start-day", warmup_budget="none"), 0.9) is None
    assert window_budget_gj(params(warmup_budget="none"), 0.9) == pytest.approx(0.9)
    assert window_budget_gj(params(), None) is None  # unconstrained
    assert window_budget_gj(params(idle=50.0), 0.9) is None  # idle draw need not keep it
    assert window_budget_gj({}, 0.9) is None


def test_charged_to_the_start_day_the_window_may_pass_its_own_days_budgets():
    """Why the warm-up day counts under start-day charging: a run does pass 0.9 GJ there."""
    from scheduling.engine import ENGINE
    from scheduling.parallel_energy.energy import window_budget_gj
    from simcore.params import to_dict

    scenario = ENGINE.preset_scenario("small", {"energy.charge": "start-day"})
    used = [ENGINE.simulate(scenario, "easy", seed=s).summary["energy_gj"] for s in range(2)]
    assert max(used) > 0.9
    assert max(used) <= window_budget_gj(to_dict(scenario.params), 0.9) * (1 + 1e-9)
