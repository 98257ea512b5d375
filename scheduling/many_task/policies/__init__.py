"""The policies of kind ``many-task``: a dispatch order (dispatch policies
(trailing-tasks spec §5)), with or without the tail-chopping heuristic (trailing-tasks spec §6).

Every policy sizes partitions by the task/worker ratio ``r``; the ``+chop`` ones also cancel
and downsize when more than a fraction ``f`` of the workers idle. A policy is a
:class:`ManyTaskPolicy` subclass (its class gives the order) registered with ``chop=`` (whether
it chops), and built per run as ``cls(cfg, chop=...)``.
"""

from ..config import KIND
from .base import ManyTaskPolicy
from .order import ORDERS, LongestFirst, RandomOrder

POLICIES = [
    ("random", "Random order", RandomOrder, False,
     "Tasks shuffled, each to the first idle worker; one partition sized by r, held to the end."),
    ("sorted", "Longest first", LongestFirst, False,
     "Tasks sorted by run time, longest first (LPT), each to the first idle worker; one "
     "partition sized by r."),
    ("random+chop", "Random order + tail-chopping", RandomOrder, True,
     "Shuffled; when idle workers / size > f, cancel the partition, restart the running tasks "
     "on a smaller one sized by r (Armstrong et al. 2010)."),
    ("sorted+chop", "Longest first + tail-chopping", LongestFirst, True,
     "Longest first; tail-chopping as above (the paper found no gain over sorting alone)."),
]


def register(engine) -> None:
    for name, label, order, chop, text in POLICIES:
        engine.policy(KIND, name, label=label, description=text,
                      family="tail-chopping" if chop else "greedy",
                      spec="trailing tasks §6" if chop else "trailing tasks §5",
                      chop=chop)(order)


__all__ = ["ORDERS", "POLICIES", "LongestFirst", "ManyTaskPolicy", "RandomOrder", "register"]
