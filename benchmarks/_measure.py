"""What the whole-process benchmarks share: run a command in a child process and read the
kernel's accounting of that child (wall clock, user + system CPU, peak resident memory), take
medians, and describe the machine and its load. Run directly, it prints the machine line.

    from _measure import best, machine, measure, median, on_off
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Measured:
    wall_s: float
    cpu_s: float  # user + system time of the child itself
    max_rss_mb: float  # the child's peak resident set size
    returncode: int
    stdout: str
    stderr: str
    # The child's largest VmData seen (its private writable memory: what RLIMIT_DATA, and so
    # the workers' HETSITE_RUN_MEMORY_MB, counts), polled every 20 ms when asked for; None if not.
    peak_data_mb: float | None = None

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def best(fn, repeat: int) -> tuple[float, float, object]:
    """In this process: (best wall s, best CPU s, last result) of ``fn()`` over ``repeat`` runs."""
    wall, cpu, out = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu), out


def on_off(fn, repeat: int) -> tuple[tuple[float, float, object], tuple[float, float, object]]:
    """``fn(explain)`` with the decision trace off and on, in turn, ``repeat`` times each,
    after one warm-up run (caches, a workload generated once): the :func:`best` of each (off
    first). Alternating puts both under the same changing load of a shared machine."""
    fn(False)
    runs: dict[bool, list] = {False: [], True: []}
    for _ in range(repeat):
        for explain in (False, True):
            runs[explain].append(best(lambda e=explain: fn(e), 1))
    return tuple((min(r[0] for r in runs[e]), min(r[1] for r in runs[e]), runs[e][-1][2])
                 for e in (False, True))


def decision_log(on: bool, limit: int | None = None):
    """A benchmarked run's ``explain``: None (off), or a fresh log with the core's bounds, or
    keeping at most ``limit`` decisions (the scripts' ``--explain-limit``, the CLI's too)."""
    if not on:
        return None
    from simcore.decisions import DEFAULT_LIMIT, DecisionLog

    return DecisionLog(limit=limit or DEFAULT_LIMIT)


def limit_flag(ap) -> None:
    """``--explain-limit N`` on a benchmark that measures the decision trace."""
    ap.add_argument("--explain-limit", type=int, metavar="N",
                    help="with --explain: the log keeps at most N decisions (default: the "
                         "core's 20,000), as run --explain-limit does")


def overhead(off: float, on: float) -> str:
    """How much longer a run takes with the decision trace on, as text."""
    return f"{100.0 * (on - off) / off:+.0f}%" if off > 0 else "n/a"


def measure(cmd: list[str], cwd: Path | str = REPO, env: dict | None = None,
            data: bool = False) -> Measured:
    """Run ``cmd`` to completion; its own rusage comes from wait4 (not RUSAGE_CHILDREN, which
    would mix in every earlier child). ``data``: also poll the child's VmData (Linux)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err)
        peak = [0.0]
        done = threading.Event()
        watcher = threading.Thread(target=_watch_data, args=(proc.pid, peak, done), daemon=True)
        if data:
            watcher.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        done.set()
        if data:
            watcher.join()
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped
        out.seek(0)
        err.seek(0)
        return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0,
                        proc.returncode, out.read().decode(errors="replace"),
                        err.read().decode(errors="replace"), peak[0] if data else None)


def vm_data_mb(pid: int | str = "self") -> float | None:
    """A process's VmData in MB (None once it has exited)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmData:"):
                return int(line.split()[1]) / 1024.0
    except (OSError, ValueError):
        pass
    return None


def _watch_data(pid: int, peak: list, done: threading.Event) -> None:
    while not done.wait(0.02):
        now = vm_data_mb(pid)
        if now is not None:
            peak[0] = max(peak[0], now)


@contextmanager
def worker_stack(folder: Path, concurrency: int, **settings: str):
    """A real Redis and a real Celery worker of ``concurrency`` pool processes on a throwaway
    SQLite database in ``folder``, started as the real-stack tests start them
    (``tests/conftest.py``), with ``settings`` as environment variables; Django is set up and
    migrated in this process, and the worker's ``Popen`` is yielded. Stops both on leaving."""
    import importlib.util

    sys.path.insert(0, str(REPO))
    spec = importlib.util.spec_from_file_location("suite_conftest", REPO / "tests" / "conftest.py")
    h = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(h)
    port = h.free_port()
    redis = h.start_redis(port, folder)
    url = f"redis://127.0.0.1:{port}/0"
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="hetsite.settings",
               DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}", CELERY_BROKER_URL=url,
               CELERY_RESULT_BACKEND=url, REDIS_URL=url, CELERY_TASK_ALWAYS_EAGER="0",
               **settings)
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    log = open(folder / "worker.log", "w")  # noqa: SIM115 - closed at the end
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "hetsite", "worker", "--loglevel", "INFO",
         "--concurrency", str(concurrency), "--without-gossip", "--without-mingle"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        h.wait_until_ready(worker, folder / "worker.log")
        yield worker
    finally:
        h.stop_process(worker)
        log.close()
        h.stop_process(redis)


def median(values) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def machine() -> str:
    """One line: CPU model and count, OS, Python, numpy, and the load average now."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import numpy
        numpy_version = numpy.__version__
    except ImportError:  # pragma: no cover - the engines need numpy anyway
        numpy_version = "-"
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{model}, {cpus} CPUs, {platform.system()} {platform.release()}, Python "
            f"{platform.python_version()}, numpy {numpy_version}; load average {load()}")


def python() -> str:
    return sys.executable


if __name__ == "__main__":
    print(machine())
