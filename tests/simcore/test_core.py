"""The core's own machinery: lazy and loud kind loading, the run clock, the t quantile, the
sweep runner and its paired table, figure presets."""

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import params as P
from simcore.claims import Claim, Provenance
from simcore.clock import RunClock
from simcore.errors import ScenarioError
from simcore.registry import Engine
from simcore.result import Result
from simcore.stats import mean_ci, t_quantile
from simcore.sweep import SweepRun, paired, points, sweep, table

ROOT = Path(__file__).resolve().parents[2]


# The kinds' packages loaded (scheduling.<kind>; the engine facade and hpc are not kinds).
LOADED = ("import sys; print(sorted(m for m in sys.modules if m.startswith('scheduling.')"
          " and m.count('.') == 1 and m not in ('scheduling.engine', 'scheduling.hpc')));"
          " print('scipy' in sys.modules)")


def test_running_one_kind_imports_only_that_kind():
    code = ("import scheduling.engine as e; e.simulate({'kind': 'swf-replay', 'params': "
            "{'trace': 'example_8'}}, 'easy');" + LOADED)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:2] == ["['scheduling.swf_replay']", "False"]


def test_the_replay_command_imports_only_the_replay_kind(tmp_path):
    code = ("import sys; from simcore.cli import main; import scheduling.engine as e; "
            f"main(e.ENGINE, ['replay', '--trace', 'example_8', '--policy', 'easy', '--out', "
            f"{str(tmp_path / 'r.json')!r}], 'x');" + LOADED)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[-3:-1] == ["['scheduling.swf_replay']", "False"]


def test_a_declared_kind_whose_module_is_missing_fails_loudly():
    engine = Engine("e", "e", kinds={"ghost": "no_such_module_for_hetsite"})
    with pytest.raises(ModuleNotFoundError):
        engine.list_kinds()


def test_a_module_that_does_not_register_its_kind_fails_loudly():
    engine = Engine("e", "e", kinds={"math-kind": "math"})
    with pytest.raises(RuntimeError, match="did not register kind 'math-kind'"):
        engine.get_kind("math-kind")


def test_registering_an_undeclared_kind_fails():
    engine = Engine("e", "e", kinds={"a": "a"})
    with pytest.raises(RuntimeError, match="not declared"):
        engine.preset("p", "b", description="", params={})


def test_unknown_kind_is_a_scenario_error_naming_the_known_ones():
    engine = Engine("e", "e", kinds={"a": "a"})
    with pytest.raises(ScenarioError) as err:
        engine.scenario("zzz")
    assert err.value.field == "kind" and "a" in err.value.message


def test_clock_throttles_progress_and_maps_parts():
    seen = []
    clock = RunClock(seen.append, step=0.1)
    for k in range(1, 101):
        clock.report(k / 100)
    assert 9 <= len(seen) <= 11 and seen == sorted(seen) and seen[-1] <= 1.0
    seen.clear()
    part = RunClock(seen.append, step=0.1).part(0.5, 1.0)
    for k in range(1, 11):
        part.report(k / 10)
    assert min(seen) >= 0.5 and 0.9 <= max(seen) <= 1.0
    assert len(seen) <= 6  # a step of 0.1 of the whole run is 0.2 of this half


def test_clock_times_events_and_summarizes():
    clock = RunClock()
    for _ in range(3):
        with clock.event():
            sum(range(1000))
    clock.record(0.5)
    timing = clock.timing(extra=1)
    assert timing["events"] == 4 and timing["event_ms_max"] == pytest.approx(500.0)
    assert len(timing["event_ms"]) == 4 and timing["extra"] == 1 and timing["wall_s"] > 0


@pytest.mark.parametrize("p", [0.9, 0.95, 0.975, 0.995])
@pytest.mark.parametrize("df", [1, 2, 3, 5, 9, 30, 200])
def test_t_quantile_matches_scipy(p, df):
    from scipy import stats

    assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-9)
    assert t_quantile(1 - p, df) == pytest.approx(-t_quantile(p, df))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=40))
def test_mean_ci_matches_the_textbook_interval(values):
    from scipy import stats

    ci = mean_ci(values)
    arr = np.asarray(values)
    half = stats.t.ppf(0.975, len(arr) - 1) * arr.std(ddof=1) / np.sqrt(len(arr))
    assert ci["mean"] == pytest.approx(arr.mean(), abs=1e-6)
    assert ci["half_width"] == pytest.approx(half, rel=1e-6, abs=1e-6)


@dataclass(frozen=True)
class CoinConfig:
    flips: int = P.param(10, min=1, max=1000)
    bias: float = P.param(0.5, min=0, max=1)


class Scale:
    """The coin kind's policy base: ``scale()`` multiplies the heads counted."""

    factor = 1

    def scale(self) -> int:
        return self.factor


class ScaleTwo(Scale):
    factor = 2


def coin_engine():
    engine = Engine("coin", "coin", kinds={"coin": "coin"})

    @engine.kind("coin", title="Coin", description="d", config_cls=CoinConfig,
                 policy_type=Scale, headline=("heads",), cost=lambda cfg, policy: cfg.flips)
    def run(cfg, policy, seed, ctx):
        from simcore.sampling import rng

        heads = int((rng(seed, "coin").random(cfg.flips) < cfg.bias).sum())
        return Result(summary={"heads": heads * policy.build().scale()})

    engine.policy("coin", "one", label="One", description="", spec="")(Scale)
    engine.policy("coin", "two", label="Two", description="", spec="")(ScaleTwo)
    engine.preset("coin-10", "coin", description="", params={})
    return engine


def test_points_are_the_product_of_the_axes():
    assert points([]) == [{}]
    assert points([("a", [1, 2]), ("b", ["x"])]) == [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}]


def test_sweep_runs_every_point_policy_and_seed_costliest_first(monkeypatch):
    engine = coin_engine()
    started = []
    real = engine.simulate

    def spy(scenario, policy, seed=0, **kw):
        started.append(scenario["params"]["flips"])
        return real(scenario, policy, seed, **kw)

    monkeypatch.setattr(engine, "simulate", spy)
    monkeypatch.setattr("simcore.sweep.importlib.import_module",
                        lambda name: type("M", (), {"ENGINE": engine}))
    runs = sweep(engine, engine.preset_scenario("coin-10"), [("flips", [5, 50])],
                 ["one", "two"], seeds=[0, 1])
    assert started == sorted(started, reverse=True)  # 50-flip runs first
    assert [(r.setting["flips"], r.policy, r.seed) for r in runs] == [
        (f, p, s) for f in (5, 50) for p in ("one", "two") for s in (0, 1)]
    for r in runs:  # common random numbers: "two" doubles "one" at every point and seed
        if r.policy == "two":
            one = next(x for x in runs if x.policy == "one" and x.seed == r.seed
                       and x.point == r.point)
            assert r.summary["heads"] == 2 * one.summary["heads"]


def test_a_sweep_does_not_run_again_what_another_sweep_ran(monkeypatch):
    """Two figures that share runs (the same scenario, policy and seed) run them once."""
    engine = coin_engine()
    started = []
    real = engine.simulate

    def spy(scenario, policy, seed=0, **kw):
        started.append((scenario["params"]["flips"], policy, seed))
        return real(scenario, policy, seed, **kw)

    monkeypatch.setattr(engine, "simulate", spy)
    monkeypatch.setattr("simcore.sweep.importlib.import_module",
                        lambda name: type("M", (), {"ENGINE": engine}))
    known = {}
    first = sweep(engine, engine.preset_scenario("coin-10"), [("flips", [5, 50])], ["one"],
                  seeds=[0, 1], known=known)
    assert len(started) == len(known) == 4
    started.clear()
    second = sweep(engine, engine.preset_scenario("coin-10"), [("flips", [50, 7])],
                   ["one", "two"], seeds=[1, 2], known=known)
    # only the runs the first sweep did not make: (50, one, 1) came from it
    assert sorted(started) == sorted({(50, "one", 2), (50, "two", 1), (50, "two", 2),
                                      (7, "one", 1), (7, "one", 2), (7, "two", 1),
                                      (7, "two", 2)})
    shared = next(r for r in second if (r.setting["flips"], r.policy, r.seed) == (50, "one", 1))
    assert shared.summary == next(r for r in first if (r.setting["flips"], r.seed) == (50, 1)
                                  ).summary
    assert [(r.setting["flips"], r.policy, r.seed) for r in second] == [
        (f, p, s) for f in (50, 7) for p in ("one", "two") for s in (1, 2)]


def test_sweep_validates_every_point_before_running():
    engine = coin_engine()
    with pytest.raises(ScenarioError) as err:
        sweep(engine, engine.preset_scenario("coin-10"), [("flips", [5, 0])], ["one"], [0])
    assert err.value.field == "flips"


def test_table_means_and_paired_differences_on_a_hand_made_case():
    runs = [SweepRun(0, {}, "base", s, {"m": v}) for s, v in enumerate([10.0, 20.0, 30.0])]
    runs += [SweepRun(0, {}, "new", s, {"m": v}) for s, v in enumerate([12.0, 21.0, 36.0])]
    rows = {r["policy"]: r for r in table(runs, ["m"], baseline="base")}
    assert rows["new"]["m"]["mean"] == pytest.approx(23.0)
    diff = rows["new"]["m:diff"]
    assert diff["mean"] == pytest.approx(3.0) and diff["n"] == 3
    # differences 2, 1, 6: sd = sqrt(7), t(0.975, 2) = 4.302652729911275
    assert diff["half_width"] == pytest.approx(4.302652729911275 * 7 ** 0.5 / 3 ** 0.5)
    rel = {r["policy"]: r for r in table(runs, ["m"], baseline="base", relative=True)}
    assert rel["new"]["m:diff"]["mean"] == pytest.approx((20 + 5 + 20) / 3)
    assert rel["base"]["m:diff"]["mean"] == 0.0


def test_paired_leaves_out_missing_seeds_and_zero_baselines():
    assert paired({0: 3.0, 1: 5.0, 2: 1.0}, {0: 1.0, 2: 0.0}, relative=False) == [2.0, 1.0]
    assert paired({0: 3.0, 1: 5.0, 2: 1.0}, {0: 1.0, 2: 0.0}, relative=True) == [200.0]


def test_figure_presets_need_a_preset_of_their_kind_and_claims_they_can_judge():
    engine = coin_engine()
    fig = engine.figure("coin-fig", "coin", title="t", preset="coin-10", policies=["one", "two"],
                        metrics=["heads"], claim="two beats one", source="here",
                        axes=[("flips", [10, 20])], claims=[Claim("two", "one", "heads")],
                        provenance=[Provenance("scaled", "ten flips")])
    assert engine.get_figure("coin-fig") is fig and fig.axes == (("flips", (10, 20)),)
    assert fig.public()["ranking"] == [["two", "one"]]
    # the figure's provenance is every claim's
    assert fig.claims[0].provenance == (Provenance("scaled", "ten flips"),)
    with pytest.raises(RuntimeError, match="not a preset"):
        engine.figure("bad", "coin", title="t", preset="nope", policies=["one"],
                      metrics=["heads"], claim="", source="")
    for claim, words in ((Claim("two", "three", "heads"), "three"),
                         (Claim("two", "one", "tails"), "tails"),
                         (Claim("two", "one", "heads", at={"flips": 30}), "matches 0"),
                         (Claim("one", "two", "heads", per_point=True), "claimed twice")):
        with pytest.raises(RuntimeError, match=words):
            engine.figure(f"bad-{words}", "coin", title="t", preset="coin-10",
                          policies=["one", "two"], metrics=["heads"], claim="", source="",
                          axes=[("flips", [10, 20])],
                          claims=[Claim("one", "two", "heads", at={"flips": 20}), claim])
