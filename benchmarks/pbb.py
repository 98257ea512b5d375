"""Preemption-based backfill speed on the paper's surrogate workload (lublin_256 cut to jobs of
at most 32 processors, 64 processors, load 0.8: 8,794 jobs).

    .venv/bin/python benchmarks/pbb.py [--repeat 3] [--seed 0] [--policies a,b] [--explain
        [--explain-limit N]]

Prints, per preset (non-prioritized, Mix A, Mix B) and victim policy: jobs/s of a whole run
(workload build with the accuracy model, scheduling, metrics; the parsed trace reused as the web
worker's cache does) by wall clock and by CPU time of this process (the CPU figure is the
steadier one on a shared machine), preemptions and preemptions/s, full iterations, and the mean
and maximum time per scheduling event. Then the whole 10,000-job trace on 256 processors
(offered load 1.06, over-saturated) as a stress case. Target: >= 10,000 jobs/s with any
victim policy. Asserts nothing; best of ``--repeat`` runs; prints the load average.

``--explain`` runs each policy also with the decision trace (``decisions=DecisionLog()``),
alternating runs without and with it, and prints the second row (``+x``) and the trace's cost
on the whole run (best CPU and wall time of each) and the decisions it kept.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _measure import best, decision_log, limit_flag  # noqa: E402

from scheduling.engine import ENGINE, preset_scenario  # noqa: E402
from scheduling.hpc.traces import TraceLibrary  # noqa: E402
from scheduling.swf_preemptive import simulate_trace  # noqa: E402
from scheduling.swf_preemptive.policies import POLICIES  # noqa: E402
from simcore.clock import RunClock  # noqa: E402

TARGET = 10_000


def table(title: str, preset: str, overrides: dict, policies, seed: int, repeat: int,
          explain: bool = False, limit: int | None = None) -> None:
    config = preset_scenario(preset, overrides).params
    trace = TraceLibrary().load(config.trace)
    print(f"\n{title}  [{preset} {overrides or ''}]")
    print(f"{'policy':<28} {'jobs':>6} {'jobs/s':>9} {'jobs/s cpu':>10} {'run s':>6} "
          f"{'kills':>6} {'kills/s':>8} {'iterations':>10} {'event ms':>9} {'max ms':>7}")
    for name in policies:
        factory = ENGINE.get_policy("swf-preemptive", name).factory

        def once(f=factory, log=False):
            decisions = decision_log(log, limit)
            result = simulate_trace(trace, config, f, seed, RunClock(), decisions=decisions)
            result.decisions = decisions.export()[0] if log else None
            return result

        if not explain:
            show(name, *best(once, repeat))
            continue
        runs = {False: [], True: []}  # alternating, so both see the same machine load
        for _ in range(repeat):
            for log in (False, True):
                runs[log].append(best(lambda log=log: once(log=log), 1))
        (w0, c0, _), (w1, c1, result) = (min(runs[k], key=lambda r: r[1]) for k in runs)
        show(name, w0, c0, runs[False][-1][2])
        show(name + "+x", w1, c1, result)
        print(f"{'':<28} explain overhead: cpu {100 * (c1 / c0 - 1):+.1f}%, wall "
              f"{100 * (w1 / w0 - 1):+.1f}%, {len(result.decisions or [])} decisions kept")


def show(name: str, wall: float, cpu: float, result) -> None:
    s, t = result.summary, result.timing
    jobs = s["jobs_completed"]
    flag = "" if jobs / cpu >= TARGET else "  < target"
    print(f"{name:<28} {jobs:>6} {jobs / wall:>9,.0f} {jobs / cpu:>10,.0f} {wall:>6.2f} "
          f"{s['preemptions']:>6} {s['preemptions'] / cpu:>8,.0f} "
          f"{result.extra['full_iterations']:>10} {t['event_ms_mean']:>9.4f} "
          f"{t['event_ms_max']:>7.2f}{flag}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--policies", default=",".join(name for name, *_ in POLICIES))
    ap.add_argument("--explain", action="store_true",
                    help="also run each with the decision trace and print its cost")
    limit_flag(ap)
    args = ap.parse_args()
    policies = [p for p in args.policies.split(",") if p]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} cores, python {sys.version.split()[0]}; "
          f"target >= {TARGET:,} jobs/s (cpu)")
    t0 = time.perf_counter()
    TraceLibrary().load("lublin_256")
    print(f"parse lublin_256.swf.gz once: {time.perf_counter() - t0:.3f} s")
    table("non-prioritized (Figs. 6-7)", "pbb-surrogate", {}, policies, args.seed, args.repeat,
          args.explain, args.explain_limit)
    table("Mix A: 20% High, 80% Medium (Figs. 8-9)", "pbb-mix-a", {}, policies, args.seed,
          args.repeat, args.explain, args.explain_limit)
    table("Mix B: 20% High, 80% Low (Figs. 10-11)", "pbb-mix-b", {}, policies, args.seed,
          args.repeat, args.explain, args.explain_limit)
    table("stress: all 10,000 jobs on 256 processors, trace arrivals (load 1.06)",
          "pbb-surrogate", {"nodes": 256, "max_procs": 0, "target_load": 0.0}, policies,
          args.seed, args.repeat, args.explain,
          args.explain_limit)
    print(f"\nload average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
