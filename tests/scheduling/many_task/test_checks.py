"""The frontier arithmetic behind the hypothesis checks (headline results (trailing-tasks spec §8)),
on grids built by hand, and one small grid end to end."""

import numpy as np
import pytest

from scheduling.many_task import checks
from scheduling.many_task.checks import MeanGrid


def grid(tts, util, r=(1.0, 2.0, 4.0), f=(0.5, 1.0), max_over_mean=3.0, order="random"):
    return MeanGrid("toy", order, np.asarray(r), np.asarray(f), np.asarray(tts, dtype=float),
                    np.asarray(util, dtype=float), 1, max_over_mean)


def test_best_within_is_the_reachable_staircase():
    tts = np.array([1.0, 2.0, 4.0])
    util = np.array([0.5, 0.7, 0.9])
    got = checks.best_within(tts, util, np.array([0.5, 1.0, 3.0, 10.0]))
    assert np.isnan(got[0]) and got[1:].tolist() == [0.5, 0.7, 0.9]


def test_drawn_frontier_joins_pareto_points_on_a_log_axis():
    tts = np.array([1.0, 4.0, 2.0])
    util = np.array([0.5, 0.9, 0.4])  # (2, 0.4) is dominated by (1, 0.5)
    got = checks.drawn_within(tts, util, np.array([2.0, 8.0]))
    assert got[0] == pytest.approx(0.7)  # halfway between 1 and 4 on a log axis
    assert got[1] == 0.9


def test_gain_is_positive_when_chopped_points_lie_above():
    # rows: f = 0.5 (chopped), f = 1 (no chop); chopped points are slower but much better.
    g = grid([[1.2, 2.2, 4.2], [1.0, 2.0, 4.0]], [[0.8, 0.9, 0.95], [0.5, 0.7, 0.9]])
    gain = checks.frontier_gain(g)
    assert gain["gain"] > 0.05 and gain["gain_steps"] > 0.05 and gain["better_share"] > 0.5
    worse = grid([[1.2, 2.2, 4.2], [1.0, 2.0, 4.0]], [[0.4, 0.6, 0.85], [0.5, 0.7, 0.9]])
    assert checks.frontier_gain(worse)["gain"] < 0


def test_helps_at_r_and_hypothesis_five():
    # max/mean = 3: r = 1 and 2 lie below it, r = 4 above. Chopping helps only at r = 4.
    g = grid([[1.1, 2.1, 4.5], [1.0, 2.0, 4.0]], [[0.45, 0.65, 0.99], [0.5, 0.7, 0.9]],
             order="sorted")
    assert checks.helps_at_r(g).tolist() == [False, False, True]
    check = checks.h5_sorted_ratio({("toy", "sorted"): g})
    assert check.holds and "helps at 0 of 2" in check.ours
    bad = grid([[1.1, 2.1, 4.5], [1.0, 2.0, 4.0]], [[0.9, 0.65, 0.99], [0.5, 0.7, 0.9]],
               order="sorted")
    assert not checks.h5_sorted_ratio({("toy", "sorted"): bad}).holds


def test_ninety_five_percent_claim():
    g = grid([[13.0, 20.0, 40.0], [2.0, 10.0, 30.0]], [[0.96, 0.97, 0.99], [0.6, 0.9, 0.96]])
    assert checks.ninety_five(g).holds
    g2 = grid([[13.0, 20.0, 40.0], [2.0, 10.0, 12.0]], [[0.96, 0.97, 0.99], [0.6, 0.9, 0.96]])
    assert not checks.ninety_five(g2).holds  # no chopping reaches 95% within 14 h too


def test_collect_averages_a_real_grid(monkeypatch):
    from scheduling.engine import ENGINE

    params = checks.grid_params(ENGINE, "many-task-small", **{"tradeoff.ratios": [1.0, 5.0],
                                                              "tradeoff.idle_fractions": [0.5]})
    g = checks.collect(params, "random", range(3), jobs=1, label="small")
    assert g.trials == 3 and g.f.tolist() == [0.5, 1.0] and g.r.tolist() == [1.0, 5.0]
    assert g.tts_h.shape == (2, 2) and np.all((g.utilization > 0) & (g.utilization <= 1))
    # Chopping never shortens the TTS at a fixed r (headline results (trailing-tasks spec §8)).
    assert np.all(g.tts_h[0] >= g.tts_h[1])


def test_low_tts_f_names_the_fastest_f_to_each_target():
    # f = 0.5 reaches every target first here, so the f = 0.8 claim does not hold.
    g = grid([[1.0, 2.0, 4.0], [1.5, 3.0, 6.0]], [[0.8, 0.9, 0.96], [0.7, 0.85, 0.97]])
    check = checks.low_tts_f({("toy", "random"): g})
    assert "80% -> f = 0.5" in check.ours and not check.holds
    g8 = MeanGrid("toy", "random", np.asarray([1.0, 2.0]), np.asarray([0.5, 0.8, 1.0]),
                  np.asarray([[3.0, 6.0], [1.0, 2.0], [0.5, 1.0]]),
                  np.asarray([[0.9, 0.96], [0.9, 0.96], [0.6, 0.7]]), 1, 3.0)
    assert checks.low_tts_f({("toy", "random"): g8}).holds
