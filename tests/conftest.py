"""Shared fixtures: a real redis-server, a real PostgreSQL server, a real Celery worker process,
headless Chromium.

Tests that need redis-server, PostgreSQL or Chromium skip with the reason when the binary is
absent; ``.ci/run`` installs all three, so nothing skips in CI.
"""

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
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


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Every test starts with no rate-limit counts: they are this process's memory in tests
    (``SHARED_CACHE_URL=locmemcache://``), and a test that lowers a rate must not find the
    requests of the tests before it in the window."""
    from django.conf import settings

    shared = getattr(settings, "CACHES", {}).get("shared", {})
    if shared.get("BACKEND", "").endswith("LocMemCache"):
        from django.core.cache import caches

        caches["shared"].clear()


@pytest.fixture(scope="session")
def lublin_path():
    """The shared Lublin trace: ../shared/traces (as in CI), else the library copy."""
    shared = ROOT.parent / "shared" / "traces" / "lublin_256.swf.gz"
    library = ROOT / "scheduling" / "hpc" / "traces" / "lublin_256.swf.gz"
    return shared if shared.is_file() else library


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


def start_redis(port: int, data: Path) -> subprocess.Popen:
    """A redis-server on ``port`` without persistence (a restart loses every message)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data), "--save", "",
         "--appendonly", "no", "--loglevel", "warning"],
        start_new_session=True)
    wait_for_port(port)
    return proc


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """URL of a private redis-server on a free port, stopped at the end of the session."""
    port = free_port()
    proc = start_redis(port, tmp_path_factory.mktemp("redis"))
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_process(proc)


@pytest.fixture
def own_redis(tmp_path):
    """A redis-server of this test's own, which the test may restart: ``.url`` and
    ``.restart()`` (stopped and started again on the same port, its messages gone)."""
    class Server:
        port = free_port()
        url = f"redis://127.0.0.1:{port}/0"
        proc = None

        def start(self):
            self.proc = start_redis(self.port, tmp_path)

        def restart(self):
            stop_process(self.proc)
            self.start()

    server = Server()
    server.start()
    yield server
    stop_process(server.proc)


# --- PostgreSQL: one throwaway cluster per test session (per xdist worker) ---------------------

PG_SUPERUSER = "postgres"


def postgres_bindir() -> Path | None:
    """Where initdb and postgres are: Debian's newest /usr/lib/postgresql/<v>/bin, else PATH."""
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                    key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    if debian:
        return debian[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def postgres_runner() -> tuple[list[str], int, int]:
    """Command prefix, uid and gid to run the server with.

    initdb and postgres refuse to run as root (CI runs the suite as root), so root runs them as
    the unprivileged ``postgres`` user that Debian's package creates; anyone else as themselves.
    Raises LookupError with the reason when that is impossible.
    """
    if os.geteuid() != 0:
        return [], os.getuid(), os.getgid()
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        raise LookupError("the tests run as root, which PostgreSQL refuses, and there is no "
                          "'postgres' user to run it as (Debian's postgresql package creates "
                          "it)") from None
    if shutil.which("setpriv"):
        return (["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}",
                 "--clear-groups"], user.pw_uid, user.pw_gid)
    if shutil.which("runuser"):
        return ["runuser", "-u", "postgres", "--"], user.pw_uid, user.pw_gid
    raise LookupError("the tests run as root and neither setpriv nor runuser is there to run "
                      "PostgreSQL as the 'postgres' user")


def postgres_missing() -> str | None:
    """Why PostgreSQL tests cannot run here, or None."""
    if postgres_bindir() is None:
        return ("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; .ci/run "
                "installs Debian's postgresql package)")
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "psycopg2 is not installed (it is in requirements.txt)"
    try:
        postgres_runner()
    except LookupError as err:
        return str(err)
    return None


class PostgresCluster:
    """A running throwaway server: trust authentication on 127.0.0.1, no durability."""

    def __init__(self, port: int, folder: Path, proc: subprocess.Popen, bindir: Path):
        self.port, self.folder, self.proc, self.bindir = port, folder, proc, bindir

    def settings(self, name: str) -> dict:
        """A Django DATABASES entry for one database of this server."""
        return {"ENGINE": "django.db.backends.postgresql", "NAME": name, "USER": PG_SUPERUSER,
                "PASSWORD": "", "HOST": "127.0.0.1", "PORT": str(self.port)}

    def execute(self, sql: str) -> None:
        """Run one statement outside a transaction (CREATE/DROP DATABASE need that)."""
        import psycopg2

        conn = psycopg2.connect(host="127.0.0.1", port=self.port, user=PG_SUPERUSER,
                                dbname="postgres")
        try:
            conn.autocommit = True
            with conn.cursor() as cursor:
                cursor.execute(sql)
        finally:
            conn.close()


def _start_postgres(folder: Path, prefix: list[str], bindir: Path) -> PostgresCluster:
    data = folder / "data"
    init = subprocess.run(
        [*prefix, str(bindir / "initdb"), "-D", str(data), "-U", PG_SUPERUSER, "--auth=trust",
         "--no-sync", "-E", "UTF8", "--locale=C"], capture_output=True, text=True, cwd=folder)
    if init.returncode != 0:
        raise RuntimeError(f"initdb failed:\n{init.stdout}\n{init.stderr}")
    port = free_port()
    with open(folder / "server.log", "wb") as log:
        proc = subprocess.Popen(
            [*prefix, str(bindir / "postgres"), "-D", str(data), "-p", str(port),
             "-k", str(folder), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
             "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
             "-c", "max_connections=200"],
            cwd=folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    cluster = PostgresCluster(port, folder, proc, bindir)
    deadline = time.monotonic() + 30
    while True:
        try:
            cluster.execute("SELECT 1")
            return cluster
        except Exception:
            if proc.poll() is not None or time.monotonic() > deadline:
                _stop_postgres(proc)
                raise RuntimeError("PostgreSQL did not start:\n"
                                   + (folder / "server.log").read_text()) from None
            time.sleep(0.1)


def _stop_postgres(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)  # fast shutdown: ends sessions, no checkpoint wait
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="session")
def postgres_cluster():
    """A private PostgreSQL server on a free port in a temporary folder, for the session.

    Started from the system binaries (as the ``postgres`` user when the tests run as root) and
    removed with its folder at the end.
    """
    reason = postgres_missing()
    if reason:
        pytest.skip(reason)
    prefix, uid, gid = postgres_runner()
    # Not under pytest's basetemp: that folder is private to the user running the tests, and
    # the server may run as another one.
    folder = Path(tempfile.mkdtemp(prefix="hetsite-pg-"))
    try:
        os.chown(folder, uid, gid)
        cluster = _start_postgres(folder, prefix, postgres_bindir())
        try:
            yield cluster
        finally:
            _stop_postgres(cluster.proc)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def default_database(settings_dict: dict):
    """Point Django's default connection (this process and its live-server threads) at another
    database for a while; the previous connection is put back afterwards."""
    from django.contrib.contenttypes.models import ContentType
    from django.db import connections
    from django.db.utils import load_backend

    full = connections.configure_settings({"default": dict(settings_dict)})["default"]
    saved_settings, saved_connection = connections.settings["default"], connections["default"]
    connection = load_backend(full["ENGINE"]).DatabaseWrapper(full, "default")
    connections.settings["default"] = full  # read by threads that open their own connection
    connections["default"] = connection
    ContentType.objects.clear_cache()  # ids may differ between databases
    try:
        yield connection
    finally:
        connection.close()
        connections.settings["default"] = saved_settings
        connections["default"] = saved_connection
        ContentType.objects.clear_cache()


@pytest.fixture(scope="session")
def postgres_template(postgres_cluster, django_db_setup, django_db_blocker):
    """A migrated database that each test's database is copied from (faster than migrating)."""
    name = "hetsite_template"
    postgres_cluster.execute(f'CREATE DATABASE "{name}"')
    from django.core.management import call_command

    with django_db_blocker.unblock(), default_database(postgres_cluster.settings(name)):
        call_command("migrate", interactive=False, verbosity=0)
    return name


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, transactional_db):
    """The test runs once on SQLite and once on PostgreSQL (the database deployments use).

    On PostgreSQL it gets a fresh database copied from the migrated template; the test process,
    its live server and the workers it starts all use it. Yields the vendor name.
    """
    if request.param == "sqlite":
        from django.db import connection

        if connection.vendor != "sqlite":  # the suite was pointed at another DATABASE_URL
            pytest.skip(f"the suite's own database is {connection.vendor}, not SQLite")
        yield "sqlite"
        return
    cluster = request.getfixturevalue("postgres_cluster")
    template = request.getfixturevalue("postgres_template")
    name = f"test_{uuid.uuid4().hex[:16]}"
    cluster.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    try:
        with default_database(cluster.settings(name)):
            yield "postgresql"
    finally:
        # FORCE: a worker killed by the test may still hold a session for a moment.
        cluster.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_url() -> str:
    """DATABASE_URL of the database the test process uses now (for the processes it starts)."""
    from django.db import connections

    db = connections.settings["default"]
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    if db["ENGINE"] == "django.db.backends.postgresql":
        return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    raise NotImplementedError(db["ENGINE"])


def worker_env(broker_url: str, **extra) -> dict:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="hetsite.settings_test",
        CELERY_BROKER_URL=broker_url,
        CELERY_RESULT_BACKEND=broker_url,
        REDIS_URL=broker_url,
        CELERY_TASK_ALWAYS_EAGER="0",
        # The worker must write to the database the test process reads.
        DATABASE_URL=database_url(),
        PYTHONUNBUFFERED="1",
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


@pytest.fixture
def start_worker(redis_url, tmp_path):
    """Factory: start a real ``celery worker`` process against the test redis-server.

    ``cwd`` runs it in another working directory (the code is found through PYTHONPATH).
    """
    procs = []

    def start(concurrency: int = 1, name: str = "w", cwd: Path | None = None,
              broker_url: str | None = None, **env_extra) -> subprocess.Popen:
        log = open(tmp_path / f"worker-{name}.log", "w")  # noqa: SIM115 - closed with the process
        env = worker_env(broker_url or redis_url, **env_extra)
        if cwd is not None:
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "hetsite", "worker", "--loglevel", "INFO",
             "--concurrency", str(concurrency), "--hostname", f"{name}-{os.getpid()}@%h",
             "--without-gossip", "--without-mingle"],
            cwd=cwd or ROOT, env=env, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
        procs.append((proc, log))
        wait_until_ready(proc, tmp_path / f"worker-{name}.log")
        return proc

    yield start
    for proc, log in procs:
        stop_process(proc)
        log.close()


@pytest.fixture
def start_web(redis_url, tmp_path):
    """Factory: start a real gunicorn web server (the deployment's) on a free port, with the
    test's database and the test redis-server as broker; returns its base URL. ``env_extra``
    are more settings (environment variables)."""
    procs = []

    def start(workers: int = 1, **env_extra) -> str:
        port = free_port()
        log = open(tmp_path / f"web-{port}.log", "w")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "hetsite.wsgi:application", "--bind",
             f"127.0.0.1:{port}", "--workers", str(workers), "--timeout", "60"],
            cwd=ROOT, env=worker_env(redis_url, **env_extra), stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
        procs.append((proc, log))
        try:
            wait_for_port(port, 60)
        except TimeoutError:
            raise RuntimeError((tmp_path / f"web-{port}.log").read_text()) from None
        return f"http://127.0.0.1:{port}"

    yield start
    for proc, log in procs:
        stop_process(proc)
        log.close()


def wait_until_ready(proc: subprocess.Popen, log_path: Path,
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


def wait_for_charts(page):
    """Wait until every chart of a result page is drawn. The page draws them one at a time
    (the rest on idle), so a chart present in the DOM may still be empty."""
    if page.locator(".chart[id^=chart-]").count():
        page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.chart[id^=chart-]'))"
            ".every(el => el.dataset.drawn === '1')")


@pytest.fixture
def charts_drawn():
    return wait_for_charts


def fill_experiment_form(page, base_url, kind, preset, policies, trials) -> None:
    """Open the new-experiment form of a preset, tick exactly ``policies``, type ``trials``."""
    page.goto(f"{base_url}/new/{kind}/?preset={preset}")
    for box in page.locator("input[name=policies]").all():
        box.uncheck()
    for policy in policies:
        page.check(f"input[name=policies][value='{policy}']")
    page.fill("input[name=trials]", str(trials))


@pytest.fixture
def fill_form(live_server):
    """``fill_experiment_form`` on the live server: ``fill(page, kind, preset, policies, n)``."""
    return lambda page, *args: fill_experiment_form(page, live_server.url, *args)


@pytest.fixture
def submit_experiment(live_server):
    """Fill the new-experiment form as a user would (a preset, exactly these policies, N
    trials, optionally a name and other fields by selector), submit it and land on the result
    page, whose URL it returns; ``done_within`` also waits for the end."""
    def submit(page, kind, preset, policies, trials, done_within=None, name="", extra=None):
        fill_experiment_form(page, live_server.url, kind, preset, policies, trials)
        if name:
            page.fill("#id_name", name)
        for selector, value in (extra or {}).items():
            page.fill(selector, value)
        page.click("#submit")
        page.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}/$"))
        if done_within:
            page.wait_for_selector("#exp-status:text('done')", timeout=done_within * 1000)
        return page.url
    return submit


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
