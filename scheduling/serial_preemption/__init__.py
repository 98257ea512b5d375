"""Kind ``serial-preemption`` (dissertation ch. 4): preemptive utility-based scheduling of bursty
serial tasks (spec ``ch4-preemption-serial.md``; docs/ch4.md).

Importing this package registers the kind, its ten policies and its presets on
``scheduling.engine.ENGINE``.
"""

from scheduling.engine import ENGINE
from simcore.registry import PolicyInfo, RunContext
from simcore.result import Result
from simcore.sampling import rng

from . import policies, presets
from .config import KIND, SerialConfig
from .policies import SerialPolicy
from .result import build_result
from .sim import run_simulation
from .workload import generate


@ENGINE.kind(
    KIND,
    title="Preemptive scheduling of urgent serial tasks (ch. 4)",
    description="Bursts of critical and non-critical serial tasks on five heterogeneous "
                "clusters, mapped every minute; utility heuristics with and without "
                "suspend/resume preemption (Machovec et al., HCW 2017).",
    config_cls=SerialConfig,
    spec="ch4-preemption-serial.md",
    headline=("pct_max_utility", "pct_critical_completed", "pct_tasks_completed", "preemptions"),
    cost=lambda cfg, policy: (cfg.system.n_clusters * cfg.system.cores_per_cluster
                              * cfg.workload.tasks_per_core_per_day
                              * (3.0 if policy.endswith("-pair") else 1.0)),
    policy_type=SerialPolicy,
)
def run(cfg: SerialConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result:
    wl = generate(cfg, seed)
    heuristic = policy.build(cfg, rng(seed, "ch4-policy"))
    s = cfg.scheduler
    rec = run_simulation(wl, heuristic, warmup=s.warmup_min, duration=s.duration_min,
                         interval=s.mapping_interval_min, min_utility=s.min_utility,
                         tie_break=s.tie_break, tie_rng=rng(seed, "ch4-ties"), clock=ctx.clock,
                         decisions=ctx.decisions)
    return build_result(rec, wl, cfg, ctx.clock)


policies.register(ENGINE)
presets.register(ENGINE)
presets.register_figures(ENGINE)

__all__ = ["KIND", "SerialConfig", "run"]
