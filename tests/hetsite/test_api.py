import gzip
import json

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from hetsite.models import Experiment, Run, Status

# Transactional: runs are dispatched when the experiment commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api():
    return APIClient()


def post_experiment(api, small, **overrides):
    body = {"kind": small["kind"], "preset": small["preset"], "policies": small["policies"],
            "trials": 2, "base_seed": 1}
    body.update(overrides)
    return api.post("/api/experiments/", body, format="json")


def test_create_returns_202_with_location_and_runs(api, small):
    response = post_experiment(api, small)
    assert response.status_code == 202, response.content
    body = response.json()
    assert response["Location"] == f"/api/experiments/{body['id']}/"
    assert len(body["runs"]) == 2 * len(small["policies"])
    assert body["share_url"].endswith(f"/e/{body['id']}/")
    detail = api.get(response["Location"]).json()
    assert detail["status"] == Status.DONE  # eager Celery in unit tests
    assert set(detail["summary"]) == set(small["policies"])
    progress = api.get(f"/api/experiments/{body['id']}/progress/").json()
    assert progress["progress"] == 100.0
    assert all(r["status"] == "done" for r in progress["runs"])


@pytest.mark.parametrize("overrides, field", [
    ({"policies": []}, "policies"),
    ({"policies": ["nope"]}, "policies"),
    ({"trials": 0}, "trials"),
    ({"kind": "martian"}, "kind"),
    ({"params": {"not_a_param": 3}}, "params.not_a_param"),
    ({"base_seed": -4}, "base_seed"),
])
def test_bad_input_is_400_naming_the_field(api, small, overrides, field):
    response = post_experiment(api, small, **overrides)
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert Experiment.objects.count() == 0


def test_non_json_body_is_400_not_500(api):
    response = api.post("/api/experiments/", "kind=x", content_type="text/plain")
    assert response.status_code in (400, 415)


def test_reference_endpoints_list_kinds_policies_presets(api, small):
    kinds = {k["kind"]: k for k in api.get("/api/kinds/").json()}
    assert small["kind"] in kinds
    k = kinds[small["kind"]]
    assert {p["name"] for p in k["policies"]} >= set(small["policies"])
    assert small["preset"] in {p["name"] for p in k["presets"]}
    assert all({"name", "unit", "range", "help"} <= set(p) for p in k["parameters"])
    policies = api.get(f"/api/policies/?kind={small['kind']}").json()
    assert all(p["kind"] == small["kind"] and p["description"] for p in policies)
    presets = api.get(f"/api/presets/?kind={small['kind']}").json()
    assert presets and all(p["kind"] == small["kind"] for p in presets)


def test_figures_results_and_run_endpoints(api, small):
    exp_id = post_experiment(api, small)["Location"].split("/")[-2]
    kind = next(k for k in api.get("/api/kinds/").json() if k["kind"] == small["kind"])
    for chart in kind["charts"]:
        fig = api.get(f"/api/experiments/{exp_id}/figures/{chart['id']}/")
        assert fig.status_code in (200, 404)  # charts that do not apply (e.g. no metaheuristic)
        if fig.status_code == 200:
            assert "data" in fig.json() and "layout" in fig.json()
    assert api.get(f"/api/experiments/{exp_id}/figures/no-such-chart/").status_code == 404
    run = Run.objects.filter(experiment__public_id=exp_id).first()
    detail = api.get(f"/api/runs/{run.public_id}/").json()
    assert detail["experiment"] == exp_id and detail["summary"]
    full = api.get(f"/api/runs/{run.public_id}/result/")
    assert full.status_code == 200
    assert json.loads(full.getvalue()) == json.loads(gzip.decompress(bytes(run.result_gz)))
    for chart in kind["run_charts"]:
        fig = api.get(f"/api/runs/{run.public_id}/figures/{chart['id']}/")
        assert fig.status_code == 200, fig.content
        assert fig.json()["data"]


def test_side_by_side_figure_has_one_panel_per_policy(api, small):
    exp_id = post_experiment(api, small)["Location"].split("/")[-2]
    kind = next(k for k in api.get("/api/kinds/").json() if k["kind"] == small["kind"])
    chart = next(c["id"] for c in kind["charts"] if "time" in c["id"])
    fig = api.get(f"/api/experiments/{exp_id}/figures/{chart}/?side_by_side=1").json()
    axes = {t["xaxis"] for t in fig["data"]}
    assert len(axes) == len(small["policies"])
    assert fig["layout"]["xaxis2"]["matches"] == "x" and fig["layout"]["yaxis2"]["matches"] == "y"
    one = api.get(f"/api/experiments/{exp_id}/figures/{chart}/"
                  f"?policies={small['policies'][0]}").json()
    assert {t.get("legendgroup") for t in one["data"] if t.get("legendgroup")} == {
        small["policies"][0]}


def test_cancel_and_delete_need_the_owner(api, small):
    """The anonymous creator owns it through the signed cookie; a stranger cannot touch it;
    logging in adopts it."""
    exp_id = post_experiment(api, small)["Location"].split("/")[-2]
    stranger = APIClient()
    assert stranger.post(f"/api/experiments/{exp_id}/cancel/").status_code == 403
    assert stranger.delete(f"/api/experiments/{exp_id}/").status_code == 403
    assert stranger.patch(f"/api/experiments/{exp_id}/", {"name": "mine now"},
                          format="json").status_code == 403
    User.objects.create_user("ada", password="pw-123456789")
    stranger.login(username="ada", password="pw-123456789")
    assert stranger.delete(f"/api/experiments/{exp_id}/").status_code == 403
    response = api.patch(f"/api/experiments/{exp_id}/",
                         {"name": "renamed", "tags": ["a", "B"], "visibility": "private"},
                         format="json")
    assert response.status_code == 200 and response.json()["tags"] == ["a", "b"]
    assert stranger.get(f"/api/experiments/{exp_id}/").status_code == 404  # private now
    # The creator logs in through the login page: the experiment is adopted.
    assert api.post("/accounts/login/", {"username": "ada", "password": "pw-123456789"}
                    ).status_code == 302
    assert Experiment.objects.get(public_id=exp_id).owner.username == "ada"
    assert api.delete(f"/api/experiments/{exp_id}/").status_code == 204
    assert not Experiment.objects.filter(public_id=exp_id).exists()


def test_unknown_ids_are_404(api):
    missing = "00000000-0000-4000-8000-000000000000"
    assert api.get(f"/api/experiments/{missing}/").status_code == 404
    assert api.get(f"/api/runs/{missing}/").status_code == 404
    assert api.get("/api/experiments/12/").status_code == 404  # integer ids are not URLs


def test_openapi_schema_and_offline_docs(api):
    schema = api.get("/api/schema/?format=json")
    assert schema.status_code == 200
    doc = json.loads(schema.content)
    assert "/api/experiments/" in doc["paths"]
    assert "202" in doc["paths"]["/api/experiments/"]["post"]["responses"]
    page = api.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "swagger-ui" in html and "cdn." not in html and "unpkg" not in html


def test_scenarios_can_be_saved_and_fetched(api, small):
    response = api.post("/api/scenarios/", {"kind": small["kind"], "name": "mine",
                                            "preset": small["preset"]}, format="json")
    assert response.status_code == 201, response.content
    got = api.get(response["Location"]).json()
    assert got["name"] == "mine" and got["params"]
    bad = api.post("/api/scenarios/", {"kind": small["kind"], "name": "x",
                                       "params": {"nope": 1}}, format="json")
    assert bad.status_code == 400 and "params.nope" in bad.json()


def test_site_limits_are_400_naming_the_limit(api, settings):
    settings.HETSITE_LIMITS = {**settings.HETSITE_LIMITS, "uavs": 10}
    response = api.post("/api/experiments/", {"kind": "uav", "preset": "large",
                                              "policies": ["meta"], "trials": 1}, format="json")
    assert response.status_code == 400
    message = response.json()["params.uavs_mean"][0]
    assert "limit uavs = 10" in message and "HETSITE_LIMIT_UAVS" in message
    assert Experiment.objects.count() == 0


def test_experiment_creation_is_throttled_per_client(api, settings):
    settings.HETSITE_SUBMIT_RATE = "2/min"
    uav = {"kind": "uav", "preset": "small-baseline", "policies": ["random"]}
    codes = [post_experiment(api, uav, trials=1).status_code for _ in range(3)]
    assert codes == [202, 202, 429]
    assert api.get("/api/experiments/").status_code == 200  # reading is never throttled
