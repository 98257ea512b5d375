"""A publication's claims about a figure, and the verdict a set of runs gives each.

A :class:`Claim` says that one policy beats another on a named metric: at one sweep point, at
every point, pooled over the points, or between two points (a level falls as a parameter
grows). Runs on the same seed share their random numbers, so each claim is judged on the
per-seed differences (``stats.paired_diff``) and the one rule of ``stats.verdict``: *holds*
when the 95% interval lies on the claimed side of 0, *contradicted* when it lies on the other,
*inconclusive* otherwise. Where the paper prints a number (:class:`Size`) the record also says
whether it lies inside our interval for that quantity.

Everything here is plain data in, plain data out: the lab, the ``reproduce`` command and the
docs all judge with :func:`evaluate` and re-check a stored record with :func:`problems`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from .stats import mean_ci, paired_diff, verdict

VERDICTS = ("holds", "inconclusive", "contradicted")

#: Why a verdict may not be the out-of-sample test of the text it looks like.
PROVENANCE = {
    "calibration": "calibration point (in-sample)",
    "reading": "reading-dependent",
    "substitute": "substitute input",
    "scaled": "scaled system",
}

#: The quantities a published number may be about, in words.
QUANTITIES = {
    "diff": "difference better − worse",
    "ratio": "(better − worse) / worse, in %",
    "better": "level of the better arm",
    "worse": "level of the worse arm",
}


@dataclass(frozen=True)
class Provenance:
    """What a claim's verdict rests on besides the text: ``kind`` is a key of PROVENANCE."""

    kind: str
    note: str

    def __post_init__(self):
        if self.kind not in PROVENANCE:
            raise ValueError(f"provenance kind {self.kind!r}; known: {', '.join(PROVENANCE)}")

    def public(self) -> dict:
        return {"kind": self.kind, "label": PROVENANCE[self.kind], "note": self.note}


@dataclass(frozen=True)
class Size:
    """A number the paper prints for a claim: ``value`` of ``quantity`` (a key of QUANTITIES)."""

    quantity: str
    value: float

    def __post_init__(self):
        if self.quantity not in QUANTITIES:
            raise ValueError(f"size quantity {self.quantity!r}; known: {', '.join(QUANTITIES)}")


@dataclass(frozen=True)
class Claim:
    """``better`` beats ``worse`` on ``metric`` (is higher, or lower with ``lower``).

    Where: ``at`` a point's setting (the swept parameters' values); ``per_point`` at every
    point, one verdict each; neither, pooled over the points (each seed's differences
    averaged). ``worse_at`` compares the better arm at ``at`` with the worse arm at
    ``worse_at``: the same policy at two points, for claims about a trend.
    """

    better: str
    worse: str
    metric: str
    lower: bool = False
    at: dict | None = None
    per_point: bool = False
    worse_at: dict | None = None
    size: Size | None = None
    provenance: tuple[Provenance, ...] = ()
    note: str = ""  # the claim in the paper's words, when the pair alone does not say it

    def __post_init__(self):
        if self.per_point and (self.at is not None or self.worse_at is not None):
            raise ValueError("a per-point claim names no point")
        if self.worse_at is not None and self.at is None:
            raise ValueError("worse_at needs at (the better arm's point)")

    @property
    def sign(self) -> str:
        return "<" if self.lower else ">"

    def public(self) -> dict:
        return {"better": self.better, "worse": self.worse, "metric": self.metric,
                "lower": self.lower, "at": self.at, "per_point": self.per_point,
                "worse_at": self.worse_at,
                "size": None if self.size is None else {"quantity": self.size.quantity,
                                                        "value": self.size.value},
                "provenance": [p.public() for p in self.provenance], "note": self.note}


def claims(pairs: Iterable[tuple[str, str]], metric: str, **fields) -> list[Claim]:
    """One claim per (better, worse) pair, all on ``metric`` with the same ``fields``."""
    return [Claim(better, worse, metric, **fields) for better, worse in pairs]


def with_provenance(claim: Claim, extra: Sequence[Provenance]) -> Claim:
    """The claim with a figure's own provenance added after the claim's."""
    return replace(claim, provenance=tuple(claim.provenance) + tuple(extra))


def point_of(setting: dict | None, points: Sequence[dict]) -> int:
    """Index of the one point whose setting has every value of ``setting``."""
    found = [i for i, p in enumerate(points) if all(
        name in p and _same(p[name], value) for name, value in (setting or {}).items())]
    if len(found) != 1:
        where = ", ".join(f"{k}={v}" for k, v in (setting or {}).items()) or "no setting"
        raise ValueError(f"{where} matches {len(found)} sweep points, not one")
    return found[0]


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a == b


@dataclass(frozen=True)
class _Runs:
    """Per (point, policy): each seed's value of one metric."""

    points: list[dict]
    values: dict = field(default_factory=dict)

    def arm(self, point: int | None, policy: str) -> dict:
        """{seed: value}; pooled over the points (seeds with a value at every point) for None."""
        if point is not None:
            return self.values.get((point, policy), {})
        per_point = [self.values.get((p, policy), {}) for p in range(len(self.points))]
        seeds = set.intersection(*(set(v) for v in per_point)) if per_point else set()
        return {s: sum(v[s] for v in per_point) / len(per_point) for s in seeds}


def _collect(runs: Sequence, metric: str) -> _Runs:
    settings: dict[int, dict] = {}
    values: dict = {}
    for run in runs:
        settings.setdefault(run.point, run.setting)
        value = run.summary.get(metric)
        if isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.isfinite(value):
            values.setdefault((run.point, run.policy), {})[run.seed] = float(value)
    points = [settings[p] for p in sorted(settings)]
    return _Runs(points, values)


def targets(claim: Claim, points: Sequence[dict]) -> list[tuple[int | None, int | None]]:
    """The (point, worse's point) pairs a claim is judged at; None for pooled."""
    if claim.per_point:
        return [(p, p) for p in range(len(points))]
    if claim.at is None:
        return [(None, None)]
    better = point_of(claim.at, points)
    return [(better, point_of(claim.worse_at, points) if claim.worse_at is not None
             else better)]


def evaluate(claims_: Sequence[Claim], runs: Sequence, confidence: float = 0.95) -> list[dict]:
    """One record per claim and point it is judged at (see :func:`judge`)."""
    by_metric: dict[str, _Runs] = {}
    out = []
    for claim in claims_:
        data = by_metric.get(claim.metric)
        if data is None:
            data = by_metric[claim.metric] = _collect(runs, claim.metric)
        for point, worse_point in targets(claim, data.points):
            out.append(judge(claim, data.arm(point, claim.better),
                             data.arm(worse_point, claim.worse), point, worse_point,
                             data.points, confidence))
    return out


def judge(claim: Claim, better: dict, worse: dict, point: int | None = None,
          worse_point: int | None = None, points: Sequence[dict] = (),
          confidence: float = 0.95) -> dict:
    """The record of one claim from each arm's {seed: value} (paired on the common seeds)."""
    diff = paired_diff(better, worse, confidence)
    record = {
        "key": key(claim, point, worse_point),
        "better": claim.better, "worse": claim.worse, "metric": claim.metric,
        "lower": claim.lower, "point": point,
        "setting": points[point] if point is not None and points else None,
        "n": diff["n"], "diff_mean": diff["mean"], "diff_low": diff["low"],
        "diff_high": diff["high"],
        "verdict": verdict(diff["low"], diff["high"], higher_is_better=not claim.lower),
        "size": None,
        "provenance": [p.public() for p in claim.provenance],
        "note": claim.note,
    }
    if worse_point != point:
        record["worse_point"] = worse_point
        record["worse_setting"] = points[worse_point] if worse_point is not None and points \
            else None
    if claim.size is not None:
        ci = _quantity(claim.size.quantity, better, worse, confidence)
        record["size"] = {"quantity": claim.size.quantity, "published": claim.size.value,
                          "mean": ci["mean"], "low": ci["low"], "high": ci["high"],
                          "verdict": size_verdict(claim.size.value, ci["low"], ci["high"])}
    return record


def key(claim: Claim, point: int | None, worse_point: int | None = None) -> str:
    """``better>worse metric @point`` (``@all`` when pooled, ``@b~w`` across two points)."""
    where = "all" if point is None else str(point)
    if worse_point is not None and worse_point != point:
        where += f"~{worse_point}"
    return f"{claim.better}{claim.sign}{claim.worse} {claim.metric} @{where}"


def _quantity(quantity: str, better: dict, worse: dict, confidence: float) -> dict:
    if quantity == "diff":
        return paired_diff(better, worse, confidence)
    if quantity == "better":
        return mean_ci(list(better.values()), confidence)
    if quantity == "worse":
        return mean_ci(list(worse.values()), confidence)
    seeds = sorted(s for s in better.keys() & worse.keys() if worse[s] != 0)
    return mean_ci([100.0 * (better[s] - worse[s]) / worse[s] for s in seeds], confidence)


def single_point(low: float | None, high: float | None, n: int | None) -> bool:
    """Whether an interval from two or more seeds is one point: every paired difference was
    the same, as when the trials repeat one deterministic instance (a fixed mission; a fixed
    task set in longest-first order). It is that instance's exact difference, not a sample's
    95% interval, and a verdict on it is a verdict about that instance."""
    return low is not None and low == high and (n or 0) >= 2


def size_verdict(published: float, low: float | None, high: float | None) -> str | None:
    """"size agrees" when the published number lies inside our interval, "differs" when not;
    None without an interval (fewer than two seeds)."""
    if low is None or high is None:
        return None
    return "size agrees" if low <= published <= high else "differs"


def problems(record: dict) -> list[str]:
    """What is wrong with a stored record: missing fields, an interval out of order, or a
    verdict (or size verdict) that does not follow from its interval. Empty when sound."""
    missing = [k for k in ("key", "better", "worse", "metric", "lower", "point", "n",
                           "diff_mean", "diff_low", "diff_high", "verdict", "provenance")
               if k not in record]
    if missing:
        return [f"missing {', '.join(missing)}"]
    out = []
    low, mean, high = record["diff_low"], record["diff_mean"], record["diff_high"]
    if record["verdict"] not in VERDICTS:
        out.append(f"verdict {record['verdict']!r} is not one of {', '.join(VERDICTS)}")
    if low is not None and high is not None:
        if not (mean is not None and low <= mean <= high):
            out.append(f"interval {low} .. {high} does not hold its mean {mean}")
    elif record["n"] and record["n"] >= 2 and mean is not None:
        out.append(f"n = {record['n']} but no interval")
    expected = verdict(low, high, higher_is_better=not record["lower"])
    if record["verdict"] != expected:
        out.append(f"verdict {record['verdict']!r} but the interval "
                   f"{_show(low)} .. {_show(high)} says {expected!r}")
    size = record.get("size")
    if size:
        follows = size_verdict(size.get("published"), size.get("low"), size.get("high"))
        if size.get("verdict") != follows:
            out.append(f"size verdict {size.get('verdict')!r} but the published "
                       f"{size.get('published')} against {_show(size.get('low'))} .. "
                       f"{_show(size.get('high'))} says {follows!r}")
    return out


def _show(x) -> str:
    return "none" if x is None else f"{x:.4g}"


#: A challenger's verdict against a published policy, in the words of a comparison; on a
#: metric with no better side, whether it is higher or lower.
STANDING = {"holds": "better", "inconclusive": "indistinguishable", "contradicted": "worse"}
LEVEL = {"holds": "higher", "inconclusive": "indistinguishable", "contradicted": "lower"}


def standing(challengers: Sequence[str], published: Sequence[str],
             metrics: dict[str, bool | None], runs: Sequence,
             confidence: float = 0.95) -> list[dict]:
    """Where each challenger stands against each published policy on each metric, pooled
    over the points (each seed's values averaged over them) and paired by seed, judged by the
    rule of the claims: *better* when the interval of challenger − published lies on the
    metric's better side of 0, *worse* on the other, *indistinguishable* when it contains 0.

    ``metrics`` maps each metric to ``lower`` (True when lower is better, None when neither
    side is better: ``standing`` then says *higher*, *lower* or *indistinguishable*). One
    record per (challenger, published, metric), shaped as :func:`judge`'s with ``standing``.
    """
    out = []
    for metric, lower in metrics.items():
        data = _collect(runs, metric)
        for challenger in challengers:
            for other in published:
                record = judge(Claim(challenger, other, metric, lower=bool(lower)),
                               data.arm(None, challenger), data.arm(None, other), None, None,
                               data.points, confidence)
                record["lower"] = lower
                record["standing"] = (LEVEL if lower is None else STANDING)[record["verdict"]]
                out.append(record)
    return out
