"""Charts of the Value of Service scenarios: plain Plotly dicts drawn from real runs."""

import json

import numpy as np
import pytest

from scheduling.engine import preset_scenario, simulate
from scheduling.value_of_service.charts import resources_over_time, value_split, vm_timeline
from simcore.charts import contiguous_blocks
from simcore.compact import downsample
from simcore.lab import RunData
from simcore.result import Result


@pytest.fixture(scope="module")
def runs():
    sc = preset_scenario("vos-small", {"scheduler.duration_h": 6.0})
    return {(p, s): simulate(sc, p, seed=s) for p in ("simple-dp", "max-vptr") for s in (1, 2)}


def groups(runs):
    out = {}
    for (policy, seed), r in runs.items():
        out.setdefault(policy, []).append(
            RunData(policy, seed, seed, r.summary, downsample(r.series), {}))
    return out


def test_value_split_shows_both_halves_with_cis(runs):
    fig = value_split(groups(runs))
    json.dumps(fig, allow_nan=False)
    perf, energy = fig["data"]
    assert perf["x"] == energy["x"] == ["simple-dp", "max-vptr"]
    for trace, key in ((perf, "pct_max_perf_value"), (energy, "pct_max_energy_value")):
        for label, y in zip(trace["x"], trace["y"], strict=True):
            mean = np.mean([r.summary[key] for (p, _), r in runs.items() if p == label])
            assert y == pytest.approx(mean, rel=1e-4)
        assert all(h > 0 for h in trace["error_y"]["array"])  # two runs: a CI half-width


def test_resources_over_time_in_percent(runs):
    fig = resources_over_time(groups(runs))
    json.dumps(fig, allow_nan=False)
    names = [t["name"] for t in fig["data"]]
    assert names == ["simple-dp · cores", "simple-dp · memory", "max-vptr · cores",
                     "max-vptr · memory"]
    for trace in fig["data"]:
        assert max(trace["y"]) <= 100.0 and min(trace["y"]) >= 0.0
        assert trace["x"][-1] == pytest.approx(6.0)  # hours


def test_vm_timeline_draws_every_vm_where_it_ran(runs):
    res = runs["max-vptr", 1]
    fig = vm_timeline(Result.from_json(res.to_json()))  # works on the stored JSON form too
    json.dumps(fig, allow_nan=False)
    (trace,) = fig["data"]
    t = res.tasks
    started = [i for i, s in enumerate(t["start"]) if s is not None]
    blocks = sum(len(contiguous_blocks(t["core_ids"][i])) for i in started)
    assert len(trace["y"]) == blocks > 0
    assert sum(trace["width"]) == sum(t["cores"][i] for i in started)
    assert all(0 <= y <= 48 for y in trace["y"])
    assert any("cores x" in h and "GB" in h for h in trace["hovertext"])


def test_vm_timeline_has_a_lane_per_testbed_node():
    res = simulate(preset_scenario("vos-testbed-w2-40", {"scheduler.duration_h": 3.0}),
                   "max-vptr", seed=1)
    fig = vm_timeline(res)
    assert fig["layout"]["yaxis"]["ticktext"] == ["node 0", "node 1"]
    assert len(fig["layout"]["shapes"]) >= 1  # the separator between the nodes
    assert max(fig["data"][0]["y"]) <= 40
