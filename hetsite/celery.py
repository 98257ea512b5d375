"""The Celery application shared by the web process (to enqueue) and the workers."""

import logging
import os
import threading

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hetsite.settings")

app = Celery("hetsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    result_accept_content=["json"],
    # A run is claimed in the database, so redelivery after a worker crash is safe: ack late,
    # and take one message at a time so a long run never hides queued ones from other workers.
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_track_started=True,
    broker_connection_retry_on_startup=True,
    result_expires=3600,
)


app.autodiscover_tasks()
_stop_reaper = threading.Event()


@signals.worker_ready.connect
def start_reaper(sender=None, **kwargs):
    """Every worker requeues runs whose worker died (see services.execution.reap_stale_runs)."""
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
