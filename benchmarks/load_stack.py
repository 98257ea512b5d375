"""Load test: many anonymous clients creating, polling and reading at once against the
compose stack run without Docker (PostgreSQL, redis-server, gunicorn with 3 workers as in
docker-compose.yml, Celery workers), for several minutes; then every accepted run must finish
exactly once.

    python benchmarks/load_stack.py [--users 40] [--spawn-rate 4] [--minutes 3]
                                    [--workers 2] [--out /tmp/hetsite-load] [--shared-address]

The clients are benchmarks/load/locustfile.py (Locust, pinned in requirements-dev.txt), each from
its own loopback address. Printed: requests per second, the 95th percentile latency per
endpoint and overall, the count of 5xx answers, the answers by status, the experiments and
runs accepted, how long the queue took to drain afterwards, the machine's load average while
the clients ran, and the exactly-once check: every run of every accepted experiment is
``done``, claimed once (``attempts == 1``), and the workers' logs show exactly one successful
finish per run. Exit status 1 if a check fails.
Traffic goes to 127.0.0.0/8 only; the test stops by itself.
"""

from __future__ import annotations

import argparse
import csv
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCUSTFILE = ROOT / "benchmarks" / "load" / "locustfile.py"


def helpers():
    """The test suite's server helpers (throwaway PostgreSQL and redis-server)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("suite_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wait_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"{url} did not answer 200 within {timeout} s")


def query(cluster, sql: str):
    import psycopg2

    conn = psycopg2.connect(host="127.0.0.1", port=cluster.port, user="postgres",
                            dbname="hetsite")
    try:
        with conn.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--spawn-rate", type=float, default=4.0)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes")
    parser.add_argument("--drain-minutes", type=float, default=15.0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--shared-address", action="store_true",
                        help="every client from one address: one account, one throttle")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="hetsite-load-"))
    out.mkdir(parents=True, exist_ok=True)
    h = helpers()
    prefix, uid, gid = h.postgres_runner()
    pg_dir = Path(tempfile.mkdtemp(prefix="hetsite-load-pg-"))
    os.chown(pg_dir, uid, gid)
    cluster = h._start_postgres(pg_dir, prefix, h.postgres_bindir())
    procs: list[subprocess.Popen] = []
    logs = []
    try:
        cluster.execute('CREATE DATABASE "hetsite"')
        redis_port = h.free_port()
        procs.append(h.start_redis(redis_port, out))
        web_port = h.free_port()
        env = dict(os.environ, DJANGO_SETTINGS_MODULE="hetsite.settings", DEBUG="0",
                   SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="127.0.0.1",
                   DATABASE_URL=f"postgres://postgres@127.0.0.1:{cluster.port}/hetsite",
                   REDIS_URL=f"redis://127.0.0.1:{redis_port}/0", SECURE_SSL_REDIRECT="0",
                   SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0", PYTHONUNBUFFERED="1",
                   STATIC_ROOT=str(out / "static"))
        for key in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CELERY_TASK_ALWAYS_EAGER"):
            env.pop(key, None)
        # As the image and the compose web command do.
        for command in (["collectstatic", "--noinput"], ["migrate", "--noinput"],
                        ["load_presets"]):
            subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env,
                           check=True, capture_output=True)

        def start(name, cmd):
            log = open(out / f"{name}.log", "w")  # noqa: SIM115 - closed at the end
            logs.append(log)
            procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True))

        start("web", [sys.executable, "-m", "gunicorn", "hetsite.wsgi:application", "--bind",
                      f"127.0.0.1:{web_port}", "--workers", "3", "--timeout", "60"])
        for i in range(args.workers):
            start(f"worker{i}", [sys.executable, "-m", "celery", "-A", "hetsite", "worker",
                                 "--loglevel", "INFO", "--concurrency", "1",
                                 "--hostname", f"load{i}@%h"])
        base = f"http://127.0.0.1:{web_port}"
        wait_http(f"{base}/healthz", 60)
        print(f"stack up: gunicorn :{web_port}, redis :{redis_port}, postgres :{cluster.port},"
              f" {args.workers} workers; logs in {out}", flush=True)
        started = time.monotonic()
        with open(out / "locust.log", "w") as locust_log:
            locust = subprocess.Popen(
                [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE),
                 "--headless", "-u", str(args.users), "-r", str(args.spawn_rate),
                 "-t", f"{int(args.minutes * 60)}s", "--host", base,
                 "--csv", str(out / "locust"), "--only-summary", "--exit-code-on-error", "0"],
                cwd=ROOT, stdout=locust_log, stderr=subprocess.STDOUT,
                env=dict(os.environ, HETSITE_LOAD_SHARED_ADDRESS="1" if args.shared_address
                         else "0"))
            # The machine's load while the clients run: the latencies mean little without it.
            loads = []
            while locust.poll() is None:
                loads.append(os.getloadavg()[0])
                time.sleep(5)
        load_s = time.monotonic() - started
        drained = time.monotonic()
        deadline = drained + args.drain_minutes * 60
        while time.monotonic() < deadline:
            pending = query(cluster, "SELECT count(*) FROM hetsite_run WHERE status IN "
                                     "('queued', 'running')")[0][0]
            if pending == 0:
                break
            time.sleep(2)
        drain_s = time.monotonic() - drained
        return report(out, cluster, load_s, drain_s, loads, args)
    finally:
        for proc in reversed(procs):
            h.stop_process(proc)
        for log in logs:
            log.close()
        h._stop_postgres(cluster.proc)
        shutil.rmtree(pg_dir, ignore_errors=True)


def report(out: Path, cluster, load_s: float, drain_s: float, loads: list[float],
           args) -> int:
    with open(out / "locust_stats.csv") as f:
        rows = list(csv.DictReader(f))
    statuses = {}
    status_file = out / "locust_statuses.txt"
    if status_file.exists():
        for line in status_file.read_text().splitlines():
            key, count = line.rsplit("\t", 1)
            statuses[key] = int(count)
    print(f"\n{args.users} users{' behind one address' if args.shared_address else ''}, "
          f"{args.minutes:g} min, {args.workers} Celery workers; {os.cpu_count()} cores, "
          f"1-minute load average during the load {min(loads, default=0):.1f} to "
          f"{max(loads, default=0):.1f} (mean {sum(loads) / max(len(loads), 1):.1f})")
    print(f"{'endpoint':40} {'requests':>8} {'failures':>8} {'req/s':>7} {'p50 ms':>7} "
          f"{'p95 ms':>7}")
    for row in rows:
        print(f"{row['Name'][:40]:40} {row['Request Count']:>8} "
              f"{row['Failure Count']:>8} {float(row['Requests/s']):7.1f} {row['50%']:>7} "
              f"{row['95%']:>7}")
    five = sum(n for key, n in statuses.items() if key.rsplit(" ", 1)[1].startswith("5"))
    print("answers by status:", ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    runs = query(cluster, "SELECT status, attempts, count(*) FROM hetsite_run "
                          "GROUP BY status, attempts ORDER BY status, attempts")
    experiments = query(cluster, "SELECT count(*) FROM hetsite_experiment")[0][0]
    total = sum(n for _, _, n in runs)
    finishes = sum(p.read_text().count("'done'") for p in out.glob("worker*.log"))
    print(f"accepted: {experiments} experiments, {total} runs; runs by (status, attempts): "
          f"{runs}; finishes logged by the workers: {finishes}; queue drained "
          f"{drain_s:.0f} s after the {load_s:.0f} s of load")
    once = runs == [("done", 1, total)] and finishes == total
    failures = sum(int(r["Failure Count"]) for r in rows if r["Name"] == "Aggregated")
    print(f"5xx answers: {five}; failed requests: {failures}; every accepted run finished "
          f"exactly once: {'yes' if once else 'NO'}")
    return 0 if once and five == 0 and failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
