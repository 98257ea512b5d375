"""Scenario-set experiments (§6.6, §6.7, §7)."""

import pytest

from uav.engine import preset_scenario, simulate
from uav.engine.sweep import points, run_point, summarize


def test_sweep_points_small_and_large():
    assert [p["energy_rate_mean"] for _, p in points("energy", False)] == [0.05, 0.1, 0.15, 0.2]
    assert [p["mapping_interval_min"] for _, p in points("delta", False)] == [1, 5, 10, 30, 60,
                                                                            120]
    assert len(points("cv", False)) == 5 and points("baseline", False) == [("baseline", {})]
    # A25: large sets scale the population axes by 10, multipliers apply on the x10 rates
    large_t = points("targets", True)
    assert [p["targets_mean"] for _, p in large_t] == [100, 140, 180]
    assert all(p["uavs_mean"] == 90 for _, p in large_t)
    assert [p["uavs_mean"] for _, p in points("uavs", True)] == [50, 90, 130]
    assert [p["event_multiplier"] for _, p in points("events", True)] == [0, 10, 40, 160]
    assert [p["priority_cv"] for _, p in points("cv", True)] == [0.2, 0.4, 0.6, 0.8, 1.0]


def test_run_point_matches_simulate_and_summary():
    rows = run_point({"uavs_mean": 4.0}, [3, 4, 5], ["meta+p"], overrides={"horizon_h": 8.0})
    for seed, row in zip([3, 4, 5], rows, strict=True):
        r = simulate(preset_scenario("small-baseline", {"uavs_mean": 4.0, "horizon_h": 8.0}),
                     "meta+p", seed=seed)
        assert row["meta+p"] == pytest.approx(r.summary["value"])
        assert row["random"] == pytest.approx(r.summary["value_random"])
    table = {r["policy"]: r for r in summarize(rows, ["meta+p"])}
    assert table["random"]["pct_over_random"] == 0.0
    pct = [100 * (r["meta+p"] / r["random"] - 1) for r in rows if r["random"] > 0]
    assert table["meta+p"]["pct_over_random"] == pytest.approx(sum(pct) / len(pct))
    assert table["meta+p"]["n"] == len(pct)
