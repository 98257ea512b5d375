"""Named scenarios of the ch3 environment (registered on the scheduling engine)."""

from __future__ import annotations

from .config import KIND

SPEC = "ch3-parallel-utility-energy.md"

# A scaled-down system and workload that keeps the chapter's structure (4 GP + 2 SP clusters,
# GP and SP types, all five core rows, oversubscription at peak, a binding energy budget) and
# runs any policy in about a second.
SMALL = {
    "system": {"clusters": [
        {"name": "GP1", "kind": "general", "cores_per_node": 4, "nodes": 24},
        {"name": "GP2", "kind": "general", "cores_per_node": 6, "nodes": 20},
        {"name": "GP3", "kind": "general", "cores_per_node": 8, "nodes": 16},
        {"name": "GP4", "kind": "general", "cores_per_node": 8, "nodes": 18},
        {"name": "SP1", "kind": "special", "cores_per_node": 8, "nodes": 20},
        {"name": "SP2", "kind": "special", "cores_per_node": 8, "nodes": 22},
    ]},
    "workload": {
        "tasks_per_day": 500.0,
        "gp_types": 12,
        "sp_types_per_cluster": 4,
        "core_rows": [
            {"share": 0.20, "min_cores": 2, "max_cores": 4, "pattern": "sinusoidal"},
            {"share": 0.20, "min_cores": 5, "max_cores": 16, "pattern": "sinusoidal"},
            {"share": 0.40, "min_cores": 17, "max_cores": 64, "pattern": "sinusoidal"},
            {"share": 0.19, "min_cores": 65, "max_cores": -1, "pattern": "work-hours"},
            {"share": 0.01, "min_cores": 0, "max_cores": 0, "pattern": "work-hours"},
        ],
    },
    "time": {"mapping_interval_s": 300.0},
    "energy": {"budget_gj": 0.9},
}


# Spec §8: Table 5 clusters (a VM is a node), one P-state, a 3 h run that is also the energy
# accounting period (the testbed stops at its energy limit rather than a daily budget).
TESTBED = {
    "system": {"clusters": [
        {"name": "C1", "kind": "general", "cores_per_node": 1, "nodes": 16},
        {"name": "C2", "kind": "general", "cores_per_node": 2, "nodes": 8},
        {"name": "C3", "kind": "general", "cores_per_node": 4, "nodes": 4},
        {"name": "C4", "kind": "general", "cores_per_node": 8, "nodes": 2},
    ], "pstate_power_factors": [1.0]},
    "workload": {"source": "testbed", "gp_types": 4, "sp_types_per_cluster": 0},
    "time": {"sim_h": 3.0, "warmup_h": 0.0, "mapping_interval_s": 50.0},
    "energy": {"budget_gj": 0.0027, "day_h": 3.0},
}


def register(engine) -> None:
    engine.preset("small", KIND, params=SMALL, source=f"{SPEC} §10.2 (smoke-test mode)",
                  description="Scaled-down ch3 system (118 nodes, 20 types, ~500 tasks/day, "
                              "mapping every 5 min) with a binding energy budget; any policy in "
                              "about a second.")
    engine.preset("ch3-5k", KIND, params={"energy": {"budget_gj": 12.0}},
                  source=f"{SPEC} §6.1, Fig. 25",
                  description="Synthetic ch3 workload, 5,000 tasks/day, 12 GJ/day budget.")
    engine.preset("ch3-10k", KIND,
                  params={"workload": {"tasks_per_day": 10000.0},
                          "energy": {"budget_gj": 15.0}},
                  source=f"{SPEC} §6.1, Fig. 26",
                  description="Synthetic ch3 workload, 10,000 tasks/day, 15 GJ/day budget.")
    engine.preset("ch3-unconstrained", KIND, params={"energy": {"budget_gj": None}},
                  source=f"{SPEC} §10.4",
                  description="5,000 tasks/day without an energy budget (calibration run).")
    engine.preset("ch3-10k-unconstrained", KIND,
                  params={"workload": {"tasks_per_day": 10000.0},
                          "energy": {"budget_gj": None}},
                  source=f"{SPEC} §10.4",
                  description="10,000 tasks/day without an energy budget (calibration run).")
    engine.preset("ch3-trace", KIND,
                  params={"workload": {"source": "trace"},
                          "trace": {"file": "lublin_256", "size_fraction": 0.3,
                                    "cores_per_node": 1, "max_job_cores": 32, "day": 60},
                          "energy": {"budget_gj": None}},
                  source=f"{SPEC} §3, Fig. 31",
                  description="Trace-driven arrivals: the busiest day (plus warm-up) of the "
                              "shipped Lublin 256-node trace on a six-cluster system of 30% of "
                              "its size (jobs up to 32 cores), no energy budget.")
    engine.preset("ch3-testbed", KIND, params=TESTBED, source=f"{SPEC} §8, Tables 5-7, Fig. 33",
                  description="The 4-cluster testbed of §8 simulated: NAS benchmarks IS/MG/CG "
                              "from Tables 6-7, a task every 120 s for 3 h, 50 s mapping, "
                              "budget = simulated Max UPR energy (the 100% case).")

