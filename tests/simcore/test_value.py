import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.value import Shape, UtilityTable, step


def test_fig20_example_class():
    # Two intervals, rates 0.02897/min on [0,20) and 0.0228/min on [20,60), no jump.
    table = UtilityTable([Shape((20.0, 40.0), (0.02897, 0.0228))])
    assert round(table.value1(0, 8.0, 1.0, 15.0), 2) == 5.18
    assert round(table.value1(0, 8.0, 1.0, 40.0), 2) == 2.84
    assert table.value1(0, 8.0, 1.0, 60.0) == 0.0
    assert table.value1(0, 8.0, 1.0, 0.0) == 8.0


def test_step_is_inclusive_at_deadline():
    table = UtilityTable([step(10.0)])
    assert table.value1(0, 8.0, 1.0, 10.0) == 8.0
    assert table.value1(0, 8.0, 1.0, 10.000001) == 0.0
    np.testing.assert_array_equal(table.value(0, 8.0, 1.0, [10.0, 10.5]), [8.0, 0.0])


def test_jump_applies_when_leaving_interval():
    table = UtilityTable([Shape((1.0, 1.0), (0.0, 0.0), jumps=(0.5,))])
    assert table.value1(0, 2.0, 1.0, 0.99) == 2.0
    assert table.value1(0, 2.0, 1.0, 1.0) == 1.0
    assert table.zero_time(0) == 2.0


shapes = st.builds(
    lambda n, lengths, rates, jumps: Shape(tuple(lengths[:n]), tuple(rates[:n]),
                                           tuple(jumps[: n - 1])),
    st.integers(1, 4),
    st.lists(st.floats(0.01, 10), min_size=4, max_size=4),
    st.lists(st.floats(0, 3), min_size=4, max_size=4),
    st.lists(st.floats(0.01, 1), min_size=3, max_size=3),
)


@settings(deadline=None)  # what it checks is the values, not their speed
@given(st.lists(shapes, min_size=1, max_size=5), st.floats(0.5, 8), st.floats(0.01, 1),
       st.lists(st.floats(0, 50), min_size=2, max_size=30))
def test_vectorized_matches_scalar_and_is_non_increasing(shape_list, scale, urgency, xs):
    table = UtilityTable(shape_list)
    xs = np.sort(np.asarray(xs))
    for row in range(len(table)):
        vec = table.value(row, scale, urgency, xs)
        ref = [table.value1(row, scale, urgency, float(x)) for x in xs]
        np.testing.assert_allclose(vec, ref, rtol=1e-12, atol=1e-12)
        assert np.all(np.diff(vec) <= 1e-12)
        assert vec[0] <= scale + 1e-12
