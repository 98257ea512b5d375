"""The sweep runner starts the costliest runs first (the kind's cost estimate) and still
returns the runs in (point, policy, seed) order."""

from scheduling.engine import ENGINE, preset_scenario
from simcore.sweep import sweep


def test_costliest_runs_start_first_and_results_keep_their_order():
    base = preset_scenario("small", {"time.sim_h": 1.5, "time.warmup_h": 0.5})
    axes = [("time.sim_h", [1.0, 2.0])]
    policies = ["easy", "max-upe-ph"]
    finished = []
    runs = sweep(ENGINE, base, axes=axes, policies=policies, seeds=[0, 1], jobs=1,
                 on_run=finished.append)

    def cost(run):
        spec = ENGINE.preset_scenario("small", {"time.sim_h": run.setting["time.sim_h"],
                                                "time.warmup_h": 0.5})
        return ENGINE.cost(spec, run.policy)

    costs = [cost(r) for r in finished]
    assert costs == sorted(costs, reverse=True) and len(set(costs)) == 4
    assert [(r.point, r.policy, r.seed) for r in runs] == [
        (p, pol, s) for p in range(2) for pol in policies for s in (0, 1)]
