"""Docker does not run here, so the deployment files are checked without it.

The compose file is parsed and interpolated as ``docker compose`` would; every command of the
application's services is checked against what the image provides (the base image's Python
and shell, the console scripts of requirements.txt, manage.py commands, the Celery app and the
WSGI application) with each tool's own argument parser; the variables it passes are exactly
ones the code reads, and none that a deployment needs is missing. Finally the stack is started
from the compose file's own commands and environment against a real PostgreSQL and Redis, with
only the service host names and the published port mapped to local addresses.
"""

import ast
import importlib.metadata
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
APP_PACKAGES = ("hetsite", "simcore", "scheduling", "uav", "frontend")
APP_SERVICES = ("web", "worker")
# Variables a deployment of several containers must set: the defaults suit one machine only.
NEEDED = {
    "SECRET_KEY": "each container would make its own random key, so sessions and signed "
                  "values break across web replicas and restarts",
    "DATABASE_URL": "each container would get its own SQLite file; web and workers must share "
                    "one database",
    "REDIS_URL": "the default broker is 127.0.0.1, inside the container itself",
}
NEEDED_BY_WEB = {"ALLOWED_HOSTS": "the default answers only localhost"}
# What an operator puts in the environment (or .env) before `docker compose up`.
OPERATOR_ENV = {"SECRET_KEY": "x" * 20 + "Kq9#vL2$pR7&mZ4!tY8@wB3^nH6*jD1"}
# django-environ's readers (env.str(...), env.db(...), ...).
ENV_READERS = {"str", "bool", "int", "float", "list", "tuple", "dict", "json", "url", "db",
               "db_url", "path", "cache", "cache_url", "email", "email_url", "search_url"}


# --- compose file, read the way `docker compose` reads it ------------------------------------

_VAR = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")


def interpolate(value, environ: dict):
    """Compose's ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}`` and ``${VAR:?error}``."""
    if isinstance(value, dict):
        return {k: interpolate(v, environ) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, environ) for v in value]
    if not isinstance(value, str):
        return value

    def substitute(match):
        if match.group(0) == "$$":
            return "$"
        name, op, arg = match.groups()
        current = environ.get(name)
        if op in (":-", ":?") and not current:
            current = None
        if current is not None:
            return current
        if op in (":?", "?"):
            raise ValueError(f"{name}: {arg}")
        return arg if op else ""

    return _VAR.sub(substitute, value)


def compose(environ: dict | None = None) -> dict:
    raw = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return interpolate(raw, OPERATOR_ENV if environ is None else environ)


def app_env(service: dict) -> dict[str, str]:
    return {k: str(v) for k, v in service["environment"].items()}


def command_parts(command) -> list[list[str]]:
    """A service command as the simple commands it runs (``sh -c "a && b"`` gives a and b)."""
    argv = command if isinstance(command, list) else shlex.split(command)
    if argv[:2] == ["sh", "-c"]:
        return [shlex.split(part) for part in argv[2].split("&&")]
    return [argv]


# --- what the image provides ----------------------------------------------------------------

def dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text()


def requirement_names() -> list[str]:
    names = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            names.append(re.split(r"[<>=!~\[ ;]", line, maxsplit=1)[0])
    return names


def image_executables() -> set[str]:
    """The base image's interpreter and shell, plus the console scripts pip installs."""
    assert re.search(r"^FROM python:3\.11", dockerfile(), re.M)
    provided = {"python", "python3", "pip", "sh"}
    for name in requirement_names():
        provided |= {ep.name for ep in importlib.metadata.distribution(name).entry_points
                     if ep.group == "console_scripts"}
    return provided


def image_env() -> dict[str, str]:
    """ENV lines of the Dockerfile (build arguments at their defaults)."""
    args = dict(re.findall(r"^ARG (\w+)=(\S+)", dockerfile(), re.M))
    env = {}
    for line in re.findall(r"^ENV (.+)$", dockerfile(), re.M):
        for key, value in (item.split("=", 1) for item in shlex.split(line)):
            env[key] = re.sub(r"\$(\w+)", lambda m: args.get(m.group(1), ""), value)
    return env


def check_manage(args: list[str]) -> None:
    from django.core.management import get_commands, load_command_class

    assert args[0] == "manage.py" and (ROOT / "manage.py").is_file()
    commands = get_commands()
    assert args[1] in commands, f"manage.py has no command {args[1]!r}"
    command = load_command_class(commands[args[1]], args[1])
    command.create_parser("manage.py", args[1]).parse_args(args[2:])  # exits on a bad option


def check_gunicorn(args: list[str]) -> None:
    import importlib

    from gunicorn.config import Config

    parsed = Config().parser().parse_args(args)
    (target,) = parsed.args
    module, attr = target.split(":")
    assert callable(getattr(importlib.import_module(module), attr)), target


def check_celery(args: list[str]) -> None:
    from celery.app.utils import find_app
    from celery.bin.base import CLIContext
    from celery.bin.celery import celery as cli

    from hetsite.celery import app as project_app

    ctx = cli.make_context("celery", list(args))
    app = find_app(ctx.params["app"])
    assert app is project_app, f"-A {ctx.params['app']} is not the project's Celery app"
    ctx.obj = CLIContext(app=app, no_color=True, workdir=None, quiet=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # click's protected_args
        rest = [*ctx.protected_args, *ctx.args]
    name, command, rest = cli.resolve_command(ctx, rest)
    command.make_context(name, rest, parent=ctx)  # raises on an unknown option or value


def check_command(argv: list[str]) -> None:
    """One simple command of an application container, against the image's contents."""
    assert argv[0] in image_executables(), f"the image provides no {argv[0]!r}"
    if argv[0] in ("python", "python3") and argv[1] == "manage.py":
        check_manage(argv[1:])
    elif argv[0] in ("python", "python3") and argv[1] == "-c":
        compile(argv[2], "<healthcheck>", "exec")
    elif argv[0] == "gunicorn":
        check_gunicorn(argv[1:])
    elif argv[0] == "celery":
        check_celery(argv[1:])
    else:
        raise AssertionError(f"no check for {argv}")


# --- the variables the code reads -----------------------------------------------------------

def _read_names(node) -> set[str]:
    def literal(arg):
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return {arg.value}
        if (isinstance(arg, ast.JoinedStr) and isinstance(arg.values[0], ast.Constant)
                and arg.values[0].value == "HETSITE_LIMIT_"):
            # The overrides of the limits the kinds declare (hetsite.settings.HETSITE_LIMITS).
            from hetsite import kinds

            return {f"HETSITE_LIMIT_{limit.name.upper()}" for lab in kinds.all_kinds()
                    for limit in lab.limits}
        raise AssertionError(f"cannot tell which variable line {node.lineno} reads")

    def is_os_environ(expr):
        return (isinstance(expr, ast.Attribute) and expr.attr == "environ"
                and isinstance(expr.value, ast.Name) and expr.value.id == "os")

    if isinstance(node, ast.Call) and node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (
                func.value.id == "env" and func.attr in ENV_READERS):
            return literal(node.args[0])
        if isinstance(func, ast.Name) and func.id == "env":
            return literal(node.args[0])
        if isinstance(func, ast.Attribute) and (
                (func.attr == "get" and is_os_environ(func.value))
                or (func.attr == "getenv" and isinstance(func.value, ast.Name)
                    and func.value.id == "os")):
            return literal(node.args[0])
    if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
            and is_os_environ(node.value)):
        return literal(node.slice)
    return set()


def variables_read() -> set[str]:
    """Environment variables the application reads (settings and application code)."""
    names = set()
    for package in APP_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "settings_test.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names |= _read_names(node)
    return names


def readme_variables() -> set[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first_cell = line.split("|")[1]
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]+)`", first_cell))
    return names


# --- static checks --------------------------------------------------------------------------

def test_compose_services_and_wiring():
    services = compose()["services"]
    assert set(services) == {"web", "worker", "redis", "postgres"}
    web, worker = services["web"], services["worker"]
    assert web["image"] == worker["image"], "web and worker must share one image"
    assert "build" in web
    for svc in (web, worker):
        env = svc["environment"]
        assert env["DEBUG"] == "0"
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert svc["depends_on"]["redis"]["condition"] == "service_healthy"
    for name, svc in services.items():
        assert "healthcheck" in svc, f"{name} has no health check"
    assert "/healthz" in " ".join(web["healthcheck"]["test"])
    # Workers share nothing with the web but the database and the broker.
    assert "volumes" not in worker


def test_compose_database_and_broker_are_the_compose_services():
    import environ

    services = compose()["services"]
    postgres = services["postgres"]["environment"]
    for name in APP_SERVICES:
        env = app_env(services[name])
        db = environ.Env.db_url_config(env["DATABASE_URL"])
        assert db["ENGINE"] == "django.db.backends.postgresql"
        assert (db["HOST"], db["PORT"]) == ("postgres", 5432)
        assert (db["NAME"], db["USER"], db["PASSWORD"]) == (
            postgres["POSTGRES_DB"], postgres["POSTGRES_USER"], postgres["POSTGRES_PASSWORD"])
        assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert "pg_isready -U hetsite -d hetsite" in services["postgres"]["healthcheck"]["test"][1]


def test_compose_refuses_to_start_without_a_secret_key():
    with pytest.raises(ValueError, match="SECRET_KEY"):
        compose(environ={})


def test_compose_passes_only_variables_the_code_reads_and_all_it_needs():
    read = variables_read()
    services = compose()["services"]
    for name in APP_SERVICES:
        passed = set(app_env(services[name]))
        assert passed <= read, f"{name} sets variables no code reads: {passed - read}"
        needed = NEEDED | (NEEDED_BY_WEB if name == "web" else {})
        missing = {k: why for k, why in needed.items() if k not in passed}
        assert not missing, f"{name} lacks {missing}"
    assert set(NEEDED) | set(NEEDED_BY_WEB) <= read
    # The image's own ENV lines count as settings too.
    assert set(image_env()) - {"PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
                                "PIP_NO_CACHE_DIR"} <= read


def test_readme_configuration_table_lists_exactly_the_variables_the_code_reads():
    table, read = readme_variables(), variables_read()
    assert read - table == set(), "read by the code but not in the README's table"
    assert table - read == set(), "in the README's table but read by no code"


def test_compose_commands_are_what_the_image_provides():
    services = compose()["services"]
    for name in APP_SERVICES:
        service = services[name]
        for argv in command_parts(service["command"]):
            check_command(argv)
        test = service["healthcheck"]["test"]
        assert test[0] == "CMD"
        check_command(test[1:])
    for line in re.findall(r"^RUN (.*manage\.py.*)$", dockerfile(), re.M):
        argv = shlex.split(line)
        check_command([a for a in argv if "=" not in a or a.startswith("-")])
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", dockerfile(), re.M).group(1))
    check_command(cmd)


@pytest.mark.parametrize("argv, error", [
    (["python", "manage.py", "migrate", "--no-input-please"], "CommandError"),
    (["python", "manage.py", "load_preset"], "AssertionError"),
    (["gunicorn", "hetsite.wsgi:app", "--bind", "0.0.0.0:8000"], "AttributeError"),
    (["gunicorn", "hetsite.wsgi:application", "--bnd", "0.0.0.0:8000"], "SystemExit"),
    (["celery", "-A", "hetsite", "worker", "--concurency", "2"], "NoSuchOption"),
    (["celery", "-A", "hetsite", "wroker"], "UsageError"),
    (["celery", "-A", "hetsite.tasks", "worker"], "AttributeError"),
    (["uwsgi", "--http", ":8000"], "AssertionError"),
])
def test_command_checks_catch_mistakes(argv, error):
    """The checks above fail on the mistakes they are there for."""
    with pytest.raises(BaseException) as caught:
        check_command(argv)
    assert type(caught.value).__name__ == error


def test_app_volumes_are_created_in_the_image_for_its_user():
    """A new named volume takes the owner of its mount point in the image."""
    text = dockerfile()
    user = re.search(r"^USER (\w+)$", text, re.M).group(1)
    made = re.findall(r"mkdir -p (\S+)", text)
    owned = re.findall(rf"chown -R {user} (\S+)", text)
    for name in APP_SERVICES:
        for volume in compose()["services"][name].get("volumes", []):
            target = volume.split(":")[1]
            assert any(target == m or m.startswith(target + "/") for m in made), target
            assert any(target == o or target.startswith(o + "/") for o in owned), target


def test_dockerfile_runs_gunicorn_from_requirements():
    text = dockerfile()
    assert "pip install -r requirements.txt" in text
    assert "gunicorn" in requirement_names() and "psycopg2-binary" in requirement_names()
    assert re.search(r"^WORKDIR /app$", text, re.M) and re.search(r"^COPY \. \.$", text, re.M)
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert "manage.py" not in ignored and "hetsite" not in ignored


def test_production_settings_pass_deploy_check(tmp_path):
    env = dict(os.environ, DEBUG="0", SECRET_KEY=OPERATOR_ENV["SECRET_KEY"],
               DJANGO_SETTINGS_MODULE="hetsite.settings", ALLOWED_HOSTS="lab.example.org")
    for key in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE",
                "SECURE_HSTS_SECONDS", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(key, None)
    out = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level",
                          "WARNING"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_ci_script_installs_system_packages_then_runs_make_test():
    text = (ROOT / ".ci" / "run").read_text()
    for pkg in ("redis-server", "chromium", "chromium-driver", "postgresql"):
        assert pkg in text
    assert "apt-get update" in text and "apt-get install -y" in text
    assert text.strip().endswith("exec make test")


# --- the stack, run from the compose file without Docker -------------------------------------

class Stack:
    """Processes started from compose commands, with a service's environment only (nothing of
    this test process's); stopped (whole process groups) on close."""

    def __init__(self, folder: Path, local: dict[str, str], base_env: dict[str, str]):
        self.folder, self.local, self.base_env, self.procs = folder, local, base_env, []

    def localize(self, value: str) -> str:
        for compose_address, address in self.local.items():
            value = value.replace(compose_address, address)
        return value

    def env(self, service: dict) -> dict[str, str]:
        return {**self.base_env, **{k: self.localize(v) for k, v in app_env(service).items()}}

    def start(self, name: str, service: dict) -> None:
        command = service["command"]
        argv = command if isinstance(command, list) else shlex.split(command)
        log = open(self.folder / f"{name}.log", "w")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen([self.localize(a) for a in argv], cwd=ROOT, env=self.env(service),
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append((name, proc, log))

    def healthy(self, name: str, service: dict, timeout: float = 180) -> None:
        """Poll the service's health check until it passes (what `service_healthy` waits for)."""
        test = service["healthcheck"]["test"]
        argv = [self.localize(a) for a in test[1:]] if test[0] == "CMD" else ["sh", "-c", test[1]]
        env = self.env(service) if name in APP_SERVICES else self.base_env
        deadline = time.monotonic() + timeout
        while True:
            out = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True,
                                 timeout=60)
            if out.returncode == 0:
                return
            for proc_name, proc, _ in self.procs:
                assert proc.poll() is None, f"{proc_name} exited:\n{self.logs()}"
            assert time.monotonic() < deadline, (
                f"{name} never became healthy: {out.stdout}{out.stderr}\n{self.logs()}")
            time.sleep(0.5)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}"
                         for p in sorted(self.folder.glob("*.log")))

    def close(self) -> None:
        for _, proc, log in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(30)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            log.close()


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _http(url, body=None):
    request = urllib.request.Request(
        url, data=json.dumps(body).encode() if body is not None else None,
        method="POST" if body is not None else "GET",
        # Production sits behind a TLS proxy (SECURE_SSL_REDIRECT is on); the proxy adds this.
        headers={"Content-Type": "application/json", "X-Forwarded-Proto": "https"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


@pytest.mark.realstack
def test_compose_stack_serves_and_runs_an_experiment_without_docker(
        postgres_cluster, redis_url, tmp_path, wait_for):
    """web (migrate, load_presets, gunicorn) and worker (celery) as the compose file starts
    them, each with the compose environment and the image's ENV only, on a real PostgreSQL and
    Redis: every service passes its own health check, and an experiment posted to the web is
    run by the worker. Only `postgres:5432`, `redis:6379` and port 8000 become local
    addresses."""
    services = compose()["services"]
    pg = services["postgres"]["environment"]
    postgres_cluster.execute(f"CREATE ROLE \"{pg['POSTGRES_USER']}\" LOGIN "
                             f"PASSWORD '{pg['POSTGRES_PASSWORD']}'")
    postgres_cluster.execute(f"CREATE DATABASE \"{pg['POSTGRES_DB']}\" "
                             f"OWNER \"{pg['POSTGRES_USER']}\"")
    web_port = _free_port()
    local = {"@postgres:5432/": f"@127.0.0.1:{postgres_cluster.port}/",
             "redis://redis:6379/": f"{redis_url.rsplit('/', 1)[0]}/",
             "0.0.0.0:8000": f"127.0.0.1:{web_port}", "127.0.0.1:8000": f"127.0.0.1:{web_port}"}
    base_env = {"PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                         str(postgres_cluster.bindir), "/usr/bin", "/bin"]),
                "HOME": str(tmp_path), "LANG": "C.UTF-8",
                # pg_isready runs inside the postgres container there; here it is told where.
                "PGHOST": "127.0.0.1", "PGPORT": str(postgres_cluster.port), **image_env()}
    stack = Stack(tmp_path, local, base_env)
    try:
        stack.healthy("postgres", services["postgres"])
        stack.start("web", services["web"])
        stack.start("worker", services["worker"])
        stack.healthy("web", services["web"])
        stack.healthy("worker", services["worker"])

        base = f"http://127.0.0.1:{web_port}"
        status, health = _http(f"{base}/healthz")  # details (hosts, vendor) are staff's
        assert status == 200 and health == {"status": "ok", "failing": [], "checks": {
            "database": {"ok": True}, "broker": {"ok": True}}}
        status, body = _http(f"{base}/api/experiments/", {
            "kind": "swf-replay", "preset": "swf-small", "policies": ["fcfs", "easy"],
            "trials": 1})
        assert status == 202, body
        done = wait_for(lambda: (lambda e: e if e["status"] in ("done", "failed") else None)(
            _http(f"{base}/api/experiments/{body['id']}/")[1]), 120, "the experiment to end")
        assert done["status"] == "done", stack.logs()
        assert set(done["summary"]) == {"fcfs", "easy"}
        assert {run["status"] for run in done["runs"]} == {"done"}
        # ... and it was stored in the PostgreSQL database the compose file names.
        import psycopg2

        conn = psycopg2.connect(host="127.0.0.1", port=postgres_cluster.port,
                                user=pg["POSTGRES_USER"], password=pg["POSTGRES_PASSWORD"],
                                dbname=pg["POSTGRES_DB"])
        try:
            with conn.cursor() as cursor:
                cursor.execute("SELECT status FROM hetsite_experiment WHERE public_id = %s",
                               (body["id"],))
                assert cursor.fetchall() == [("done",)]
        finally:
            conn.close()
        assert "Booting worker" in (tmp_path / "web.log").read_text()
        assert "ready." in (tmp_path / "worker.log").read_text()
    finally:
        stack.close()
        postgres_cluster.execute(f"DROP DATABASE IF EXISTS \"{pg['POSTGRES_DB']}\" WITH (FORCE)")
        postgres_cluster.execute(f"DROP ROLE IF EXISTS \"{pg['POSTGRES_USER']}\"")
