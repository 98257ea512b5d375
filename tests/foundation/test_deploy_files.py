"""Docker does not run here, so the deployment files are checked by reading them."""

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_services_and_wiring():
    services = compose()["services"]
    assert set(services) == {"web", "worker", "redis", "postgres"}
    web, worker = services["web"], services["worker"]
    assert web["image"] == worker["image"], "web and worker must share one image"
    assert "build" in web
    assert "gunicorn hetsite.wsgi:application" in web["command"]
    assert "migrate" in web["command"]
    assert worker["command"].startswith("celery -A hetsite worker")
    for svc in (web, worker):
        env = svc["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert "@postgres:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"] == "redis://redis:6379/0"
        assert env["DEBUG"] == "0"
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert svc["depends_on"]["redis"]["condition"] == "service_healthy"
    for name, svc in services.items():
        assert "healthcheck" in svc, f"{name} has no health check"
    assert "/healthz" in " ".join(web["healthcheck"]["test"])
    assert services["postgres"]["environment"]["POSTGRES_DB"] == "hetsite"


def test_dockerfile_runs_gunicorn_from_requirements():
    text = (ROOT / "Dockerfile").read_text()
    assert "FROM python:3.11" in text
    assert "pip install -r requirements.txt" in text
    assert "gunicorn" in text


def test_production_settings_pass_deploy_check(tmp_path):
    env = dict(os.environ, DEBUG="0", SECRET_KEY="x" * 20 + "Kq9#vL2$pR7&mZ4!tY8@wB3^nH6*jD1",
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
    for pkg in ("redis-server", "chromium", "chromium-driver"):
        assert pkg in text
    assert "apt-get update" in text and "apt-get install -y" in text
    assert text.strip().endswith("exec make test")
