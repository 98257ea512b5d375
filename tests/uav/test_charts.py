"""UAV charts: plain, valid Plotly figure dicts that show what the result holds."""

import json

import plotly.graph_objects as go
import pytest

from simcore.charts import mean_series
from simcore.lab import RunData
from simcore.result import Result
from uav.charts import PRIORITY_COLORS, energy_remaining, mission_timeline
from uav.engine import preset_scenario, simulate


@pytest.fixture(scope="module")
def result():
    sc = preset_scenario("small-baseline", {"event_multiplier": 4.0, "compare_random": False})
    return simulate(sc, "meta+pf", seed=8)


def valid(fig):
    json.dumps(fig, allow_nan=False)  # plain JSON types only
    go.Figure(fig)  # plotly validates every property name and value type
    return fig


def test_mission_timeline(result):
    fig = valid(mission_timeline(result))
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    sv = result.surveils
    assert sum(len(t["y"]) for t in bars) == len(sv["uav"])  # one bar per surveil
    for t in bars:
        prio = int(t["name"].split()[1])
        assert t["marker"]["color"] == PRIORITY_COLORS[prio - 1]
        # each bar sits in its UAV's lane, starts/ends where the record says, shows its target
        for lane, base, width, custom in zip(t["y"], t["base"], t["x"], t["customdata"],
                                             strict=True):
            i = next(k for k in range(len(sv["uav"]))
                     if sv["target"][k] == custom[0] and abs(sv["start"][k] / 60 - base) < 1e-4
                     and f"UAV {sv['uav'][k]}" == lane)
            assert sv["priority"][i] == prio
            assert base + width == pytest.approx(max(sv["end"][i] / 60, base + 1e-3), abs=1e-4)
        outlined = [w > 0 for w in t["marker"]["line"]["width"]]
        assert sum(outlined) == sum(1 for k in range(len(sv["uav"]))
                                    if sv["priority"][k] == prio and sv["preempted"][k])
    marks = [t for t in fig["data"] if t["type"] == "scatter"]
    dyn = result.extra["dynamic_events"]
    assert sum(len(t["x"]) for t in marks) == sum(e != "none" for e in dyn["effect"]) > 0
    lanes = set(fig["layout"]["yaxis"]["categoryarray"])
    assert {f"UAV {u}" for u in result.extra["uavs"]["id"]} <= lanes
    assert all(y in lanes for t in fig["data"] for y in t["y"])


def test_timeline_from_stored_dict(result):
    stored = json.loads(result.to_json())
    assert mission_timeline(stored) == mission_timeline(Result.from_dict(stored))


def test_energy_remaining_normalized(result):
    fig = valid(energy_remaining(result))
    n_uavs = result.summary["uavs_total"]
    assert len(fig["data"]) == n_uavs + 1
    pace = fig["data"][-1]
    assert pace["y"][0] == 1.0 and pace["y"][-1] == 0.0 and pace["x"][-1] == 24.0
    for t in fig["data"][:-1]:
        ys = [y for y in t["y"] if y is not None]
        assert ys and all(0.0 <= y <= 1.0 + 1e-9 for y in ys)
        assert ys == sorted(ys, reverse=True)  # energy only goes down


def test_energy_remaining_absolute_has_a_pace_line_per_uav(result):
    fig = valid(energy_remaining(result, normalized=False))
    assert len(fig["data"]) == 2 * result.summary["uavs_total"]
    caps = result.extra["uavs"]["energy_total"]
    pace_starts = [t["y"][0] for t in fig["data"] if t["name"].startswith("pace")]
    assert pace_starts == pytest.approx(caps, rel=1e-4)


def test_energy_remaining_downsamples_many_uavs():
    r = simulate(preset_scenario("large", {"compare_random": False, "event_multiplier": 0.0,
                                           "horizon_h": 6.0}), "max-value", seed=1)
    fig = energy_remaining(r)
    points = sum(len(t["x"]) for t in fig["data"])
    assert len(fig["data"]) > 60 and points <= 62000
    assert all(len(t["x"]) <= 2000 for t in fig["data"])
    assert fig["data"][0]["x"][-1] == 6.0  # the end of the day survives sampling


def test_value_over_time_as_the_lab_draws_it(result):
    """The lab plots UAV value over time with the shared mean-series chart."""
    other = simulate(preset_scenario("small-baseline", {"event_multiplier": 4.0}), "random",
                     seed=8)
    groups = {label: [RunData(label, 0, 0, r.summary, r.to_dict()["series"], {})]
              for label, r in (("Meta+P+F", result), ("Random", other))}
    fig = valid(mean_series(groups, "value_cum", "Surveillance value earned", "value"))
    assert [t["name"] for t in fig["data"]] == ["Meta+P+F", "Random"]
    # charts round to 5 significant digits
    assert fig["data"][0]["y"][-1] == pytest.approx(result.summary["value"], rel=1e-4)
    assert fig["data"][1]["y"][-1] == pytest.approx(other.summary["value"], rel=1e-4)
    assert fig["data"][0]["line"]["color"] != fig["data"][1]["line"]["color"]


def test_every_dynamic_event_type_has_its_own_marker():
    from uav.charts import EVENT_COLORS, EVENT_SYMBOLS

    assert len(set(EVENT_SYMBOLS.values())) == len(EVENT_SYMBOLS) == 11
    assert len(set(EVENT_COLORS.values())) == len(EVENT_COLORS) == 11
