"""Fuzzed scenario parameters for every kind: validation raises ScenarioError or accepts."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scheduling.engine as scheduling_engine
import uav.engine as uav_engine
from simcore.errors import ScenarioError
from simcore.params import describe, set_dotted, to_dict

ENGINES = [(e, kind.name) for e in (scheduling_engine, uav_engine)
           for kind in e.list_kinds()]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**9, 10**9)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=10)


@pytest.mark.parametrize("engine, kind", ENGINES, ids=[k for _, k in ENGINES])
def test_validation_accepts_or_names_a_parameter(engine, kind):
    config_cls = engine.ENGINE.get_kind(kind).config_cls
    names = [d["name"] for d in describe(config_cls)] + ["not_a_parameter"]
    preset = next(p for p in engine.list_presets(kind))
    base = to_dict(engine.scenario(kind, preset.params).params)

    @settings(max_examples=120, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(names), json_values, min_size=1, max_size=4))
    def fuzz(changes):
        import copy

        data = copy.deepcopy(base)
        for name, value in changes.items():
            try:
                set_dotted(data, name, value)
            except ScenarioError:
                data[name] = value  # unknown parameters must be refused by validation too
        try:
            engine.scenario(kind, data)
        except ScenarioError as err:
            assert err.field and err.message

    fuzz()
