"""Kind ``parallel-energy`` (dissertation ch. 3): utility-based scheduling of parallel jobs on an
oversubscribed, energy-constrained, heterogeneous HPC system (spec
``ch3-parallel-utility-energy.md``; docs/ch3.md).

Importing this package registers the kind, its policies and its presets on
``scheduling.engine.ENGINE``.
"""

from scheduling.engine import ENGINE

from . import policies, presets
from .config import KIND, ParallelEnergyConfig
from .policies import Policy
from .sim import run


def _cost(config: ParallelEnergyConfig, policy: str) -> float:
    """Relative run time, to start a sweep's longest runs first: arrivals x simulated hours x
    arrivals per node (the queue, and with it the work of each mapping event, grows with the
    load); the Min-Min family and the metaheuristics take about 2.5x the comparison heuristics.
    Checked on CPU seconds of EASY and Max UPE PH: within 30% on ch3-5k/10k, 2x on small."""
    heavy = policy.startswith(("max-", "meta-"))
    nodes = max(sum(c.nodes for c in config.system.clusters), 1)
    arrivals = config.workload.tasks_per_day
    return arrivals * config.time.sim_h * arrivals / nodes * (2.5 if heavy else 1.0)


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
