"""The ten ch4 heuristics (ch. 4 spec §9), registered by name (``register(engine)``)."""

from __future__ import annotations

from ..config import KIND
from .base import SerialPolicy
from .baseline import FcfsPolicy, RandomPolicy
from .greedy import GreedyPolicy
from .pair import PairPolicy

_OBJ = {"util": ("Util", "utility at completion"),
        "upt": ("UPT", "utility per unit of remaining execution time")}


def register(engine) -> None:
    """Register the ten heuristics: each a :class:`SerialPolicy` subclass, built per run as
    ``cls(cfg, rng, **options)`` with the options given here."""
    engine.policy(KIND, "random", label="Random", family="comparison", spec="§9.1",
                  description="Tasks in random order, each on a random idle core where it can "
                              "still earn utility; never preempts.")(RandomPolicy)
    engine.policy(KIND, "fcfs", label="FCFS", family="comparison", spec="§9.2",
                  description="Tasks in arrival order, each on an arbitrary idle core where it "
                              "can still earn utility; never preempts.")(FcfsPolicy)

    for mode, (short, what) in _OBJ.items():
        engine.policy(KIND, f"max-{mode}", label=f"Max {short}", family="utility", spec="§9.3",
                      description=f"Two-phase greedy maximising {what} over idle cores; "
                                  "never preempts.", mode=mode, technique="none")(GreedyPolicy)
        engine.policy(KIND, f"max-{mode}-greedy", label=f"Max {short} Preempt Greedy",
                      family="preemptive", spec="§9.4",
                      description=f"Max {short} that may also suspend the running task with the "
                                  f"lowest value when the newcomer's {what} is higher.",
                      mode=mode, technique="greedy")(GreedyPolicy)
        engine.policy(KIND, f"max-{mode}-diff", label=f"Max {short} Preempt Diff",
                      family="preemptive", spec="§9.5",
                      description=f"Like Greedy, but ranks options by the gain in {short} "
                                  "over the suspended task (idle cores count in full).",
                      mode=mode, technique="diff")(GreedyPolicy)
        engine.policy(KIND, f"max-{mode}-pair", label=f"Max {short} Preempt Pair",
                      family="preemptive", spec="§9.6",
                      description=f"Values each busy core by the better order of the newcomer "
                                  f"and the running task (sum of both {short}s) against the "
                                  "best idle core.", mode=mode)(PairPolicy)


__all__ = ["FcfsPolicy", "GreedyPolicy", "PairPolicy", "RandomPolicy", "SerialPolicy", "register"]
