"""What a submission would cost, said before it is made: runs, CPU time, wall time on the
current workers and queue, the budget it would use and whether admission would take it.

The numbers come from the estimate admission charges (``Submission.estimate_s``: each kind's
cost estimate summed over the runs), so a quote and the real submission never disagree. A
quote reads a few aggregates and writes nothing.

Wall time is a range: from the experiment having the workers to itself (its CPU time spread
over them, never less than its longest run) to it waiting behind all the work queued or running
now. The fair dispatcher gives it turns beside the others, so the truth lies in between.
"""

from __future__ import annotations

import os
import threading

from django.conf import settings
from django.db.models import Sum

from .. import kinds
from ..models import Run, Status
from ..permissions import Account
from ..presenters import duration
from . import admission, submission


def worker_slots() -> int:
    """Runs the workers can simulate at once: ``HETSITE_WORKER_SLOTS`` (default: the worker
    concurrency, else this machine's cores), or more when more worker processes are busy now."""
    configured = (settings.HETSITE_WORKER_SLOTS or settings.CELERY_WORKER_CONCURRENCY
                  or os.cpu_count() or 1)
    # A claim token is "host:pid:nonce"; one process runs one run at a time.
    busy = {token.rsplit(":", 1)[0] for token in Run.objects.filter(
        status=Status.RUNNING).values_list("worker", flat=True)[:10_000]}
    return max(int(configured), len(busy), 1)


def backlog_s() -> float:
    """Estimated worker-seconds of every run queued or running on the site now."""
    return Run.objects.filter(status__in=(Status.QUEUED, Status.RUNNING)).aggregate(
        s=Sum("cost"))["s"] or 0.0


def quote(sub, account: Account, beyond_site_limits: str | None = None) -> dict:
    """The price of ``sub`` (a ``submission.Submission``, or the part of one to be added) for
    ``account``; ``beyond_site_limits`` defaults to the submission's own."""
    beyond = sub.beyond_site_limits if beyond_site_limits is None else beyond_site_limits
    longest = max((c for row in sub.costs for c in row), default=0.0)
    slots, queue = worker_slots(), backlog_s()
    alone = max(longest, sub.estimate_s / slots)
    queued_s, queued_runs = admission.outstanding(account.key)
    budget = admission.budget_s(account.tier)
    limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
    try:
        admission.admit(sub, account, beyond)
        refusal = None
    except admission.Refused as err:
        refusal = {"field": err.field, "message": err.message, "status": err.status}
    warnings = []
    if longest > limit:
        warnings.append(f"its longest run is estimated at {duration(longest)}, over the "
                        f"{duration(limit)} a run may take (CELERY_TASK_SOFT_TIME_LIMIT): "
                        "such runs are stopped and fail; make the scenario smaller")
    if budget is not None and queued_s + sub.estimate_s > budget:
        warnings.append(f"it needs {admission.hours(sub.estimate_s)}; your budget is "
                        f"{admission.hours(budget)} of queued work"
                        + (f", {admission.hours(queued_s)} of it in use" if queued_s else ""))
    return {
        "runs": sub.run_count,
        "estimated_cpu_s": round(sub.estimate_s, 3),
        "estimated_wall_s": round(alone, 3),
        "estimated_wall_queued_s": round(max(longest, (queue + sub.estimate_s) / slots), 3),
        "longest_run_s": round(longest, 3),
        "run_time_limit_s": limit,
        "workers": slots,
        "queue_s": round(queue, 3),
        "tier": account.tier,
        "budget_s": budget,
        "budget_in_use_s": round(queued_s, 3),
        "budget_after_s": round(queued_s + sub.estimate_s, 3),
        "queued_runs": queued_runs,
        "admitted": refusal is None,
        "refusal": refusal,
        "warnings": warnings,
    }


_figure_costs: dict[str, dict] = {}
_filling = threading.Lock()


def figure_cost(name: str) -> dict:
    """A figure preset's runs and estimated CPU time at its default trial count and at the
    publication's (``paper_trials``; None when it states none). Kept per process: a preset's
    size and the cost model are code."""
    found = _figure_costs.get(name)
    if found is None:
        found = _figure_costs[name] = _price_figure(name)
    return found


def known_figure_costs() -> dict[str, dict]:
    """The figure costs this process knows now; the others are computed in a background
    thread (validating every point of the largest sweeps takes seconds of CPU, which a page
    must not wait for)."""
    missing = [f.name for f in kinds.all_figures() if f.name not in _figure_costs]
    if missing and _filling.acquire(blocking=False):
        def fill():
            try:
                for name in missing:
                    figure_cost(name)
            finally:
                _filling.release()

        threading.Thread(target=fill, daemon=True, name="figure-costs").start()
    return dict(_figure_costs)


def _price_figure(name: str) -> dict:
    figure = kinds.get_figure(name)
    sub = submission.figure_submission(name)
    per_trial_runs, per_trial_s = sub.run_count // sub.trials, sub.estimate_s / sub.trials

    def at(trials: int) -> dict:
        return {"trials": trials, "runs": per_trial_runs * trials,
                "estimated_cpu_s": round(per_trial_s * trials, 3)}

    return {"default": at(figure.trials),
            "published": at(figure.paper_trials) if figure.paper_trials else None}
