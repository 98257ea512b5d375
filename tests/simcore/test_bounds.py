"""Intervals kept inside their quantity's range: the one place every table, bar, band and hover
clips (simcore.bounds)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simcore.bounds import Bounds, band, interval, trials_for, useful_half_width
from simcore.stats import mean_ci, t_quantile

finite = st.floats(-1e6, 1e6, allow_nan=False)


@given(st.lists(st.floats(0, 100), min_size=2, max_size=8))
def test_a_percentage_interval_stays_in_0_100_and_says_when_it_was_cut(values):
    ci = mean_ci(values)
    got = interval(ci, Bounds(0.0, 100.0))
    assert 0.0 <= got.low <= got.mean <= got.high <= 100.0
    raw_low, raw_high = ci["mean"] - ci["half_width"], ci["mean"] + ci["half_width"]
    assert got.clipped == (raw_low < 0.0 or raw_high > 100.0)
    assert got.half_width == pytest.approx(ci["half_width"])  # the t interval's own
    assert got.minus == pytest.approx(got.mean - got.low)
    assert got.plus == pytest.approx(got.high - got.mean)
    assert got.n == len(values)


@given(st.lists(st.floats(0, 1e4), min_size=2, max_size=8), st.floats(0.01, 1000))
def test_scaling_converts_the_interval_and_its_bounds_together(values, scale):
    ci = mean_ci(values)
    shown = interval(ci, Bounds(0.0).scaled(scale), scale)
    stored = interval(ci, Bounds(0.0))
    assert shown.low >= 0.0
    assert shown.mean == pytest.approx(stored.mean * scale)
    assert shown.low == pytest.approx(stored.low * scale, abs=1e-9)
    assert shown.clipped == stored.clipped


def test_an_unbounded_interval_is_the_t_interval_and_one_trial_has_none():
    ci = mean_ci([1.0, 5.0, 9.0])
    got = interval(ci)
    assert (got.low, got.high, got.clipped) == (ci["low"], ci["high"], False)
    one = interval(mean_ci([3.0]), Bounds(0.0, 10.0))
    assert one.mean == 3.0 and one.low is None and one.minus == one.plus == 0.0
    assert interval(None).mean is None


@given(st.floats(-50, 150), st.floats(0, 200))
def test_a_difference_lies_within_the_range_s_span(a, b):
    diff = Bounds(0.0, 100.0).difference()
    assert (diff.lower, diff.upper) == (-100.0, 100.0)
    assert diff.clip(a - b) == min(max(a - b, -100.0), 100.0)
    assert Bounds(0.0).difference() == Bounds()  # half-open: no bound on a difference


@given(st.lists(st.tuples(finite, st.floats(0, 1e3)), min_size=1, max_size=30))
def test_a_band_is_kept_inside_and_reports_a_cut(points):
    mid = np.array([p[0] for p in points])
    half = np.array([p[1] for p in points])
    low, high, cut = band(mid - half, mid + half, Bounds(0.0, 100.0))
    assert np.all(low >= 0.0) and np.all(high <= 100.0)
    assert cut == bool(np.any((mid - half < 0.0) | (mid + half > 100.0)))


def test_nan_points_of_a_band_stay_gaps():
    low, high, cut = band([np.nan, -5.0], [np.nan, 5.0], Bounds(0.0))
    assert math.isnan(low[0]) and math.isnan(high[0]) and low[1] == 0.0 and cut


@given(st.floats(0.5, 500), st.integers(2, 40), st.floats(0.1, 50))
def test_trials_for_names_a_count_that_reaches_the_target(half, n, target):
    need = trials_for(half, n, target)
    if half <= target:
        assert need == n
        return
    sd = half * math.sqrt(n) / t_quantile(0.975, n - 1)
    assert need > n
    if need < 10_000:
        assert t_quantile(0.975, need - 1) * sd / math.sqrt(need) <= target * (1 + 1e-9)


def test_useful_means_five_points_of_a_bounded_range_or_a_tenth_of_the_mean():
    assert useful_half_width(40.0, Bounds(0.0, 100.0)) == 5.0
    assert useful_half_width(-200.0, Bounds(0.0)) == 20.0
    assert useful_half_width(0.0, Bounds(0.0)) is None
    # Two trials of a 0-100% metric at 10 and 90: the interval spans the range; the advice
    # asks for many more trials, never for fewer than it has.
    ci = mean_ci([10.0, 90.0])
    got = interval(ci, Bounds(0.0, 100.0))
    assert got.clipped and (got.low, got.high) == (0.0, 100.0)
    assert trials_for(got.half_width, 2, 5.0) > 100
