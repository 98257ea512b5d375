"""``python -m scheduling.engine ch3-sweep``: many (policy, seed, setting) runs, one table.

Used for the calibration of docs/calibration.md and for figure-style experiments (spec §6.2):

    python -m scheduling.engine ch3-sweep --preset ch3-5k --seeds 1-3 \\
        --policies conservative,easy,max-upe-ph --vary utility.time_unit_h=0.08,0.1 --jobs 2

Each row is one (setting, policy) with the mean and the 95% t-interval over the seeds of
% of maximum utility and energy in the analysed day; ``--out`` writes every run's summary as
JSON lines.
"""

from __future__ import annotations

import itertools
import json
import sys
from concurrent.futures import ProcessPoolExecutor

from ..errors import ScenarioError
from ..params import parse_value
from ..stats import mean_ci


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.partition("-")
        out.extend(range(int(lo), int(hi) + 1) if sep else [int(lo)])
    return out


def _one(job):
    preset, overrides, policy, seed = job
    from .. import preset_scenario, simulate

    result = simulate(preset_scenario(preset, overrides), policy, seed=seed)
    return {"preset": preset, "overrides": overrides, "policy": policy, "seed": seed,
            "summary": result.summary, "event_ms_mean": result.timing["event_ms_mean"]}


def add_arguments(parser) -> None:
    parser.add_argument("--preset", required=True)
    parser.add_argument("--policies", required=True, help="comma-separated policy names")
    parser.add_argument("--seeds", default="1-3", help="e.g. 1-8 or 1,4,9")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="fixed override (dotted)")
    parser.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2",
                        help="swept override; several --vary give their product")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--out", help="write one JSON line per run here")


def run(args) -> int:
    fixed = {}
    for pair in args.set:
        key, _, value = pair.partition("=")
        fixed[key] = parse_value(value)
    axes = []
    for pair in args.vary:
        key, _, values = pair.partition("=")
        axes.append([(key, parse_value(v)) for v in values.split(",")])
    settings = [dict(fixed, **dict(combo)) for combo in itertools.product(*axes)] or [fixed]
    policies = [p for p in args.policies.split(",") if p]
    seeds = _seeds(args.seeds)
    jobs = [(args.preset, s, p, seed) for s in settings for p in policies for seed in seeds]
    from .. import preset_scenario

    try:
        for s in settings:
            preset_scenario(args.preset, s)  # validate before starting any run
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                runs = list(pool.map(_one, jobs))
        else:
            runs = [_one(j) for j in jobs]
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        with open(args.out, "w") as fh:
            for r in runs:
                fh.write(json.dumps(r, default=float) + "\n")
    print(f"{'setting':<40} {'policy':<18} {'n':>3} {'% max utility':>17} {'energy GJ':>17}"
          f" {'ms/event':>9}")
    for s in settings:
        for p in policies:
            rows = [r for r in runs if r["overrides"] == s and r["policy"] == p]
            pct = mean_ci([r["summary"]["pct_max_utility"] for r in rows])
            gj = mean_ci([r["summary"]["energy_gj"] for r in rows])
            ms = sum(r["event_ms_mean"] for r in rows) / len(rows)
            label = ", ".join(f"{k}={v}" for k, v in s.items() if k not in fixed) or "-"

            def fmt(ci, digits):
                half = ci["half_width"]
                text = f"{ci['mean']:.{digits}f}"
                return text if half is None else f"{text} ± {half:.{digits}f}"

            print(f"{label:<40} {p:<18} {len(rows):>3} {fmt(pct, 1):>17} {fmt(gj, 4):>17} "
                  f"{ms:>9.1f}")
    return 0


def register(engine) -> None:
    engine.command("ch3-sweep", help="run ch3 policies over seeds and settings; print means",
                   add_arguments=add_arguments, run=run)
