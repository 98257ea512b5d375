"""A real redis-server and a real Celery worker process round-trip a task."""

import pytest
from celery import Celery

pytestmark = pytest.mark.realstack


def test_worker_round_trip(redis_url, start_worker):
    start_worker()
    client = Celery(broker=redis_url, backend=redis_url)
    client.conf.update(task_serializer="json", accept_content=["json"])
    result = client.send_task("hetsite.ping", args=[{"n": 42}])
    reply = result.get(timeout=60)
    assert reply["pong"] == {"n": 42}
    assert reply["worker"]
