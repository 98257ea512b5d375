"""Shared charts stay honest: colours keyed on names, intervals inside a metric's range,
ECDFs that say what they cover, reference lines in every side-by-side panel."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simcore import charts
from simcore.bounds import Bounds
from simcore.compact import downsample, quantiles
from simcore.lab import RunData


def run(policy, trial, summary=None, series=None, dist=None, color=""):
    return RunData(policy=policy, trial=trial, seed=trial, summary=summary or {},
                   series=series or {}, dist=dist or {}, color=color)


def test_policy_colours_are_keyed_on_names_and_distinct_within_a_kind():
    peers = [f"policy-{i}" for i in range(40)]
    colours = [charts.policy_color(p, peers) for p in peers]
    assert len(set(colours)) == 40  # beyond the base palette, the second set
    # Order of the page, a subset or a later-added policy never changes a colour.
    assert charts.policy_color("policy-7", peers) == charts.policy_color("policy-7", peers)
    assert charts.policy_color("policy-3", [*peers, "new-one"]) == colours[3]
    # Without peers, the name alone decides (same answer every time, every process).
    assert charts.policy_color("easy") == charts.policy_color("easy")


def test_groups_use_the_colour_their_runs_carry():
    groups = {"a": [run("a", 0, {"u": 1.0}, color="#123456")], "b": [run("b", 0, {"u": 2.0})]}
    fig = charts.metric_bars(groups, "u", "U")
    assert fig["data"][0]["marker"]["color"] == ["#123456", charts.policy_color("b")]


@given(st.lists(st.floats(0, 100), min_size=2, max_size=6))
def test_error_bars_never_leave_the_metric_range(values):
    groups = {"p": [run("p", i, {"pct": v}) for i, v in enumerate(values)]}
    fig = charts.metric_bars(groups, "pct", "Share", "%", bounds=Bounds(0.0, 100.0))
    bar = fig["data"][0]
    y, minus, plus = bar["y"][0], bar["error_y"]["arrayminus"][0], bar["error_y"]["array"][0]
    tol = 1e-3  # figures carry 5 significant digits
    assert y - minus >= -tol and y + plus <= 100.0 + tol
    clipped = charts.CLIP_NOTE in fig["layout"]["title"].get("subtitle", {}).get("text", "")
    half = np.std(values, ddof=1) * 12.71 / np.sqrt(len(values)) if len(values) == 2 else None
    if half is not None and (np.mean(values) - half < -1e-6 or np.mean(values) + half > 100.01):
        assert clipped  # the chart says it cut the interval


def test_ecdf_covers_all_tasks_and_says_how_many_never_started():
    dist = {"w": {**quantiles(np.arange(60.0)), "total": 100}}
    fig = charts.ecdf({"p": [run("p", 0, dist=dist)]}, "w", "Wait", "min")
    line = fig["data"][0]
    assert line["y"][-1] == pytest.approx(0.6)  # 60 of 100 tasks started
    assert "40% never started" in line["name"]
    assert fig["layout"]["yaxis"]["title"]["text"] == "share of all tasks"
    # Older runs without the count fall back to the summary's total.
    old = {"w": quantiles(np.arange(50.0))}
    fig = charts.ecdf({"p": [run("p", 0, {"tasks_total": 200}, dist=old)]}, "w", "Wait", "min")
    assert fig["data"][0]["y"][-1] == pytest.approx(0.25)


def test_side_by_side_draws_reference_lines_in_every_panel():
    fig = {"data": [{"name": "a", "legendgroup": "a", "x": [1], "y": [1]},
                    {"name": "b", "legendgroup": "b", "x": [2], "y": [2]},
                    {"name": "budget", "x": [0, 1], "y": [5, 5], "meta": {"every_panel": True}}],
           "layout": charts.layout("T", "x", "y")}
    faceted = charts.facet(fig, ["a", "b"])
    budget_axes = sorted(t["xaxis"] for t in faceted["data"] if t["name"] == "budget")
    assert budget_axes == ["x", "x2"]
    json.dumps(faceted, allow_nan=False)


def test_legend_sits_above_the_plot_never_on_an_axis_title():
    lay = charts.layout("T", "x title", "y title")
    assert lay["legend"]["yanchor"] == "bottom" and lay["legend"]["y"] >= 1.0
    assert lay["xaxis"]["automargin"] and lay["yaxis"]["automargin"]


def test_levels_are_averaged_over_bins_not_sampled():
    t = list(range(1000))
    util = [1.0 if i % 2 else 0.0 for i in t]  # a swing every minute
    out = downsample({"t_min": t, "utilization": util, "cum": t}, max_points=100,
                     average=("utilization",))
    assert all(abs(v - 0.5) < 0.06 for v in out["utilization"][:-1])
    assert out["cum"] == [t[i] for i in np.unique(np.linspace(0, 999, 100).round().astype(int))]
