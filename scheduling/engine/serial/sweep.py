"""``python -m scheduling.engine ch4-sweep``: the spec's experiments from the command line.

Runs presets x policies x trials (seed = trial number, so every policy and every sweep point
of a trial sees the same random numbers), in parallel processes, writes one CSV row per run
(spec §15.3) and prints the mean with its 95% confidence interval per (preset, policy), as
Figs. 36-40 plot them.
"""

from __future__ import annotations

import csv
import sys
from concurrent.futures import ProcessPoolExecutor

from .. import ENGINE
from ..params import parse_value
from ..stats import mean_ci
from .environment import KIND

COLUMNS = ["preset", "policy", "seed", "utility", "max_utility", "pct_max_utility",
           "tasks_total", "tasks_completed", "pct_tasks_completed", "critical_total",
           "critical_completed", "pct_critical_completed", "utility_critical",
           "utility_noncritical", "preemptions", "tasks_dropped", "event_ms_mean",
           "event_ms_max", "wall_s"]
SHOWN = [("pct_max_utility", "%maxU"), ("pct_critical_completed", "%crit"),
         ("pct_tasks_completed", "%done"), ("preemptions", "preempt")]


def run_one(job: tuple) -> dict:
    preset, policy, seed, overrides = job
    res = ENGINE.simulate(ENGINE.preset_scenario(preset, overrides), policy, seed=seed)
    row = {"preset": preset, "policy": policy, "seed": seed}
    row.update({k: res.summary[k] for k in COLUMNS if k in res.summary})
    row.update({k: res.timing[k] for k in ("event_ms_mean", "event_ms_max", "wall_s")})
    return row


def _add_arguments(p) -> None:
    p.add_argument("--presets", default="ch4-baseline",
                   help="comma-separated presets (default ch4-baseline)")
    p.add_argument("--policies", default="all", help="comma-separated policies (default all)")
    p.add_argument("--trials", type=int, default=4, help="seeds 0..N-1 (the spec uses 64)")
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1, help="parallel processes")
    p.add_argument("--csv", help="write one row per run here")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a parameter of every preset")


def _run(args) -> int:
    presets = args.presets.split(",")
    policies = ([p.name for p in ENGINE.list_policies(KIND)] if args.policies == "all"
                else args.policies.split(","))
    overrides = {}
    for pair in args.set:
        key, _, value = pair.partition("=")
        overrides[key.strip()] = parse_value(value.strip())
    for name in presets:  # fail fast on a bad preset, policy or override
        ENGINE.preset_scenario(name, overrides)
    for name in policies:
        ENGINE.get_policy(KIND, name)
    jobs = [(pr, po, args.first_seed + k, overrides) for pr in presets for po in policies
            for k in range(args.trials)]
    rows = []
    fh = open(args.csv, "w", newline="") if args.csv else None  # noqa: SIM115
    try:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS) if fh else None
        if writer:
            writer.writeheader()
        pool = ProcessPoolExecutor(max_workers=args.jobs) if args.jobs > 1 else None
        results = pool.map(run_one, jobs) if pool else map(run_one, jobs)
        for row in results:  # in job order; each row is written as soon as it is known
            rows.append(row)
            if writer:
                writer.writerow(row)
                fh.flush()
        if pool:
            pool.shutdown()
    finally:
        if fh:
            fh.close()
    print(f"{'preset':<18} {'policy':<16} " + " ".join(f"{label:>16}" for _, label in SHOWN))
    for pr in presets:
        for po in policies:
            cells = []
            for key, _ in SHOWN:
                ci = mean_ci([r[key] for r in rows if r["preset"] == pr and r["policy"] == po])
                half = ci["half_width"]
                cells.append(f"{ci['mean']:>9.2f} ± {half:<4.2f}" if half is not None
                             else f"{ci['mean']:>16.2f}")
            print(f"{pr:<18} {po:<16} " + " ".join(f"{c:>16}" for c in cells))
    sys.stdout.flush()
    return 0


ENGINE.command("ch4-sweep", help="run ch4 presets x policies x trials; mean and 95%% CI",
               add_arguments=_add_arguments, run=_run)
