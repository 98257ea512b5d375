"""A column's best is marked only where the paired trials say so (presenters.rank_column)."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hetsite.kinds import UNITLESS, Metric
from hetsite.presenters import BEST, INDISTINGUISHABLE, Cell, rank_column
from simcore.stats import paired_diff, verdict

HIGHER = Metric("pct", "share", "%", higher_is_better=True, lower=0, upper=100)
WAIT = Metric("wait_median_s", "median wait", "s", higher_is_better=False, digits=0, lower=0)


def cells_of(values):
    return {p: Cell(mean=sum(v.values()) / len(v) if v else None) for p, v in values.items()}


def holds(values, a, b, higher):
    diff = paired_diff(values[a], values[b])
    return verdict(diff["low"], diff["high"], higher) == "holds"


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


def test_a_policy_at_zero_in_every_trial_competes_and_wins_when_told_apart():
    # No wait at all in any trial is the best a wait can be: it wins where the others wait.
    values = {"fcfs": {0: 1500.0, 1: 1064.0, 2: 1012.0}, "local": {0: 900.0, 1: 700.0, 2: 650.0},
              "none": {0: 0.0, 1: 0.0, 2: 0.0}}
    cells = cells_of(values)
    rank_column(WAIT, cells, values)
    assert cells["none"].rank == BEST and cells["none"].note == ""
    assert cells["local"].rank == cells["fcfs"].rank == ""


def test_a_policy_at_zero_is_no_less_a_contender_when_the_trials_cannot_tell():
    # The audit's grid-small case (median waits in s, seeds 0-2): local's waits swing so much
    # that local - zero includes 0, so neither is best; FCFS is told apart from the zero one.
    values = {"fcfs": {0: 1500.6, 1: 1063.9, 2: 1012.4}, "local": {0: 652.6, 1: 312.5, 2: 188.7},
              "internode-can": {0: 0.0, 1: 0.0, 2: 0.0}}
    cells = cells_of(values)
    rank_column(WAIT, cells, values)
    assert not holds(values, "internode-can", "local", False)  # the premise
    assert cells["internode-can"].rank == cells["local"].rank == INDISTINGUISHABLE
    assert cells["fcfs"].rank == ""


def test_two_policies_at_zero_in_every_trial_are_indistinguishable():
    values = {"a": {0: 0.0, 1: 0.0, 2: 0.0}, "b": {0: 0.0, 1: 0.0, 2: 0.0},
              "c": {0: 50.0, 1: 51.0, 2: 52.0}}
    cells = cells_of(values)
    rank_column(WAIT, cells, values)
    assert holds(values, "a", "c", False)  # the premise: c waits longer, told apart
    assert [cells[p].rank for p in "abc"] == [INDISTINGUISHABLE, INDISTINGUISHABLE, ""]


def test_a_quantity_with_no_better_side_is_never_ranked():
    values = {"a": {0: 1.0, 1: 2.0}, "b": {0: 9.0, 1: 10.0}}
    cells = cells_of(values)
    rank_column(Metric("energy", "energy of completed tasks", "MJ", higher_is_better=None),
                cells, values)
    assert [c.rank for c in cells.values()] == ["", ""]


def test_every_declared_count_that_ranks_is_a_goal_and_every_diagnostic_declares_no_side():
    """Nothing in the ranker skips a policy at a bound any more: a count where none is better
    must say so in its declaration. The counts the kinds explain their mechanisms with (tasks
    dropped, preemptions and migrations of the grid, jobs rejected, partitions) declare no
    better side; those a paper counts against a policy (jobs killed, CPU lost) rank."""
    from hetsite import kinds

    declared = {(k.kind, m.key): m.higher_is_better for k in kinds.all_kinds()
                for m in k.metrics}
    for key in [("parallel-energy", "tasks_dropped"), ("grid", "preemptions"),
                ("grid", "migrations"), ("swf-replay", "jobs_rejected"),
                ("many-task", "partitions"), ("serial-preemption", "preemptions")]:
        assert declared[key] is None, key
    assert declared["swf-preemptive", "preemptions"] is False
    assert declared["many-task", "wasted_cpu_h"] is False


# Trial values that often sit at a bound (0) or tie, beside arbitrary ones.
VALUE = st.one_of(st.just(0.0), st.just(100.0), st.floats(0, 100),
                  st.integers(0, 3).map(float))


@st.composite
def columns(draw):
    seeds = draw(st.integers(1, 6))
    n = draw(st.integers(2, 5))
    values = {}
    for i in range(n):
        policy = f"p{i}"
        if draw(st.booleans()) and draw(st.booleans()):
            values[policy] = {s: draw(st.sampled_from([0.0, 100.0])) for s in range(seeds)}
        else:
            values[policy] = {s: draw(VALUE) for s in range(seeds)}
        missing = draw(st.sets(st.integers(0, seeds - 1), max_size=max(0, seeds - 1)))
        for s in missing:  # a run that failed: its seed has no value
            values[policy].pop(s)
    return values, draw(st.booleans())


# What it checks is the marks, not their speed: a loaded machine must not fail it.
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=400)
@given(columns())
def test_best_is_marked_exactly_where_every_paired_interval_is_on_the_better_side(column):
    values, higher = column
    metric = Metric("m", "m", UNITLESS, lower=0, upper=100, higher_is_better=higher)
    cells = cells_of(values)
    rank_column(metric, cells, values)
    policies = list(values)
    ranks = {p: cells[p].rank for p in policies}
    assert set(ranks.values()) <= {"", BEST, INDISTINGUISHABLE}
    best = [p for p in policies if ranks[p] == BEST]
    wins = [p for p in policies
            if all(holds(values, p, q, higher) for q in policies if q != p)]
    # Best exactly when every paired interval lies on the better side: never otherwise, and
    # never left unmarked when it does.
    assert best == wins and len(best) <= 1
    if best:
        assert INDISTINGUISHABLE not in ranks.values()
    # No policy better than another in every trial (they share all their seeds) is beaten to
    # "best" by the worse one; a policy at the bound in every trial is no exception.
    for a in policies:
        for b in policies:
            shared = values[a].keys() & values[b].keys()
            if a != b and shared and shared == values[a].keys() == values[b].keys() and all(
                    (values[a][s] > values[b][s]) if higher else (values[a][s] < values[b][s])
                    for s in shared):
                assert ranks[b] != BEST, (a, b)
    if not best:
        # The best mean and the ones it cannot be told from, and no others.
        means = {p: cells[p].mean for p in policies}
        top = (max if higher else min)(means.values())
        marked = {p for p in policies if ranks[p] == INDISTINGUISHABLE}
        leaders = [p for p in policies if means[p] == top and p in marked]
        assert leaders, (means, ranks)
        assert any(marked == {t} | {q for q in policies if q != t
                                    and not holds(values, t, q, higher)}
                   for t in leaders)


def _csv_rows(response):
    import csv
    import io

    body = b"".join(response.streaming_content) if response.streaming else response.content
    return list(csv.DictReader(io.StringIO(body.decode())))


@pytest.mark.django_db
def test_the_grid_page_and_summary_csv_never_call_a_policy_best_that_a_trial_pair_cannot_tell():
    """The audit's case end to end: grid-small, FCFS, local and internode-can, 3 trials from
    seed 0. The summary table and summary.csv mark a policy best in a column only where the
    runs (read back from runs.csv) give every paired interval on the better side."""
    from django.test import Client

    from hetsite import kinds
    from hetsite.services import execution, submission

    sub = submission.validate_submission(kind="grid", preset="grid-small",
                                         policies=["fcfs", "local", "internode-can"], trials=3)
    experiment = submission.create_experiment(sub, dispatch=False)
    for pk in experiment.runs.values_list("pk", flat=True):
        execution.execute_run(pk)
    client = Client()
    runs = _csv_rows(client.get(f"/e/{experiment.public_id}/runs.csv"))
    summary = {r["policy"]: r for r in _csv_rows(client.get(
        f"/e/{experiment.public_id}/summary.csv"))}
    page = client.get(f"/e/{experiment.public_id}/").content.decode()
    lab = kinds.get_kind("grid")
    ranked = [m for m in lab.metrics if m.higher_is_better is not None]
    policies = ["fcfs", "local", "internode-can"]
    for metric in ranked:
        column = next(k for k in runs[0] if k.startswith(f"{metric.key} ("))
        values = {p: {int(r["seed"]): float(r[column]) for r in runs if r["policy"] == p}
                  for p in policies}
        rank = {p: summary[p][f"{metric.label} rank"] for p in policies}
        assert "not ranked" not in rank.values()
        for p in policies:
            others = [q for q in policies if q != p]
            told = all(holds(values, p, q, metric.higher_is_better) for q in others)
            assert (rank[p] == "best") == told, (metric.key, p, rank, values)
    # The audit's column: internode-can waits 0 in every trial, so it is in the running.
    wait = {p: [float(r["wait_median_s (s)"]) for r in runs if r["policy"] == p]
            for p in policies}
    assert wait["internode-can"] == [0.0, 0.0, 0.0]
    assert summary["internode-can"]["median wait rank"] in ("best", "indistinguishable")
    assert summary["local"]["median wait rank"] != "best" or holds(
        {p: dict(enumerate(v)) for p, v in wait.items()}, "local", "internode-can", False)
    # The page says the same as the CSV: its table's data-rank per row of the first column.
    for p in policies:
        row = re.search(rf'<tr data-policy="{re.escape(p)}">(.*?)</tr>', page, re.S).group(1)
        first = re.findall(r'data-rank="([^"]*)"', row)[0]
        assert first == summary[p]["median wait rank"], (p, first)
        assert ("(best)" in row.split("</td>")[1]) == (first == "best")
