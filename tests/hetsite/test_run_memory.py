"""HETSITE_RUN_MEMORY_MB: its parsing, the limit it puts on a process, the failed run a
MemoryError makes, and that nothing but a worker's pool process is ever limited (the real
worker is in test_run_memory_real_stack.py)."""

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured

from hetsite import kinds, run_memory
from hetsite.models import Experiment, Run, Status
from hetsite.services import execution, submission

ROOT = Path(__file__).resolve().parents[2]
# More than any machine holds: numpy's allocation fails (a real _ArrayMemoryError) with no
# limit at all, since the kernel refuses to commit it.
IMPOSSIBLE = 2**47  # float64 values, 1 PiB


@pytest.mark.parametrize("text, mb", [("2048", 2048), ("0", 0), (" 512 ", 512),
                                      ("256", 256), ("000300", 300)])
def test_the_setting_is_whole_megabytes_or_0(text, mb):
    assert run_memory.parse_mb(text) == mb


@pytest.mark.parametrize("text", ["-1", "2GB", "2048.5", "1e3", "", "100", "255", "٣٠٠",
                                  "1_000", "9999999999"])
def test_anything_else_is_refused_naming_the_setting(text):
    with pytest.raises(ImproperlyConfigured, match=r"^HETSITE_RUN_MEMORY_MB must be a whole "
                                                   r"number of megabytes, 0 \(no limit\) or at "
                                                   r"least 256, not "):
        run_memory.parse_mb(text)


def settings_in_a_new_process(value: str | None) -> subprocess.CompletedProcess:
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="hetsite.settings")
    for name in ("HETSITE_RUN_MEMORY_MB", "HETSITE_MAX_TRACE_JOBS"):
        env.pop(name, None)
    if value is not None:
        env["HETSITE_RUN_MEMORY_MB"] = value
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import "
                               "settings as s; print(s.HETSITE_RUN_MEMORY_MB, "
                               "s.HETSITE_MAX_TRACE_JOBS)"],
        cwd=ROOT, env=env, capture_output=True, text=True)


def test_settings_read_it_from_the_environment_with_a_default_of_2048():
    # and an upload's default job count is one a worker replays within it: 1,000,000 jobs
    # peaked at 1.6 GB, 2,000,000 at 2.9 GB (docs/reliability.md "Memory of a run")
    assert settings_in_a_new_process(None).stdout.split() == ["2048", "1000000"]
    assert settings_in_a_new_process("0").stdout.split() == ["0", "1000000"]
    bad = settings_in_a_new_process("2GB")
    assert bad.returncode != 0
    assert "HETSITE_RUN_MEMORY_MB must be a whole number of megabytes" in bad.stderr


def in_a_new_process(code: str, **env) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                         env=dict(os.environ, DJANGO_SETTINGS_MODULE="hetsite.settings_test",
                                  **env), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_limited_process_gets_memory_errors_past_the_limit_and_keeps_working():
    out = in_a_new_process("""
        import resource
        import numpy as np
        from hetsite import run_memory

        run_memory.limit_this_process(300)
        print(resource.getrlimit(resource.RLIMIT_DATA)[0] // 2**20, run_memory.limit_mb())
        for size_mb in (400, 10, 400):
            try:
                np.ones(size_mb * 2**17)  # float64: 2**17 values a MB
                print(size_mb, "allocated")
            except MemoryError as err:  # numpy's subclass, _ArrayMemoryError
                print(size_mb, type(err).__module__)
        try:
            [0.5] * (50 * 2**20)  # a Python list of 400 MB of pointers
        except MemoryError:
            print("list MemoryError")
        # Up to the limit, then a matrix product: OpenBLAS's threads and buffers were made
        # before the limit (without that it gives up and exits the process here).
        held = []
        try:
            while True:
                held.append(np.ones(2**17))
        except MemoryError:
            del held[-8:]
        square = np.ones((400, 400))
        print("product", (square @ square)[0, 0])
        print(run_memory.failure_message())
    """)
    assert out.splitlines() == [
        "300 300", "400 numpy._core._exceptions", "10 allocated",
        "400 numpy._core._exceptions", "list MemoryError", "product 400.0",
        "the run needed more memory than a run may use here (HETSITE_RUN_MEMORY_MB = 300 MB); "
        "ask for a smaller scenario"]


def test_0_puts_no_limit():
    out = in_a_new_process("""
        import resource
        from hetsite import run_memory

        run_memory.limit_this_process(0)
        print(resource.getrlimit(resource.RLIMIT_DATA)[0] == resource.RLIM_INFINITY,
              run_memory.limit_mb())
    """)
    assert out.split() == ["True", "0"]


def test_the_command_line_is_never_limited():
    out = in_a_new_process("""
        import resource
        from simcore.cli import main
        from uav.engine import ENGINE

        main(ENGINE, ["run", "--preset", "small-baseline", "--policy", "random"], prog="uav")
        print(resource.getrlimit(resource.RLIMIT_DATA)[0] == resource.RLIM_INFINITY)
    """, HETSITE_RUN_MEMORY_MB="300")
    assert out.split()[-1] == "True"


# Transactional: eager runs are dispatched when their experiment commits.
db = pytest.mark.django_db(transaction=True)


def one_run(small):
    sub = submission.validate_submission(kind=small["kind"], preset=small["preset"],
                                         policies=small["policies"][:1], trials=1)
    return submission.create_experiment(sub, dispatch=False).runs.get()


@db
def test_the_web_process_and_eager_runs_are_never_limited(small, settings, client):
    import hetsite.tasks  # noqa: F401 - its signal handlers connected, as in a web process

    settings.HETSITE_RUN_MEMORY_MB = 300
    before = resource.getrlimit(resource.RLIMIT_DATA)
    assert client.get("/").status_code == 200
    sub = submission.validate_submission(kind=small["kind"], preset=small["preset"],
                                         policies=small["policies"], trials=1)
    experiment = submission.create_experiment(sub)  # eager: the runs execute here
    assert {r.status for r in experiment.runs.all()} == {Status.DONE}
    assert resource.getrlimit(resource.RLIMIT_DATA) == before
    assert run_memory.limit_mb() == 0


@db
def test_a_memory_error_in_the_engine_fails_the_run_with_no_result(small, monkeypatch):
    run = one_run(small)
    engine = kinds.get_kind(small["kind"]).engine

    def greedy(scenario, policy, seed, progress=None, inputs=None):
        np.ones(IMPOSSIBLE)

    monkeypatch.setattr(engine, "simulate", greedy)
    assert execution.execute_run(run.pk) == Status.FAILED
    run = Run.objects.get(pk=run.pk)
    # this process has no limit (the unit tests are not a worker): the message says so
    assert run.error == ("the run ran out of memory (no per-run memory limit in this process: "
                         "HETSITE_RUN_MEMORY_MB)")
    assert run.result_gz is None and run.summary == {} and run.result_bytes == 0
    assert Experiment.objects.get(pk=run.experiment_id).status == Status.FAILED


@db
def test_a_memory_error_while_storing_the_result_writes_none_of_it(small, monkeypatch):
    run = one_run(small)

    def greedy_packing(data):  # after the result is serialized, before anything is written
        np.ones(IMPOSSIBLE)

    monkeypatch.setattr(execution.decisions, "packed", greedy_packing)
    assert execution.execute_run(run.pk) == Status.FAILED
    run = Run.objects.get(pk=run.pk)
    assert run.error.startswith("the run ran out of memory")
    assert run.result_gz is None and run.summary == {} and run.series == {}
