"""Replay charts: plain Plotly dicts, small whatever the trace, faithful to the results."""

import json

import numpy as np
import pytest

from scheduling.engine import preset_scenario, simulate
from scheduling.swf_replay import charts


@pytest.fixture(scope="module")
def runs():
    scenario = preset_scenario("swf-small", {"series_points": 5000})
    return [(p.upper(), simulate(scenario, p)) for p in ("fcfs", "easy")]


def test_figures_are_json_dicts_with_one_trace_per_policy(runs):
    figs = charts.figures(runs)
    assert set(figs) == {"wait_ecdf", "bsld_box", "utilization", "queue"}
    for fig in figs.values():
        json.dumps(fig, allow_nan=False)
        assert [t["name"] for t in fig["data"]] == ["FCFS", "EASY"]
        assert fig["layout"]["title"]["text"]


def test_results_as_json_dicts_give_the_same_figures(runs):
    as_json = [(label, json.loads(r.to_json())) for label, r in runs]
    a, b = charts.figures(as_json), charts.figures(runs)
    for name in a:
        assert a[name]["layout"] == b[name]["layout"]
        for ta, tb in zip(a[name]["data"], b[name]["data"], strict=True):
            for key in ta:
                numeric = isinstance(ta[key], list) and all(
                    isinstance(v, float) for v in ta[key])
                if numeric:
                    # JSON keeps 9 significant digits: allow for rounding at the last one
                    assert np.allclose(ta[key], tb[key], rtol=1e-3), (name, key)
                else:
                    assert ta[key] == tb[key]


def test_ecdf_is_monotone_and_matches_the_waits(runs):
    fig = charts.wait_ecdf(runs)
    for (_, result), trace in zip(runs, fig["data"], strict=True):
        x, p = np.array(trace["x"]), np.array(trace["y"])
        assert (np.diff(x) >= 0).all() and (np.diff(p) > 0).all() and p[-1] == 1.0
        wait_h = result.tasks["wait"] / 3600
        median_x = x[np.searchsorted(p, 0.5)]
        assert median_x == pytest.approx(np.quantile(wait_h, 0.5, method="inverted_cdf"),
                                         rel=1e-4)


def test_bsld_box_quartiles(runs):
    fig = charts.bsld_box(runs)
    for (_, result), box in zip(runs, fig["data"], strict=True):
        b = result.tasks["bsld"]
        assert box["median"][0] == pytest.approx(np.median(b), rel=1e-4)
        assert box["lowerfence"][0] <= box["q1"][0] <= box["median"][0] <= box["q3"][0]
        assert box["mean"][0] == pytest.approx(b.mean(), rel=1e-4)
    assert fig["layout"]["yaxis"]["type"] == "log"


def test_long_series_and_big_tables_are_kept_small(runs):
    n = len(runs[0][1].series["t_min"])
    assert n > charts.MAX_POINTS  # the 5000-point preset override above
    for fig in charts.figures(runs).values():
        for trace in fig["data"]:
            assert len(trace.get("x", [])) <= charts.MAX_POINTS + 1


def test_downsample_keeps_the_time_average():
    t = np.arange(4999.0)
    y = np.sin(t / 50.0) + 2
    tb, yb = charts.downsample(t, y, 2000)
    assert len(tb) <= 2000 and tb[0] == 0 and (np.diff(tb) > 0).all()
    weights = np.diff(np.append(tb, len(t)))
    assert np.average(yb, weights=weights) == pytest.approx(y.mean())
    short_t, short_y = charts.downsample([0, 1, 2], [5, 6, 7], 10)
    assert short_y.tolist() == [5, 6, 7]


def test_empty_results_give_empty_figures():
    figs = charts.figures([("none", {"summary": {}, "series": {}, "tasks": {}})])
    assert all(fig["data"] == [] for fig in figs.values())
