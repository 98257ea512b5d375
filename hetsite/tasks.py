import socket

from celery import shared_task


@shared_task(name="hetsite.ping")
def ping(payload=None):
    """Round-trip check used by tests and operators: echoes the payload and names the worker."""
    return {"pong": payload, "worker": socket.gethostname()}
