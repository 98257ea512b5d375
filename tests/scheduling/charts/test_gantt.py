"""The replay job Gantt: every run drawn, processors never shared, killed runs apart, and an
aggregated view for schedules too large to draw run by run."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.engine import preset_scenario, simulate
from scheduling.hpc import gantt
from simcore.result import Result


def as_stored(result):
    """What the lab hands a run chart: the result read back from its JSON."""
    return Result.from_json(result.to_json())


def rectangles(trace):
    """Polygons of a filled trace: [(x0, x1, y0, y1), ...]."""
    out, xs, ys = [], [], []
    for x, y in zip(trace["x"], trace["y"], strict=True):
        if x is None:
            out.append((min(xs), max(xs), min(ys), max(ys)))
            xs, ys = [], []
        else:
            xs.append(x)
            ys.append(y)
    return out


def check_layout(start, end, nodes, machine):
    blocks = gantt.assign(np.asarray(start, float), np.asarray(end, float),
                          np.asarray(nodes), machine)
    for i, b in enumerate(blocks):
        assert sum(c for _, c in b) == nodes[i]
        assert all(f >= 0 and f + c <= machine for f, c in b)
    for i in range(len(start)):  # runs that overlap in time use disjoint processors
        mine = {p for f, c in blocks[i] for p in range(f, f + c)}
        for j in range(i):
            if start[i] < end[j] and start[j] < end[i]:
                theirs = {p for f, c in blocks[j] for p in range(f, f + c)}
                assert not mine & theirs, (i, j)
    return blocks


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 8).flatmap(lambda m: st.tuples(st.just(m), st.lists(
    st.tuples(st.integers(0, 50), st.integers(1, 30), st.integers(1, m)), max_size=25))))
def test_processors_are_never_shared_in_any_schedule_within_capacity(case):
    machine, runs = case
    # Keep only runs that fit next to the ones already kept: a schedule within capacity.
    kept = []
    for s, d, n in sorted(runs):
        busy = [k for k in kept if k[0] < s + d and s < k[0] + k[1]]
        points = {s} | {k[0] for k in busy if k[0] > s}
        if all(sum(k[2] for k in busy if k[0] <= t < k[0] + k[1]) + n <= machine
               for t in points):
            kept.append((s, d, n))
    if kept:
        start, dur, nodes = map(list, zip(*kept, strict=True))
        check_layout(start, [a + b for a, b in zip(start, dur, strict=True)], nodes, machine)


def test_a_run_ending_when_another_starts_hands_over_its_processors():
    blocks = check_layout([0, 0, 10], [10, 20, 20], [2, 2, 2], 4)
    assert blocks[2] == blocks[0] == [(0, 2)]
    # The next run on the same processors takes the other shade, so the two stay apart.
    shade = gantt.alternate(np.array([0.0, 0.0, 10.0]), blocks, 4)
    assert shade[0] != shade[2]
    # Fragmented free processors: the run is split in blocks, drawn one rectangle each.
    blocks = check_layout([0, 0, 0, 10], [10, 20, 10, 15], [1, 1, 1, 2], 3)
    assert blocks[3] == [(0, 1), (2, 1)]


@pytest.fixture(scope="module")
def preemptive():
    return as_stored(simulate(preset_scenario("pbb-small-mix-b"), "duration-remaining", 1))


def test_every_run_is_drawn_and_killed_runs_are_apart(preemptive):
    fig = gantt.job_gantt(preemptive)
    json.dumps(fig, allow_nan=False)
    fills = {}
    for t in fig["data"]:
        if t.get("fill"):
            fills.setdefault(t["legendgroup"], []).append(t)
    markers = {t["legendgroup"]: t for t in fig["data"] if t.get("mode") == "markers"}
    assert set(fills) == {"high", "low", "killed"} == set(markers)
    assert all(len(shades) == 2 for shades in fills.values())  # two shades per kind of run
    assert [t["showlegend"] for t in fills["killed"]] == [True, False]
    tasks, events = preemptive.tasks, preemptive.events
    assert len(markers["killed"]["x"]) == len(events["t"]) > 0
    assert len(markers["high"]["x"]) == tasks["class"].count("high")
    # Killed rectangles span exactly the killed runs (hours), each as wide as its processors.
    rects = rectangles(fills["killed"][0]) + rectangles(fills["killed"][1])
    assert sum((x1 - x0) * (y1 - y0) for x0, x1, y0, y1 in rects) == pytest.approx(
        sum(events["node_hours"]), rel=1e-5)
    custom = markers["killed"]["customdata"]
    assert [c[0] for c in custom] == events["job_id"]
    assert [c[5] for c in custom] == events["by_job_id"]
    assert fig["layout"]["yaxis"]["range"] == [0, 64]


def test_replay_gantt_area_is_the_work_done():
    result = as_stored(simulate(preset_scenario("swf-small"), "easy"))
    fig = gantt.job_gantt(result)
    shades = [t for t in fig["data"] if t.get("fill")]
    assert [t["name"] for t in shades] == ["jobs", "jobs"]
    area = sum((x1 - x0) * (y1 - y0) for t in shades for x0, x1, y0, y1 in rectangles(t))
    tasks = result.tasks
    work = sum(n * (e - s) for n, s, e in zip(tasks["nodes"], tasks["start"], tasks["end"],
                                              strict=True)) / 3600.0
    assert area == pytest.approx(work, rel=1e-5)
    assert "killed" not in fig["layout"]["title"]["text"]


def test_large_schedules_are_aggregated_exactly(monkeypatch, preemptive):
    monkeypatch.setattr(gantt, "MAX_RUNS", 10)
    fig = gantt.job_gantt(preemptive)
    json.dumps(fig, allow_nan=False)
    assert "aggregated" in fig["layout"]["title"]["text"] or "too many" in \
        fig["layout"]["title"]["text"]
    busy = {t["name"]: np.asarray(t["y"], dtype=float) for t in fig["data"]}
    x = np.asarray(fig["data"][0]["x"], dtype=float)
    width_h = x[1] - x[0]
    assert busy[gantt.LABELS["killed"]].sum() * width_h == pytest.approx(
        sum(preemptive.events["node_hours"]), rel=1e-3)
    total = sum(v for v in busy.values())
    assert total.max() <= 64 * (1 + 1e-3)  # 4 significant digits
