"""Shared and ch3 charts: figure dicts from tiny hand-made inputs, no browser."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.parallel_energy import charts as parallel
from simcore import charts as common
from simcore.bounds import Bounds
from simcore.compact import downsample, quantiles
from simcore.lab import RunData
from simcore.result import Result


def run(policy, trial, summary, series=None, dist=None):
    return RunData(policy=policy, trial=trial, seed=trial, summary=summary,
                   series=series or {}, dist=dist or {})


def groups_with(key, a_values, b_values):
    return {"a": [run("a", i, {key: v}) for i, v in enumerate(a_values)],
            "b": [run("b", i, {key: v}) for i, v in enumerate(b_values)]}


def test_metric_bars_mean_and_ci():
    fig = common.metric_bars(groups_with("u", [1.0, 3.0], [5.0, 5.0, 5.0]), "u", "Utility", "%")
    bar = fig["data"][0]
    assert bar["type"] == "bar" and bar["x"] == ["a", "b"]
    assert bar["y"] == [2.0, 5.0]
    half = bar["error_y"]["array"]
    assert half[0] == pytest.approx(12.706 * np.sqrt(2) / np.sqrt(2), rel=1e-3)  # t(0.975,1)
    assert half[1] == 0.0
    assert fig["layout"]["yaxis"]["title"]["text"] == "Utility (%)"
    json.dumps(fig, allow_nan=False)


def test_mean_series_averages_trials_and_uses_hours():
    series = lambda ys: {"t_min": [0, 60, 120], "x": ys}  # noqa: E731
    groups = {"p": [run("p", 0, {}, series([0, 2, 4])), run("p", 1, {}, series([0, 4, 8]))]}
    fig = common.mean_series(groups, "x", "X", "units")
    trace = next(t for t in fig["data"] if t["name"] == "p")
    assert trace["x"] == [0.0, 1.0, 2.0] and trace["y"] == [0.0, 3.0, 6.0]
    assert trace["legendgroup"] == "p"
    # The 95% CI band around it: t(0.975, 1) x sd / sqrt(2) at each time.
    low, high = (t for t in fig["data"] if t["name"].startswith("p 95% CI"))
    assert high["fill"] == "tonexty" and low["legendgroup"] == high["legendgroup"] == "p"
    assert high["y"][1] == pytest.approx(3.0 + 12.706 * np.sqrt(2) / np.sqrt(2), rel=1e-3)
    assert low["y"][1] == pytest.approx(3.0 - 12.706, rel=1e-3)
    # A bounded series never shows its band below the bound.
    bounded = common.mean_series(groups, "x", "X", "units", bounds=Bounds(0.0))
    assert min(v for t in bounded["data"] for v in t["y"]) >= 0.0
    # One run: no band.
    single = common.mean_series({"p": groups["p"][:1]}, "x", "X", "units")
    assert [t["name"] for t in single["data"]] == ["p"]


def test_ecdf_from_quantiles_and_box():
    dist = {"w": quantiles(np.arange(101.0))}
    groups = {"p": [run("p", 0, {}, dist=dist)]}
    fig = common.ecdf(groups, "w", "Wait", "min")
    assert fig["data"][0]["x"][0] == 0.0 and fig["data"][0]["x"][-1] == 100.0
    assert fig["data"][0]["y"][-1] == 1.0
    box = common.quantile_box(groups, "w", "Wait", "min")["data"][0]
    assert box["median"] == [50.0] and box["q1"] == [25.0] and box["upperfence"] == [95.0]


def test_facet_puts_each_group_on_its_own_shared_axes():
    fig = {"data": [{"name": "a", "legendgroup": "a", "x": [1], "y": [1]},
                    {"name": "b", "legendgroup": "b", "x": [2], "y": [2]},
                    {"name": "goal", "x": [0], "y": [0]}],
           "layout": common.layout("T", "x", "y")}
    out = common.facet(fig, ["a", "b"])
    assert [t["xaxis"] for t in out["data"]] == ["x", "x2"]
    assert out["layout"]["xaxis2"]["matches"] == "x"
    assert out["layout"]["yaxis2"]["matches"] == "y"
    assert [a["text"] for a in out["layout"]["annotations"]] == ["<b>a</b>", "<b>b</b>"]


def test_downsample_keeps_alignment_and_endpoints():
    n = 1681
    series = {"t_min": list(range(n)), "u": [float(i) for i in range(n)],
              "per_uav": {"1": list(range(n))}, "scalar": 3}
    small = downsample(series, max_points=100)
    assert len(small["t_min"]) == len(small["u"]) == len(small["per_uav"]["1"]) <= 100
    assert small["t_min"][0] == 0 and small["t_min"][-1] == n - 1
    assert small["u"] == [float(t) for t in small["t_min"]]
    assert small["scalar"] == 3


def test_energy_chart_has_goal_and_budget_lines():
    series = {"t_min": [0, 60], "energy_day_gj": [0.0, 1.0], "goal_energy_gj": [0.0, 0.5],
              "budget_gj": [2.0, 2.0]}
    fig = parallel.energy_vs_budget({"p": [run("p", 0, {}, series)]})
    names = [t["name"] for t in fig["data"]]
    assert names == ["p", "goal energy", "budget"]


@settings(deadline=None)  # what it checks is the values, not their speed
@given(st.lists(st.lists(st.floats(0, 1), min_size=6, max_size=6), min_size=2, max_size=4))
def test_the_energy_band_never_passes_the_budget_in_force(shares):
    """Energy used today is at most the budget of the moment (a warm-up budget, then the day's):
    a band of runs that all kept it stays under it, and the chart says it was cut."""
    budget = [0.15, 0.15, 0.9, 0.9, 0.9, 0.9]
    runs = [run("p", i, {}, {"t_min": list(range(0, 360, 60)), "budget_gj": budget,
                             "energy_day_gj": [b * s for b, s in zip(budget, row, strict=True)]})
            for i, row in enumerate(shares)]
    fig = parallel.energy_vs_budget({"p": runs})
    high = next(t for t in fig["data"] if t["name"] == "p 95% CI")["y"]
    low = next(t for t in fig["data"] if t["name"] == "p 95% CI low")["y"]
    for h, lo, b in zip(high, low, budget, strict=True):
        assert (h is None or h <= b + 1e-9) and (lo is None or lo >= 0.0)
    # A run past its budget: no cap (the band shows what happened).
    over = [*runs, run("p", 9, {}, {"t_min": list(range(0, 360, 60)), "budget_gj": budget,
                                    "energy_day_gj": [b * 1.5 for b in budget]})]
    fig = parallel.energy_vs_budget({"p": over})
    high = next(t for t in fig["data"] if t["name"] == "p 95% CI")["y"]
    assert max(h for h in high if h is not None) > 0.9


def test_runs_under_different_budgets_keep_a_band_under_the_largest_not_the_smallest():
    """A share of Max UPR PH's energy sets each trial's budget: runs each under their own
    budget have a mean that can pass the smallest, and the band is not cut beneath it."""
    t = list(range(0, 180, 60))
    runs = [run("p", 0, {}, {"t_min": t, "budget_gj": [1.0] * 3, "energy_day_gj": [1.0] * 3}),
            run("p", 1, {}, {"t_min": t, "budget_gj": [0.5] * 3, "energy_day_gj": [0.5] * 3})]
    fig = parallel.energy_vs_budget({"p": runs})
    mean = next(tr for tr in fig["data"] if tr["name"] == "p")["y"]
    high = next(tr for tr in fig["data"] if tr["name"] == "p 95% CI")["y"]
    low = next(tr for tr in fig["data"] if tr["name"] == "p 95% CI low")["y"]
    assert mean == [0.75] * 3
    assert all(lo <= m <= h <= 1.0 for lo, m, h in zip(low, mean, high, strict=True))
    assert high == [1.0] * 3  # cut at the largest budget, and said so
    assert "clipped" in fig["layout"]["title"]["subtitle"]["text"]


def test_metaheuristic_choice_share():
    s = lambda c: {"t_min": [0, 1, 2], "chosen": c}  # noqa: E731
    groups = {"m": [run("m", 0, {}, s(["upe", "upr", None])),
                    run("m", 1, {}, s(["upe", "upe", None]))]}
    assert parallel.has_choices(groups)
    fig = parallel.metaheuristic_choice(groups)
    assert fig["data"][0]["y"] == [1.0, 0.5, None]
    assert not parallel.has_choices({"x": [run("x", 0, {}, s([None, None, None]))]})


def test_node_gantt_lanes_and_contiguous_blocks():
    result = Result(summary={}, tasks={
        "id": [0, 1], "type": [3, 4], "priority": [2.0, 7.0], "pstate": [0, 2],
        "nodes": [3, 1], "node_ids": [[0, 1, 3], [0]], "cluster": [0, 1],
        "start": [0.0, 3600.0], "end": [7200.0, 5400.0], "utility": [1.5, None]},
        extra={"clusters": [{"name": "GP1", "nodes": 4}, {"name": "SP1", "nodes": 2}]})
    fig = parallel.node_gantt(result)
    bars = fig["data"][0]
    assert bars["width"] == [2, 1, 1]  # nodes 0-1 and 3 of task 0, node 0 of task 1
    assert bars["y"] == [1.0, 3.5, 4.5]  # cluster 1 lanes start after cluster 0's 4 nodes
    assert bars["base"] == [0.0, 0.0, 1.0] and bars["x"] == [2.0, 2.0, 0.5]
    assert fig["layout"]["yaxis"]["ticktext"] == ["GP1", "SP1"]
    assert "task 1 (type 4)" in bars["hovertext"][2]


def test_a_big_node_gantt_is_binned_whole_instead_of_truncated(monkeypatch):
    """Past MAX_GANTT_BARS allocations the chart becomes a nodes x time heatmap that still
    covers the whole run (the old chart showed only the first allocations)."""
    monkeypatch.setattr(parallel, "MAX_GANTT_BARS", 50)
    n = 200
    rng = np.random.default_rng(1)
    start = np.sort(rng.uniform(0, 28 * 3600, n))
    result = Result(summary={}, tasks={
        "id": list(range(n)), "type": [1] * n, "priority": rng.uniform(1, 8, n).tolist(),
        "pstate": [0] * n, "nodes": [2] * n,
        "node_ids": [[int(k % 9), int(k % 9) + 1] for k in range(n)],
        "cluster": [int(k % 2) for k in range(n)], "start": start.tolist(),
        "end": (start + 1800).tolist(), "utility": [1.0] * n},
        extra={"clusters": [{"name": "GP1", "nodes": 10}, {"name": "SP1", "nodes": 10}]})
    fig = parallel.node_gantt(result)
    heat = fig["data"][0]
    assert heat["type"] == "heatmap" and len(heat["z"]) == 20
    assert fig["layout"]["xaxis"]["range"][1] == pytest.approx((start[-1] + 1800) / 3600)
    assert heat["x"][-1] > 27.0  # the last hours are drawn too
    assert "whole run" in fig["layout"]["title"]["text"]
    assert fig["layout"]["yaxis"]["ticktext"] == ["GP1", "SP1"]
    busy = [v for row in heat["z"] for v in row if v is not None]
    assert busy and all(1.0 <= v <= 8.0 for v in busy)
    json.dumps(fig, allow_nan=False)


def test_mappable_and_running_have_their_own_panels_on_one_time_axis():
    s = {"t_min": [0, 60], "mappable": [3, 5], "running": [4, 4]}
    fig = common.queue_over_time({"a": [run("a", 0, {}, s)], "b": [run("b", 0, {}, s)]})
    axes = {(t["name"], t["yaxis"]) for t in fig["data"]}
    assert axes == {("a", "y"), ("a", "y2"), ("b", "y"), ("b", "y2")}
    lay = fig["layout"]
    assert lay["yaxis"]["domain"][0] > lay["yaxis2"]["domain"][1]  # no overlap
    assert lay["xaxis"]["anchor"] == "y2"
    # One legend entry per policy, in the same colour in both panels.
    assert sum(t.get("showlegend", True) for t in fig["data"]) == 2
    colours = {t["name"]: set() for t in fig["data"]}
    for t in fig["data"]:
        colours[t["name"]].add(t["line"]["color"])
    assert all(len(c) == 1 for c in colours.values())
    # Running lines are dotted, so they stay apart even when a side-by-side panel merges them.
    assert {t["line"]["dash"] for t in fig["data"] if t["yaxis"] == "y2"} == {"dot"}
