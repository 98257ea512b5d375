"""Kind ``swf-preemptive``: preemption-based backfill (Snell, Clement, Jackson, JSSPP 2002) on
the trace replay: Maui-style priority scheduling with First Fit backfill, backfill past the
reservation, kill on demand with six victim policies, priority classes (docs/pbb.md).

A sibling of ``swf-replay`` rather than more of its policies: it has its own parameters (the
surrogate recipe, the accuracy model, classes, preemption options), its own randomness (so
seeds matter, where a replay is deterministic) and its own metrics, while its trace reading,
job preparation, event loop and per-job metrics are the replay's.
"""

from simcore.registry import PolicyInfo, RunContext
from simcore.result import Result

from .. import ENGINE
from . import cli, policies, presets
from .config import KIND, PreemptiveConfig
from .sim import Maui
from .workload import build

SPEC = "Preemption-based backfill (Snell, Clement, Jackson 2002)"


def simulate_trace(trace, config: PreemptiveConfig, victims: type, seed: int = 0, clock=None,
                   check: bool = False, fast: bool = True) -> Result:
    """Replay a loaded trace with one victim policy class (``FirstFit`` for the baseline)."""
    from simcore.clock import RunClock

    from .result import build_result

    clock = clock or RunClock()
    workload = build(trace, config, seed)
    sim = Maui(workload, victims, config, seed, clock, check=check, fast=fast).run()
    return build_result(sim, trace, config, clock)


@ENGINE.kind(KIND, title="Preemption-based backfill (SWF)",
             description="Replay an SWF trace under Maui-style priority scheduling where jobs "
                         "may backfill past the reservation and are killed when a "
                         "higher-priority job needs their processors.",
             config_cls=PreemptiveConfig, spec=SPEC,
             headline=("xf_mean", "queue_time_mean_s", "preemptions", "utilization"))
def run(config: PreemptiveConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result:
    return simulate_trace(ctx.traces.load(config.trace), config, policy.factory, seed,
                          ctx.clock)


policies.register(ENGINE, KIND)
presets.register(ENGINE)
presets.register_figures(ENGINE)
ENGINE.command("pbb", KIND, help="replay an SWF trace with preemption-based backfill",
               add_arguments=cli.add_arguments, run=cli.run)

__all__ = ["KIND", "Maui", "PreemptiveConfig", "run", "simulate_trace"]
