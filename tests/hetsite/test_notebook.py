"""To a notebook (issue 31): the long tables read back with pandas equal what is stored, in
chunks, under the experiment's visibility; the snippet of docs/web.md runs as written."""

import io
import json
import re
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from django.contrib.auth.models import User
from django.test import Client

from hetsite import kinds, notebook, selectors
from hetsite.models import Status
from hetsite.services import submission

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "web.md"
UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random", "max-vpe"]}
AXES = [{"param": "uavs_mean", "values": [3, 6, 9]}]


def make_sweep():
    sub = submission.validate_submission(**UAV, params={"horizon_h": 3.0}, trials=2, axes=AXES)
    experiment = submission.create_experiment(sub)
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE
    return experiment


@pytest.fixture
def sweep():
    return make_sweep()


def body(response) -> bytes:
    assert response.status_code == 200, response
    return response.getvalue()


def stored(experiment) -> dict[str, object]:
    return {str(r.public_id): r for r in experiment.runs.all()}


def metric_column(frame, key: str) -> str:
    """The header of a metric: its key, and its unit in parentheses when it has one."""
    found = [c for c in frame.columns if c == key or c.startswith(f"{key} (")]
    assert len(found) == 1, (key, list(frame.columns))
    return found[0]


def assert_equals_stored(frame, experiment):
    runs = stored(experiment)
    assert len(frame) == len(runs) == 3 * 2 * 2
    assert set(frame["run"]) == set(runs)
    units = {m.key: m.unit for m in kinds.get_kind("uav").metrics}
    for _, row in frame.iterrows():
        run = runs[row["run"]]
        assert (row["kind"], row["experiment"]) == ("uav", str(experiment.public_id))
        assert (row["point"], row["uavs_mean"]) == (run.point, run.overrides["uavs_mean"])
        assert (row["policy"], row["trial"], row["seed"], row["status"]) == (
            run.policy, run.trial, run.seed, run.status)
        for key, value in run.summary.items():
            column = metric_column(frame, key)
            if units.get(key):
                assert column == f"{key} ({units[key]})"
            if isinstance(value, str):
                assert row[column] == value
            else:
                assert row[column] == pytest.approx(value, rel=1e-12, abs=0), column


def test_the_parquet_export_read_back_equals_the_stored_summaries(sweep):
    data = body(Client().get(f"/e/{sweep.public_id}/runs.parquet"))
    frame = pd.read_parquet(io.BytesIO(data))
    assert_equals_stored(frame, sweep)
    # Numbers arrive as numbers: no parsing in the notebook.
    assert frame["seed"].dtype == "int64" and frame["uavs_mean"].dtype == "int64"
    key = next(k for k, v in next(iter(stored(sweep).values())).summary.items()
               if isinstance(v, float))
    assert frame[metric_column(frame, key)].dtype == "float64"


def test_the_csv_export_read_back_equals_the_stored_summaries(sweep):
    frame = pd.read_csv(io.BytesIO(body(Client().get(f"/e/{sweep.public_id}/runs.csv"))))
    assert_equals_stored(frame, sweep)


def test_a_long_table_is_read_and_written_a_chunk_at_a_time(database, monkeypatch):
    """On SQLite and on PostgreSQL (where the rows come through a server-side cursor that
    outlives the view: the response is streamed after it returned)."""
    sweep = make_sweep()
    monkeypatch.setattr(notebook, "CHUNK", 5)
    data = body(Client().get(f"/e/{sweep.public_id}/runs.parquet"))
    assert pq.ParquetFile(io.BytesIO(data)).num_row_groups == 3  # 12 runs, 5 a group
    assert_equals_stored(pd.read_parquet(io.BytesIO(data)), sweep)
    response = Client().get(f"/e/{sweep.public_id}/runs.csv")
    assert response.streaming
    parts = [part for part in response.streaming_content]
    assert len(parts) == 1 + 3  # the header, then one piece per chunk
    assert_equals_stored(pd.read_csv(io.BytesIO(b"".join(parts))), sweep)


def test_tasks_and_series_come_a_row_per_record_tied_to_their_run(sweep):
    run = sweep.runs.filter(point=2, status=Status.DONE).order_by("id").first()
    result = json.loads(selectors.result_json(
        selectors.run_by_public_id(run.public_id, with_result=True)))
    client = Client()
    for records, source in (("tasks", result["tasks"]), ("series", result["series"])):
        columns = [c for c, v in source.items() if isinstance(v, list)]
        length = max(len(source[c]) for c in columns)
        csv_frame = pd.read_csv(io.BytesIO(body(client.get(f"/r/{run.public_id}/{records}.csv"))))
        parquet = pd.read_parquet(io.BytesIO(
            body(client.get(f"/r/{run.public_id}/{records}.parquet"))))
        for frame in (csv_frame, parquet):
            assert len(frame) == length > 0
            assert set(frame["run"]) == {str(run.public_id)}
            assert set(frame["policy"]) == {run.policy} and set(frame["seed"]) == {run.seed}
            assert set(frame["point"]) == {2} and set(frame["uavs_mean"]) == {9}
            numeric = next(c for c in columns if len(source[c]) == length
                           and all(isinstance(v, (int, float)) for v in source[c]))
            assert list(frame[metric_column(frame, numeric)]) == pytest.approx(source[numeric])
    series = pd.read_parquet(io.BytesIO(body(client.get(f"/r/{run.public_id}/series.parquet"))))
    assert "t_min (min)" in series.columns
    # A series per UAV: a column each, its values as stored.
    per_uav = result["series"]["energy_remaining"]
    assert isinstance(per_uav, dict) and per_uav
    for uav, values in per_uav.items():
        stored_values = [float("nan") if v is None else v for v in values]
        assert list(series[f"energy_remaining.{uav}"])[:len(values)] == pytest.approx(
            stored_values, nan_ok=True)
    tasks = pd.read_parquet(io.BytesIO(body(client.get(f"/r/{run.public_id}/tasks.parquet"))))
    assert tasks["preempted"].dtype == "bool"
    assert list(tasks["preempted"]) == result["tasks"]["preempted"]


def test_exports_follow_the_experiment_s_visibility(sweep):
    owner, stranger = Client(), Client()
    alice = User.objects.create_user("alice", password="pw-123456789")
    sweep.owner = alice
    sweep.save(update_fields=["owner"])
    owner.force_login(alice)
    submission.update_experiment(sweep, visibility="private")
    run = sweep.runs.filter(status=Status.DONE).first()
    urls = [f"/e/{sweep.public_id}/runs.csv", f"/e/{sweep.public_id}/runs.parquet",
            f"/r/{run.public_id}/tasks.csv", f"/r/{run.public_id}/tasks.parquet",
            f"/r/{run.public_id}/series.csv", f"/r/{run.public_id}/series.parquet"]
    for url in urls:
        assert stranger.get(url).status_code == 404, url
        assert owner.get(url).status_code == 200, url
    assert stranger.get(f"/api/experiments/{sweep.public_id}/runs/").status_code == 404


def snippet() -> str:
    text = DOCS.read_text()
    block = re.search(r"<!-- notebook-snippet -->\s*```python\n(.*?)```\s*"
                      r"<!-- /notebook-snippet -->", text, re.S)
    assert block, "docs/web.md lost its notebook snippet"
    return block.group(1)


def test_the_documented_snippet_loads_the_experiment_into_pandas(sweep, live_server,
                                                                 monkeypatch):
    monkeypatch.setattr(selectors, "RUNS_PAGE", 5)  # the snippet pages through three pages
    code = snippet()
    assert 'base = "http://localhost:8000"' in code and '"EXPERIMENT_ID"' in code
    code = code.replace("http://localhost:8000", live_server.url).replace(
        "EXPERIMENT_ID", str(sweep.public_id))
    scope: dict = {}
    exec(compile(code, "docs/web.md", "exec"), scope)  # noqa: S102 (our own documentation)
    assert_equals_stored(scope["runs"], sweep)
    assert_equals_stored(scope["same"], sweep)
    runs = stored(sweep)
    summaries = scope["summaries"]
    assert sorted(summaries["run"]) == sorted(runs)
    for _, row in summaries.iterrows():
        for key, value in runs[row["run"]].summary.items():
            assert row[key] == (value if isinstance(value, str) else pytest.approx(value))
    policy, key = "max-vpe", "value"
    mine = [r.summary[key] for r in runs.values() if r.policy == policy]
    means = scope["means"]
    assert means.loc[policy, metric_column(means, key)] == pytest.approx(sum(mine) / len(mine))
