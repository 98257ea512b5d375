"""Backfilling pieces the trace-replay kinds share."""

from __future__ import annotations

import math


def shadow_time(running, n, need: int) -> tuple[float, int]:
    """EASY's shadow time for a head job missing ``need`` nodes: the earliest estimated end
    (over ``running``, sorted (end, job) pairs) by which enough nodes free up, and how many
    nodes are left over then (``extra``); inf when they never do."""
    got = 0
    end = math.inf
    for e, j in running:
        if e > end:
            break  # every job ending at the shadow time counts towards the extra nodes
        got += n[j]
        if got >= need:
            end = e
    return end, got - need
