"""A column's best is marked only where the paired trials say so (presenters.rank_column)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hetsite.kinds import UNITLESS, Metric
from hetsite.presenters import BEST, INDISTINGUISHABLE, NOT_RANKED, Cell, rank_column
from simcore.stats import paired_diff, verdict

HIGHER = Metric("pct", "share", "%", higher_is_better=True, lower=0, upper=100)
DROPS = Metric("dropped", "tasks dropped", UNITLESS, higher_is_better=False, digits=0, lower=0)


def cells_of(values):
    return {p: Cell(mean=sum(v.values()) / len(v)) for p, v in values.items()}


def test_a_clear_winner_on_every_seed_is_best():
    values = {"a": {0: 80.0, 1: 82.0, 2: 81.0}, "b": {0: 50.0, 1: 53.0, 2: 51.0}}
    cells = cells_of(values)
    rank_column(HIGHER, cells, values)
    assert cells["a"].rank == BEST and cells["b"].rank == ""


def test_a_paired_interval_that_includes_zero_marks_indistinguishable_not_best():
    # a's mean is higher, but a and b swap places from seed to seed.
    values = {"a": {0: 90.0, 1: 20.0, 2: 70.0}, "b": {0: 30.0, 1: 60.0, 2: 65.0},
              "c": {0: 89.0, 1: 19.0, 2: 69.0}}  # 1 below a on every seed: told apart
    cells = cells_of(values)
    rank_column(HIGHER, cells, values)
    assert cells["a"].rank == INDISTINGUISHABLE and cells["b"].rank == INDISTINGUISHABLE
    assert cells["c"].rank == ""
    assert not any(c.best for c in cells.values())


def test_never_doing_a_thing_does_not_win_it():
    # "cannot drop" sits at 0 in every trial; the two that drop are compared among themselves.
    values = {"never": {0: 0.0, 1: 0.0, 2: 0.0}, "few": {0: 3.0, 1: 4.0, 2: 3.0},
              "many": {0: 30.0, 1: 41.0, 2: 35.0}}
    cells = cells_of(values)
    rank_column(DROPS, cells, values)
    assert cells["never"].rank == NOT_RANKED and "not ranked" in cells["never"].note
    assert cells["few"].rank == BEST


def test_a_quantity_with_no_better_side_is_never_ranked():
    values = {"a": {0: 1.0, 1: 2.0}, "b": {0: 9.0, 1: 10.0}}
    cells = cells_of(values)
    rank_column(Metric("energy", "energy of completed tasks", "MJ", higher_is_better=None),
                cells, values)
    assert [c.rank for c in cells.values()] == ["", ""]


# What it checks is the marks, not their speed: a loaded machine must not fail it.
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0, 100)), min_size=1, max_size=6),
       st.booleans())
def test_best_is_marked_exactly_when_the_paired_verdict_holds(pairs, higher):
    metric = Metric("m", "m", UNITLESS, lower=0, upper=100, higher_is_better=higher)
    values = {"a": {s: p[0] for s, p in enumerate(pairs)},
              "b": {s: p[1] for s, p in enumerate(pairs)}}
    cells = cells_of(values)
    rank_column(metric, cells, values)
    if not higher and (all(v == 0 for v in values["a"].values())
                       or all(v == 0 for v in values["b"].values())):
        return  # a side at the bound in every trial is not ranked (tested above)
    top, other = sorted("ab", key=lambda p: cells[p].mean, reverse=higher)
    diff = paired_diff(values[top], values[other])
    holds = verdict(diff["low"], diff["high"], higher) == "holds"
    assert (cells[top].rank == BEST) == holds
    assert cells[other].rank in ("", INDISTINGUISHABLE)
    if not holds:
        assert cells[top].rank == cells[other].rank == INDISTINGUISHABLE
