"""ch4: preemptive utility-based scheduling of bursty serial tasks (``serial-preemption``).

Importing this package registers the environment, its ten policies and its presets on
``scheduling.engine.ENGINE``. See ``docs/ch4.md``.
"""

from . import environment, presets, sweep  # noqa: F401  (registration side effects)
from .config import SerialConfig
from .environment import KIND

__all__ = ["KIND", "SerialConfig"]
