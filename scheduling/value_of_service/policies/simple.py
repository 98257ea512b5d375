"""Simple and its three variants (Simple and its variants (ch. 2 spec §7.2)): random task order,
random configuration, lowest core ids; optionally dropping and place-holders instead of permanent
reservations."""

from __future__ import annotations

import numpy as np

from .base import VosPolicy

STARTS_NOW = "random order and configuration: starts now on the lowest free cores"
PLACE_HOLDER = ("its random configuration cannot start now: place-holder at its earliest "
                "start, erased at the next mapping event")
RESERVED = "its random configuration cannot start now: permanent reservation at its earliest start"


class SimplePolicy(VosPolicy):
    def __init__(self, cfg, rng: np.random.Generator, dropping: bool, placeholders: bool):
        super().__init__(cfg, rng)
        self.dropping = dropping
        self.placeholders = placeholders

    def map(self, sim, tasks: np.ndarray) -> None:
        wl = sim.wl
        # Without dropping, a place-holder's only effect is to keep later tasks of this event
        # from starting now; once no configuration fits now, the rest of the event changes
        # nothing that outlives it (checked every few tasks).
        skip_when_full = self.placeholders and not self.dropping
        log = sim.decisions
        for i, j in enumerate(self.rng.permutation(tasks).tolist()):
            if skip_when_full and i % 8 == 0 and not sim.can_start_now():
                break
            ty = wl.type[j]
            k = int(self.rng.integers(wl.n_cfg[ty]))
            c, m, d = wl.cfg_cores[ty, k], wl.cfg_mem[ty, k], wl.etc[ty, k]
            s, node = sim.earliest(c, m, d)
            start, node = float(s[0]), int(node[0])
            if self.dropping:
                value, _, _ = sim.values(j, start, d, wl.eec[ty, k])
                if value <= 0.0:
                    # never commits an assignment earning nothing (Simple and its variants
                    # (ch. 2 spec §7.2))
                    if log is not None:
                        self._explain_drop(sim, j, k, start)
                    sim.drop(j)
                    continue
            # what blocks it now, before its own booking takes cores
            blocked = sim.blocked(j, k, node) if log is not None and start > sim.now else {}
            sim.assign(j, k, start, node, "lowest", self.placeholders)
            if log is not None:
                self._explain(sim, j, k, start, node, blocked)

    def _explain(self, sim, j: int, k: int, start: float, node: int, blocked: dict) -> None:
        """After the assignment: a committed task's value is the one the result reports."""
        if start == sim.now:
            action, reason = "mapped", STARTS_NOW
        elif self.placeholders:
            action, reason = "held", PLACE_HOLDER
        else:
            action, reason = "mapped", RESERVED
        if sim.repeats(j, action, reason):
            sim.explain(j, action, reason)
            return
        wl = sim.wl
        ty = wl.type[j]
        if action == "held":
            value = float(sim.values(j, start, wl.etc[ty, k], wl.eec[ty, k])[0])
        else:
            value = float(sim.value[j])
        sim.explain(j, action, reason, where=node, config=k, start=start, value=value,
                    configs=int(wl.n_cfg[ty]), **blocked)

    @staticmethod
    def _explain_drop(sim, j: int, k: int, start: float) -> None:
        wl = sim.wl
        ty = wl.type[j]
        d = float(wl.etc[ty, k])
        value, v_p, v_e = (float(x) for x in sim.values(j, start, d, wl.eec[ty, k]))
        sim.explain(j, "dropped", "its random configuration would earn no value at its "
                    "earliest start", value=value, threshold=0.0, config=k, v_p=v_p, v_e=v_e,
                    response=start + d - float(wl.arrival[j]), p_soft=float(wl.p_soft[j]),
                    p_hard=float(wl.p_hard[j]), energy=float(wl.eec[ty, k]),
                    e_soft=float(wl.e_soft[j]), e_hard=float(wl.e_hard[j]))
