"""Kind ``swf-replay``: replay of Standard Workload Format traces with FCFS, EASY and
conservative backfilling (docs/replay.md).

Importing this package registers the kind, its policies, presets and the ``replay`` command on
``scheduling.engine.ENGINE``.
"""

from scheduling.engine import ENGINE
from scheduling.hpc.traces import TraceLibrary
from simcore.registry import PolicyInfo, RunContext
from simcore.result import Result

from . import cli, presets
from .config import KIND, ReplayConfig
from .policies import Conservative, Easy, Fcfs
from .run import replay
from .sim import Replay

SPEC = "SWF replay (issue 4)"


@ENGINE.kind(KIND, title="SWF trace replay",
             description="Replay a Parallel Workloads Archive trace on a homogeneous machine "
                         "with FCFS, EASY or conservative backfilling.",
             config_cls=ReplayConfig, spec=SPEC,
             headline=("wait_mean_s", "bsld_mean", "utilization"), policy_type=Replay)
def run(config: ReplayConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result:
    # A replay is deterministic: the seed is accepted for the common contract and unused.
    return replay(TraceLibrary(ctx.inputs).load(config.trace), config, policy.factory, ctx.clock,
                  decisions=ctx.decisions)


ENGINE.policy(KIND, "fcfs", label="FCFS", family="queue",
              description="First come, first served; no backfilling.",
              spec="SWF replay: FCFS")(Fcfs)
ENGINE.policy(KIND, "easy", label="EASY backfilling", family="backfilling",
              description="Head job reserved at the shadow time; others backfill if they end "
                          "by it or use only the extra nodes (Lifka; Mu'alem & Feitelson 2001).",
              spec="SWF replay: EASY")(Easy)
ENGINE.policy(KIND, "conservative", label="Conservative backfilling", family="backfilling",
              description="Every waiting job holds a reservation; a job starts early only if "
                          "it delays no reservation (Mu'alem & Feitelson 2001).",
              spec="SWF replay: conservative")(Conservative)
presets.register(ENGINE)
ENGINE.command("replay", KIND, help="replay an SWF trace with fcfs, easy or conservative",
               add_arguments=cli.add_arguments, run=cli.run)

__all__ = ["KIND", "ReplayConfig", "replay", "run"]
