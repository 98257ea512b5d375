"""Reproducing a figure preset headless: run it (on the workers or in this process), tabulate
the points, draw the chart, and check the published ranking against ours.

``python manage.py reproduce`` is a thin command over these functions; the lab's figure pages
use ``ranking_checks`` to put the published finding beside ours.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from simcore import charts
from simcore.cli import RunWriter
from simcore.registry import Figure
from simcore.sweep import SweepRun, axis_value, sweep, table
from simcore.sweep_charts import paired_bars, point_bars, sweep_lines

from . import kinds, selectors
from .models import FINAL_STATUSES, Experiment
from .services import submission


@dataclass(frozen=True)
class Check:
    better: str
    worse: str
    agrees: bool
    # (better's mean, worse's mean) per point compared (one entry when not per point)
    means: list[tuple[float | None, float | None]]


def run_in_process(figure: Figure, trials: int | None = None, jobs: int = 1,
                   progress=None, first_seed: int = 0) -> list[SweepRun]:
    """Every run of the figure through the core sweep runner, ``jobs`` processes."""
    sub = submission.figure_submission(figure.name, trials, first_seed)
    engine = sub.lab.engine.ENGINE
    total = len(sub.points) * len(sub.policies) * sub.trials
    done = []

    def seen(run: SweepRun) -> None:
        done.append(run)
        if progress:
            progress(len(done), total)

    return sweep(engine, engine.scenario(sub.lab.kind, sub.params),
                 [(a["param"], a["values"]) for a in sub.axes], sub.policies,
                 range(sub.base_seed, sub.base_seed + sub.trials), jobs=jobs, on_run=seen)


def run_on_workers(figure: Figure, trials: int | None = None, progress=None,
                   poll: float = 1.0, first_seed: int = 0) -> tuple[Experiment, list[SweepRun]]:
    """Submit the figure as an experiment, wait for the workers to finish it."""
    experiment = submission.create_experiment(
        submission.figure_submission(figure.name, trials, first_seed))
    total = experiment.runs.count()
    while True:
        experiment.refresh_from_db()
        finished = experiment.runs.filter(status__in=FINAL_STATUSES).count()
        if progress:
            progress(finished, total)
        if experiment.status in FINAL_STATUSES:
            break
        time.sleep(poll)
    return experiment, selectors.sweep_runs(experiment)


def rows_of(figure: Figure, runs: list[SweepRun]) -> list[dict]:
    return table(runs, list(figure.metrics), baseline=figure.baseline)


def ranking_checks(figure: Figure, rows: list[dict]) -> list[Check]:
    """Does each published (better, worse) pair hold on the figure's first metric?

    Compared on the mean over all points, or at every point with ``per_point``."""
    key = figure.metrics[0]
    sign = -1.0 if figure.lower_is_better else 1.0
    out = []
    for better, worse in figure.ranking:
        by_point = {}
        for row in rows:
            if row["policy"] in (better, worse):
                by_point.setdefault(row["point"], {})[row["policy"]] = (row[key] or {}).get("mean")
        pairs = [(v.get(better), v.get(worse)) for _, v in sorted(by_point.items())]
        if not figure.per_point:
            b = [p[0] for p in pairs if p[0] is not None]
            w = [p[1] for p in pairs if p[1] is not None]
            pairs = [(sum(b) / len(b) if b else None, sum(w) / len(w) if w else None)]
        agrees = bool(pairs) and all(b is not None and w is not None and sign * (b - w) > 0
                                     for b, w in pairs)
        out.append(Check(better, worse, agrees, pairs))
    return out


def figures_of(figure: Figure, rows: list[dict]) -> list[dict]:
    """The figure's charts: each metric against the swept parameter (or per policy), and the
    paired difference to the baseline when the figure names one."""
    lab = kinds.get_kind(figure.kind)
    units = {m.key: (m.label, m.unit) for m in lab.metrics} if lab else {}
    labels = {p.name: p.label for p in lab.engine.ENGINE.list_policies(figure.kind)} \
        if lab else {}
    order = list(figure.policies)
    colour_of = lab.policy_color if lab else charts.policy_color

    axes = [{"param": p, "values": list(v)} for p, v in figure.axes]
    out = []
    for key in figure.metrics:
        title, unit = units.get(key, (key, ""))
        if axes:
            fig = sweep_lines(rows, axes, key, title, unit, order, colour_of, labels)
        else:
            fig = point_bars(rows, key, title, unit, order, colour_of, labels)
        out.append({"id": key, "title": title, "figure": fig})
        if figure.baseline:
            shown = [p for p in order if p != figure.baseline]
            versus = labels.get(figure.baseline, figure.baseline)
            if axes:
                diff = sweep_lines(rows, axes, f"{key}:diff", f"{title}: difference to {versus}",
                                   unit, shown, colour_of, labels)
            else:
                diff = paired_bars(rows, key, figure.baseline, title, unit, order, colour_of,
                                   labels)
            out.append({"id": f"{key}-diff", "title": f"{title} vs {figure.baseline}",
                        "figure": diff})
    return out


def points_csv(figure: Figure, rows: list[dict]) -> str:
    """One line per (point, policy): the setting, n, and mean/low/high of every metric."""
    params = [p for p, _ in figure.axes]
    keys = list(figure.metrics) + ([f"{m}:diff" for m in figure.metrics]
                                   if figure.baseline else [])
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["point", *params, "policy", "n",
                     *[f"{k}_{part}" for k in keys for part in ("mean", "low", "high")]])
    for row in rows:
        cells = []
        for k in keys:
            ci = row.get(k) or {}
            cells += [ci.get("mean"), ci.get("low"), ci.get("high")]
        writer.writerow([row["point"], *[axis_value(row["setting"], p) for p in params],
                         row["policy"], row["n"], *["" if c is None else c for c in cells]])
    return buf.getvalue()


def standalone_html(figure: Figure, charts_: list[dict], checks: list[Check]) -> str:
    """One self-contained page (plotly.js inlined) with the claim, the checks and the charts."""
    import plotly.io as pio

    parts = [f"<h1>{_esc(figure.title)}</h1><p><b>Published</b> ({_esc(figure.source)}): "
             f"{_esc(figure.claim)}</p>"]
    if figure.scale:
        parts.append(f"<p><b>Scaled</b>: {_esc(figure.scale)}</p>")
    if checks:
        items = "".join(f"<li>{_esc(c.better)} &gt; {_esc(c.worse)}: "
                        f"{'agrees' if c.agrees else 'does not agree'}</li>" for c in checks)
        parts.append(f"<ul>{items}</ul>")
    for i, item in enumerate(charts_):
        parts.append(pio.to_html(item["figure"], include_plotlyjs=(i == 0), full_html=False))
    return ("<!doctype html><html><head><meta charset='utf-8'><title>"
            f"{_esc(figure.title)}</title></head><body>{''.join(parts)}</body></html>")


def _esc(text: str) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def screenshot(html_path: Path, png_path: Path) -> str | None:
    """PNG of the page through the system Chromium; None, or the reason it was not made."""
    chromium = Path("/usr/bin/chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "playwright is not installed (pip install -r requirements-dev.txt)"
    if not chromium.exists():
        return "/usr/bin/chromium is not installed"
    # A thread of its own: the sync API refuses a thread whose asyncio loop is running
    # (a notebook, or a test session that already drives a browser).
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_shoot, sync_playwright, chromium, html_path, png_path).result()
    return None


def _shoot(sync_playwright, chromium: Path, html_path: Path, png_path: Path) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 800})
            page.goto(html_path.resolve().as_uri())
            page.wait_for_selector(".plot-container", timeout=20_000)
            page.screenshot(path=str(png_path), full_page=True)
        finally:
            browser.close()


def write_outputs(figure: Figure, rows: list[dict], checks: list[Check], out: Path,
                  runs: list[SweepRun] = ()) -> dict:
    """points CSV, runs CSV (one row per run, for paired comparisons), table JSON with the
    seeds, standalone HTML and (when possible) PNG under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / f"{figure.name}.csv", "runs": out / f"{figure.name}-runs.csv",
             "json": out / f"{figure.name}.json", "html": out / f"{figure.name}.html",
             "png": out / f"{figure.name}.png"}
    files["csv"].write_text(points_csv(figure, rows))
    writer = RunWriter(str(files["runs"]), None)
    for run in sorted(runs, key=lambda r: (r.point, r.policy, r.seed)):
        writer(figure.preset, run)
    writer.close()
    files["json"].write_text(json.dumps({"figure": figure.public(),
                                         "seeds": sorted({r.seed for r in runs}), "rows": rows,
                                         "checks": [c.__dict__ for c in checks]},
                                        indent=1, default=str))
    files["html"].write_text(standalone_html(figure, figures_of(figure, rows), checks))
    why = screenshot(files["html"], files["png"])
    if why:
        files.pop("png")
        print(f"  (no PNG: {why})", file=sys.stderr)
    return files
