"""'Add my policy to this figure': a figure preset run with other policies of its kind on the
same seeds, and where each stands against each published policy (paired 95% intervals)."""

import json
import math
import statistics

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from hetsite import kinds, reproduce, scoreboard
from hetsite.models import Experiment, Status
from hetsite.services import submission
from scheduling.many_task.policies.base import ManyTaskPolicy
from simcore.errors import ScenarioError

FIGURE = "many-task-dock6"  # the cheapest figure preset: milliseconds a run
ADDED = ["sorted", "sorted+chop"]
T_975 = {2: 4.302652729911275, 3: 3.182446305284263}  # Student t, 0.975 quantile, by df


@pytest.fixture(scope="module")
def figure():
    return kinds.get_figure(FIGURE)


@pytest.fixture(scope="module")
def runs(figure):
    return reproduce.run_in_process(figure, trials=3, with_policies=ADDED)


def test_each_added_policy_is_compared_with_each_published_one_on_every_metric(figure, runs):
    records = scoreboard.standing_of(figure, runs)
    assert {(r["better"], r["worse"], r["metric"]) for r in records} == {
        (a, p, m) for a in ADDED for p in figure.policies for m in figure.metrics}
    # as the kind declares them; the time to solution in minutes has no declared better side
    lower = {"utilization": False, "allocated_cpu_h": True, "tts_min": None}
    by_run = {(r.policy, r.seed): r.summary for r in runs}
    for r in records:
        # recomputed here from the runs: per-seed differences, their mean and t interval
        seeds = sorted(s for (p, s) in by_run if p == r["better"])
        diffs = [by_run[(r["better"], s)][r["metric"]] - by_run[(r["worse"], s)][r["metric"]]
                 for s in seeds]
        mean = statistics.fmean(diffs)
        half = T_975[len(diffs) - 1] * statistics.stdev(diffs) / math.sqrt(len(diffs))
        assert r["n"] == len(diffs) == 3
        assert r["diff_mean"] == pytest.approx(mean, rel=1e-12, abs=1e-12)
        if half > 0:
            assert r["diff_low"] == pytest.approx(mean - half, rel=1e-9)
            assert r["diff_high"] == pytest.approx(mean + half, rel=1e-9)
        low, high = r["diff_low"], r["diff_high"]
        good = (-high, -low) if lower[r["metric"]] else (low, high)
        words = ("better", "worse") if lower[r["metric"]] is not None else ("higher", "lower")
        expected = (words[0] if low is not None and good[0] > 0 else
                    words[1] if high is not None and good[1] < 0 else "indistinguishable")
        assert r["standing"] == expected and r["lower"] is lower[r["metric"]]


def test_the_published_verdicts_do_not_move_when_a_policy_is_added(figure, runs):
    alone = reproduce.run_in_process(figure, trials=3)
    assert {r.seed for r in alone} == {r.seed for r in runs}
    assert reproduce.checks_of(figure, runs) == reproduce.checks_of(figure, alone)
    assert scoreboard.standing_of(figure, alone) == []


@pytest.mark.parametrize("names, words", [
    (["nope"], "unknown policy 'nope'"),
    (["random"], "one of the figure's own policies"),
    (["sorted", "sorted"], "added once"),
    ("sorted", "a list of policy names"),
])
def test_a_bad_added_policy_is_an_error_naming_the_field(names, words):
    with pytest.raises(ScenarioError, match=words) as caught:
        submission.figure_submission(FIGURE, 2, with_policies=names)
    assert caught.value.field == "with_policies"


@pytest.mark.django_db(transaction=True)
def test_the_api_refuses_an_unknown_policy_by_field_and_runs_a_known_one():
    api = APIClient()
    bad = api.post(f"/api/figures/{FIGURE}/run/", {"trials": 2, "with_policies": ["nope"]},
                   format="json")
    assert bad.status_code == 400 and "with_policies" in bad.json()
    assert Experiment.objects.count() == 0
    quote = api.post(f"/api/figures/{FIGURE}/run/", {"trials": 2, "with_policies": ["sorted"],
                                                    "dry_run": True}, format="json").json()
    plain = api.post(f"/api/figures/{FIGURE}/run/", {"trials": 2, "dry_run": True},
                     format="json").json()
    assert quote["runs"] == plain["runs"] * 3 // 2  # priced with the added policy's runs
    made = api.post(f"/api/figures/{FIGURE}/run/", {"trials": 2, "with_policies": ["sorted"]},
                    format="json")
    assert made.status_code == 202, made.content
    experiment = Experiment.objects.get(public_id=made.json()["id"])
    assert experiment.status == Status.DONE and experiment.figure == FIGURE
    assert experiment.policies == ["random", "random+chop", "sorted"]
    page = api.get(f"/e/{experiment.public_id}/").content.decode()
    assert 'id="standing"' in page and "sorted" in page


def test_reproduce_with_policy_writes_the_comparison_and_never_records(tmp_path, capsys):
    call_command("reproduce", FIGURE, "--with-policy", "sorted", "--trials", "2",
                 "--in-process", "--jobs", "1", "--no-png", "--out", str(tmp_path))
    out = capsys.readouterr().out
    data = json.loads((tmp_path / f"{FIGURE}.json").read_text())
    assert {(c["better"], c["worse"]) for c in data["standing"]} == {
        ("sorted", "random"), ("sorted", "random+chop")}
    assert "added policies against the published ones" in out
    assert all(f"sorted vs {c['worse']} on {c['metric']}" in out for c in data["standing"])
    with pytest.raises(CommandError, match="--with-policy does not go with --record"):
        call_command("reproduce", FIGURE, "--with-policy", "sorted", "--record",
                     "--status", str(tmp_path / "status.json"))
    with pytest.raises(CommandError, match="with_policies: unknown policy 'nope'"):
        call_command("reproduce", FIGURE, "--with-policy", "nope", "--trials", "2",
                     "--in-process", "--no-png", "--out", str(tmp_path))


class ForgetsATask(ManyTaskPolicy):
    """A dispatch order that leaves the last task out."""

    def order(self, runtimes, seed):
        return list(range(len(runtimes) - 1))


def test_an_added_policy_that_breaks_a_rule_stops_reproduce_naming_it(tmp_path):
    from scheduling.engine import ENGINE

    ENGINE.policy("many-task", "test-forgets", label="Forgets", description="faulty (test)",
                  spec="test", chop=False)(ForgetsATask)
    try:
        with pytest.raises(CommandError, match=f"{FIGURE}: policy 'test-forgets' broke the "
                                               "rule 'waiting-task'"):
            call_command("reproduce", FIGURE, "--with-policy", "test-forgets", "--trials", "2",
                         "--in-process", "--jobs", "1", "--no-png", "--out", str(tmp_path))
    finally:
        del ENGINE.policies[("many-task", "test-forgets")]
