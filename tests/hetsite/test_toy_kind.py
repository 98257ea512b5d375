"""docs/engine.md's "Adding a kind", followed: a toy single-queue kind in a package of its own,
found through its entry point, shows in its command line, the API's kinds, the form and a
finished run, with no edit anywhere in the project."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from hetsite import kinds
from hetsite.models import Experiment, Status, Upload
from hetsite.services import submission
from simcore import lab as core_lab

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]

# The recipe's files, nothing more: the engine package (config, run, policies, presets) with
# its command line, its lab face, and the package's metadata naming the kind's entry point.
TOY = {
    "toy_queue/__init__.py": '''
        """A toy kind: one server, jobs arriving every ``gap_s``, served in the policy's order."""

        from simcore.clock import RunClock
        from simcore.params import param
        from simcore.registry import Engine, PolicyInfo, RunContext
        from simcore.result import Result
        from simcore.sampling import rng
        from dataclasses import dataclass

        ENGINE = Engine("toy", "toy_queue", kinds={"toy-queue": "toy_queue"})
        # The engine package's facade, as every engine package has it.
        simulate = ENGINE.simulate
        scenario = ENGINE.scenario
        scenario_from_dict = ENGINE.scenario_from_dict
        preset_scenario = ENGINE.preset_scenario
        list_kinds = ENGINE.list_kinds
        get_kind = ENGINE.get_kind
        list_policies = ENGINE.list_policies
        get_policy = ENGINE.get_policy
        list_presets = ENGINE.list_presets
        get_preset = ENGINE.get_preset


        @dataclass(frozen=True)
        class ToyConfig:
            jobs: int = param(20, min=1, max=1000, label="Jobs", help="jobs in the queue")
            gap_s: float = param(1.0, unit="s", min=0.0, label="Gap between arrivals")
            sizes: str = param("drawn", label="Job sizes", help="drawn, or an uploaded list")


        class QueuePolicy:
            """The toy kind's policy base: ``order(sizes)`` gives the order jobs are served in."""

            def order(self, sizes):
                raise NotImplementedError


        class Fifo(QueuePolicy):
            def order(self, sizes):
                return list(range(len(sizes)))


        class Shortest(QueuePolicy):
            def order(self, sizes):
                return sorted(range(len(sizes)), key=sizes.__getitem__)


        @ENGINE.kind("toy-queue", title="Toy queue", description="one server, one queue",
                     config_cls=ToyConfig, policy_type=QueuePolicy, spec="none",
                     headline=("wait_mean_s",))
        def run(cfg: ToyConfig, policy: PolicyInfo, seed: int, ctx: RunContext) -> Result:
            sizes = rng(seed, "toy/sizes").exponential(2.0, cfg.jobs)
            order = policy.build().order(list(sizes))
            free, waits = 0.0, []
            for k in order:
                start = max(free, k * cfg.gap_s)
                waits.append(start - k * cfg.gap_s)
                free = start + sizes[k]
            return Result(summary={"wait_mean_s": float(sum(waits) / len(waits))})


        ENGINE.policy("toy-queue", "fifo", label="FIFO", description="arrival order",
                      spec="none")(Fifo)
        ENGINE.policy("toy-queue", "shortest", label="Shortest first",
                      description="smallest job first", spec="none")(Shortest)
        ENGINE.preset("toy-small", "toy-queue", description="twenty jobs",
                      params={"jobs": 20, "gap_s": 1.0})
        ''',
    "toy_queue/__main__.py": '''
        import sys

        from simcore.cli import main

        from . import ENGINE

        sys.exit(main(ENGINE, sys.argv[1:], prog="python -m toy_queue"))
        ''',
    "toy_queue/lab.py": '''
        import toy_queue as engine
        from simcore.errors import DecodedTooLarge, ScenarioError
        from simcore.lab import (ChartSpec, CheckedFile, FileInput, LabKind, Limit, Metric,
                                 MetricBars)


        def check_sizes(open_file, *, max_bytes, max_records):
            """A format of the toy's own: one job size per line."""
            with open_file() as stream:
                data = stream.read(max_bytes + 1)
            if len(data) > max_bytes:
                raise DecodedTooLarge("sizes", "is too large")
            lines = data.decode().split()
            for line, token in enumerate(lines, 1):
                if not token.isdigit():
                    raise ScenarioError(f"sizes:{line}", f"is not a size: {token!r}")
            return CheckedFile(len(lines), ".txt")

        LAB = LabKind(
            kind="toy-queue", title="Toy queue", engine=engine,
            metrics=[Metric("wait_mean_s", "mean wait", "s", higher_is_better=False, lower=0)],
            primary_metric="wait_mean_s", compact=lambda result: {"series": {}, "dist": {}},
            experiment_charts=[ChartSpec("wait", "Mean wait", MetricBars("wait_mean_s",
                                                                         "Mean wait"))],
            default_policies=["fifo", "shortest"], default_preset="toy-small",
            # A site limit with its default: enforced with no settings edit.
            limits=[Limit("toy_jobs", "jobs", lambda p: p["jobs"], "the job count",
                          field_scale=1, default=50)],
            # A file input in a format the site has never heard of.
            inputs=[FileInput("sizes", "toy-sizes", lambda: [("drawn", "drawn sizes")],
                              upload_field="sizes_file", upload_label="Upload job sizes",
                              upload_help="one size per line", default="drawn",
                              check=check_sizes)])
        ''',
    "toy_queue-0.1.dist-info/METADATA": '''
        Metadata-Version: 2.1
        Name: toy-queue
        Version: 0.1
        ''',
    "toy_queue-0.1.dist-info/entry_points.txt": '''
        [hetsite.kinds]
        toy-queue = toy_queue.lab:LAB
        ''',
}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    for name, text in TOY.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    monkeypatch.syspath_prepend(str(tmp_path))
    # The lab discovers afresh, as a new process would; the shipped kinds stay registered.
    monkeypatch.setattr(core_lab, "_KINDS", dict(core_lab._KINDS))
    monkeypatch.setattr(kinds, "_loaded", False)
    yield tmp_path
    for name in [m for m in sys.modules if m == "toy_queue" or m.startswith("toy_queue.")]:
        del sys.modules[name]


def test_a_toy_kind_from_its_own_package_runs_everywhere_with_no_edit_elsewhere(toy):
    # Its command line, from the core's CLI.
    cli = subprocess.run([sys.executable, "-m", "toy_queue", "run", "--preset", "toy-small",
                          "--policy", "shortest", "--seed", "3", "--out", str(toy / "r.json")],
                         cwd=toy, capture_output=True, text=True,
                         env={"PYTHONPATH": f"{toy}:{ROOT}", "PATH": "/usr/bin:/bin"})
    assert cli.returncode == 0, cli.stderr
    assert json.loads((toy / "r.json").read_text())["summary"]["wait_mean_s"] >= 0.0

    # The lab lists it after the shipped kinds, and the API's kinds carry it.
    assert [lab.kind for lab in kinds.all_kinds()][-1] == "toy-queue"
    api = Client().get("/api/kinds/").json()
    toy_api = next(k for k in api if k["kind"] == "toy-queue")
    assert [p["name"] for p in toy_api["policies"]] == ["fifo", "shortest"]
    assert {p["name"] for p in toy_api["parameters"]} == {"jobs", "gap_s", "sizes"}

    # The form shows its parameters with their labels and units.
    page = Client().get("/new/toy-queue/?preset=toy-small")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="p.jobs"' in html and 'name="p.gap_s"' in html
    assert "Gap between arrivals" in html

    # Its runs finish through the queue, each the kind's own result for its policy and seed.
    experiment = submission.create_experiment(submission.validate_submission(
        kind="toy-queue", preset="toy-small", policies=["fifo", "shortest"], trials=2))
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE, [r.error for r in experiment.runs.all()]
    import toy_queue

    for run in experiment.runs.all():
        direct = toy_queue.simulate(toy_queue.preset_scenario("toy-small"), policy=run.policy,
                                    seed=run.seed)
        assert run.summary["wait_mean_s"] == direct.summary["wait_mean_s"]
    assert set(experiment.summary_by_policy()) == {"fifo", "shortest"}
    assert Client().get(f"/e/{experiment.public_id}/").status_code == 200

    # Its declared limit holds at its default, with no settings edit: a 400 naming the field.
    request = {"kind": "toy-queue", "preset": "toy-small", "policies": ["fifo"], "trials": 1}
    over = Client().post("/api/experiments/", {**request, "params": {"jobs": 51}},
                         content_type="application/json")
    assert over.status_code == 400
    assert "limit toy_jobs = 50 (HETSITE_LIMIT_TOY_JOBS)" in over.json()["params.jobs"][0]
    assert Client().post("/api/experiments/", {**request, "params": {"jobs": 50}},
                         content_type="application/json").status_code == 202
    assert 'max="50"' in Client().get("/new/toy-queue/?preset=toy-small").content.decode()

    # Its own file format: checked by its declaration, stored as a blob tagged with its name.
    form = {"preset": "toy-small", "policies": ["fifo"], "trials": 1, "base_seed": 0,
            "p.jobs": 20, "p.gap_s": 1.0}
    bad = Client().post("/new/toy-queue/", {**form, "sizes_file": SimpleUploadedFile(
        "s.txt", b"3\n4\nbig\n")})
    assert bad.status_code == 400 and "3: is not a size: &#x27;big&#x27;" in bad.content.decode()
    good = Client().post("/new/toy-queue/", {**form, "sizes_file": SimpleUploadedFile(
        "s.txt", b"3\n4\n5\n")})
    assert good.status_code == 302, good.content.decode()[:2000]
    stored = Upload.objects.get()
    assert (stored.accepts, stored.name, stored.records) == ("toy-sizes", "s.txt", 3)
    made = Experiment.objects.get(public_id=good["Location"].strip("/").split("/")[-1])
    assert made.scenario.params["sizes"] == f"upload:{stored.sha256}"
