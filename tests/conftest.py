"""Shared fixtures: a real redis-server, a real Celery worker process, headless Chromium.

Tests that need redis-server or Chromium skip with the reason when the binary is absent;
``.ci/run`` installs both, so nothing skips in CI.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
# Playwright's sync API runs an event loop in the test thread; Django's async-safety guard
# would otherwise refuse the ORM calls that the same tests make.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


def poll_until(predicate, timeout: float, what: str, interval: float = 0.1):
    """The predicate's first truthy value, polled until ``timeout`` s; AssertionError after."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture(scope="session")
def lublin_path():
    """The shared Lublin trace: ../shared/traces (as in CI), else the library copy."""
    shared = ROOT.parent / "shared" / "traces" / "lublin_256.swf.gz"
    return shared if shared.is_file() else ROOT / "simcore" / "traces" / "lublin_256.swf.gz"


@pytest.fixture(scope="session")
def wait_for():
    return poll_until


def stop_process(proc: subprocess.Popen, timeout: float = 20.0) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)  # the whole group: a worker and its pool children
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def load_module(path: Path, name: str):
    """Import a helper module that sits beside a test (tests are not a package here)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def load_sibling():
    return load_module


@pytest.fixture
def dead_redis_url():
    """A redis URL on a port where nothing listens."""
    return f"redis://127.0.0.1:{free_port()}/0"


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """URL of a private redis-server on a free port, stopped at the end of the session."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    port = free_port()
    data = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data), "--save", "",
         "--appendonly", "no", "--loglevel", "warning"],
        start_new_session=True)
    try:
        wait_for_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_process(proc)


def worker_env(broker_url: str, **extra) -> dict:
    from django.conf import settings

    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="hetsite.settings_test",
        CELERY_BROKER_URL=broker_url,
        CELERY_RESULT_BACKEND=broker_url,
        REDIS_URL=broker_url,
        CELERY_TASK_ALWAYS_EAGER="0",
        # The worker must write to the database the test process reads.
        DATABASE_URL=f"sqlite:///{settings.DATABASES['default']['NAME']}",
        PYTHONUNBUFFERED="1",
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


@pytest.fixture
def start_worker(redis_url, tmp_path):
    """Factory: start a real ``celery worker`` process against the test redis-server."""
    procs = []

    def start(concurrency: int = 1, name: str = "w", **env_extra) -> subprocess.Popen:
        log = open(tmp_path / f"worker-{name}.log", "w")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "hetsite", "worker", "--loglevel", "INFO",
             "--concurrency", str(concurrency), "--hostname", f"{name}-{os.getpid()}@%h",
             "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=worker_env(redis_url, **env_extra), stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
        procs.append((proc, log))
        wait_until_ready(redis_url, proc, tmp_path / f"worker-{name}.log")
        return proc

    yield start
    for proc, log in procs:
        stop_process(proc)
        log.close()


def wait_until_ready(broker_url: str, proc: subprocess.Popen, log_path: Path,
                     timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited early:\n{log_path.read_text()}")
        if " ready." in log_path.read_text():
            return
        time.sleep(0.1)
    raise TimeoutError(f"worker not ready after {timeout} s:\n{log_path.read_text()}")


def _reset_pools(app):
    """Drop cached broker connections so the next send uses the current configuration.

    kombu keeps connection pools in a process-wide registry keyed by URL, so that registry is
    cleared too (closing only the app's pool would leave a closed pool behind for the URL).
    """
    from kombu import pools

    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
    app._local.__dict__.pop("backend", None)


@pytest.fixture
def celery_config():
    """Change the project's Celery configuration for one test; restored afterwards."""
    from hetsite.celery import app

    saved = {}

    def apply(**conf):
        for key in conf:
            saved.setdefault(key, app.conf[key])
        app.conf.update(conf)
        _reset_pools(app)
        return app

    yield apply
    if saved:
        app.conf.update(saved)
        _reset_pools(app)


@pytest.fixture
def live_celery(redis_url, settings, celery_config):
    """Point the project's Celery app at the test redis and turn eager mode off."""
    settings.CELERY_BROKER_URL = redis_url
    return celery_config(broker_url=redis_url, result_backend=redis_url, task_always_eager=False)


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium driven by Playwright (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


def small_setup():
    """The smallest runnable scenario: ch3 `small` when its engine is there, else the UAV one."""
    from hetsite import kinds

    for kind, preset, policies in (("parallel-energy", "small", ["easy", "max-upe-ph"]),
                                   ("uav", "small-baseline", ["random", "meta+pf"])):
        if kinds.get_kind(kind) is not None:
            return kind, preset, policies
    pytest.skip("no scenario kind is available")


@pytest.fixture
def small():
    kind, preset, policies = small_setup()
    return {"kind": kind, "preset": preset, "policies": policies}
