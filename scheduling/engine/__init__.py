"""HPC resource-management simulator: pure Python + numpy, no Django.

    from scheduling.engine import simulate, preset_scenario, list_policies
    result = simulate(preset_scenario("small"), policy="max-upe-ph", seed=7)

Each scenario kind is a package of ``scheduling`` named after it (``scheduling.swf_replay``
for ``swf-replay``), registered on ``ENGINE`` when it is first used; this package is the
engine's facade (``python -m scheduling.engine ...``). See ``simcore.registry`` for the
contract and ``docs/engine.md`` for the list.
"""

from simcore.errors import RunCancelled, ScenarioError
from simcore.registry import Engine, PolicyInfo, Preset, ScenarioSpec
from simcore.result import Result

ENGINE = Engine(
    "scheduling", "scheduling.engine",
    kinds={
        "parallel-energy": "scheduling.parallel_energy",  # ch. 3: utility, P-states, energy
        "swf-replay": "scheduling.swf_replay",  # SWF traces: FCFS, EASY, conservative
        "serial-preemption": "scheduling.serial_preemption",  # ch. 4: preemptive serial tasks
        "swf-preemptive": "scheduling.swf_preemptive",  # SWF traces: preemption-based backfill
        "grid": "scheduling.grid",  # decentralized preemptive grid (JSSPP 2013)
        "many-task": "scheduling.many_task",  # trailing tasks, tail-chopping
        "value-of-service": "scheduling.value_of_service",  # ch. 2: VoS, VM configurations
    },
    commands={"replay": "swf-replay", "pbb": "swf-preemptive",
              "many-task-checks": "many-task"},
    # The chapters' own sweep commands of earlier releases, kept for users' scripts.
    sweep_aliases={"ch3-sweep": {"seeds": "1-3"},
                   "ch4-sweep": {"preset": "ch4-baseline", "trials": 4}},
)

simulate = ENGINE.simulate
scenario = ENGINE.scenario
scenario_from_dict = ENGINE.scenario_from_dict
preset_scenario = ENGINE.preset_scenario
list_kinds = ENGINE.list_kinds
get_kind = ENGINE.get_kind
list_policies = ENGINE.list_policies
get_policy = ENGINE.get_policy
list_presets = ENGINE.list_presets
get_preset = ENGINE.get_preset

__all__ = [
    "ENGINE", "Engine", "PolicyInfo", "Preset", "Result", "RunCancelled", "ScenarioError",
    "ScenarioSpec", "get_kind", "get_policy", "get_preset", "list_kinds", "list_policies",
    "list_presets", "preset_scenario", "scenario", "scenario_from_dict", "simulate",
]
