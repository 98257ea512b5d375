"""UAV engine speed: wall time per mapping event and per run (published numbers (ch. 5 spec §8.1):
the published heuristics took < 10 ms per event on small and < 1 s on large scenarios; our targets
are < 1 ms on small-baseline and < 50 ms on large for Meta+P+F).

    .venv/bin/python benchmarks/uav.py [--small-seeds 20] [--large-seeds 3] [--policies ...]

Per-event times are pooled over all seeds of a preset; "run s" is the mean wall time of one
simulated day (the policy's run only: the internal Random comparison is switched off). Wall
times include waiting for the CPU when other processes compete for it; the "cpu" columns are
the thread's CPU time per event, which load does not inflate. Prints figures; asserts nothing.
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

from uav.engine import preset_scenario, simulate  # noqa: E402

DEFAULT = ("meta+pf,meta+p,meta+f,meta,max-value+pf,max-vpt+pf,max-vpe+pf,max-value,max-vpt,"
           "max-vpe,rbs,random")


def bench(preset: str, policy: str, seeds: int) -> dict:
    sc = preset_scenario(preset, {"compare_random": False})
    per_event, cpu, runs, events = [], [], [], 0
    for seed in range(seeds):
        started = time.perf_counter()
        r = simulate(sc, policy, seed=seed)
        runs.append(time.perf_counter() - started)
        per_event.extend(r.timing["event_ms"])
        cpu.extend(r.timing["event_cpu_ms"])
        events += r.timing["events"]
    ms, c = np.asarray(per_event), np.asarray(cpu)
    return {"mean": ms.mean(), "p95": np.percentile(ms, 95), "max": ms.max(),
            "cpu_mean": c.mean(), "cpu_p95": np.percentile(c, 95), "cpu_max": c.max(),
            "run": float(np.mean(runs)), "events": events}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small-seeds", type=int, default=20)
    ap.add_argument("--large-seeds", type=int, default=3)
    ap.add_argument("--policies", default=DEFAULT)
    args = ap.parse_args(argv)
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
              f"{'run s':>9}{'events':>8}")
        for policy in policies:
            b = bench(preset, policy, seeds)
            print(f"  {policy:<14}{b['mean']:9.3f}{b['p95']:9.3f}{b['max']:9.2f}"
                  f"{b['cpu_mean']:9.3f}{b['cpu_p95']:9.3f}{b['cpu_max']:9.2f}"
                  f"{b['run']:9.3f}{b['events']:8d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
