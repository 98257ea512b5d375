"""``python -m scheduling.engine replay --trace PATH --policy NAME [--nodes N] --out FILE``."""

from __future__ import annotations

import sys

from scheduling.engine import ENGINE
from scheduling.hpc import traces
from simcore.cli import print_summary, write_json
from simcore.params import from_dict, to_dict
from simcore.result import SCHEMA_VERSION, code_version

from .config import KIND, ReplayConfig
from .run import replay

POLICIES = ("fcfs", "easy", "conservative")


def add_arguments(parser) -> None:
    parser.add_argument("--trace", required=True, metavar="PATH",
                        help="SWF file (plain or .gz) or a library trace name")
    parser.add_argument("--policy", required=True, choices=POLICIES)
    parser.add_argument("--nodes", type=int, default=None,
                        help="machine nodes (default: the trace header's MaxNodes)")
    parser.add_argument("--out", required=True, metavar="FILE.json",
                        help="write the result JSON (summary and per-job table) here")
    parser.add_argument("--cores-per-node", type=int, default=1)
    parser.add_argument("--estimate-scale", type=float, default=1.0)
    parser.add_argument("--keep-failed", action="store_true",
                        help="also replay jobs whose status is not 'completed'")
    parser.add_argument("--ignore-requested-time", action="store_true",
                        help="estimate from the actual run time even when a requested time "
                             "is given")
    parser.add_argument("--job-limit", type=int, default=0, help="replay the first N jobs")
    parser.add_argument("--timing", action="store_true",
                        help="include wall-clock timing in the JSON")


def run(args) -> int:
    options = {
        "nodes": args.nodes,
        "cores_per_node": args.cores_per_node,
        "estimate_scale": args.estimate_scale,
        "keep_failed": args.keep_failed,
        "use_requested_time": not args.ignore_requested_time,
        "job_limit": args.job_limit,
    }
    # The shell user may name any file; scenarios (web input) only ever name library traces.
    if args.trace in traces.library():
        trace = traces.TraceLibrary().load(args.trace)
        options["trace"] = args.trace
        config = from_dict(ReplayConfig, options)
    else:
        trace = traces.load_path(args.trace)
        config = from_dict(ReplayConfig, options)  # validated with the default library trace
    policy = ENGINE.get_policy(KIND, args.policy)
    result = replay(trace, config, policy.factory)
    scenario = to_dict(config)
    scenario["trace"] = trace.name
    result.meta = {"engine": ENGINE.name, "kind": KIND, "policy": args.policy, "seed": 0,
                   "scenario": {"kind": KIND, "params": scenario},
                   "code_version": code_version(), "schema": SCHEMA_VERSION}
    write_json(args.out, result.to_json(timing=args.timing))
    print_summary(result.summary)
    t = result.timing
    print(f"timing: {len(result.tasks['job_id'])} jobs in {t['wall_s']:.3f} s "
          f"({t['jobs_per_s'] or 0:,.0f} jobs/s), {t['events']} scheduling passes",
          file=sys.stderr)
    return 0

