"""A sweep's pages and exports show the point they are about (issue 26): clone keeps the sweep,
every export row carries its point and the swept values, a point page counts its own runs."""

import csv
import io
import json
import re

import pytest
from django.test import Client

from hetsite import kinds
from hetsite.models import Experiment
from hetsite.services import submission

pytestmark = pytest.mark.django_db(transaction=True)

UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random", "max-vpe"]}
AXES = [{"param": "uavs_mean", "values": [3, 6, 9]}]


@pytest.fixture
def sweep():
    sub = submission.validate_submission(**UAV, params={"horizon_h": 3.0}, trials=2,
                                         axes=AXES)
    experiment = submission.create_experiment(sub)
    experiment.refresh_from_db()
    return experiment


def rows_of(response):
    return list(csv.DictReader(io.StringIO(response.getvalue().decode())))


def posted_form(page) -> dict:
    """What a browser posts for a form shown unchanged (its bound or initial values)."""
    form = page.context["form"]
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        kind = getattr(field, "json_type", None)
        if kind == "json":
            data[name] = json.dumps(value) if not isinstance(value, str) else value
        elif kind == "bool":
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value
    return data


def test_a_clone_of_a_sweep_submitted_unchanged_runs_the_same_sweep(sweep):
    client = Client()
    page = client.get(f"/new/uav/?clone={sweep.public_id}")
    assert page.status_code == 200
    data = posted_form(page)
    assert data["sweep_param1"] == "uavs_mean" and data["sweep_values1"] == "3, 6, 9"
    data["name"] = "the clone"
    response = client.post("/new/uav/", data)
    assert response.status_code == 302, page.context["form"].errors
    clone = Experiment.objects.get(name="the clone")
    assert clone.axes == sweep.axes
    assert clone.scenario.params == sweep.scenario.params  # the base values, not a point's
    assert clone.policies == sweep.policies and clone.trials == sweep.trials


def test_what_was_run_says_which_values_were_swept(sweep):
    page = Client().get(f"/e/{sweep.public_id}/")
    rows = [r for r in page.context["scenario"]["changed"] if r["name"] == "uavs_mean"]
    assert rows and rows[0]["value"] == "swept 3, 6, 9"
    assert "swept 3, 6, 9" in page.content.decode()


def test_runs_csv_rows_carry_their_point_and_swept_value(sweep):
    rows = rows_of(Client().get(f"/e/{sweep.public_id}/runs.csv"))
    assert len(rows) == 3 * 2 * 2
    by_point = {}
    for row in rows:
        by_point.setdefault((row["point"], row["uavs_mean"]), []).append(row)
    assert sorted(by_point) == [("0", "3"), ("1", "6"), ("2", "9")]
    assert all(len(v) == 4 for v in by_point.values())


def test_the_summary_export_of_a_point_page_is_that_point(sweep):
    client = Client()
    first = rows_of(client.get(f"/e/{sweep.public_id}/summary.csv"))
    third = rows_of(client.get(f"/e/{sweep.public_id}/summary.csv?point=2"))
    assert {r["point"] for r in third} == {"2"} and {r["uavs_mean"] for r in third} == {"9"}
    assert {r["point"] for r in first} == {"0"}
    means = {r["policy"]: r["value"]["mean"] for r in sweep.summary if r["point"] == 2}
    for row in third:
        mean = float(next(v for k, v in row.items() if k.startswith("surveillance value mean")))
        assert mean == pytest.approx(means[row["policy"]], rel=1e-9)
    tex = client.get(f"/e/{sweep.public_id}/summary.tex?point=2").content.decode()
    assert "% point 2 (from 0): uavs\\_mean = 9" in tex
    assert tex != client.get(f"/e/{sweep.public_id}/summary.tex").content.decode()


def test_the_points_export_keeps_every_interval_in_its_metric_s_range(sweep):
    rows = rows_of(Client().get(f"/e/{sweep.public_id}/points.csv"))
    lab = kinds.get_kind("uav")
    assert len(rows) == 6 and [r["uavs_mean"] for r in rows][::2] == ["3", "6", "9"]
    for m in lab.metrics:
        for row in rows:
            low = row.get(f"{m.key} ci_low" + (f" ({m.unit})" if m.unit else ""))
            high = row.get(f"{m.key} ci_high" + (f" ({m.unit})" if m.unit else ""))
            if low:
                assert m.lower is None or float(low) >= m.lower
            if high:
                assert m.upper is None or float(high) <= m.upper


def test_a_point_page_numbers_points_from_1_and_counts_its_own_runs(sweep):
    page = Client().get(f"/e/{sweep.public_id}/?point=1").content.decode()
    assert re.search(r"Point 2 of 3 of the sweep", page)
    assert "(4 of 4 runs)" in page
    assert f'href="/e/{sweep.public_id}/summary.csv?point=1"' in page
    whole = Client().get(f"/e/{sweep.public_id}/").content.decode()
    assert "Point 1:" in whole and "Point 3:" in whole and "Point 0" not in whole


def test_what_was_run_and_the_sweep_axes_name_parameters_by_their_declared_labels(sweep):
    from simcore.params import parameters

    lab = kinds.get_kind("uav")
    declared = {p.name: p for p in parameters(lab.engine_kind.config_cls)}
    page = Client().get(f"/e/{sweep.public_id}/")
    shown = page.context["scenario"]
    rows = shown["changed"] + shown["same"] + shown["inapplicable"]
    assert {r["name"] for r in rows} == set(declared)
    for row in rows:
        p = declared[row["name"]]
        assert row["label"] == p.info.label
        assert row["group"] == (p.group.label if p.group else "")
    html = page.content.decode()
    assert "Mean number of UAVs λ_U" in html and "Dynamic-event rates (Table 11)" in html
    titles = {f["id"]: f["figure"]["layout"]["xaxis"]["title"]["text"]
              for f in page.context["figures"] if f["id"].startswith("sweep-")}
    assert titles and set(titles.values()) == {"Mean number of UAVs λ_U"}
