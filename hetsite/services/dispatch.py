"""The fair queue: runs wait in the database, and a dispatcher sends them to the broker a few at
a time, fairly between accounts.

A run is created ``queued`` with no task id. A dispatch pass tops the broker up to
``HETSITE_DISPATCH_AHEAD`` messages waiting (sent, not yet claimed by a worker); each message
it sends goes to the account with the fewest runs in service (running, or sent and waiting),
ties to the account waiting longest. So one account's 20,000 runs take turns with another's 4
instead of going first: the 4 wait for at most the messages already waiting plus one turn
each. Within an account the oldest experiment goes first, and within an experiment the
costliest runs (the kind's cost estimate), so a sweep does not end on one straggler.

Passes run after an experiment is created (in the request, bounded by the lookahead), after
every run a worker ends (a slot just freed) and from every worker's reaper thread. A run is
taken for sending with a conditional update of its task id, so concurrent passes never send
it twice; a pass that dies leaves the runs it did not send in the database for the next one,
and a message the broker lost is found and sent again (:func:`resend_lost`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections import Counter, defaultdict, deque

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from ..models import Experiment, Run, Status

log = logging.getLogger(__name__)
# The task that executes one run (hetsite.tasks.run_simulation).
RUN_TASK = "hetsite.run_simulation"
_local = threading.local()


class BrokerError(Exception):
    """The broker refused a message."""


def waiting() -> int:
    """Messages sent and not yet claimed: queued runs with a task id."""
    return Run.objects.filter(status=Status.QUEUED, celery_id__gt="").count()


def dispatch() -> int:
    """One dispatch pass; returns how many runs it sent. Raises BrokerError when the broker
    refuses (the run it was sending goes back to waiting in the database)."""
    if getattr(_local, "active", False):
        return 0  # eager Celery: a run ending inside this pass's send; the pass goes on
    _local.active = True
    try:
        sent = 0
        while True:
            room = settings.HETSITE_DISPATCH_AHEAD - waiting()
            picks = next_runs(room) if room > 0 else []
            if not picks:
                return sent
            done = _send(picks)
            sent += done
            if done == 0:
                return sent  # every pick was taken by a concurrent pass
    finally:
        _local.active = False


def top_up() -> int:
    """A dispatch pass that never raises (after a run ends, in the reaper): a broker that is
    down leaves the runs waiting in the database for a later pass."""
    try:
        return dispatch()
    except BrokerError as exc:
        log.warning("dispatch pass: broker unavailable (%s); runs stay queued", exc)
        return 0


def next_runs(n: int) -> list[int]:
    """Ids of the next ``n`` runs to send, in sending order (see the module's docstring)."""
    unsent = Run.objects.filter(experiment=OuterRef("pk"), status=Status.QUEUED, celery_id="")
    pending = list(Experiment.objects.filter(
        Exists(unsent), status__in=(Status.QUEUED, Status.RUNNING), cancel_requested=False)
        .order_by("created", "id").values_list("id", "account"))
    if not pending:
        return []
    experiments: dict[str, list[int]] = defaultdict(list)
    for experiment_id, account in pending:
        experiments[account].append(experiment_id)
    # Accounts in order of their oldest waiting experiment: the tie-break.
    order = {account: i for i, account in enumerate(experiments)}
    in_service = Counter(dict(
        Run.objects.filter(Q(status=Status.RUNNING) | Q(status=Status.QUEUED, celery_id__gt=""),
                           experiment__account__in=list(experiments))
        .order_by().values_list("experiment__account").annotate(n=Count("id"))))
    queues: dict[str, deque] = {}  # an account's next runs, read at its first turn
    out: list[int] = []
    while len(out) < n and experiments:
        account = min(experiments, key=lambda a: (in_service[a], order[a]))
        if account not in queues:
            queues[account] = deque(_runs_of(experiments[account], n))
        if not queues[account]:
            del experiments[account]  # nothing more to send for it in this pass
            continue
        out.append(queues[account].popleft())
        in_service[account] += 1
    return out


def _runs_of(experiment_ids: list[int], n: int) -> list[int]:
    """The next ``n`` unsent runs of an account: oldest experiment first, costliest first."""
    out: list[int] = []
    for experiment_id in experiment_ids:
        out += Run.objects.filter(experiment_id=experiment_id, status=Status.QUEUED,
                                  celery_id="").order_by("-cost", "point", "trial", "id") \
            .values_list("id", flat=True)[:n - len(out)]
        if len(out) >= n:
            break
    return out


def _send(run_ids: list[int]) -> int:
    from ..celery import app

    # By name: the task module imports this one (a run's end starts a dispatch pass); the app
    # config registers it in every process (hetsite.apps).
    run_simulation = app.tasks[RUN_TASK]
    sent = 0
    producer = (contextlib.nullcontext() if app.conf.task_always_eager
                else app.producer_or_acquire())
    try:
        with producer as p:
            for run_id in run_ids:
                task_id = str(uuid.uuid4())
                if not Run.objects.filter(pk=run_id, status=Status.QUEUED, celery_id="").update(
                        celery_id=task_id, sent=timezone.now()):
                    continue  # another pass took it, or it was cancelled
                try:
                    run_simulation.apply_async((run_id,), task_id=task_id, producer=p)
                except Exception:
                    Run.objects.filter(pk=run_id, status=Status.QUEUED,
                                       celery_id=task_id).update(celery_id="", sent=None)
                    raise
                sent += 1
    except Exception as exc:  # kombu raises transport-specific errors
        log.warning("the broker refused a run after %d sent: %s", sent, exc)
        raise BrokerError(f"{type(exc).__name__}: {exc}") from exc
    return sent


def broker_reachable(timeout: float = 2.0) -> tuple[bool, str]:
    """(True, "") when a connection to the broker opens (always under eager Celery)."""
    from ..celery import app

    if app.conf.task_always_eager:
        return True, ""
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0,
                                   timeout=timeout)
    except Exception as exc:  # any transport error means "unreachable"
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


def resend_lost() -> int:
    """Put back in the database queue the runs whose message the broker no longer holds (a
    broker restarted without persistence, flushed or evicted); returns how many.

    Only messages sent more than ``HETSITE_LOST_AFTER_SECONDS`` ago are checked, so one being
    sent right now is not mistaken for a lost one. A message on its way from the queue to a
    worker may be missed by the check and sent twice; the worker's claim makes the second one
    a no-op.
    """
    from ..broker import held_task_ids

    before = timezone.now() - timezone.timedelta(seconds=settings.HETSITE_LOST_AFTER_SECONDS)
    # A run sent before the dispatcher existed has no send time: old enough.
    sent = list(Run.objects.filter(Q(sent__lt=before) | Q(sent__isnull=True),
                                   status=Status.QUEUED, celery_id__gt="")
                .values_list("pk", "celery_id"))
    if not sent:
        return 0
    held = held_task_ids()
    if held is None:
        return 0  # this transport cannot be read; its messages are files that do not vanish
    lost = 0
    for pk, task_id in sent:
        if task_id not in held:
            lost += Run.objects.filter(pk=pk, status=Status.QUEUED, celery_id=task_id).update(
                celery_id="", sent=None)
    if lost:
        log.warning("%d queued runs had lost their message; they are queued again", lost)
    return lost
