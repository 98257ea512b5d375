"""The grid schedulers (experiments (grid spec §8): the paper's four curves, plus queue balancing as
an extra).

A scheduler is a combination of the local discipline (FCFS with backfilling, or preemptive
with backfilling: a :class:`GridScheduler` subclass), the overlay its internode PUSH/PULL runs
on (none, CAN' or 2-NN) and whether queue balancing follows (its registered options). The
mechanics live in :mod:`.local`, :mod:`.internode` and :mod:`.balance`; :mod:`..sim` calls
them.
"""

from __future__ import annotations

from ..config import KIND
from .base import GridScheduler
from .local import FcfsBackfill, PreemptiveBackfill

OVERLAYS = {"can": "CAN'", "2nn": "2-NN"}


def register(engine) -> None:
    engine.policy(KIND, "fcfs", label="FCFS with backfilling", family="baseline",
                  spec="§7",
                  description="Each node runs its queue in arrival order and backfills any "
                              "later job that fits its residual resources; no preemption, no "
                              "migration (Lee, Keleher and Sussman 2010).")(FcfsBackfill)
    engine.policy(KIND, "local", label="Local preemptive", family="local", spec="§5",
                  description="Per-node priority alpha W - beta T_rem with backfilling; queued "
                              "jobs preempt lower-priority running ones (suspend/resume); no "
                              "migration.")(PreemptiveBackfill)
    for key, name in OVERLAYS.items():
        engine.policy(KIND, f"internode-{key}", label=f"Internode {name}", family="internode",
                      spec="§6.1-§6.3",
                      description=f"Local preemptive scheduling, then each interval PUSH of "
                                  f"blocked head jobs and PULL into free resources between "
                                  f"{name} neighbours, ranked by the balance objective.",
                      overlay=key)(PreemptiveBackfill)
        engine.policy(KIND, f"internode-{key}+qb", label=f"Internode {name} + queue balancing",
                      family="extra", spec="§6.4",
                      description=f"Internode {name}, then queue balancing: the locally most "
                                  "loaded node pushes, a locally least loaded one pulls, a "
                                  "queued job to even out normalized queue loads (the paper's "
                                  "future work).", overlay=key, balance=True)(PreemptiveBackfill)


__all__ = ["FcfsBackfill", "GridScheduler", "PreemptiveBackfill", "register"]
