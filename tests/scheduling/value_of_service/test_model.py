"""The value model (ch. 2 spec §3): Eq. 1 endpoints, Eq. 2's zero rule, Table 3 weights and periods,
and the Downey form recorded with the results."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduling.hpc.speedup import downey_speedup, downey_time
from scheduling.value_of_service.config import ValueParams
from scheduling.value_of_service.model import period_of_hour, task_value, weight_table
from simcore.value import soft_hard


def test_value_function_endpoints():
    soft, hard, vmin = 10.0, 30.0, 0.25
    assert soft_hard(0.0, soft, hard, vmin) == 1.0
    assert soft_hard(soft, soft, hard, vmin) == 1.0  # inclusive soft threshold
    assert soft_hard(hard - 1e-9, soft, hard, vmin) == pytest.approx(vmin, abs=1e-9)
    assert soft_hard(hard, soft, hard, vmin) == 0.0  # the jump to 0 at the hard threshold
    assert soft_hard(hard + 5.0, soft, hard, vmin) == 0.0
    # Linear in between: halfway down from v_max to v_min.
    assert soft_hard(20.0, soft, hard, vmin) == pytest.approx((1.0 + vmin) / 2)
    np.testing.assert_allclose(soft_hard([5.0, 20.0, 30.0], soft, hard, vmin, 2.0),
                               [2.0, 1.125, 0.0])


def test_value_function_without_a_middle_branch():
    # soft == hard: full value up to the threshold, nothing from it on (first case wins).
    assert soft_hard(7.0, 7.0, 7.0, 0.3) == 1.0
    assert soft_hard(7.0 + 1e-12, 7.0, 7.0, 0.3) == 0.0


@given(st.floats(0, 100), st.floats(0, 100), st.floats(0, 1), st.floats(0, 100),
       st.floats(0, 100), st.floats(0, 1), st.floats(0.1, 10), st.sampled_from([1, 10]),
       st.sampled_from([1, 2, 4, 10]))
def test_task_value_is_zero_when_either_component_is(resp, e, a, gap1, gap2, b, gamma, wp, we):
    p_soft, p_hard = a * 50, a * 50 + gap1
    e_soft, e_hard = b * 50, b * 50 + gap2
    value, v_p, v_e = task_value(resp, e, p_soft, p_hard, 0.3, e_soft, e_hard, 0.6, gamma, wp,
                                 we)
    if v_p == 0 or v_e == 0:
        assert value == 0
    else:
        assert value == pytest.approx(gamma * (wp * v_p + we * v_e))
        assert value > 0


def test_value_matches_the_literal_equations(ref):
    rng = np.random.default_rng(4)
    for _ in range(300):
        soft = rng.uniform(0, 50)
        hard = soft + rng.uniform(0, 50)
        vmin = rng.uniform()
        obj = rng.uniform(0, 120)
        assert soft_hard(obj, soft, hard, vmin) == pytest.approx(
            ref.value_eq1(obj, soft, hard, vmin))


def test_table3_weights():
    w = weight_table(ValueParams())
    # rows: regular, high performance, energy conservative; columns: low, medium, high.
    assert w[0].tolist() == [[1, 1], [1, 2], [1, 4]]
    assert w[1].tolist() == [[10, 1], [10, 1], [10, 1]]
    assert w[2].tolist() == [[1, 10], [1, 10], [1, 10]]  # the table, not the prose's typo
    # Peak energy is worth 4x off-peak energy for regular tasks (spec Fig. 4).
    assert w[0, 2, 1] / w[0, 0, 1] == 4


def test_usage_periods_of_the_day():
    hours = [0, 3.99, 4, 9.99, 10, 17.99, 18, 23.99, 24, 26]
    assert period_of_hour(hours, ValueParams()).tolist() == [0, 0, 1, 1, 2, 2, 1, 1, 0, 0]


def test_downey_forms_agree():
    # The closed form used for ETC equals T(1)/T(n) of the simplified form, capped at A.
    n = np.arange(1, 200)
    for a, sigma in ((15.0, 4.0), (7.25, 9.6), (3.0, 10.0)):
        np.testing.assert_allclose(downey_speedup(n, a, sigma),
                                   downey_time(1, a, sigma) / downey_time(n, a, sigma))
        assert downey_speedup(10_000, a, sigma) == pytest.approx(a)
