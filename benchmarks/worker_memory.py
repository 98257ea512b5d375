"""Peak memory of runs on a real Celery worker, under its per-run limit (HETSITE_RUN_MEMORY_MB).

A redis-server and one ``celery worker`` of concurrency 1 on a throwaway SQLite database, as
deployed (prefork pool, the limit set in the pool process); each case is one run submitted
through the services, as the API does, and the pool process's VmData (what the limit counts)
and VmRSS are polled every 20 ms while it runs. So the figures include everything a worker does
with a run: the simulation, the result's serialization, compaction and compression, and the
database write. Printed per case: the run's status and error, its peak VmData and RSS, the
VmData the pool process keeps after it (caches, freed memory not returned), and its wall time;
the pool process's VmData before the first run too.

    python benchmarks/worker_memory.py [--limit-mb 2048] [--case uav-slots-cap ...] [--list]

Cases are scenarios at the validation caps where memory grows with a parameter (``CASES``).
Asserts nothing; stops its processes at the end.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import machine, worker_stack  # noqa: E402


class Upload(NamedTuple):
    """A parameter naming an SWF upload of this many jobs (benchmarks/upload_costs.py's), which
    the benchmark stores first, as a submission that uploads it would."""

    jobs: int


# name: (kind, preset, policy, parameter overrides). The UAV cases at the slot caps map every
# 60 min instead of 5 (24 mapping events, not 288) to keep them to seconds: the score matrices
# are allocated at the first event and the result's series do not depend on the interval
# (uav-2M-slots and uav-2M-slots-60 compare the two).
BIG = {"uavs_mean": 2000.0, "mapping_interval_min": 60.0}
CASES = {
    "uav-small": ("uav", "small-baseline", "random", {}),
    "uav-2M-slots": ("uav", "small-baseline", "random",
                     {"uavs_mean": 1000.0, "targets_mean": 2000.0}),
    "uav-1M-slots": ("uav", "small-baseline", "random",
                     {"uavs_mean": 700.0, "targets_mean": 1400.0}),
    "uav-2M-slots-60": ("uav", "small-baseline", "random",
                        {"uavs_mean": 1000.0, "targets_mean": 2000.0,
                         "mapping_interval_min": 60.0}),
    "uav-2M-slots-geometry": ("uav", "small-baseline", "random",
                              {"uavs_mean": 1000.0, "targets_mean": 2000.0,
                               "mapping_interval_min": 60.0, "geometry": {"enabled": True}}),
    "uav-2M-slots-geometry-meta": ("uav", "small-baseline", "meta+pf",
                                   {"uavs_mean": 1000.0, "targets_mean": 2000.0,
                                    "mapping_interval_min": 60.0, "geometry": {"enabled": True}}),
    "uav-6M-slots": ("uav", "small-baseline", "random", {**BIG, "targets_mean": 3000.0}),
    "uav-6M-slots-meta": ("uav", "small-baseline", "meta+pf", {**BIG, "targets_mean": 3000.0}),
    # at the slot cap, 7,000,000 (2,001 x 3,492 slots with the default events)
    "uav-7M-slots": ("uav", "small-baseline", "random", {**BIG, "targets_mean": 3490.0}),
    "uav-7M-slots-geometry-meta": ("uav", "small-baseline", "meta+pf",
                                   {**BIG, "targets_mean": 3490.0,
                                    "geometry": {"enabled": True}}),
    "uav-8M-slots": ("uav", "small-baseline", "random", {**BIG, "targets_mean": 4000.0}),
    "uav-8M-slots-meta": ("uav", "small-baseline", "meta+pf", {**BIG, "targets_mean": 4000.0}),
    "uav-10M-slots": ("uav", "small-baseline", "random", {**BIG, "targets_mean": 5000.0}),
    "uav-12M-slots": ("uav", "small-baseline", "random",
                      {**BIG, "targets_mean": 5000.0, "event_multiplier": 200.0}),
    # grid: the node loads kept (nodes x samples) and the job-ticks of swapping with alpha > beta
    "grid-loads-50k-nodes": ("grid", "grid-main", "fcfs",
                             {"nodes.n_nodes": 50000, "report.sample_s": 64.0}),
    "grid-loads-1k-nodes": ("grid", "grid-main", "fcfs", {"report.sample_s": 1.3}),
    "grid-swaps": ("grid", "grid-main", "local",
                   {"scheduler.alpha": 1.5, "scheduler.delta_s": 0.8}),
    "grid-loads-and-swaps": ("grid", "grid-main", "local",
                             {"scheduler.alpha": 1.5, "scheduler.delta_s": 0.8,
                              "report.sample_s": 1.3}),
    # 200,000 mapping events, the cap of ch. 3, ch. 4 and VoS (each keeps a record per event)
    "ch3-200k-events": ("parallel-energy", "small", "easy",
                        {"time.sim_h": 55.5, "time.mapping_interval_s": 1.0}),
    "ch4-200k-events": ("serial-preemption", "ch4-small", "max-util-pair",
                        {"scheduler.duration_min": 10_000.0,
                         "scheduler.mapping_interval_min": 0.05}),
    "vos-200k-events": ("value-of-service", "vos-small", "simple",
                        {"scheduler.duration_h": 166.0, "scheduler.interval_min": 0.05}),
    # many-task: the most tasks (HETSITE_LIMIT_MANY_TASKS), alone and with a trade-off grid
    # (360 settings: 7.2e8 of HETSITE_LIMIT_MANY_TASK_WORK's 1e9)
    "many-task-2M": ("many-task", "real935k", "random", {"workload.tasks": 2_000_000}),
    "many-task-2M-grid": ("many-task", "fig4-real935k", "random",
                          {"workload.tasks": 2_000_000}),
    # uploaded SWF traces: HETSITE_MAX_TRACE_JOBS (2,000,000) and what the web's check of
    # HETSITE_UPLOAD_CHECK_SECONDS passes here (about 650,000)
    "swf-upload-650k": ("swf-replay", "swf-small", "fcfs",
                        {"trace": Upload(650_000), "job_limit": 0}),
    "swf-upload-1M": ("swf-replay", "swf-small", "fcfs",
                      {"trace": Upload(1_000_000), "job_limit": 0}),
    "swf-upload-2M": ("swf-replay", "swf-small", "fcfs",
                      {"trace": Upload(2_000_000), "job_limit": 0}),
}


def stored_uploads(overrides: dict) -> dict:
    """The overrides with each :class:`Upload` generated, stored and named ``upload:<sha>``."""
    import hashlib

    from upload_costs import trace

    from hetsite.uploads import upload_store

    out = {}
    for key, value in overrides.items():
        if isinstance(value, Upload):
            data = trace(value.jobs)
            sha = hashlib.sha256(data).hexdigest()
            with tempfile.NamedTemporaryFile(suffix=".swf.gz") as f:
                f.write(data)
                f.flush()
                upload_store().save(sha, Path(f.name), records=value.jobs, suffix=".swf.gz",
                                    accepts="swf")
            value = f"upload:{sha}"
        out[key] = value
    return out


def nested(overrides: dict) -> dict:
    """Dotted parameter names (``nodes.n_nodes``) as the nested objects the API takes."""
    out: dict = {}
    for key, value in overrides.items():
        *groups, name = key.split(".")
        node = out
        for group in groups:
            node = node.setdefault(group, {})
        node[name] = value
    return out


def status_of(pid: int) -> dict[str, float]:
    """VmData and VmRSS of a process, in MB (empty once it has gone)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {k: int(v.split()[0]) / 1024.0 for k, v in (ln.split(":", 1) for ln in lines)
            if k in ("VmData", "VmRSS")}


def pool_children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


class Peaks:
    """The largest VmData and VmRSS of the worker's pool processes while it watches."""

    def __init__(self, worker_pid: int):
        self.worker_pid, self.data, self.rss = worker_pid, 0.0, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self):
        while not self._stop.wait(0.02):
            for child in pool_children(self.worker_pid):
                now = status_of(child)
                self.data = max(self.data, now.get("VmData", 0.0))
                self.rss = max(self.rss, now.get("VmRSS", 0.0))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit-mb", type=int, default=2048,
                        help="the worker's HETSITE_RUN_MEMORY_MB (0: none)")
    parser.add_argument("--case", action="append", choices=sorted(CASES),
                        help="only this case (repeatable; default: all)")
    parser.add_argument("--list", action="store_true", help="list the cases and stop")
    args = parser.parse_args()
    if args.list:
        for name, case in CASES.items():
            print(f"{name}: {case}")
        return
    folder = Path(tempfile.mkdtemp(prefix="hetsite-memory-"))
    with worker_stack(folder, 1, HETSITE_RUN_MEMORY_MB=str(args.limit_mb)) as worker:
        from hetsite.models import Run, Status
        from hetsite.permissions import STAFF, Account
        from hetsite.services import submission

        print(f"machine: {machine()}")
        baseline = [status_of(c) for c in pool_children(worker.pid)]
        print(f"HETSITE_RUN_MEMORY_MB = {args.limit_mb}; the pool process before any run: "
              f"VmData {baseline[0]['VmData']:.0f} MB, VmRSS {baseline[0]['VmRSS']:.0f} MB")
        print(f"{'case':<24} {'status':<8} {'data MB':>8} {'RSS MB':>8} {'after MB':>8} "
              f"{'wall s':>8}  error")
        for name in args.case or list(CASES):
            kind, preset, policy, params = CASES[name]
            sub = submission.validate_submission(kind=kind, preset=preset,
                                                 params=nested(stored_uploads(params)) or None,
                                                 policies=[policy], trials=1)
            started = time.monotonic()
            with Peaks(worker.pid) as peaks:
                experiment = submission.create_experiment(sub, account=Account("site", STAFF))
                while Run.objects.filter(experiment=experiment).exclude(
                        status__in=(Status.DONE, Status.FAILED, Status.CANCELLED)).exists():
                    time.sleep(0.1)
            wall = time.monotonic() - started
            time.sleep(0.5)  # the task's end (a dispatch pass) after the run's
            after = max(status_of(c).get("VmData", 0.0) for c in pool_children(worker.pid))
            run = Run.objects.get(experiment=experiment)
            print(f"{name:<24} {run.status:<8} {peaks.data:>8.0f} {peaks.rss:>8.0f} "
                  f"{after:>8.0f} {wall:>8.1f}  {run.error[:120]}", flush=True)
        print(f"load average after: {machine().rsplit('load average ', 1)[1]}")


if __name__ == "__main__":
    main()
