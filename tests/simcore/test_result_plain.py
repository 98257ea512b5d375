"""``simcore.result.plain``: the JSON-ready copy every result is written through. Its dicts
take a fast path for plain values (a decision trace is tens of thousands of small dicts), which
must give what the general rule gives: keys as text, numpy scalars as Python numbers, bools kept
bools, non-finite floats as None."""

import json
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from simcore.result import plain

atoms = st.one_of(
    st.none(), st.booleans(), st.integers(-2**62, 2**62), st.text(max_size=5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-2**31, 2**31).map(np.int64), st.floats(width=32).map(np.float32),
    st.floats().map(np.float64), st.booleans().map(np.bool_))
keys = st.one_of(st.text(alphabet="abc_", max_size=4), st.integers(-5, 5))  # never one key twice
values = st.recursive(atoms, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)), max_leaves=20)


def same(got, value) -> bool:
    """``got`` is ``value`` made plain, checked against the value's own kind level by level."""
    if isinstance(value, dict):
        return (type(got) is dict and list(got) == [str(k) for k in value]
                and all(same(got[str(k)], v) for k, v in value.items()))
    if isinstance(value, list):
        return type(got) is list and len(got) == len(value) and all(map(same, got, value))
    if isinstance(value, (bool, np.bool_)):
        return type(got) is bool and got == bool(value)
    if isinstance(value, (int, np.integer)):
        return type(got) is int and got == int(value)
    if isinstance(value, (float, np.floating)):
        return got is None if not math.isfinite(value) else (type(got) is float
                                                             and got == float(value))
    return got is value


@given(st.dictionaries(keys, values, max_size=6))
def test_plain_copies_dicts_as_the_rule_says(value):
    got = plain(value)
    assert same(got, value)
    json.dumps(got, allow_nan=False)  # what it is for: never raises


def test_a_decision_list_is_copied_not_shared():
    decisions = [{"t": 1.0, "task": 3, "action": "held", "reason": "r", "free": np.int64(2),
                  "last": {"free": float("inf")}}]
    got = plain(decisions)
    assert got == [{"t": 1.0, "task": 3, "action": "held", "reason": "r", "free": 2,
                    "last": {"free": None}}]
    assert got[0] is not decisions[0] and type(got[0]["free"]) is int
