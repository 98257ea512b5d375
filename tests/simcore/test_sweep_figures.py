"""The sweep's points (linked axes) and the registered figure presets of every engine."""

import pytest

from simcore.params import from_dict, set_dotted, to_dict
from simcore.sweep import points, sweep

ENGINES = ["scheduling.engine", "uav.engine"]


def test_points_is_the_product_of_the_axes():
    assert points([]) == [{}]
    assert points([("a", [1, 2]), ("b", ["x"])]) == [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}]


def test_a_linked_axis_sets_every_named_parameter_to_the_same_value():
    got = points([("w.p+w.q", [0.0, 0.5]), ("b", [1])])
    assert got == [{"w.p": 0.0, "w.q": 0.0, "b": 1}, {"w.p": 0.5, "w.q": 0.5, "b": 1}]


def test_a_linked_axis_runs_both_flags_together():
    from scheduling.engine import ENGINE

    sc = ENGINE.preset_scenario("ch4-small", {"scheduler.duration_min": 60,
                                              "scheduler.warmup_min": 10})
    runs = sweep(ENGINE, sc, [("workload.p_can_preempt+workload.p_preemptible", [0.0, 1.0])],
                 ["max-util-greedy"], [0])
    assert [r.setting for r in runs] == [
        {"workload.p_can_preempt": 0.0, "workload.p_preemptible": 0.0},
        {"workload.p_can_preempt": 1.0, "workload.p_preemptible": 1.0}]
    assert runs[0].summary["preemptions"] == 0 < runs[1].summary["preemptions"]


@pytest.mark.parametrize("package", ENGINES)
def test_every_figure_preset_is_runnable_as_declared(package):
    """Each figure names policies of its kind, a valid preset with valid overrides and axis
    values, claims among its policies on metrics it charts, and says how it is scaled."""
    import importlib

    engine = importlib.import_module(package).ENGINE
    figures = engine.list_figures()
    assert figures, f"{package} registers no figure presets"
    for fig in figures:
        names = {p.name for p in engine.list_policies(fig.kind)}
        assert set(fig.policies) <= names, fig.name
        assert all(c.better in fig.policies and c.worse in fig.policies
                   and c.metric in fig.metrics for c in fig.claims), fig.name
        assert fig.claim and fig.source and fig.scale and fig.trials >= 1
        base = engine.preset_scenario(fig.preset, fig.overrides)
        config = type(base.params)
        for setting in points(fig.axes):
            params = to_dict(base.params)
            for key, value in setting.items():
                set_dotted(params, key, value)
            from_dict(config, params)  # raises ScenarioError on a bad axis value
        if fig.baseline is not None:
            assert fig.baseline in fig.policies
