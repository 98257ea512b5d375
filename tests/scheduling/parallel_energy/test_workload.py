"""Synthetic workload generator (ch. 3 spec §2) and trace-driven arrivals (Curie trace workload
(ch. 3 spec §3))."""

import numpy as np
import pytest

from scheduling.engine import preset_scenario
from scheduling.parallel_energy.config import ParallelEnergyConfig, WorkloadConfig
from scheduling.parallel_energy.execution import build_options
from scheduling.parallel_energy.state import Trial
from scheduling.parallel_energy.system import System
from scheduling.parallel_energy.workload import (
    _exact_rows,
    _mean_nodes,
    arrival_rate,
    gamma,
    make_types,
    sample_priority,
    synthetic_tasks,
)
from simcore.errors import ScenarioError


@pytest.mark.parametrize("mean, cov", [(133.0, 0.2), (1.0, 0.3), (5.0, 0.03)])
def test_gamma_sampler_mean_and_cov(mean, cov):
    x = gamma(np.random.default_rng(1), np.full(200_000, mean), cov)
    assert x.mean() == pytest.approx(mean, rel=0.01)
    assert x.std() / x.mean() == pytest.approx(cov, rel=0.02)


def test_table3_marginals():
    level, u0, urgency = sample_priority(np.random.default_rng(2), WorkloadConfig(), 400_000)
    shares = np.bincount(level, minlength=4) / len(level)
    np.testing.assert_allclose(shares, [0.0405, 0.1295, 0.30, 0.53], atol=0.003)
    assert u0.min() >= 1.0 and u0.max() <= 8.0
    assert abs(u0.mean() - 2.63) < 0.02  # Priority and urgency (ch. 3 spec §2.2) implied mean
    crit = level == 0
    assert set(np.unique(urgency[crit])) <= {0.6, 0.2, 0.1}
    assert np.all((u0[crit] > 6) & (u0[crit] <= 8))
    assert np.mean(urgency[level == 3] == 0.01) == pytest.approx(0.33 / 0.53, abs=0.01)


def test_core_rows_exact_shares():
    rows = _exact_rows(np.random.default_rng(3), [0.2, 0.2, 0.4, 0.19, 0.01], 100)
    assert np.bincount(rows).tolist() == [20, 20, 40, 19, 1]


def test_types_follow_spec_defaults():
    cfg = ParallelEnergyConfig()
    system = System.from_config(cfg.system)
    types = make_types(cfg.workload, system, seed=4)
    assert types.n == 100
    assert types.eligible[:60][:, :4].all() and not types.eligible[:60][:, 4:].any()
    assert types.eligible[60:80, 4].all() and types.eligible[80:, 5].all()
    assert types.eligible.sum(axis=1)[60:].max() == 1
    assert np.bincount(types.row, minlength=5).tolist() == [20, 20, 40, 19, 1]
    # GP "max cores of cluster" = smallest GP cluster (max cores of a GP type (ch. 3 spec A7)):
    # 11,520 cores.
    gp_full = types.row[:60] == 4
    assert np.all(types.cores_hi[:60][gp_full] == 11_520)
    assert np.all(types.cores_hi[:60][types.row[:60] == 3] == 11_519)
    sp1_full = types.row[60:80] == 4
    assert np.all(types.cores_lo[60:80][sp1_full] == 20_480)
    # Work-hours pattern for the rows needing more than 4,096 cores.
    assert np.array_equal(types.work_hours, types.row >= 3)
    # P-state 0 is fastest and hungriest; lower P-states trade time for energy (P-state scaling
    # (ch. 3 spec §2.7)).
    tm, pw = types.time_mult[types.eligible], types.power_mult[types.eligible]
    assert np.all(tm[:, 0] < tm[:, 2]) and np.all(pw[:, 0] > pw[:, 2])
    assert np.all(tm[:, 2] * pw[:, 2] < tm[:, 0] * pw[:, 0])


def test_single_core_time_tracks_priority_fig22():
    cfg = ParallelEnergyConfig(workload=WorkloadConfig(gp_types=1500, sp_types_per_cluster=0))
    system = System.from_config(cfg.system)
    types = make_types(cfg.workload, system, seed=5)
    ref = types.t_single[np.arange(types.n), types.reference] / 3600.0
    slope, intercept = np.polyfit(types.priority, ref, 1)
    assert slope == pytest.approx(17 / 7, rel=0.05)
    assert intercept + slope == pytest.approx(1.0, abs=0.15)
    mu = 1 + (types.priority - 1) * 17 / 7
    assert np.std(ref / mu) == pytest.approx(0.15, rel=0.1)


def test_mean_nodes_is_exact_expectation():
    assert _mean_nodes(2, 4, 32) == 1.0
    assert _mean_nodes(1, 64, 32) == pytest.approx(1.5)
    assert _mean_nodes(100, 100, 32) == 4.0


def test_arrival_rates_average_to_the_mean_rate():
    cfg = WorkloadConfig()
    system = System.from_config(ParallelEnergyConfig().system)
    types = make_types(cfg, system, seed=6)
    t = np.linspace(0.0, 86_400.0, 86_401)[:-1]
    for y in (int(np.flatnonzero(~types.work_hours)[0]), int(np.flatnonzero(types.work_hours)[0])):
        rate = arrival_rate(cfg, types, y, t, 20.0, 1.0)
        assert rate.mean() == pytest.approx(1.0, rel=1e-3)
    wh = int(np.flatnonzero(types.work_hours)[0])
    rate = arrival_rate(cfg, types, wh, t, 20.0, 1.0)
    assert set(np.round(np.unique(rate), 6)) == {0.4, 2.0}


def test_arrival_counts_match_tasks_per_day():
    cfg = ParallelEnergyConfig()
    counts = []
    for seed in range(3):
        system = System.from_config(cfg.system)
        types = make_types(cfg.workload, system, seed)
        tasks = synthetic_tasks(cfg, types, seed)
        assert np.all(np.diff(tasks.arrival) >= 0) and tasks.arrival.max() < 28 * 3600
        counts.append(tasks.n)
    assert np.mean(counts) == pytest.approx(5000 * 28 / 24, rel=0.03)


def test_options_energy_is_time_times_node_power_times_nodes():
    trial = Trial.generate(preset_scenario("small").params, seed=7)
    o = trial.options
    t, c = np.nonzero(o.eligible)
    assert np.allclose(o.energy[t, c], o.duration[t, c] * o.node_power[t, c]
                       * o.nodes[t, c][:, None])
    cpn = trial.system.cores_per_node
    assert np.array_equal(o.nodes, np.ceil(trial.tasks.cores[:, None] / cpn).astype(int))
    assert np.allclose(o.t_min, np.where(o.eligible[:, :, None], o.duration, np.inf)
                       .reshape(len(o.t_min), -1).min(axis=1))
    assert np.all(~o.eligible | (o.nodes <= trial.system.nodes))


def test_same_seed_same_workload_and_streams_are_independent():
    base = preset_scenario("small").params
    a = Trial.generate(base, seed=8)
    b = Trial.generate(base, seed=8)
    assert np.array_equal(a.tasks.arrival, b.tasks.arrival)
    assert np.array_equal(a.options.duration, b.options.duration)
    more = preset_scenario("small", {"workload.tasks_per_day": 800}).params
    c = Trial.generate(more, seed=8)
    assert np.array_equal(a.types.priority, c.types.priority)  # types unaffected by arrivals
    assert c.tasks.n > a.tasks.n


def test_empty_core_row_is_a_scenario_error():
    params = preset_scenario("small", {"workload.core_rows.3.min_cores": 5000}).params
    with pytest.raises(ScenarioError) as err:
        Trial.generate(params, seed=0)
    assert err.value.field == "workload.core_rows.3"


def test_build_options_table_mode_differs_only_between_powers_of_two():
    params = preset_scenario("small").params
    trial = Trial.generate(params, seed=9)
    table = build_options(trial.types, trial.tasks, trial.system, "table")
    o = trial.options
    pow2 = (o.nodes & (o.nodes - 1)) == 0
    mask = o.eligible & pow2
    assert np.allclose(table.duration[mask], o.duration[mask])


def test_trace_driven_arrivals():
    params = preset_scenario("ch3-trace").params
    trial = Trial.generate(params, seed=1)
    info = trial.tasks.info
    assert info["trace"] == "lublin_256.swf.gz" and info["machine_cores"] == 256
    arr = trial.tasks.arrival
    assert arr.min() >= 0 and arr.max() < 28 * 3600 and np.all(np.diff(arr) >= 0)
    assert trial.tasks.n == info["jobs_selected"] - info["jobs_not_fitting"] > 50
    assert trial.tasks.cores.max() <= 32
    # The system is 30% of the traced machine, 1 core per node, in the default cluster configuration
    # (ch. 3 spec §1.6) proportions.
    assert abs(int(trial.system.cores.sum()) - 0.3 * 256) <= 3
    # Reference cluster at P-state 0 runs for the trace run time; P-states scale it.
    from scheduling.parallel_energy.workload import load_trace
    from simcore.traces import TraceLibrary
    jobs, _ = load_trace(params, TraceLibrary())
    runs = dict(zip(jobs["arrival"].tolist(), jobs["run_time"].tolist(), strict=False))
    o, ty = trial.options, trial.types
    for t in range(trial.tasks.n):
        ref = ty.reference[trial.tasks.type[t]]
        if o.eligible[t, ref]:
            assert o.duration[t, ref, 0] == pytest.approx(runs[arr[t]])
            tm = ty.time_mult[trial.tasks.type[t], ref]
            assert o.duration[t, ref, 2] == pytest.approx(runs[arr[t]] * tm[2] / tm[0])
    with pytest.raises(ScenarioError) as err:
        Trial.generate(preset_scenario("ch3-trace", {"trace.file": "nope.swf"}).params, 1)
    assert err.value.field == "trace.file"
    with pytest.raises(ScenarioError) as err:
        Trial.generate(preset_scenario("ch3-trace", {"trace.day": 5000}).params, 1)
    assert err.value.field == "trace.day"


def test_testbed_workload_uses_tables_6_and_7():
    from scheduling.parallel_energy.config import TESTBED_EEC_J, TESTBED_ETC_S
    trial = Trial.generate(preset_scenario("ch3-testbed").params, seed=2)
    o, tasks = trial.options, trial.tasks
    assert 60 <= tasks.n <= 130  # one task per 120 s on average over 3 h
    assert set(np.unique(tasks.priority)) <= {1.0, 2.0, 3.0, 4.0}
    for t in range(tasks.n):
        k = tasks.type[t]
        for c in range(4):
            if TESTBED_ETC_S[k][c] is None:
                assert not o.eligible[t, c]
            else:
                assert o.duration[t, c, 0] == TESTBED_ETC_S[k][c]
                assert o.energy[t, c, 0] == pytest.approx(TESTBED_EEC_J[k][c])
    # Nodes = cores / cores per node: a .8 task needs 8/4/2/1 nodes, a .16 task 16/8/4/2.
    assert o.nodes[tasks.type == 0][0].tolist() == [8, 4, 2, 1]
    assert o.nodes[tasks.type == 2][0].tolist() == [16, 8, 4, 2]
    u = trial.utility
    t = 0
    full_until = tasks.arrival[t] + 2.5 * o.t_min[t]
    assert u.value1(t, full_until) == tasks.priority[t]
    assert u.value1(t, full_until + 1.25 * o.t_min[t]) == pytest.approx(tasks.priority[t] / 2)
    assert u.value1(t, full_until + 2.5 * o.t_min[t]) == 0.0


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/passwd", "lublin_256/../x"])
def test_trace_is_named_never_a_path(name):
    with pytest.raises(ScenarioError) as err:
        Trial.generate(preset_scenario("ch3-trace", {"trace.file": name}).params, 1)
    assert err.value.field == "trace.file"
