"""``python manage.py reproduce FIGURE [--trials N] [--first-seed S] [--out DIR]``: a figure
preset, headless.

Runs on the workers when some answer a ping (the experiment then appears in the lab too), in
this process otherwise; writes the points CSV, ``FIGURE-runs.csv`` (one row per run),
``FIGURE.json`` (with ``checks``: each published claim and point judged on the paired 95%
interval), a standalone HTML page and a PNG of the charts; prints the claim and the verdicts.

``--with-policy NAME`` (repeatable) runs other policies of the figure's kind beside the
published ones, on the same seeds and points, and prints (and writes to ``FIGURE.json`` as
``standing``) where each stands against each published policy on the figure's metrics: n, the
mean paired difference, its 95% interval and better / indistinguishable / worse. Never with
``--record``: the record holds the published claims only.

``--list`` lists the figure presets. ``--record`` runs the named figures (all of them without
names; ``--skip-recorded`` resumes) at their own trials and seeds and writes each figure's
record to docs/reproduction_status.json as soon as it finishes. ``--rescore`` judges the claims
again from the runs CSVs under ``--out`` without running anything (after a claim's definition
changed). ``--check`` re-runs the quick figures (or the named ones) and fails if a recorded
verdict or interval moved, then fails if any record is incomplete, stale or has a verdict its
interval does not support. ``--write-docs`` regenerates the tables of docs/reproduction.md
from the record.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from hetsite import kinds, reproduce, scoreboard
from simcore.errors import PolicyViolation, ScenarioError
from simcore.references import spell
from simcore.result import code_version

STATUS = scoreboard.STATUS


def _bar(done: int, total: int) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r  [{'#' * filled}{'.' * (width - filled)}] {done}/{total} runs")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _workers() -> int:
    """How many worker processes the answering workers run (0: none, or no broker)."""
    from hetsite.celery import app

    try:
        stats = app.control.inspect(timeout=1.0).stats() or {}
    except Exception:  # no broker, or a transport without broadcast: run here
        return 0
    return sum(int(s.get("pool", {}).get("max-concurrency") or 1) for s in stats.values())


class Command(BaseCommand):
    help = "Run a figure preset headless and judge its published claims on our runs."

    def add_arguments(self, parser):
        parser.add_argument("figures", nargs="*", help="figure preset names (see --list)")
        parser.add_argument("--list", action="store_true", help="list the figure presets")
        parser.add_argument("--trials", type=int, help="trials per point and policy")
        parser.add_argument("--first-seed", type=int,
                            help="seed of the first trial (default: the figure's, 1000, above "
                                 "every calibration seed)")
        parser.add_argument("--out", default="out/figures", help="output folder")
        parser.add_argument("--jobs", type=int, default=2,
                            help="processes when running in this process")
        parser.add_argument("--in-process", action="store_true",
                            help="do not use the workers even when they are up")
        parser.add_argument("--status", default=str(STATUS),
                            help="the record file (default docs/reproduction_status.json)")
        parser.add_argument("--check", action="store_true",
                            help="re-run the quick (or named) figures against their records, "
                                 "then check every record")
        parser.add_argument("--record", action="store_true",
                            help="write each figure's record (all figures without names)")
        parser.add_argument("--skip-recorded", action="store_true",
                            help="with --record: skip figures whose record is sound")
        parser.add_argument("--short", metavar="REASON",
                            help="with --record and --trials below a figure's own count: "
                                 "record it short, saying why (the docs name it)")
        parser.add_argument("--rescore", action="store_true",
                            help="judge the claims again from the runs CSVs under --out")
        parser.add_argument("--quick", action="store_true",
                            help="only the figures marked quick (one cheap claim per chapter)")
        parser.add_argument("--with-policy", action="append", default=[], metavar="NAME",
                            help="also run this policy of the figure's kind and compare it "
                                 "with the published ones (repeatable; not with --record)")
        parser.add_argument("--no-png", action="store_true", help="skip the screenshot")
        parser.add_argument("--write-docs", action="store_true",
                            help="regenerate the tables of docs/reproduction.md")

    def handle(self, *args, **opts):
        figures = kinds.all_figures()
        status_path = Path(opts["status"])
        if opts["list"]:
            for f in figures:
                axes = " x ".join(f"{p}[{len(v)}]" for p, v in f.axes) or "-"
                self.stdout.write(f"{f.name:<28} {f.kind:<18} {axes:<28} {f.title}")
            return
        if opts["write_docs"]:
            return self._write_docs(figures, status_path)
        if opts["record"] and (opts["first_seed"] is not None
                               or (opts["trials"] is not None and not opts["short"])):
            raise CommandError("--record runs each figure at its own trials and seeds (fewer "
                               "trials only with --short REASON)")
        if opts["with_policy"] and (opts["record"] or opts["rescore"]):
            raise CommandError("--with-policy does not go with --record or --rescore: the "
                               "record holds the published claims only")
        if opts["short"] and (not opts["record"] or opts["trials"] is None):
            raise CommandError("--short goes with --record and --trials")
        status = scoreboard.load(status_path)
        chosen = self._chosen(figures, opts, status)
        if opts["rescore"]:
            return self._rescore(chosen, status, status_path, Path(opts["out"]))
        moved = self._run(chosen, opts, status, status_path)
        if opts["check"]:
            self._check(figures, scoreboard.load(status_path), moved)

    # --- running --------------------------------------------------------------------------------

    def _run(self, chosen, opts, status, status_path) -> list[str]:
        workers = 0 if opts["in_process"] else _workers()
        known: dict = {}  # every run of this command, by scenario, policy and seed
        moved = []
        for figure in chosen:
            where = f"{workers} worker processes" if workers else \
                f"{opts['jobs']} processes here"
            self.stdout.write(f"\n{figure.name}: {figure.title}  ({where})")
            before = len(known)
            started = time.perf_counter()
            # a record runs the figure's own trials, or fewer when it is recorded short
            trials = min(opts["trials"] or figure.trials, figure.trials) if opts["record"] \
                else opts["trials"]
            short = opts["record"] and trials < figure.trials
            runs = self._runs(figure, trials, opts, workers, known)
            wall, cpu = time.perf_counter() - started, reproduce.cpu_seconds(runs)
            # what this command spent: the runs no earlier figure of it had run already
            spent = cpu if workers else sum(float(t.get("cpu_s") or 0.0)
                                            for _, t in list(known.values())[before:])
            checks = reproduce.checks_of(figure, runs)
            files = reproduce.write_outputs(figure, runs, checks, Path(opts["out"]),
                                            png=not opts["no_png"])
            self._report(figure, checks, files, cpu, spent, wall,
                         scoreboard.standing_of(figure, runs))
            recorded = status["figures"].get(figure.name)
            if opts["check"] and recorded is not None:
                moved += [f"{figure.name}: {m}" for m in _moved(recorded["checks"], checks)]
            if opts["record"]:  # after each figure: a long run that fails later keeps these
                status["figures"][figure.name] = scoreboard.record(
                    figure, checks, commit=code_version(), first_seed=figure.first_seed,
                    trials=trials, runs=len(runs), cpu_s=cpu, cpu_spent_s=spent,
                    wall_s=wall, where=where, short=opts["short"] if short else None)
                scoreboard.save(status, status_path)
        if opts["record"]:
            self.stdout.write(f"\nrecorded {len(chosen)} figures in {status_path}")
        return moved

    def _runs(self, figure, trials, opts, workers, known):
        seed, added = opts["first_seed"], opts["with_policy"]
        try:
            if workers:
                experiment, runs = reproduce.run_on_workers(figure, trials, progress=_bar,
                                                           first_seed=seed, with_policies=added)
                self.stdout.write(f"  experiment /e/{experiment.public_id}/")
                return runs
            return reproduce.run_in_process(figure, trials, opts["jobs"], progress=_bar,
                                            first_seed=seed, known=known, with_policies=added)
        except (ScenarioError, PolicyViolation) as err:
            raise CommandError(f"{figure.name}: {err}") from None

    def _chosen(self, figures, opts, status):
        if opts["quick"]:
            return [f for f in figures if f.quick]
        if opts["check"] and not opts["figures"]:
            return [f for f in figures if f.quick]
        if opts["record"] and not opts["figures"]:
            if opts["skip_recorded"]:
                return [f for f in figures if f.name not in status["figures"]
                        or scoreboard.problems(f, status["figures"][f.name])]
            return figures
        if opts["rescore"] and not opts["figures"]:
            return [f for f in figures if f.name in status["figures"]]
        if not opts["figures"]:
            raise CommandError("name a figure (see --list)")
        by_name = {f.name: f for f in figures}
        unknown = [n for n in opts["figures"] if n not in by_name]
        if unknown:
            raise CommandError(f"unknown figure {', '.join(unknown)}; see --list")
        return [by_name[n] for n in opts["figures"]]

    def _report(self, figure, checks, files, cpu, spent, wall, added=()):
        w = self.stdout.write
        w(f"  published ({spell(figure.source, figure.kind)}): {figure.claim}")
        if figure.scale:
            w(f"  scaled: {figure.scale}")
        for c in checks:
            w("  " + reproduce.check_line(figure, c))
        if added:
            w("  added policies against the published ones (paired, pooled over the points):")
        for c in added:
            w("    " + reproduce.standing_line(figure, c))
        w(f"  {cpu:.1f} CPU-s in its runs ({spent:.1f} spent here, the rest shared with an "
          f"earlier figure), {wall:.1f} s wall")
        w("  wrote " + ", ".join(str(p) for p in files.values()))

    # --- the record -----------------------------------------------------------------------------

    def _rescore(self, chosen, status, status_path, out):
        for figure in chosen:
            rec = status["figures"].get(figure.name)
            path = out / f"{figure.name}-runs.csv"
            if rec is None or not path.exists():
                raise CommandError(f"{figure.name}: --rescore needs its record and {path}")
            runs = reproduce.read_runs_csv(figure, path.read_text())
            rec["checks"] = reproduce.checks_of(figure, runs)
            self.stdout.write(f"{figure.name}: {len(rec['checks'])} checks from {len(runs)} "
                              "runs")
        scoreboard.save(status, status_path)

    def _check(self, figures, status, moved):
        bad = list(moved)
        for figure in figures:
            rec = status["figures"].get(figure.name)
            if rec is not None:
                bad += [f"{figure.name}: {p}" for p in scoreboard.problems(figure, rec)]
        if bad:
            raise CommandError("the reproduction record does not hold:\n  " + "\n  ".join(bad))
        self.stdout.write(f"\n{len(status['figures'])} records complete and consistent")

    def _write_docs(self, figures, status_path):
        status = scoreboard.load(status_path)
        docs = scoreboard.DOCS
        docs.write_text(scoreboard.with_tables(docs.read_text(),
                                               scoreboard.markdown(status, figures)))
        self.stdout.write(f"wrote the tables of {docs}")


def _moved(recorded: list[dict], now: list[dict]) -> list[str]:
    """Recorded checks whose verdict or interval a re-run of the same seeds does not give."""
    by_key = {c["key"]: c for c in now}
    out = []
    for old in recorded:
        new = by_key.get(old["key"])
        if new is None:
            out.append(f"{old['key']}: no longer judged")
        elif new["verdict"] != old["verdict"] or not all(
                _same(new[k], old[k]) for k in ("diff_mean", "diff_low", "diff_high")):
            out.append(f"{old['key']}: recorded {old['verdict']} "
                       f"[{old['diff_low']}, {old['diff_high']}], now {new['verdict']} "
                       f"[{new['diff_low']}, {new['diff_high']}]")
    return out


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
