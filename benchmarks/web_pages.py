"""Page weight, server render time and first load in Chromium of an experiment page.

Builds a `ch3-5k` experiment with 8 policies x 3 trials in a scratch SQLite database (the runs
are simulated by the real engine in a process pool and cached under .run/bench/ so reruns are
quick), then renders its share page with Django's test client and prints:

* server render time of the experiment page (median and p95 over --repeat renders),
* bytes of embedded figure data and of the whole HTML,
* the same for the side-by-side page and the per-run Gantt figure endpoint;

then serves the site on loopback the way `make run` does (`manage.py runserver`, DEBUG=1) and,
with --gunicorn, the way docker-compose does (gunicorn after collectstatic, DEBUG=0), and loads
the page in headless Chromium with a cold cache (a fresh browser context each time), printing
per load: bytes transferred, time to the load event, to the first chart drawn, to every chart
in the first screen drawn ("first result-page load") and to every chart drawn, plus the time
to fetch and draw the run's node Gantt. Machine load (uptime) is printed beside the figures.

    .venv/bin/python benchmarks/web_pages.py [--preset ch3-5k] [--trials 3] [--repeat 20]
        [--loads 3] [--no-browser] [--gunicorn]
    .venv/bin/python benchmarks/web_pages.py --kind many-task --preset fig6-synth15k \
        --trials 100 --policies random,random+chop,sorted,sorted+chop   # the many-task default
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

POLICIES = ["random", "conservative", "easy", "fcfs-mq", "max-util-ph", "max-upr-ph",
            "max-upe-ph", "meta-event"]


def simulate(args):
    kind, params, policy, seed, cache = args
    from scheduling.engine import simulate as run

    path = Path(cache) / f"{policy}-{seed}.json"
    if path.exists():
        return path.read_text()
    text = run({"kind": kind, "params": params}, policy=policy, seed=seed).to_json(timing=True)
    path.write_text(text)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", default="parallel-energy")
    parser.add_argument("--preset", default="ch3-5k")
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--loads", type=int, default=3, help="cold browser loads per server")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--gunicorn", action="store_true",
                        help="also measure behind gunicorn with collected static files")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="hetsite-bench-")
    atexit.register(shutil.rmtree, scratch, True)  # the scratch database can reach 200 MB
    os.environ.update(DJANGO_SETTINGS_MODULE="hetsite.settings_test",
                      DATABASE_URL=f"sqlite:///{scratch}/bench.sqlite3", DEBUG="0")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from hetsite import kinds
    from hetsite.models import Run, Status
    from hetsite.services import execution, submission
    from simcore.result import Result

    setup_test_environment()
    call_command("migrate", verbosity=0)
    policies = args.policies.split(",")
    sub = submission.validate_submission(kind=args.kind, preset=args.preset,
                                         policies=policies, trials=args.trials)
    experiment = submission.create_experiment(sub, dispatch=False)
    cache = ROOT / ".run" / "bench" / args.preset
    cache.mkdir(parents=True, exist_ok=True)
    runs = list(experiment.runs.all())
    todo = [(sub.lab.kind, sub.params, r.policy, r.seed, str(cache)) for r in runs]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        texts = list(pool.map(simulate, todo))
    print(f"simulated or loaded {len(runs)} runs in {time.perf_counter() - started:.1f} s")
    ui = kinds.get_kind(args.kind)
    for run, text in zip(runs, texts, strict=True):
        Run.objects.filter(pk=run.pk).update(status=Status.RUNNING, worker="bench")
        run.refresh_from_db()
        execution.finish_run(run, ui, Result.from_dict(json.loads(text)))

    client = Client()

    def measure(url):
        times, size, body = [], 0, b""
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - t0)
            assert response.status_code == 200, (url, response.status_code)
            body = response.content
            size = len(body)
        return times, size, body

    def figure_bytes(html: bytes) -> int:
        text = html.decode()
        start = text.find('id="figures-data"')
        if start < 0:
            return 0
        start = text.index(">", start) + 1
        return len(text[start:text.index("</script>", start)].encode())

    rows = []
    page = f"/e/{experiment.public_id}/"
    compare = f"/e/{experiment.public_id}/compare/?" + "&".join(f"p={p}" for p in policies[:4])
    chart = ui.run_charts[0].id
    gantt = f"/api/runs/{runs[0].public_id}/figures/{chart}/"
    for label, url in (("experiment page", page), ("side by side (4 policies)", compare),
                       (f"{chart} (one run, on demand)", gantt)):
        times, size, body = measure(url)
        figs = figure_bytes(body) if "figures" not in url else len(body)
        rows.append((label, statistics.median(times) * 1000,
                     sorted(times)[int(0.95 * (len(times) - 1))] * 1000, figs, size))
    print(f"\n{args.preset}: {len(policies)} policies x {args.trials} trials "
          f"({len(runs)} runs), {args.repeat} renders each")
    print(f"{'page':<34} {'median ms':>10} {'p95 ms':>8} {'figure data':>12} {'HTML':>10}")
    for label, med, p95, figs, size in rows:
        print(f"{label:<34} {med:>10.1f} {p95:>8.1f} {figs / 1e6:>10.3f} MB {size / 1e6:>7.3f} MB")
    print("targets: experiment page < 300 ms on the server, < 2 MB of figure data")
    if not args.no_browser:
        db = os.environ["DATABASE_URL"]
        servers = [("runserver, DEBUG=1 (make run)", "runserver")]
        if args.gunicorn:
            servers.append(("gunicorn, DEBUG=0, collectstatic (docker)", "gunicorn"))
        for label, how in servers:
            browser_loads(label, how, db, scratch, page, gantt, args.loads)
    return 0


def uptime() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def serve(how: str, db: str, scratch: str):
    """Start the web server in a subprocess; returns (process, base URL)."""
    import socket
    import subprocess

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, DATABASE_URL=db, PYTHONUNBUFFERED="1",
               CELERY_BROKER_URL="memory://", CELERY_RESULT_BACKEND="cache+memory://",
               SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0")
    env.pop("DJANGO_SETTINGS_MODULE", None)
    if how == "runserver":
        env["DEBUG"] = "1"
        cmd = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
    else:
        env.update(DEBUG="0", STATIC_ROOT=f"{scratch}/static", SECRET_KEY="bench" * 10)
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                       cwd=ROOT, env=env, check=True)
        cmd = [sys.executable, "-m", "gunicorn", "hetsite.wsgi:application", "--bind",
               f"127.0.0.1:{port}", "--workers", "2", "--log-level", "warning"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{how} did not start")


# Charts drawn by Plotly (works for any version of the page's script).
DRAWN = ("() => Array.from(document.querySelectorAll('.chart'))"
         ".filter(el => el.querySelector('.main-svg'))")
VISIBLE = ("() => Array.from(document.querySelectorAll('.chart[id^=chart-]')).filter(el => {"
           " const r = el.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; })")


def browser_loads(label, how, db, scratch, page_url, gantt_url, loads):
    import signal

    from playwright.sync_api import sync_playwright

    proc, base = serve(how, db, scratch)
    rows = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])
            for k in range(loads + 1):  # the first load warms the server (and is not counted)
                # The lab's CSP has no 'unsafe-eval'; Playwright's polled predicates need it.
                context = browser.new_context(viewport={"width": 1400, "height": 900},
                                              bypass_csp=True)
                pg = context.new_page()
                t0 = time.perf_counter()
                pg.goto(base + page_url, wait_until="load", timeout=120_000)
                t_load = time.perf_counter() - t0
                pg.wait_for_function(f"({DRAWN})().length >= 1", timeout=120_000)
                t_first = time.perf_counter() - t0
                pg.wait_for_function(
                    f"({VISIBLE})().every(el => el.querySelector('.main-svg'))", timeout=120_000)
                t_screen = time.perf_counter() - t0
                pg.wait_for_function(
                    f"({DRAWN})().length === document.querySelectorAll('.chart[id^=chart-]')"
                    ".length", timeout=120_000)
                t_all = time.perf_counter() - t0
                transferred = pg.evaluate(
                    "() => performance.getEntriesByType('resource').concat("
                    "performance.getEntriesByType('navigation'))"
                    ".reduce((s, e) => s + (e.transferSize || 0), 0)")
                plotly = pg.evaluate(
                    "() => (performance.getEntriesByType('resource').find(e => "
                    "e.name.includes('plotly')) || {})")
                t1 = time.perf_counter()
                pg.evaluate("async url => { const r = await fetch(url); const f = await r.json();"
                            " const el = document.createElement('div'); el.style.height='520px';"
                            " document.body.appendChild(el);"
                            " await Plotly.newPlot(el, f.data, f.layout); }", gantt_url)
                t_gantt = time.perf_counter() - t1
                if k:
                    rows.append((transferred, plotly.get("transferSize", 0),
                                 plotly.get("encodedBodySize", 0), t_load, t_first, t_screen,
                                 t_all, t_gantt))
                context.close()
            browser.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)
    print(f"\nfirst load in Chromium, cold cache, {label}; load average {uptime()}")
    print(f"{'load':>4} {'bytes':>9} {'plotly.js':>10} {'load ev.':>9} {'1st chart':>10} "
          f"{'1st screen':>11} {'all charts':>11} {'Gantt':>7}")
    for i, (total, ptx, _body, t_load, t_first, t_screen, t_all, t_gantt) in enumerate(rows, 1):
        print(f"{i:>4} {total / 1e6:>7.2f}MB {ptx / 1e6:>8.2f}MB {t_load:>8.2f}s "
              f"{t_first:>9.2f}s {t_screen:>10.2f}s {t_all:>10.2f}s {t_gantt:>6.2f}s")
    med = statistics.median
    print(f"median: first screen drawn {med([r[5] for r in rows]):.2f} s "
          f"(target < 1.5 s), all charts {med([r[6] for r in rows]):.2f} s, "
          f"node Gantt fetched and drawn {med([r[7] for r in rows]):.2f} s (target < 3 s); "
          f"plotly.js sent as {rows[0][1] / 1e6:.2f} MB of {rows[0][2] / 1e6:.2f} MB")


if __name__ == "__main__":
    sys.exit(main())
