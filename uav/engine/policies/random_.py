"""Random and Random Best Sensor (ch. 5 spec §4.2, ch. 5 spec §4.3): one pass over the targets in
random order."""

from __future__ import annotations

import numpy as np

from .base import UavPolicy


class RandomPolicy(UavPolicy):
    """Random target order, random valid available UAV; sensor random or best (RBS)."""

    def __init__(self, rng: np.random.Generator, best_sensor: bool = False):
        super().__init__(rng)
        self.best_sensor = best_sensor

    def map(self, view) -> None:
        rng = self.rng
        free_u = view.uav_ok & (view.running_target < 0)
        free_t = view.target_ok & (view.running_uav < 0)
        if not free_u.any() or not free_t.any():
            return
        valid = view.valid
        for t in rng.permutation(np.flatnonzero(free_t)):
            cand = np.flatnonzero(free_u & valid[:, t, :].any(axis=1))
            if cand.size == 0:
                continue
            u = int(cand[rng.integers(cand.size)])
            sensors = np.flatnonzero(valid[u, t])
            if self.best_sensor:
                gain = view.quality[u, sensors] * view.affinity[t, sensors]
                sensors = sensors[gain == gain.max()]
            s = int(sensors[rng.integers(sensors.size)])
            reasons = None
            if view.decisions is not None:
                reasons = {"reason": "random target order; a random idle UAV that can surveil "
                           "it" + ("; its best sensor" if self.best_sensor else
                                   "; a random allowed sensor"),
                           "candidates": int(cand.size)}
            view.start(u, s, int(t), why=reasons)
            free_u[u] = False
            if not free_u.any():
                break
