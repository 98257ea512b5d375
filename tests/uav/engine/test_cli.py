"""Scenario-set experiments (small scenario sets (ch. 5 spec §6.6), large scenarios
(ch. 5 spec §6.7), experiments and metrics (ch. 5 spec §7)) through the core sweep's UAV
shorthand."""

import argparse
import json

import pytest

from simcore.cli import main
from simcore.sweep import sweep, table
from uav.engine import ENGINE, preset_scenario, simulate
from uav.engine.cli import SEED_STRIDE, add_arguments, axis_values, translate


def test_axis_values_small_and_large():
    assert axis_values("energy", False) == ("energy_rate_mean", [0.05, 0.1, 0.15, 0.2])
    assert axis_values("delta", False)[1] == [1, 5, 10, 30, 60, 120]
    assert len(axis_values("cv", False)[1]) == 5
    # Large-set sweeps (ch. 5 spec A25): large sets scale the population axes by 10, multipliers
    # apply on the x10 rates
    assert axis_values("targets", True) == ("targets_mean", [100, 140, 180])
    assert axis_values("uavs", True)[1] == [50, 90, 130]
    assert axis_values("events", True)[1] == [0, 10, 40, 160]
    assert axis_values("cv", True)[1] == [0.2, 0.4, 0.6, 0.8, 1.0]


def parsed(*argv):
    parser = argparse.ArgumentParser()
    for flag in ("--preset", "--seeds", "--metrics", "--baseline"):
        parser.add_argument(flag)
    parser.add_argument("--policies", default="all")
    parser.add_argument("--vary", action="append", default=[])
    parser.add_argument("--set", action="append", default=[])
    add_arguments(parser)
    args = parser.parse_args(list(argv))
    translate(args)
    return args


def test_shorthand_fills_in_the_generic_sweep():
    args = parsed("--axis", "uavs", "--large", "--scenarios", "7", "--seed", "3")
    assert args.preset == "large" and args.vary == ["uavs_mean=50,90,130"]
    assert (args.trials, args.first_seed, args.seed_stride) == (7, 3, SEED_STRIDE)
    assert args.baseline == "random" and args.relative and args.metrics == "value"
    assert "compare_random=false" in args.set
    same = parsed("--axis", "baseline", "--same-missions", "--policies", "meta")
    assert same.preset == "small-baseline" and same.vary == [] and same.seed_stride == 0
    assert same.policies == "meta"
    untouched = parsed("--preset", "large")
    assert untouched.preset == "large" and untouched.baseline is None


def test_percent_over_random_pairs_each_mission_with_its_random_run():
    scenario = preset_scenario("small-baseline", {"uavs_mean": 4.0, "horizon_h": 8.0,
                                                  "compare_random": False})
    runs = sweep(ENGINE, scenario, policies=["random", "meta+p"], seeds=[3, 4, 5])
    for seed in (3, 4, 5):
        direct = simulate(preset_scenario("small-baseline", {"uavs_mean": 4.0,
                                                             "horizon_h": 8.0}),
                          "meta+p", seed=seed)
        mine = {r.policy: r.summary["value"] for r in runs if r.seed == seed}
        assert mine["meta+p"] == pytest.approx(direct.summary["value"])
        assert mine["random"] == pytest.approx(direct.summary["value_random"])
    rows = {r["policy"]: r for r in table(runs, ["value"], baseline="random", relative=True)}
    pct = [100 * (r.summary["value"] / v - 1) for r in runs if r.policy == "meta+p"
           for v in [next(x.summary["value"] for x in runs
                          if x.policy == "random" and x.seed == r.seed)] if v > 0]
    assert rows["meta+p"]["value:diff"]["mean"] == pytest.approx(sum(pct) / len(pct))
    assert rows["meta+p"]["value:diff"]["n"] == len(pct)
    assert rows["random"]["value:diff"]["mean"] == 0.0


def test_sweep_command_with_the_shorthand(tmp_path, capsys):
    out = tmp_path / "table.json"
    code = main(ENGINE, ["sweep", "--axis", "energy", "--scenarios", "2", "--policies",
                         "max-vpe", "--set", "horizon_h=4", "--json", str(out)],
                prog="uav")
    assert code == 0
    rows = json.loads(out.read_text())
    assert {r["setting"]["energy_rate_mean"] for r in rows} == {0.05, 0.1, 0.15, 0.2}
    assert {r["policy"] for r in rows} == {"random", "max-vpe"}
    assert all(r["n"] == 2 for r in rows)
    assert "value:diff" in capsys.readouterr().out
