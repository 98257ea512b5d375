"""What one ch. 3 run may ask for, and its price: the mapping events are capped at validation
naming the interval, and the cost estimate grows with them (docs/ch3.md "Limits and price")."""

import pytest

import scheduling.parallel_energy as pe
from scheduling.engine import ENGINE, ScenarioError, preset_scenario, scenario, simulate
from scheduling.parallel_energy.config import MAX_MAPPING_EVENTS
from simcore.axes import points
from simcore.cli import main

KIND = "parallel-energy"


def refused(preset: str, overrides: dict) -> ScenarioError:
    with pytest.raises(ScenarioError) as err:
        preset_scenario(preset, overrides)
    return err.value


def test_too_many_mapping_events_are_refused_naming_the_interval():
    err = refused("small", {"time.mapping_interval_s": 1.0, "time.sim_h": 336.0})
    assert err.field == "time.mapping_interval_s"
    assert "gives 1,209,600 mapping events" in err.message
    assert f"at most {MAX_MAPPING_EVENTS:,}" in err.message
    # the engine's own bounds: 720 h at 12.96 s is the most it allows
    assert scenario(KIND, {"time": {"sim_h": 720.0, "mapping_interval_s": 12.96}})
    assert refused("small", {"time.sim_h": 720.0, "time.mapping_interval_s": 12.9}).field == \
        "time.mapping_interval_s"


def test_the_cli_names_the_field(capsys):
    code = main(ENGINE, ["run", "--preset", "small", "--policy", "easy", "--set",
                         "time.sim_h=336", "--set", "time.mapping_interval_s=1"],
                prog="scheduling")
    assert code == 2
    assert "time.mapping_interval_s: gives 1,209,600 mapping events" in capsys.readouterr().err


def test_every_preset_and_figure_point_is_within_the_cap():
    for preset in ENGINE.list_presets(KIND):
        assert preset_scenario(preset.name).params.time.mapping_events() <= MAX_MAPPING_EVENTS
    for figure in ENGINE.list_figures(KIND):
        for point in points(figure.axes):
            preset_scenario(figure.preset, {**figure.overrides, **point})


def test_the_model_counts_the_engines_mapping_events():
    for interval in (300.0, 37.0, 3600.0):
        sc = preset_scenario("small", {"time.sim_h": 2.0, "time.warmup_h": 0.5,
                                       "time.mapping_interval_s": interval})
        result = simulate(sc, "easy", seed=1)
        assert len(result.events["t_min"]) == sc.params.time.mapping_events()


def cost(overrides: dict, policy: str = "easy", preset: str = "small") -> float:
    return ENGINE.cost(preset_scenario(preset, overrides), policy)


def test_the_price_grows_with_the_mapping_events():
    # the audit's case: small at 1 s was priced like the preset (0.35 s) and took 37.7 s
    one = cost({"time.mapping_interval_s": 1.0})
    two = cost({"time.mapping_interval_s": 2.0})
    assert one / two == pytest.approx(2.0, rel=0.01)
    assert one / cost({}) > 100  # 100,800 events instead of 336
    # the formula against the event count: events x (fixed + arrivals x arrivals per node)
    # + arrivals, on the small preset's 500 tasks a day on 120 nodes over 28 h
    cfg = preset_scenario("small", {"time.mapping_interval_s": 1.0}).params
    assert cfg.time.mapping_events() == 100_800
    nodes = sum(c.nodes for c in cfg.system.clusters)
    assert one == pytest.approx(100_800 * (pe.PER_EVENT + 500.0 * 500.0 / nodes)
                                + pe.PER_TASK * 500.0 * 28.0 / 24.0)
    assert cost({"time.mapping_interval_s": 1.0}, "max-upe-ph") == pytest.approx(pe.HEAVY * one)


def test_a_budget_as_a_share_of_max_upr_pays_for_the_max_upr_run():
    plain = cost({})
    share = cost({"energy.budget_pct_of_max_upr": 80.0})
    assert share == pytest.approx(plain * (1 + pe.HEAVY))


def test_the_testbed_and_a_library_trace_are_priced_by_their_own_arrivals():
    # the testbed: a task every mean_interarrival_s, not workload.tasks_per_day
    fast = cost({"testbed.mean_interarrival_s": 30.0}, preset="ch3-testbed")
    slow = cost({"testbed.mean_interarrival_s": 120.0}, preset="ch3-testbed")
    assert fast > 10 * slow
    assert pe.arrivals_and_nodes(preset_scenario("ch3-testbed").params) == (720.0, 30)
    # a library trace: its jobs in the window on the system scaled to it
    small, large = (pe.arrivals_and_nodes(preset_scenario(
        "ch3-trace", {"trace.size_fraction": f}).params) for f in (0.1, 0.8))
    assert small[0] == large[0] and small[1] < large[1]
