"""many-task speed: whole runs of real935k (934,710 tasks) and the 15k workloads, the paper's
trade-off grids, and greedy dispatch alone.

    .venv/bin/python benchmarks/manytask.py [--repeat 3] [--quick] [--explain [--explain-limit N]]

Prints, best of ``--repeat`` (wall clock and CPU time of this process; the machine is shared,
CPU time is the steadier figure):

* one real935k run per policy at r = 5 (f = 0.8 for the chopping ones) and at r = 1, f = 0.5
  (more chops), with the partitions simulated and their mean wall time (the "mapping events"
  of this kind); target < 2 s;
* one run of real15k and of synth15k per policy (DOCK6 setting, r = 5, f = 0.5); target
  < 20 ms;
* the whole Fig. 4 grid (36 r x 10 f settings, sorted order) as one run of fig4-real935k,
  and the same in random order; target < 2 min;
* one fig6 run of each 15k workload (the same grid; 100 of them make the lab's default
  experiment);
* greedy list scheduling of 934,710 tasks alone (block algorithm against the heap loop).

``--explain`` runs every single run above with the decision trace off and on in turn
(``--repeat`` pairs) and prints both rows (``explain off`` / ``explain on``, with the decisions
kept) and the trace's overhead (target: < 25% per whole run); the grids and greedy dispatch
alone are then skipped (the trace explains the run's own schedule, not the grid).

Asserts nothing. ``--quick`` skips the random-order 935k grid and the heap comparison.
``--figures`` instead runs every figure preset of the kind as the sweep runner would (its
preset, overrides, axes, policies and trials on ``--jobs`` processes) and prints its wall
time against the 10-minute budget of figure presets.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from heapq import heapify, heapreplace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
from _measure import best, decision_log, limit_flag, on_off, overhead  # noqa: E402

from scheduling.engine import preset_scenario, scenario, simulate  # noqa: E402
from scheduling.many_task.sim import greedy_starts  # noqa: E402
from scheduling.many_task.workload import load  # noqa: E402

POLICIES = ("random", "sorted", "random+chop", "sorted+chop")


def cpu_with_children() -> float:
    """CPU seconds of this process and its finished children (the sweep's worker pool)."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def load_text() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def heap_starts(d: np.ndarray, m: int) -> np.ndarray:
    s = np.zeros(d.size)
    free = d[:m].tolist()
    heapify(free)
    s[m:] = [heapreplace(free, free[0] + x) for x in d[m:].tolist()]
    return s


def runs(label: str, make, policies, repeat: int, unit: str = "s",
         explain: bool = False, limit: int | None = None) -> None:
    scale = 1000.0 if unit == "ms" else 1.0
    for policy in policies:
        if explain:
            measured = on_off(lambda e, p=policy: simulate(make(), p, seed=1,
                                                           explain=decision_log(e, limit)),
                              repeat)
        else:
            measured = [best(lambda p=policy: simulate(make(), p, seed=1), repeat)]
        for wall, cpu, res in measured:
            t = res.timing
            trace = "" if not explain else (
                " | explain off" if res.decisions is None else
                f" | explain on, {len(res.decisions):,} decisions kept, sampling "
                f"{res.meta['decisions']['sampling']}")
            print(f"  {label:<28} {policy:<12} {wall * scale:9.3f} {unit} wall "
                  f"{cpu * scale:9.3f} {unit} CPU | {t['events']:3d} partitions, "
                  f"{t['event_ms_mean']:8.2f} ms mean | TTS {res.summary['tts_h']:6.2f} h, "
                  f"utilization {res.summary['utilization']:.3f}{trace}")
        if explain:
            (w0, c0, _), (w1, c1, _) = measured
            print(f"  {'':<28} {'':<12} decision trace: {overhead(w0, w1)} wall, "
                  f"{overhead(c0, c1)} CPU", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--figures", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--explain", action="store_true",
                    help="single runs only, each with the decision trace off and on")
    limit_flag(ap)
    args = ap.parse_args()
    print(f"many-task benchmark: Python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs, {load_text()}")
    if args.figures:
        figures(args.jobs)
        return

    print("\none real935k run (934,710 tasks), target < 2 s")
    real = {"workload": {"source": "real935k"}}
    ex = args.explain
    runs("r = 5, f = 0.8", lambda: scenario("many-task", {**real, "chop": {"r": 5, "f": 0.8}}),
         POLICIES, args.repeat, explain=ex, limit=args.explain_limit)
    runs("r = 1, f = 0.5", lambda: scenario("many-task", {**real, "chop": {"r": 1, "f": 0.5}}),
         ("random+chop", "sorted+chop"), args.repeat, explain=ex, limit=args.explain_limit)
    runs("Fig. 1: 163,840 workers", lambda: preset_scenario("fig1-real935k"), ("random",),
         args.repeat, explain=ex, limit=args.explain_limit)

    print("\none 15k run (DOCK6 setting, r = 5, f = 0.5), target < 20 ms")
    for name in ("real15k", "synth15k"):
        runs(name, lambda n=name: scenario("many-task", {"workload": {"source": n},
                                                         "chop": {"r": 5, "f": 0.5}}),
             POLICIES, max(args.repeat, 5), unit="ms", explain=ex, limit=args.explain_limit)
    if ex:
        print(f"\n{load_text()}")
        return

    print(f"\ntrade-off grids (36 r x 10 f) in one run; {load_text()}")
    grid_policies = ("sorted",) if args.quick else ("sorted", "random")
    for policy in grid_policies:
        wall, cpu, res = best(lambda p=policy: simulate(preset_scenario("fig4-real935k"), p,
                                                        seed=1), 1)
        print(f"  Fig. 4 real935k {policy:<8} {wall:7.1f} s wall {cpu:7.1f} s CPU | "
              f"{res.extra['partitions_simulated']} partitions simulated for 360 settings; "
              "target < 120 s")
    for name in ("real15k", "synth15k"):
        for policy in ("random", "sorted"):
            wall, cpu, res = best(lambda n=name, p=policy: simulate(
                preset_scenario(f"fig6-{n}"), p, seed=1), args.repeat)
            print(f"  Fig. 6 {name:<9} {policy:<8} {wall * 1000:7.0f} ms wall "
                  f"{cpu * 1000:7.0f} ms CPU | {res.extra['partitions_simulated']} partitions")

    print("\ngreedy list scheduling alone, 934,710 tasks")
    from scheduling.many_task.config import WorkloadParams
    from simcore.params import from_dict

    d = load(from_dict(WorkloadParams, {"source": "real935k"}), 0).runtimes
    orders = {"random": d, "sorted": np.sort(d)[::-1].copy()}
    for order, arr in orders.items():
        for m in (256, 16384, 163840):
            wall, cpu, _ = best(lambda a=arr, k=m: greedy_starts(a, k), args.repeat)
            line = f"  {order:<7} {m:>7,} workers: block {wall * 1000:7.1f} ms"
            if not args.quick:
                hw, _, _ = best(lambda a=arr, k=m: heap_starts(a, k), 1)
                line += f", heap loop {hw * 1000:7.1f} ms"
            print(f"{line} ({arr.size / wall / 1e6:.1f} M tasks/s)")
    print(f"\n{load_text()}")


def figures(jobs: int) -> None:
    """Each figure preset as the sweep runner runs it; figures that share their runs (Figs. 4,
    5 and 7 plot the same grid) are timed once."""
    from scheduling.engine import ENGINE
    from simcore.sweep import sweep

    timed: dict = {}
    for fig in ENGINE.list_figures("many-task"):
        key = (fig.preset, repr(sorted(fig.overrides.items())), fig.axes, fig.policies,
               fig.trials)
        if key in timed:
            print(f"  {fig.name:<26} same runs as {timed[key]}")
            continue
        timed[key] = fig.name
        t0, c0 = time.perf_counter(), cpu_with_children()
        done = sweep(ENGINE, ENGINE.preset_scenario(fig.preset, fig.overrides),
                     axes=fig.axes, policies=fig.policies, seeds=range(fig.trials), jobs=jobs)
        wall, cpu = time.perf_counter() - t0, cpu_with_children() - c0
        print(f"  {fig.name:<26} {len(done):6,d} runs {wall:7.1f} s wall on {jobs} processes, "
              f"{cpu:7.1f} CPU-s (so about {cpu / jobs / 60:.1f} min on {jobs} idle cores); "
              f"{load_text()}", flush=True)


if __name__ == "__main__":
    main()
