"""Sweep experiments and figure presets in the lab's pages (Django test client, eager runs)."""

import re

import pytest
from django.test import Client

from hetsite.models import Experiment

pytestmark = pytest.mark.django_db(transaction=True)

UAV_FORM = {"policies": ["random", "max-vpe"], "trials": 2, "base_seed": 0,
            "preset": "small-baseline", "visibility": "unlisted"}


def form_data(client, **extra):
    """The UAV form as the page fills it in, plus ``extra``."""
    page = client.get("/new/uav/?preset=small-baseline")
    form = page.context["form"]
    data = {name: form[name].value() for name in form.param_names}
    data = {k: v for k, v in data.items() if v is not None and not isinstance(v, (dict, list))}
    data.update({"p.horizon_h": 3.0})
    for k, v in list(data.items()):
        if v is True:
            data[k] = "on"
        elif v is False:
            data.pop(k)
    data.update(UAV_FORM)
    data.update(extra)
    return data


def test_a_sweep_from_the_form_shows_lines_tables_per_point_and_a_point_view():
    client = Client()
    response = client.post("/new/uav/", form_data(client, sweep_param1="uavs_mean",
                                                    sweep_values1="3:5:2"))
    assert response.status_code == 302, response.context["form"].errors
    experiment = Experiment.objects.get()
    assert experiment.axes == [{"param": "uavs_mean", "values": [3, 5]}]
    page = client.get(response["Location"])
    html = page.content.decode()
    assert "Sweep over" in html and 'id="points-csv"' in html
    assert html.count('class="point-table"') == 2
    ids = [f["id"] for f in page.context["figures"]]
    assert "sweep-value" in ids and all(f.get("point_link") for f in page.context["figures"])
    assert 'data-point-link="1"' in html
    one = client.get(response["Location"] + "?point=1")
    assert "Point 2 of 2 of the sweep" in one.content.decode()  # ?point=1 is the second
    assert {f["id"] for f in one.context["figures"]} >= {"value"}  # the kind's own charts
    paired = client.get(response["Location"] + "?baseline=random")
    assert any(f["id"] == "paired-value" for f in paired.context["figures"])
    csv = client.get(f"/e/{experiment.public_id}/points.csv").content.decode()
    assert csv.splitlines()[0].startswith("point,uavs_mean,policy,runs")
    assert client.get(response["Location"] + "?point=99").status_code == 404  # not the sweep


@pytest.mark.parametrize("extra, field, words", [
    ({"sweep_param1": "uavs_mean", "sweep_values1": ""}, "sweep_values1", "give values"),
    ({"sweep_param1": "uavs_mean", "sweep_values1": "1:2"}, "sweep_values1", "start:stop:step"),
    ({"sweep_values1": "3, 4"}, "sweep_param1", "choose the parameter"),
    ({"sweep_param1": "uavs_mean", "sweep_values1": "3, -2"}, "sweep_values1", "uavs_mean"),
    ({"sweep_param1": "uavs_mean", "sweep_values1": "3", "sweep_param2": "uavs_mean",
      "sweep_values2": "4"}, "sweep_values2", "swept twice"),
])
def test_bad_sweep_input_lands_on_its_field_and_creates_nothing(extra, field, words):
    client = Client()
    response = client.post("/new/uav/", form_data(client, **extra))
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert field in errors and any(words in e for e in errors[field]), errors
    assert Experiment.objects.count() == 0


def test_paired_comparison_on_a_plain_experiment():
    client = Client()
    response = client.post("/new/uav/", form_data(client))
    assert response.status_code == 302
    page = client.get(response["Location"] + "?baseline=random")
    (fig,) = [f for f in page.context["figures"] if f["id"] == "paired-value"]
    assert fig["figure"]["data"][0]["x"] and not fig["point_link"]
    # a baseline the experiment did not run says so (it was the page without one, unsaid)
    nope = client.get(response["Location"] + "?baseline=nope")
    assert nope.status_code == 404 and b'data-field="baseline"' in nope.content
    assert b"random" in nope.content  # the policies it could have been


def test_figures_page_runs_a_figure_and_shows_the_published_finding():
    client = Client()
    page = client.get("/figures/")
    html = page.content.decode()
    assert 'id="ch3-quick"' in html and "Published:" in html and "ch3-fig25" in html
    response = client.post("/figures/ch3-quick/run/", {"trials": "2"})
    assert response.status_code == 302 and re.search(r"/e/[0-9a-f-]{36}/$", response["Location"])
    shown = client.get(response["Location"]).content.decode()
    assert 'id="published-claim"' in shown and "max-upe-ph &gt; easy" in shown
    assert 'id="published-checks"' in shown and Experiment.objects.get().figure == "ch3-quick"
    # judged live on the 2 runs of each policy, beside the record's verdict of the claim
    row = re.search(r'<tr id="claim-ch3-quick-[^"]*" data-verdict="(\w+)"[^>]*>(.*?)</tr>', shown,
                    re.S)
    assert row and row.group(1) in ("holds", "inconclusive", "contradicted")
    assert '<td class="num">2</td>' in row.group(2) and "(n=8)" in row.group(2)
    assert client.post("/figures/no-such/run/", {}).status_code == 404
