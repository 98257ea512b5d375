"""Named scenarios: a small one for tests and the UI, the ten simulation environments, the
testbed workloads, and the paper-figure presets (experiments (ch. 2 spec §8))."""

from __future__ import annotations

from .config import KIND

SPEC = "ch2-value-of-service.md"

# 48 cores / 48 GB for 12 h from 06:00 (1 h warm-up), 8-10 task types, every configuration
# fitting: oversubscribed like the paper's environments (Max VPTR earns about 55% of the maximum
# VoS, Simple w/ d&p about 35%); any policy runs in about a second.
SMALL = {
    "system": {"cores": 48, "memory_gb": 48.0},
    "workload": {"tasks_min": 150, "tasks_max": 170, "types_min": 8, "types_max": 10},
    "arrivals": {"start_hour": 6.0},
    "scheduler": {"duration_h": 12.0, "warmup_h": 1.0},
}

ENV_VALUES = (128, 192, 256, 320, 384)  # Simulated system (ch. 2 spec §2.1) [DEFAULT] value set


def testbed(workload: int, nodes: int) -> dict:
    """Testbed experiment (ch. 2 spec §8.2): 20-thread / 24 GB nodes, the NAS kernels, per-task
    categories, no warm-up."""
    phases = ["low", "medium", "high", "high", "medium", "low"] if workload == 1 else \
        ["high", "high", "high"]
    return {
        "system": {"layout": "nodes", "nodes": nodes},
        "workload": {"source": "npb"},
        "arrivals": {"pattern": "phases", "phases": phases},
        "value": {"categories": "per-task"},
        "scheduler": {"duration_h": float(len(phases)), "warmup_h": 0.0},
    }


def register(engine) -> None:
    engine.preset("vos-small", KIND, params=SMALL, source=f"{SPEC} §5 (scaled down)",
                  description="Value of Service scaled down: 48 cores / 48 GB, ~160 tasks of "
                              "8-10 types from 06:00 to 18:00; any policy in about a second.")
    for cores in ENV_VALUES:
        engine.preset(f"vos-env-c{cores}", KIND, source=f"{SPEC} §2.1, §8.1, Fig. 7",
                      params={"system": {"cores": cores, "memory_gb": 256.0}},
                      description=f"Simulation environment: {cores} cores, 256 GB; 1,300-1,500 "
                                  "tasks over 26 h (2 h warm-up), 30-40 task types.")
    for memory in ENV_VALUES:
        engine.preset(f"vos-env-m{memory}", KIND, source=f"{SPEC} §2.1, §8.1, Fig. 8",
                      params={"system": {"cores": 256, "memory_gb": float(memory)}},
                      description=f"Simulation environment: 256 cores, {memory} GB; 1,300-1,500 "
                                  "tasks over 26 h (2 h warm-up), 30-40 task types.")
    for workload, text in ((1, "6 h: low, medium, high, high, medium, low"),
                           (2, "3 h, high usage throughout")):
        for nodes in (1, 2, 4):
            engine.preset(f"vos-testbed-w{workload}-{20 * nodes}", KIND,
                          params=testbed(workload, nodes),
                          source=f"{SPEC} §8.2, Figs. {'10-14' if workload == 1 else '15-17'}",
                          description=f"Testbed Workload {workload} ({text}) on {nodes} node"
                                      f"{'s' if nodes > 1 else ''} of 20 cores / 24 GB: NAS "
                                      "kernels FT, IS, EP, LU on 20 VM configurations.")
