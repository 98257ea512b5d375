"""Two workers that share nothing but PostgreSQL and Redis, as on two machines.

Each worker runs in its own working directory with its own home, temporary, media and trace
cache folders; the web side (this process) keeps uploads in the database. An uploaded trace and
a library trace are swept in one experiment: its runs spread over both workers, each worker
reads the upload from the database into its own cache, and every result equals the one a single
worker computes for the same (scenario, policy, seed).
"""

import gzip
import hashlib
import json
import os
import signal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from hetsite.models import Experiment, Run, Status, Upload
from hetsite.selectors import result_json
from simcore.traces import LIBRARY_DIR

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]

POLICIES = ["fcfs", "easy", "conservative"]
# A trace of our own: the library's small Lublin trace without its first 100 jobs, compressed.
_LINES = (LIBRARY_DIR / "lublin_256_small.swf").read_bytes().splitlines(keepends=True)
_HEADER = [line for line in _LINES if line.startswith(b";")]
_JOBS = [line for line in _LINES if line.strip() and not line.startswith(b";")]
UPLOAD = gzip.compress(b"".join(_HEADER + _JOBS[100:]))


def machine(root, name):
    """Every folder a worker may write, private to it (what a separate machine would have)."""
    base = root / name
    folders = {key: base / key for key in ("cwd", "home", "tmp", "media", "cache")}
    for folder in folders.values():
        folder.mkdir(parents=True)
    env = {"HOME": folders["home"], "TMPDIR": folders["tmp"], "MEDIA_ROOT": folders["media"],
           "HETSITE_TRACE_UPLOAD_DIR": folders["media"] / "traces",
           "HETSITE_TRACE_CACHE_DIR": folders["cache"], "STATIC_ROOT": base / "static",
           "SECRET_KEY": "share-nothing-" + "k" * 40}
    return folders, env


def wait_done(ids, wait_for):
    wait_for(lambda: not Run.objects.filter(experiment__public_id__in=ids).exclude(
        status__in=[Status.DONE, Status.FAILED, Status.CANCELLED]).exists(), 240,
        "every run to end")
    runs = list(Run.objects.filter(experiment__public_id__in=ids))
    assert {r.status for r in runs} == {Status.DONE}, [r.error for r in runs]
    return runs


def comparable(run):
    data = json.loads(result_json(Run.objects.get(pk=run.pk)))
    data.pop("timing")
    data["meta"].pop("code_version")
    return data


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_two_share_nothing_workers_split_an_experiment_and_match_one_worker(
        database, live_celery, start_worker, settings, tmp_path, load_sibling, wait_for):
    web_folders, _ = machine(tmp_path, "web")
    settings.HETSITE_TRACE_UPLOAD_DIR = web_folders["media"] / "traces"
    settings.HETSITE_TRACE_CACHE_DIR = web_folders["cache"]
    workers = {}
    for name in ("a", "b"):
        folders, env = machine(tmp_path, name)
        proc = start_worker(concurrency=1, name=name, cwd=folders["cwd"], **env)
        workers[name] = {"proc": proc, "folders": folders, "log": tmp_path / f"worker-{name}.log"}

    # The upload goes through the form and is replayed at once (experiment 1) ...
    form_post = load_sibling(__file__.replace("test_share_nothing_workers", "test_trace_upload"),
                             "trace_upload_helpers").post
    response = form_post(Client(), upload=SimpleUploadedFile("mine.swf.gz", UPLOAD))
    assert response.status_code == 302, response.content.decode()[:2000]
    upload = f"upload:{hashlib.sha256(UPLOAD).hexdigest()}"
    first = Experiment.objects.get()
    assert first.scenario.params["trace"] == upload
    assert Upload.objects.filter(sha256=upload[7:]).exists()
    # ... and swept against a library trace in one experiment through the API (experiment 2).
    sweep = {"kind": "swf-replay", "params": {"trace": "lublin_256_small"},
             "axes": [{"param": "trace", "values": ["lublin_256_small", upload]}],
             "policies": POLICIES, "trials": 1, "base_seed": 11}
    response = APIClient().post("/api/experiments/", sweep, format="json")
    assert response.status_code == 202, response.content
    second = Experiment.objects.get(public_id=response.json()["id"])
    shared = wait_done([first.public_id, second.public_id], wait_for)
    assert len(shared) == 2 + 6

    def ran_on(run):
        """The worker whose log names the run's task (each worker logs the tasks it ran)."""
        assert run.celery_id
        found = [name for name, w in workers.items() if run.celery_id in w["log"].read_text()]
        assert len(found) == 1, (run, found)
        return found[0]

    # The runs spread over both workers, which keep one run each at a time (which worker takes
    # which run is the broker's choice: one long upload replay may keep a worker busy while
    # the other takes all of the sweep).
    placed = {run.pk: ran_on(run) for run in shared}
    assert set(placed.values()) == {"a", "b"}
    for name, w in workers.items():
        ran_upload = any(placed[r.pk] == name and (r.experiment_id == first.pk or r.point == 1)
                         for r in shared)
        cached = sorted(p.name for p in w["folders"]["cache"].iterdir())
        assert cached == ([f"{upload[7:]}.gz"] if ran_upload else []), (name, cached)
        assert not any(w["folders"]["media"].iterdir())  # no upload folder is involved
    assert not any(web_folders["media"].iterdir())  # nor on the web side
    assert not any(web_folders["cache"].iterdir())  # which never needed the file itself

    # The same experiments again on worker a alone.
    b = workers.pop("b")["proc"]
    os.killpg(b.pid, signal.SIGTERM)  # warm shutdown: it has nothing left to finish
    b.wait(60)
    alone_ids = []
    for experiment, axes in ((first, []), (second, sweep["axes"])):
        body = {"kind": "swf-replay", "params": experiment.scenario.params, "axes": axes,
                "policies": experiment.policies, "trials": 1,
                "base_seed": experiment.base_seed}
        response = APIClient().post("/api/experiments/", body, format="json")
        assert response.status_code == 202, response.content
        alone_ids.append(response.json()["id"])
    alone = wait_done(alone_ids, wait_for)
    assert len(alone) == len(shared)
    assert {ran_on(run) for run in alone} == {"a"}
    key = {run.pk: (0 if run.experiment_id == first.pk else 1, run.point, run.policy, run.trial)
           for run in shared}
    by_key = {key[r.pk]: r for r in shared}
    for run in alone:
        index = 0 if str(run.experiment.public_id) == alone_ids[0] else 1
        twin = by_key[(index, run.point, run.policy, run.trial)]
        assert (run.seed, run.overrides) == (twin.seed, twin.overrides)
        assert comparable(run) == comparable(twin), run
    for experiment, alone_id in zip((first, second), alone_ids, strict=True):
        experiment.refresh_from_db()
        assert Experiment.objects.get(public_id=alone_id).summary == experiment.summary
