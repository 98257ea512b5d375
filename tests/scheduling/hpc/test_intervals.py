"""The busy-interval store under the cluster and node timelines: rows stay sorted through any
order of bookings and removals, and the gap matrix is each resource's free time, computed
directly here from the intervals."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.hpc.intervals import INF, BusyIntervals

# Per resource, disjoint [start, end) windows from a sorted list of distinct integer cut points.
bookings = st.lists(st.lists(st.integers(0, 60), min_size=0, max_size=12, unique=True),
                    min_size=1, max_size=5)


def _windows(cuts):
    cuts = sorted(cuts)
    return [(float(a), float(b)) for a, b in zip(cuts[::2], cuts[1::2], strict=False)]


def _free_for(windows, t):
    if any(a <= t < b for a, b in windows):
        return -INF
    later = [a for a, _ in windows if a > t]
    return min(later) - t if later else INF


@settings(max_examples=150, deadline=None)
@given(bookings, st.randoms(use_true_random=False), st.sampled_from([0.0, 0.5]))
def test_rows_stay_sorted_and_gaps_are_the_free_time_of_each_resource(cuts, rand, none_below):
    per = [_windows(c) for c in cuts]
    store = BusyIntervals(len(per), slots=1)
    todo = [(i, w) for i, ws in enumerate(per) for w in ws]
    rand.shuffle(todo)  # out of order: some go into voids, rows grow
    for task, (i, (a, b)) in enumerate(todo):
        rows = np.array([i])
        appended = bool(store.count[i] == 0 or store.end[i, store.count[i] - 1] <= a)
        store._store(task, rows, a, b, appended)
    for i, ws in enumerate(per):
        assert store.count[i] == len(ws)
        assert store.start[i, :len(ws)].tolist() == sorted(a for a, _ in ws)
    gone = [(i, w) for i, w in todo if rand.random() < 0.3]
    for i, (a, _) in gone:
        store._remove(np.array([i]), (store.start[[i]] == a))
        per[i].remove(next(w for w in per[i] if w[0] == a))
    times = np.arange(0.0, 62.0, 0.5)
    gap = store.gaps(times, none_below)
    for i, ws in enumerate(per):
        want = [_free_for(ws, t) for t in times]
        want = [-INF if g <= none_below else g for g in want]
        assert gap[:, i].tolist() == want
    node, start, end, _ = store.intervals()
    assert sorted(zip(node.tolist(), start.tolist(), end.tolist(), strict=True)) == sorted(
        (i, a, b) for i, ws in enumerate(per) for a, b in ws)
