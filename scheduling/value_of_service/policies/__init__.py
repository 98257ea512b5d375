"""The heuristics of ch. 2 spec §7, registered by name (``register(engine)``)."""

from __future__ import annotations

from ..config import KIND
from ..model import METRICS
from .base import VosPolicy
from .simple import SimplePolicy
from .value import ValuePolicy

SIMPLE = {
    "simple": ("Simple", False, False,
               "Random task order and configuration, lowest core ids; a task that cannot start "
               "now gets a permanent reservation; never drops."),
    "simple-d": ("Simple w/ dropping", True, False,
                 "Simple that drops a task instead of committing an assignment that would earn "
                 "no value."),
    "simple-p": ("Simple w/ place-holders", False, True,
                 "Simple with place-holders (erased at the next mapping event) instead of "
                 "permanent reservations; never drops."),
    "simple-dp": ("Simple w/ d&p", True, True,
                  "Simple with dropping and place-holders: the testbed baseline."),
}
VALUE = {
    "vptr": ("max-vptr", "Max VPTR"),
    "value": ("max-value", "Max Value"),
    "vpt": ("max-vpt", "Max VPT"),
    "vpcr": ("max-vpcr", "Max VPCR"),
    "vpmr": ("max-vpmr", "Max VPMR"),
}


def register(engine) -> None:
    """Register every heuristic: each a :class:`VosPolicy` subclass, built per run as
    ``cls(cfg, rng, **options)`` with the options given here."""
    for name, (label, dropping, placeholders, text) in SIMPLE.items():
        engine.policy(KIND, name, label=label, family="simple", spec="§7.2",
                      description=text, dropping=dropping, placeholders=placeholders)(SimplePolicy)
    for metric, (name, label) in VALUE.items():
        what = METRICS[metric][0]
        proposed = metric == "vptr"
        engine.policy(KIND, name, label=label, family="value", spec="§7.1",
                      description=(f"Two-phase greedy (Min-Min style) committing the task and "
                                   f"configuration of highest {what} at its earliest start; "
                                   "place-holders, dropping, void-minimising cores."
                                   + ("" if proposed else " A variant of Max VPTR.")),
                      metric=metric)(ValuePolicy)


__all__ = ["SimplePolicy", "ValuePolicy", "VosPolicy", "register"]
