"""The engine contract for kind ``uav``: result shape, determinism, errors, progress, CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import uav.engine as engine
from scheduling.engine import __all__ as scheduling_names
from simcore.cli import main
from uav.engine import (
    RunCancelled,
    ScenarioError,
    get_preset,
    list_presets,
    preset_scenario,
    scenario,
    simulate,
)
from uav.engine.result import UavResult

ROOT = Path(__file__).resolve().parents[3]


def test_same_public_names_as_scheduling_engine():
    assert set(scheduling_names) <= set(dir(engine))
    assert [k.name for k in engine.list_kinds()] == ["uav"]


def test_presets_are_few_and_the_chapter_axes_are_sweeps():
    from uav.engine import ENGINE
    from uav.engine.presets import SWEEPS

    names = {p.name for p in list_presets()}
    assert {"small-baseline", "large", "example-tables-9-10", "geometry-demo"} <= names
    assert not any(n.startswith("sweep-") for n in names) and len(names) <= 8
    large = preset_scenario("large").params
    assert (large.uavs_mean, large.targets_mean, large.event_multiplier) == (90, 140, 10)
    # The chapter's axes are swept by figure presets and by ``sweep --axis`` (uav/engine/cli.py),
    # never a preset per point.
    swept = {p for f in ENGINE.list_figures() for p, _ in f.axes}
    assert swept and swept <= {field for field, _, _ in SWEEPS.values()}
    for p in list_presets():
        preset_scenario(p.name)  # every preset validates
    assert get_preset("small-baseline").kind == "uav"


@pytest.fixture(scope="module")
def result():
    return simulate(preset_scenario("small-baseline"), "meta+pf", seed=5)


def test_result_contract(result):
    assert isinstance(result, UavResult)
    assert result.surveils is result.tasks
    s = result.summary
    for key in ("value", "value_vs_random", "energy_used_total", "energy_used_per_uav_mean",
                "surveils_completed", "surveils_partial", "surveils_preempted", "targets_total",
                "mapping_events"):
        assert isinstance(s[key], (int, float)), key
    assert s["energy_used_per_uav_mean"] == pytest.approx(s["energy_used_total"] / s["uavs_total"])
    series = result.series
    n = len(series["t_min"])
    assert n == 24 * 60 + 1 and series["t_min"][-1] == 1440
    assert len(series["value_cum"]) == n and len(series["active_surveils"]) == n
    assert len(series["energy_remaining"]) == s["uavs_total"]
    assert all(len(v) == n for v in series["energy_remaining"].values())
    assert series["energy_pace"][0] == 1.0 and series["energy_pace"][-1] == 0.0
    assert max(series["active_surveils"]) <= s["uavs_total"]
    for col in ("uav", "sensor", "target", "priority", "start", "end", "value", "preempted",
                "split", "partial"):
        assert len(result.tasks[col]) == s["surveils_started"], col
    assert sum(result.tasks["preempted"]) == s["surveils_preempted"]
    assert len(result.events["t_min"]) == 288
    assert set(result.events["chosen"]) <= {"", "max-value", "max-vpe", "mixed"}
    dyn = result.extra["dynamic_events"]
    assert len(dyn["t_min"]) == len(dyn["type"]) == len(dyn["uav"]) == len(dyn["target"])
    assert result.meta["policy"] == "meta+pf" and result.meta["kind"] == "uav"
    t = result.timing
    assert t["events"] == 288 and len(t["event_ms"]) == 288


def test_energy_series_matches_records(result):
    # the curve at the end of the day equals capacity minus recorded use (removed UAVs excepted)
    uavs = result.extra["uavs"]
    for i, uid in enumerate(uavs["id"]):
        curve = result.series["energy_remaining"][str(uid)]
        if uavs["left_min"][i] is None:
            assert curve[-1] == pytest.approx(uavs["energy_total"][i] - uavs["energy_used"][i],
                                              abs=1e-5)


def test_deterministic_json_and_common_random_numbers(result):
    sc = preset_scenario("small-baseline")
    again = simulate(sc, "meta+pf", seed=5)
    assert again.to_json() == result.to_json()
    other = simulate(sc, "max-vpe", seed=5)
    # every policy sees the same mission for a seed
    assert other.extra["dynamic_events"] == result.extra["dynamic_events"]
    assert other.extra["targets"] == result.extra["targets"]
    assert other.summary["value_random"] == result.summary["value_random"]
    assert simulate(sc, "meta+pf", seed=6).to_json() != result.to_json()


def test_random_ratio_is_one_for_random_itself():
    r = simulate(preset_scenario("small-baseline"), "random", seed=1)
    assert r.summary["value_vs_random"] == 1.0
    r = simulate(preset_scenario("small-baseline", {"compare_random": False}), "meta", seed=1)
    assert r.summary["value_vs_random"] is None


def test_no_random_value_gives_no_ratio():
    # no UAVs at all: both values are 0 and the ratio is undefined (percent increase when Random
    # earns 0 (ch. 5 spec A23))
    r = simulate(preset_scenario("small-baseline", {"uavs_mean": 0.0, "event_multiplier": 0.0}),
                 "meta", seed=1)
    assert r.summary["value"] == 0 and r.summary["value_vs_random"] is None
    json.loads(r.to_json())


@pytest.mark.parametrize("params, field", [
    ({"energy_rate_mean": 0.2, "energy_rate_cv": 2.5}, "energy_rate_cv"),
    ({"surveil_time_min": 3.0, "surveil_time_max": 1.0}, "surveil_time_min"),
    ({"mapping_interval_min": 0}, "mapping_interval_min"),
    ({"priority_cv": -1}, "priority_cv"),
    ({"sensor_type_weights": [1, 1, 0, 1]}, "sensor_type_weights"),
    ({"tie_break": "coin"}, "tie_break"),
    ({"geometry": {"area_km": 10, "base_x_km": 20}}, "geometry.base_x_km"),
    ({"fixed_uavs": [{"energy_total": 0.5, "sensors": [{"type": "VIS"}, {"type": "VIS"}]}]},
     "sensors"),
    ({"fixed_targets": [{"windows": [[5, 3]]}]}, "windows.0"),
    ({"fixed_targets": [{"windows": [[5, 30]]}]}, "fixed_targets.0.windows.0.1"),
    ({"event_rates": {"add_uav": -1}}, "event_rates.add_uav"),
    ({"no_such": 1}, "no_such"),
])
def test_bad_input_raises_scenario_error(params, field):
    with pytest.raises(ScenarioError) as err:
        scenario("uav", params)
    assert err.value.field.endswith(field)


def test_bad_policy_and_seed():
    sc = preset_scenario("small-baseline")
    with pytest.raises(ScenarioError):
        # No modifications on Random/RBS (ch. 5 spec A28): Random has no preemption variant
        simulate(sc, "random+p", seed=1)
    with pytest.raises(ScenarioError):
        simulate(sc, "meta", seed=-1)


def test_progress_reports_and_cancels():
    seen = []
    simulate(preset_scenario("small-baseline"), "meta", seed=1, progress=seen.append)
    assert seen[-1] == 1.0 and seen == sorted(seen) and 20 < len(seen) < 150

    def cancel(frac):
        if frac > 0.3:
            raise RunCancelled()

    with pytest.raises(RunCancelled):
        simulate(preset_scenario("small-baseline"), "meta", seed=1, progress=cancel)


def test_cli_lists_and_errors_in_process(capsys):
    assert main(engine.ENGINE, ["presets"], prog="uav") == 0
    assert "small-baseline" in capsys.readouterr().out
    assert main(engine.ENGINE, ["policies"], prog="uav") == 0
    assert "meta+pf" in capsys.readouterr().out
    code = main(engine.ENGINE, ["run", "--preset", "small-baseline", "--policy", "meta",
                                "--set", "priority_cv=-2"], prog="uav")
    assert code == 2 and "priority_cv" in capsys.readouterr().err


def test_cli_run_with_flags(tmp_path):
    # the real entry point, so the --preemption/--filtering registration is exercised
    path = tmp_path / "r.json"
    out = subprocess.run([sys.executable, "-m", "uav.engine", "run", "--preset", "small-baseline",
                          "--policy", "meta", "--preemption", "--filtering", "--seed", "3",
                          "--set", "uavs_mean=5", "--out", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    data = json.loads(path.read_text())
    assert data["meta"]["policy"] == "meta+pf"
    assert data["meta"]["scenario"]["params"]["uavs_mean"] == 5
    assert data["tasks"]["uav"]
    assert "value_vs_random" in out.stdout


def test_form_description_keeps_the_sweep_axes_up_front():
    from simcore.params import describe
    from uav.engine.config import UavConfig

    fields = describe(UavConfig)
    basic = {f["name"] for f in fields if not f["advanced"]}
    # the six sweep axes of small scenario sets (ch. 5 spec §6.6) plus the geometry switch;
    # everything else is advanced
    assert basic == {"uavs_mean", "targets_mean", "energy_rate_mean", "priority_cv",
                     "event_multiplier", "mapping_interval_min", "geometry.enabled"}
    assert all(f["help"] for f in fields)
    assert len([f for f in fields if f["name"].startswith("event_rates.")]) == 11
