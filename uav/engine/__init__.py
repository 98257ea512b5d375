"""UAV surveillance mission simulator (spec ch5): pure Python + numpy, no Django.

    from uav.engine import simulate, preset_scenario
    result = simulate(preset_scenario("small-baseline"), policy="meta+pf", seed=7)
    result.surveils  # per-surveil records (same dict as result.tasks)

Same contract as ``scheduling.engine``; see ``docs/uav.md``.
"""

from scheduling.engine.errors import RunCancelled, ScenarioError
from scheduling.engine.registry import Engine, PolicyInfo, Preset, Scenario
from scheduling.engine.result import Result

ENGINE = Engine("uav", ["uav.engine.environment"])

simulate = ENGINE.simulate
scenario = ENGINE.scenario
scenario_from_dict = ENGINE.scenario_from_dict
preset_scenario = ENGINE.preset_scenario
list_environments = ENGINE.list_environments
list_policies = ENGINE.list_policies
get_policy = ENGINE.get_policy
list_presets = ENGINE.list_presets
get_preset = ENGINE.get_preset

__all__ = [
    "ENGINE", "Engine", "PolicyInfo", "Preset", "Result", "RunCancelled", "Scenario",
    "ScenarioError", "get_policy", "get_preset", "list_environments", "list_policies",
    "list_presets", "preset_scenario", "scenario", "scenario_from_dict", "simulate",
]
