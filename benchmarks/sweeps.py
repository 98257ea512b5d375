"""Sweeps on every core and every worker: one 40-run sweep with 1 worker process, then 2.

1. The CLI: ``python -m scheduling.engine sweep ... --jobs 1`` and ``--jobs 2`` (whole command,
   wall and CPU of the process tree).
2. The lab: the same sweep submitted as an experiment (``submission.create_experiment``, runs
   enqueued costliest first) to a real Celery worker started with
   ``CELERY_WORKER_CONCURRENCY=1`` and then ``=2``, against a private ``redis-server`` and a
   throwaway SQLite database that this script starts and removes. Makespan = first run
   created to last run finished (database timestamps).

Target (issue 15): >= 1.8x faster with 2 worker processes than with 1, on a 2-core machine.
Speed-ups need two idle cores: the load average is printed before and after each part, and
"busy" is the summed run time over (makespan x workers), the share of the workers' time spent
in runs.

    python benchmarks/sweeps.py [--part cli|celery|both] [--trials 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _measure import REPO, load, machine, measure

TARGET = 1.8
# 4 policies x 2 points x 5 seeds = 40 runs of the ch3 'small' preset, uneven costs on purpose.
KIND, PRESET = "parallel-energy", "small"
POLICIES = ["easy", "max-upe-ph", "max-upr-ph+epr", "meta-event"]
AXIS = ("workload.tasks_per_day", [500.0, 1000.0])

SUBMIT_AND_WAIT = r'''
import json, sys, time
import django
django.setup()
from hetsite.models import Run, Status
from hetsite.services import submission
spec, timeout = json.loads(sys.argv[1]), float(sys.argv[2])
experiment = submission.create_experiment(submission.validate_submission(**spec))
final = (Status.DONE, Status.FAILED, Status.CANCELLED)
deadline = time.monotonic() + timeout
while Run.objects.filter(experiment=experiment).exclude(status__in=final).exists():
    if time.monotonic() > deadline:
        sys.exit("timed out")
    time.sleep(0.1)
runs = list(Run.objects.filter(experiment=experiment))
created = min(r.created for r in runs)
finished = max(r.finished for r in runs)
print(json.dumps({
    "runs": len(runs), "done": sum(r.status == Status.DONE for r in runs),
    "makespan_s": (finished - created).total_seconds(),
    "run_s": sum((r.finished - r.started).total_seconds() for r in runs if r.started),
    "first_starts": [r.policy for r in sorted(runs, key=lambda r: r.started)[:4]],
    # run seconds in the order the workers started them, and in the rows' own order
    "sent": [(r.finished - r.started).total_seconds()
             for r in sorted(runs, key=lambda r: r.started)],
    "stored": [(r.finished - r.started).total_seconds()
               for r in sorted(runs, key=lambda r: (r.point, r.trial, r.pk))],
}))
'''


def list_schedule(durations: list[float], workers: int) -> float:
    """Makespan when ``workers`` idle processes take runs in this order as they free up."""
    free = [0.0] * workers
    for d in durations:
        i = free.index(min(free))
        free[i] += d
    return max(free)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def stop(proc: subprocess.Popen, timeout: float = 30.0) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cli(trials: int) -> dict[int, dict]:
    print(f"\n1. CLI sweep, {len(POLICIES) * len(AXIS[1]) * trials} runs "
          f"(load average {load()})")
    out = {}
    for jobs in (1, 2):
        cmd = [sys.executable, "-m", "scheduling.engine", "sweep", "--preset", PRESET,
               "--policies", ",".join(POLICIES), "--seeds", f"0-{trials - 1}",
               "--vary", f"{AXIS[0]}={','.join(str(v) for v in AXIS[1])}", "--jobs", str(jobs)]
        m = measure(cmd)
        if not m.ok:
            print(f"   --jobs {jobs}: FAILED {m.stderr.strip()[-300:]}")
            return out
        out[jobs] = {"wall_s": m.wall_s, "cpu_s": m.cpu_s}
        print(f"   --jobs {jobs}: {m.wall_s:7.1f} s wall, {m.cpu_s:7.1f} s CPU (all processes), "
              f"load average after {load()}", flush=True)
    if 1 in out and 2 in out:
        speed = out[1]["wall_s"] / out[2]["wall_s"]
        print(f"   speed-up with 2 processes: {speed:.2f}x (target >= {TARGET}x)")
    return out


def celery(trials: int, timeout: float) -> dict[int, dict]:
    redis = shutil.which("redis-server")
    if redis is None:
        print("\n2. Celery: redis-server is not installed; skipped")
        return {}
    n = len(POLICIES) * len(AXIS[1]) * trials
    print(f"\n2. Lab sweep on a real Celery worker, {n} runs (load average {load()})")
    out = {}
    with tempfile.TemporaryDirectory(prefix="hetsite-bench-") as tmp:
        tmp = Path(tmp)
        port = free_port()
        server = subprocess.Popen(
            [redis, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp), "--save", "",
             "--appendonly", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_for_port(port)
            url = f"redis://127.0.0.1:{port}/0"
            env = dict(os.environ, DJANGO_SETTINGS_MODULE="hetsite.settings",
                       DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}", SECRET_KEY="bench",
                       REDIS_URL=url, CELERY_BROKER_URL=url, CELERY_RESULT_BACKEND=url,
                       CELERY_TASK_ALWAYS_EAGER="0", HETSITE_TRACE_UPLOAD_DIR=str(tmp / "up"),
                       PYTHONUNBUFFERED="1")
            migrate = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"],
                                     cwd=REPO, env=env, capture_output=True, text=True)
            if migrate.returncode != 0:
                print(f"   migrate FAILED: {migrate.stderr.strip()[-300:]}")
                return out
            spec = {"kind": KIND, "preset": PRESET, "policies": POLICIES, "trials": trials,
                    "base_seed": 0, "axes": [{"param": AXIS[0], "values": AXIS[1]}]}
            for workers in (1, 2):
                out[workers] = one_worker(env, workers, spec, tmp, timeout)
                if out[workers] is None:
                    return out
        finally:
            stop(server)
    if out.get(1) and out.get(2):
        speed = out[1]["makespan_s"] / out[2]["makespan_s"]
        print(f"   speed-up with 2 worker processes: {speed:.2f}x (target >= {TARGET}x)")
        # The ordering's share of the speed-up, from the single worker's own run times: two
        # dedicated processes taking the runs in the order sent (costliest first) vs the rows'
        # order (point, trial), as a dispatcher without cost estimates would.
        runs = out[1]
        total = sum(runs["sent"])
        sent, stored = list_schedule(runs["sent"], 2), list_schedule(runs["stored"], 2)
        print(f"   the same run times on 2 dedicated processes: {total / sent:.2f}x in the order "
              f"sent (costliest first), {total / stored:.2f}x in the rows' order")
    return out


def one_worker(env: dict, workers: int, spec: dict, tmp: Path, timeout: float) -> dict | None:
    log_path = tmp / f"worker-{workers}.log"
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "hetsite", "worker", "--loglevel", "INFO",
             "--concurrency", str(workers), "--hostname", f"bench{workers}-{os.getpid()}@%h",
             "--without-gossip", "--without-mingle"],
            cwd=REPO, env=dict(env, CELERY_WORKER_CONCURRENCY=str(workers)), stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while " ready." not in log_path.read_text():
                if worker.poll() is not None or time.monotonic() > deadline:
                    print(f"   worker did not start:\n{log_path.read_text()[-500:]}")
                    return None
                time.sleep(0.1)
            done = subprocess.run([sys.executable, "-c", SUBMIT_AND_WAIT, json.dumps(spec),
                                   str(timeout)], cwd=REPO, env=env, capture_output=True,
                                  text=True)
        finally:
            stop(worker)
    if done.returncode != 0:
        print(f"   concurrency {workers}: FAILED {done.stderr.strip()[-300:]}")
        return None
    r = json.loads(done.stdout.strip().splitlines()[-1])
    busy = r["run_s"] / (r["makespan_s"] * workers)
    print(f"   CELERY_WORKER_CONCURRENCY={workers}: {r['done']}/{r['runs']} runs done, makespan "
          f"{r['makespan_s']:6.1f} s, runs busy {100 * busy:3.0f}% of the workers' time; first "
          f"started: {', '.join(r['first_starts'])}; load average after {load()}", flush=True)
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("cli", "celery", "both"), default="both")
    ap.add_argument("--trials", type=int, default=5, help="seeds per (point, policy)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="per Celery sweep, seconds")
    args = ap.parse_args()
    print(f"Sweep scaling: ch3 '{PRESET}', policies {', '.join(POLICIES)}, {AXIS[0]} in "
          f"{AXIS[1]}, {args.trials} seeds")
    print(f"machine: {machine()}")
    autogroup = Path("/proc/sys/kernel/sched_autogroup_enabled")
    if autogroup.is_file() and autogroup.read_text().strip() == "1":
        print("note: sched_autogroup is on, so under load all processes of one session share "
              "one CPU share; the speed-ups below need a quiet machine")
    if args.part in ("cli", "both"):
        cli(args.trials)
    if args.part in ("celery", "both"):
        celery(args.trials, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
