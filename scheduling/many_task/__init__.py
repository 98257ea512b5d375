"""Kind ``many-task``: bags of independent single-worker tasks on partitions leased from a
menu, greedy dispatch in random or longest-first order, and tail-chopping (Armstrong et al.,
"Scheduling many-task workloads on supercomputers: dealing with trailing tasks", MTAGS 2010;
spec ``trailing-tasks.md``; docs/many-task.md).

Importing this package registers the kind, its four policies, its presets and figure presets,
and the ``many-task-checks`` command on ``scheduling.engine.ENGINE``.
"""

import numpy as np

from scheduling.engine import ENGINE
from scheduling.hpc.traces import TraceLibrary
from simcore.errors import PolicyViolation
from simcore.registry import PolicyInfo, RunContext
from simcore.result import Result

from . import cli, decisions, policies, presets
from .config import KIND, ManyTaskConfig
from .policies import ManyTaskPolicy
from .result import build_result
from .sim import Planner, choose_size
from .workload import SURROGATES, load

SPEC = "trailing-tasks.md"


def _cost(cfg: ManyTaskConfig, policy: str) -> float:
    w = cfg.workload
    n = w.tasks or (SURROGATES[w.source].tasks if w.source in SURROGATES else
                    len(w.values) if w.source == "list" else 100_000)
    return n * (1 + len(cfg.tradeoff.ratios) * (len(cfg.tradeoff.idle_fractions) + 1) / 8)


@ENGINE.kind(KIND, title="Many-task workloads and trailing tasks",
             description="A bag of independent single-core tasks on worker partitions leased "
                         "from a menu (Blue Gene/P Intrepid): greedy dispatch in random or "
                         "longest-first order, and tail-chopping that downsizes the partition "
                         "when too many workers idle (Armstrong et al., MTAGS 2010).",
             config_cls=ManyTaskConfig, spec=SPEC,
             headline=("tts_h", "utilization", "allocated_cpu_h", "wasted_cpu_h"),
             cost=_cost, policy_type=ManyTaskPolicy)
def run(cfg: ManyTaskConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result:
    wl = load(cfg.workload, seed, TraceLibrary(ctx.inputs))
    dispatch = policy.build(cfg)
    order = _checked(dispatch.order(wl.runtimes, seed), len(wl))
    f = cfg.chop.f if dispatch.chop else 1.0
    r = cfg.chop.r
    planner = Planner(wl.runtimes[order], cfg.machine, cfg.machine.workers, ctx.clock)
    grid = None
    if cfg.grid:
        fractions = [*cfg.tradeoff.idle_fractions, 1.0]
        fractions = list(dict.fromkeys(fractions))  # f = 1 given in the list is no-chop
        keep = planner.workers or choose_size(len(wl), r, planner.menu)
        grid = planner.tradeoff(list(cfg.tradeoff.ratios), fractions, keep=keep)
    schedule = planner.schedule(r, f)
    if ctx.decisions is not None:
        decisions.record(ctx.decisions, schedule, order, wl.runtimes,
                         getattr(dispatch, "name", ""), f,
                         with_workers=len(wl) <= cfg.output.task_records)
    return build_result(cfg, wl, order, planner, schedule, r, f, grid, ctx.clock)


def _checked(order, n: int) -> np.ndarray:
    """A policy's dispatch order must hand out every task exactly once."""
    order = np.asarray(order)
    ok = order.shape == (n,) and order.dtype.kind in "iu"
    if ok and n:  # n ids in range, every task among them: a permutation, in O(n)
        ok = order.min() >= 0 and order.max() < n
        if ok:
            seen = np.zeros(n, dtype=bool)
            seen[order] = True
            ok = bool(seen.all())
    if not ok:
        raise PolicyViolation("waiting-task", None, f"the dispatch order must name each of the "
                              f"{n} tasks exactly once (got {order.size} ids)")
    return order


policies.register(ENGINE)
presets.register(ENGINE)
ENGINE.command("many-task-checks", KIND, help="check the hypotheses of the trailing-task paper "
                                              "(spec §8) on the surrogate workloads",
               add_arguments=cli.add_arguments, run=cli.run)

__all__ = ["KIND", "ManyTaskConfig", "run"]
