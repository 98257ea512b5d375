"""The ambiguous readings of ch3 carried as parameters (docs/ch3.md, docs/reproduction.md): each
reading changes what the model does in the way its name says, and the default is the one the
text supports."""

import numpy as np

from scheduling.engine import preset_scenario, simulate
from scheduling.engine.parallel.config import ParallelEnergyConfig

from .test_invariants import check_result, watch

SHORT = {"time.sim_h": 10.0, "time.warmup_h": 2.0}
BUSY = {**SHORT, "workload.tasks_per_day": 900.0}


def _run(policy, overrides, seed=2):
    with watch() as log:
        result = simulate(preset_scenario("small", {**BUSY, **overrides}), policy, seed=seed)
    check_result(result, policy, log)
    return result, log


def test_random_reserves_by_default_and_start_now_is_the_alternative():
    assert ParallelEnergyConfig().scheduler.random_reservations is True  # §3.3.4.2 (A23)
    _, reserving = _run("random", {})
    _, start_now = _run("random", {"scheduler.random_reservations": False})
    assert len(reserving["reservations"]) > 0
    assert len(start_now["reservations"]) == 0
