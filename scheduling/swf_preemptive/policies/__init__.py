"""The victim policies of preemption-based backfill (spec section 4.3), registered by name."""

from .victims import (
    DurationConsumed,
    DurationRemaining,
    FirstFit,
    MinWork,
    RandomVictims,
    ScaledRemaining,
    VictimPolicy,
    Victims,
    WcDuration,
    WcResUsage,
)

#: (name, class, label, description, spec section): the paper's six plotted policies first.
POLICIES = [
    ("first-fit", FirstFit, "First Fit",
     "Baseline: First Fit (EASY) backfill with a depth-1 reservation; no preemption.",
     "PBB 2 / 4.3: First Fit"),
    ("random", RandomVictims, "random",
     "Backfill past the reservation; preempt a random subset (the paper's naive worst case).",
     "PBB 4.3: random"),
    ("duration-consumed", DurationConsumed, "duration-consumed",
     "Preempt the jobs that have run the shortest time (most recently started).",
     "PBB 4.3: duration-consumed"),
    ("duration-remaining", DurationRemaining, "duration-remaining",
     "Preempt the jobs with the most wall-clock time left (furthest from their limit).",
     "PBB 4.3: duration-remaining"),
    ("wcduration", WcDuration, "wcduration",
     "Preempt the jobs with the longest wall-clock limit.",
     "PBB 4.3: wcduration"),
    ("wcduration-percentresusage", WcResUsage, "wcduration-percentresusage",
     "Preempt the jobs using the largest share of the machine (ties: longer limit).",
     "PBB 4.3: wcduration-percentresusage"),
    ("scaled-remaining", ScaledRemaining, "furthest from scaled limit",
     "Preempt the jobs furthest from their history-scaled limit (listed, not plotted).",
     "PBB 4.3: historical-information-scaled"),
    ("min-work", MinWork, "minimum work completed",
     "Preempt the jobs with the least work done, processors x time (listed, not plotted).",
     "PBB 4.3: minimum work completed"),
]
PLOTTED = [name for name, *_ in POLICIES[:6]]


def register(engine, kind: str) -> None:
    for name, cls, label, description, spec in POLICIES:
        engine.policy(kind, name, label=label, description=description, spec=spec,
                      family="baseline" if not cls.preempts else "victims")(cls)


__all__ = ["PLOTTED", "POLICIES", "FirstFit", "VictimPolicy", "Victims", "register"]
