"""Kind ``value-of-service`` (dissertation ch. 2): Value of Service based resource management
with VM configurations of cores x memory, time-of-use weights, Max VPTR and the Simple
heuristics (spec ``ch2-value-of-service.md``; docs/vos.md).

Importing this package registers the kind, its policies, presets and figure presets on
``scheduling.engine.ENGINE``.
"""

from scheduling.engine import ENGINE
from simcore.registry import PolicyInfo, RunContext
from simcore.result import Result
from simcore.sampling import rng

from . import figures, policies, presets
from .config import KIND, VosConfig
from .policies import VosPolicy
from .result import build_result
from .sim import run_simulation
from .workload import generate

# A mapping event costs at least PER_EVENT units (15 µs: vos-small with 1-2 tasks and
# 0.05-minute events took 0.22 s for 14,400 events; docs/vos.md "Limits and price").
PER_EVENT = 0.7


def _cost(cfg: VosConfig, policy: str) -> float:
    """Relative run time: tasks x hours at one mapping event a minute, scaled by the events per
    minute, and never below a fixed cost per event; heavier for the greedy family (rounds per
    event)."""
    w, a, r = cfg.workload, cfg.arrivals, cfg.scheduler
    tasks = ((w.tasks_min + w.tasks_max) / 2.0 if a.pattern == "sinusoidal"
             else a.rate_per_core_h * cfg.system.total_cores * len(a.phases) * a.phase_h)
    events = r.duration_h * 60.0 / r.interval_min
    units = max(tasks * r.duration_h / r.interval_min, PER_EVENT * events)
    return units * (4.0 if policy.startswith("max-") else 1.0)


@ENGINE.kind(
    KIND,
    title="Value of Service: time and energy value, VM configurations (ch. 2)",
    description="Parallel tasks in VMs of chosen cores x memory on a homogeneous cluster or "
                "testbed nodes; value from completion time and energy with soft and hard "
                "thresholds, weighted by task category and time of day (Tunc et al., Cluster "
                "Computing 2017).",
    config_cls=VosConfig,
    spec="ch2-value-of-service.md",
    headline=("pct_max_vos", "pct_max_perf_value", "pct_max_energy_value", "tasks_completed"),
    cost=_cost,
    policy_type=VosPolicy,
)
def run(cfg: VosConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result:
    wl = generate(cfg, seed)
    heuristic = policy.build(cfg, rng(seed, "vos/policy"))
    if ctx.decisions is not None:
        ctx.decisions.time_unit = "min"
    rec = run_simulation(wl, cfg, heuristic, ctx.clock, ctx.decisions)
    return build_result(rec, cfg, ctx.clock)


policies.register(ENGINE)
presets.register(ENGINE)
figures.register(ENGINE)

__all__ = ["KIND", "VosConfig", "run"]
