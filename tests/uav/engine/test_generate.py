"""Scenario generator (scenario generation (ch. 5 spec §6)): distributions match the spec's computed
figures."""

import math

import numpy as np
import pytest
from scipy.stats import beta as beta_dist

from simcore.params import from_dict
from simcore.sampling import rng
from uav.engine import preset_scenario
from uav.engine.config import UavConfig, beta_params, gamma_params
from uav.engine.model import EVENT_TYPES
from uav.engine.workload import Draws, generate

N = 20000


def close(sample, expected, rounding=0.005):
    """Sample mean within 4.5 standard errors (+ the spec's rounding) of ``expected``."""
    sample = np.asarray(sample, float)
    se = sample.std(ddof=1) / math.sqrt(sample.size)
    assert abs(sample.mean() - expected) <= 4.5 * se + rounding, (sample.mean(), expected)


def freq(sample, value, p):
    sample = np.asarray(sample)
    close((sample == value).astype(float), p, rounding=0.0005)


def test_library_parameters_of_spec_table():
    assert beta_params(0.8, 0.12) == pytest.approx((8.0889, 2.0222), abs=1e-4)
    assert beta_params(0.05, 0.025) == pytest.approx((3.75, 71.25))
    assert beta_params(0.15, 0.075) == pytest.approx((3.25, 18.4167), abs=1e-4)
    assert beta_params(0.6, 0.24) == pytest.approx((1.9, 1.2667), abs=1e-4)
    assert beta_params(0.7, 0.21) == pytest.approx((2.6333, 1.1286), abs=1e-4)
    assert gamma_params(4, 0.6) == pytest.approx((2.7778, 1.44), abs=1e-4)
    assert gamma_params(3, 0.2) == pytest.approx((25, 0.12))


@pytest.fixture(scope="module")
def draws():
    return Draws(UavConfig(), rng(1, "test"))


def test_integer_attributes(draws):
    q = [draws.quality() for _ in range(N)]
    a = [draws.affinity() for _ in range(N)]
    p = np.array([draws.priority() for _ in range(N)])
    close(q, 5.51)
    close(a, 6.49)
    close(p, 3.51)
    assert p.std() == pytest.approx(2.25, abs=0.05)
    freq(p, 1, 0.205)
    freq(p, 10, 0.024)
    # floor(10 x) with x < 1 (beta draws to integers (ch. 5 spec A2))
    assert 10 not in q and 10 not in a
    assert min(q) >= 1 and min(a) >= 1 and p.min() >= 1 and p.max() <= 10


@pytest.fixture(scope="module")
def fleet(draws):
    return [draws.uav(i + 1, 0.0) for i in range(N)]


def test_fleet_distributions(fleet):
    n = np.array([len(u.sensors) for u in fleet])
    for k, p in zip((1, 2, 3, 4), (0.394, 0.282, 0.189, 0.135), strict=True):
        freq(n, k, p)
    close(n, 2.07)
    e_tot = np.array([u.energy_total for u in fleet])
    rates = np.array([r for u in fleet for r, _ in u.sensors.values()])
    close(e_tot, 0.8, rounding=0.0)
    close(rates, 0.05, rounding=0.0)
    assert e_tot.max() <= 1.0
    # the design target: about 16 h of sensor time per UAV, E[E_tot]/E[rate]
    assert e_tot.mean() / rates.mean() == pytest.approx(16.0, rel=0.02)
    # and E[E_tot / rate] ~ 21.5 h by Jensen's inequality
    close([u.energy_total / r for u in fleet for r, _ in u.sensors.values()], 21.5, rounding=0.1)
    # first-draw weights VIS 0.5, SAR 0.2, IR 0.2, LIDAR 0.1: visible on single-sensor UAVs
    single = np.array([next(iter(u.sensors)) for u in fleet if len(u.sensors) == 1])
    for s, w in enumerate((0.5, 0.2, 0.2, 0.1)):
        freq(single, s, w)


def test_targets_and_windows(draws):
    targets = [draws.target(i + 1, 0.0) for i in range(N // 2)]
    close([len(t.windows) for t in targets], 6.29, rounding=0.01)
    close([sum(b - a for a, b in t.windows) for t in targets], 17.7, rounding=0.05)
    close([len(t.allowed) for t in targets], 2.5, rounding=0.0)
    ts = np.array([t.surveil_time for t in targets])
    assert ts.min() >= 1.0 and ts.max() <= 3.0
    close(ts, 2.0, rounding=0.0)
    for t in targets[:500]:
        flat = [x for w in t.windows for x in w]
        assert flat == sorted(flat) and all(0 < a < b <= 24 for a, b in t.windows)


def test_rounding_alternatives_a1_a2():
    cfg = from_dict(UavConfig, {"sensor_count_rounding": "round", "integerize": "ceil"})
    d = Draws(cfg, rng(2, "test"))
    n = [len(d.uav(1, 0.0).sensors) for _ in range(N // 2)]
    close(n, 2.43, rounding=0.01)
    q = np.array([d.quality() for _ in range(N // 2)])
    # exact mean of clamp(ceil(10 x), 1, 10) for x ~ Beta(1.9, 1.2667): cells ((k-1)/10, k/10]
    cdf = beta_dist(*beta_params(0.6, 0.24)).cdf(np.arange(11) / 10)
    expected = float(np.sum(np.arange(1, 11) * np.diff(cdf)))
    close(q, expected, rounding=0.0)
    assert (q == 10).any()


def test_events_follow_table_11_rates():
    cfg = preset_scenario("small-baseline").params
    counts = {code: [] for code, _, _ in EVENT_TYPES}
    for seed in range(300):
        m = generate(cfg, seed)
        for code in counts:
            counts[code].append(sum(e.kind == code for e in m.events))
    rates = cfg.event_rates.by_code()
    for code, c in counts.items():
        # Poisson counts: mean = rate, sd = sqrt(rate)
        assert abs(np.mean(c) - rates[code]) <= 4.5 * math.sqrt(rates[code] / 300), code


def test_events_pick_present_entities_and_are_resolved():
    cfg = preset_scenario("small-baseline", {"event_multiplier": 16.0}).params
    for seed in range(20):
        m = generate(cfg, seed)
        present_u = {u.id for u in m.uavs if u.joined == 0}
        present_t = {t.id for t in m.targets if t.joined == 0}
        sensors = {u.id: set(u.sensors) for u in m.uavs}
        allowed = {t.id: set(t.allowed) for t in m.targets}
        last = 0.0
        for e in m.events:
            assert last <= e.time < 24.0
            last = e.time
            if e.kind == "E1":
                present_u.add(e.uav)
                assert e.new_uav.joined == e.time
            elif e.kind == "E5":
                present_t.add(e.target)
                # Windows of targets added mid-day (ch. 5 spec A8)
                assert all(a > e.time for a, _ in e.new_target.windows)
            elif e.effect == "none":
                assert (e.kind in "E2 E3 E4" and not present_u) or \
                       (e.kind not in "E2 E3 E4" and not present_t) or \
                       (e.kind == "E9" and len(allowed[e.target]) == 4)
            elif e.uav is not None:
                assert e.uav in present_u
                if e.kind == "E3":
                    assert e.sensor in sensors[e.uav]
                    sensors[e.uav].discard(e.sensor)
                    assert (e.effect == "remove") == (not sensors[e.uav])  # last sensor
                if e.kind == "E4":
                    assert set(e.values) == sensors[e.uav]
                if e.effect == "remove":
                    present_u.discard(e.uav)
            else:
                assert e.target in present_t
                if e.kind == "E9":
                    assert e.sensor not in allowed[e.target]
                    allowed[e.target].add(e.sensor)
                if e.kind == "E10":
                    assert e.sensor in allowed[e.target]
                    allowed[e.target].discard(e.sensor)
                    # Removing a target's last sensor type (ch. 5 spec A12)
                    assert (e.effect == "remove") == (not allowed[e.target])
                if e.kind == "E11":
                    assert set(e.values) == allowed[e.target]
                if e.effect == "remove":
                    present_t.discard(e.target)


def test_generation_is_deterministic_and_geometry_does_not_change_it():
    cfg = preset_scenario("small-baseline").params
    geo = preset_scenario("geometry-demo").params
    a, b, c = generate(cfg, 9), generate(cfg, 9), generate(geo, 9)
    assert a == b
    assert [u.sensors for u in a.uavs] == [u.sensors for u in c.uavs]
    assert [t.windows for t in a.targets] == [t.windows for t in c.targets]
    assert [(e.time, e.kind) for e in a.events] == [(e.time, e.kind) for e in c.events]
    assert generate(cfg, 10) != a


def test_poisson_population_sizes():
    cfg = preset_scenario("small-baseline", {"event_multiplier": 0.0}).params
    sizes = np.array([(len(m.uavs), len(m.targets)) for m in
                      (generate(cfg, s) for s in range(400))])
    close(sizes[:, 0], 9.0, rounding=0.0)
    close(sizes[:, 1], 14.0, rounding=0.0)
