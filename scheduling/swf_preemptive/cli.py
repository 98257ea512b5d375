"""``python -m scheduling.engine pbb --trace PATH --policy NAME [--seed N] [--set k=v] --out FILE``.

Like ``replay``, it takes any SWF file the shell user names (scenarios from the web only ever
name library traces or uploads); every other scenario parameter is a ``--set``.
"""

from __future__ import annotations

import sys

from scheduling.engine import ENGINE
from scheduling.hpc import traces
from simcore.cli import overrides, print_summary, write_json
from simcore.params import from_dict, to_dict
from simcore.result import SCHEMA_VERSION, code_version

from .config import KIND, PreemptiveConfig
from .run import simulate_trace


def add_arguments(parser) -> None:
    parser.add_argument("--trace", required=True, metavar="PATH",
                        help="SWF file (plain or .gz) or a library trace name")
    parser.add_argument("--policy", required=True,
                        help="first-fit, random, duration-consumed, duration-remaining, "
                             "wcduration, wcduration-percentresusage, scaled-remaining, "
                             "min-work")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="pbb-surrogate",
                        help="parameters to start from (default: the paper's surrogate "
                             "recipe; its trace is replaced by --trace)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a scenario parameter, e.g. classes=mix-a, nodes=128, "
                             "max_procs=0, target_load=0")
    parser.add_argument("--out", required=True, metavar="FILE.json",
                        help="write the result JSON (summary, per-job table, kills) here")
    parser.add_argument("--timing", action="store_true",
                        help="include wall-clock timing in the JSON")


def run(args) -> int:
    preset = ENGINE.get_preset(args.preset)
    if preset.kind != KIND:
        from simcore.errors import ScenarioError

        raise ScenarioError("--preset", f"{args.preset!r} is not a {KIND} preset")
    params = {**preset.params, **overrides(args.set)}
    policy = ENGINE.get_policy(KIND, args.policy)
    # The shell user may name any file; scenarios (web input) only ever name library traces.
    if args.trace in traces.library():
        trace = traces.TraceLibrary().load(args.trace)
        params["trace"] = args.trace
        config = from_dict(PreemptiveConfig, params)
    else:
        params.pop("trace", None)
        config = from_dict(PreemptiveConfig, params)  # validated with the default library trace
        trace = traces.load_path(args.trace)
    result = simulate_trace(trace, config, policy.factory, args.seed)
    scenario = to_dict(config)
    scenario["trace"] = trace.name
    result.meta = {"engine": ENGINE.name, "kind": KIND, "policy": args.policy,
                   "seed": args.seed, "scenario": {"kind": KIND, "params": scenario},
                   "code_version": code_version(), "schema": SCHEMA_VERSION}
    write_json(args.out, result.to_json(timing=args.timing))
    print_summary({k: v for k, v in result.summary.items() if "_p" not in k})
    t = result.timing
    print(f"timing: {len(result.tasks['job_id'])} jobs, {result.summary['preemptions']} "
          f"preemptions in {t['wall_s']:.3f} s ({t['jobs_per_s'] or 0:,.0f} jobs/s)",
          file=sys.stderr)
    return 0
