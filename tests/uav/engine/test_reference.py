"""The vectorized policies against a plain-loop transcription of the spec's pseudo-code.

The reference below follows value-based greedy heuristics to filtering (ch. 5 spec §4.4-4.7)
literally, one (u, t, s) at a time, with the tie rule of ties in argmax (ch. 5 spec A20) (first in
UAV id, target id, sensor order). Whole missions with dynamic events must produce identical
surveils.
"""

import numpy as np
import pytest

from uav.engine import preset_scenario
from uav.engine.policies import make_policy
from uav.engine.sim import Simulator
from uav.engine.workload import generate


class Reference:
    def __init__(self, base, preemption, filtering):
        self.base, self.p, self.f = base, preemption, filtering
        self.rng = None

    def map(self, view):
        U, T = view.n_uavs, view.n_targets
        thr = [0.0] * U
        if self.f:
            for u in range(U):
                n, d = view.n_started[u], view.day_elapsed[u]
                if n > 0 and d > 0:
                    thr[u] = (view.vpe_sum[u] / n) * (view.energy_spent[u] / d)
        value_mode = [view.day_elapsed[u] > view.energy_spent[u] for u in range(U)]

        def metric(kind, u, t, s):
            return {"V": view.V, "VPT": view.VPT, "VPE": view.VPE}[kind][u, t, s]

        def uav_side(u, t, s):
            if self.base == "meta":
                return metric("V" if value_mode[u] else "VPE", u, t, s)
            return metric(self.base, u, t, s)

        def target_side(u, t, s):
            return metric("V", u, t, s) if self.base == "meta" else metric(self.base, u, t, s)

        locked_u, locked_t = set(), set()
        while True:
            options = []
            for u in range(U):
                if not view.uav_ok[u] or u in locked_u or \
                        (not self.p and view.running_target[u] >= 0):
                    continue
                for t in range(T):
                    if not view.target_ok[t] or t in locked_t or \
                            (not self.p and view.running_uav[t] >= 0):
                        continue
                    for s in range(4):
                        if not view.valid[u, t, s] or (self.f and not view.VPE[u, t, s] > thr[u]):
                            continue
                        if view.running_target[u] >= 0 and not uav_side(u, t, s) > uav_side(
                                u, view.running_target[u], view.running_sensor[u]):
                            continue
                        other = view.running_uav[t]
                        if other >= 0 and other != u and not target_side(u, t, s) > target_side(
                                other, t, view.running_sensor[other]):
                            continue
                        options.append((u, t, s))
            if not options:
                return
            if self.base == "meta":
                proposals = {}
                for u, t, s in options:
                    if u not in proposals or uav_side(u, t, s) > uav_side(u, *proposals[u]):
                        proposals[u] = (t, s)
                pick = None
                for u, (t, s) in proposals.items():
                    if pick is None or view.V[u, t, s] > view.V[pick]:
                        pick = (u, t, s)
            else:
                pick = options[0]
                for o in options[1:]:
                    if metric(self.base, *o) > metric(self.base, *pick):
                        pick = o
            u, t, s = pick
            view.start(u, s, t, ("value" if value_mode[u] else "vpe")
                       if self.base == "meta" else "")
            locked_u.add(u)
            locked_t.add(t)


def trace(sim):
    return [(s.uav, s.sensor, s.target, round(s.start, 9), round(s.end, 9), s.reason)
            for s in sim.surveils]


CASES = [(name, base, p, f) for name, base in (("max-value", "V"), ("max-vpt", "VPT"),
                                               ("max-vpe", "VPE"), ("meta", "meta"))
         for p, f in ((False, False), (True, False), (False, True), (True, True))]


@pytest.mark.parametrize("name, base, p, f", CASES)
def test_vectorized_policy_matches_reference(name, base, p, f):
    variant = ("p" if p else "") + ("f" if f else "")
    policy = f"{name}+{variant}" if variant else name
    cfg = preset_scenario("small-baseline", {
        "horizon_h": 10.0, "mapping_interval_min": 10.0, "event_multiplier": 6.0,
        "energy_rate_mean": 0.15, "uavs_mean": 6.0, "targets_mean": 12.0}).params
    for seed in (1, 2):
        mission = generate(cfg, seed)
        fast = Simulator(mission, cfg, make_policy(policy, np.random.default_rng(0))).run()
        ref = Simulator(mission, cfg, Reference(base, p, f)).run()
        assert trace(fast) == trace(ref)
        assert len(fast.surveils) > 5
