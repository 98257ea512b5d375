"""Scenario-set experiments of spec §6.6-§7: % increase in surveillance value over Random.

``python -m uav.engine sweep --axis energy --scenarios 200 --policies meta,meta+p,...``
generates ``scenarios`` missions per sweep point, runs Random and every policy on each, and
prints the mean per-scenario % increase over Random with its 95% CI (scenarios where Random
earns 0 are left out, A23) and the ratio of means as a robustness check.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time

import numpy as np

from scheduling.engine.errors import ScenarioError
from scheduling.engine.params import from_dict, parse_value, set_dotted, to_dict

from .config import UavConfig
from .generate import generate
from .presets import BASELINE, LARGE_SCALE, SWEEPS, large_params

AXES = ("baseline", *SWEEPS)
SEED_STRIDE = 1_000_000  # A26: fresh missions for every sweep point


def points(axis: str, large: bool) -> list[tuple[str, dict]]:
    """(label, params) per point of ``axis``; the large set scales λ_U and λ_T by 10 (A25)."""
    base = large_params() if large else {}
    if axis == "baseline":
        return [("baseline", base)]
    field, _, values = SWEEPS[axis]
    scale = LARGE_SCALE.get(axis, 1) if large else 1
    out = []
    for v in sorted((BASELINE[axis], *values)):
        params = dict(base)
        if axis == "events" and large:
            params[field] = 10.0 * v  # multipliers apply on top of the x10 rates
        else:
            params[field] = float(v) * scale
        out.append((f"{SWEEPS[axis][0]}={params[field]:g}", params))
    return out


def _one(job):
    params, seed, policies = job
    from .environment import simulate_mission  # late: runs in spawned workers too

    cfg = from_dict(UavConfig, params)
    mission = generate(cfg, seed)
    values = {}
    for name in ("random", *policies):
        sim, _ = simulate_mission(mission, cfg, name, seed)
        values[name] = float(sum(s.value for s in sim.surveils))
        if name != "random":
            times = sim.event_seconds
            values[name + "@ms"] = 1000.0 * float(np.mean(times)) if times else 0.0
    return values


def run_point(params: dict, seeds, policies, jobs: int = 1, overrides: dict | None = None
              ) -> list[dict]:
    params = to_dict(from_dict(UavConfig, {**params, "compare_random": False}))
    for key, value in (overrides or {}).items():
        set_dotted(params, key, value)
    to_dict(from_dict(UavConfig, params))  # validate before fanning out
    work = [(params, int(s), tuple(policies)) for s in seeds]
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            return pool.map(_one, work, chunksize=max(1, len(work) // (4 * jobs)))
    return [_one(w) for w in work]


def summarize(rows: list[dict], policies) -> list[dict]:
    from scheduling.engine.stats import mean_ci  # scipy: only when an experiment runs

    out = []
    rand = np.array([r["random"] for r in rows])
    for name in ("random", *policies):
        vals = np.array([r[name] for r in rows])
        ok = rand > 0
        pct = 100.0 * (vals[ok] - rand[ok]) / rand[ok]
        ci = mean_ci(pct.tolist())
        out.append({"policy": name, "n": int(ok.sum()), "mean_value": float(vals.mean()),
                    "pct_over_random": ci["mean"], "half_width": ci["half_width"],
                    "pct_ratio_of_means": 100.0 * (vals.mean() / rand.mean() - 1.0)
                    if rand.mean() > 0 else None,
                    "diff_vs_random": float((vals - rand).mean()),
                    "event_ms_mean": float(np.mean([r.get(name + "@ms", 0.0) for r in rows]))})
    return out


def _add_arguments(parser) -> None:
    parser.add_argument("--axis", choices=AXES, default="baseline")
    parser.add_argument("--large", action="store_true", help="the large set (§6.7)")
    parser.add_argument("--scenarios", type=int, default=100, help="missions per sweep point")
    parser.add_argument("--policies", default="rbs,max-value,max-vpt,max-vpe,meta,meta+p,"
                                              "meta+f,meta+pf",
                        help="comma-separated; Random always runs as the reference")
    parser.add_argument("--seed", type=int, default=0, help="first mission seed")
    parser.add_argument("--same-missions", action="store_true",
                        help="reuse the same seeds at every point (A26 alternative); the "
                             "default draws fresh missions per point")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a parameter at every point (dotted for nested ones)")
    parser.add_argument("--json", help="also write the table as JSON here")


def _run(args) -> int:
    policies = [p for p in args.policies.split(",") if p and p != "random"]
    from . import ENGINE

    for p in policies:
        ENGINE.get_policy("uav", p)
    overrides = {}
    for pair in args.set:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ScenarioError("--set", f"expected key=value, got {pair!r}")
        overrides[key.strip()] = parse_value(value.strip())
    table = []
    for k, (label, params) in enumerate(points(args.axis, args.large)):
        first = args.seed + (0 if args.same_missions else k * SEED_STRIDE)
        seeds = range(first, first + args.scenarios)
        started = time.perf_counter()
        rows = run_point(params, seeds, policies, args.jobs, overrides)
        summary = summarize(rows, policies)
        print(f"\n{label}  ({args.scenarios} scenarios, {time.perf_counter() - started:.1f} s)")
        print(f"  {'policy':<14}{'% over Random':>22}{'ratio of means':>16}{'mean SV':>12}"
              f"{'ms/event':>10}")
        for row in summary:
            hw = row["half_width"]
            pct = "n/a" if row["pct_over_random"] is None else (
                f"{row['pct_over_random']:8.2f} ± {hw:6.2f}" if hw is not None
                else f"{row['pct_over_random']:8.2f}")
            ratio = row["pct_ratio_of_means"]
            print(f"  {row['policy']:<14}{pct:>22}{'' if ratio is None else f'{ratio:.2f}':>16}"
                  f"{row['mean_value']:12.1f}{row['event_ms_mean']:10.3f}")
        table.append({"point": label, "params": params, "overrides": overrides,
                      "rows": summary})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(table, fh, indent=1)
    sys.stdout.flush()
    return 0


def register(engine) -> None:
    engine.command("sweep", help="percent increase over Random on a scenario set (§6.6, §7)",
                   add_arguments=_add_arguments, run=_run)
