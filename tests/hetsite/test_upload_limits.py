"""What an upload or a large body may cost the web process (issue 27, items 5 and 7).

Measured on the issue's stack: a 2 MB gzip bomb took 18 s of web CPU before the 500 MB cap, a
2M-job upload took 32 s and was stored although the form was rejected, a 120 MB upload was
written to /tmp in full before the 50 MB check, and 500 KB scenarios were stored 20 at a time.
"""

import gzip
import socket
from urllib.parse import urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from hetsite.models import Experiment, ExperimentUpload, Scenario, Upload, UploadOwner

pytestmark = pytest.mark.django_db(transaction=True)

LINE = b"1 0 -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1\n"


@pytest.fixture(autouse=True)
def trace_cache(settings, tmp_path):
    settings.HETSITE_TRACE_CACHE_DIR = tmp_path / "cache"


def post_replay(upload, **extra):
    data = {"p.trace": "lublin_256_small", "policies": ["fcfs"], "trials": 1, "base_seed": 0,
            "p.cores_per_node": 1, "p.estimate_scale": 1.0, "p.use_requested_time": "on",
            "p.job_limit": 0, "p.bsld_tau": 10.0, "p.series_points": 3000,
            "trace_file": upload, **extra}
    return Client().post("/new/swf-replay/", data)


def post_many_task(upload, **extra):
    data = {"preset": "many-task-small", "policies": ["random"], "trials": 1, "base_seed": 0,
            "p.workload.source": "real15k", "p.workload.runtimes": "lublin_256_small",
            "p.workload.tasks": "", "p.workload.mean_s": 700.0, "p.workload.cov": 0.5,
            "p.workload.scale": 1.0, "p.workload.instance_seed": 0,
            "p.machine.startup_s": 170.0, "p.machine.teardown_s": 2.4,
            "p.machine.requeue_wait_s": 0.0, "p.chop.r": 5.0, "p.chop.f": 0.5,
            "p.output.series_points": 2000, "p.output.task_records": 20000,
            "p.output.histogram_bins": 60, "runtimes_file": upload, **extra}
    return Client().post("/new/many-task/", data)


def field_error(response, field="trace_file") -> str:
    html = response.content.decode()
    assert f'data-field="{field}"' in html, html[:3000]
    return html


def test_a_body_larger_than_an_upload_is_refused_before_it_is_read(live_server):
    """120 MB announced, 100 bytes sent: the answer comes at once, nothing waits for the
    rest (on the old code the server sat reading it)."""
    url = urlsplit(live_server.url)
    with socket.create_connection((url.hostname, url.port), timeout=20) as sock:
        sock.sendall(b"POST /new/swf-replay/ HTTP/1.1\r\n"
                     + f"Host: {url.netloc}\r\n".encode()
                     + b"Content-Type: multipart/form-data; boundary=xyz\r\n"
                     + f"Content-Length: {120 * 1024 * 1024}\r\n\r\n".encode()
                     + b"--xyz\r\n" + b"0" * 93)
        reply = b""
        while b"takes at most" not in reply and (chunk := sock.recv(4096)):
            reply += chunk
        reply = reply.decode(errors="replace")
    assert reply.startswith("HTTP/1.1 413"), reply[:300]
    assert "at most 52,953,088" in reply  # the upload limit plus the form's own fields


def test_a_json_body_over_the_limit_is_413(settings):
    body = '{"kind": "uav", "name": "' + "x" * (settings.HETSITE_MAX_BODY_BYTES + 1) + '"}'
    response = APIClient().post("/api/scenarios/", body, content_type="application/json")
    assert response.status_code == 413
    assert Scenario.objects.count() == 0


def test_a_scenario_over_the_size_limit_is_refused_naming_it():
    """A 400 KB scenario (fits the body limit): refused with the setting named."""
    values = [round(100 + i * 0.001, 3) for i in range(40_000)]
    for path, extra in (("/api/scenarios/", {"name": "big"}),
                        ("/api/experiments/", {"policies": ["random"], "trials": 1})):
        response = APIClient().post(path, {
            "kind": "many-task", "preset": "many-task-small", **extra,
            "params": {"workload": {"source": "list", "values": values}}}, format="json")
        assert response.status_code == 400, response.content[:500]
        assert "HETSITE_MAX_SCENARIO_BYTES" in response.json()["params"][0]
    assert Scenario.objects.count() == 0 and Experiment.objects.count() == 0


def test_a_gzip_bomb_stops_at_its_ratio():
    """19 MB of job lines packed 400 to 1: decompression stops at 30 times the file."""
    bomb = gzip.compress(LINE * 400_000, compresslevel=9)
    assert len(bomb) * 300 < len(LINE) * 400_000
    html = field_error(post_replay(SimpleUploadedFile("bomb.swf.gz", bomb)))
    assert "HETSITE_MAX_TRACE_RATIO" in html and f"{30 * len(bomb):,}" in html
    assert Upload.objects.count() == 0 and Experiment.objects.count() == 0


def test_a_file_without_line_breaks_stops_at_the_line_limit():
    """8 MB of one byte repeated, no newline: refused after 64 KiB of it."""
    html = field_error(post_replay(SimpleUploadedFile("z.swf.gz",
                                                      gzip.compress(b"0" * 8_000_000))))
    assert "1: is longer than 65,536 bytes" in html
    assert Upload.objects.count() == 0


def test_checking_an_upload_stops_at_its_cpu_budget(settings):
    """A valid 150,000-job trace takes seconds to check; with a budget of 50 ms it is refused
    with the setting named, and nothing is kept."""
    settings.HETSITE_UPLOAD_CHECK_SECONDS = 0.05
    trace = b"; MaxProcs: 4\n" + b"".join(
        f"{i} {i} -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1\n".encode()
        for i in range(1, 150_001))
    html = field_error(post_replay(SimpleUploadedFile("long.swf", trace)))
    assert "HETSITE_UPLOAD_CHECK_SECONDS" in html
    assert Upload.objects.count() == 0


def test_an_upload_of_more_jobs_than_the_limit_is_refused_beside_its_field(settings):
    """HETSITE_MAX_TRACE_JOBS bounds what a worker holds replaying the file (1.5 kB a job at
    its peak; docs/reliability.md "Memory of a run")."""
    settings.HETSITE_MAX_TRACE_JOBS = 100
    html = field_error(post_replay(SimpleUploadedFile("t.swf", b"; MaxProcs: 4\n" + LINE * 101)))
    assert "has more than the max_jobs limit of 100 jobs" in html
    assert Upload.objects.count() == 0
    response = post_replay(SimpleUploadedFile("t.swf", b"; MaxProcs: 4\n" + LINE * 100))
    assert response.status_code == 302 and Upload.objects.count() == 1


@pytest.mark.parametrize("kind", ["swf-replay", "many-task"])
def test_a_valid_upload_in_a_rejected_form_is_not_stored(kind):
    """The form fails on another field: the file was checked but nothing is kept."""
    trace = b"; MaxProcs: 4\n" + LINE * 20
    if kind == "swf-replay":
        response = post_replay(SimpleUploadedFile("ok.swf", trace), policies=[])
        assert response.status_code == 400 and "choose at least one policy" in (
            response.content.decode())
    else:
        response = post_many_task(SimpleUploadedFile("r.txt", b"1\n2\n3\n"), trials=0)
        assert response.status_code == 400 and "greater than or equal to 1" in (
            response.content.decode())
    assert Upload.objects.count() == 0 and Experiment.objects.count() == 0


@pytest.mark.parametrize("store", ["database", "folder"])
@pytest.mark.parametrize("refusal", ["budget", "queue"])
def test_an_upload_in_a_submission_admission_refuses_is_not_stored(store, refusal, settings,
                                                                    tmp_path):
    """The file is checked and staged before the caller's budget and queue cap are: when
    admission then says no, the staged file is released, not left stored with no owner and
    no experiment. The same bytes already kept for someone else's experiment stay."""
    settings.HETSITE_TRACE_STORE = store
    settings.HETSITE_TRACE_UPLOAD_DIR = tmp_path / "uploads"
    kept = b"; MaxProcs: 4\n" + LINE * 3
    assert post_replay(SimpleUploadedFile("kept.swf", kept)).status_code == 302
    stored_before = sorted(p.name for p in (tmp_path / "uploads").glob("*")) if (
        store == "folder") else list(Upload.objects.values_list("sha256", flat=True))
    if refusal == "budget":
        settings.HETSITE_BUDGET_ANONYMOUS_S = 1e-6
    else:
        settings.HETSITE_QUEUE_CAP_ANONYMOUS = 0
    for payload in (b"; MaxProcs: 4\n" + LINE * 20, kept):
        response = post_replay(SimpleUploadedFile("new.swf", payload))
        assert response.status_code == (400 if refusal == "budget" else 429)
        html = response.content.decode()
        assert ("HETSITE_BUDGET_ANONYMOUS_S" if refusal == "budget"
                else "HETSITE_QUEUE_CAP_ANONYMOUS") in html
    stored_after = sorted(p.name for p in (tmp_path / "uploads").glob("*")) if (
        store == "folder") else list(Upload.objects.values_list("sha256", flat=True))
    assert len([n for n in stored_before if not n.startswith(".")]) == 1  # the file, its count
    assert stored_after == stored_before
    assert Experiment.objects.count() == 1
    assert ExperimentUpload.objects.count() == 1 and UploadOwner.objects.count() == 1


def test_an_uploaded_run_time_list_counts_against_the_task_limit(settings):
    """Its values were not counted before: a 2M-value upload escaped the many-task limits."""
    settings.HETSITE_LIMITS = {**settings.HETSITE_LIMITS, "many_tasks": 100}
    response = post_many_task(SimpleUploadedFile("r.txt", b"".join(b"%d\n" % (i + 1)
                                                                   for i in range(150))))
    assert response.status_code == 400
    assert "many_tasks" in response.content.decode()
    assert Upload.objects.count() == 0


@pytest.mark.parametrize("debug", [False, True])
def test_a_query_string_with_more_fields_than_django_parses_is_400_before_any_view(settings,
                                                                                   debug):
    # With DEBUG on, Django's own refusal came from each reader of the query, each rendering
    # the error page again: seconds for one request.
    settings.DEBUG = debug
    most = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    for path in ("/api/experiments/", "/compare/"):
        response = Client().get(path + "?" + "&".join(["action=held"] * (most + 1)))
        assert response.status_code == 400, path
        assert response.content.decode() == (f"The query string has {most + 1:,} fields; "
                                             f"this site takes at most {most:,} "
                                             "(DATA_UPLOAD_MAX_NUMBER_FIELDS).\n")
        assert Client().get(path + "?" + "&".join(["a=1"] * most)).status_code == 200
