"""UAV surveillance mission simulator (spec ch5): pure Python + numpy, no Django.

    from uav.engine import simulate, preset_scenario
    result = simulate(preset_scenario("small-baseline"), policy="meta+pf", seed=7)
    result.surveils  # per-surveil records (same dict as result.tasks)

This package is both the ``uav`` engine and its one kind, ``uav`` (docs/uav.md); the kind is
registered at the bottom, on the core's contract like every other kind.
"""

from simcore.errors import RunCancelled, ScenarioError
from simcore.registry import Engine, PolicyInfo, Preset, RunContext, ScenarioSpec
from simcore.result import Result

ENGINE = Engine("uav", "uav.engine", kinds={"uav": "uav.engine"})

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

# -- the kind -------------------------------------------------------------------------------------
from simcore.clock import RunClock  # noqa: E402
from simcore.sampling import rng  # noqa: E402

from . import cli, policies, presets  # noqa: E402
from .bound import value_bound  # noqa: E402
from .config import KIND, UavConfig  # noqa: E402
from .result import UavResult, build_result  # noqa: E402
from .sim import Simulator  # noqa: E402
from .workload import generate  # noqa: E402


def fly(mission, cfg: UavConfig, policy: str, seed: int, clock: RunClock,
        bound: float | None = None, decisions=None) -> Simulator:
    """One policy over an already generated mission (policy randomness from its own stream).

    ``bound``: the mission's per-window value bound, which no run may exceed (a model error);
    ``decisions``: the run's decision log when it explains itself (``simcore.decisions``)."""
    sim = Simulator(mission, cfg, ENGINE.get_policy(KIND, policy).build(rng(seed, "policy")),
                    clock)
    sim.decisions = decisions
    sim.run()
    if bound is not None:
        value = sum(s.value for s in sim.surveils)
        if value > bound * (1 + 1e-9) + 1e-9:
            raise RuntimeError(f"{policy} earned {value:.6g}, above the per-window bound "
                               f"{bound:.6g} (seed {seed}): the model broke one surveil per "
                               f"window")
    return sim


# The cost model (units: score-matrix cells visited, about 0.1 µs each; docs/uav.md "Limits
# and price" has the measurements): each mapping event costs a fixed part worth PER_EVENT
# cells (building the policy's view, ~35 µs) plus one visit of the UAV x target slots, twice
# with the geometry model (scores and travel times are recomputed at every event); each drawn
# entity (UAV, target, window, dynamic event) PER_ENTITY; a run PER_RUN (result and series).
# A run that also flies Random for value_vs_random (compare_random) pays the flight twice.
PER_EVENT = 400.0
PER_ENTITY = 100.0
PER_RUN = 30_000.0


def _cost(cfg: UavConfig, policy: str) -> float:
    """Relative run time: mapping events x (a fixed part + UAV slots x target slots)."""
    uavs, targets = cfg.slots()
    flight = cfg.mapping_events() * (PER_EVENT + uavs * targets)
    if cfg.geometry.enabled:
        flight *= 2.0
    if cfg.compare_random and policy != "random":
        flight *= 2.0
    drawn = uavs + targets + cfg.windows() + cfg.dynamic_events()
    return PER_RUN + PER_ENTITY * drawn + flight


@ENGINE.kind(KIND, title="UAV surveillance missions", config_cls=UavConfig,
             spec="ch5-uav-surveillance",
             description="UAVs with sensors and energy budgets observe targets with priorities, "
                         "affinities and hidden windows over one day with dynamic events; "
                         "mapping every Δ minutes",
             headline=("value", "surveils_completed"),
             cost=_cost,
             policy_type=policies.UavPolicy)
def run(cfg: UavConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> UavResult:
    mission = generate(cfg, seed)
    bound = value_bound(mission) if cfg.one_surveil_per_window else None
    compare = cfg.compare_random and policy.name != "random"
    split = 0.8 if compare else 1.0
    own = ctx.clock.part(0.0, split)
    if ctx.decisions is not None:
        ctx.decisions.time_unit = "min"  # the result's tables' unit; the Random reference
        # run is not explained: its surveils are not in the result's table
        # Surveils are numbered in start order, so two policies' surveil 7 are different
        # surveils: runs are compared by the target every decision names.
        ctx.decisions.across_runs = "target"
    result = build_result(fly(mission, cfg, policy.name, seed, own, bound, ctx.decisions), own)
    value = result.summary["value"]
    result.summary["value_bound"] = bound  # the most one surveil per window can earn
    result.summary["value_pct_of_bound"] = 100.0 * value / bound if bound else None
    if compare:
        other = ctx.clock.part(split, 1.0)
        rsim = fly(mission, cfg, "random", seed, other, bound)
        value_random = float(sum(s.value for s in rsim.surveils))
        result.timing["random_wall_s"] = other.timing()["wall_s"]
    elif cfg.compare_random:
        value_random = value
    else:
        value_random = None
    # The ratio is undefined when Random earns 0 (percent increase when Random earns 0
    # (ch. 5 spec A23)).
    ratio = value / value_random if value_random else None
    result.summary["value_random"] = value_random
    result.summary["value_vs_random"] = ratio
    result.summary["value_pct_over_random"] = None if ratio is None else 100.0 * (ratio - 1.0)
    return result


policies.register(ENGINE)
presets.register(ENGINE)
presets.register_figures(ENGINE)
cli.register(ENGINE)

__all__ = [
    "ENGINE", "Engine", "PolicyInfo", "Preset", "Result", "RunCancelled", "ScenarioError",
    "ScenarioSpec", "get_kind", "get_policy", "get_preset", "list_kinds", "list_policies",
    "list_presets", "preset_scenario", "scenario", "scenario_from_dict", "simulate",
]
