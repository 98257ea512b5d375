"""Every scenario kind through the lab: experiment page, every chart, every run chart."""

import json

import pytest
from django.test import Client

from hetsite import kinds
from hetsite.models import Status
from hetsite.services import submission

# Transactional: runs are dispatched when the experiment commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)

KINDS = {"parallel-energy": ("small", ["conservative", "meta-event"]),
         "swf-replay": ("swf-small", ["fcfs", "easy"]),
         "swf-preemptive": ("pbb-small-mix-b", ["first-fit", "duration-remaining"]),
         "serial-preemption": ("ch4-small", ["max-util", "max-util-greedy"]),
         "uav": ("small-baseline", ["max-value", "meta+pf"]),
         "grid": ("grid-small", ["local", "internode-can"]),
         "many-task": ("many-task-small", ["random", "sorted+chop"]),
         "value-of-service": ("vos-small", ["simple-dp", "max-vptr"])}


def test_every_engine_environment_has_a_lab_kind():
    engine_kinds = {spec.name for ui in kinds.all_kinds() for spec in
                    ui.engine.list_kinds()}
    assert engine_kinds == {ui.kind for ui in kinds.all_kinds()} == set(KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_kind_runs_and_draws_every_chart(kind):
    preset, policies = KINDS[kind]
    ui = kinds.get_kind(kind)
    experiment = submission.create_experiment(submission.validate_submission(
        kind=kind, preset=preset, policies=policies, trials=2))
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE, [r.error for r in experiment.runs.all()]
    table = experiment.summary_by_policy()
    for metric in ui.metrics:
        assert any(table[p][metric.key]["n"] == 2 for p in policies), metric.key
    client = Client()
    page = client.get(f"/e/{experiment.public_id}/")
    assert page.status_code == 200
    drawn = {f["id"]: f["figure"] for f in page.context["figures"]}
    for chart in ui.experiment_charts:
        if chart.applies is None:
            assert drawn[chart.id]["data"], chart.id
        json.dumps(drawn.get(chart.id, {}), allow_nan=False)
    run = experiment.runs.first()
    for chart in ui.run_charts:
        figure = client.get(f"/api/runs/{run.public_id}/figures/{chart.id}/")
        assert figure.status_code == 200, chart.id
        assert figure.json()["data"], chart.id
    side = client.get(f"/e/{experiment.public_id}/compare/?p={policies[0]}&p={policies[1]}")
    assert side.status_code == 200 and side.context["figures"]
