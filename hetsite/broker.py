"""What the broker holds: the ids of the task messages still in it, so that a queued run whose
message is gone (a Redis restarted without persistence, a flush, an eviction) can be sent again.

Read from Redis the way kombu's Redis transport stores messages: each queue is a list (one per
priority step) of JSON envelopes whose ``headers.id`` is the task id, and messages delivered to
a worker but not yet acknowledged (``task_acks_late``) wait in the ``unacked`` hash until the
task ends. Other transports return None: the dispatcher then does not check (the filesystem
transport of ``make run`` keeps its messages in files, which a restart does not lose).
"""

from __future__ import annotations

import json
import logging

from .celery import app

log = logging.getLogger(__name__)


def held_task_ids() -> set[str] | None:
    """Task ids of the messages waiting in the broker's queues or delivered and unacknowledged;
    None when the transport cannot be read this way."""
    with app.connection_for_read() as conn:
        if conn.transport.driver_type != "redis":
            return None
        channel = conn.default_channel
        client = channel.client
        queues = list(app.amqp.queues) or [app.conf.task_default_queue]
        ids: set[str] = set()
        for queue in queues:
            for step in channel.priority_steps:
                for raw in client.lrange(channel._q_for_pri(queue, step), 0, -1):
                    ids.add(_task_id(raw))
        for raw in client.hvals(channel.unacked_key):
            ids.add(_task_id(raw, unacked=True))
    ids.discard("")
    return ids


def _task_id(raw: bytes, unacked: bool = False) -> str:
    try:
        message = json.loads(raw)
        if unacked:  # [message, exchange, routing key]
            message = message[0]
        return str(message["headers"]["id"])
    except (ValueError, KeyError, IndexError, TypeError):
        log.warning("a broker message without a readable task id")
        return ""
