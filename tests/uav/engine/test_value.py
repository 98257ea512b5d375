"""Value accounting on hand-worked missions (surveillance value (ch. 5 spec §2)): full, partial,
split surveils."""

import pytest

H = 24.0


def one(uavsim, uav, target, events=(), policy="max-value", **cfg):
    sim = uavsim.run(uavsim.mission([uav], [target], events), policy, **cfg)
    return sim, sim.surveils


def test_full_surveil_earns_eq1(uavsim):
    # V = priority 4 x affinity 7 x quality 7 = 196 (Table 9/10: UAV 1 on target 2)
    sim, sv = one(uavsim, (1.0, {"VIS": (0.05, 7)}), (4, 3.02, {"VIS": 7}, [(0.0, 10.0)]))
    first = sv[0]
    assert first.reason == "complete"
    assert first.value == 196.0
    assert first.end == pytest.approx(3.02)
    assert first.energy == pytest.approx(0.05 * 3.02)
    # one completed surveil per window (one surveil per window (ch. 5 spec A4)): nothing else starts
    # in [0, 10)
    assert len(sv) == 1


def test_partial_when_window_closes(uavsim):
    # window [0, 1.5) and T_s = 2: 75 % of V = 0.75 * 2*5*4 = 30, then a fresh surveil at 3 h
    sim, sv = one(uavsim, (1.0, {"VIS": (0.1, 4)}),
                  (2, 2.0, {"VIS": 5}, [(0.0, 1.5), (3.0, 10.0)]))
    assert sv[0].reason == "window_end" and sv[0].end == 1.5
    assert sv[0].value == pytest.approx(30.0)
    # mapping event exactly at the window start sees it (same-time ordering (ch. 5 spec A22))
    assert sv[1].start == 3.0
    assert sv[1].reason == "complete" and sv[1].value == pytest.approx(40.0)


def test_partial_when_energy_runs_out(uavsim):
    # E = 0.1 at 0.1/h lasts 1 h of a 2 h surveil: half the value, energy exactly 0
    sim, sv = one(uavsim, (0.1, {"VIS": (0.1, 4)}), (2, 2.0, {"VIS": 5}, [(0.0, 24.0)]))
    assert len(sv) == 1
    assert sv[0].reason == "energy"
    assert sv[0].end == pytest.approx(1.0)
    assert sv[0].value == pytest.approx(20.0)
    assert sim.uav_energy[0] == 0.0  # never below zero, and the UAV is never assigned again


def test_priority_doubled_mid_surveil_is_split(uavsim):
    # Partial surveils (ch. 5 spec §2.3): a 5 h surveil whose priority doubles after 3 h earns 0.6
    # V + 0.4 (2 V).
    ev = uavsim.event(3.0, "E7", target=1, number=4.0)
    sim, sv = one(uavsim, (1.0, {"VIS": (0.01, 5)}), (2, 5.0, {"VIS": 3}, [(0.0, 24.0)]), [ev])
    V = 2 * 3 * 5
    assert sv[0].reason == "complete" and sv[0].end == pytest.approx(5.0)
    assert sv[0].split
    assert sv[0].value == pytest.approx(0.6 * V + 0.4 * 2 * V)


def test_affinity_and_quality_changes_split_value(uavsim):
    # 4 h surveil; quality 5 -> 10 at 1 h, affinity 3 -> 6 at 3 h (E4, E11)
    evs = [uavsim.event(1.0, "E4", uav=1, values={"VIS": 10}),
           uavsim.event(3.0, "E11", target=1, values={"VIS": 6})]
    sim, sv = one(uavsim, (1.0, {"VIS": (0.01, 5)}), (1, 4.0, {"VIS": 3}, [(0.0, 24.0)]), evs)
    expected = 0.25 * 15 + 0.5 * 30 + 0.25 * 60
    assert sv[0].value == pytest.approx(expected)
    assert sv[0].reason == "complete" and sv[0].split


def test_surveil_time_change_keeps_progress(uavsim):
    # Surveil time change mid-surveil (ch. 5 spec A13): T_s 2 -> 4 at 1 h (p = 0.5): the remaining
    # half takes 0.5 * 4 = 2 h, ending at 3 h.
    ev = uavsim.event(1.0, "E8", target=1, number=4.0)
    sim, sv = one(uavsim, (1.0, {"VIS": (0.1, 2)}), (3, 2.0, {"VIS": 5}, [(0.0, 24.0)]), [ev])
    assert sv[0].end == pytest.approx(3.0)
    assert sv[0].value == pytest.approx(30.0)  # V does not depend on T_s
    assert sv[0].energy == pytest.approx(0.3)


@pytest.mark.parametrize("kind, kw, reason", [
    ("E2", {"uav": 1, "effect": "remove"}, "uav_removed"),
    ("E6", {"target": 1, "effect": "remove"}, "target_removed"),
    ("E3", {"uav": 1, "sensor": "VIS"}, "sensor_removed"),
    ("E10", {"target": 1, "sensor": "VIS"}, "type_disallowed"),
])
def test_stopping_events_end_partial(uavsim, kind, kw, reason):
    ev = uavsim.event(0.5, kind, **kw)
    uav = (1.0, {"VIS": (0.1, 4), "IR": (0.1, 1)})
    target = (2, 2.0, {"VIS": 5, "IR": 1}, [(0.0, 24.0)])
    sim, sv = one(uavsim, uav, target, [ev])
    assert sv[0].reason == reason
    assert sv[0].end == 0.5
    assert sv[0].value == pytest.approx(0.25 * 40)
    assert sv[0].split is False


def test_day_end_truncates(uavsim):
    # 2 h of a 3 h surveil before the (truncated) window and the day both end at 22 h
    m = uavsim.mission([(1.0, {"VIS": (0.01, 4)})], [(2, 3.0, {"VIS": 5}, [(20.0, 22.0)])],
                       horizon=22.0)
    sim = uavsim.run(m)
    assert sim.surveils[0].end == 22.0
    assert sim.surveils[0].reason == "day_end"
    assert sim.surveils[0].value == pytest.approx(40 * 2 / 3)


def test_repeat_surveils_when_windows_allow(uavsim):
    m = uavsim.mission([(1.0, {"VIS": (0.01, 4)})], [(2, 2.0, {"VIS": 5}, [(0.0, 7.0)])])
    once = uavsim.run(m)
    again = uavsim.run(m, one_surveil_per_window=False)
    assert [s.reason for s in once.surveils] == ["complete"]
    # back-to-back: 0-2, then the next mapping events at 2, 4; the third is cut at 7 h
    assert [s.start for s in again.surveils] == [0.0, 2.0, 4.0, 6.0]
    assert [s.reason for s in again.surveils] == ["complete"] * 3 + ["window_end"]


def test_a_window_earns_at_most_one_surveil_under_either_reading(uavsim):
    # Target A (V 50, 4 h) is preempted at 1 h by B (V 200, opens at 1 h). New surveil after a
    # partial one (ch. 5 spec A5) default: A's window continues from p = 0.25 (3 h more); the
    # alternative starts afresh (4 h more) and credits the window with its best surveil. Either way
    # A's window earns 50, not 62.5.
    m = uavsim.mission([(1.0, {"VIS": (0.01, 5)})],
                       [(2, 4.0, {"VIS": 5}, [(0.0, 24.0)]), (8, 1.0, {"VIS": 5}, [(1.0, 24.0)])])
    cont = uavsim.run(m, "max-value+p")
    fresh = uavsim.run(m, "max-value+p", after_partial="fresh")
    assert [(s.target, s.end) for s in fresh.surveils] == [(0, 1.0), (1, 2.0), (0, 6.0)]
    assert [(s.target, s.end) for s in cont.surveils] == [(0, 1.0), (1, 2.0), (0, 5.0)]
    a_fresh = [s.value for s in fresh.surveils if s.target == 0]
    a_cont = [s.value for s in cont.surveils if s.target == 0]
    assert a_cont == pytest.approx([12.5, 37.5])
    # fresh: the new surveil earns nothing until it passes the partial one's 12.5
    assert a_fresh == pytest.approx([12.5, 37.5]) and fresh.surveils[2].raw == pytest.approx(50)
    assert cont.surveils[2].reason == "complete" and cont.surveils[2].progress == 1.0


def test_fresh_credits_the_best_surveil_of_a_window(uavsim):
    # UAV 1 (quality 9) on A is removed at 1 h (p = 1/2, earns 45); UAV 2 (quality 2) then
    # completes a fresh A (raw 20): the window keeps its best, 45, and the second earns 0.
    m = uavsim.mission([(1.0, {"VIS": (0.01, 9)}), (1.0, {"VIS": (0.01, 2)})],
                       [(2, 2.0, {"VIS": 5}, [(0.0, 24.0)])],
                       [uavsim.event(1.0, "E2", uav=1, effect="remove")])
    fresh = uavsim.run(m, after_partial="fresh")
    assert [s.value for s in fresh.surveils] == pytest.approx([45.0, 0.0])
    assert fresh.surveils[1].reason == "complete"
    cont = uavsim.run(m)  # continue: UAV 2 finishes the second half at its own quality
    assert [s.value for s in cont.surveils] == pytest.approx([45.0, 10.0])
    assert cont.surveils[1].end == pytest.approx(2.0)
