"""Private means private for scenarios and uploads too (issue 27, items 4 and 5).

The issue's path: ``GET /api/scenarios/`` listed every experiment's parameters, a stranger took
``upload:<sha>`` of a private experiment's trace from it, ran his own experiment on it and read
its jobs. Here: scenarios are listed and read as their experiments are, and paged; an upload is
usable by its owners and through experiments the caller may read, deletable by its owner, and
removed with the last experiment that uses it.
"""

import hashlib
import json

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from hetsite.models import Experiment, Scenario, Upload
from hetsite.uploads import DatabaseStore

pytestmark = pytest.mark.django_db(transaction=True)

SWF = b"""; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1
2 5 -1 50 4 -1 -1 4 60 -1 1 1 1 1 1 -1 -1 -1
"""
SHA = hashlib.sha256(SWF).hexdigest()


@pytest.fixture(autouse=True)
def trace_cache(settings, tmp_path):
    settings.HETSITE_TRACE_CACHE_DIR = tmp_path / "cache"


def upload_through_form(client, visibility="private", payload=SWF):
    """The owner's browser: the replay form with an uploaded trace."""
    response = client.post("/new/swf-replay/", {
        "p.trace": "lublin_256_small", "policies": ["fcfs"], "trials": 1, "base_seed": 0,
        "p.cores_per_node": 1, "p.estimate_scale": 1.0, "p.use_requested_time": "on",
        "p.job_limit": 0, "p.bsld_tau": 10.0, "p.series_points": 3000,
        "visibility": visibility, "trace_file": SimpleUploadedFile("mine.swf", payload)})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Experiment.objects.get(public_id=response["Location"].split("/")[-2])


def replay(client, trace, **extra):
    """An experiment on a trace through the API (a Django or DRF test client)."""
    body = {"kind": "swf-replay", "params": {"trace": trace}, "policies": ["fcfs"],
            "trials": 1, **extra}
    return client.post("/api/experiments/", json.dumps(body), content_type="application/json")


def test_a_stranger_cannot_find_or_use_a_private_experiments_upload():
    owner = Client()
    mine = upload_through_form(owner)
    assert mine.scenario.params["trace"] == f"upload:{SHA}"
    stranger = APIClient()
    listed = json.dumps(stranger.get("/api/scenarios/").json())
    assert SHA not in listed and str(mine.scenario.public_id) not in listed
    assert stranger.get(f"/api/scenarios/{mine.scenario.public_id}/").status_code == 404
    response = replay(stranger, f"upload:{SHA}")
    assert response.status_code == 400
    # The same answer as for a file that does not exist: the SHA-256 reveals nothing.
    assert response.json()["params.trace"] == [
        f"no uploaded file has the SHA-256 {SHA}; upload the file first"]
    assert Experiment.objects.count() == 1
    # Nor through a sweep axis, nor as a parallel-energy trace or a many-task run-time file.
    sweep = stranger.post("/api/experiments/", {
        "kind": "swf-replay", "params": {"trace": "lublin_256_small"}, "policies": ["fcfs"],
        "trials": 1, "axes": [{"param": "trace", "values": ["lublin_256_small",
                                                             f"upload:{SHA}"]}]},
        format="json")
    assert sweep.status_code == 400 and "axes" in sweep.json()
    runtimes = stranger.post("/api/experiments/", {
        "kind": "many-task", "preset": "many-task-small", "policies": ["random"], "trials": 1,
        "params": {"workload": {"source": "runtimes", "runtimes": f"upload:{SHA}"}}},
        format="json")
    assert runtimes.status_code == 400 and "params.workload.runtimes" in runtimes.json()
    # The owner reuses it.
    assert replay(owner, f"upload:{SHA}").status_code == 202


def test_an_upload_is_usable_through_an_experiment_the_caller_may_read():
    owner = Client()
    mine = upload_through_form(owner, visibility="unlisted")
    stranger = APIClient()  # has the link: may read it, so may rerun its trace
    assert stranger.get(f"/api/experiments/{mine.public_id}/").status_code == 200
    assert replay(stranger, f"upload:{SHA}").status_code == 202
    # Once the owner makes it private, that way is closed (the stranger's own experiment is
    # now one more way, for whoever may read that one).
    Experiment.objects.filter(pk=mine.pk).update(visibility="private")
    other = APIClient()
    theirs = Experiment.objects.exclude(pk=mine.pk).get()
    Experiment.objects.filter(pk=theirs.pk).update(visibility="private")
    assert replay(other, f"upload:{SHA}").status_code == 400


def test_scenarios_are_listed_as_their_experiments_are_and_paged():
    alice, bob = APIClient(), APIClient()
    for i in range(27):
        assert alice.post("/api/scenarios/", {"kind": "uav", "name": f"mine {i}",
                                              "preset": "small-baseline"},
                          format="json").status_code == 201
    public = alice.post("/api/experiments/", {
        "kind": "uav", "preset": "small-baseline", "params": {"uavs_mean": 4},
        "policies": ["random"], "trials": 1, "visibility": "public"}, format="json").json()
    private = alice.post("/api/experiments/", {
        "kind": "uav", "preset": "small-baseline", "params": {"uavs_mean": 5},
        "policies": ["random"], "trials": 1, "visibility": "private"}, format="json").json()
    first = alice.get("/api/scenarios/")
    assert first["X-Total-Count"] == "29" and len(first.json()) == 25
    assert 'rel="next"' in first["Link"]
    second = alice.get("/api/scenarios/?page=2")
    assert len(second.json()) == 4 and "Link" not in second
    assert not {s["id"] for s in first.json()} & {s["id"] for s in second.json()}
    assert alice.get("/api/scenarios/?page=3").status_code == 404
    # A stranger sees the public experiment's scenario, nothing else of Alice's.
    seen = {s["id"] for s in bob.get("/api/scenarios/").json()}
    assert seen == {public["scenario"]["id"]}
    assert bob.get(f"/api/scenarios/{private['scenario']['id']}/").status_code == 404
    assert bob.get(f"/api/scenarios/{public['scenario']['id']}/").status_code == 200
    # Staff see everything.
    User.objects.create_superuser("boss", password="pw-123456789")
    staff = APIClient()
    staff.login(username="boss", password="pw-123456789")
    assert staff.get("/api/scenarios/")["X-Total-Count"] == str(Scenario.objects.count())


def test_uploads_are_listed_for_their_owner_and_removed_with_the_last_experiment():
    owner = Client()
    first = upload_through_form(owner)
    second = Experiment.objects.get(public_id=replay(owner, f"upload:{SHA}").json()["id"])
    rows = owner.get("/api/uploads/").json()
    assert [(r["sha256"], r["jobs"], r["size"], r["experiments"]) for r in rows] == [
        (SHA, 2, len(SWF), 2)]
    assert APIClient().get("/api/uploads/").json() == []
    # Deleting one experiment keeps the upload for the other; the last one takes it along.
    assert owner.delete(f"/api/experiments/{first.public_id}/").status_code == 204
    assert Upload.objects.filter(sha256=SHA).exists()
    assert owner.delete(f"/api/experiments/{second.public_id}/").status_code == 204
    assert not Upload.objects.filter(sha256=SHA).exists()
    assert owner.get("/api/uploads/").json() == []


def test_staff_deleting_experiments_in_the_admin_removes_their_uploads():
    upload_through_form(Client())
    User.objects.create_superuser("boss", password="pw-123456789")
    staff = Client()
    staff.login(username="boss", password="pw-123456789")
    response = staff.post("/admin/hetsite/experiment/", {
        "action": "delete_selected", "post": "yes",
        "_selected_action": list(Experiment.objects.values_list("pk", flat=True))})
    assert response.status_code == 302
    assert not Experiment.objects.exists() and not Upload.objects.exists()
    assert not Scenario.objects.filter(is_preset=False).exists()


def test_the_owner_deletes_an_upload_and_no_worker_serves_it_again(settings, tmp_path):
    owner = Client()
    mine = upload_through_form(owner, visibility="unlisted")
    cached = DatabaseStore(settings.HETSITE_TRACE_CACHE_DIR)
    assert cached.locate(SHA) is not None  # the (eager) worker wrote it into its cache
    stranger = APIClient()
    assert stranger.delete(f"/api/uploads/{SHA}/").status_code == 404
    assert owner.delete(f"/api/uploads/{SHA}/").status_code == 204
    assert not Upload.objects.filter(sha256=SHA).exists()
    assert cached.locate(SHA) is None
    assert not (settings.HETSITE_TRACE_CACHE_DIR / f"{SHA}.gz").exists()
    # The experiment stays, with its results; its trace can no longer be named.
    assert Experiment.objects.filter(pk=mine.pk).exists()
    assert replay(owner, f"upload:{SHA}").status_code == 400
    assert replay(stranger, f"upload:{SHA}").status_code == 400


def test_the_same_bytes_uploaded_by_two_people_survive_one_of_them_deleting():
    alice, bob = Client(), Client()
    upload_through_form(alice)
    upload_through_form(bob)
    assert Upload.objects.count() == 1
    assert alice.delete(f"/api/uploads/{SHA}/").status_code == 204
    assert Upload.objects.filter(sha256=SHA).exists()
    assert replay(bob, f"upload:{SHA}", visibility="private").status_code == 202
    # Alice's experiment no longer makes it usable for her; Bob's are private.
    assert replay(alice, f"upload:{SHA}").status_code == 400


def test_logging_in_adopts_uploads_and_saved_scenarios():
    browser = Client()
    upload_through_form(browser)
    saved = browser.post("/api/scenarios/", json.dumps(
        {"kind": "uav", "name": "later", "preset": "small-baseline"}),
        content_type="application/json").json()
    User.objects.create_user("ada", password="pw-123456789")
    assert browser.post("/accounts/login/", {"username": "ada", "password": "pw-123456789"}
                        ).status_code == 302
    elsewhere = Client()
    elsewhere.login(username="ada", password="pw-123456789")
    assert [r["sha256"] for r in elsewhere.get("/api/uploads/").json()] == [SHA]
    assert elsewhere.get(f"/api/scenarios/{saved['id']}/").status_code == 200
    assert replay(elsewhere, f"upload:{SHA}").status_code == 202
