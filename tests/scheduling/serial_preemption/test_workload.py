"""ETC matrices, utility families and the bursty workload of ch4 (task types and ETC to utility
functions (ch. 4 spec §3-5))."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.engine import preset_scenario
from scheduling.serial_preemption.etc import generate_etc
from scheduling.serial_preemption.ufast import FastUtility
from scheduling.serial_preemption.utility import build_table, generate_classes
from scheduling.serial_preemption.workload import generate
from simcore.sampling import rng

# Table 8 of the dissertation (Table I of the paper): minutes, task types 1-4 x clusters A-C.
TABLE8 = np.array([[50.0, 56.0, 37.0],
                   [43.0, 51.0, 85.0],
                   [12.0, 6.0, 23.0],
                   [51.0, 45.0, 96.0]])


def fastest_cluster(etc) -> np.ndarray:
    """Index of the fastest cluster of every task type (lowest index on ties)."""
    return np.argmin(np.asarray(etc, dtype=float), axis=1)


def is_inconsistent(etc) -> bool:
    """The inconsistency detector of tests (ch. 4 spec §15.2): no single cluster is fastest for
    every task type (inconsistent heterogeneity)."""
    return bool(np.unique(fastest_cluster(etc)).size > 1)


def FLAGS(p: float) -> dict:  # noqa: N802  (reads like a preset name in the tests)
    return {"workload.p_can_preempt": p, "workload.p_preemptible": p}


def test_table8_is_inconsistent():
    assert fastest_cluster(TABLE8).tolist() == [2, 0, 1, 1]  # C, A, B, B
    assert is_inconsistent(TABLE8)
    assert not is_inconsistent(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 9.0]]))


def test_etc_text_mode_keeps_reference_time_in_cluster_0():
    nominal = np.array([10.0] * 200 + [50.0] * 800)
    etc, q = generate_etc(np.random.default_rng(0), nominal, 5, 0.1, 0.3, "text")
    assert np.array_equal(etc[:, 0], q)
    crit, non = etc[:200], etc[200:]
    assert crit.mean() == pytest.approx(10.0, rel=0.03)
    assert non.mean() == pytest.approx(50.0, rel=0.03)
    # Row heterogeneity: COV 0.3 across clusters 1..4 around q_k.
    rel = etc[:, 1:] / q[:, None]
    assert rel.std() == pytest.approx(0.3, rel=0.1)
    # [DERIVED] min over the row / row mean is about 0.71 in text mode.
    ratio = (etc.min(axis=1) / etc.mean(axis=1)).mean()
    assert ratio == pytest.approx(0.71, abs=0.03)
    assert is_inconsistent(etc)


def test_etc_classic_mode_draws_every_cluster():
    nominal = np.full(2000, 50.0)
    etc, q = generate_etc(np.random.default_rng(1), nominal, 5, 0.1, 0.3, "classic")
    assert not np.any(etc[:, 0] == q)
    assert (etc.min(axis=1) / etc.mean(axis=1)).mean() == pytest.approx(0.68, abs=0.03)


def test_baseline_volume_and_critical_share():
    """~60,000 tasks per 24 h on 800 cores, 20% critical (volume and oversubscription
    (ch. 4 spec §4.1), critical vs. non-critical tasks (ch. 4 spec §4.2))."""
    cfg = preset_scenario("ch4-baseline", {"workload.burst_size": 1}).params
    per_day, crit = [], []
    for seed in range(3):
        wl = generate(cfg, seed)
        per_day.append(wl.n_tasks * 1440 / 1680)
        crit.append(wl.critical.mean())
    assert np.mean(per_day) == pytest.approx(60_000, rel=0.01)
    assert np.mean(crit) == pytest.approx(0.20, abs=0.01)


def test_bursts_share_type_arrival_and_utility_and_sizes_follow_b():
    wl = generate(preset_scenario("ch4-baseline").params, 4)
    sizes = np.bincount(wl.burst)
    assert sizes.min() >= 32 and sizes.max() <= 96
    assert sizes.mean() == pytest.approx(64, abs=3)
    for attr in ("type", "arrival", "urow", "scale"):
        col = getattr(wl, attr)
        assert np.all(col == col[np.searchsorted(wl.burst, wl.burst)]), attr
    assert np.all(np.diff(wl.arrival) >= 0)
    assert np.all(wl.arrival >= 0) and np.all(wl.arrival < 1680)
    # Baseline: both flags on every task; the groups are the bursts.
    assert wl.can_preempt.all() and wl.preemptible.all()
    assert wl.group_start.size == sizes.size


def test_flags_are_per_task_and_groups_are_contiguous():
    cfg = preset_scenario("ch4-baseline", FLAGS(0.4)).params
    wl = generate(cfg, 2)
    assert wl.can_preempt.mean() == pytest.approx(0.4, abs=0.02)
    assert wl.preemptible.mean() == pytest.approx(0.4, abs=0.02)
    # Independent flags: all four combinations occur in about the product proportions.
    both = (wl.can_preempt & wl.preemptible).mean()
    assert both == pytest.approx(0.16, abs=0.02)
    for a, b in zip(wl.group_start.tolist(), wl.group_end.tolist(), strict=True):
        assert len(set(wl.burst[a:b].tolist())) == 1
        assert wl.can_preempt[a:b].all() or not wl.can_preempt[a:b].any()
        assert wl.preemptible[a:b].all() or not wl.preemptible[a:b].any()
    assert wl.group_start[0] == 0 and np.all(wl.group_start[1:] == wl.group_end[:-1])


def test_sweeps_share_random_numbers():
    """The flag sweep only switches flags on: a task flagged at 20% is flagged at 60%."""
    lo = generate(preset_scenario("ch4-baseline", FLAGS(0.2)).params, 5)
    hi = generate(preset_scenario("ch4-baseline", FLAGS(0.6)).params, 5)
    assert np.array_equal(lo.arrival, hi.arrival) and np.array_equal(lo.type, hi.type)
    for flag in ("can_preempt", "preemptible"):
        per_burst_lo = np.bincount(lo.burst, weights=getattr(lo, flag))
        per_burst_hi = np.bincount(hi.burst, weights=getattr(hi, flag))
        assert np.all(per_burst_lo <= per_burst_hi)
        assert per_burst_lo.sum() < per_burst_hi.sum()


def _util(table, row, scale, x):
    return float(table.value(row, scale, 1.0, x))


def test_step_family_inclusive_windows():
    p = preset_scenario("ch4-baseline", {"utility.family": "step"}).params.utility
    avg = np.array([10.0, 50.0])
    table, _ = build_table(p, avg, np.array([True, False]))
    assert _util(table, 0, 8.0, 0.0) == 8.0
    assert _util(table, 0, 8.0, 10.0) == 8.0
    assert _util(table, 0, 8.0, 10.0 + 1e-9) == 0.0
    assert _util(table, 1, 1.0, 500.0) == 1.0
    assert _util(table, 1, 1.0, 500.001) == 0.0
    assert table.zero_time(0) == 10.0 and table.zero_time(1) == 500.0


def test_decay_family_flat_then_decays_200_min():
    p = preset_scenario("ch4-baseline", {"utility.family": "decay"}).params.utility
    table, _ = build_table(p, np.array([12.0]), np.array([True]))
    assert _util(table, 0, 8.0, 0.0) == 8.0
    assert _util(table, 0, 8.0, 12.0) == 8.0
    assert _util(table, 0, 8.0, 22.0) == pytest.approx(8.0 * np.exp(-0.3))
    assert _util(table, 0, 8.0, 212.0) == pytest.approx(8.0 * np.exp(-6.0))
    assert _util(table, 0, 8.0, 212.01) == 0.0
    xs = np.linspace(0, 250, 500)
    assert np.all(np.diff(table.value(0, 8.0, 1.0, xs)) <= 0)
    fast = preset_scenario("ch4-decay-fast").params.utility
    table, _ = build_table(fast, np.array([12.0]), np.array([True]))
    assert _util(table, 0, 8.0, 22.0) == pytest.approx(8.0 * np.exp(-3.0))


def test_twenty_classes_fixed_monotone_and_start_at_s():
    p = preset_scenario("ch4-baseline").params.utility
    classes = generate_classes(p)
    assert len(classes) == 20
    assert generate_classes(p) == classes  # one table for every trial
    avg = np.array([7.0, 45.0])
    table, _ = build_table(p, avg, np.array([True, False]))
    xs = np.linspace(0, 800, 2000)
    for row in range(len(table)):
        u = table.value(row, 8.0, 1.0, xs)
        assert u[0] == 8.0
        assert np.all(np.diff(u) <= 1e-12)
        zero = float(table.zero_time(row))
        assert _util(table, row, 8.0, zero) == 0.0 and _util(table, row, 8.0, zero - 1e-6) > 0
    ends = [sum(c.lengths) for c in classes]
    assert min(ends) >= 20 and max(ends) <= 300
    assert any(c.lead_in > 0 for c in classes) and any(c.lead_in == 0 for c in classes)


def test_classes_after_average_are_flat_for_the_types_average_time():
    """class_start = after-average: every class earns S up to E_k (and up to its own lead-in if
    longer), then decays with the same shape as the arrival reading, shifted."""
    p = preset_scenario("ch4-baseline", {"utility.class_start": "after-average"}).params.utility
    base = preset_scenario("ch4-baseline").params.utility
    avg = np.array([10.0, 50.0])
    table, classes = build_table(p, avg, np.array([True, False]))
    arrival, _ = build_table(base, avg, np.array([True, False]))
    for k, c in enumerate(classes):
        for i, e in enumerate(avg):
            row = k * len(avg) + i
            lead = max(1.0, c.lead_in) * e
            assert _util(table, row, 8.0, lead) == 8.0
            assert _util(table, row, 8.0, lead + 5.0) < 8.0
            # after the flat part the decay is the arrival reading's, moved by the lead-in
            shift = lead - c.lead_in * e
            for x in (1.0, 17.0, 60.0):
                assert _util(table, row, 8.0, lead + x) == pytest.approx(
                    _util(arrival, row, 8.0, c.lead_in * e + x))
    assert shift >= 0


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["step", "decay", "classes"]))
def test_fast_utility_matches_the_shared_table(seed, family):
    over = {"utility.class_start": "after-average"} if seed % 2 else {}
    p = preset_scenario("ch4-baseline", {"utility.family": family, **over}).params.utility
    gen = rng(seed, "test")
    avg = gen.uniform(5, 60, size=6)
    table, _ = build_table(p, avg, gen.random(6) < 0.3)
    fast = FastUtility(table)
    rows = gen.integers(0, len(table), size=40)
    scale = gen.uniform(0.5, 8, size=40)
    x = gen.uniform(-10, 500, size=(7, 40))
    x[0, :] = table.zero_time(rows)  # exactly at the zero time
    x[1, :] = np.repeat(table.bounds[rows, 1][None, :], 1, axis=0)  # at an interval edge
    np.testing.assert_allclose(fast.value(rows, scale, x), table.value(rows, scale, 1.0, x),
                               rtol=1e-12, atol=0)
