"""Sweep and paired-comparison charts from hand-made rows, no browser."""

import json

import pytest

from simcore.sweep_charts import paired_bars, point_bars, spans_decades, sweep_lines


def ci(mean, half, n=3):
    return {"mean": mean, "low": mean - half, "high": mean + half, "half_width": half, "n": n}


ROWS = [
    {"point": 0, "setting": {"b": 1}, "policy": "p", "m": ci(10, 1), "m:diff": ci(0, 0)},
    {"point": 1, "setting": {"b": 10}, "policy": "p", "m": ci(20, 2), "m:diff": ci(0, 0)},
    {"point": 2, "setting": {"b": 100}, "policy": "p", "m": ci(30, 3), "m:diff": ci(0, 0)},
    {"point": 0, "setting": {"b": 1}, "policy": "q", "m": ci(12, 1), "m:diff": ci(2, 0.5)},
    {"point": 1, "setting": {"b": 10}, "policy": "q", "m": ci(19, 2), "m:diff": ci(-1, 0.5)},
    {"point": 2, "setting": {"b": 100}, "policy": "q", "m": ci(35, 3), "m:diff": ci(5, 1)},
]
AXES = [{"param": "b", "values": [1, 10, 100]}]


def colour(policy):
    return {"p": "#1f77b4", "q": "#d62728"}[policy]


def test_lines_with_bands_log_axis_and_point_indices():
    fig = sweep_lines(ROWS, AXES, "m", "metric", "u", ["p", "q"], colour, {"q": "Q"})
    lines = [t for t in fig["data"] if t.get("mode") == "lines+markers"]
    bands = [t for t in fig["data"] if t.get("fill") == "toself"]
    assert [t["name"] for t in lines] == ["p", "Q"] and len(bands) == 2
    assert lines[1]["y"] == [12, 19, 35] and lines[1]["x"] == [1, 10, 100]
    assert [c[0] for c in lines[1]["customdata"]] == [0, 1, 2]  # point index, for clicks
    assert lines[1]["customdata"][2][1:] == [32, 38, 3]  # CI low, high, n in the hover
    # the band goes along the upper bounds and back along the lower ones
    assert bands[0]["y"] == [11, 22, 33, 27, 18, 9]
    assert fig["layout"]["xaxis"]["type"] == "log"
    assert lines[0]["line"]["color"] == "#1f77b4" and "rgba(31,119,180" in bands[0]["fillcolor"]
    json.dumps(fig)


def test_a_second_axis_gives_dashed_lines_per_value():
    rows = [{**r, "setting": {**r["setting"], "c": c}, "point": r["point"] * 2 + i}
            for r in ROWS for i, c in enumerate(("x", "y"))]
    axes = [*AXES, {"param": "c", "values": ["x", "y"]}]
    fig = sweep_lines(rows, axes, "m", "metric", "", ["p"], colour)
    lines = [t for t in fig["data"] if t.get("mode") == "lines+markers"]
    assert [t["name"] for t in lines] == ["p, c = x", "p, c = y"]
    assert [t["line"]["dash"] for t in lines] == ["solid", "dash"]


def test_paired_bars_show_each_policy_minus_the_baseline_with_asymmetric_errors():
    rows = [r for r in ROWS if r["point"] == 2]
    fig = paired_bars(rows, "m", "p", "metric", "u", ["p", "q"], colour)
    (bar,) = fig["data"]
    assert bar["x"] == ["q"] and bar["y"] == [5]
    assert bar["error_y"]["array"] == [1] and bar["error_y"]["arrayminus"] == [1]
    assert "difference to p" in fig["layout"]["title"]["text"]


def test_point_bars_and_decades():
    fig = point_bars([r for r in ROWS if r["point"] == 0], "m", "metric", "", ["q", "p"],
                     colour)
    assert fig["data"][0]["x"] == ["q", "p"] and fig["data"][0]["y"] == [12, 10]
    assert spans_decades([1, 10, 100]) and not spans_decades([1, 5, 50])
    assert not spans_decades([0, 10, 1000]) and not spans_decades(["a", "b", "c"])


@pytest.mark.parametrize("missing", [None, {}])
def test_points_without_a_ci_draw_no_band(missing):
    rows = [{**r, "m": {"mean": r["m"]["mean"], "low": None, "high": None, "n": 1}
             if missing is None else {}} for r in ROWS if r["policy"] == "p"]
    fig = sweep_lines(rows, AXES, "m", "metric", "", ["p"], colour)
    assert not [t for t in fig["data"] if t.get("fill")]
