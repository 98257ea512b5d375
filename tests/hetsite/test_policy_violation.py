"""A policy that breaks an engine rule fails its runs in the lab and in the CLI by the rule's
name; the other runs of its experiment carry on, and nothing half-written is kept."""

import pytest
from rest_framework.test import APIClient

from hetsite.models import Run, Status
from scheduling.engine import ENGINE
from scheduling.swf_replay.sim import Replay
from simcore.cli import main

pytestmark = pytest.mark.django_db(transaction=True)


class StartsEveryJob(Replay):
    """Starts every job as it arrives, whether its nodes are free or not."""

    def schedule(self, t, completed, first_new):
        for j in range(first_new, self.arrived):
            self.start(j, t)


@pytest.fixture
def faulty():
    ENGINE.get_kind("swf-replay")
    name = "test-starts-every-job"
    ENGINE.policy("swf-replay", name, label="Starts every job", description="faulty (test)",
                  spec="test")(StartsEveryJob)
    yield name
    del ENGINE.policies[("swf-replay", name)]


def test_the_lab_marks_the_faulty_policy_s_runs_failed_naming_the_rule(faulty):
    api = APIClient()
    response = api.post("/api/experiments/", {
        "kind": "swf-replay", "preset": "swf-small", "policies": ["easy", faulty],
        "trials": 2, "base_seed": 1}, format="json")
    assert response.status_code == 202, response.content
    location = response["Location"]
    detail = api.get(location).json()  # eager Celery: every run has finished
    assert detail["status"] == Status.FAILED
    runs = Run.objects.filter(experiment__public_id=detail["id"])
    bad = runs.filter(policy=faulty)
    assert set(bad.values_list("status", flat=True)) == {Status.FAILED}
    for run in bad:
        assert run.error.startswith(f"policy {faulty!r} broke the rule 'capacity'")
        assert "job index" in run.error
        assert run.summary == {} and run.result_gz is None  # nothing half-written
    good = runs.filter(policy="easy")
    assert set(good.values_list("status", flat=True)) == {Status.DONE}
    assert all(r.summary for r in good)
    api_runs = {r["policy"]: r for r in api.get(f"{location}progress/").json()["runs"]}
    assert api_runs[faulty]["status"] == "failed"
    page = api.get(f"/e/{detail['id']}/").content.decode()
    assert "broke the rule &#x27;capacity&#x27;" in page or "broke the rule 'capacity'" in page


def test_the_cli_exits_3_with_the_rule_and_no_traceback(faulty, capsys):
    code = main(ENGINE, ["run", "--preset", "swf-small", "--policy", faulty], prog="engine")
    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith(f"error: policy {faulty!r} broke the rule 'capacity'")
    assert "Traceback" not in err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_cli_sweep_names_each_failed_run_and_carries_on_with_the_others(faulty, capsys,
                                                                           jobs):
    code = main(ENGINE, ["sweep", "--preset", "swf-small", "--policies", f"easy,{faulty}",
                         "--seeds", "0-1", "--jobs", jobs], prog="engine")
    out, err = capsys.readouterr()
    assert code == 3
    for seed in (0, 1):
        assert f"error: seed {seed}: policy {faulty!r} broke the rule 'capacity'" in err
    assert "2 runs failed" in err and "Traceback" not in err
    rows = [line.split() for line in out.splitlines() if line.startswith("- ")]
    assert [(r[1], r[2]) for r in rows] == [("easy", "2")]  # the other policy's runs, both
