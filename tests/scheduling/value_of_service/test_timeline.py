"""The node timeline (resource timeline to permanent reservations vs. place-holders
(ch. 2 spec §6.2-6.4)): earliest starts with cores and memory, the two core choices, place-holders,
and the incremental index against a naive scan."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.value_of_service.timeline import NodeTimeline


def test_empty_node_starts_now_and_refuses_what_cannot_fit():
    tl = NodeTimeline(8, 16.0)
    s, _ = tl.earliest([4, 8, 9, 2], [4.0, 16.0, 1.0, 17.0], [30.0, 30.0, 1.0, 1.0])
    assert s.tolist() == [0.0, 0.0, np.inf, np.inf]


def test_cores_and_memory_both_bind():
    tl = NodeTimeline(8, 16.0)
    tl.book(1, [0, 1, 2, 3], 0.0, 10.0, 4.0)
    tl.book(2, [4, 5, 6, 7], 0.0, 20.0, 4.0)
    s, _ = tl.earliest([4, 8], [1.0, 1.0], [5.0, 5.0])
    assert s.tolist() == [10.0, 20.0]
    tl = NodeTimeline(8, 16.0)
    tl.book(1, [0, 1], 0.0, 30.0, 14.0)
    # Six cores are idle, but 4 GB are not free before the booking ends.
    assert tl.earliest(2, 4.0, 10.0)[0][0] == 30.0
    assert tl.earliest(2, 2.0, 10.0)[0][0] == 0.0


def test_a_window_must_fit_before_a_later_booking():
    tl = NodeTimeline(2, 10.0)
    tl.book(1, [0, 1], 15.0, 25.0, 1.0)  # a reservation in the future
    assert tl.earliest(2, 1.0, 15.0)[0][0] == 0.0
    assert tl.earliest(2, 1.0, 16.0)[0][0] == 25.0
    assert tl.earliest(1, 10.0, 15.0)[0][0] == 0.0
    assert tl.earliest(1, 10.0, 16.0)[0][0] == 25.0  # memory too: 9 GB free during it


def test_void_rule_and_lowest_ids():
    tl = NodeTimeline(4, 100.0)
    tl.book(1, [0], 0.0, 10.0, 1.0)
    tl.book(2, [1], 20.0, 40.0, 1.0)  # core 1 is free on [0, 20)
    # 10 minutes from now: core 1 would leave a 10-minute void before task 2; 2 and 3 none.
    assert tl.choose(1, 0.0, 10.0, "voids")[0].tolist() == [2]
    assert tl.choose(1, 0.0, 10.0, "lowest")[0].tolist() == [1]
    # Exactly 20 minutes fills core 1's gap: no void on any core, then lowest id.
    assert tl.choose(1, 0.0, 20.0, "voids")[0].tolist() == [1]


def test_void_rule_counts_the_gap_before_the_start():
    tl = NodeTimeline(3, 10.0)
    tl.book(1, [0], 0.0, 10.0, 8.0)
    tl.book(2, [2], 0.0, 6.0, 1.0)
    s, _ = tl.earliest(1, 5.0, 20.0)
    assert s[0] == 10.0  # memory is short until 10
    # At 10: core 0 just freed (no void), core 2 freed at 6 (4-minute void), core 1 idle since
    # now (10-minute void): fewest, then smallest voids.
    cores, voids, size = tl.choose(2, 10.0, 20.0, "voids")
    assert cores.tolist() == [0, 2] and voids == 1 and size == 4.0
    assert tl.choose(2, 10.0, 20.0, "lowest")[0].tolist() == [0, 1]


def test_placeholders_live_until_the_next_rebuild():
    tl = NodeTimeline(4, 8.0)
    tl.book(1, [0, 1, 2, 3], 0.0, 10.0, 8.0)  # running
    tl.book(2, [0, 1], 10.0, 30.0, 4.0, keep=False)  # place-holder
    assert tl.earliest(4, 1.0, 5.0)[0][0] == 30.0
    tl.rebuild(1.0)
    assert tl.earliest(4, 1.0, 5.0)[0][0] == 10.0
    assert set(tl.intervals()[3].tolist()) == {1}


def naive_earliest(spans, n, memory, now, c, m, d):
    """Scan every candidate start: each core and the memory checked over the whole window."""
    times = sorted({now} | {x for s, e, _, _ in spans for x in (s, e) if x > now})
    for t in times:
        busy = set()
        for s, e, cores, _ in spans:
            if s < t + d and e > t:
                busy.update(cores)
        points = [t] + [s for s, _, _, _ in spans if t < s < t + d]
        used = max(sum(mm for s, e, _, mm in spans if s <= p < e) for p in points)
        if n - len(busy) >= c and used + m <= memory:
            return t
    return np.inf


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 8), st.integers(1, 30),
                          st.booleans(), st.sampled_from(["voids", "lowest"]),
                          st.integers(0, 6)), min_size=1, max_size=25))
def test_incremental_index_matches_a_naive_scan(ops):
    n, memory = 6, 12.0
    tl = NodeTimeline(n, memory)
    now = 0.0
    spans = []  # (start, end, cores, memory) of every live booking
    held = set()  # tasks holding place-holders since the last rebuild
    for task, (c, m, d, keep, rule, step) in enumerate(ops):
        if step:  # the next mapping event
            now += step
            spans = [x for x in spans if x[1] > now and (x[4] not in held)]
            if held:
                tl.rebuild(now)
                held.clear()
            else:
                tl.advance(now)
        s, _ = tl.earliest(c, float(m), float(d))
        expected = naive_earliest([x[:4] for x in spans], n, memory, now, c, m, d)
        assert s[0] == expected
        if not np.isfinite(expected):
            continue
        cores, _, _ = tl.choose(c, float(s[0]), float(d), rule)
        keep = keep or s[0] == now
        tl.book(task, cores, float(s[0]), float(s[0]) + d, float(m), keep=keep)
        if not keep:
            held.add(task)
        spans.append((float(s[0]), float(s[0]) + d, set(cores.tolist()), float(m), task))
        # No core holds two bookings at once; memory never over the node's size.
        for i, (s1, e1, c1, _, _) in enumerate(spans):
            for s2, e2, c2, _, _ in spans[i + 1:]:
                if s1 < e2 and s2 < e1:
                    assert not (c1 & c2)
        for p in {x[0] for x in spans}:
            assert sum(x[3] for x in spans if x[0] <= p < x[1]) <= memory
