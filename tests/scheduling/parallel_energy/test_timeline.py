"""Node timelines: the vectorized earliest-start index against a plain reference (allocation options
(ch. 3 spec §5.5))."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.parallel_energy.timeline import EPS, ClusterTimeline


def reference_earliest(intervals, n_nodes, now, horizon, n, d):
    """Allocation options (ch. 3 spec §5.5) literally: candidates now + every busy end after now, in
    order."""
    ends = sorted({e for node in intervals for (_, e) in node if now < e < horizon})
    for s in ([now] if now < horizon else []) + ends:
        free = 0
        for node in intervals:
            busy = any(a <= s < b for a, b in node)
            nxt = min((a for a, _ in node if a > s), default=np.inf)
            if not busy and nxt - s >= d - EPS:
                free += 1
        if free >= n:
            return s
    return np.inf


def intervals_of(tl):
    out = [[] for _ in range(tl.n)]
    node, start, end, _ = tl.intervals()
    for i, a, b in zip(node, start, end, strict=True):
        out[i].append((a, b))
    return out


def assert_no_overlap(tl):
    for node in intervals_of(tl):
        node.sort()
        for (_, b1), (a2, _) in zip(node, node[1:], strict=False):
            assert a2 >= b1 - EPS


ops = st.lists(
    st.tuples(st.sampled_from(["add", "add", "add", "advance", "remove", "query"]),
              st.integers(1, 6), st.floats(1.0, 50.0), st.integers(0, 10_000)),
    min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), ops)
def test_index_matches_reference_and_never_overlaps(n_nodes, operations):
    horizon = 200.0
    tl = ClusterTimeline(n_nodes, horizon, slots=1)  # tiny slots exercise the growth path
    tasks = []
    for t, (op, n, d, r) in enumerate(operations):
        n = min(n, n_nodes)
        ref = reference_earliest(intervals_of(tl), n_nodes, tl.now, horizon, n, d)
        got = tl.earliest([n], [d])[0]
        assert got == ref
        assert tl.earliest1(n, np.array([d, d * 2]))[0] == ref
        if op == "add" and np.isfinite(got):
            expected = tl.select_nodes(n, got, d)
            if r % 2:
                nodes = tl.book(t, n, got, d)
            else:
                nodes = expected
                tl.add(t, nodes, got, got + d)
            assert nodes.tolist() == expected.tolist()
            assert len(nodes) == n and len(set(nodes.tolist())) == n
            tasks.append(t)
            assert_no_overlap(tl)
        elif op == "advance":
            tl.advance(tl.now + (r % 40))
        elif op == "remove" and tasks:
            tl.remove_tasks([tasks.pop(r % len(tasks))])
        # A fresh index built from the same intervals agrees with the incremental one.
        fresh = ClusterTimeline(n_nodes, horizon)
        fresh.advance(tl.now)
        node, a, b, task = tl.intervals()
        for tid in np.unique(task):
            sel = task == tid
            fresh.add(int(tid), node[sel], float(a[sel][0]), float(b[sel][0]))
        qn = np.arange(1, n_nodes + 1)
        np.testing.assert_array_equal(tl.earliest(qn, np.full(n_nodes, d)),
                                      fresh.earliest(qn, np.full(n_nodes, d)))


def test_reserved_nodes_are_specific_nodes():
    # Two nodes; node 0 reserved at [10, 20). A 2-node task of length 15 cannot start at 0
    # (a free-count profile would say 2 nodes are free at 0 and at 20).
    tl = ClusterTimeline(2, 1000.0)
    tl.add(1, [0], 10.0, 20.0)
    assert tl.earliest([2], [15.0])[0] == 20.0
    assert tl.earliest([1], [15.0])[0] == 0.0  # node 1 is free
    assert tl.earliest([2], [10.0])[0] == 0.0  # fits before the reservation


def test_horizon_limits_starts():
    tl = ClusterTimeline(1, 100.0)
    tl.add(1, [0], 0.0, 100.0)
    assert tl.earliest([1], [5.0])[0] == np.inf
    tl2 = ClusterTimeline(1, 100.0)
    tl2.add(1, [0], 0.0, 99.0)
    assert tl2.earliest([1], [500.0])[0] == 99.0  # may start before the horizon, run past it


def test_node_selection_fig21():
    """Fig. 21: a 3-node task; n6 and n5 create fewest voids, n3 beats n4 on void size."""
    tl = ClusterTimeline(10, 10_000.0)
    now = 0.0
    s, d = 100.0, 50.0
    # n0-n2 busy through the start; n7-n9 busy during the task: not free.
    for i in (0, 1, 2):
        tl.add(10 + i, [i], now, 200.0)
    for i in (7, 8, 9):
        tl.add(20 + i, [i], 30.0, 130.0)
    tl.add(30, [3], now, 60.0)     # n3: ends before s, next task at 170 -> void 110 hosted
    tl.add(31, [3], 170.0, 180.0)
    tl.add(32, [4], now, 60.0)     # n4: ends before s, next at 400 -> void 340 hosted
    tl.add(33, [4], 400.0, 410.0)
    tl.add(34, [5], now, s)        # n5: ends exactly at s, free afterwards -> 0 voids
    tl.add(35, [6], now, s)        # n6: ends at s, next exactly at s + d -> 0 voids
    tl.add(36, [6], s + d, 300.0)
    assert tl.earliest([3], [d])[0] == s
    assert tl.select_nodes(3, s, d).tolist() == [3, 5, 6]
    assert tl.select_nodes(2, s, d).tolist() == [5, 6]


def test_busy_time_and_remove():
    tl = ClusterTimeline(3, 1000.0)
    tl.add(1, [0, 1], 0.0, 10.0)
    tl.add(2, [2], 5.0, 25.0)
    assert tl.busy_time(0.0, 20.0) == 20.0 + 15.0
    tl.remove_tasks([2])
    assert tl.busy_time(0.0, 20.0) == 20.0
    tl.advance(10.0)
    assert tl.busy_time(0.0, 100.0) == 0.0
