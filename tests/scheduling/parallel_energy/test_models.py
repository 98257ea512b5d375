"""ETC/APC models (ETC and APC data to energy of a task (ch. 3 spec §1.3-1.4), Downey parallel
speedup (ch. 3 spec §2.9)) and the utility reconstruction (utility function (ch. 3 spec §2.3))."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.hpc.speedup import downey_speedup, downey_time
from scheduling.parallel_energy.config import UtilityConfig
from scheduling.parallel_energy.execution import _relative_time, interpolate_table
from scheduling.parallel_energy.workload import utility_classes
from simcore.value import Shape, UtilityTable


def test_table2_interpolation_example():
    type1 = {1: 100, 2: 70, 4: 50, 16: 25, 32: 30}
    assert interpolate_table(type1, 8) == pytest.approx(41.6667, abs=1e-3)
    assert interpolate_table(type1, 4) == 50
    assert interpolate_table(type1, 24) == pytest.approx(27.5)  # time may grow with nodes
    assert interpolate_table({8: 100, 16: 80, 64: 70}, 40) == pytest.approx(75.0)


@settings(max_examples=50, deadline=None)
@given(st.floats(1.0, 300.0), st.floats(0.0, 10.0), st.integers(1, 2000))
def test_downey_relative_time_matches_closed_form_speedup(a, sigma, n):
    t1 = downey_time(1, a, sigma)
    assert t1 == pytest.approx(a * (1 + sigma))
    speedup = t1 / downey_time(n, a, sigma)
    assert speedup == pytest.approx(downey_speedup(n, a, sigma), rel=1e-9)
    if n >= a + a * sigma - sigma:
        assert speedup == pytest.approx(a, rel=1e-9)
    assert speedup <= a + 1e-9


def test_table_mode_agrees_at_powers_of_two_and_is_linear_between():
    a, sigma = np.full(3, 40.0), np.full(3, 6.0)
    nodes = np.array([4.0, 8.0, 6.0])
    table = _relative_time(nodes, a, sigma, "table")
    exact = _relative_time(nodes, a, sigma, "downey")
    assert table[0] == pytest.approx(exact[0]) and table[1] == pytest.approx(exact[1])
    assert table[2] == pytest.approx((exact[0] + exact[1]) / 2)


def test_fig20_check_class():
    table = UtilityTable([Shape((20.0, 40.0), (0.02897, 0.0228))])
    assert round(table.value1(0, 8.0, 1.0, 15.0), 2) == 5.18
    assert round(table.value1(0, 8.0, 1.0, 40.0), 2) == 2.84
    assert table.value1(0, 8.0, 1.0, 61.0) == 0.0


def test_seeded_classes_are_shared_monotone_and_start_at_priority():
    cfg = UtilityConfig()
    a, b = utility_classes(cfg), utility_classes(cfg)
    assert a.table() == b.table() and len(a) == 20
    x = np.linspace(0, 30, 301)
    for row in range(len(a)):
        shape = a.shapes[row]
        assert 1 <= len(shape.lengths) <= 4 and 4 <= shape.end <= 24
        v = a.value(row, 3.0, 0.2, x)
        assert v[0] == 3.0  # no lateness: the full starting utility
        assert np.all(np.diff(v) <= 1e-12)
        assert a.value1(row, 3.0, 0.2, shape.end) == 0.0
