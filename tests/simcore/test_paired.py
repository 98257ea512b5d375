"""The paired-difference interval and the verdict drawn from it."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from simcore.stats import paired_diff, verdict


def test_paired_interval_matches_scipy_t_on_the_differences():
    a = {1: 10.0, 2: 12.5, 3: 9.0, 4: 11.0}
    b = {1: 9.0, 2: 11.0, 3: 9.5, 4: 10.0, 5: 99.0}  # seed 5 has no partner: left out
    out = paired_diff(a, b)
    diffs = [1.0, 1.5, -0.5, 1.0]
    lo, hi = sps.t.interval(0.95, len(diffs) - 1, loc=sum(diffs) / 4, scale=sps.sem(diffs))
    assert out["n"] == 4 and out["seeds"] == [1, 2, 3, 4]
    assert math.isclose(out["low"], lo, rel_tol=1e-9)
    assert math.isclose(out["high"], hi, rel_tol=1e-9)


def test_pairing_removes_shared_noise_that_separate_intervals_keep():
    # Two policies whose runs differ by a workload effect shared per seed and a constant 1.
    workload = {s: 100.0 * ((s * 7919) % 13) for s in range(8)}
    a = {s: workload[s] + 1.0 for s in workload}
    out = paired_diff(a, workload)
    assert out["low"] == pytest.approx(1.0) and out["high"] == pytest.approx(1.0)
    assert verdict(out["low"], out["high"]) == "holds"


@pytest.mark.parametrize("low, high, higher, expected", [
    (0.5, 2.0, True, "holds"),
    (-0.5, 2.0, True, "inconclusive"),
    (-2.0, -0.5, True, "contradicted"),
    (-2.0, -0.5, False, "holds"),
    (0.5, 2.0, False, "contradicted"),
    (0.0, 0.0, True, "inconclusive"),
    (None, None, True, "inconclusive"),
])
def test_verdict_rule(low, high, higher, expected):
    assert verdict(low, high, higher) == expected


@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=30))
def test_verdict_never_holds_on_an_interval_containing_zero(diffs):
    out = paired_diff(dict(enumerate(diffs)), dict.fromkeys(range(len(diffs)), 0.0))
    v = verdict(out["low"], out["high"])
    if out["low"] <= 0 <= out["high"]:
        assert v == "inconclusive"
    else:
        assert v in ("holds", "contradicted")
