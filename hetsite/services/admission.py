"""Who may queue how much work: budgets, published-size figures and the per-account queue cap.

Every submission is priced by its kind's cost estimate (``LabKind.run_seconds``, worker-seconds
per run, summed over its runs: ``Submission.estimate_s``). An account (``permissions.Account``:
a user, or an anonymous client address) may have at most its tier's budget of work queued or
running at once, this submission included, and at most its tier's number of queued runs;
staff have no limits. A figure preset at a size beyond the site's ordinary limits (its
published trial count, or more points or runs than anyone may ask for) needs a login; the same
figure at a size within them stays open to everyone.

The checks run inside the transaction that stores the experiment, so on SQLite (one writer at
a time) two submissions of one account cannot both squeeze under a limit; on PostgreSQL two
concurrent ones can overshoot it by one submission, which the creation throttle bounds.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, Q, Sum

from simcore.errors import ScenarioError

from ..models import Run, Status
from ..permissions import ANONYMOUS, STAFF, Account


class Refused(ScenarioError):
    """A submission its account may not queue; ``status`` is the HTTP status to answer with
    and ``details`` the numbers behind the refusal (estimate, budget, ...) for API clients."""

    def __init__(self, field: str, message: str, status: int = 400, **details):
        super().__init__(field, message)
        self.status = status
        self.details = details


def budget_s(tier: str) -> float | None:
    """Worker-seconds an account of this tier may have queued or running (None: no limit)."""
    if tier == STAFF:
        return None
    return (settings.HETSITE_BUDGET_ANONYMOUS_S if tier == ANONYMOUS
            else settings.HETSITE_BUDGET_USER_S)


def queue_cap(tier: str) -> int | None:
    if tier == STAFF:
        return None
    return (settings.HETSITE_QUEUE_CAP_ANONYMOUS if tier == ANONYMOUS
            else settings.HETSITE_QUEUE_CAP_USER)


def outstanding(account_key: str) -> tuple[float, int]:
    """(worker-seconds of the account's queued and running runs, its queued runs)."""
    row = Run.objects.filter(
        experiment__account=account_key, status__in=(Status.QUEUED, Status.RUNNING)).aggregate(
        seconds=Sum("cost"), queued=Count("id", filter=Q(status=Status.QUEUED)))
    return row["seconds"] or 0.0, row["queued"] or 0


def hours(seconds: float) -> str:
    h = seconds / 3600.0
    return f"{h:,.1f} worker-hour{'' if round(h, 1) == 1.0 else 's'}" if h >= 0.1 else (
        f"{seconds / 60.0:,.1f} worker-minutes")


def admit(sub, account: Account, beyond_site_limits: str = "") -> None:
    """Raise Refused unless ``account`` may queue ``sub`` now. ``beyond_site_limits`` says how
    a figure preset's size exceeds what anyone may ask for ("" when it does not)."""
    if account.tier == STAFF:
        return
    if sub.figure and beyond_site_limits and account.tier == ANONYMOUS:
        raise Refused("figure", f"figure preset {sub.figure!r} at this size ({beyond_site_limits}"
                                ") is open to logged-in users; log in, or ask for fewer trials",
                      status=403)
    runs = sub.run_count
    queued_s, queued_runs = outstanding(account.key)
    budget = budget_s(account.tier)
    if sub.estimate_s + queued_s > budget:
        setting = ("HETSITE_BUDGET_ANONYMOUS_S" if account.tier == ANONYMOUS
                   else "HETSITE_BUDGET_USER_S")
        already = f"; {hours(queued_s)} of yours are queued or running" if queued_s else ""
        more = (f". Log in for a budget of {hours(settings.HETSITE_BUDGET_USER_S)}, or ask"
                if account.tier == ANONYMOUS else ". Ask")
        raise Refused("budget", f"this experiment is estimated at {hours(sub.estimate_s)} "
                                f"({runs:,} runs); the budget of {account.tier} callers is "
                                f"{hours(budget)} of queued work ({setting}){already}{more} for "
                                "fewer trials, points or policies, or a smaller scenario",
                      estimate_s=round(sub.estimate_s, 3), budget_s=budget,
                      queued_s=round(queued_s, 3))
    cap = queue_cap(account.tier)
    if queued_runs + runs > cap:
        setting = ("HETSITE_QUEUE_CAP_ANONYMOUS" if account.tier == ANONYMOUS
                   else "HETSITE_QUEUE_CAP_USER")
        raise Refused("queue", f"{queued_runs:,} runs of yours are queued and this experiment "
                               f"adds {runs:,}; at most {cap:,} may wait at once ({setting}). "
                               "Try again when some have run, or cancel one",
                      status=429, queued_runs=queued_runs, runs=runs, cap=cap)
