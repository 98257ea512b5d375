"""Trace replay from the web form: library traces and uploaded SWF files."""

import gzip
import hashlib

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from hetsite.models import Experiment, Status, Upload
from hetsite.uploads import DatabaseStore, FolderStore

# Transactional: runs are dispatched when the experiment commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)

GOOD = b"""; MaxNodes: 4
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1
2 5 -1 50 4 -1 -1 4 60 -1 1 1 1 1 1 -1 -1 -1
3 6 -1 10 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1
"""


@pytest.fixture
def uploads(settings, tmp_path):
    """The upload folder (used by the folder store only) and the database store's cache."""
    settings.HETSITE_TRACE_UPLOAD_DIR = tmp_path / "traces"
    settings.HETSITE_TRACE_CACHE_DIR = tmp_path / "cache"
    return tmp_path / "traces"


def post(client, trace="lublin_256_small", upload=None, **extra):
    data = {"p.trace": trace, "policies": ["fcfs", "easy"], "trials": 1, "base_seed": 0,
            "p.cores_per_node": 1, "p.estimate_scale": 1.0, "p.use_requested_time": "on",
            "p.job_limit": 0, "p.bsld_tau": 10.0, "p.series_points": 3000, **extra}
    if upload is not None:
        data["trace_file"] = upload
    return client.post("/new/swf-replay/", data)


def test_library_trace_runs(uploads):
    response = post(Client())
    assert response.status_code == 302, response.content.decode()[:2000]
    experiment = Experiment.objects.get()
    assert experiment.status == Status.DONE
    assert experiment.scenario.params["trace"] == "lublin_256_small"


@pytest.mark.parametrize("compress", [False, True])
def test_uploaded_trace_is_stored_in_the_database_by_content_and_replayed(uploads, settings,
                                                                         compress):
    payload = gzip.compress(GOOD) if compress else GOOD
    response = post(Client(), upload=SimpleUploadedFile("mine.swf", payload))
    assert response.status_code == 302, response.content.decode()[:2000]
    experiment = Experiment.objects.get()
    trace = experiment.scenario.params["trace"]
    assert trace == "upload:" + hashlib.sha256(payload).hexdigest()
    row = Upload.objects.get()
    assert row.sha256 == trace[7:] and row.size == len(payload) and row.records == 3
    assert (row.accepts, row.name) == ("swf", "mine.swf")  # the input's tag, the file's name
    assert bytes(row.data)[:2] == b"\x1f\x8b"  # compressed, whatever was uploaded
    assert gzip.decompress(bytes(row.data)) == GOOD
    assert not uploads.exists()  # no folder is involved
    run = experiment.runs.get(policy="fcfs")
    assert run.status == Status.DONE and run.summary["jobs_total"] == 3
    # The worker (eager here) wrote the trace into its own cache to read it.
    assert [p.name for p in settings.HETSITE_TRACE_CACHE_DIR.iterdir()] == [
        f"{row.sha256}.gz"]


def test_another_worker_materializes_an_upload_from_the_database_alone(uploads, tmp_path):
    post(Client(), upload=SimpleUploadedFile("mine.swf", GOOD))
    sha = hashlib.sha256(GOOD).hexdigest()
    elsewhere = DatabaseStore(tmp_path / "other-machine")
    path = elsewhere.locate(sha)
    assert path == tmp_path / "other-machine" / f"{sha}.gz"
    assert gzip.decompress(path.read_bytes()) == GOOD
    assert elsewhere.locate("0" * 64) is None
    assert not any(p.name.startswith(".fetch-") for p in path.parent.iterdir())


def test_the_same_file_uploaded_twice_is_stored_once(uploads):
    for name in ("a.swf", "b.swf"):
        assert post(Client(), upload=SimpleUploadedFile(name, GOOD)).status_code == 302
    assert Upload.objects.count() == 1
    assert Experiment.objects.count() == 2


def test_folder_store_keeps_files_in_the_upload_folder(uploads, settings):
    settings.HETSITE_TRACE_STORE = "folder"
    response = post(Client(), upload=SimpleUploadedFile("mine.swf.gz", gzip.compress(GOOD)))
    assert response.status_code == 302, response.content.decode()[:2000]
    trace = Experiment.objects.get().scenario.params["trace"]
    sha = trace[7:]  # and, hidden, what its check counted
    assert sorted(p.name for p in uploads.iterdir()) == [f".{sha}.records", f"{sha}.swf.gz"]
    assert Upload.objects.count() == 0
    assert Experiment.objects.get().runs.get(policy="fcfs").status == Status.DONE


def test_folder_store_finds_a_file_by_any_suffix_its_check_gave(tmp_path):
    """The site knows no file format: a kind's own suffix is found and deleted like .swf."""
    source = tmp_path / "upload"
    source.write_bytes(b"3\n4\n")
    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    store = FolderStore(tmp_path / "uploads")
    store.save(sha, source, records=2, suffix=".sizes")
    assert store.locate(sha) == tmp_path / "uploads" / f"{sha}.sizes"
    assert store.info(sha).size == 4 and store.locate("0" * 64) is None
    assert store.locate("../" + sha) is None  # only a SHA-256 names a file
    store.delete(sha)
    assert store.locate(sha) is None and not any((tmp_path / "uploads").iterdir())


def test_submitting_an_upload_that_does_not_exist_is_refused_naming_the_trace(uploads):
    missing = "upload:" + "c" * 64
    response = APIClient().post("/api/experiments/", {
        "kind": "swf-replay", "params": {"trace": missing}, "policies": ["fcfs"],
        "trials": 1}, format="json")
    assert response.status_code == 400
    assert "upload the file first" in response.json()["params.trace"][0]
    assert Experiment.objects.count() == 0


def test_migration_imports_the_files_of_the_old_upload_folder(uploads, settings):
    """Earlier versions kept uploads as files; migrating copies the valid ones into the
    database and leaves everything else alone."""
    uploads.mkdir()
    plain, packed = GOOD, gzip.compress(GOOD.replace(b"100 2", b"101 2"))
    good = {hashlib.sha256(plain).hexdigest() + ".swf": plain,
            hashlib.sha256(packed).hexdigest() + ".swf.gz": packed}
    for name, data in good.items():
        (uploads / name).write_bytes(data)
    (uploads / ("d" * 64 + ".swf")).write_bytes(GOOD)  # content does not match its name
    bad = GOOD + b"4 7 -1 ten 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1\n"
    (uploads / (hashlib.sha256(bad).hexdigest() + ".swf")).write_bytes(bad)  # not a trace
    (uploads / ".upload-x1y2").write_bytes(GOOD)  # a leftover temporary file
    call_command("migrate", "hetsite", "0002", verbosity=0)
    call_command("migrate", "hetsite", verbosity=0)
    rows = {r.sha256: r for r in Upload.objects.all()}
    assert set(rows) == {name.split(".")[0] for name in good}
    for name, data in good.items():
        row = rows[name.split(".")[0]]
        original = gzip.decompress(data) if name.endswith(".gz") else data
        assert gzip.decompress(bytes(row.data)) == original
        assert row.size == len(data) and row.records == 3
        # Imported by migration 0004 and kept by 0008's rename, from before tags were kept.
        assert (row.accepts, row.name) == ("", "")
    assert len(list(uploads.iterdir())) == 5  # nothing deleted
    # An imported upload replays like a new one, for staff: no experiment names it and it has
    # no owner, so nobody else may use it (migration 0006).
    sha = hashlib.sha256(plain).hexdigest()
    assert post(Client(), trace=f"upload:{sha}").status_code == 400
    User.objects.create_superuser("boss", password="pw-123456789")
    staff = Client()
    staff.login(username="boss", password="pw-123456789")
    response = post(staff, trace=f"upload:{sha}")
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Experiment.objects.get().runs.get(policy="fcfs").summary["jobs_total"] == 3


def test_bad_upload_names_line_and_field_and_keeps_nothing(uploads):
    bad = GOOD + b"4 7 -1 ten 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1\n"
    response = post(Client(), upload=SimpleUploadedFile("bad.swf", bad))
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-field="trace_file"' in html and "6:run_time" in html
    assert Experiment.objects.count() == 0
    assert not uploads.exists() or not any(uploads.iterdir())
    assert Upload.objects.count() == 0


def test_oversized_upload_is_refused(uploads, settings):
    settings.HETSITE_MAX_TRACE_BYTES = 64
    response = post(Client(), upload=SimpleUploadedFile("big.swf", GOOD))
    assert response.status_code == 400
    assert "upload limit of 64 bytes" in response.content.decode()
    assert Experiment.objects.count() == 0


def test_path_like_trace_names_are_rejected(uploads):
    response = post(Client(), trace="../../etc/passwd")
    assert response.status_code == 400
    assert Experiment.objects.count() == 0


def test_an_unknown_trace_store_is_refused_at_startup():
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, HETSITE_TRACE_STORE="s3", DJANGO_SETTINGS_MODULE="hetsite.settings")
    out = subprocess.run([sys.executable, "-c", "import django; django.setup()"],
                         cwd=Path(__file__).resolve().parents[2], env=env,
                         capture_output=True, text=True)
    assert out.returncode != 0
    assert "HETSITE_TRACE_STORE must be 'database' or 'folder', not 's3'" in out.stderr
