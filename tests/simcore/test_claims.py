"""The verdict of a published claim on hand-made runs: holds, inconclusive, contradicted, per
point, between two points, lower-is-better, the published size, and a stored record whose
verdict does not follow from its interval."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.claims import Claim, Provenance, Size, evaluate, judge, problems, single_point
from simcore.stats import t_quantile
from simcore.sweep import SweepRun

X = "x"  # the swept parameter of the hand-made sweeps


def runs(values: dict, metric: str = "m") -> list[SweepRun]:
    """{(point, policy): [value per seed]} as runs on seeds 0.., point p's setting {x: p}."""
    return [SweepRun(point, {X: point}, policy, seed, {metric: v})
            for (point, policy), vs in values.items() for seed, v in enumerate(vs)]


def interval(diffs: list[float]) -> tuple[float, float, float]:
    """The 95% t interval of a list, computed here from its definition."""
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def one(claim, data, metric="m") -> dict:
    (record,) = evaluate([claim], runs(data, metric))
    return record


def test_holds_when_the_paired_interval_is_above_zero():
    # the seeds differ a lot (the workload), the difference little: pairing sees it
    data = {(0, "a"): [10.0, 50.0, 90.0, 30.0], (0, "b"): [9.0, 48.5, 89.2, 28.9]}
    record = one(Claim("a", "b", "m"), data)
    mean, low, high = interval([1.0, 1.5, 0.8, 1.1])
    assert record["verdict"] == "holds" and record["n"] == 4 and record["point"] is None
    assert (record["diff_mean"], record["diff_low"], record["diff_high"]) == pytest.approx(
        (mean, low, high))
    assert low > 0


def test_inconclusive_when_the_interval_contains_zero():
    # the means differ (a's is higher) but the differences straddle zero: the old "means" rule
    # called this agreement
    data = {(0, "a"): [60.0, 20.0, 75.0], (0, "b"): [20.0, 30.0, 10.0]}
    record = one(Claim("a", "b", "m"), data)
    assert record["diff_mean"] > 0 and record["diff_low"] < 0 < record["diff_high"]
    assert record["verdict"] == "inconclusive"


def test_contradicted_when_the_interval_is_on_the_other_side():
    data = {(0, "a"): [1.0, 2.0, 3.0], (0, "b"): [3.0, 4.5, 5.2]}
    assert one(Claim("a", "b", "m"), data)["verdict"] == "contradicted"


def test_one_seed_or_identical_runs_decide_nothing():
    assert one(Claim("a", "b", "m"), {(0, "a"): [5.0], (0, "b"): [1.0]})["verdict"] == \
        "inconclusive"
    same = one(Claim("a", "b", "m"), {(0, "a"): [5.0, 6.0], (0, "b"): [5.0, 6.0]})
    assert (same["diff_low"], same["diff_high"], same["verdict"]) == (0.0, 0.0, "inconclusive")


def test_lower_is_better_flips_the_side():
    data = {(0, "a"): [1.0, 2.0, 3.0], (0, "b"): [3.0, 4.5, 5.2]}  # a's waits are shorter
    record = one(Claim("a", "b", "m", lower=True), data)
    assert record["verdict"] == "holds" and record["diff_high"] < 0 and record["lower"]
    assert one(Claim("b", "a", "m", lower=True), data)["verdict"] == "contradicted"


def test_per_point_gives_every_point_its_own_verdict_and_pooling_hides_one():
    data = {(0, "a"): [10.0, 11.0, 12.0], (0, "b"): [5.0, 6.5, 6.0],
            (1, "a"): [10.0, 11.0, 12.0], (1, "b"): [5.5, 6.0, 6.2],
            (2, "a"): [3.0, 4.0, 3.5], (2, "b"): [5.0, 6.0, 5.8]}
    per_point = evaluate([Claim("a", "b", "m", per_point=True)], runs(data))
    assert [(r["point"], r["verdict"]) for r in per_point] == [
        (0, "holds"), (1, "holds"), (2, "contradicted")]
    assert per_point[2]["setting"] == {X: 2}
    pooled = one(Claim("a", "b", "m"), data)
    assert pooled["point"] is None and pooled["verdict"] == "holds"
    # pooled: each seed's differences averaged over the points, then the interval
    by_seed = [sum(data[(p, "a")][s] - data[(p, "b")][s] for p in range(3)) / 3
               for s in range(3)]
    assert pooled["diff_mean"] == pytest.approx(interval(by_seed)[0])


def test_a_claim_at_one_point_and_between_two_points():
    data = {(0, "a"): [10.0, 12.0, 11.0], (1, "a"): [4.0, 5.0, 4.5], (1, "b"): [4.2, 4.8, 4.4]}
    at = one(Claim("a", "b", "m", at={X: 1}), data)
    assert at["point"] == 1 and at["verdict"] == "inconclusive"
    trend = one(Claim("a", "a", "m", at={X: 0}, worse_at={X: 1}), data)
    assert trend["point"] == 0 and trend["worse_point"] == 1 and trend["verdict"] == "holds"
    assert trend["diff_mean"] == pytest.approx((6.0 + 7.0 + 6.5) / 3)
    assert trend["key"] == "a>a m @0~1"


def test_the_published_size_against_our_interval():
    data = {(0, "a"): [12.0, 13.0, 12.5, 12.4], (0, "b"): [10.0, 10.2, 10.1, 9.9]}
    diff = one(Claim("a", "b", "m", size=Size("diff", 2.5)), data)["size"]
    assert diff["verdict"] == "size agrees" and diff["low"] <= 2.5 <= diff["high"]
    far = one(Claim("a", "b", "m", size=Size("diff", 8.0)), data)["size"]
    assert far["verdict"] == "differs"
    ratio = one(Claim("a", "b", "m", size=Size("ratio", 25.0)), data)["size"]
    per_seed = [100 * (a - b) / b for a, b in zip(data[(0, "a")], data[(0, "b")], strict=True)]
    assert ratio["mean"] == pytest.approx(sum(per_seed) / 4) and ratio["verdict"] == "size agrees"
    level = one(Claim("a", "b", "m", size=Size("better", 12.5)), data)["size"]
    assert level["mean"] == pytest.approx(12.475) and level["verdict"] == "size agrees"


def test_each_claim_reads_its_own_metric():
    both = [SweepRun(0, {}, p, s, {"utility": u, "energy": e})
            for p, rows in (("a", [(5.0, 1.0), (6.0, 1.2), (5.5, 1.1)]),
                            ("b", [(3.0, 2.0), (4.0, 2.4), (3.6, 2.2)]))
            for s, (u, e) in enumerate(rows)]
    utility, energy = evaluate([Claim("a", "b", "utility"),
                                Claim("a", "b", "energy", lower=True)], both)
    assert utility["diff_mean"] == pytest.approx((2.0 + 2.0 + 1.9) / 3)
    assert utility["verdict"] == "holds"
    assert energy["diff_mean"] == pytest.approx(-1.1) and energy["verdict"] == "holds"


def test_provenance_travels_with_the_record():
    claim = Claim("a", "b", "m", provenance=(Provenance("calibration", "fitted here"),))
    record = one(claim, {(0, "a"): [2.0, 3.0], (0, "b"): [1.0, 1.5]})
    assert record["provenance"] == [{"kind": "calibration",
                                     "label": "calibration point (in-sample)",
                                     "note": "fitted here"}]
    with pytest.raises(ValueError):
        Provenance("hunch", "no such kind")


def test_a_record_edited_to_disagree_with_its_interval_is_found():
    record = one(Claim("a", "b", "m", size=Size("diff", 1.0)),
                 {(0, "a"): [2.0, 3.0, 2.5], (0, "b"): [1.0, 1.5, 1.2]})
    assert problems(record) == []
    assert any("says 'holds'" in p for p in problems({**record, "verdict": "contradicted"}))
    moved = {**record, "diff_low": -0.5}  # the interval now contains 0
    assert any("says 'inconclusive'" in p for p in problems(moved))
    size = {**record["size"], "verdict": "differs"}
    assert any("size verdict" in p for p in problems({**record, "size": size}))
    assert problems({k: v for k, v in record.items() if k != "n"}) == ["missing n"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=2,
                max_size=12), st.booleans())
def test_the_verdict_always_follows_the_interval(pairs, lower):
    better = {s: a for s, (a, _) in enumerate(pairs)}
    worse = {s: b for s, (_, b) in enumerate(pairs)}
    record = judge(Claim("a", "b", "m", lower=lower), better, worse)
    low, high = record["diff_low"], record["diff_high"]
    if (low > 0 and not lower) or (high < 0 and lower):
        assert record["verdict"] == "holds"
    elif (high < 0 and not lower) or (low > 0 and lower):
        assert record["verdict"] == "contradicted"
    else:
        assert record["verdict"] == "inconclusive"
    assert problems(record) == []
    # swapping the arms mirrors the verdict
    mirrored = judge(Claim("b", "a", "m", lower=lower), worse, better)["verdict"]
    assert mirrored == {"holds": "contradicted", "contradicted": "holds",
                        "inconclusive": "inconclusive"}[record["verdict"]]


@pytest.mark.parametrize("low, high, n, one", [
    (2235.0, 2235.0, 2, True), (0.0, 0.0, 10, True), (1.0, 2.0, 5, False),
    (3.0, 3.0, 1, False), (None, None, 1, False), (None, None, 0, False)])
def test_a_single_point_is_an_interval_of_one_value_from_several_seeds(low, high, n, one):
    assert single_point(low, high, n) is one
