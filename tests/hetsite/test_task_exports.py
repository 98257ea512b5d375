"""A task export never has two columns of one name: swf-preemptive's job run time (``run`` in
the result) is ``runtime (s)`` in tasks.csv and tasks.parquet, beside the ``run`` id column;
the result JSON and the API keep their keys."""

import csv
import gzip
import io
import json

import pandas as pd
import pytest
from django.test import Client

from hetsite import notebook
from hetsite.models import Experiment, Run, Scenario
from hetsite.services import execution, submission

pytestmark = pytest.mark.django_db


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_swf_preemptive_tasks_csv_names_the_job_s_run_time_apart_from_its_run():
    sub = submission.validate_submission(kind="swf-preemptive", preset="pbb-small",
                                         policies=["duration-remaining"], trials=1)
    experiment = submission.create_experiment(sub, dispatch=False)
    run = experiment.runs.get()
    execution.execute_run(run.pk)
    run.refresh_from_db()
    client = Client()
    rows = list(csv.reader(io.StringIO(body(client.get(f"/r/{run.public_id}/tasks.csv"))
                                       .decode())))
    head = rows[0]
    assert len(head) == len(set(head)), [h for h in head if head.count(h) > 1]
    assert head.count("run") == 1 and head[0] == "run"
    assert "runtime (s)" in head
    assert {r[0] for r in rows[1:]} == {str(run.public_id)}  # the run column: the run's id
    result = json.loads(body(client.get(f"/r/{run.public_id}/result.json")))
    runtimes = result["tasks"]["run"]  # the result JSON keeps its key
    k = head.index("runtime (s)")
    assert [float(r[k]) for r in rows[1:]] == pytest.approx(runtimes)
    assert "run" in json.loads(body(client.get(f"/api/runs/{run.public_id}/result/")))["tasks"]
    # The Parquet file has the same columns, each once, and loads without a clash.
    frame = pd.read_parquet(io.BytesIO(body(client.get(f"/r/{run.public_id}/tasks.parquet"))))
    assert list(frame.columns) == head
    assert frame["runtime (s)"].tolist() == pytest.approx(runtimes)


def test_a_record_column_named_like_a_run_column_is_exported_under_a_name_of_its_own():
    scenario = Scenario.objects.create(kind="serial-preemption", name="s", params={})
    experiment = Experiment.objects.create(name="e", kind="serial-preemption", scenario=scenario,
                                           policies=["fcfs"], trials=1)
    result = {"tasks": {"id": [0, 1], "seed": [7, 8], "policy": ["a", "b"]},
              "series": {"t_min": [0, 1], "trial": [3, 4]}}
    run = Run.objects.create(experiment=experiment, policy="fcfs", trial=0, seed=11,
                             summary={}, result_gz=gzip.compress(json.dumps(result).encode()))
    tasks = notebook.tasks_table(run)
    names = [c.name for c in tasks.columns]
    assert names == ["run", "policy", "trial", "seed", "id", "task seed", "task policy"]
    rows = [row for chunk in tasks.chunks for row in chunk]
    assert [r[3] for r in rows] == [11, 11] and [r[5] for r in rows] == [7, 8]
    series = [c.name for c in notebook.series_table(run).columns]
    assert series == ["run", "policy", "trial", "seed", "t_min (min)", "series trial"]
