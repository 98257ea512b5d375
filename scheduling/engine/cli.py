"""Command line shared by the engines: ``presets``, ``policies``, ``run`` and engine commands.

``run --preset NAME --policy NAME --seed N [--set key=value ...] --out FILE.json`` writes the
deterministic result JSON (``--timing`` adds wall-clock figures) and prints the summary.
Invalid input prints ``error: <parameter>: <message>`` and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import ScenarioError
from .params import parse_value
from .registry import Engine


def _overrides(pairs: Sequence[str]) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ScenarioError("--set", f"expected key=value, got {pair!r}")
        out[key.strip()] = parse_value(value.strip())
    return out


def write_json(path: str, text: str) -> None:
    """Write atomically so a failed run never leaves a half-written file."""
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(target)


def print_summary(summary: dict) -> None:
    width = max((len(k) for k in summary), default=0)
    for key in sorted(summary):
        value = summary[key]
        if isinstance(value, float):
            value = f"{value:.6g}"
        print(f"{key:<{width}}  {value}")


def main(engine: Engine, argv: Sequence[str], prog: str) -> int:
    """Run the CLI; environments add subcommands and ``run`` flags through the engine."""
    engine.list_environments()  # imports the environment modules, which register extensions
    commands = engine.commands
    policy_flags = engine.policy_flags
    parser = argparse.ArgumentParser(prog=prog, description=f"The {engine.name} engine.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("presets", help="list the named scenarios")
    pol = sub.add_parser("policies", help="list the policies")
    pol.add_argument("--kind", help="only this scenario kind")
    run = sub.add_parser("run", help="simulate one preset with one policy and seed")
    run.add_argument("--preset", required=True)
    run.add_argument("--policy", required=True)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override a scenario parameter (dotted for nested ones)")
    run.add_argument("--out", help="write the result JSON here")
    run.add_argument("--timing", action="store_true", help="include wall-clock timing in --out")
    for flag, (help_text, _) in policy_flags.items():
        run.add_argument(flag, action="store_true", help=help_text)
    for name, (help_text, add_arguments, _) in commands.items():
        add_arguments(sub.add_parser(name, help=help_text))
    args = parser.parse_args(list(argv))

    try:
        if args.command == "presets":
            for p in engine.list_presets():
                print(f"{p.name:<24} {p.kind:<18} {p.description}")
            return 0
        if args.command == "policies":
            for p in engine.list_policies(args.kind):
                print(f"{p.name:<28} {p.kind:<18} {p.spec:<14} {p.description}")
            return 0
        if args.command in commands:
            return commands[args.command][2](args)
        policy = args.policy
        for flag, (_, transform) in policy_flags.items():
            if getattr(args, flag.lstrip("-").replace("-", "_")):
                policy = transform(policy)
        scenario = engine.preset_scenario(args.preset, _overrides(args.set))
        result = engine.simulate(scenario, policy=policy, seed=args.seed)
        if args.out:
            write_json(args.out, result.to_json(timing=args.timing))
        print_summary(result.summary)
        t = result.timing
        if "event_ms_mean" in t:
            print(f"timing: {t['events']} events, mean {t['event_ms_mean']:.2f} ms, "
                  f"p95 {t['event_ms_p95']:.2f} ms, max {t['event_ms_max']:.2f} ms, "
                  f"run {t['wall_s']:.2f} s", file=sys.stderr)
        return 0
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
