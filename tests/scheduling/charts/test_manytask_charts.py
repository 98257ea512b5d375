"""many-task charts: pooled observations (grids and operating points, seeds counted once),
curves ordered along r, the paper's axes; plain JSON."""

import json

import numpy as np
import pytest

from scheduling.engine import preset_scenario, simulate
from scheduling.many_task import charts
from simcore.lab import RunData
from simcore.result import Result


def compact(result):
    from scheduling.many_task.lab import compact_manytask

    return compact_manytask(Result.from_dict(result.to_dict()))


def run_data(policy, seed, result):
    c = compact(result)
    return RunData(policy, seed, seed, result.summary, c["series"], c["dist"])


@pytest.fixture(scope="module")
def groups():
    out = {}
    for policy in ("random", "random+chop", "sorted+chop"):
        out[policy] = [run_data(policy, s, simulate(preset_scenario("many-task-small"), policy,
                                                    seed=s)) for s in range(3)]
    return out


def test_every_figure_is_plain_json_with_data(groups):
    figs = charts.figures(groups)
    assert set(figs) == {"workers", "histogram", "tts-vs-r", "utilization-vs-r",
                         "tradeoff-random", "tradeoff-sorted"}
    for name, fig in figs.items():
        json.dumps(fig, allow_nan=False)
        assert fig["data"], name


def test_tradeoff_has_one_curve_per_f_and_no_chopping(groups):
    fig = charts.tradeoff(groups, "random")
    names = [t["name"] for t in fig["data"]]
    assert names == ["f = 0.2", "f = 0.5", "f = 0.8", "no chopping"]
    assert fig["layout"]["xaxis"]["type"] == "log"
    assert "type" not in charts.tradeoff(groups, "sorted")["layout"]["xaxis"]
    for trace in fig["data"]:
        rs = [float(t.split("r = ")[1].split("<")[0]) for t in trace["text"]]
        assert rs == sorted(rs) == [1, 2, 3, 5, 10, 20]
        assert all("3 trial(s)" in t for t in trace["text"])  # random and random+chop share


def test_points_are_means_over_seeds(groups):
    data, _ = charts.observations(groups)
    (key, order), cell = next(iter(data.items()))
    assert order == "random"
    (fs, rs, _), by_seed = next(iter(cell.grids.items()))
    assert sorted(by_seed) == [0, 1, 2]
    i, j = fs.index(0.5), rs.index(5.0)
    utils = [v[1][i][j] for v in by_seed.values()]
    fig = charts.tradeoff(groups, "random")
    trace = next(t for t in fig["data"] if t["name"] == "f = 0.5")
    assert trace["y"][j] == pytest.approx(sum(utils) / 3, rel=1e-4)
    half = np.std(utils, ddof=1) / np.sqrt(3) * 4.302652729911275  # t(0.975, 2)
    assert trace["error_y"]["array"][j] == pytest.approx(half, rel=1e-3)
    # The operating point of random+chop (r = 5, f = 0.5) is the grid's cell: same numbers.
    run = groups["random+chop"][0]
    assert by_seed[0][1][i][j] == pytest.approx(run.summary["utilization"], rel=1e-5)


def test_axes_experiments_without_grids_are_drawn_from_summaries():
    groups = {"random+chop": []}
    for r in (1.0, 5.0):
        for f in (0.5, 1.0):
            res = simulate(preset_scenario("many-task-small", {"tradeoff.ratios": [],
                                                              "chop.r": r, "chop.f": f}),
                           "random+chop", seed=0)
            groups["random+chop"].append(run_data("random+chop", 0, res))
    fig = charts.tradeoff(groups, "random")
    assert [t["name"] for t in fig["data"]] == ["f = 0.5", "no chopping"]
    assert all(len(t["x"]) == 2 for t in fig["data"])


def test_fixed_worker_counts_become_the_axis():
    groups = {"random": []}
    for w in (64, 256, 1024):
        res = simulate(preset_scenario("many-task-small", {"tradeoff.ratios": [],
                                                          "machine.workers": w}),
                       "random", seed=0)
        groups["random"].append(run_data("random", 0, res))
    fig = charts.versus_ratio(groups, "utilization")
    assert fig["layout"]["xaxis"]["title"]["text"] == "first partition (workers)"
    assert fig["data"][0]["x"] == [1024, 256, 64]  # larger partitions first, as r grows
    util = fig["data"][0]["y"]
    assert util == sorted(util)  # fewer workers, higher utilization (Fig. 2)


def test_run_charts_show_active_and_idle_workers_and_partitions():
    res = simulate(preset_scenario("many-task-small"), "random+chop", seed=1)
    fig = charts.run_workers(res)
    assert [t["name"] for t in fig["data"]] == ["active workers", "idle workers"]
    assert len(fig["layout"]["annotations"]) == res.summary["partitions"]
    assert any("chopped" in a["text"] for a in fig["layout"]["annotations"])
    assert sum(charts.run_histogram(res)["data"][0]["y"]) == res.summary["tasks"]
    grid = charts.run_tradeoff(json.loads(res.to_json()))
    assert [t["name"] for t in grid["data"]][-1] == "no chopping"
    bare = simulate(preset_scenario("dock6"), "random", seed=0)
    assert charts.run_tradeoff(bare)["data"] == []
