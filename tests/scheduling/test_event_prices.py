"""The price follows the parameters that multiply a run's work, in the kinds besides UAV and
ch. 3 (tests/uav/engine/test_size_limits.py, tests/scheduling/parallel_energy/test_price.py):
the grid's node loads sampled (nodes x samples, also capped at validation), and the mapping
events of the VoS and ch. 4 kinds, whose count was already capped but not priced."""

import pytest

import scheduling.grid as grid
import scheduling.serial_preemption as serial
import scheduling.value_of_service as vos
from scheduling.engine import ENGINE, ScenarioError, preset_scenario, scenario
from scheduling.grid.config import MAX_LOAD_CELLS
from simcore.axes import points


def cost(preset: str, overrides: dict, policy: str) -> float:
    return ENGINE.cost(preset_scenario(preset, overrides), policy)


# -- grid -------------------------------------------------------------------------------------

def test_grid_node_loads_are_capped_naming_the_sample_interval():
    with pytest.raises(ScenarioError) as err:
        scenario("grid", {"nodes": {"n_nodes": 50_000}})
    assert err.value.field == "report.sample_s"
    assert "x 50,000 nodes" in err.value.message
    assert f"at most {MAX_LOAD_CELLS:,}" in err.value.message
    # sampling less often makes room for the site's largest node count
    assert scenario("grid", {"nodes": {"n_nodes": 50_000}, "report": {"sample_s": 120.0}})


def test_every_grid_preset_and_figure_point_is_within_the_caps():
    for preset in ENGINE.list_presets("grid"):
        preset_scenario(preset.name)
    for figure in ENGINE.list_figures("grid"):
        for point in points(figure.axes):
            preset_scenario(figure.preset, {**figure.overrides, **point})


def test_the_grid_price_grows_with_nodes_and_load_samples():
    base = cost("grid-small", {}, "fcfs")
    cfg = preset_scenario("grid-small").params
    samples = cfg.span_expected() / cfg.report.sample_s + 1
    assert base == pytest.approx(500 + grid.PER_NODE * 100 + grid.PER_LOAD_CELL * 100 * samples)
    # the formula's load term: 5,000 nodes sampled every minute over the expected span
    big = cost("grid-small", {"nodes.n_nodes": 5_000}, "fcfs")
    assert big == pytest.approx(500 + grid.PER_NODE * 5_000
                                + grid.PER_LOAD_CELL * 5_000 * samples)
    assert big > 15 * base  # (50,000 nodes measured 2.9 s, priced 0.07 s like 100)
    faster = cost("grid-small", {"nodes.n_nodes": 5_000, "report.sample_s": 30.0}, "fcfs")
    assert faster - big == pytest.approx(grid.PER_LOAD_CELL * 5_000 * (samples - 1))
    # internode overlays: 3x per job, 6x per node
    assert cost("grid-small", {}, "internode-can") == pytest.approx(
        base + 2 * 500 + 5 * grid.PER_NODE * 100)


def test_with_alpha_above_beta_the_grid_price_counts_the_ticks():
    # the preemptive schedulers swap jobs at every tick: half the interval, twice the swaps
    calm = cost("grid-main", {}, "local")
    aging = cost("grid-main", {"scheduler.alpha": 0.5}, "local")
    assert aging == calm  # alpha <= beta: no swapping, the interval does not matter
    assert cost("grid-main", {"scheduler.delta_s": 0.5}, "local") == calm
    swap = cost("grid-main", {"scheduler.alpha": 1.5}, "local")
    cfg = preset_scenario("grid-main", {"scheduler.alpha": 1.5}).params
    assert cfg.swap_job_ticks() == pytest.approx(5000 * 3600 / 1.175 / 5.0)
    assert swap == pytest.approx(calm + grid.PER_SWAP * cfg.swap_job_ticks())
    assert swap > 50 * calm  # the run measured 16 s of CPU, priced 0.28 s before
    assert cost("grid-main", {"scheduler.alpha": 1.5}, "fcfs") == cost("grid-main", {}, "fcfs")
    with pytest.raises(ScenarioError) as err:
        preset_scenario("grid-main", {"scheduler.alpha": 1.5, "scheduler.delta_s": 0.5})
    assert err.value.field == "scheduler.delta_s"
    assert "job-ticks" in err.value.message and "at most 20,000,000" in err.value.message


# -- value of service and ch. 4: the mapping events, capped before, now priced ----------------

@pytest.mark.parametrize("kind,preset,interval,policy", [
    ("value-of-service", "vos-small", "scheduler.interval_min", "simple"),
    ("value-of-service", "vos-small", "scheduler.interval_min", "max-vptr"),
    ("serial-preemption", "ch4-small", "scheduler.mapping_interval_min", "fcfs"),
])
def test_half_the_mapping_interval_doubles_the_price(kind, preset, interval, policy):
    one = cost(preset, {interval: 1.0}, policy)
    assert one == cost(preset, {}, policy)  # the presets' own interval: the price as before
    assert cost(preset, {interval: 0.5}, policy) == pytest.approx(2 * one)
    assert cost(preset, {interval: 0.05}, policy) == pytest.approx(20 * one)


def test_a_mapping_event_costs_at_least_the_fixed_part():
    # a nearly empty system still visits every event (measured 15 µs / 50 µs an event)
    few = preset_scenario("vos-small", {"workload.tasks_min": 1, "workload.tasks_max": 2,
                                        "scheduler.interval_min": 0.05}).params
    events = few.scheduler.duration_h * 60 / 0.05
    assert ENGINE.cost(ENGINE.scenario("value-of-service", few), "simple") == \
        pytest.approx(vos.PER_EVENT * events)
    idle = preset_scenario("ch4-small", {"workload.tasks_per_core_per_day": 0.1,
                                         "scheduler.mapping_interval_min": 0.05})
    assert ENGINE.cost(idle, "fcfs") == pytest.approx(serial.PER_EVENT * 1680 / 0.05 / 1680)


def test_a_longer_ch4_run_costs_more():
    # the price was arrivals per day whatever the simulated time
    day = cost("ch4-small", {"scheduler.duration_min": 1680.0}, "fcfs")
    assert cost("ch4-small", {"scheduler.duration_min": 3360.0}, "fcfs") == pytest.approx(2 * day)
