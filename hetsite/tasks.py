"""Celery tasks: thin wrappers that hand an id to a service."""

import socket

from celery import shared_task


@shared_task(name="hetsite.ping")
def ping(payload=None):
    """Round-trip check used by tests and operators: echoes the payload, names the worker and
    says whether it reaches its database (``{"ok": bool, "detail": vendor or error}``)."""
    from django.db import connections

    from .health import check_database

    ok, detail = check_database()
    connections.close_all()
    return {"pong": payload, "worker": socket.gethostname(),
            "database": {"ok": ok, "detail": detail}}


@shared_task(name="hetsite.run_simulation", ignore_result=True)
def run_simulation(run_id: int) -> str:
    """Execute one run (idempotent: the service claims it with a conditional update).

    Results go to the database, so the task stores nothing in Celery's result backend. A slot
    just freed, so a dispatch pass follows.
    """
    from .services.dispatch import top_up
    from .services.execution import execute_run

    status = execute_run(run_id)
    top_up()
    return status
