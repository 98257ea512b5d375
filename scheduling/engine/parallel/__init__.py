"""Kind ``parallel-energy`` (dissertation ch. 3): utility-based scheduling of parallel jobs on an
oversubscribed, energy-constrained, heterogeneous HPC system (spec
``ch3-parallel-utility-energy.md``; docs/ch3.md).

Importing this package registers the kind, its policies and its presets on
``scheduling.engine.ENGINE``.
"""

from .. import ENGINE
from . import policies, presets
from .config import KIND, ParallelEnergyConfig
from .sim import run


def _cost(config: ParallelEnergyConfig, policy: str) -> float:
    """Relative run time: arrivals x simulated hours, heavier for the Min-Min family."""
    heavy = policy.startswith(("max-", "meta-"))
    return config.workload.tasks_per_day * config.time.sim_h * (4.0 if heavy else 1.0)


ENGINE.kind(
    KIND,
    title="Parallel jobs, utility and energy (ch. 3)",
    description="Parallel rigid jobs with utility functions on heterogeneous clusters with "
                "P-states and a daily energy budget; mapping events every minute.",
    config_cls=ParallelEnergyConfig,
    spec="ch3-parallel-utility-energy.md",
    headline=("pct_max_utility", "energy_gj"),
    cost=_cost,
)(run)
policies.register(ENGINE)
presets.register(ENGINE)
presets.register_figures(ENGINE)

__all__ = ["KIND", "ParallelEnergyConfig", "run"]
