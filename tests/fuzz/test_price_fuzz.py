"""Fuzzed scenarios that validation accepts have a finite, non-negative price for every policy:
the cost models (each kind's ``Kind.cost``) never fail a submission or let one through free."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scheduling.engine as scheduling_engine
import uav.engine as uav_engine
from simcore.errors import ScenarioError
from simcore.params import describe, set_dotted, to_dict

ENGINES = [(e, kind.name) for e in (scheduling_engine, uav_engine)
           for kind in e.list_kinds()]

numbers = (st.integers(0, 10**6) | st.floats(min_value=0.0, max_value=1e7)
           | st.sampled_from([5e-324, 1e-9, 0.001, 0.05, 1.0, 1000.0]))


@pytest.mark.parametrize("engine, kind", ENGINES, ids=[k for _, k in ENGINES])
def test_an_accepted_scenario_has_a_finite_price(engine, kind):
    config_cls = engine.ENGINE.get_kind(kind).config_cls
    names = [d["name"] for d in describe(config_cls) if d.get("type") in ("int", "float")]
    policies = [p.name for p in engine.list_policies(kind)]
    preset = next(p for p in engine.list_presets(kind))
    base = to_dict(engine.scenario(kind, preset.params).params)

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(names), numbers, min_size=1, max_size=3))
    def fuzz(changes):
        import copy

        data = copy.deepcopy(base)
        for name, value in changes.items():
            set_dotted(data, name, value)
        try:
            sc = engine.scenario(kind, data)
        except ScenarioError:
            return
        for policy in policies:
            cost = engine.ENGINE.cost(sc, policy)
            assert math.isfinite(cost) and cost >= 0, (changes, policy, cost)

    fuzz()
