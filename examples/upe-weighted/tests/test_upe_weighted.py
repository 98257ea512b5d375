"""The example policy's own tests: run them where the plugin is installed
(``pip install -e examples/upe-weighted`` into the site's environment, then ``pytest
examples/upe-weighted/tests``)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from upe_weighted import WeightedUpe

from scheduling.engine import ENGINE, preset_scenario, simulate

KIND = "parallel-energy"
POLICIES = {"max-upe2-ph": 2.0, "max-upe-half-ph": 0.5}


def test_both_policies_are_one_class_built_with_their_registered_weight():
    for name, weight in POLICIES.items():
        info = ENGINE.get_policy(KIND, name)
        assert info.factory is WeightedUpe and info.options == {"weight": weight}
        assert info.plugin.name == "hetsite-upe-weighted"
        built = info.build(preset_scenario("small").params, np.random.default_rng(0))
        assert built.weight == weight


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.floats(0.2, 1.5),
       policy=st.sampled_from(sorted(POLICIES)))
def test_no_task_starts_before_it_arrives_and_no_day_spends_past_its_budget(seed, budget,
                                                                              policy):
    result = simulate(preset_scenario("small", {"energy.budget_gj": budget}), policy, seed=seed)
    tasks = result.tasks
    started = [i for i, s in enumerate(tasks["status"]) if s in ("completed", "running")]
    assert started
    assert all(tasks["start"][i] >= tasks["arrival"][i] for i in started)
    spent, budgets = result.series["energy_day_gj"], result.series["budget_gj"]
    assert all(e <= b * (1 + 1e-9) for e, b in zip(spent, budgets, strict=True))
    assert result.meta["plugin"] == {"name": "hetsite-upe-weighted", "version": "0.2.0"}


def test_the_weight_changes_the_decisions():
    runs = {p: simulate(preset_scenario("small"), p, seed=1).tasks for p in POLICIES}
    assert runs["max-upe2-ph"]["pstate"] != runs["max-upe-half-ph"]["pstate"]
