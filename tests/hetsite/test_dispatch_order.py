"""Runs are sent to the workers costliest first (the kind's cost estimate), so a sweep does not
end on one straggler. Eager Celery executes the group inline, in the order it was sent."""

import pytest

from hetsite import kinds
from hetsite.models import Run, Status
from hetsite.services import submission

pytestmark = pytest.mark.django_db(transaction=True)

CH3 = "parallel-energy"


def test_sweep_runs_start_costliest_first():
    lab = kinds.get_kind(CH3)
    if lab is None:
        pytest.skip("the ch3 kind is not available")
    sub = submission.validate_submission(
        kind=CH3, preset="small", policies=["easy", "max-upe-ph"], trials=2, base_seed=1,
        params={"time": {"sim_h": 2.0, "warmup_h": 1.0}},
        axes=[{"param": "time.sim_h", "values": [1.5, 2.5]}])
    experiment = submission.create_experiment(sub)
    runs = list(Run.objects.filter(experiment=experiment))
    assert len(runs) == 8 and {r.status for r in runs} == {Status.DONE}

    def cost(run):
        params = submission.with_overrides(experiment.scenario.params, run.overrides)
        return lab.engine.ENGINE.cost(lab.engine.scenario(CH3, params), run.policy)

    started = sorted(runs, key=lambda r: r.started)
    stored = sorted(runs, key=lambda r: (r.point, r.trial, r.pk))  # the rows' own order
    assert [cost(r) for r in started] == sorted((cost(r) for r in runs), reverse=True)
    assert [cost(r) for r in stored] != [cost(r) for r in started]  # the order did change
    # Equal estimates keep the rows' order: point, then trial.
    for a, b in zip(started, started[1:], strict=False):
        if cost(a) == cost(b):
            assert (a.point, a.trial) < (b.point, b.trial)
