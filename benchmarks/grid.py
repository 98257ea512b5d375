"""grid speed: whole-run seconds and milliseconds per scheduling tick, per scheduler and IAT.

    .venv/bin/python benchmarks/grid.py [--preset grid-main] [--seed 0]
        [--policies internode-can,internode-2nn] [--iats 1.5,2,2.5,4] [--set key=value ...]
        [--repeat 1] [--naive] [--explain [--explain-limit N]]

Runs each scheduler once per IAT on the preset (default: the paper's setting, 1,000 nodes,
5,000 jobs, delta 5 s) and prints, per run: the simulated ticks (every delta up to the last
completion), the ticks that had work (nodes whose neighbourhood changed), wall and CPU
seconds of the run, the mean, 95th percentile and maximum milliseconds of a worked tick, the
mean milliseconds per simulated tick (all scheduling time over all ticks), node visits per
worked tick, and the median wait, preemptions and migrations as a sanity check. Target
(issue 19): one internode CAN' run under 10 s on this machine. ``--naive`` also times the
reference loop that visits every node at every tick (for comparison; slow). ``--explain``
runs every point without and with the decision trace in turn (``_measure.on_off``: one warm-up,
then ``--repeat`` pairs, the best of each) and prints both rows and the trace's overhead on the
whole run's wall and CPU time (target < 25%).
Prints the machine load first; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _measure import decision_log, limit_flag, on_off, overhead  # noqa: E402

from scheduling.engine import list_policies, preset_scenario, simulate  # noqa: E402
from scheduling.grid import neighbours, options  # noqa: E402
from scheduling.grid.sim import GridSim  # noqa: E402
from scheduling.grid.workload import generate  # noqa: E402
from simcore.params import parse_value  # noqa: E402

KIND = "grid"


def run(preset: str, policy: str, seed: int, overrides: dict, explain: bool = False) -> dict:
    sc = preset_scenario(preset, overrides)
    c0, t0 = time.process_time(), time.perf_counter()
    res = simulate(sc, policy, seed=seed, explain=explain)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    t, s = res.timing, res.summary
    worked = max(s["ticks_worked"], 1)
    return {"policy": policy + (" explain" if explain else ""), "iat": sc.params.jobs.iat_s,
            "ticks": s["ticks"], "worked": s["ticks_worked"], "wall": wall, "cpu": cpu,
            "mean": t["event_ms_mean"], "p95": t["event_ms_p95"], "max": t["event_ms_max"],
            "all": t["tick_ms_over_all"], "visits": sum(res.events["visits"]) / worked,
            "median": s["wait_median_s"], "pre": s["preemptions"], "mig": s["migrations"]}


def naive(preset: str, policy: str, seed: int, overrides: dict) -> float:
    from scheduling.engine import get_policy

    cfg = preset_scenario(preset, overrides).params
    sched = get_policy(KIND, policy).build(cfg)
    wl = generate(cfg, seed)
    sim = GridSim(wl, sched, options(cfg), seed, neighbours=neighbours(sched, wl, seed),
                  naive=True)
    t0 = time.perf_counter()
    sim.run()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="grid-main")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--policies", default="fcfs,local,internode-can,internode-2nn",
                    help="comma-separated scheduler names, or 'all'")
    ap.add_argument("--iats", default="1.5,2.5,4", help="comma-separated IATs (s)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--repeat", type=int, default=1, help="runs per point (best is shown)")
    ap.add_argument("--naive", action="store_true",
                    help="also time the loop that visits every node at every tick")
    ap.add_argument("--explain", action="store_true",
                    help="also run with the decision trace on, alternating, and print its "
                         "overhead")
    limit_flag(ap)
    args = ap.parse_args()
    names = ([p.name for p in list_policies(KIND)] if args.policies == "all"
             else args.policies.split(","))
    overrides = {}
    for pair in args.set:
        key, _, value = pair.partition("=")
        overrides[key] = parse_value(value)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f} on {os.cpu_count()} cores; preset {args.preset}, "
          f"seed {args.seed}")
    print(f"{'policy':<18} {'IAT':>4} {'ticks':>6} {'worked':>6} {'wall s':>7} {'cpu s':>6} "
          f"{'ms/wtick':>8} {'p95':>6} {'max':>6} {'ms/tick':>7} {'visits':>6} "
          f"{'med wait':>8} {'preempt':>7} {'migr':>6}" + ("  naive s" if args.naive else ""))
    for iat in [float(x) for x in args.iats.split(",")]:
        for name in names:
            point = {**overrides, "jobs.iat_s": iat}
            if args.explain:  # off and on in turn, under the same changing load
                (w0, c0, off), (w1, c1, on) = on_off(
                    lambda e, n=name, p=point: run(args.preset, n, args.seed, p,
                                                   decision_log(e, args.explain_limit)),
                    max(1, args.repeat))
                off.update(wall=w0, cpu=c0)
                on.update(wall=w1, cpu=c1)
                rows = [off, on]
            else:
                rows = [min((run(args.preset, name, args.seed, point)
                             for _ in range(max(1, args.repeat))), key=lambda row: row["wall"])]
            for r in rows:
                line = (f"{r['policy']:<18} {r['iat']:>4g} {r['ticks']:>6} {r['worked']:>6} "
                        f"{r['wall']:>7.2f} {r['cpu']:>6.2f} {r['mean']:>8.3f} "
                        f"{r['p95']:>6.2f} {r['max']:>6.1f} {r['all']:>7.3f} "
                        f"{r['visits']:>6.1f} {r['median']:>8.0f} {r['pre']:>7} {r['mig']:>6}")
                if args.naive and r is rows[0]:
                    slow = naive(args.preset, name, args.seed, point)
                    line += f"  {slow:7.1f}"
                print(line, flush=True)
            if args.explain:
                print(f"{'':<18} decision trace: {overhead(w0, w1)} wall, {overhead(c0, c1)} "
                      "CPU (target < 25%)", flush=True)

if __name__ == "__main__":
    main()
