"""HPC resource-management simulator: pure Python + numpy, no Django.

    from scheduling.engine import simulate, preset_scenario, list_policies
    result = simulate(preset_scenario("small"), policy="max-upe-ph", seed=7)

Environments (scenario kinds) register themselves from the modules listed below; see
``registry`` for the contract and ``docs/engine.md`` for the list.
"""

from .errors import RunCancelled, ScenarioError
from .registry import Engine, PolicyInfo, Preset, Scenario
from .result import Result

ENGINE = Engine(
    "scheduling",
    [
        "scheduling.engine.parallel",  # ch. 3: parallel jobs, utility, P-states, energy budget
        "scheduling.engine.replay",  # SWF trace replay: FCFS, EASY, conservative backfilling
        "scheduling.engine.serial",  # ch. 4: preemptive scheduling of urgent serial tasks
    ],
)

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
