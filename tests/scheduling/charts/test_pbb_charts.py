"""Charts of preemption-based backfill experiments: the paper's per-size bars with CIs."""

import json

import numpy as np
import pytest

from scheduling.engine import preset_scenario, simulate
from scheduling.swf_preemptive import charts as pbb
from simcore.lab import RunData
from simcore.stats import mean_ci


@pytest.fixture(scope="module")
def groups():
    out = {}
    for policy in ("first-fit", "duration-consumed"):
        runs = []
        for seed in (1, 2, 3):
            r = json.loads(simulate(preset_scenario("pbb-small-mix-a"), policy, seed).to_json())
            runs.append(RunData(policy=policy, trial=seed, seed=seed, summary=r["summary"],
                                series=r["series"], dist={}, label=policy))
        out[policy] = runs
    return out


def test_bars_per_size_class_with_cis_over_seeds(groups):
    fig = pbb.xf_by_size(groups)
    json.dumps(fig, allow_nan=False)
    assert [t["name"] for t in fig["data"]] == ["first-fit", "duration-consumed"]
    sizes = pbb.size_classes(groups)
    assert sizes == [1, 2, 4, 8, 16, 32]
    ff = fig["data"][0]
    assert ff["x"] == ["all", "1", "2", "4", "8", "16", "32"]
    ci = mean_ci([r.summary["xf_mean_p8"] for r in groups["first-fit"]])
    assert ff["y"][4] == pytest.approx(ci["mean"], rel=1e-4)
    assert ff["error_y"]["array"][4] == pytest.approx(ci["half_width"], rel=1e-4)
    assert fig["layout"]["barmode"] == "group" and fig["layout"]["yaxis"]["type"] == "log"


def test_class_charts_apply_only_to_classes_present(groups):
    assert pbb.has_class("high")(groups) and pbb.has_class("medium")(groups)
    assert not pbb.has_class("low")(groups)
    fig = pbb.queue_by_size(groups, "high")
    ci = mean_ci([r.summary["queue_time_mean_s_high_p1"] / 3600 for r in groups["first-fit"]])
    assert fig["data"][0]["y"][1] == pytest.approx(ci["mean"], rel=1e-4)
    assert "High jobs" in fig["layout"]["title"]["text"]


def test_kills_over_time_is_cumulative_and_skips_first_fit(groups):
    fig = pbb.kills_over_time(groups)
    (line,) = fig["data"]
    assert line["name"] == "duration-consumed"
    y = np.asarray(line["y"], dtype=float)
    assert np.all(np.diff(y) >= 0)
    assert y[-1] == pytest.approx(np.mean([r.summary["preemptions"]
                                           for r in groups["duration-consumed"]]))
