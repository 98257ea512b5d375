"""``python -m scheduling.engine many-task-checks``: the paper's hypotheses and claims (headline
results (trailing-tasks spec §8)) checked on the surrogate workloads; prints the table
docs/many-task.md shows."""

from __future__ import annotations

import json
import sys
import time

from simcore.sweep import default_jobs


def add_arguments(parser) -> None:
    parser.add_argument("--trials-935k", type=int, default=10, metavar="N",
                        help="shuffles of real935k per random-order grid (paper: 100; each "
                             "grid run takes seconds)")
    parser.add_argument("--trials-15k", type=int, default=100, metavar="N",
                        help="shuffles of the 15k workloads per random-order grid (paper: 100)")
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help="processes (default: every core)")
    parser.add_argument("--json", metavar="FILE", help="also write the outcomes as JSON here")


def run(args) -> int:
    from scheduling.engine import ENGINE

    from .checks import run_all

    started = time.perf_counter()
    out = run_all(ENGINE, args.trials_935k, args.trials_15k, args.jobs,
                  log=lambda text: print(f"... {text}", file=sys.stderr))
    print("| check | claim | ours | holds |")
    print("|---|---|---|---|")
    for check in out["checks"]:
        print(check.row())
    print()
    print("| DOCK6 run | CPU-h | utilization | TTS (min) |")
    print("|---|---|---|---|")
    for row in out["dock6"]:
        print(f"| {row['preset']} {row['policy']} | {row['allocated_cpu_h']['mean']:,.0f} | "
              f"{row['utilization']['mean']:.1%} | {row['tts_min']['mean']:.1f} |")
    print(f"\n{time.perf_counter() - started:.0f} s with {args.jobs} processes "
          f"(935k: {args.trials_935k} shuffles, 15k: {args.trials_15k})", file=sys.stderr)
    if args.json:
        grids = [{"workload": g.label, "order": g.order, "trials": g.trials, "r": g.r.tolist(),
                  "f": g.f.tolist(), "tts_h": g.tts_h.tolist(),
                  "utilization": g.utilization.tolist()}
                 for g in [*out["grids"].values(), out["coarse"]]]
        data = {"checks": [c.__dict__ for c in out["checks"]], "dock6": out["dock6"],
                "grids": grids}
        with open(args.json, "w") as fh:
            json.dump(data, fh, indent=1)
    return 0 if all(c.holds for c in out["checks"]) else 1
