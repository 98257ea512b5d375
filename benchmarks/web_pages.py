"""Page weight and server render time of an experiment page (issue: web lab).

Builds a `ch3-5k` experiment with 8 policies x 3 trials in a scratch SQLite database (the runs
are simulated by the real engine in a process pool and cached under .run/bench/ so reruns are
quick), then renders its share page with Django's test client and prints:

* server render time of the experiment page (median and p95 over --repeat renders),
* bytes of embedded figure data and of the whole HTML,
* the same for the side-by-side page and the per-run Gantt figure endpoint.

    .venv/bin/python benchmarks/web_pages.py [--preset ch3-5k] [--trials 3] [--repeat 20]
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
