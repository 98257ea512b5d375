"""Kind ``swf-preemptive``: preemption-based backfill (Snell, Clement, Jackson, JSSPP 2002) on
the trace replay: Maui-style priority scheduling with First Fit backfill, backfill past the
reservation, kill on demand with six victim policies, priority classes (docs/pbb.md).

A sibling of ``swf-replay`` rather than more of its policies: it has its own parameters (the
surrogate recipe, the accuracy model, classes, preemption options), its own randomness (so
seeds matter, where a replay is deterministic) and its own metrics, while its trace reading,
job preparation and per-job metrics are the replay's; its event loop is the one every trace
replay shares (scheduling.hpc.replay).
"""

from scheduling.engine import ENGINE
from scheduling.hpc.traces import TraceLibrary
from simcore.registry import PolicyInfo, RunContext
from simcore.result import Result

from . import cli, policies, presets
from .config import KIND, PreemptiveConfig
from .run import simulate_trace
from .sim import Maui

SPEC = "Preemption-based backfill (Snell, Clement, Jackson 2002)"


@ENGINE.kind(KIND, title="Preemption-based backfill (SWF)",
             description="Replay an SWF trace under Maui-style priority scheduling where jobs "
                         "may backfill past the reservation and are killed when a "
                         "higher-priority job needs their processors.",
             config_cls=PreemptiveConfig, spec=SPEC,
             headline=("xf_mean", "queue_time_mean_s", "preemptions", "utilization"),
             policy_type=policies.VictimPolicy)
def run(config: PreemptiveConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result:
    trace = TraceLibrary(ctx.inputs).load(config.trace)
    return simulate_trace(trace, config, policy.factory, seed, ctx.clock,
                          decisions=ctx.decisions)


policies.register(ENGINE, KIND)
presets.register(ENGINE)
presets.register_figures(ENGINE)
ENGINE.command("pbb", KIND, help="replay an SWF trace with preemption-based backfill",
               add_arguments=cli.add_arguments, run=cli.run)

__all__ = ["KIND", "Maui", "PreemptiveConfig", "run", "simulate_trace"]
