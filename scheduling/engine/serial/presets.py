"""Named scenarios: a small one for tests and the UI, the baseline and every sweep point.

Sweeps (spec §11.2) change one parameter of the baseline; everything else stays at the
defaults of :mod:`.config` (spec §11.1: 5 x 160 cores, 60,000 tasks/day, B = 64, 20 utility
classes, both preemption flags on every task, 28 h with a 4 h warm-up).
"""

from __future__ import annotations

from .config import KIND

# 5 x 8 cores and 20 task types: the baseline's load per core and mix of critical tasks, with
# bursts scaled down with the system (B = 8), so any policy runs in about a second.
SMALL = {
    "system": {"n_clusters": 5, "cores_per_cluster": 8},
    "etc": {"n_types": 20, "n_critical_types": 4},
    "workload": {"burst_size": 8},
}


def register(engine) -> None:
    engine.preset("ch4-small", KIND, params=SMALL, source="§11.1 (scaled down)",
                  description="ch4 scaled down: 5 x 8 cores, 20 task types, bursts of ~8, "
                              "28 h; any policy in about a second.")
    engine.preset("ch4-baseline", KIND, params={}, source="§11.1",
                  description="ch4 baseline: 5 x 160 cores, 60,000 tasks/day in bursts of "
                              "~64, 20 utility classes, every task may preempt and be "
                              "preempted.")
    families = {"step": "step functions (window E_k / 10 E_k)",
                "decay": "decaying class (flat to E_k, 200-min decay at urgency 0.3)",
                "classes": "20 utility classes"}
    for fam, text in families.items():
        engine.preset(f"ch4-family-{fam}", KIND, params={"utility": {"family": fam}},
                      source="§11.2 Fig. 36", description=f"ch4 utility family sweep: {text}.")
    engine.preset("ch4-decay-fast", KIND, source="§5.3 (A7 sensitivity)",
                  params={"utility": {"family": "decay", "urgency_time_unit_min": 1.0}},
                  description="ch4 decaying class with urgency 0.3 per minute instead of per "
                              "10 minutes (sensitivity run of A7).")
    for b in (1, 16, 32, 64, 128):
        engine.preset(f"ch4-burst-{b}", KIND, params={"workload": {"burst_size": b}},
                      source="§11.2 Fig. 37",
                      description=f"ch4 burst size sweep: mean burst size B = {b}.")
    for pct in (0, 20, 40, 60, 80, 100):
        p = pct / 100
        engine.preset(f"ch4-flags-{pct}", KIND,
                      params={"workload": {"p_can_preempt": p, "p_preemptible": p}},
                      source="§11.2 Fig. 38",
                      description=f"ch4 preemption flag sweep: each task may preempt / be "
                                  f"preempted with probability {pct}% (independently).")
    for minutes in (10, 30, 50):
        engine.preset(f"ch4-critical-{minutes}", KIND,
                      params={"etc": {"critical_mean_min": float(minutes)}},
                      source="§11.2 Figs. 39-40",
                      description=f"ch4 critical task length sweep: critical types take "
                                  f"{minutes} min on average.")

