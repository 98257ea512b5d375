"""Sharing and access: read-only share links, login for edits, staff for admin, CSRF, headers."""

import re
import uuid
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from hetsite.models import Experiment, Status
from hetsite.services import execution, submission

# Transactional: runs are dispatched when the experiment commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random", "meta+pf"]}


@pytest.fixture
def experiment():
    return submission.create_experiment(submission.validate_submission(**UAV, trials=1))


def test_share_link_is_uuid4_and_read_only(experiment):
    assert uuid.UUID(str(experiment.public_id)).version == 4
    page = Client().get(f"/e/{experiment.public_id}/")
    html = page.content.decode()
    assert page.status_code == 200 and 'id="summary-table"' in html
    assert 'id="cancel"' not in html and "Delete" not in html
    links = re.findall(r'href="([^"]+)"', html)
    assert not [link for link in links if re.search(r"/(e|r)/\d+/", link)], links


def test_edits_need_ownership(experiment):
    client = Client()
    for path in (f"/e/{experiment.public_id}/cancel/", f"/e/{experiment.public_id}/delete/",
                 f"/e/{experiment.public_id}/edit/"):
        assert client.post(path).status_code == 403
    owner = User.objects.create_user("owner", password="pw-123456789")
    Experiment.objects.filter(pk=experiment.pk).update(owner=owner)
    User.objects.create_user("other", password="pw-123456789")
    client.login(username="other", password="pw-123456789")
    assert client.post(f"/e/{experiment.public_id}/delete/").status_code == 403
    client.login(username="owner", password="pw-123456789")
    assert client.post(f"/e/{experiment.public_id}/delete/").status_code == 302
    assert not Experiment.objects.filter(pk=experiment.pk).exists()


def test_admin_needs_staff():
    client = Client()
    assert client.get("/admin/").status_code == 302
    User.objects.create_user("plain", password="pw-123456789")
    client.login(username="plain", password="pw-123456789")
    assert "/admin/login/" in client.get("/admin/")["Location"]
    User.objects.create_superuser("boss", password="pw-123456789")
    client.login(username="boss", password="pw-123456789")
    assert client.get("/admin/hetsite/experiment/").status_code == 200


def test_forms_and_session_api_writes_need_csrf(experiment):
    client = Client(enforce_csrf_checks=True)
    assert client.post("/new/uav/", {"trials": 1}).status_code == 403
    User.objects.create_user("ada", password="pw-123456789")
    client.login(username="ada", password="pw-123456789")
    assert client.post(f"/e/{experiment.public_id}/cancel/").status_code == 403
    api = APIClient(enforce_csrf_checks=True)
    api.login(username="ada", password="pw-123456789")
    response = api.delete(f"/api/experiments/{experiment.public_id}/")
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]


def test_security_headers_on_pages():
    response = Client().get("/")
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-eval" not in csp and "unsafe-inline" not in csp.split("style-src")[0]


def test_broker_down_is_503_naming_the_broker(dead_redis_url, celery_config):
    celery_config(broker_url=dead_redis_url, task_always_eager=False,
                  broker_connection_retry=False, broker_connection_max_retries=0)
    response = APIClient().post("/api/experiments/", {**UAV, "trials": 1}, format="json")
    assert response.status_code == 503
    assert response.json()["failing"] == ["broker"] and "broker" in response.json()["detail"]
    assert Experiment.objects.count() == 0


def test_page_shows_partial_results_when_a_run_failed(experiment):
    run = experiment.runs.get(policy="random")
    run.status = Status.FAILED
    run.error = "engine error: ValueError: synthetic"
    run.save()
    execution.refresh_experiment(experiment.pk)
    html = Client().get(f"/e/{experiment.public_id}/").content.decode()
    assert 'id="failures"' in html and "synthetic" in html
    assert 'id="summary-table"' in html and "figures-data" in html


def test_no_shell_eval_or_pickle_in_application_code():
    pattern = re.compile(r"\b(eval|exec)\(|shell=True|os\.system\(|pickle\.loads?\(")
    offenders = []
    for package in ("hetsite", "frontend", "scheduling", "uav"):
        for path in (ROOT / package).rglob("*.py"):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line) and not line.lstrip().startswith("#"):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_admin_lists_filters_and_exports(experiment):
    User.objects.create_superuser("boss", password="pw-123456789")
    client = Client()
    client.login(username="boss", password="pw-123456789")
    listing = client.get("/admin/hetsite/run/?status__exact=done&experiment__kind=uav")
    assert listing.status_code == 200 and "meta+pf" in listing.content.decode()
    response = client.post("/admin/hetsite/experiment/", {
        "action": "export_csv", "_selected_action": [experiment.pk]})
    rows = response.getvalue().decode().splitlines()
    assert rows[0].startswith("kind,experiment,run,policy") and len(rows) == 3
    response = client.post("/admin/hetsite/experiment/", {
        "action": "rerun", "_selected_action": [experiment.pk]}, follow=True)
    assert Experiment.objects.count() == 2
    again = Experiment.objects.exclude(pk=experiment.pk).get()
    assert again.status == Status.DONE and again.name.endswith("(re-run)")
