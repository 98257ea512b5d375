"""SWF replay speed on lublin_256 (10,000 jobs, 256 nodes): jobs per second for each policy.

    .venv/bin/python benchmarks/scheduling_swf.py [--repeat 3] [--trace PATH]
        [--explain [--explain-limit N]]

Prints, per policy: jobs/s of the replay (job preparation + event loop + metrics, the parsed
trace reused as the web worker's cache does) by wall clock and by CPU time of this process
(the machine is shared: CPU time is the steadier figure), the time-averaged queue, and the
whole-run seconds of a cold run that also parses the .gz trace. ``--explain`` prints instead
what recording every decision with its reason costs: each policy's replay with the decision
log off and on, alternating, CPU per whole run (job preparation + loop + metrics + exporting
the log) and the overhead. Otherwise the same with estimates
3x the run times (every completion is early, so conservative compresses its schedule each
time), jobs/s on growing prefixes of the trace, and with arrivals compressed 4x and 20x
(offered load 4.2 and 21) to show throughput does not collapse as the queue grows. Asserts
nothing; best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _measure import best, decision_log, limit_flag, on_off, overhead  # noqa: E402

from scheduling.hpc import traces  # noqa: E402
from scheduling.hpc.swf import read_swf_arrays  # noqa: E402
from scheduling.swf_replay import ReplayConfig, replay  # noqa: E402
from scheduling.swf_replay.policies import Conservative, Easy, Fcfs  # noqa: E402
from simcore.params import from_dict  # noqa: E402

POLICIES = {"fcfs": Fcfs, "easy": Easy, "conservative": Conservative}
TARGETS = {"fcfs": 50_000, "easy": 20_000, "conservative": 2_000}


def default_trace() -> Path:
    shared = REPO.parent / "shared" / "traces" / "lublin_256.swf.gz"
    return shared if shared.is_file() else traces.LIBRARY_DIR / "lublin_256.swf.gz"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", type=Path, default=default_trace())
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--explain", action="store_true",
                    help="measure the decision log's overhead (on vs off) instead")
    limit_flag(ap)
    args = ap.parse_args()
    if args.explain:
        explain_overhead(traces.load_path(args.trace), args.repeat, args.explain_limit)
        return

    parse_s, _, _ = best(lambda: read_swf_arrays(args.trace), args.repeat)
    trace = traces.load_path(args.trace)
    n_jobs = len(trace.columns["job_id"])
    print(f"trace {args.trace} ({n_jobs} jobs, {trace.header.max_nodes} nodes); "
          f"parse {parse_s:.3f} s")

    def table(title: str, options: dict, source=trace) -> None:
        cfg = from_dict(ReplayConfig, options)
        print(f"\n{title}")
        print(f"{'policy':<13} {'jobs/s':>10} {'jobs/s cpu':>10} {'target':>8} {'replay s':>9} "
              f"{'whole s':>8} {'queue mean':>10} {'queue max':>9} {'wait mean h':>11}")
        for name, cls in POLICIES.items():
            wall, cpu, result = best(lambda cls=cls: replay(source, cfg, cls), args.repeat)
            s = result.summary
            jobs = s["jobs_completed"]
            print(f"{name:<13} {jobs / wall:>10,.0f} {jobs / cpu:>10,.0f} {TARGETS[name]:>8,} "
                  f"{wall:>9.3f} {wall + parse_s:>8.3f} {s['queue_mean']:>10.1f} "
                  f"{s['queue_max']:>9} {s['wait_mean_s'] / 3600:>11.2f}")

    table("exact estimates (the trace has no requested times): estimate = run time", {})
    table("estimates = 3 x run time (every completion is early)", {"estimate_scale": 3.0})
    for factor in (4, 20):
        cols = dict(trace.columns)
        cols["submit"] = trace.columns["submit"] / factor
        table(f"arrivals {factor}x faster (offered load {1.06 * factor:.1f}): long queues", {},
              traces.LoadedTrace(trace.name, trace.header, cols))

    print("\njobs/s (cpu) on the first N jobs (queue grows with N under FCFS)")
    sizes = [2500, 5000, 10000]
    print(f"{'policy':<13}" + "".join(f"{n:>10}" for n in sizes) + f"{'queue mean@10k':>16}")
    for name, cls in POLICIES.items():
        row, q = [], 0.0
        for n in sizes:
            cfg = from_dict(ReplayConfig, {"job_limit": n})
            _, cpu, result = best(lambda cls=cls, cfg=cfg: replay(trace, cfg, cls), args.repeat)
            row.append(result.summary["jobs_completed"] / cpu)
            q = result.summary["queue_mean"]
        print(f"{name:<13}" + "".join(f"{v:>10,.0f}" for v in row) + f"{q:>16.1f}")


def explain_overhead(trace, repeat: int, limit: int | None = None) -> None:
    cfg = from_dict(ReplayConfig, {})
    print(f"decision log off vs on, {len(trace.columns['job_id'])} jobs, least CPU s of "
          f"{repeat} alternating runs")
    print(f"{'policy':<13} {'off s':>8} {'on s':>8} {'overhead':>9} {'kept':>8} {'stride':>7}")
    for name, cls in POLICIES.items():
        def run(explain, cls=cls):
            log = decision_log(explain, limit)
            replay(trace, cfg, cls, decisions=log)
            return log.export()[1] if log else None
        (_, off, _), (_, on, info) = on_off(run, repeat)
        print(f"{name:<13} {off:>8.3f} {on:>8.3f} {overhead(off, on):>9} "
              f"{info['recorded']:>8} {info['stride']:>7}")


if __name__ == "__main__":
    main()
