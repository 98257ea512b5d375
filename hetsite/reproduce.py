"""Reproducing a figure preset headless: run it (on the workers or in this process), tabulate
the points, draw the chart, and judge each published claim on our runs.

``python manage.py reproduce`` is a thin command over these functions; the lab's result page of
a figure experiment judges its claims with ``checks_of`` too, so both give the same verdicts.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from simcore import charts
from simcore.bounds import UNBOUNDED, interval
from simcore.charts import place_header
from simcore.claims import evaluate
from simcore.params import to_dict
from simcore.references import spell
from simcore.registry import Figure
from simcore.sweep import SweepRun, axis_value, points, sweep, table
from simcore.sweep_charts import paired_bars, point_bars, sweep_lines

from . import kinds, presenters, scoreboard, selectors
from .models import FINAL_STATUSES, Experiment
from .services import submission


def run_in_process(figure: Figure, trials: int | None = None, jobs: int = 1,
                   progress=None, first_seed: int | None = None,
                   known: dict | None = None, with_policies=()) -> list[SweepRun]:
    """Every run of the figure (and of ``with_policies``, other policies of its kind) through
    the core sweep runner, ``jobs`` processes; runs found in ``known`` (another figure's
    identical runs, see simcore.sweep) are not run again."""
    sub = submission.figure_submission(figure.name, trials, _first(figure, first_seed),
                                       with_policies)
    engine = sub.kind_lab.engine.ENGINE
    total = len(sub.points) * len(sub.policies) * sub.trials
    done = []

    def seen(run: SweepRun) -> None:
        done.append(run)
        if progress:
            progress(len(done), total)

    return sweep(engine, engine.scenario(sub.kind_lab.kind, sub.params),
                 [(a["param"], a["values"]) for a in sub.axes], sub.policies,
                 range(sub.base_seed, sub.base_seed + sub.trials), jobs=jobs, on_run=seen,
                 known=known)


def run_on_workers(figure: Figure, trials: int | None = None, progress=None,
                   poll: float = 1.0, first_seed: int | None = None, with_policies=(),
                   ) -> tuple[Experiment, list[SweepRun]]:
    """Submit the figure as an experiment, wait for the workers to finish it."""
    experiment = submission.create_experiment(submission.figure_submission(
        figure.name, trials, _first(figure, first_seed), with_policies))
    total = experiment.runs.count()
    while True:
        experiment.refresh_from_db()
        finished = experiment.runs.filter(status__in=FINAL_STATUSES).count()
        if progress:
            progress(finished, total)
        if experiment.status in FINAL_STATUSES:
            break
        time.sleep(poll)
    return experiment, selectors.sweep_runs(experiment, timing=True)


def _first(figure: Figure, first_seed: int | None) -> int:
    return figure.first_seed if first_seed is None else first_seed


def cpu_seconds(runs: list[SweepRun]) -> float:
    """The simulations' CPU time (each run's own, wherever it ran)."""
    return sum(float(r.timing.get("cpu_s") or 0.0) for r in runs)


def checks_of(figure: Figure, runs: list[SweepRun]) -> list[dict]:
    """Every published claim of the figure judged on these runs (simcore.claims.evaluate)."""
    return evaluate(figure.claims, runs)


def rows_of(figure: Figure, runs: list[SweepRun]) -> list[dict]:
    return table(runs, list(figure.metrics), baseline=figure.baseline)


def bounds_of(figure: Figure, runs: list[SweepRun]) -> dict:
    """Each metric's range over the figure's runs, as the lab's pages keep it
    (presenters.metric_bounds): declared, or set by the scenario at each point (the energy a
    point's budget allows)."""
    kind_lab = kinds.get_kind(figure.kind)
    if not kind_lab or not any(m.upper_of is not None for m in kind_lab.metrics):
        return presenters.metric_bounds(kind_lab, None, [])
    engine = kind_lab.engine.ENGINE
    params = to_dict(engine.preset_scenario(figure.preset, figure.overrides).params)
    return presenters.metric_bounds(kind_lab, params, runs)


def figures_of(figure: Figure, rows: list[dict], bounds: dict | None = None) -> list[dict]:
    """The figure's charts as the lab draws a sweep's: each metric against the swept parameter
    (or per policy), and the paired difference to the baseline when the figure names one;
    policies by name in their colours, intervals kept inside the metric's range (``bounds``:
    :func:`bounds_of` the runs, else the declared ranges)."""
    kind_lab = kinds.get_kind(figure.kind)
    metrics = {m.key: m for m in kind_lab.metrics} if kind_lab else {}
    ranges = bounds or {k: m.bounds for k, m in metrics.items()}
    order = list(figure.policies)
    colour_of = kind_lab.policy_color if kind_lab else charts.policy_color
    axes = [{"param": p, "values": list(v)} for p, v in figure.axes]
    titles = {p: presenters.param_title(kind_lab, p) for p, _ in figure.axes}
    out = []
    for key in figure.metrics:
        m = metrics.get(key)
        title, unit = (m.label, m.unit) if m else (key, "")
        bounds = ranges.get(key, UNBOUNDED)
        if axes:
            fig = sweep_lines(rows, axes, key, title, unit, order, colour_of, bounds=bounds,
                              axis_titles=titles)
        else:
            fig = point_bars(rows, key, title, unit, order, colour_of, bounds=bounds)
        out.append({"id": key, "title": title, "figure": place_header(fig)})
        if figure.baseline:
            shown = [p for p in order if p != figure.baseline]
            if axes:
                diff = sweep_lines(rows, axes, f"{key}:diff",
                                   f"{title}: difference to {figure.baseline}", unit, shown,
                                   colour_of, bounds=bounds.difference(), axis_titles=titles)
            else:
                diff = paired_bars(rows, key, figure.baseline, title, unit, order, colour_of,
                                   bounds=bounds)
            out.append({"id": f"{key}-diff", "title": f"{title} vs {figure.baseline}",
                        "figure": place_header(diff)})
    return out


def points_csv(figure: Figure, rows: list[dict], bounds: dict | None = None) -> str:
    """One line per (point, policy): the setting, n, and mean/low/high of every metric (and
    of its paired difference to the baseline), the interval kept inside the metric's range
    (``bounds``: :func:`bounds_of` the runs, else the declared ranges)."""
    params = [p for p, _ in figure.axes]
    kind_lab = kinds.get_kind(figure.kind)
    declared = bounds or ({m.key: m.bounds for m in kind_lab.metrics} if kind_lab else {})
    bounds = {k: declared.get(k, UNBOUNDED) for k in figure.metrics}
    if figure.baseline:
        bounds |= {f"{k}:diff": declared.get(k, UNBOUNDED).difference() for k in figure.metrics}
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["point", *params, "policy", "n",
                     *[f"{k}_{part}" for k in bounds for part in ("mean", "low", "high")]])
    for row in rows:
        cells = []
        for k, b in bounds.items():
            ci = interval(row.get(k), b.at(row.get("point")))
            cells += [ci.mean, ci.low, ci.high]
        writer.writerow([row["point"], *[axis_value(row["setting"], p) for p in params],
                         row["policy"], row["n"], *["" if c is None else c for c in cells]])
    return buf.getvalue()


def standalone_html(figure: Figure, charts_: list[dict], checks: list[dict]) -> str:
    """One self-contained page (plotly.js inlined) with the claim, the verdicts and the charts."""
    import plotly.io as pio

    source = spell(figure.source, figure.kind)
    parts = [f"<h1>{_esc(figure.title)}</h1><p><b>Published</b> ({_esc(source)}): "
             f"{_esc(figure.claim)}</p>"]
    if figure.scale:
        parts.append(f"<p><b>Scaled</b>: {_esc(figure.scale)}</p>")
    if checks:
        items = "".join(f"<li>{_esc(check_line(figure, c))}</li>" for c in checks)
        parts.append(f"<ul>{items}</ul>")
    for i, item in enumerate(charts_):
        parts.append(pio.to_html(item["figure"], include_plotlyjs=(i == 0), full_html=False))
    return ("<!doctype html><html><head><meta charset='utf-8'><title>"
            f"{_esc(figure.title)}</title></head><body>{''.join(parts)}</body></html>")


def standing_line(figure: Figure, c: dict) -> str:
    """``mine vs easy on pct_max_utility, pooled over 3 points: +3.1 [1.2, 5.0] (n=4) better``"""
    shown = _interval(figure, c)
    text = (f"{c['better']} vs {c['worse']} on {c['metric']}: "
            f"{_num(c['diff_mean'], sign=True)} {shown} (n={c['n']}) ")
    return (text + c["standing"] + ("" if c["lower"] is not None else " (no better side)")
            + _cut_note(shown))


def _interval(figure: Figure, c: dict) -> str:
    return scoreboard.interval_text(c["diff_low"], c["diff_high"], c["n"],
                                    scoreboard.quantity_bounds(figure, c["metric"]), _num)


def _cut_note(*shown: str) -> str:
    return f" ({scoreboard.CUT})" if any("*" in s for s in shown) else ""


def check_line(figure: Figure, c: dict) -> str:
    """``max-upe-ph > easy on pct_max_utility at energy.budget_gj=8: +3.1 [1.2, 5.0] (n=16)
    holds; size agrees (published 73)``"""
    where = "at all points" if c["point"] is None else "at " + _setting(c["setting"])
    if "worse_point" in c:
        where = f"at {_setting(c['setting'])} against {_setting(c['worse_setting'])}"
    shown = _interval(figure, c)
    text = (f"{c['better']} {'<' if c['lower'] else '>'} {c['worse']} on {c['metric']} {where}:"
            f" {_num(c['diff_mean'], sign=True)} {shown} (n={c['n']}) {c['verdict']}")
    size = scoreboard.size_text(figure, c, _num)
    return text + (f"; {size}" if size else "") + _cut_note(shown, size)


def _setting(setting: dict | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in (setting or {}).items()) or "the one point"


def _num(x, sign: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.4g}" if sign else f"{x:.4g}"


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


def runs_csv(figure: Figure, runs: list[SweepRun]) -> str:
    """One row per run: ``point``, the point's swept values, ``policy``, ``seed``, every scalar
    metric of its summary (the union over the runs) and its CPU seconds; enough to recompute
    every check of the figure."""
    params = [p for p, _ in figure.axes]
    metrics: dict[str, None] = {}
    for run in runs:
        metrics.update((k, None) for k, v in run.summary.items() if _scalar(v))
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["point", *params, "policy", "seed", *metrics, "cpu_s"])
    for run in sorted(runs, key=lambda r: (r.point, r.policy, r.seed)):
        values = [run.summary.get(k) for k in metrics]
        writer.writerow([run.point, *[axis_value(run.setting, p) for p in params], run.policy,
                         run.seed, *["" if v is None else v for v in values],
                         run.timing.get("cpu_s", "")])
    return buf.getvalue()


def _scalar(value) -> bool:
    return value is None or isinstance(value, (int, float, str))


def read_runs_csv(figure: Figure, text: str) -> list[SweepRun]:
    """The runs of a runs CSV (see runs_csv), with each point's setting from the figure."""
    settings = points(figure.axes)
    fixed = {"point", "policy", "seed", "cpu_s", *(p for p, _ in figure.axes)}
    out = []
    for row in csv.DictReader(io.StringIO(text)):
        point = int(row["point"])
        summary = {k: _cell(v) for k, v in row.items() if k not in fixed}
        timing = {"cpu_s": float(row["cpu_s"])} if row.get("cpu_s") else {}
        out.append(SweepRun(point, settings[point], row["policy"], int(row["seed"]), summary,
                            timing))
    return out


def _cell(text: str):
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else None


def write_outputs(figure: Figure, runs: list[SweepRun], checks: list[dict], out: Path,
                  png: bool = True) -> dict:
    """Under ``out``: the points CSV, ``FIGURE-runs.csv`` (one row per run), ``FIGURE.json``
    (the figure, its seeds, the points table and ``checks``, one object per claim and point),
    a standalone HTML page and, when possible, a PNG of it."""
    rows = rows_of(figure, runs)
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / f"{figure.name}.csv", "runs": out / f"{figure.name}-runs.csv",
             "json": out / f"{figure.name}.json", "html": out / f"{figure.name}.html",
             "png": out / f"{figure.name}.png"}
    ranges = bounds_of(figure, runs)
    files["csv"].write_text(points_csv(figure, rows, ranges))
    files["runs"].write_text(runs_csv(figure, runs))
    added = scoreboard.standing_of(figure, runs)
    files["json"].write_text(json.dumps({"figure": figure.public(),
                                         "seeds": sorted({r.seed for r in runs}), "rows": rows,
                                         "checks": checks,
                                         **({"standing": added} if added else {})},
                                        indent=1, default=str))
    files["html"].write_text(standalone_html(figure, figures_of(figure, rows, ranges), checks))
    why = screenshot(files["html"], files["png"]) if png else "not asked for"
    if why:
        files.pop("png")
        if png:
            print(f"  (no PNG: {why})", file=sys.stderr)
    return files
