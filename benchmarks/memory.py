"""Peak memory per run: every preset of every kind, each run in its own process.

A run here is what a worker does with one message: build the scenario, simulate, serialize
the result JSON (``run --out``). Its peak resident set size comes from the kernel's
accounting of that child (wait4 ``ru_maxrss``), so runs never share a figure. Target: under
300 MB per run for every preset (issue 15). Also printed: wall and CPU seconds per run.

By default each preset runs with the policies that carry the most state in its kind (below);
``--policies all`` runs every registered policy (slow), ``--kind`` and ``--preset`` narrow it.
``--set KEY=VALUE`` overrides a parameter of every run (as ``run --set``: a scenario at a
validation cap), and then the peak VmData is printed too (polled every 20 ms): the private
writable memory that a worker's HETSITE_RUN_MEMORY_MB limits (docs/reliability.md).

    python benchmarks/memory.py [--jobs 2] [--kind parallel-energy] [--policies all]
    python benchmarks/memory.py --kind uav --preset large --policies random \
        --set uavs_mean=2000 --set targets_mean=5000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _measure import REPO, machine, measure

sys.path.insert(0, str(REPO))

TARGET_MB = 300.0
ENGINES = ("scheduling.engine", "uav.engine")
# Per kind: the Min-Min / metaheuristic, Pair and filtering variants keep the largest state.
REPRESENTATIVE = {
    "parallel-energy": ["max-upe-ph", "meta-task+epr"],
    "swf-replay": ["conservative"],
    "serial-preemption": ["max-util-pair"],
    "uav": ["meta+pf"],
}


def plan(args) -> list[tuple[str, str, str, str]]:
    """(engine package, kind, preset, policy) of every run to measure."""
    import importlib

    out = []
    for package in ENGINES:
        engine = importlib.import_module(package).ENGINE
        for kind in engine.list_kinds():
            name = getattr(kind, "name", kind)
            if args.kind and name not in args.kind:
                continue
            policies = [p.name for p in engine.list_policies(name)]
            if args.policies == "all":
                chosen = policies
            elif args.policies:
                chosen = args.policies.split(",")
            else:
                chosen = REPRESENTATIVE.get(name, policies[:1])
            for preset in engine.list_presets(name):
                if args.preset and preset.name not in args.preset:
                    continue
                out.extend((package, name, preset.name, p) for p in chosen if p in policies)
    return out


def run_one(job, tmp: Path, overrides: list[str]) -> dict:
    package, kind, preset, policy = job
    out = tmp / f"{preset}-{policy}.json".replace("+", "_")
    sets = [arg for kv in overrides for arg in ("--set", kv)]
    m = measure([sys.executable, "-m", package, "run", "--preset", preset, "--policy", policy,
                 "--seed", "1", "--out", str(out), *sets], data=bool(overrides))
    out.unlink(missing_ok=True)
    return {"kind": kind, "preset": preset, "policy": policy, "ok": m.ok,
            "error": (m.stderr or m.stdout).strip()[-200:], "rss_mb": m.max_rss_mb,
            "data_mb": m.peak_data_mb, "wall_s": m.wall_s, "cpu_s": m.cpu_s}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1, help="runs measured at once (memory is per "
                                                        "process either way)")
    ap.add_argument("--kind", action="append", help="only this kind (repeatable)")
    ap.add_argument("--preset", action="append", help="only this preset (repeatable)")
    ap.add_argument("--policies", help="comma-separated policies, or 'all' (default: the "
                                       "kind's most stateful ones)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a parameter of every run (repeatable); prints peak VmData")
    args = ap.parse_args()
    jobs = plan(args)
    print(f"Peak memory per run, {len(jobs)} runs, each its own process (target < "
          f"{TARGET_MB:.0f} MB)")
    print(f"machine: {machine()}")
    if args.set:
        print(f"with {' '.join(args.set)}")
    header = (f"{'kind':<18} {'preset':<22} {'policy':<16} {'peak MB':>8} "
              f"{'data MB':>8} {'wall s':>8} {'cpu s':>8}")
    print(header)
    print("-" * len(header))
    rows = []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for r in pool.map(lambda job: run_one(job, Path(tmp), args.set), jobs):
            rows.append(r)
            if not r["ok"]:
                print(f"{r['kind']:<18} {r['preset']:<22} {r['policy']:<16} FAILED: {r['error']}")
                continue
            flag = "" if r["rss_mb"] < TARGET_MB else "  OVER TARGET"
            data = f"{r['data_mb']:>8.0f}" if r["data_mb"] is not None else f"{'-':>8}"
            print(f"{r['kind']:<18} {r['preset']:<22} {r['policy']:<16} {r['rss_mb']:>8.0f} "
                  f"{data} {r['wall_s']:>8.1f} {r['cpu_s']:>8.1f}{flag}", flush=True)
    done = [r for r in rows if r["ok"]]
    print(f"load average after: {machine().rsplit('load average ', 1)[1]}")
    if done:
        worst = max(done, key=lambda r: r["rss_mb"])
        over = [r for r in done if r["rss_mb"] >= TARGET_MB]
        print(f"\nlargest peak: {worst['rss_mb']:.0f} MB ({worst['kind']} {worst['preset']} "
              f"{worst['policy']}); {len(over)} of {len(done)} runs at or over {TARGET_MB:.0f} MB")
        for kind in sorted({r["kind"] for r in done}):
            mine = [r["rss_mb"] for r in done if r["kind"] == kind]
            print(f"  {kind:<18} {len(mine):>3} runs, peak {min(mine):.0f}-{max(mine):.0f} MB")
    failed = len(rows) - len(done)
    if failed:
        print(f"{failed} runs FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
