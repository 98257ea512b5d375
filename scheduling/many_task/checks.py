"""The paper's hypotheses and headline claims (headline results (trailing-tasks spec §8)) as checks
on simulated trade-off grids.

A :class:`MeanGrid` is a trade-off grid (every r x every f, plus no chopping) averaged over
trials. The frontier comparisons read a grid the way the paper reads its Figs. 4 and 6: the
*frontier* of a set of (TTS, utilization) points is the best utilization reachable within each
TTS budget; chopping "improves the frontier" when the chopped points' frontier lies above the
no-chopping one on average over the TTS budgets both reach (log-spaced, as the paper's log
axis). ``python -m scheduling.engine many-task-checks`` runs them all and prints the outcomes
docs/many-task.md reports.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from simcore.params import set_dotted, to_dict
from simcore.stats import mean_ci

from .config import INTREPID_MENU, PAPER_IDLE_FRACTIONS, PAPER_RATIOS

#: A frontier gain below this (utilization, mean over TTS budgets) counts as no improvement.
MIN_GAIN = 0.005


@dataclass(frozen=True)
class MeanGrid:
    """A trade-off grid averaged over trials: arrays indexed [f][r], f ends with 1 (no chop)."""

    label: str
    order: str
    r: np.ndarray
    f: np.ndarray
    tts_h: np.ndarray
    utilization: np.ndarray
    trials: int
    max_over_mean: float

    def row(self, f: float) -> int:
        return int(np.flatnonzero(np.isclose(self.f, f))[0])

    @property
    def no_chop(self) -> tuple[np.ndarray, np.ndarray]:
        i = self.row(1.0)
        return self.tts_h[i], self.utilization[i]

    @property
    def chopped(self) -> tuple[np.ndarray, np.ndarray]:
        rows = self.f < 1.0
        return self.tts_h[rows].ravel(), self.utilization[rows].ravel()


def _grid_run(job) -> tuple[np.ndarray, np.ndarray, float]:
    package, params, policy, seed = job
    engine = importlib.import_module(package)
    result = engine.simulate({"kind": "many-task", "params": params}, policy=policy, seed=seed)
    g = result.extra["tradeoff"]
    return (np.asarray(g["tts_s"], dtype=float) / 3600.0, np.asarray(g["utilization"]),
            result.summary["max_over_mean"])


def collect(params: dict, order: str, seeds: Sequence[int], jobs: int = 1,
            label: str = "") -> MeanGrid:
    """Run the grid of ``params`` (a many-task parameter dict with ``tradeoff.ratios``) for
    each seed with the given order and average it."""
    work = [("scheduling.engine", params, order, s) for s in seeds]
    if jobs > 1 and len(work) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            out = list(pool.map(_grid_run, work))
    else:
        out = [_grid_run(w) for w in work]
    fractions = [*params["tradeoff"]["idle_fractions"], 1.0]
    fractions = list(dict.fromkeys(fractions))
    return MeanGrid(label or params["workload"]["source"], order,
                    np.asarray(params["tradeoff"]["ratios"], dtype=float),
                    np.asarray(fractions, dtype=float),
                    np.mean([o[0] for o in out], axis=0), np.mean([o[1] for o in out], axis=0),
                    len(out), out[0][2])


def best_within(tts: np.ndarray, util: np.ndarray, budgets: np.ndarray) -> np.ndarray:
    """The best utilization among points with TTS <= each budget (NaN where none)."""
    order = np.argsort(tts, kind="stable")
    best = np.maximum.accumulate(util[order])
    k = np.searchsorted(tts[order], budgets, side="right") - 1
    return np.where(k >= 0, best[np.maximum(k, 0)], np.nan)


def drawn_within(tts: np.ndarray, util: np.ndarray, budgets: np.ndarray) -> np.ndarray:
    """The frontier as a figure draws it: the Pareto points (no other point is both faster
    and better) joined by straight lines on a log TTS axis, flat after the last one (NaN
    before the first)."""
    order = np.argsort(tts, kind="stable")
    t, u = tts[order], util[order]
    keep = u > np.concatenate([[-np.inf], np.maximum.accumulate(u)[:-1]])
    t, u = t[keep], u[keep]
    line = np.interp(np.log(budgets), np.log(t), u)
    return np.where(budgets < t[0], np.nan, line)


def frontier_gain(grid: MeanGrid, points: int = 200) -> dict:
    """How far the chopped points' frontier lies above the no-chopping one, over the TTS
    budgets (log-spaced) from where both have a point to the longest TTS of either.

    Two readings: ``gain`` compares the frontiers as drawn (Pareto points joined by lines, as
    the paper's curves are read); ``gain_steps`` compares what is reachable (the best point
    within each budget), which favours the dense chopped set over the few distinct
    no-chopping partitions.
    """
    ta, ua = grid.no_chop
    tb, ub = grid.chopped
    lo = max(ta.min(), tb.min())
    hi = max(ta.max(), tb.max())
    budgets = np.geomspace(lo, hi, points) if hi > lo else np.array([lo])
    drawn = drawn_within(tb, ub, budgets) - drawn_within(ta, ua, budgets)
    steps = best_within(tb, ub, budgets) - best_within(ta, ua, budgets)
    return {"gain": float(np.mean(drawn)), "gain_steps": float(np.mean(steps)),
            "better_share": float(np.mean(drawn > MIN_GAIN)), "from_h": float(lo),
            "to_h": float(hi)}


def min_tts_for(tts: np.ndarray, util: np.ndarray, target: float) -> float | None:
    """The shortest TTS among points reaching ``target`` utilization (None if none)."""
    ok = util >= target
    return float(tts[ok].min()) if ok.any() else None


@dataclass(frozen=True)
class Check:
    name: str
    claim: str
    ours: str
    holds: bool

    def row(self) -> str:
        return f"| {self.name} | {self.claim} | {self.ours} | {'yes' if self.holds else 'NO'} |"


# -- the checks --------------------------------------------------------------------------------

def h1_low_r(grids: dict) -> Check:
    """Hypothesis 1: chopping leaves utilization lower at low r than at high r."""
    parts, holds = [], True
    for (label, order), g in grids.items():
        if order != "random":
            continue
        rows = g.f < 1.0
        low, high = g.utilization[rows][:, 0], g.utilization[rows][:, -1]
        ok = bool(np.all(low < high))
        holds &= ok
        parts.append(f"{label}: with chopping {low.min():.1%}-{low.max():.1%} at r = "
                     f"{g.r[0]:g} vs {high.min():.1%}-{high.max():.1%} at r = {g.r[-1]:g}")
    return Check("H1 low r", "chopping does not solve low utilization at low task/worker "
                             "ratios", "; ".join(parts), holds)


def h2_min_allocation(full: MeanGrid, coarse: MeanGrid, min_size: int) -> Check:
    """Hypothesis 2: a high minimum allocation hurts small workloads."""
    best_full = float(full.utilization.max())
    best_coarse = float(coarse.utilization.max())
    return Check("H2 minimum allocation",
                 f"small workloads cannot reach high utilization when the smallest partition "
                 f"is large ({min_size:,} cores)",
                 f"{full.label}, random: best utilization {best_coarse:.1%} with partitions "
                 f">= {min_size:,} vs {best_full:.1%} with the full menu (>= 256)",
                 best_coarse < best_full - 0.05)


def h3_skew(g15: MeanGrid, gsyn: MeanGrid) -> Check:
    """Hypothesis 3: chopping helps most with skewed, long-tailed run times."""
    a, b = frontier_gain(g15), frontier_gain(gsyn)
    return Check("H3 skew", "chopping helps most with skewed, long-tailed run times "
                            "(synth15k vs real15k, random order)",
                 f"frontier gain {b['gain']:+.2%} (reachable {b['gain_steps']:+.2%}) for "
                 f"{gsyn.label} (CoV 1.0) vs {a['gain']:+.2%} ({a['gain_steps']:+.2%}) for "
                 f"{g15.label} (CoV 0.25)",
                 b["gain"] > a["gain"] + MIN_GAIN)


def h4_sorting(grids: dict) -> Check:
    """Hypothesis 4: chopping helps more without sorting."""
    parts, holds = [], True
    for label in dict.fromkeys(lbl for lbl, _ in grids):
        if (label, "random") not in grids or (label, "sorted") not in grids:
            continue
        gr = frontier_gain(grids[(label, "random")])
        gs = frontier_gain(grids[(label, "sorted")])
        holds &= gr["gain"] > gs["gain"]
        parts.append(f"{label}: {gr['gain']:+.2%} random vs {gs['gain']:+.2%} sorted "
                     f"(reachable {gr['gain_steps']:+.2%} vs {gs['gain_steps']:+.2%})")
    return Check("H4 sorting", "chopping helps more without sorting (frontier gain)",
                 "; ".join(parts), holds)


def helps_at_r(g: MeanGrid) -> np.ndarray:
    """Per r: does some chopped point at this r lie above the no-chopping frontier?"""
    ta, ua = g.no_chop
    rows = g.f < 1.0
    out = np.zeros(g.r.size, dtype=bool)
    for j in range(g.r.size):
        tb, ub = g.tts_h[rows][:, j], g.utilization[rows][:, j]
        front = best_within(ta, ua, tb)
        out[j] = bool(np.any(ub > np.nan_to_num(front, nan=-1.0) + MIN_GAIN))
    return out


def h5_sorted_ratio(grids: dict) -> Check:
    """Hypothesis 5: with sorting, chopping does not help when max/mean > r."""
    parts, holds = [], True
    for (label, order), g in grids.items():
        if order != "sorted":
            continue
        helps = helps_at_r(g)
        below = g.r < g.max_over_mean
        n_below, n_above = int(below.sum()), int((~below).sum())
        h_below, h_above = int(helps[below].sum()), int(helps[~below].sum())
        holds &= h_below == 0
        parts.append(f"{label} (max/mean {g.max_over_mean:.1f}): helps at {h_below} of "
                     f"{n_below} r below max/mean, {h_above} of {n_above} at or above")
    return Check("H5 sorted, max/mean > r",
                 "with sorting, chopping does not help when max_len / mean_len > r",
                 "; ".join(parts), holds)


def frontier_claims(grids: dict) -> list[Check]:
    out = []
    gains = {k: frontier_gain(g) for k, g in grids.items()}
    expect = {"real935k": True, "synth15k": True, "real15k": False}
    parts, holds = [], True
    for label, improves in expect.items():
        if (label, "random") not in gains:
            continue
        g = gains[(label, "random")]
        got = g["gain"] > MIN_GAIN
        holds &= got == improves
        parts.append(f"{label}: {g['gain']:+.2%} (better at {g['better_share']:.0%} of "
                     f"budgets; reachable {g['gain_steps']:+.2%})")
    out.append(Check("frontier, random order", "chopping improves the frontier for synth15k "
                     "and real935k, not for real15k (Figs. 4, 6)", "; ".join(parts), holds))
    parts, holds = [], True
    for (label, order), g in gains.items():
        if order == "sorted":
            holds &= g["gain"] <= MIN_GAIN
            parts.append(f"{label}: {g['gain']:+.2%} (reachable {g['gain_steps']:+.2%})")
    out.append(Check("frontier, sorted order", "with longest-first order chopping gives "
                     "comparable or worse utilization at a given TTS", "; ".join(parts), holds))
    return out


def fixed_r_claims(grids: dict) -> list[Check]:
    """At a fixed r chopping always raises the TTS and raises utilization widely."""
    parts_t, parts_u, holds_t, holds_u = [], [], True, True
    for (label, order), g in grids.items():
        t0, u0 = g.no_chop
        rows = g.f < 1.0
        changed = g.tts_h[rows] != t0  # settings where a chop happened at all
        longer = (g.tts_h[rows] >= t0)[changed]
        higher = (g.utilization[rows] > u0)[changed]
        holds_t &= bool(longer.all())
        share = float(higher.mean()) if higher.size else 0.0
        holds_u &= share >= 0.5
        parts_t.append(f"{label} {order}: {longer.mean():.0%}")
        parts_u.append(f"{label} {order}: {share:.0%}")
    return [Check("TTS at fixed r", "enabling chopping always increases the TTS (share of "
                                    "(r, f) that chopped where TTS grew)",
                  "; ".join(parts_t), holds_t),
            Check("utilization at fixed r", "chopping raises utilization over a wide range of "
                                            "(r, f), all workloads (share that chopped where "
                                            "utilization rose)", "; ".join(parts_u), holds_u)]


def ninety_five(g: MeanGrid) -> Check:
    t0, u0 = g.no_chop
    tb, ub = g.chopped
    no = min_tts_for(t0, u0, 0.95)
    yes = min_tts_for(tb, ub, 0.95)
    rows = g.f < 1.0
    fs = [float(f) for i, f in enumerate(g.f[rows]) if (
        (g.utilization[rows][i] >= 0.95) & (g.tts_h[rows][i] <= 14.0)).any()]
    no_text = f"{no:.1f} h" if no is not None else "never"
    yes_text = f"{yes:.1f} h" if yes is not None else "never"
    return Check("95% within 13-14 h", "several f reach 95% utilization within 13-14 h, "
                 "impossible without chopping (real935k, random)",
                 f"shortest TTS at >= 95%: {yes_text} with chopping (f = "
                 f"{', '.join(f'{f:g}' for f in fs) or 'none'} within 14 h) vs {no_text} "
                 "without", bool(fs) and (no is None or no > 14.0))


def low_tts_f(grids: dict, targets=(0.8, 0.85, 0.9, 0.95)) -> Check:
    """'For a low TTS, f = 0.8 looks good: its curves bulge furthest left': per utilization
    target, the chopping f whose points reach it soonest (random order)."""
    parts, wins = [], []
    for (label, order), g in grids.items():
        if order != "random":
            continue
        best = []
        for target in targets:
            times = {float(f): min_tts_for(g.tts_h[i], g.utilization[i], target)
                     for i, f in enumerate(g.f) if f < 1.0}
            reached = {f: t for f, t in times.items() if t is not None}
            best.append(f"{min(reached, key=reached.get):g}" if reached else "-")
            wins.extend([min(reached, key=reached.get)] if reached else [])
        parts.append(f"{label}: " + ", ".join(f"{t:.0%} -> f = {b}" for t, b in
                                             zip(targets, best, strict=True)))
    share = float(np.mean([w == 0.8 for w in wins])) if wins else 0.0
    return Check("f = 0.8 for low TTS", "for a low TTS f = 0.8 looks good (its curves bulge "
                 "furthest left); no single f is best", "fastest f to each utilization: "
                 + "; ".join(parts), share >= 0.5)


def single_runs(engine, trials: int) -> list[Check]:
    """Figs. 1-2 and the DOCK6 experiment from plain runs of the presets."""
    runs = [engine.simulate(engine.preset_scenario("fig1-real935k"), "random", seed=s).summary
            for s in range(trials)]
    mk = mean_ci([r["makespan_s"] for r in runs])
    fig1 = Check("Fig. 1 makespan", "random greedy on 163,840 workers ends at 7,828 s",
                 f"{mk['mean']:,.0f} s ± {mk['half_width'] or 0:,.0f} (from ready; "
                 f"{trials} shuffles, range {min(r['makespan_s'] for r in runs):,.0f}-"
                 f"{max(r['makespan_s'] for r in runs):,.0f})",
                 abs(mk["mean"] - 7828) / 7828 < 0.05)
    runs = [engine.simulate(engine.preset_scenario("fig2-real935k"), "random", seed=s).summary
            for s in range(trials)]
    u = mean_ci([r["utilization"] for r in runs])
    t = mean_ci([r["tts_h"] for r in runs])
    fig2 = Check("Fig. 2 16K workers", "about 16K workers give > 90% utilization at TTS "
                 "about 12 h (random order)",
                 f"16,384 workers: {u['mean']:.1%} utilization, TTS {t['mean']:.1f} h",
                 u["mean"] > 0.9 and abs(t["mean"] - 12.0) < 1.0)
    return [fig1, fig2]


def dock6(engine, trials: int) -> tuple[Check, list[dict]]:
    rows = []
    for preset in ("dock6", "dock6-requeue"):
        for policy in ("random", "random+chop"):
            if preset == "dock6-requeue" and policy == "random":
                continue
            s = [engine.simulate(engine.preset_scenario(preset), policy, seed=i).summary
                 for i in range(trials)]
            rows.append({"preset": preset, "policy": policy,
                         **{k: mean_ci([x[k] for x in s]) for k in
                            ("allocated_cpu_h", "utilization", "tts_min")}})
    plain, chop = rows[0], rows[1]
    ours = (f"{plain['allocated_cpu_h']['mean']:,.0f} CPU-h, "
            f"{plain['utilization']['mean']:.1%}, {plain['tts_min']['mean']:.1f} min without; "
            f"{chop['allocated_cpu_h']['mean']:,.0f} CPU-h, {chop['utilization']['mean']:.1%}, "
            f"{chop['tts_min']['mean']:.1f} min with")
    holds = (chop["utilization"]["mean"] > plain["utilization"]["mean"]
             and chop["allocated_cpu_h"]["mean"] < plain["allocated_cpu_h"]["mean"]
             and chop["tts_min"]["mean"] > plain["tts_min"]["mean"])
    return Check("DOCK6 experiment", "r = 5, f = 0.5: 1,251 CPU-h, 83.7%, 39.6 min without; "
                 "1,179 CPU-h, 89.0%, 87.7 min with chopping", ours, holds), rows


def grid_params(engine, preset: str, **overrides) -> dict:
    data = to_dict(engine.preset_scenario(preset).params)
    data["tradeoff"] = {"ratios": list(PAPER_RATIOS),
                        "idle_fractions": list(PAPER_IDLE_FRACTIONS)}
    for key, value in overrides.items():
        set_dotted(data, key, value)
    return data


def run_all(engine, trials_935k: int = 10, trials_15k: int = 100, jobs: int = 1,
            log=print) -> dict:
    """Every check; returns {"checks": [Check], "grids": {...}, "dock6": rows}."""
    grids = {}
    for label, preset, trials in (("real935k", "real935k", trials_935k),
                                  ("real15k", "fig6-real15k", trials_15k),
                                  ("synth15k", "fig6-synth15k", trials_15k)):
        params = grid_params(engine, preset)
        for order, seeds in (("random", range(trials)), ("sorted", range(1))):
            log(f"grid {label} {order} x {len(seeds)}")
            grids[(label, order)] = collect(params, order, seeds, jobs, label)
    coarse_menu = [s for s in INTREPID_MENU if s >= 2048]
    log("grid real15k random, partitions >= 2,048")
    coarse = collect(grid_params(engine, "fig6-real15k", **{"machine.partitions": coarse_menu}),
                     "random", range(trials_15k), jobs, "real15k")
    checks = [h1_low_r(grids), h2_min_allocation(grids[("real15k", "random")], coarse, 2048),
              h3_skew(grids[("real15k", "random")], grids[("synth15k", "random")]),
              h4_sorting(grids), h5_sorted_ratio(grids), *frontier_claims(grids),
              *fixed_r_claims(grids), ninety_five(grids[("real935k", "random")]),
              low_tts_f(grids)]
    log("single runs: Figs. 1-2, DOCK6")
    checks += single_runs(engine, min(trials_935k, 10))
    d6, rows = dock6(engine, trials_15k)
    checks.append(d6)
    return {"checks": checks, "grids": grids, "coarse": coarse, "dock6": rows}
