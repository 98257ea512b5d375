"""Value of Service speed: one 26-h trial of the largest environment and ms per mapping event.

    .venv/bin/python benchmarks/vos.py [--preset vos-env-c384] [--policies max-vptr]
        [--seeds 0,1,2] [--set key=value ...] [--explain [--repeat 2]]

Runs each policy on each seed of the preset (default: 384 cores / 256 GB, 1,300-1,500 tasks
over 26 h, 1,560 one-minute mapping events, Max VPTR) and prints, per run: the mapping events,
the mean, 95th percentile and maximum wall time of an event (place-holder erasure, the
heuristic's rounds and its bookings), the mean over the events that had tasks to map, the
mappable tasks summed over events (the rounds of the greedy), the run's wall and CPU seconds
(CPU time of this process is the steadier figure on a shared machine) and its % of maximum VoS
as a sanity check. Target (issue 16): one trial with Max VPTR under 5 s. The load average is
printed with the figures; asserts nothing.

``--explain`` runs each trial with the decision trace off and on in turn, ``--repeat`` times
each, prints both rows (``explain`` column: the best wall and CPU time of each, the decisions
kept) and the trace's overhead on them (target: < 25% per whole run).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
from _measure import on_off, overhead  # noqa: E402

from scheduling.engine import preset_scenario, simulate  # noqa: E402
from simcore.params import parse_value  # noqa: E402
from simcore.sweep import parse_seeds  # noqa: E402

TARGET_S = 5.0


def run(preset: str, policy: str, seed: int, overrides: dict, explain: bool = False) -> dict:
    sc = preset_scenario(preset, overrides)
    c0, t0 = time.process_time(), time.perf_counter()
    res = simulate(sc, policy, seed=seed, explain=explain)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    t = res.timing
    ms = np.asarray(t["event_ms"])
    busy = np.asarray(res.events["mappable"]) > 0
    return {"preset": preset, "policy": policy, "seed": seed, "events": t["events"],
            "mean": t["event_ms_mean"], "p95": t["event_ms_p95"], "max": t["event_ms_max"],
            "busy": float(ms[busy].mean()) if busy.any() else 0.0,
            "rounds": int(np.sum(res.events["mappable"])), "wall": wall, "cpu": cpu,
            "pct": res.summary["pct_max_vos"], "tasks": res.extra["workload"]["tasks"],
            "explain": "on" if explain else "off",
            "decisions": len(res.decisions) if res.decisions is not None else 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="vos-env-c384")
    ap.add_argument("--policies", default="max-vptr", help="comma-separated policy names")
    ap.add_argument("--seeds", default="0", help="e.g. 0-2 or 0,5")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--explain", action="store_true",
                    help="also run with the decision trace on, alternating, and print its "
                         "overhead")
    ap.add_argument("--repeat", type=int, default=2,
                    help="with --explain: how many (off, on) pairs per trial")
    args = ap.parse_args()
    overrides = {}
    for pair in args.set:
        key, _, value = pair.partition("=")
        overrides[key] = parse_value(value)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; target {TARGET_S:.0f} s "
          "per trial")
    print(f"{'preset':<14} {'policy':<10} {'seed':>4} {'tasks':>5} {'events':>6} {'ms mean':>8} "
          f"{'ms busy':>8} {'ms p95':>7} {'ms max':>7} {'rounds':>7} {'wall s':>7} {'cpu s':>6} "
          f"{'%maxVoS':>7}" + (f" {'explain':>7} {'kept':>6}" if args.explain else ""))

    def show(r: dict) -> None:
        print(f"{r['preset']:<14} {r['policy']:<10} {r['seed']:>4} {r['tasks']:>5} "
              f"{r['events']:>6} {r['mean']:>8.3f} {r['busy']:>8.3f} {r['p95']:>7.2f} "
              f"{r['max']:>7.1f} {r['rounds']:>7} {r['wall']:>7.2f} {r['cpu']:>6.2f} "
              f"{r['pct']:>7.1f}" + (f" {r['explain']:>7} {r['decisions']:>6}"
                                     if args.explain else ""), flush=True)

    for policy in args.policies.split(","):
        for seed in parse_seeds(args.seeds):
            if not args.explain:
                show(run(args.preset, policy, seed, overrides))
                continue
            pair = on_off(lambda e, p=policy, s=seed: run(args.preset, p, s, overrides, e),
                          args.repeat)
            for wall, cpu, r in pair:
                show({**r, "wall": wall, "cpu": cpu})
            (w0, c0, _), (w1, c1, _) = pair
            print(f"  decision trace: {overhead(w0, w1)} wall, {overhead(c0, c1)} CPU "
                  f"(best of {args.repeat} each, alternating)", flush=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
