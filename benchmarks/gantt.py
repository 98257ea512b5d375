"""The replay job Gantt (lublin_256 under EASY; the pbb surrogate under preemption): how long
the figure takes to build on the server and to draw in headless Chromium.

    .venv/bin/python benchmarks/gantt.py [--repeat 3]

Prints, per case: runs and rectangles drawn, the figure's JSON size, the server-side build time
(processor assignment + polygons; best of ``--repeat``) and Chromium's ``Plotly.newPlot`` time
with the shipped plotly.js (best of ``--repeat``; skipped when /usr/bin/chromium or Playwright
is missing). Target: lublin_256 draws in well under 3 s. Asserts nothing; prints the load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scheduling.engine import preset_scenario, simulate  # noqa: E402
from scheduling.hpc import gantt  # noqa: E402
from simcore.result import Result  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CASES = [("lublin_256, EASY (10,000 jobs, 256 processors)", "lublin-256", "easy", 0),
         ("pbb surrogate, duration-remaining (8,794 jobs + kills, 64 processors)",
          "pbb-surrogate", "duration-remaining", 1)]


def draw_ms(figures: list[dict], repeat: int) -> list[float | None]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return [None] * len(figures)
    if not Path(CHROMIUM).exists():
        return [None] * len(figures)
    import plotly

    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    out = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu",
                                           "--disable-dev-shm-usage"])
        (Path(tmp) / "plotly.min.js").write_bytes(plotly_js.read_bytes())
        for k, fig in enumerate(figures):
            (Path(tmp) / f"fig{k}.js").write_text(f"window.fig = {json.dumps(fig)};")
            page_html = Path(tmp) / f"fig{k}.html"
            page_html.write_text(
                "<html><body><div id=g style='width:1200px'></div>"
                f"<script src='plotly.min.js'></script><script src='fig{k}.js'></script>"
                "<script>window.ready = true;</script></body></html>")
            best = None
            for _ in range(repeat):
                page = browser.new_page(viewport={"width": 1300, "height": 800})
                page.goto(page_html.as_uri())
                page.wait_for_function("() => window.ready === true")
                ms = page.evaluate(
                    "() => { const t0 = performance.now(); const lay = Object.assign("
                    "{autosize: true}, fig.layout); return Plotly.newPlot('g', fig.data, lay, "
                    "{responsive: true}).then(() => performance.now() - t0); }")
                page.close()
                best = ms if best is None else min(best, ms)
            out.append(best)
        browser.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} cores")
    figures, rows = [], []
    for title, preset, policy, seed in CASES:
        result = Result.from_json(simulate(preset_scenario(preset), policy, seed).to_json())
        best, fig = None, None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fig = gantt.job_gantt(result)
            s = time.perf_counter() - t0
            best = s if best is None else min(best, s)
        rects = sum(sum(1 for x in t["x"] if x is None) for t in fig["data"] if t.get("fill"))
        runs = sum(len(t["x"]) for t in fig["data"] if t.get("mode") == "markers")
        figures.append(fig)
        rows.append((title, runs, rects, len(json.dumps(fig)) / 1e6, best))
    draws = draw_ms(figures, args.repeat)
    print(f"{'case':<72} {'runs':>6} {'rects':>6} {'MB':>5} {'build s':>8} {'draw ms':>8}")
    for (title, runs, rects, mb, build), ms in zip(rows, draws, strict=True):
        shown = "n/a" if ms is None else f"{ms:,.0f}"
        print(f"{title:<72} {runs:>6} {rects:>6} {mb:>5.2f} {build:>8.2f} {shown:>8}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
