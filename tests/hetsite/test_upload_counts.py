"""What an uploaded trace's job count drives: its price, whichever store keeps it, and the
facts a scenario's page shows, which read the trace's header and the stored count and never
parse the whole file (a 500,000-job upload took 4 s and 700 MB of the web process per
view, outside audit)."""

import gzip

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from hetsite import kinds
from hetsite.models import Experiment
from scheduling.hpc import traces

pytestmark = pytest.mark.django_db(transaction=True)
JOBS = 3000


def trace(jobs: int = JOBS) -> bytes:
    lines = [b"; MaxNodes: 64\n"]
    lines += [f"{i} {i} -1 {10 + i % 90} {1 + i % 8} -1 -1 {1 + i % 8} 200 -1 1 1 1 1 1 -1 -1 -1\n"
              .encode() for i in range(1, jobs + 1)]
    return gzip.compress(b"".join(lines))


@pytest.fixture
def store(request, settings, tmp_path):
    settings.HETSITE_TRACE_STORE = request.param
    settings.HETSITE_TRACE_UPLOAD_DIR = tmp_path / "traces"
    settings.HETSITE_TRACE_CACHE_DIR = tmp_path / "cache"
    return tmp_path / "traces"


def upload(client=None) -> Experiment:
    data = {"p.trace": "lublin_256_small", "policies": ["fcfs"], "trials": 1, "base_seed": 0,
            "p.cores_per_node": 1, "p.estimate_scale": 1.0, "p.use_requested_time": "on",
            "p.job_limit": 0, "p.bsld_tau": 10.0, "p.series_points": 3000,
            "trace_file": SimpleUploadedFile("mine.swf.gz", trace())}
    response = (client or Client()).post("/new/swf-replay/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return Experiment.objects.get()


def by_reference(ref: str, **params) -> Experiment:
    response = APIClient().post("/api/experiments/", {
        "kind": "swf-replay", "params": {"trace": ref, **params}, "policies": ["fcfs"],
        "trials": 1}, format="json")
    assert response.status_code == 202, response.content
    return Experiment.objects.order_by("-pk").first()


def work(experiment: Experiment) -> int:
    return kinds.get_kind("swf-replay").work(experiment.scenario.params)


@pytest.mark.parametrize("store", ["database", "folder"], indirect=True)
def test_an_upload_named_again_is_priced_at_its_jobs_in_either_store(store):
    first = upload()
    again = by_reference(first.scenario.params["trace"])
    assert work(first) == work(again) == JOBS
    assert again.estimate_s == pytest.approx(first.estimate_s)


@pytest.mark.parametrize("store", ["database"], indirect=True)
def test_a_job_limit_prices_the_jobs_it_replays(store):
    ref = upload().scenario.params["trace"]
    assert work(by_reference(ref, job_limit=10)) == 10
    assert work(by_reference(ref, job_limit=10 * JOBS)) == JOBS  # the trace has no more
    assert work(by_reference("lublin_256_small", job_limit=10 ** 7)) == len(
        traces.TraceLibrary().load("lublin_256_small").columns["job_id"])


@pytest.mark.parametrize("store", ["folder"], indirect=True)
def test_a_file_the_folder_store_did_not_count_is_priced_at_the_sites_limit(store, settings):
    settings.HETSITE_MAX_TRACE_JOBS = 50_000
    experiment = upload()
    sha = experiment.scenario.params["trace"][7:]
    (store / f".{sha}.records").unlink()  # as a file put there by hand or an earlier version
    again = by_reference(f"upload:{sha}")
    assert work(again) == 50_000 and again.estimate_s > 2 * experiment.estimate_s
    page = Client().get(f"/e/{again.public_id}/").content.decode()
    assert "not counted by this site&#x27;s store" in page or \
        "not counted by this site's store" in page


@pytest.mark.parametrize("store", ["database", "folder"], indirect=True)
def test_the_page_of_an_upload_reads_its_header_and_stored_count_only(store):
    experiment = upload()
    traces._load_file.cache_clear()  # the eager run parsed it in this process
    page = Client().get(f"/e/{experiment.public_id}/")
    assert page.status_code == 200
    facts = page.content.decode()
    assert f"{JOBS:,}" in facts and "64 nodes/processors" in facts
    assert traces._load_file.cache_info().currsize == 0  # no trace was parsed for the view
