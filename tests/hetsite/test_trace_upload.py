"""Trace replay from the web form: library traces and uploaded SWF files."""

import gzip

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from hetsite.models import Experiment, Status

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
    settings.HETSITE_TRACE_UPLOAD_DIR = tmp_path / "traces"
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
def test_uploaded_trace_is_stored_by_content_and_replayed(uploads, compress):
    payload = gzip.compress(GOOD) if compress else GOOD
    response = post(Client(), upload=SimpleUploadedFile("mine.swf", payload))
    assert response.status_code == 302, response.content.decode()[:2000]
    experiment = Experiment.objects.get()
    trace = experiment.scenario.params["trace"]
    assert trace.startswith("upload:") and len(trace) == 7 + 64
    stored = list(uploads.iterdir())
    assert [p.name.split(".")[0] for p in stored] == [trace[7:]]
    run = experiment.runs.get(policy="fcfs")
    assert run.status == Status.DONE and run.summary["jobs_total"] == 3


def test_bad_upload_names_line_and_field_and_keeps_nothing(uploads):
    bad = GOOD + b"4 7 -1 ten 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1\n"
    response = post(Client(), upload=SimpleUploadedFile("bad.swf", bad))
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-field="trace_file"' in html and "6:run_time" in html
    assert Experiment.objects.count() == 0
    assert not uploads.exists() or not any(uploads.iterdir())


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
