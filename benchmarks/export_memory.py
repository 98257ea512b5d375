"""What one anonymous download of a huge run costs the web process (docs/reliability.md).

Builds, once, in a scratch SQLite database, a public swf-replay run on an uploaded trace of
--jobs jobs (default 500,000; FCFS), then fetches each of its downloads and pages with
Django's test client, each in a fresh child process, and prints the child's peak resident
memory above what it held once Django was set up and the run was read (VmHWM), its
wall and CPU time, and the bytes sent. A Parquet download's peak includes what pyarrow
imports at its first use (pyarrow and pandas, about 80 MB), which a serving process pays once.

    .venv/bin/python benchmarks/export_memory.py [--jobs 500000] [--only tasks.csv]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _measure import REPO, machine

sys.path.insert(0, str(REPO))
PATHS = ("tasks.csv", "tasks.parquet", "series.csv", "series.parquet", "result.json",
         "result.json+gz", "api-result", "gantt", "page", "api-experiment")
# Sent with Accept-Encoding: gzip (as a browser asks); the others with none (as curl does).
GZIP = {"result.json+gz": "result.json"}


def setup(scratch: str) -> None:
    os.environ.update(DJANGO_SETTINGS_MODULE="hetsite.settings_test",
                      DATABASE_URL=f"sqlite:///{scratch}/bench.sqlite3",
                      HETSITE_TRACE_CACHE_DIR=f"{scratch}/cache")
    import django

    django.setup()


def build(scratch: str, jobs: int) -> str:
    """The public id of a finished FCFS replay of a trace of ``jobs`` jobs."""
    import hashlib

    from django.core.management import call_command
    from upload_costs import trace

    setup(scratch)
    from hetsite.models import Experiment, Run, Scenario
    from hetsite.services import execution
    from hetsite.uploads import upload_store

    call_command("migrate", verbosity=0)
    payload = trace(jobs)
    sha = hashlib.sha256(payload).hexdigest()
    source = Path(scratch) / "trace.swf.gz"
    source.write_bytes(payload)
    upload_store().save(sha, source, records=jobs, accepts="swf")
    scenario = Scenario.objects.create(kind="swf-replay", name="huge",
                                       params={"trace": f"upload:{sha}"})
    experiment = Experiment.objects.create(name="huge", kind="swf-replay", scenario=scenario,
                                           policies=["fcfs"], trials=1)
    run = Run.objects.create(experiment=experiment, policy="fcfs", trial=0, seed=0)
    status = execution.execute_run(run.pk)
    run.refresh_from_db()
    if status != "done":
        raise SystemExit(f"the run did not finish: {status} {run.error}")
    print(f"built: {jobs:,} jobs, result {run.result_bytes / 1e6:.1f} MB JSON, "
          f"{len(run.result_gz) / 1e6:.1f} MB stored")
    return str(run.public_id)


def status_mb(field: str) -> float:
    """A figure of /proc/self/status in MB (ru_maxrss would include the parent's, whose
    memory a fork and exec carry over into the child's peak)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise LookupError(field)


def fetch(scratch: str, public_id: str, what: str) -> dict:
    """In this (child) process: one GET of ``what``; its memory and time."""
    setup(scratch)
    from django.test import Client
    from django.test.utils import setup_test_environment

    from hetsite.models import Run

    setup_test_environment()
    run = Run.objects.get(public_id=public_id)
    experiment = run.experiment.public_id
    url = {"api-result": f"/api/runs/{public_id}/result/",
           "gantt": f"/api/runs/{public_id}/figures/gantt/",
           "page": f"/e/{experiment}/",
           "api-experiment": f"/api/experiments/{experiment}/"}.get(
        what, f"/r/{public_id}/{GZIP.get(what, what)}")
    headers = {"HTTP_ACCEPT_ENCODING": "gzip"} if what in GZIP else {}
    del run
    client = Client()
    client.get("/")  # templates, URL resolvers and the like, loaded once
    Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from here
    before = status_mb("VmRSS")
    wall, cpu = time.perf_counter(), time.process_time()
    response = client.get(url, **headers)
    sent = sum(map(len, response.streaming_content)) if response.streaming \
        else len(response.content)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = status_mb("VmHWM")
    return {"status": response.status_code, "bytes": sent, "wall_s": wall, "cpu_s": cpu,
            "peak_mb": peak - before}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=500_000)
    parser.add_argument("--only", action="append", choices=PATHS)
    parser.add_argument("--child", nargs=3, metavar=("SCRATCH", "RUN", "WHAT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(fetch(*args.child)))
        return 0
    scratch = tempfile.mkdtemp(prefix="hetsite-bench-")
    try:
        print(machine())
        public_id = build(scratch, args.jobs)
        print(f"{'download':<14} {'status':>6} {'MB sent':>9} {'wall s':>7} {'CPU s':>6} "
              f"{'peak MB':>8}")
        for what in args.only or PATHS:
            out = subprocess.run([sys.executable, __file__, "--child", scratch, public_id, what],
                                 capture_output=True, text=True, cwd=REPO, check=True)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{what:<14} {got['status']:>6} {got['bytes'] / 1e6:>9.1f} "
                  f"{got['wall_s']:>7.2f} {got['cpu_s']:>6.2f} {got['peak_mb']:>8.0f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
