"""The smaller findings of issue 27 (item 10): CSRF for cookie owners, no HTTP Basic, bad
input that gave a 500 or failed later in the worker, unknown fields, what /healthz tells a
stranger, and the proxy header."""

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from hetsite.models import Experiment

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random"], "trials": 1}


def test_an_anonymous_owners_writes_need_the_csrf_token_and_this_sites_origin():
    browser = APIClient(enforce_csrf_checks=True)
    created = browser.post("/api/experiments/", UAV, format="json")  # no cookie yet: a script
    assert created.status_code == 202
    token = browser.cookies["csrftoken"].value  # sent beside the new owner cookie
    url = f"/api/experiments/{created.json()['id']}/"
    # Another site's page making the browser send the owner cookie: refused.
    forged = browser.patch(url, {"name": "pwned"}, format="json")
    assert forged.status_code == 403 and "CSRF" in forged.json()["detail"]
    foreign = browser.patch(url, {"name": "pwned"}, format="json", HTTP_X_CSRFTOKEN=token,
                            HTTP_ORIGIN="https://evil.example")
    assert foreign.status_code == 403 and "Origin" in foreign.json()["detail"]
    assert browser.delete(url).status_code == 403
    assert Experiment.objects.get().name != "pwned"
    # The owner's own client, with the token.
    ok = browser.patch(url, {"name": "renamed"}, format="json", HTTP_X_CSRFTOKEN=token)
    assert ok.status_code == 200 and ok.json()["name"] == "renamed"
    # Without any cookie, a write from a foreign page is refused too.
    fresh = APIClient(enforce_csrf_checks=True)
    assert fresh.post("/api/experiments/", UAV, format="json",
                      HTTP_ORIGIN="https://evil.example").status_code == 403
    assert Experiment.objects.count() == 1


def test_http_basic_authentication_is_off():
    ada = User.objects.create_user("ada", password="pw-123456789")
    mine = APIClient()
    mine.force_authenticate(ada)
    exp_id = mine.post("/api/experiments/", UAV, format="json").json()["id"]
    basic = base64.b64encode(b"ada:pw-123456789").decode()
    response = APIClient().patch(f"/api/experiments/{exp_id}/", {"name": "by basic"},
                                 format="json", HTTP_AUTHORIZATION=f"Basic {basic}")
    assert response.status_code == 403  # an anonymous caller, not Ada
    assert "WWW-Authenticate" not in response


@pytest.mark.parametrize("body", ["[" * 100_000 + "]" * 100_000,
                                  '{"kind": ' + "[" * 40 + "1" + "]" * 40 + "}"])
def test_deeply_nested_json_is_400(body):
    response = Client().post("/api/experiments/", body, content_type="application/json")
    assert response.status_code == 400
    assert "nested deeper than 32 levels" in response.json()["detail"]


@pytest.mark.parametrize("path", ["/api/experiments/", "/api/scenarios/", "/api/uploads/"])
def test_page_numbers_are_checked(path):
    api = APIClient()
    for page in ("1e22", "10000000000000000000000", "-1", "0", "x"):
        response = api.get(f"{path}?page={page}")
        assert response.status_code == 400, (page, response.content)
        assert "page" in response.json()
    assert api.get(f"{path}?page=1").status_code == 200
    assert api.get(f"{path}?page=2").status_code == 404  # past the last page


@pytest.mark.parametrize("params, field", [
    ({"workload": {"source": "trace"}, "trace": {"file": "upload:" + "d" * 64}},
     "params.trace.file"),
    ({"workload": {"source": "trace"}, "trace": {"file": "no-such-trace"}},
     "params.trace.file"),
])
def test_a_trace_that_is_not_there_is_refused_at_submission(params, field):
    response = APIClient().post("/api/experiments/", {
        "kind": "parallel-energy", "preset": "small", "policies": ["easy"], "trials": 1,
        "params": params}, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert Experiment.objects.count() == 0


def test_an_unknown_run_time_upload_is_refused_at_submission():
    response = APIClient().post("/api/experiments/", {
        "kind": "many-task", "preset": "many-task-small", "policies": ["random"], "trials": 1,
        "params": {"workload": {"source": "runtimes", "runtimes": "upload:" + "e" * 64}}},
        format="json")
    assert response.status_code == 400
    assert "upload the file first" in response.json()["params.workload.runtimes"][0]


@pytest.mark.parametrize("tags", [{"a": 1}, 5, True, [1, 2], ["a"] * 21])
def test_tags_must_be_words(tags):
    api = APIClient()
    response = api.post("/api/experiments/", {**UAV, "tags": tags}, format="json")
    assert response.status_code == 400 and "tags" in response.json()
    created = api.post("/api/experiments/", UAV, format="json").json()
    patch = api.patch(f"/api/experiments/{created['id']}/", {"tags": tags}, format="json")
    assert patch.status_code == 400 and "tags" in patch.json()
    assert Experiment.objects.get().tags == ""


def test_unknown_top_level_fields_are_400_naming_them():
    api = APIClient()
    # (``dry_run`` was the example here until it became a field: issue 31.)
    response = api.post("/api/experiments/", {**UAV, "priority": 1, "trails": 3},
                        format="json")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"priority", "trails"} and "unknown field" in body["priority"][0]
    assert Experiment.objects.count() == 0
    exp_id = api.post("/api/experiments/", UAV, format="json").json()["id"]
    assert "colour" in api.patch(f"/api/experiments/{exp_id}/", {"colour": "red"},
                                 format="json").json()
    assert "param" in api.post("/api/scenarios/", {"kind": "uav", "name": "x", "param": {}},
                               format="json").json()
    assert "seed" in api.post("/api/figures/ch4-quick/run/", {"seed": 1},
                              format="json").json()


def test_healthz_tells_a_stranger_only_what_is_up(settings, dead_redis_url):
    settings.CELERY_BROKER_URL = dead_redis_url
    body = Client().get("/healthz").json()
    assert body["failing"] == ["broker"]
    assert body["checks"] == {"database": {"ok": True}, "broker": {"ok": False}}
    port = dead_redis_url.rsplit(":", 1)[1].split("/")[0]
    assert port not in json.dumps(body) and "127.0.0.1" not in json.dumps(body)
    User.objects.create_superuser("boss", password="pw-123456789")
    staff = Client()
    staff.login(username="boss", password="pw-123456789")
    assert port in staff.get("/healthz").json()["checks"]["broker"]["detail"]


def test_the_forwarded_protocol_is_believed_only_behind_a_configured_proxy():
    request = RequestFactory().get("/", HTTP_X_FORWARDED_PROTO="https")
    assert request.is_secure() is False

    def proxy_header(**env):
        code = ("import django; django.setup(); from django.conf import settings; "
                "print(settings.SECURE_PROXY_SSL_HEADER)")
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, env={**os.environ, "DJANGO_SETTINGS_MODULE":
                                             "hetsite.settings", "SECRET_KEY": "x" * 50, **env})
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert proxy_header() == "None"
    assert proxy_header(HETSITE_TRUSTED_PROXIES="1") == "('HTTP_X_FORWARDED_PROTO', 'https')"
