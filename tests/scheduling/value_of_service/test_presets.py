"""Presets and figure presets: every one validates, and every figure names real policies,
summary keys and sweep points."""

import pytest

from scheduling.engine import ENGINE, list_presets, preset_scenario, simulate

KIND = "value-of-service"


def test_every_preset_validates_and_the_environments_are_the_papers():
    names = {p.name for p in list_presets(KIND)}
    assert {f"vos-env-c{v}" for v in (128, 192, 256, 320, 384)} <= names
    assert {f"vos-env-m{v}" for v in (128, 192, 256, 320, 384)} <= names
    assert {f"vos-testbed-w{w}-{c}" for w in (1, 2) for c in (20, 40, 80)} <= names
    for name in names:
        params = preset_scenario(name).params
        if name.startswith("vos-env-"):
            assert (params.system.cores == 256) or (params.system.memory_gb == 256)
            assert params.scheduler.duration_h == 26 and params.scheduler.warmup_h == 2
        if name.startswith("vos-testbed-"):
            assert params.system.total_cores == int(name.rsplit("-", 1)[1])
            assert params.system.node_cores == 20 and params.system.node_memory_gb == 24


def test_figure_presets_are_runnable_descriptions():
    figures = ENGINE.list_figures(KIND)
    assert {f.name for f in figures} >= {"vos-fig7", "vos-fig8", *[f"vos-fig{i}"
                                                                    for i in range(10, 18)]}
    small = simulate(preset_scenario("vos-small"), "max-vptr", seed=0).summary
    for f in figures:
        policies = {p.name for p in ENGINE.list_policies(KIND)}
        assert set(f.policies) <= policies
        assert all(c.better in f.policies and c.worse in f.policies and c.metric in f.metrics
                   for c in f.claims)
        assert f.baseline in f.policies
        for metric in f.metrics:
            assert metric in small
        for param, values in f.axes:
            for value in values:  # every sweep point is a valid scenario
                preset_scenario(f.preset, {**f.overrides, param: value})
        assert f.claim and f.source and f.scale


@pytest.mark.parametrize("name", ["vos-testbed-w1-20", "vos-testbed-w2-20"])
def test_testbed_presets_run(name):
    s = simulate(preset_scenario(name), "simple-dp", seed=0).summary
    assert s["tasks_total"] > 20 and s["exec_time_ks"] > 0 and s["energy_mj"] > 0
