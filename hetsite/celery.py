"""The Celery application shared by the web process (to enqueue) and the workers."""

import os

from celery import Celery

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
