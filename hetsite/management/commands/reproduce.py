"""``python manage.py reproduce FIGURE [--trials N] [--first-seed S] [--out DIR]``: a figure
preset, headless.

Runs on the workers when some answer a ping (the experiment then appears in the lab too),
in this process otherwise; writes the points CSV, a runs CSV (one row per run, for paired
comparisons), a table JSON with the seeds, a standalone HTML page and a PNG of the charts;
prints the published claim, our numbers and whether each published ranking holds.
``--first-seed`` moves the trials off seeds 0.. (an out-of-sample run of a figure whose
preset a calibration touched); ``--list`` lists the figure presets; ``--check`` runs every
figure whose rankings docs/reproduction_status.json records as reproduced and exits 1 if one
flipped; ``--record`` rewrites that file from a full run; ``--quick`` runs the figures marked
quick (each small enough to run at its own trial count in seconds)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from hetsite import kinds, reproduce
from simcore.errors import ScenarioError

STATUS = Path(settings.BASE_DIR) / "docs" / "reproduction_status.json"


def _bar(done: int, total: int) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r  [{'#' * filled}{'.' * (width - filled)}] {done}/{total} runs")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _workers_up() -> bool:
    from hetsite.celery import app

    try:
        return bool(app.control.inspect(timeout=1.0).ping())
    except Exception:  # no broker, or a transport without broadcast: run here
        return False


class Command(BaseCommand):
    help = "Run a figure preset headless and compare it with the published finding."

    def add_arguments(self, parser):
        parser.add_argument("figures", nargs="*", help="figure preset names (see --list)")
        parser.add_argument("--list", action="store_true", help="list the figure presets")
        parser.add_argument("--trials", type=int, help="trials per point and policy")
        parser.add_argument("--first-seed", type=int, default=0,
                            help="seed of the first trial (fresh seeds give an out-of-sample "
                                 "reproduction; a figure's seeds are first-seed .. +trials-1)")
        parser.add_argument("--out", default="out/figures", help="output folder")
        parser.add_argument("--jobs", type=int, default=2,
                            help="processes when running in this process")
        parser.add_argument("--in-process", action="store_true",
                            help="do not use the workers even when they are up")
        parser.add_argument("--check", action="store_true",
                            help="fail when a ranking recorded as reproduced flips")
        parser.add_argument("--record", action="store_true",
                            help=f"write the rankings that hold to {STATUS.name}")
        parser.add_argument("--quick", action="store_true",
                            help="only the figures marked quick (one cheap claim per chapter)")

    def handle(self, *args, **opts):
        figures = kinds.all_figures()
        if opts["list"]:
            for f in figures:
                axes = " x ".join(f"{p}[{len(v)}]" for p, v in f.axes) or "-"
                self.stdout.write(f"{f.name:<28} {f.kind:<18} {axes:<28} {f.title}")
            return
        chosen = self._chosen(figures, opts)
        status = json.loads(STATUS.read_text()) if STATUS.exists() else {}
        trials, seed = opts["trials"], opts["first_seed"]
        on_workers = not opts["in_process"] and _workers_up()
        flipped, record = [], {}
        for figure in chosen:
            self.stdout.write(f"\n{figure.name}: {figure.title}  "
                              f"({'workers' if on_workers else 'this process'})")
            try:
                if on_workers:
                    experiment, runs = reproduce.run_on_workers(figure, trials, progress=_bar,
                                                               first_seed=seed)
                    self.stdout.write(f"  experiment /e/{experiment.public_id}/")
                else:
                    runs = reproduce.run_in_process(figure, trials, opts["jobs"], progress=_bar,
                                                    first_seed=seed)
            except ScenarioError as err:
                raise CommandError(f"{figure.name}: {err}") from None
            rows = reproduce.rows_of(figure, runs)
            checks = reproduce.ranking_checks(figure, rows)
            files = reproduce.write_outputs(figure, rows, checks, Path(opts["out"]), runs)
            self._report(figure, rows, checks, files)
            record[figure.name] = {f"{c.better}>{c.worse}": c.agrees for c in checks}
            if opts["record"]:  # after each figure: a long run that fails later keeps these
                STATUS.write_text(json.dumps({**status, **record}, indent=1, sort_keys=True)
                                  + "\n")
            for c in checks:
                if status.get(figure.name, {}).get(f"{c.better}>{c.worse}") and not c.agrees:
                    flipped.append(f"{figure.name}: {c.better} > {c.worse}")
        if opts["record"]:
            self.stdout.write(f"\nrecorded {len(record)} figures in {STATUS}")
        if opts["check"] and flipped:
            raise CommandError("rankings recorded as reproduced no longer hold: "
                               + "; ".join(flipped))

    def _chosen(self, figures, opts):
        if opts["quick"]:
            return [f for f in figures if f.quick]
        if opts["check"] and not opts["figures"]:
            status = json.loads(STATUS.read_text()) if STATUS.exists() else {}
            return [f for f in figures if any(status.get(f.name, {}).values())]
        if not opts["figures"]:
            raise CommandError("name a figure (see --list)")
        by_name = {f.name: f for f in figures}
        unknown = [n for n in opts["figures"] if n not in by_name]
        if unknown:
            raise CommandError(f"unknown figure {', '.join(unknown)}; see --list")
        return [by_name[n] for n in opts["figures"]]

    def _report(self, figure, rows, checks, files):
        w = self.stdout.write
        w(f"  published ({figure.source}): {figure.claim}")
        if figure.scale:
            w(f"  scaled: {figure.scale}")
        key = figure.metrics[0]
        for row in rows:
            ci = row[key]
            setting = ", ".join(f"{k}={v}" for k, v in row["setting"].items()) or "-"
            mean = "n/a" if ci["mean"] is None else f"{ci['mean']:.4g}"
            half = "" if ci["half_width"] is None else f" ± {ci['half_width']:.3g}"
            w(f"  {setting:<30} {row['policy']:<22} {key} {mean}{half}  (n={row['n']})")
        for c in checks:
            w(f"  ranking {c.better} > {c.worse}: "
              f"{'agrees' if c.agrees else 'DOES NOT AGREE'}")
        w("  wrote " + ", ".join(str(p) for p in files.values()))
