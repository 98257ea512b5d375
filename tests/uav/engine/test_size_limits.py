"""What one UAV run may ask for, and its price: the mapping interval, the dynamic events, the
UAV x target slots they add and the windows are capped at validation naming the parameter;
the cost estimate grows with the mapping events (docs/uav.md "Limits and price")."""

import math

import pytest

import uav.engine as engine
from simcore.axes import points
from simcore.cli import main
from simcore.errors import ScenarioError
from uav.engine import ENGINE, preset_scenario, scenario, simulate
from uav.engine.config import (
    MAX_DYNAMIC_EVENTS,
    MAX_MAPPING_EVENTS,
    MAX_SLOT_CELLS,
    MAX_WINDOWS,
)


def refused(params: dict) -> ScenarioError:
    with pytest.raises(ScenarioError) as err:
        scenario("uav", params)
    return err.value


@pytest.mark.parametrize("interval", [1e-6, 0.001, 0.007, 5e-324])
def test_a_tiny_mapping_interval_is_refused_naming_it(interval):
    err = refused({"mapping_interval_min": interval})
    assert err.field == "mapping_interval_min"
    count = f"{math.ceil(24 * 60 / interval):,}" if interval > 1e-300 else "unboundedly many"
    assert f"gives {count} mapping events" in err.message
    assert f"at most {MAX_MAPPING_EVENTS:,}" in err.message


def test_the_interval_at_the_cap_is_accepted():
    # 24 h / 200,000 = 0.0072 min; a shorter day allows a shorter interval
    assert scenario("uav", {"mapping_interval_min": 0.0072}).params.mapping_events() == 200_000
    assert refused({"mapping_interval_min": 0.0071}).field == "mapping_interval_min"
    assert scenario("uav", {"mapping_interval_min": 0.0036, "horizon_h": 12.0})


def test_too_many_dynamic_events_are_refused_naming_the_multiplier():
    # the audit's x1000 (31,000 events a day) is priced, not refused; x10,000 would be 310,000
    assert scenario("uav", {"event_multiplier": 1000.0}).params.dynamic_events() == 31_000
    err = refused({"event_multiplier": 1000.0, "event_rates": {"change_priority": 200.0}})
    assert err.field == "event_multiplier"
    assert "227,000 dynamic events" in err.message
    assert f"at most {MAX_DYNAMIC_EVENTS:,}" in err.message


def test_added_uavs_and_targets_cannot_multiply_the_score_matrices_past_the_cap():
    # the largest fleet with 3,400 targets and the default events fit
    assert scenario("uav", {"uavs_mean": 2000.0, "targets_mean": 3400.0})
    err = refused({"uavs_mean": 2000.0, "targets_mean": 3400.0, "event_multiplier": 100.0})
    assert err.field == "event_multiplier"
    assert f"at most {MAX_SLOT_CELLS:,}" in err.message and "2,100 UAVs" in err.message
    err = refused({"uavs_mean": 2000.0, "targets_mean": 3400.0,
                   "event_rates": {"add_target": 300.0}})
    assert err.field == "event_rates.add_target"


def test_the_uav_and_target_bounds_together_are_past_the_memory_of_a_run():
    # 2,000 x 5,000 would need about 2.2 GB of a worker's memory, 200 bytes a pair
    # (docs/reliability.md "Memory of a run"); each bound alone is allowed
    assert MAX_SLOT_CELLS == 7_000_000
    err = refused({"uavs_mean": 2000.0, "targets_mean": 5000.0})
    assert err.field == "targets_mean"
    assert "2,001 UAVs x 5,002 targets = 10,009,002 UAV-target pairs" in err.message
    assert scenario("uav", {"uavs_mean": 2000.0, "targets_mean": 1000.0})
    assert scenario("uav", {"uavs_mean": 500.0, "targets_mean": 5000.0})


def test_tiny_windows_are_refused_naming_the_gap():
    err = refused({"window_gap_mean": 1e-6, "window_duration_mean": 1e-6})
    assert err.field == "window_gap_mean"
    assert f"at most {MAX_WINDOWS:,}" in err.message


def test_the_cli_names_the_field(capsys):
    code = main(ENGINE, ["run", "--preset", "small-baseline", "--policy", "random",
                         "--set", "mapping_interval_min=1e-6"], prog="uav")
    assert code == 2
    err = capsys.readouterr().err
    assert "mapping_interval_min: gives 1,440,000,000 mapping events" in err
    assert "at most 200,000" in err


def test_every_preset_and_figure_preset_is_within_the_caps():
    for preset in engine.list_presets("uav"):
        cfg = preset_scenario(preset.name).params
        assert cfg.mapping_events() <= MAX_MAPPING_EVENTS
    for figure in ENGINE.list_figures("uav"):
        for point in points(figure.axes):  # every sweep point validates
            cfg = preset_scenario(figure.preset, {**figure.overrides, **point}).params
            assert cfg.mapping_events() <= MAX_MAPPING_EVENTS


def test_the_model_counts_the_engines_mapping_events():
    for interval, horizon in ((5.0, 4.0), (0.7, 2.0), (7.0, 1.0)):
        sc = preset_scenario("small-baseline", {"mapping_interval_min": interval,
                                                "horizon_h": horizon, "compare_random": False})
        result = simulate(sc, "random", seed=1)
        assert result.summary["mapping_events"] == sc.params.mapping_events()


def cost(params: dict, policy: str = "meta+pf") -> float:
    return ENGINE.cost(scenario("uav", params), policy)


def test_the_price_grows_with_the_mapping_events():
    base = {"mapping_interval_min": 0.02}
    half = {"mapping_interval_min": 0.01}
    # at many events the events dominate: half the interval is about twice the price
    assert cost(half) / cost(base) == pytest.approx(2.0, rel=0.03)
    # the model's formula against the event count (engine._cost's constants)
    cfg = scenario("uav", half).params
    uavs, targets = cfg.slots()
    assert cfg.mapping_events() == 144_000
    flight = 144_000 * (engine.PER_EVENT + uavs * targets)
    drawn = uavs + targets + cfg.windows() + cfg.dynamic_events()
    assert cost(half) == pytest.approx(engine.PER_RUN + engine.PER_ENTITY * drawn + 2 * flight)
    assert cost(half, "random") == pytest.approx(engine.PER_RUN + engine.PER_ENTITY * drawn
                                                 + flight)  # no second (Random) flight


def test_the_price_grows_with_the_slots_events_add_and_the_geometry_model():
    plain = cost({"compare_random": False})
    more = cost({"compare_random": False, "event_multiplier": 100.0})
    # x100 events add 100 UAV and 200 target slots: 109 x 214 pairs to visit at each mapping
    # event instead of 10 x 16 (the runs measured 12-16x longer; docs/uav.md)
    assert more / plain > 20
    geo = cost({"compare_random": False, "geometry": {"enabled": True}})
    assert geo > 1.5 * plain
