"""Reachability checks for /healthz: each returns (ok, detail)."""

from django.conf import settings
from django.db import connection

from .celery import app as celery_app


def check_database():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "unreachable"
        return False, f"{type(exc).__name__}: {exc}"
    return True, connection.vendor


def check_broker(timeout=2.0):
    try:
        with celery_app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0,
                                   timeout=timeout)
            transport = conn.transport_cls
    except Exception as exc:
        return False, f"{type(exc).__name__}: {exc}"
    return True, str(transport)


def health_report(details: bool = False):
    """Whether each part is reachable; with ``details`` (staff only) also how, or the error,
    which names hosts, ports and sometimes credentials."""
    checks = {}
    for name, check in (("database", check_database), ("broker", check_broker)):
        ok, detail = check()
        checks[name] = {"ok": ok, "detail": detail} if details else {"ok": ok}
    failing = [name for name, result in checks.items() if not result["ok"]]
    return {"status": "ok" if not failing else "unavailable", "failing": failing, "checks": checks}
