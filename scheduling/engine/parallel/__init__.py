"""ch3: utility-based scheduling of parallel jobs on an oversubscribed, energy-constrained,
heterogeneous HPC system (spec ``ch3-parallel-utility-energy.md``; docs/ch3.md).

Importing this package registers the ``parallel-energy`` environment, its policies and its
presets on ``scheduling.engine.ENGINE``.
"""

from .. import ENGINE
from . import policies  # noqa: F401  (registers the heuristics)
from .config import KIND, ParallelEnergyConfig
from .experiments import register as _register_commands
from .presets import register as _register_presets
from .simulator import run

ENGINE.environment(
    KIND,
    title="Parallel jobs, utility and energy (ch. 3)",
    description="Parallel rigid jobs with utility functions on heterogeneous clusters with "
                "P-states and a daily energy budget; mapping events every minute.",
    config_cls=ParallelEnergyConfig,
    spec="ch3-parallel-utility-energy.md",
)(run)
_register_presets()
_register_commands(ENGINE)

__all__ = ["KIND", "ParallelEnergyConfig", "run"]
