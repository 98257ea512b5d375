"""Workload generators (simulated workload (ch. 2 spec §5) simulation, testbed experiment
(ch. 2 spec §8.2) testbed)."""

import numpy as np
import pytest

from scheduling.engine import preset_scenario
from scheduling.hpc.speedup import downey_speedup
from scheduling.value_of_service.model import weight_table
from scheduling.value_of_service.workload import generate


@pytest.fixture(scope="module")
def env():
    return preset_scenario("vos-env-c256").params


@pytest.fixture(scope="module")
def wl(env):
    return generate(env, 5)


def valid_mask(wl):
    return np.arange(wl.cfg_cores.shape[1])[None, :] < wl.n_cfg[:, None]


def test_counts_and_configurations(env, wl):
    w = env.workload
    assert w.tasks_min <= wl.n_tasks <= w.tasks_max
    assert w.types_min <= wl.n_types <= w.types_max
    assert ((wl.n_cfg >= w.configs_min) & (wl.n_cfg <= w.configs_max)).all()
    valid = valid_mask(wl)
    assert set(wl.cfg_cores[valid].tolist()) <= set(w.config_cores)
    assert set(wl.cfg_mem[valid].tolist()) <= set(w.config_memory_gb)
    for k in range(wl.n_types):
        pairs = list(zip(wl.cfg_cores[k, :wl.n_cfg[k]].tolist(),
                         wl.cfg_mem[k, :wl.n_cfg[k]].tolist(), strict=True))
        assert pairs == sorted(set(pairs))  # distinct, in (cores, memory) order


def test_etc_is_downey_times_the_memory_factor(env, wl):
    for k in range(wl.n_types):
        n = wl.n_cfg[k]
        c, m = wl.cfg_cores[k, :n].astype(float), wl.cfg_mem[k, :n]
        assert wl.parallelism[k] == pytest.approx(c.mean())
        f_mem = 1 + env.workload.memory_speedup * (m.max() - m) / m.max()
        expected = wl.base_time[k] / downey_speedup(c, c.mean(), wl.sigma[k]) * f_mem
        np.testing.assert_allclose(wl.etc[k, :n], expected)
        np.testing.assert_allclose(wl.eec[k, :n], wl.base_energy[k] * (c + m) / 2)
        assert 4 <= wl.sigma[k] <= 10


def test_base_values_clamped_and_gamma_in_range(wl):
    t_sys = wl.info["system_base_time_min"]
    assert (wl.base_time >= 0.4 * t_sys - 1e-9).all()
    assert (wl.base_time <= 1.6 * t_sys + 1e-9).all()
    assert ((wl.type_gamma >= 1) & (wl.type_gamma <= 10)).all()
    # gamma's mean follows the base time: the slowest types are the most important on average.
    order = np.argsort(wl.base_time)
    half = len(order) // 2
    assert wl.type_gamma[order[half:]].mean() > wl.type_gamma[order[:half]].mean()


def test_thresholds(wl):
    etc = np.where(np.isfinite(wl.etc), wl.etc, np.nan)[wl.type]
    eec = np.where(np.isfinite(wl.eec), wl.eec, np.nan)[wl.type]
    assert (wl.p_hard >= np.nanmax(etc, axis=1)).all()
    assert (wl.e_hard >= np.nanmax(eec, axis=1)).all()
    assert ((wl.p_soft > 0) & (wl.p_soft <= wl.p_hard)).all()
    assert ((wl.e_soft > 0) & (wl.e_soft <= wl.e_hard)).all()
    assert ((wl.vp_min >= 0) & (wl.vp_min <= 1) & (wl.ve_min >= 0) & (wl.ve_min <= 1)).all()


def test_weights_follow_table3_by_category_and_arrival_period(env, wl):
    table = weight_table(env.value)
    np.testing.assert_array_equal(wl.w_p, table[wl.category, wl.period, 0])
    np.testing.assert_array_equal(wl.w_e, table[wl.category, wl.period, 1])
    # per type (stated workload facts (ch. 2 spec §5.1))
    np.testing.assert_array_equal(wl.category, wl.type_category[wl.type])
    hour = (env.arrivals.start_hour + wl.arrival / 60.0) % 24
    assert (wl.period[(hour >= 10) & (hour < 18)] == 2).all()
    assert (wl.period[hour < 4] == 0).all()


def test_arrivals_follow_the_daily_sinusoid(env):
    arrivals = np.concatenate([generate(env, s).arrival for s in range(6)])
    assert (np.diff(np.sort(arrivals)) >= 0).all()
    assert arrivals.min() >= 0 and arrivals.max() < 26 * 60
    hour = (22 + arrivals / 60.0) % 24
    peak = np.count_nonzero((hour >= 12) & (hour < 16))
    trough = np.count_nonzero((hour >= 0) & (hour < 4))
    # Rate 1 + 0.5 sin(2π(h - 8)/24): 12:00-16:00 gets 1.477 / 0.523 = 2.8x 00:00-04:00.
    assert 2.2 < peak / trough < 3.6


def test_same_seed_same_workload_other_seed_another(env):
    a, b, c = generate(env, 3), generate(env, 3), generate(env, 4)
    for name in ("arrival", "type", "p_soft", "e_hard", "gamma"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.n_tasks != c.n_tasks or not np.array_equal(a.arrival, c.arrival)


def test_testbed_tables_and_phases():
    params = preset_scenario("vos-testbed-w1-40").params
    wl = generate(params, 2)
    assert wl.type_names == ["FT", "IS", "EP", "LU"]
    assert (wl.n_cfg == 20).all()
    assert set(wl.cfg_cores[0].tolist()) == {1, 4, 8, 16}
    assert set(wl.cfg_mem[0].tolist()) == {1, 2, 4, 8, 16}
    # Same cores, memory below FT's 8 GB working set: slower; above it: no gain.
    ft = {(int(c), float(m)): t for c, m, t in zip(wl.cfg_cores[0], wl.cfg_mem[0], wl.etc[0],
                                                   strict=True)}
    assert ft[(8, 1.0)] > ft[(8, 4.0)] > ft[(8, 8.0)] == ft[(8, 16.0)]
    assert ft[(8, 1.0)] < 2 * ft[(8, 8.0)]  # inflation of at most 2x
    # Tables are the same for every trial (historical data); arrivals are not.
    other = generate(params, 3)
    np.testing.assert_array_equal(wl.etc, other.etc)
    assert (wl.gamma == 1).all()
    # Phase rates: high, medium 30% lower, low 60% lower; weights from the phase's period.
    counts = np.bincount((wl.arrival // 60).astype(int), minlength=6)
    assert counts[2] + counts[3] > counts[1] + counts[4] > counts[0] + counts[5]
    phase = (wl.arrival // 60).astype(int)
    np.testing.assert_array_equal(wl.period, np.array([0, 1, 2, 2, 1, 0])[phase])
    expected = 2.4 * 40 * (0.4 + 0.7 + 1 + 1 + 0.7 + 0.4)  # rate x cores x hours
    assert 0.8 * expected < wl.n_tasks < 1.2 * expected
