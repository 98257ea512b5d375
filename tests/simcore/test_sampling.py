"""simcore.sampling: the samplers behind the ch4 workload (ETC generation (ch. 4 spec §3.2), bursts
(ch. 4 spec §4.3), burst arrival times (ch. 4 spec §4.4))."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.sampling import (
    gamma_mean_cov,
    integer_split,
    sinusoidal_nhpp,
    sinusoidal_rate,
    uniform_int_around,
    uniform_int_bounds,
)


@pytest.mark.parametrize("mean,cov", [(10.0, 0.1), (50.0, 0.3), (160.0, 0.3)])
def test_gamma_mean_and_cov(mean, cov):
    x = gamma_mean_cov(np.random.default_rng(1), mean, cov, size=200_000)
    assert x.mean() == pytest.approx(mean, rel=0.005)
    assert x.std() / x.mean() == pytest.approx(cov, rel=0.02)
    assert np.all(x > 0)


def test_gamma_cov_zero_is_the_mean():
    assert np.all(gamma_mean_cov(np.random.default_rng(0), [3.0, 4.0], 0.0) == [3.0, 4.0])


def test_burst_size_bounds_follow_a6():
    assert uniform_int_bounds(64) == (32, 96)
    assert uniform_int_bounds(1) == (1, 1)
    assert uniform_int_bounds(16) == (8, 24)
    assert uniform_int_bounds(32) == (16, 48)
    assert uniform_int_bounds(128) == (64, 192)


def test_burst_sizes_uniform_inclusive():
    x = uniform_int_around(np.random.default_rng(2), 64, size=100_000)
    assert x.min() == 32 and x.max() == 96
    assert x.mean() == pytest.approx(64, abs=0.3)
    assert np.all(uniform_int_around(np.random.default_rng(2), 1, size=1000) == 1)


def test_nhpp_follows_the_sinusoidal_rate():
    gen = np.random.default_rng(3)
    mean, amp, cycles, phase = 2.0, 0.8, 3, 1.0
    times, owner = sinusoidal_nhpp(gen, np.full(50, mean), amp, cycles, phase, 0.0, 1440.0)
    assert np.all(np.diff(times) >= 0) and set(owner.tolist()) <= set(range(50))
    counts, edges = np.histogram(times, bins=48, range=(0, 1440))
    mid = (edges[:-1] + edges[1:]) / 2
    expected = 50 * sinusoidal_rate(mid, mean, amp, cycles, phase) * 30
    # Poisson counts: within 5 sigma of the rate integrated over each 30-min bin.
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected) + 5)
    assert times.size == pytest.approx(50 * mean * 1440, rel=0.02)


def test_nhpp_is_deterministic_per_generator():
    a = sinusoidal_nhpp(np.random.default_rng(9), [0.1, 0.2], 0.5, 2, 0.0, 0, 600)
    b = sinusoidal_nhpp(np.random.default_rng(9), [0.1, 0.2], 0.5, 2, 0.0, 0, 600)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 500.0), min_size=1, max_size=8), st.integers(0, 50),
       st.integers(0, 3000))
def test_integer_split_total_and_minimum(weights, minimum, extra):
    total = minimum * len(weights) + extra
    sizes = integer_split(weights, total, minimum=minimum)
    assert sizes.sum() == total
    assert np.all(sizes >= minimum)
