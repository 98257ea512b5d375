"""Charts of the grid kind: plain Plotly dicts, bounded in size, faithful to the run data."""

import json

import numpy as np
import pytest

from scheduling.engine import preset_scenario, simulate
from scheduling.grid import charts as grid
from simcore.compact import downsample, quantiles
from simcore.lab import RunData


@pytest.fixture(scope="module")
def results():
    sc = preset_scenario("grid-small")
    return {(p, a): simulate(preset_scenario("grid-small", {"scheduler.alpha": a})
                             if a else sc, p, seed=s)
            for p in ("fcfs", "internode-can") for a in (0.0, 0.5) for s in (1,)}


def _data(result, policy, trial=0):
    c = grid.compact(result, downsample, quantiles)
    return RunData(policy=policy, trial=trial, seed=trial, summary=result.summary,
                   series=c["series"], dist=c["dist"])


def test_rank_curve_keeps_the_tail_whole_and_omits_the_lowest():
    waits = list(range(1000))[::-1]
    c = grid.rank_curve(waits, omit=200, tail=50, points=30)
    assert c["rank"][0] == 201 and c["wait"][0] == 200
    assert c["rank"][-50:] == list(range(951, 1001))
    assert c["wait"][-50:] == [float(w) for w in range(950, 1000)]
    assert len(c["rank"]) <= 30 + 50
    assert all(a < b for a, b in zip(c["rank"], c["rank"][1:], strict=False))
    assert grid.rank_curve([], 10, 5) is None
    small = grid.rank_curve([3.0, 1.0], omit=2000, tail=200)  # fewer jobs than omitted
    assert small["rank"] == [2] and small["wait"] == [3.0]


def test_wait_curve_and_tail_follow_the_sorted_waits(results):
    res = results[("internode-can", 0.0)]
    groups = {"internode-can": [_data(res, "internode-can")]}
    fig = grid.wait_curve(groups)
    json.dumps(fig, allow_nan=False)
    trace = fig["data"][0]
    waits = np.sort(np.asarray(res.tasks["wait_s"], dtype=float))
    # Ranks start after the omitted lowest waits (200 in grid-small) and end at the job count.
    assert trace["y"][0] == 201 and trace["y"][-1] == 500
    assert trace["x"][-1] == pytest.approx(waits[-1] / 3600.0, rel=1e-4)
    assert "200" in fig["layout"]["title"]["text"]
    tail = grid.wait_tail(groups)["data"][0]
    assert tail["y"] == list(range(481, 501))  # the 20 longest waits of grid-small
    assert np.allclose(tail["x"], waits[-20:] / 3600.0, rtol=1e-4)


def test_curves_average_runs_rank_by_rank():
    a = RunData("p", 0, 0, {}, {}, {"wait_rank": grid.rank_curve([0, 10, 20, 30], 1, 2)})
    b = RunData("p", 1, 1, {}, {}, {"wait_rank": grid.rank_curve([0, 30, 40, 50], 1, 2)})
    fig = grid.wait_curve({"p": [a, b]})
    assert fig["data"][0]["y"] == [2, 3, 4]
    assert np.allclose(np.asarray(fig["data"][0]["x"]) * 3600, [20, 30, 40])


def test_alpha_comparison_groups_runs_by_alpha(results):
    groups = {p: [_data(results[(p, a)], p, i) for i, a in enumerate((0.0, 0.5))]
              for p in ("fcfs", "internode-can")}
    assert grid.varies("alpha")(groups)
    assert not grid.varies("iat_s")(groups)
    fig = grid.alpha_comparison(groups)
    json.dumps(fig, allow_nan=False)
    names = {(t["name"], t["xaxis"]) for t in fig["data"]}
    assert names == {("alpha = 0", "x"), ("alpha = 0.5", "x"), ("alpha = 0", "x2"),
                     ("alpha = 0.5", "x2")}
    left = next(t for t in fig["data"] if t["name"] == "alpha = 0.5" and t["xaxis"] == "x")
    got = dict(zip(left["x"], left["y"], strict=True))
    expect = results[("internode-can", 0.5)].summary["wait_top10_median_s"] / 3600
    assert got["internode-can"] == pytest.approx(expect, rel=1e-4)


def test_wait_vs_iat_has_a_point_per_iat_with_ci():
    def run(iat, median):
        return RunData("p", 0, 0, {"iat_s": iat, "wait_median_s": median}, {}, {})

    groups = {"local": [run(1.5, 600), run(1.5, 1200), run(4.0, 60)]}
    fig = grid.wait_vs_iat(groups)
    trace = fig["data"][0]
    assert trace["x"] == [1.5, 4.0] and trace["y"] == [15.0, 1.0]  # minutes
    assert trace["error_y"]["array"][0] > 0


def test_load_map_and_migration_map_of_one_run(results):
    res = results[("internode-can", 0.0)]
    fig = grid.load_map(res)
    json.dumps(fig, allow_nan=False)
    util, queued = fig["data"]
    z = np.asarray(util["z"], dtype=float)
    assert z.shape == (len(util["y"]), len(util["x"])) and z.min() >= 0 and z.max() <= 100
    assert len(util["y"]) == 100  # grid-small: one row per node
    assert np.asarray(queued["z"]).sum() > 0
    mig = grid.migration_map(res)
    json.dumps(mig, allow_nan=False)
    log = res.extra["migration_log"]
    markers = [t for t in mig["data"] if t["mode"] == "markers" and t["name"] != "preemption"]
    assert sum(len(t["x"]) for t in markers) == len(log["t"])  # all shown (under the budget)
    rank = res.extra["nodes"]["rank"]
    push = next(t for t in markers if t["name"] == "push")
    i = log["kind"].index("push")
    assert push["y"][0] == rank[log["to"][i]]
    assert f"job {log['job'][i]} pushed" in push["text"][0]
    # Big logs are thinned to the point budget.
    thin = grid.migration_map(res, max_points=40)
    assert sum(len(t["x"]) for t in thin["data"]) <= 80 and "showing" in \
        thin["layout"]["title"]["text"]


def test_charts_of_a_run_without_migrations_say_so(results):
    fig = grid.migration_map(results[("fcfs", 0.0)])
    assert fig["data"] == [] and "no migrations" in fig["layout"]["annotations"][0]["text"]
    json.dumps(grid.load_map(json.loads(results[("fcfs", 0.0)].to_json())), allow_nan=False)
