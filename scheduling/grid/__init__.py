"""Kind ``grid``: decentralized preemptive scheduling on a heterogeneous multi-core grid
(Balasubramanian, Sussman, Sadeh, JSSPP 2013; spec ``decentralized-preemptive-grid.md``;
docs/grid.md).

Importing this package registers the kind, its schedulers, presets and figure presets on
``scheduling.engine.ENGINE``.
"""

from scheduling.engine import ENGINE
from simcore.registry import PolicyInfo, RunContext
from simcore.result import Result
from simcore.sampling import rng

from . import overlay, policies, presets
from .config import KIND, GridConfig
from .policies import GridScheduler
from .result import build_result
from .sim import GridSim, Options
from .workload import generate


def options(cfg: GridConfig) -> Options:
    s = cfg.scheduler
    return Options(alpha=s.alpha, beta=s.beta, delta=s.delta_s, victims=s.victims,
                   pull_recent=s.pull_recent, migrate_suspended=s.migrate_suspended,
                   migrated_start=s.migrated_start,
                   load=cfg.matchmaking.load, sample_s=cfg.report.sample_s)


def neighbours(scheduler, wl, seed: int):
    """The scheduler's overlay on this seed's nodes (None for local-only schedulers)."""
    if scheduler.overlay == "can":
        return overlay.can_like(wl.nodes, rng(seed, "grid/overlay-can"))
    if scheduler.overlay == "2nn":
        return overlay.ring(len(wl.nodes), rng(seed, "grid/overlay-2nn"))
    return None


# The cost model (units: one job's share of a grid-small run, about 30 µs; docs/grid.md
# "Limits and price" has the measurements): each job 1 unit (3 with internode PUSH/PULL);
# each node PER_NODE (its queue, arrays and sampling; 6x with an internode overlay: building
# CAN' over 50,000 nodes took 2.4 s); each node load the run samples PER_LOAD_CELL; with
# alpha > beta, each job-tick of swapping PER_SWAP for the preemptive schedulers (all but
# FCFS).
PER_NODE = 0.2
PER_LOAD_CELL = 0.005
PER_SWAP = 0.3


def _cost(cfg: GridConfig, policy: str) -> float:
    """Relative run time: jobs, nodes, node loads sampled over the expected span, and the
    swaps of alpha > beta."""
    internode = policy.startswith("internode")
    nodes = cfg.nodes.n_nodes
    swaps = cfg.swap_job_ticks() if policy != "fcfs" else 0.0
    return (cfg.jobs.n_jobs * (3.0 if internode else 1.0)
            + PER_NODE * nodes * (6.0 if internode else 1.0) + PER_LOAD_CELL * cfg.load_cells()
            + PER_SWAP * swaps)


@ENGINE.kind(
    KIND,
    title="Decentralized preemptive scheduling on a grid",
    description="Heterogeneous multi-core nodes with their own queues; FCFS with backfilling "
                "against local preemptive scheduling (priority alpha W - beta T_rem) and "
                "internode PUSH/PULL of waiting jobs over CAN' or 2-NN neighbours "
                "(Balasubramanian, Sussman, Sadeh, JSSPP 2013).",
    config_cls=GridConfig,
    spec="decentralized-preemptive-grid.md",
    headline=("wait_median_s", "wait_top10_median_s", "wait_max_s", "preemptions",
              "migrations"),
    cost=_cost,
    policy_type=GridScheduler,
)
def run(cfg: GridConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result:
    scheduler = policy.build(cfg)
    wl = generate(cfg, seed)
    nbrs = neighbours(scheduler, wl, seed)
    sim = GridSim(wl, scheduler, options(cfg), seed, neighbours=nbrs)
    sim.decisions = ctx.decisions
    sim.run(ctx.clock)
    return build_result(sim, cfg, wl, nbrs, ctx.clock)


policies.register(ENGINE)
presets.register(ENGINE)

__all__ = ["KIND", "GridConfig", "run"]
