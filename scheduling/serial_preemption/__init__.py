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

# The cost model: arrivals per day, priced per the chapter's run of 28 h of one-minute mapping
# events (REFERENCE_EVENTS); a run of more events (a longer run, a shorter interval) costs
# proportionally more, each event at least PER_EVENT units (50 µs: ch4-small at 0.1 tasks per
# core and day and 0.05-minute events took 1.7 s for 33,600 events; docs/ch4.md "Limits and
# price"). At the chapter's 1,680 events it is the arrivals per day, as before.
REFERENCE_EVENTS = 1680.0
PER_EVENT = 1400.0


def _cost(cfg: SerialConfig, policy: str) -> float:
    s = cfg.scheduler
    load = (cfg.system.n_clusters * cfg.system.cores_per_cluster
            * cfg.workload.tasks_per_core_per_day)
    events = s.duration_min / s.mapping_interval_min
    return (max(load, PER_EVENT) * (events / REFERENCE_EVENTS)
            * (3.0 if policy.endswith("-pair") else 1.0))


@ENGINE.kind(
    KIND,
    title="Preemptive scheduling of urgent serial tasks (ch. 4)",
    description="Bursts of critical and non-critical serial tasks on five heterogeneous "
                "clusters, mapped every minute; utility heuristics with and without "
                "suspend/resume preemption (Machovec et al., HCW 2017).",
    config_cls=SerialConfig,
    spec="ch4-preemption-serial.md",
    headline=("pct_max_utility", "pct_critical_completed", "pct_tasks_completed", "preemptions"),
    cost=_cost,
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
