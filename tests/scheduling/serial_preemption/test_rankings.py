"""Published rankings that are large and stable enough to check on a small preset in seconds
(docs/reproduction.md has the full figures; the figure presets run them at scale)."""

import pytest

from scheduling.engine import preset_scenario, simulate

SEEDS = (0, 1)


def _run(policy, seed):
    sc = preset_scenario("ch4-small", {"utility.family": "step",
                                       "scheduler.duration_min": 720,
                                       "scheduler.warmup_min": 120})
    return simulate(sc, policy, seed=seed).summary


@pytest.mark.parametrize("mode", ["util", "upt"])
@pytest.mark.parametrize("seed", SEEDS)
def test_preemption_beats_no_preemption_with_step_utilities(mode, seed):
    """Fig. 36 (step functions): a critical task must finish within its type's average time,
    so without preemption most critical tasks miss it; Greedy and Diff catch nearly all."""
    plain = _run(f"max-{mode}", seed)
    for tech in ("greedy", "diff"):
        pre = _run(f"max-{mode}-{tech}", seed)
        assert pre["pct_max_utility"] > plain["pct_max_utility"] + 20
        assert pre["pct_critical_completed"] > plain["pct_critical_completed"] + 30


@pytest.mark.parametrize("seed", SEEDS)
def test_utility_aware_beats_random_and_fcfs(seed):
    best_comparison = max(_run(p, seed)["pct_max_utility"] for p in ("random", "fcfs"))
    for policy in ("max-util", "max-upt"):
        assert _run(policy, seed)["pct_max_utility"] > best_comparison
