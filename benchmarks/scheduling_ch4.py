"""ch4 speed: milliseconds per mapping event and whole-run seconds per heuristic.

    .venv/bin/python benchmarks/scheduling_ch4.py [--preset ch4-baseline] [--seed 0]
        [--policies max-util-greedy,max-util-pair] [--set key=value ...] [--worst]
        [--explain [--repeat 3]]

Runs each heuristic once on the preset (default: the baseline, 800 cores, ~60,000 tasks/day,
1,680 mapping events) and prints, per heuristic: the mean, 95th percentile and maximum wall
time of a mapping event (completions, arrivals, dropping and the heuristic), the whole run's
wall and CPU seconds (CPU time of this process is the steadier figure on a shared machine),
and the run's % of maximum utility and preemptions as a sanity check. Targets (issue 7):
mean under 50 ms per event for Greedy and Diff, under 500 ms for Pair; the published
implementation needed about 7 s per event in the worst case, and over a minute for Pair.

``--worst`` adds the heaviest sweep points (bursts of 128, critical tasks of 50 min, step
utility functions, 60% flags), each as overrides of ``--preset``, for the preemptive
heuristics. ``--explain`` runs each heuristic without and with the decision
trace (``simulate(..., explain=True)``), alternating ``--repeat`` times, prints the best row of
each (``+x`` marks the one with it) and the trace's cost on the whole run (CPU and wall) and the
decisions it kept. Asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scheduling.engine import list_policies, preset_scenario, simulate  # noqa: E402
from simcore.params import parse_value  # noqa: E402

KIND = "serial-preemption"
TARGET_MS = {"greedy": 50.0, "diff": 50.0, "pair": 500.0}
# The heaviest points of the chapter's sweeps (the per-point presets became figure presets).
WORST = {
    "burst-128": {"workload.burst_size": 128},
    "critical-50": {"etc.critical_mean_min": 50.0},
    "family-step": {"utility.family": "step"},
    "flags-60": {"workload.p_can_preempt": 0.6, "workload.p_preemptible": 0.6},
}


def target(policy: str) -> str:
    tech = policy.removesuffix("+x").rsplit("-", 1)[-1]
    return f"{TARGET_MS[tech]:.0f}" if tech in TARGET_MS else "-"


def run(preset: str, policy: str, seed: int, overrides: dict, label: str = "",
        explain: bool = False) -> dict:
    sc = preset_scenario(preset, overrides)
    c0, t0 = time.process_time(), time.perf_counter()
    res = simulate(sc, policy, seed=seed, explain=explain)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    t = res.timing
    return {"preset": label or preset, "policy": policy + ("+x" if explain else ""),
            "events": t["events"], "mean": t["event_ms_mean"], "p95": t["event_ms_p95"],
            "max": t["event_ms_max"], "wall": wall, "cpu": cpu,
            "pct": res.summary["pct_max_utility"], "pre": res.summary["preemptions"],
            "tasks": res.extra["tasks_generated"],
            "kept": res.meta["decisions"]["recorded"] if explain else 0}


def measure(preset: str, policy: str, seed: int, overrides: dict, label: str,
            explain: bool, repeat: int = 1) -> None:
    """One run, or with ``explain`` runs without and with the decision trace, alternating
    ``repeat`` times (the least CPU time of each kept: the machine's load only adds)."""
    if not explain:
        show(run(preset, policy, seed, overrides, label))
        return
    pairs = [(run(preset, policy, seed, overrides, label),
              run(preset, policy, seed, overrides, label, explain=True)) for _ in range(repeat)]
    off = min((p[0] for p in pairs), key=lambda r: r["cpu"])
    on = min((p[1] for p in pairs), key=lambda r: r["cpu"])
    show(off)
    show(on)
    print(f"{'':<16} explain overhead: cpu {100 * (on['cpu'] / off['cpu'] - 1):+.1f}%, "
          f"wall {100 * (on['wall'] / off['wall'] - 1):+.1f}%, {on['kept']} decisions kept",
          flush=True)


def show(row: dict) -> None:
    print(f"{row['preset']:<16} {row['policy']:<16} {row['events']:>6} {row['mean']:>8.2f} "
          f"{row['p95']:>8.2f} {row['max']:>8.1f} {target(row['policy']):>7} "
          f"{row['wall']:>7.1f} {row['cpu']:>7.1f} {row['pct']:>6.1f} {row['pre']:>7} "
          f"{row['tasks']:>7}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="ch4-baseline")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--policies", default="all",
                    help="comma-separated policy names (default: all ten)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--worst", action="store_true", help="also run the heaviest sweep points")
    ap.add_argument("--explain", action="store_true",
                    help="also run each with the decision trace and print its cost")
    ap.add_argument("--repeat", type=int, default=1,
                    help="with --explain: pairs of runs, the best of each kept")
    args = ap.parse_args()
    names = [p.name for p in list_policies(KIND)] if args.policies == "all" else \
        args.policies.split(",")
    overrides = {}
    for pair in args.set:
        key, _, value = pair.partition("=")
        overrides[key] = parse_value(value)

    print(f"{'preset':<16} {'policy':<16} {'events':>6} {'ms mean':>8} {'ms p95':>8} "
          f"{'ms max':>8} {'target':>7} {'wall s':>7} {'cpu s':>7} {'%maxU':>6} {'preempt':>7} "
          f"{'tasks':>7}")
    for name in names:
        measure(args.preset, name, args.seed, overrides, "", args.explain, args.repeat)
    if args.worst:
        for label, point in WORST.items():
            for name in names:
                if name.rsplit("-", 1)[-1] in TARGET_MS:
                    measure(args.preset, name, args.seed, {**overrides, **point}, label,
                            args.explain, args.repeat)


if __name__ == "__main__":
    main()
