"""Celery tasks: thin wrappers that hand an id to a service."""

import logging
import socket
import threading

from celery import shared_task, signals


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


@shared_task(name="hetsite.run_simulation", ignore_result=True)  # dispatch.RUN_TASK
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


@signals.worker_process_init.connect
def limit_run_memory(**kwargs):
    """Each pool process runs one run at a time: bound its memory (``hetsite.run_memory``).
    Sent in prefork pool processes only, so never in the web, eager Celery or the CLI."""
    from django.conf import settings

    from .run_memory import limit_this_process

    limit_this_process(settings.HETSITE_RUN_MEMORY_MB)


_stop_reaper = threading.Event()


@signals.worker_ready.connect
def start_reaper(sender=None, **kwargs):
    """Every worker requeues runs whose worker died (see services.execution.reap_stale_runs);
    connected here rather than beside the app, which the services import."""
    from django.conf import settings
    from django.db import connections

    def loop():
        from hetsite.services.execution import reap_stale_runs

        while not _stop_reaper.wait(settings.HETSITE_REAP_SECONDS):
            try:
                reap_stale_runs()
            except Exception:  # keep reaping even if one pass hits a database hiccup
                logging.getLogger(__name__).exception("reaper pass failed")
            finally:
                connections.close_all()

    threading.Thread(target=loop, name="hetsite-reaper", daemon=True).start()


@signals.worker_shutting_down.connect
def stop_reaper(**kwargs):
    _stop_reaper.set()
