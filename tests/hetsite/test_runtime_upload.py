"""many-task from the web form: uploaded run-time lists and SWF files, stored by content."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from hetsite.models import Experiment, Status

# Transactional: runs are dispatched when the experiment commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)

SWF = b"""; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1
2 5 -1 50 4 -1 -1 4 60 -1 1 1 1 1 1 -1 -1 -1
3 6 -1 10 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1
"""


@pytest.fixture
def uploads(settings, tmp_path):
    """The folder store, so the stored files can be looked at (the database store, the
    default, is covered for both upload kinds by test_database_store_keeps_run_time_lists)."""
    settings.HETSITE_TRACE_STORE = "folder"
    settings.HETSITE_TRACE_UPLOAD_DIR = tmp_path / "traces"
    return tmp_path / "traces"


def post(client, upload=None, **extra):
    data = {"policies": ["random", "sorted+chop"], "trials": 2, "base_seed": 0,
            "preset": "many-task-small", "p.workload.source": "real15k",
            "p.workload.tasks": 200, "p.workload.mean_s": 700.0, "p.workload.cov": 0.5,
            "p.workload.runtimes": "lublin_256_small", "p.workload.scale": 1.0,
            "p.workload.instance_seed": 0, "p.machine.startup_s": 170.0,
            "p.machine.teardown_s": 2.4, "p.machine.requeue_wait_s": 0.0,
            "p.machine.teardown_first": "on", "p.chop.r": 5.0, "p.chop.f": 0.5,
            "p.output.series_points": 2000, "p.output.task_records": 20000,
            "p.output.histogram_bins": 60, **extra}
    if upload is not None:
        data["runtimes_file"] = upload
    return client.post("/new/many-task/", data)


def test_new_form_suggests_the_papers_hundred_trials():
    page = Client().get("/new/many-task/?preset=fig6-synth15k")
    assert page.status_code == 200
    assert 'name="trials"' in page.content.decode()
    assert page.context["form"].initial["trials"] == 100


def test_library_workload_runs(uploads):
    response = post(Client())
    assert response.status_code == 302, response.content.decode()[:3000]
    experiment = Experiment.objects.get()
    assert experiment.status == Status.DONE
    run = experiment.runs.get(policy="random", trial=0)
    assert run.summary["tasks"] == 200 and run.dist["hist"]["counts"]


def test_uploaded_list_switches_the_source_and_runs(uploads):
    body = b"# my tasks\n" + b"\n".join(str(10 + i % 7).encode() for i in range(50)) + b"\n"
    response = post(Client(), upload=SimpleUploadedFile("mine.txt", body),
                    **{"p.workload.tasks": ""})
    assert response.status_code == 302, response.content.decode()[:3000]
    experiment = Experiment.objects.get()
    params = experiment.scenario.params["workload"]
    assert params["source"] == "runtimes" and params["runtimes"].startswith("upload:")
    sha = params["runtimes"][7:]
    assert sorted(p.name for p in uploads.iterdir()) == [f".{sha}.records", f"{sha}.txt"]
    run = experiment.runs.get(policy="random", trial=0)
    assert run.status == Status.DONE and run.summary["tasks"] == 50
    assert run.summary["useful_cpu_h"] * 3600 == pytest.approx(
        sum(10 + i % 7 for i in range(50)))


def test_uploaded_swf_uses_its_run_time_column(uploads):
    response = post(Client(), upload=SimpleUploadedFile("t.swf", SWF),
                    **{"p.workload.tasks": ""})
    assert response.status_code == 302, response.content.decode()[:3000]
    run = Experiment.objects.get().runs.get(policy="sorted+chop", trial=0)
    assert run.summary["tasks"] == 3 and run.summary["runtime_max_s"] == 100.0


def test_bad_upload_names_the_line_and_keeps_nothing(uploads):
    response = post(Client(), upload=SimpleUploadedFile("bad.txt", b"1\n2\nabc\n"))
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-field="runtimes_file"' in html and "3:" in html
    assert Experiment.objects.count() == 0
    assert not uploads.exists() or not any(uploads.iterdir())


def test_too_many_tasks_are_refused(uploads, settings):
    settings.HETSITE_LIMITS = {**settings.HETSITE_LIMITS, "many_tasks": 100}
    response = post(Client())
    assert response.status_code == 400
    assert "many_tasks" in response.content.decode()
    assert Experiment.objects.count() == 0


def test_database_store_keeps_run_time_lists(settings, tmp_path):
    from hetsite.models import Upload

    settings.HETSITE_TRACE_STORE = "database"
    settings.HETSITE_TRACE_CACHE_DIR = tmp_path / "cache"
    body = b"\n".join(str(20 + i % 5).encode() for i in range(40)) + b"\n"
    response = post(Client(), upload=SimpleUploadedFile("mine.txt", body),
                    **{"p.workload.tasks": ""})
    assert response.status_code == 302, response.content.decode()[:3000]
    experiment = Experiment.objects.get()
    sha = experiment.scenario.params["workload"]["runtimes"][7:]
    row = Upload.objects.get(sha256=sha)
    assert row.size == len(body) and row.records == 40
    assert (row.accepts, row.name) == ("runtimes", "mine.txt")
    assert experiment.status == Status.DONE
    assert experiment.runs.get(policy="random", trial=0).summary["tasks"] == 40
