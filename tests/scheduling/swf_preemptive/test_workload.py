"""The preemptive replay's workload: surrogate recipe, accuracy model, users, classes, limits."""

import numpy as np
import pytest

from scheduling.hpc.traces import TraceLibrary
from scheduling.swf_preemptive.workload import (
    HIGH,
    LOW,
    MEDIUM,
    accuracy_quantile,
    build,
    model_limits,
    offered_load,
)

from .conftest import config

LUBLIN = TraceLibrary().load("lublin_256")
EXAMPLE = TraceLibrary().load("example_8")


@pytest.fixture(scope="module")
def surrogate():
    return build(LUBLIN, config(trace="lublin_256", nodes=64, max_procs=32, target_load=0.8), 3)


def test_the_surrogate_recipe(surrogate):
    jobs = surrogate.jobs
    assert len(jobs) == 8794 and surrogate.dropped_size.size == 10_000 - 8794
    assert jobs.procs.max() == 32 and jobs.machine_nodes == 64 and jobs.rejected.size == 0
    assert offered_load(surrogate.jobs) == pytest.approx(0.8)
    assert surrogate.offered_load == pytest.approx(0.8)
    # Arrivals were compressed (the cut trace offers less than 0.8 on 64 processors over its
    # 89 days), keeping the first submit and the order.
    assert 0 < surrogate.load_scale < 1 and np.all(np.diff(jobs.submit) >= 0)
    original = LUBLIN.columns["submit"][LUBLIN.columns["allocated_procs"] <= 32]
    assert jobs.submit[0] == original.min()
    assert jobs.submit[-1] - jobs.submit[0] == pytest.approx(
        (original.max() - original.min()) * surrogate.load_scale)


def test_every_lublin_job_gets_a_model_limit_at_least_its_run(surrogate):
    jobs = surrogate.jobs
    assert surrogate.limits_synthesized == len(jobs) and surrogate.limit_kills == 0
    assert np.all(jobs.estimate >= jobs.run) and np.all(jobs.estimate <= 72 * 3600 + 1)
    assert np.all(jobs.estimate == np.ceil(jobs.estimate))
    # Lublin has no users: Zipf-popular synthetic ones, the most popular the most frequent.
    counts = np.bincount(surrogate.user)
    assert surrogate.n_users == len(counts) <= 64 and counts.argmax() == 0


def test_the_accuracy_mix_over_all_jobs_matches_the_spec():
    u = np.linspace(0, 1, 100_001)[:-1]
    r = accuracy_quantile(u)
    assert np.all(np.diff(r) >= 0) and r.min() == pytest.approx(0.005) and r.max() < 1.0
    assert np.mean(r < 0.04) == pytest.approx(0.38, abs=1e-4)
    assert np.mean(r >= 0.4) == pytest.approx(0.05, abs=1e-4)
    # The middle component is log-uniform on [0.04, 0.4]: its median is the geometric mean.
    middle = r[(r >= 0.04) & (r < 0.4)]
    assert np.median(middle) == pytest.approx(np.sqrt(0.04 * 0.4), rel=1e-3)


@pytest.mark.parametrize("tendency", [0.0, 0.7])
def test_user_tendency_keeps_the_mix_and_makes_users_predictable(tendency):
    rng = np.random.default_rng(0)
    n, users = 40_000, 200
    run = rng.uniform(60, 3600, n)
    user = rng.integers(0, users, n)
    cfg = config(user_tendency=tendency, limit_max_h=1e5)
    r = run / model_limits(run, user, users, cfg, seed=5)
    assert np.mean(r < 0.04) == pytest.approx(0.38, abs=0.015)  # the whole mix is the spec's
    assert np.mean(r >= 0.4) == pytest.approx(0.05, abs=0.01)
    # Share of the variance of log r explained by the user: none without a tendency.
    logr = np.log(r)
    means = np.bincount(user, logr) / np.bincount(user)
    explained = np.var(means[user]) / np.var(logr)
    if tendency == 0:
        assert explained < 0.02
    else:
        assert explained > 0.5


def test_limits_are_capped_but_never_below_the_run():
    run = np.array([10.0, 80_000.0, 300_000.0] * 100)
    limit = model_limits(run, np.zeros(300, dtype=int), 1, config(limit_max_h=24), seed=1)
    assert np.all(limit >= run) and np.all(limit <= np.maximum(run, 24 * 3600))
    assert np.all(limit[2::3] == 300_000.0) and np.any(limit[1::3] == 24 * 3600)


def test_requested_times_are_the_limits_and_a_shorter_limit_cuts_the_run():
    wl = build(EXAMPLE, config(trace="example_8", estimate_scale=0.5), 0)
    jobs = wl.jobs
    requested = dict(zip(EXAMPLE.columns["job_id"].tolist(),
                         EXAMPLE.columns["requested_time"].tolist(), strict=True))
    actual = dict(zip(EXAMPLE.columns["job_id"].tolist(),
                      EXAMPLE.columns["run_time"].tolist(), strict=True))
    for jid, limit, run in zip(jobs.job_id.tolist(), jobs.estimate.tolist(),
                               jobs.run.tolist(), strict=True):
        assert limit == requested[jid] * 0.5
        assert run == min(actual[jid], limit)  # killed at the limit
    assert wl.limit_kills == sum(actual[j] > requested[j] * 0.5 for j in jobs.job_id.tolist())
    assert wl.limits_synthesized == 0 and wl.limit_kills > 0
    raised = build(EXAMPLE, config(trace="example_8", estimate_scale=0.5, kill_at_limit=False), 0)
    assert raised.limit_kills == 0 and np.all(raised.jobs.run == wl.run_actual)
    assert np.all(raised.jobs.estimate >= raised.jobs.run)


def test_model_off_uses_the_run_time_for_jobs_without_a_request():
    wl = build(LUBLIN, config(trace="lublin_256", limit_model=False, estimate_scale=2.0), 0)
    assert wl.limits_synthesized == 0 and np.all(wl.jobs.estimate == 2 * wl.jobs.run)


@pytest.mark.parametrize(("mix", "other"), [("mix-a", MEDIUM), ("mix-b", LOW)])
def test_classes_are_drawn_per_job_from_the_seed(surrogate, mix, other):
    cfg = config(trace="lublin_256", nodes=64, max_procs=32, target_load=0.8, classes=mix)
    wl = build(LUBLIN, cfg, 3)
    assert set(np.unique(wl.rank).tolist()) == {HIGH, other}
    assert np.mean(wl.rank == HIGH) == pytest.approx(0.2, abs=0.015)
    again = build(LUBLIN, cfg, 3)
    other_seed = build(LUBLIN, cfg, 4)
    assert np.array_equal(wl.rank, again.rank) and not np.array_equal(wl.rank, other_seed.rank)
    # The workload itself (arrivals, runs, limits, users) does not depend on the mix.
    assert np.array_equal(wl.jobs.estimate, surrogate.jobs.estimate)
    assert np.array_equal(wl.user, surrogate.user)
    assert np.all(build(LUBLIN, config(trace="lublin_256"), 3).rank == MEDIUM)
