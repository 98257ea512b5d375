"""Every ch3 heuristic, registered by name (``register(engine)``).

Names: the comparison heuristics (``random``, ``conservative``, ``easy``, ``fcfs-mq``), the
Min-Min utility heuristics ``max-{util,upt,upr,upe}-{pr,ph}`` (permanent reservations or
place-holders), the metaheuristics ``meta-event`` and ``meta-task``, and each of them with an
energy filter suffix ``+ept`` (energy per task) or ``+epr`` (energy per resource). Leniencies and
the dropping threshold are scenario parameters.
"""

from __future__ import annotations

from ..config import KIND
from .base import EventContext, Policy, StartCache
from .comparison import Conservative, Easy, MultiQueue, RandomPolicy
from .meta import EventBased, TaskBased
from .minmin import MinMin

FILTERS = {
    "": (None, ""),
    "+ept": ("ept", " + energy-per-task filter"),
    "+epr": ("epr", " + energy-per-resource filter"),
}
FILTER_SPEC = {"ept": "§5.10 (Eqs. 7-8)", "epr": "§5.10 (Eq. 9)"}

COMPARISON = {
    "random": (RandomPolicy, "Random", "§5.7",
               "Arrival order; random eligible cluster and P-state; starts now or reserves."),
    "conservative": (Conservative, "Conservative Backfilling", "§5.7",
                     "FCFS at P-state 0; every waiting task gets a permanent reservation; "
                     "backfills voids."),
    "easy": (Easy, "EASY Backfilling", "§5.7",
             "FCFS at P-state 0; one permanent reservation system-wide; backfills without "
             "delaying it."),
    "fcfs-mq": (MultiQueue, "FCFS Multiple Queues", "§5.7",
                "Small/medium/large FCFS queues by resources, served 8/4/1 round-robin with "
                "conservative backfilling."),
}

MEASURES = {
    "util": ("Max Util", "utility earned"),
    "upt": ("Max UPT", "utility per unit of execution time"),
    "upr": ("Max UPR", "utility per core-second allocated"),
    "upe": ("Max UPE", "utility per joule"),
}
VARIANTS = {"pr": (True, "permanent reservations"), "ph": (False, "place-holders")}

META = {
    "meta-event": (EventBased, "Event-Based metaheuristic",
                   "Max UPE for the whole event when committed energy is above the linear goal, "
                   "else Max UPR (place-holders)."),
    "meta-task": (TaskBased, "Task-Based metaheuristic",
                  "Like Event-Based, but switches from Max UPR to Max UPE mid-event once "
                  "committed energy reaches the goal."),
}


def _register(engine, cls, name, label, description, spec, family, **options):
    for suffix, (filt, text) in FILTERS.items():
        spec_text = spec if filt is None else f"{spec}, {FILTER_SPEC[filt]}"
        engine.policy(KIND, name + suffix, label=label + text, description=description,
                      spec=spec_text, family=family, energy_filter=filt, **options)(cls)


def register(engine) -> None:
    """Register every ch3 heuristic on ``engine``: each is a :class:`Policy` subclass, built
    per run as ``cls(cfg, gen, **options)`` with the options registered here."""
    for name, (cls, label, spec, desc) in COMPARISON.items():
        _register(engine, cls, name, label, desc, spec, "comparison")
    for measure, (label, what) in MEASURES.items():
        for variant, (permanent, vtext) in VARIANTS.items():
            _register(engine, MinMin, f"max-{measure}-{variant}", f"{label} ({variant.upper()})",
                      f"Min-Min: repeatedly assign the task whose best option maximizes {what}; "
                      f"future starts become {vtext}.", "§5.8", "utility",
                      objective=measure, permanent=permanent)
    for name, (cls, label, desc) in META.items():
        _register(engine, cls, name, label, desc, "§5.9", "metaheuristic")


__all__ = ["EventContext", "Policy", "StartCache"]
