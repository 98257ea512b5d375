"""Registers the ``serial-preemption`` environment and its ten policies (spec §9)."""

from __future__ import annotations

from .. import ENGINE
from ..registry import PolicyInfo
from ..registry import rng as make_rng
from ..result import Result
from .baseline import FcfsPolicy, RandomPolicy
from .config import SerialConfig
from .greedy import GreedyPolicy
from .pair import PairPolicy
from .report import build_result
from .simulator import run_simulation
from .workload import generate

KIND = "serial-preemption"
SPEC = "ch4-preemption-serial.md"


@ENGINE.environment(
    KIND,
    title="Preemptive scheduling of urgent serial tasks (ch. 4)",
    description="Bursts of critical and non-critical serial tasks on five heterogeneous "
                "clusters, mapped every minute; utility heuristics with and without "
                "suspend/resume preemption (Machovec et al., HCW 2017).",
    config_cls=SerialConfig,
    spec=SPEC,
)
def run(cfg: SerialConfig, policy: PolicyInfo, seed: int, progress) -> Result:
    wl = generate(cfg, seed)
    heuristic = policy.factory(cfg, make_rng(seed, "ch4-policy"))
    s = cfg.scheduler
    rec = run_simulation(wl, heuristic, warmup=s.warmup_min, duration=s.duration_min,
                         interval=s.mapping_interval_min, min_utility=s.min_utility,
                         tie_break=s.tie_break, tie_rng=make_rng(seed, "ch4-ties"),
                         progress=progress)
    return build_result(rec, wl, cfg)


ENGINE.policy(KIND, "random", label="Random", family="comparison", spec="§9.1",
              description="Tasks in random order, each on a random idle core where it can "
                          "still earn utility; never preempts.")(
    lambda cfg, rng: RandomPolicy(rng))
ENGINE.policy(KIND, "fcfs", label="FCFS", family="comparison", spec="§9.2",
              description="Tasks in arrival order, each on an arbitrary idle core where it "
                          "can still earn utility; never preempts.")(
    lambda cfg, rng: FcfsPolicy(rng if cfg.scheduler.fcfs_core == "random" else None))

_OBJ = {"util": ("Util", "utility at completion"),
        "upt": ("UPT", "utility per unit of remaining execution time")}
for _mode, (_short, _what) in _OBJ.items():
    ENGINE.policy(KIND, f"max-{_mode}", label=f"Max {_short}", family="utility", spec="§9.3",
                  description=f"Two-phase greedy maximising {_what} over idle cores; "
                              "never preempts.")(
        lambda cfg, rng, m=_mode: GreedyPolicy(m, "none"))
    ENGINE.policy(KIND, f"max-{_mode}-greedy", label=f"Max {_short} Preempt Greedy",
                  family="preemptive", spec="§9.4",
                  description=f"Max {_short} that may also suspend the running task with the "
                              f"lowest value when the newcomer's {_what} is higher.")(
        lambda cfg, rng, m=_mode: GreedyPolicy(m, "greedy"))
    ENGINE.policy(KIND, f"max-{_mode}-diff", label=f"Max {_short} Preempt Diff",
                  family="preemptive", spec="§9.5",
                  description=f"Like Greedy, but ranks options by the gain in {_short} "
                              "over the suspended task (idle cores count in full).")(
        lambda cfg, rng, m=_mode: GreedyPolicy(m, "diff"))
    ENGINE.policy(KIND, f"max-{_mode}-pair", label=f"Max {_short} Preempt Pair",
                  family="preemptive", spec="§9.6",
                  description=f"Values each busy core by the better order of the newcomer "
                              f"and the running task (sum of both {_short}s) against the "
                              "best idle core.")(
        lambda cfg, rng, m=_mode: PairPolicy(m))
