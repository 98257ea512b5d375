"""UAV engine speed: wall time per mapping event and per run (published numbers (ch. 5 spec §8.1):
the published heuristics took < 10 ms per event on small and < 1 s on large scenarios; our targets
are < 1 ms on small-baseline and < 50 ms on large for Meta+P+F).

    .venv/bin/python benchmarks/uav.py [--small-seeds 20] [--large-seeds 3] [--policies ...]
        [--explain] [--repeat 1] [--with-random]

Per-event times are pooled over all seeds of a preset; "run s" is the mean wall time of one
simulated day and "cpu s" its process CPU time (the policy's run only: the internal Random
comparison is switched off; ``--with-random`` keeps it, as the presets run by default, so
``--explain`` then gives the trace's cost on the whole run a user waits for, of which the
unexplained Random run is a part). Wall times include waiting for the CPU when other processes
compete for it; the "cpu" columns, which load does not inflate, are the thread's CPU time per
event and the process's per run. ``--explain`` runs every seed
twice, without and with the decision trace, alternating (off, on, off, on, ...), prints both
rows and the trace's overhead on the mean run time (target < 25%). ``--repeat R`` runs each
seed R times in each mode (alternating) and keeps each seed's least run time, as the other
kinds' scripts keep the least of each mode: a machine whose neighbours move single runs by 15
points then moves the figures less. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _measure import overhead  # noqa: E402

from uav.engine import preset_scenario, simulate  # noqa: E402

DEFAULT = ("meta+pf,meta+p,meta+f,meta,max-value+pf,max-vpt+pf,max-vpe+pf,max-value,max-vpt,"
           "max-vpe,rbs,random")


def bench(preset: str, policy: str, seeds: int, modes=(False,), repeat: int = 1,
          with_random: bool = False) -> dict:
    """Figures per explain mode (False: off, True: on); the modes alternate per seed, so a
    change in the machine's load reaches both alike. A seed run ``repeat`` times counts its
    least wall and CPU time (its events: every run's). ``with_random``: the preset as it is,
    its Random reference run included."""
    sc = preset_scenario(preset, {} if with_random else {"compare_random": False})
    acc = {m: {"per_event": [], "cpu": [], "runs": [], "run_cpu": [], "events": 0}
           for m in modes}
    for seed in range(seeds):
        least = {m: (float("inf"), float("inf")) for m in modes}
        for _ in range(repeat):
            for mode in modes:
                a = acc[mode]
                started, cpu0 = time.perf_counter(), time.process_time()
                r = simulate(sc, policy, seed=seed, explain=mode)
                wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
                least[mode] = (min(least[mode][0], wall), min(least[mode][1], cpu))
                a["per_event"].extend(r.timing["event_ms"])
                a["cpu"].extend(r.timing["event_cpu_ms"])
                a["events"] += r.timing["events"]
        for mode in modes:
            acc[mode]["runs"].append(least[mode][0])
            acc[mode]["run_cpu"].append(least[mode][1])
    out = {}
    for mode, a in acc.items():
        ms, c = np.asarray(a["per_event"]), np.asarray(a["cpu"])
        out[mode] = {"mean": ms.mean(), "p95": np.percentile(ms, 95), "max": ms.max(),
                     "cpu_mean": c.mean(), "cpu_p95": np.percentile(c, 95),
                     "cpu_max": c.max(), "run": float(np.mean(a["runs"])),
                     "run_cpu": float(np.mean(a["run_cpu"])), "events": a["events"]}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small-seeds", type=int, default=20)
    ap.add_argument("--large-seeds", type=int, default=3)
    ap.add_argument("--policies", default=DEFAULT)
    ap.add_argument("--explain", action="store_true",
                    help="also run with the decision trace on, alternating, and print its "
                         "overhead")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each seed in each mode; each seed counts its least time")
    ap.add_argument("--with-random", action="store_true",
                    help="run the presets as they are, with the Random reference run behind "
                         "value_vs_random (not explained): the whole run a user waits for, "
                         "where the default times the policy's run alone")
    args = ap.parse_args(argv)
    modes = (False, True) if args.explain else (False,)
    policies = [p for p in args.policies.split(",") if p]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"uav engine benchmark  python {platform.python_version()}  numpy {np.__version__}  "
          f"{platform.machine()}  {os.cpu_count()} cpus  load {load:.2f}")
    for preset, seeds, target in (("small-baseline", args.small_seeds, 1.0),
                                  ("large", args.large_seeds, 50.0)):
        if seeds <= 0:
            continue
        print(f"\n{preset}: {seeds} seeds, target < {target:g} ms mean per event for meta+pf")
        print(f"  {'':<14}{'wall ms per event':>27}{'cpu ms per event':>27}")
        print(f"  {'policy':<14}{'mean':>9}{'p95':>9}{'max':>9}{'mean':>9}{'p95':>9}{'max':>9}"
              f"{'run s':>9}{'cpu s':>9}{'events':>8}")
        for policy in policies:
            figures = bench(preset, policy, seeds, modes, args.repeat, args.with_random)
            for mode, b in figures.items():
                name = policy + (" explain" if mode else "")
                print(f"  {name:<14}{b['mean']:9.3f}{b['p95']:9.3f}{b['max']:9.2f}"
                      f"{b['cpu_mean']:9.3f}{b['cpu_p95']:9.3f}{b['cpu_max']:9.2f}"
                      f"{b['run']:9.3f}{b['run_cpu']:9.3f}{b['events']:8d}", flush=True)
            if args.explain:
                off, on = figures[False], figures[True]
                print(f"  {'':<14}decision trace, on the mean run: "
                      f"{overhead(off['run'], on['run'])} wall, "
                      f"{overhead(off['run_cpu'], on['run_cpu'])} CPU (target < 25%)",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
