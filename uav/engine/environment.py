"""Registers scenario kind ``uav`` on the engine: config, run function, policies, presets."""

from __future__ import annotations

import functools
import time

from scheduling.engine.registry import ProgressThrottle, rng

from . import ENGINE, presets, sweep
from .config import UavConfig
from .generate import generate
from .policies import BASES, VARIANTS, make_policy, policy_names, split_name
from .report import UavResult, build
from .sim import Simulator

KIND = "uav"


def simulate_mission(mission, cfg: UavConfig, name: str, seed: int, progress=None,
                     span=(0.0, 1.0)) -> tuple[Simulator, float]:
    """One policy over an already generated mission (policy randomness from its own stream)."""
    policy = ENGINE.get_policy(KIND, name).factory(rng(seed, "policy"))
    started = time.perf_counter()
    sim = Simulator(mission, cfg, policy, progress, span).run()
    return sim, time.perf_counter() - started


@ENGINE.environment(KIND, title="UAV surveillance missions", config_cls=UavConfig,
                    spec="ch5-uav-surveillance",
                    description="UAVs with sensors and energy budgets observe targets with "
                                "priorities, affinities and hidden windows over one day with "
                                "dynamic events; mapping every Δ minutes")
def run(cfg: UavConfig, policy, seed: int, progress) -> UavResult:
    mission = generate(cfg, seed)
    report = ProgressThrottle(progress)
    compare = cfg.compare_random and policy.name != "random"
    split = 0.8 if compare else 1.0
    sim, wall = simulate_mission(mission, cfg, policy.name, seed, report, (0.0, split))
    result = build(sim, wall)
    value = result.summary["value"]
    if compare:
        rsim, rwall = simulate_mission(mission, cfg, "random", seed, report, (split, 1.0))
        value_random = float(sum(s.value for s in rsim.surveils))
        result.timing["random_wall_s"] = rwall
    elif cfg.compare_random:
        value_random = value
    else:
        value_random = None
    ratio = value / value_random if value_random else None  # A23: undefined when Random earns 0
    result.summary["value_random"] = value_random
    result.summary["value_vs_random"] = ratio
    result.summary["value_pct_over_random"] = None if ratio is None else 100.0 * (ratio - 1.0)
    return result


for _name in policy_names():
    _base, _p, _f = split_name(_name)
    _label, _family, _spec, _desc = BASES[_base]
    _variant = ("p" if _p else "") + ("f" if _f else "")
    _vlabel, _vdesc = VARIANTS[_variant]
    _vspec = {"": "", "p": ", §4.6", "f": ", §4.7", "pf": ", §4.6, §4.7"}[_variant]
    ENGINE.policy(KIND, _name, label=_label + _vlabel, description=_desc + _vdesc,
                  spec=_spec + _vspec, family=_family,
                  base=_base, preemption=_p, filtering=_f)(
        functools.partial(make_policy, _name))  # factory(rng) -> policy

presets.register(ENGINE, KIND)
sweep.register(ENGINE)
