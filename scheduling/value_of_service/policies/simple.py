"""Simple and its three variants (Simple and its variants (ch. 2 spec §7.2)): random task order,
random configuration, lowest core ids; optionally dropping and place-holders instead of permanent
reservations."""

from __future__ import annotations

import numpy as np

from .base import VosPolicy


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
                    sim.drop(j)
                    continue
            sim.assign(j, k, start, node, "lowest", self.placeholders)
