"""Command line shared by the engines: ``presets``, ``policies``, ``run``, ``sweep``, and the
commands a kind adds (``replay``).

``run --preset NAME --policy NAME --seed N [--set key=value ...] --out FILE.json`` writes the
deterministic result JSON (``--timing`` adds wall-clock figures) and prints the summary.
``sweep --preset NAME --policies a,b --seeds 1-8 [--vary key=v1,v2 ...] [--jobs N]`` runs the
product and prints the mean and 95% CI per (point, policy); ``--baseline POLICY`` adds the
paired difference to that policy; ``--csv`` writes one row per run as runs finish.
A command that needs one kind loads only that kind. Invalid input prints
``error: <parameter>: <message>`` and exits with status 2; a policy that breaks one of the
engine's rules (``simcore.errors.RULES``) prints ``error: policy 'NAME' broke the rule ...`` and
exits with status 3 (a sweep prints it for each such run, leaves them out of its table, runs
the others and exits with status 3). Policies of installed plugins are listed beside the
project's own; a plugin that failed to load is named on stderr by ``policies``, and by ``run``
when the policy asked for is not there.
``run --explain`` records every decision of the run with its reason (``simcore.decisions``);
``explain RESULT.json [--task ID] [--action dropped]`` prints them, and ``explain A.json B.json``
where two runs of one scenario and seed part ways (``simcore.explain``).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

from . import explain, plugins
from .decisions import DEFAULT_LIMIT, DEFAULT_PER_TASK, DecisionLog
from .errors import PolicyViolation, ScenarioError
from .explain import ExplainError
from .params import parse_value
from .references import spell
from .registry import Engine

BUILTIN = ("presets", "policies", "run", "explain")


def overrides(pairs: Sequence[str], flag: str = "--set") -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ScenarioError(flag, f"expected key=value, got {pair!r}")
        out[key.strip()] = parse_value(value.strip())
    return out


def axes(pairs: Sequence[str]) -> list[tuple[str, list]]:
    out = []
    for pair in pairs:
        key, sep, values = pair.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise ScenarioError("--vary", f"expected key=v1,v2,..., got {pair!r}")
        out.append((key.strip(), [parse_value(v.strip()) for v in values.split(",")]))
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


def _ci_text(ci: dict, digits: int = 3) -> str:
    if ci["mean"] is None:
        return "n/a"
    text = f"{ci['mean']:.{digits}g}" if abs(ci["mean"]) < 1e-3 else f"{ci['mean']:.{digits}f}"
    return text if ci["half_width"] is None else f"{text} ± {ci['half_width']:.{digits}f}"


def _add_sweep_arguments(p, engine: Engine) -> None:
    p.add_argument("--preset", "--presets", dest="preset",
                   help="preset, or comma-separated presets of one kind (each a row group)")
    p.add_argument("--policies", default="all", help="comma-separated policy names (or all)")
    p.add_argument("--seeds", help="e.g. 1-8 or 1,4,9 (default 0-2)")
    p.add_argument("--trials", type=int, help="seeds first-seed .. first-seed + N - 1")
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--seed-stride", type=int, default=0,
                   help="point k runs seeds + k x stride (fresh instances per point)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="fixed override (dotted)")
    p.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2",
                   help="swept override; several --vary give their product")
    p.add_argument("--metrics", help="comma-separated summary keys to tabulate "
                                     "(default: the kind's headline metrics)")
    p.add_argument("--baseline", help="also show each policy's paired difference to this one")
    p.add_argument("--relative", action="store_true",
                   help="with --baseline: differences in %% of the baseline's value")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--csv", help="write one row per run here, as runs finish")
    p.add_argument("--out", help="write one JSON line per run here, as runs finish")
    p.add_argument("--json", help="write the table (one row per point and policy) here")
    if engine.sweep_shorthand is not None:
        engine.sweep_shorthand[0](p)


class RunWriter:
    """One row per finished run, to CSV and/or JSON lines, flushed as runs come in."""

    def __init__(self, csv_path: str | None, jsonl_path: str | None):
        self.csv = open(csv_path, "w", newline="") if csv_path else None  # noqa: SIM115
        self.jsonl = open(jsonl_path, "w") if jsonl_path else None  # noqa: SIM115
        self.writer = None

    def __call__(self, preset: str, run) -> None:
        if self.jsonl:
            self.jsonl.write(json.dumps({"preset": preset, "overrides": run.setting,
                                         "policy": run.policy, "seed": run.seed,
                                         "summary": run.summary, "timing": run.timing},
                                        default=float) + "\n")
            self.jsonl.flush()
        if self.csv:
            row = {"preset": preset, "point": run.point,
                   **{f"set:{k}": v for k, v in run.setting.items()},
                   "policy": run.policy, "seed": run.seed,
                   **{k: v for k, v in run.summary.items() if not isinstance(v, (list, dict))},
                   "wall_s": run.timing.get("wall_s"),
                   "event_ms_mean": run.timing.get("event_ms_mean")}
            if self.writer is None:
                self.writer = csv.DictWriter(self.csv, fieldnames=list(row),
                                             extrasaction="ignore")
                self.writer.writeheader()
            self.writer.writerow(row)
            self.csv.flush()

    def close(self) -> None:
        for fh in (self.csv, self.jsonl):
            if fh:
                fh.close()


def run_sweep(engine: Engine, args) -> int:
    from .sweep import parse_seeds, sweep, table

    if engine.sweep_shorthand is not None:
        engine.sweep_shorthand[1](args)
    if not args.preset:
        raise ScenarioError("--preset", "name the preset to sweep")
    if args.trials is not None:
        if args.trials < 1:
            raise ScenarioError("--trials", "must be >= 1")
        seeds = list(range(args.first_seed, args.first_seed + args.trials))
    else:
        seeds = parse_seeds(args.seeds or "0-2")
    fixed = overrides(args.set)
    presets = [p for p in args.preset.split(",") if p]
    scenarios = [engine.preset_scenario(p, fixed) for p in presets]  # validate all first
    kinds = {s.kind for s in scenarios}
    if len(kinds) > 1:
        raise ScenarioError("--preset", f"presets of different kinds: {', '.join(sorted(kinds))}")
    kind = engine.get_kind(scenarios[0].kind)
    policies = ([p.name for p in engine.list_policies(kind.name)] if args.policies == "all"
                else [p for p in args.policies.split(",") if p])
    if args.baseline and args.baseline not in policies:
        policies.insert(0, args.baseline)
    metrics = [m for m in (args.metrics or ",".join(kind.headline)).split(",") if m]
    if not metrics:
        raise ScenarioError("--metrics", "name at least one summary key")
    swept = axes(args.vary)
    writer = RunWriter(args.csv, args.out)
    cols = [*metrics, *([f"{m}:diff" for m in metrics] if args.baseline else [])]
    out_rows = []
    failed = []

    def fail(run, exc) -> None:  # the run is left out; the others carry on
        failed.append(exc)
        where = ", ".join(f"{k}={v}" for k, v in run.setting.items())
        print(f"error: seed {run.seed}{' at ' + where if where else ''}: {exc}",
              file=sys.stderr)

    try:
        for preset, scenario in zip(presets, scenarios, strict=True):
            runs = sweep(engine, scenario, swept, policies, seeds, jobs=args.jobs,
                         on_run=lambda run, preset=preset: writer(preset, run),
                         seed_stride=args.seed_stride, on_fail=fail)
            rows = table(runs, metrics, baseline=args.baseline, relative=args.relative)
            print(f"\n{preset}: {len(seeds)} seeds")
            print(f"{'setting':<36} {'policy':<20} {'n':>3} "
                  + " ".join(f"{c:>22}" for c in cols))
            for row in rows:
                label = ", ".join(f"{k}={v}" for k, v in row["setting"].items()) or "-"
                print(f"{label:<36} {row['policy']:<20} {row['n']:>3} "
                      + " ".join(f"{_ci_text(row[c]):>22}" for c in cols))
                out_rows.append({"preset": preset, **row})
    finally:
        writer.close()
    if args.json:
        write_json(args.json, json.dumps(out_rows, indent=1, default=str))
    sys.stdout.flush()
    if failed:
        print(f"error: {len(failed)} runs failed, left out of the table above",
              file=sys.stderr)
        return 3
    return 0


def decision_log(args) -> DecisionLog | bool:
    """The log ``run --explain`` records into, bounded as its flags say (False: not asked)."""
    bounds = {"limit": args.explain_limit, "per_task": args.explain_per_task}
    for key, value in bounds.items():
        flag = "--explain-" + key.replace("_", "-")
        if value is not None and not args.explain:
            raise ExplainError(f"{flag}: only with --explain")
        if value is not None and value < 2:
            raise ExplainError(f"{flag}: at least 2, got {value}")
    if args.explain_task and not args.explain:
        raise ExplainError("--explain-task: only with --explain")
    if not args.explain:
        return False
    limit = bounds["limit"] or DEFAULT_LIMIT
    per_task = bounds["per_task"] or DEFAULT_PER_TASK
    if limit < per_task:
        raise ExplainError(f"--explain-limit: at least --explain-per-task ({per_task}), got "
                           f"{limit}")
    always = [explain.task_id(t) for t in args.explain_task]
    return DecisionLog(per_task=per_task, limit=limit, always=always)


def read_result(path: str) -> dict:
    """A result JSON as ``run --out`` writes it, or gzipped (as a download may be; told by its
    first bytes, whatever its name), checked for the shape ``explain`` reads: any other file
    is an ExplainError naming it and what is wrong."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ExplainError(f"{path}: a gzip file that does not decompress ({exc})") from None
    try:
        result = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ExplainError(f"{path}: not a JSON result ({exc})") from None
    return explain.check_result(result, path)


def run_explain(args) -> int:
    if len(args.results) > 2:
        raise ExplainError("results: give one result (its decisions) or two (where they part)")
    if args.top < 1:
        raise ExplainError(f"top: at least 1, got {args.top}")
    results = [read_result(path) for path in args.results]
    actions = args.action.split(",") if args.action else None
    if len(results) == 1:
        print(explain.story_text(results[0], args.task, actions))
    else:
        print(explain.divergence_text(*results, top=args.top))
    return 0


def print_plugin_problems(engine: Engine) -> None:
    """Every plugin of the kinds loaded so far that added nothing, and why, on stderr."""
    from .lab import entry_points  # every kind's name, whichever engine owns it

    for failure in plugins.problems([engine], [ep.name for ep in entry_points()]):
        print(f"error: {failure}", file=sys.stderr)


def main(engine: Engine, argv: Sequence[str], prog: str) -> int:
    """Run the CLI; kinds add subcommands through the engine."""
    argv = list(argv)
    first = argv[0] if argv else None
    if first in engine.command_kinds:
        engine.load(engine.command_kinds[first])  # only the kind that provides the command
    elif first not in BUILTIN:
        engine.load()  # help, a typo, or a sweep (its kind is named only in its arguments)
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
    run.add_argument("--explain", action="store_true",
                     help="record every decision with its reason (result key 'decisions')")
    run.add_argument("--explain-limit", type=int, metavar="N",
                     help=f"with --explain: keep at most N decisions, past them one task in "
                          f"2, 4, ... with its whole story (default {DEFAULT_LIMIT:,}; a "
                          f"lower limit costs less on runs of many short tasks)")
    run.add_argument("--explain-task", action="append", default=[], metavar="ID",
                     help="with --explain: keep this task's whole story whatever the sampling "
                          "(repeatable; the id of the result's task table)")
    run.add_argument("--explain-per-task", type=int, metavar="N",
                     help=f"with --explain: at most N waits kept per task, the first ones and "
                          f"the latest (default {DEFAULT_PER_TASK})")
    for flag, (help_text, _) in engine.policy_flags.items():
        run.add_argument(flag, action="store_true", help=help_text)
    exp = sub.add_parser("explain", help="read the decisions of a result written with "
                                         "run --explain; of two, where they part ways")
    exp.add_argument("results", nargs="+", metavar="RESULT.json",
                     help="one result: its decisions; two (same scenario and seed): the first "
                          "decision where they differ and the tasks whose fate differs most")
    exp.add_argument("--task", help="only this task's story")
    exp.add_argument("--action", help="only these actions, comma-separated (e.g. dropped)")
    exp.add_argument("--top", type=int, default=10,
                     help="when comparing two runs: the tasks listed whose fate differs most, "
                          "and the moves listed per run at the first difference")
    sweep = sub.add_parser("sweep", aliases=list(engine.sweep_aliases),
                           help="run presets over policies x seeds x swept parameters; means "
                                "and 95%% CIs")
    _add_sweep_arguments(sweep, engine)
    for command in engine.commands.values():
        command.add_arguments(sub.add_parser(command.name,
                                             help=spell(command.help, command.kind)))
    args = parser.parse_args(argv)

    try:
        if args.command == "presets":
            for p in engine.list_presets():
                print(f"{p.name:<24} {p.kind:<18} {p.description}")
            return 0
        if args.command == "policies":
            for p in engine.list_policies(args.kind):
                # the spec spelled out (title, document, code) runs long: a dot ends it
                origin = f"  [plugin {p.plugin}]" if p.plugin else ""
                print(f"{p.name:<28} {p.kind:<18} {spell(p.spec, p.kind)} · "
                      f"{spell(p.description, p.kind)}{origin}")
            print_plugin_problems(engine)
            return 0
        if args.command == "sweep" or args.command in engine.sweep_aliases:
            for key, value in engine.sweep_aliases.get(args.command, {}).items():
                if getattr(args, key) is None:
                    setattr(args, key, value)
            return run_sweep(engine, args)
        if args.command in engine.commands:
            return engine.commands[args.command].run(args)
        if args.command == "explain":
            return run_explain(args)
        policy = args.policy
        for flag, (_, transform) in engine.policy_flags.items():
            if getattr(args, flag.lstrip("-").replace("-", "_")):
                policy = transform(policy)
        scenario = engine.preset_scenario(args.preset, overrides(args.set))
        log = decision_log(args)
        result = engine.simulate(scenario, policy=policy, seed=args.seed, explain=log)
        if log:
            # (a task asked for by what it is about, "target 5", is told by its surveils')
            subject = explain.subject_of(log.across_runs)
            told = {d["task"] for d in result.decisions} | {subject(d) for d in result.decisions}
            for task in sorted(log.always - told, key=str):
                print(f"warning: --explain-task {task}: no decision about it (no such task?)",
                      file=sys.stderr)
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
        if exc.field == "policy":  # perhaps the plugin that would add it did not load
            print_plugin_problems(engine)
        return 2
    except PolicyViolation as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except ExplainError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader stopped early (``explain ... | head``): nothing went wrong with the run.
        # Python flushes stdout again at exit, so it is pointed at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
