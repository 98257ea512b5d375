"""A real redis-server and a real Celery worker process round-trip a task, on each database."""

import pytest
from celery import Celery

pytestmark = pytest.mark.realstack


def test_worker_round_trip(database, redis_url, start_worker):
    start_worker()
    # Not the current app: shared tasks of later tests in this process would otherwise send
    # through this client (whose pools the next test's reset closes).
    client = Celery(broker=redis_url, backend=redis_url, set_as_current=False)
    client.conf.update(task_serializer="json", accept_content=["json"])
    result = client.send_task("hetsite.ping", args=[{"n": 42}])
    reply = result.get(timeout=60)
    assert reply["pong"] == {"n": 42}
    assert reply["worker"]
    assert reply["database"] == {"ok": True, "detail": database}  # the worker reached it
