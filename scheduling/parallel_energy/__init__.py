"""Kind ``parallel-energy`` (dissertation ch. 3): utility-based scheduling of parallel jobs on an
oversubscribed, energy-constrained, heterogeneous HPC system (spec
``ch3-parallel-utility-energy.md``; docs/ch3.md).

Importing this package registers the kind, its policies and its presets on
``scheduling.engine.ENGINE``.
"""

import functools
from types import SimpleNamespace

from scheduling.engine import ENGINE
from scheduling.hpc.traces import TraceLibrary

from . import policies, presets
from .config import KIND, ParallelEnergyConfig
from .policies import Policy
from .sim import run

# The cost model (units: about 0.3 µs of engine time; docs/ch3.md "Limits and price" has the
# measurements). A mapping event costs a fixed part worth PER_EVENT units (~40 µs, measured at
# 5 tasks/day) plus work that grows with the waiting tasks, whose proxy is arrivals/day x
# arrivals/day / nodes (the queue grows with the load); each task arriving PER_TASK more.
PER_EVENT = 160.0
PER_TASK = 400.0
# The Min-Min family and the metaheuristics take about 2.5x the comparison heuristics.
HEAVY = 2.5


def arrivals_and_nodes(config: ParallelEnergyConfig) -> tuple[float, int]:
    """(tasks per day, nodes) the scenario asks for: the testbed's arrivals from its mean
    inter-arrival time; a library trace's jobs in the simulated window on the system scaled to
    it (read once per trace and window); the synthetic workload's rate on its clusters, also
    the proxy for an uploaded trace, which only the site can read."""
    nodes = sum(c.nodes for c in config.system.clusters)
    if config.workload.source == "testbed":
        return 86_400.0 / config.testbed.mean_interarrival_s, nodes
    if config.workload.source == "trace":
        found = _trace_load(config.trace, config.time, config.system)
        if found is not None:
            return found
    return config.workload.tasks_per_day, nodes


@functools.lru_cache(maxsize=64)
def _trace_load(trace, time, system) -> tuple[float, int] | None:
    from .workload import load_trace, trace_system_config

    view = SimpleNamespace(trace=trace, time=time, system=system)
    try:
        jobs, info = load_trace(view, TraceLibrary())
        scaled = trace_system_config(view, info["machine_cores"])
    except Exception:  # noqa: BLE001 (a price never fails a submission: the proxy below)
        return None  # an upload, or a day past the trace's end: refused when the run starts
    return (len(jobs["arrival"]) * 24.0 / time.sim_h,
            sum(c.nodes for c in scaled.clusters))


def _cost(config: ParallelEnergyConfig, policy: str) -> float:
    """Relative run time: mapping events x (a fixed part + arrivals/day x arrivals per node)
    + arrivals; x 2.5 for the Min-Min family and the metaheuristics. A budget given as a share
    of Max UPR PH's energy first runs Max UPR PH unconstrained on the trial (``sim.run``)."""
    arrivals, nodes = arrivals_and_nodes(config)
    nodes = max(nodes, 1)
    t = config.time
    one = (t.mapping_events() * (PER_EVENT + arrivals * arrivals / nodes)
           + PER_TASK * arrivals * t.sim_h / 24.0)
    units = one * (HEAVY if policy.startswith(("max-", "meta-")) else 1.0)
    if config.energy.budget_pct_of_max_upr is not None:
        units += one * HEAVY
    return units


ENGINE.kind(
    KIND,
    title="Parallel jobs, utility and energy (ch. 3)",
    description="Parallel rigid jobs with utility functions on heterogeneous clusters with "
                "P-states and a daily energy budget; mapping events every minute.",
    config_cls=ParallelEnergyConfig,
    spec="ch3-parallel-utility-energy.md",
    headline=("pct_max_utility", "energy_gj"),
    cost=_cost,
    policy_type=Policy,
)(run)
policies.register(ENGINE)
presets.register(ENGINE)
presets.register_figures(ENGINE)

__all__ = ["KIND", "ParallelEnergyConfig", "run"]
