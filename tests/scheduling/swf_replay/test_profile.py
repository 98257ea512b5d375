"""The free-node profile against a dense, per-second brute force."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.swf_replay.profile import FreeProfile

NODES = 6
HORIZON = 60


def dense_fit(free, now, n, d, before=None, own=None):
    """Earliest integer start >= now where n nodes are free for d seconds (brute force)."""
    for s in range(now, HORIZON if before is None else before):
        window = free[s:s + d] if d else free[s:s + 1]
        if own is not None:  # the job's own nodes on [before, before + d) count as free
            window = window + np.where(np.arange(s, s + len(window)) >= before, own, 0)
        if (window >= n).all():
            return s
    return None


ops = st.lists(st.tuples(st.integers(0, 40), st.integers(1, 15), st.integers(1, NODES)),
               max_size=25)


@settings(max_examples=150, deadline=None)
@given(reservations=ops, now=st.integers(0, 20), n=st.integers(1, NODES), d=st.integers(0, 20))
def test_fits_match_brute_force(reservations, now, n, d):
    p = FreeProfile(NODES, 0.0)
    dense = np.full(HORIZON + 40, NODES)
    for start, length, k in reservations:
        # keep the profile feasible, as the scheduler does
        if (dense[start:start + length] >= k).all():
            p.add(float(start), float(start + length), -k)
            dense[start:start + length] -= k
            low = int(dense[start:start + length].min())
            assert p.can_hold(low, float(start), float(start + length))
            assert not p.can_hold(low + 1, float(start), float(start + length))
    p.advance(float(now))
    times, free = p.as_lists()
    assert times[0] == now and free[-1] == NODES
    for s in range(now, HORIZON):  # the step function equals the dense one
        i = max(i for i, x in enumerate(times) if x <= s)
        assert free[i] == dense[s]
    assert p.earliest_fit(n, float(d)) == dense_fit(dense, now, n, d)
    # fit_before for a job holding n nodes on [r, r + d) that we place first
    r = dense_fit(dense, now, n, max(d, 1))
    if r is not None and d > 0:
        p.add(float(r), float(r + d), -n)
        dense[r:r + d] -= n
        got = p.fit_before(n, float(d), float(r))
        want = dense_fit(dense, now, n, d, before=r, own=n)
        assert got == want
        assert want is None or want < r


def test_regrow_merges_equal_neighbours():
    p = FreeProfile(4, 0.0)
    for i in range(200):
        p.add(float(i), float(i + 1), -1)
        p.add(float(i), float(i + 1), 1)
    assert len(p) < 70
    assert p.as_lists()[1] == [4] * len(p)
    assert p.earliest_fit(4, math.inf) == 0.0
