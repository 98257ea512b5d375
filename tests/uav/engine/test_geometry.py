"""The optional geometry model (beyond the dissertation): positions, travel time, flight energy."""

import numpy as np
import pytest

from uav.engine import preset_scenario, simulate

GEO = {"enabled": True, "area_km": 100.0, "base_x_km": 0.0, "base_y_km": 0.0,
       "speed_kmh": 100.0, "flight_energy_rate": 0.2}


def placed(uavsim, targets, positions, uavs=None, events=()):
    m = uavsim.mission(uavs or [(1.0, {"VIS": (0.1, 5)})], targets, events)
    m.base = (0.0, 0.0)
    for t, (x, y) in zip(m.targets, positions, strict=True):
        t.x, t.y = x, y
    return m


def test_off_by_default_and_inert_when_off():
    base = preset_scenario("small-baseline")
    assert base.params.geometry.enabled is False
    tweaked = preset_scenario("small-baseline", {"geometry.speed_kmh": 5.0,
                                                 "geometry.flight_energy_rate": 0.9})
    a = simulate(base, "meta+pf", seed=3)
    b = simulate(tweaked, "meta+pf", seed=3)
    assert a.summary == b.summary and a.tasks == b.tasks
    assert "flight_hours_total" not in a.summary


def test_travel_delays_observation_and_costs_flight_energy(uavsim):
    # base (0, 0) -> target at (30, 40): 50 km at 100 km/h = 0.5 h, 0.1 energy of flight
    m = placed(uavsim, [(2, 1.0, {"VIS": 5}, [(0.0, 24.0)])], [(30.0, 40.0)])
    sim = uavsim.run(m, "max-value", geometry=GEO)
    sv = sim.surveils[0]
    assert sv.start == 0.0 and sv.flown == pytest.approx(0.5)
    assert sv.end == pytest.approx(1.5) and sv.reason == "complete"
    assert sv.value == pytest.approx(2 * 5 * 5)
    assert sv.energy == pytest.approx(0.5 * 0.2 + 1.0 * 0.1)
    assert sim.flight_energy == pytest.approx(0.1)
    assert tuple(sim.uav_pos[0]) == (30.0, 40.0)  # the UAV stays at the target


def test_scores_count_travel(uavsim):
    m = placed(uavsim, [(2, 1.0, {"VIS": 5}, [(0.0, 24.0)])], [(30.0, 40.0)])
    sim = uavsim.run(m, "max-value", geometry=GEO)
    V, VPT, VPE, _ = sim.scores(np.array([[0.0, 0.0]]))
    assert V[0, 0, 0] == 50.0
    assert VPT[0, 0, 0] == pytest.approx(50.0 / 1.5)
    assert VPE[0, 0, 0] == pytest.approx(50.0 / (0.2 * 0.5 + 0.1 * 1.0))


def test_window_closing_in_transit_earns_nothing(uavsim):
    m = placed(uavsim, [(2, 1.0, {"VIS": 5}, [(0.0, 0.25)])], [(30.0, 40.0)])
    sim = uavsim.run(m, "max-value", geometry=GEO)
    sv = sim.surveils[0]
    assert sv.reason == "window_end" and sv.value == 0.0
    assert sv.flown == pytest.approx(0.25)
    # the UAV stopped halfway along the leg
    assert tuple(sim.uav_pos[0]) == pytest.approx((15.0, 20.0))


def test_flight_can_exhaust_energy(uavsim):
    m = placed(uavsim, [(2, 1.0, {"VIS": 5}, [(0.0, 24.0)])], [(30.0, 40.0)],
               uavs=[(0.05, {"VIS": (0.1, 5)})])
    sim = uavsim.run(m, "max-value", geometry=GEO)
    sv = sim.surveils[0]
    assert sv.reason == "energy" and sv.end == pytest.approx(0.25) and sv.value == 0.0
    assert sim.uav_energy[0] == 0.0


def test_nearer_target_wins_per_time(uavsim):
    # two equal targets; VPT prefers the near one, MV cannot tell them apart (first id wins)
    targets = [(2, 1.0, {"VIS": 5}, [(0.0, 24.0)]), (2, 1.0, {"VIS": 5}, [(0.0, 24.0)])]
    m = placed(uavsim, targets, [(80.0, 60.0), (3.0, 4.0)])
    assert uavsim.run(m, "max-vpt", geometry=GEO).surveils[0].target == 1
    assert uavsim.run(m, "max-value", geometry=GEO).surveils[0].target == 0


def test_geometry_demo_runs_and_reports_flight():
    r = simulate(preset_scenario("geometry-demo"), "meta+pf", seed=2)
    assert r.summary["flight_hours_total"] > 0
    assert r.summary["flight_energy_total"] == pytest.approx(
        0.02 * r.summary["flight_hours_total"])
    assert sum(r.tasks["travel_min"]) == pytest.approx(60 * r.summary["flight_hours_total"])
    geo = r.extra["geometry"]
    assert len(geo["target_x_km"]) == r.summary["targets_total"]
    assert all(0 <= x <= 50 for x in geo["target_x_km"] + geo["target_y_km"])
