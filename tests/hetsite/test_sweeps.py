"""Sweep experiments: validation naming the field, the fan-out of runs, per-point summaries
and paired differences, figure presets run headless."""

import csv
import dataclasses
import gzip
import io
import json
import math

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from hetsite import exports, figures, kinds, selectors
from hetsite.models import Experiment, Run, Status
from hetsite.services import submission
from simcore.claims import Claim
from simcore.errors import ScenarioError
from simcore.stats import mean_ci
from simcore.sweep import SweepRun

# Transactional: runs are dispatched when the experiment commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)

UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random", "max-vpe"]}
SHORT = {"horizon_h": 3.0}


def post(api, **extra):
    body = {**UAV, "params": SHORT, "trials": 2, **extra}
    return api.post("/api/experiments/", body, format="json")


@pytest.mark.parametrize("axes, words", [
    ([{"param": "no_such_param", "values": [1, 2]}], "not a scalar parameter"),
    ([{"param": "uavs_mean", "values": []}], "at least one value"),
    ([{"param": "uavs_mean"}], "expected values"),
    ([{"param": "uavs_mean", "values": [4, 4]}], "values repeat"),
    ([{"param": "uavs_mean", "values": [4]}, {"param": "uavs_mean", "values": [5]}],
     "swept twice"),
    ([{"param": "uavs_mean", "values": [4, -1]}], "uavs_mean"),
    ([{"param": "uavs_mean", "start": 5, "stop": 1, "step": 1}], "start <= stop"),
    ([{"param": "uavs_mean", "start": 1, "stop": 5000, "step": 1}], "5,000 values; at most"),
    ("not a list", "list"),
])
def test_bad_axes_are_400_naming_axes(axes, words):
    response = post(APIClient(), axes=axes)
    assert response.status_code == 400, response.content
    assert any(words in message for message in response.json()["axes"]), response.json()
    assert Experiment.objects.count() == 0


def test_too_many_points_or_runs_are_refused(settings):
    settings.HETSITE_MAX_POINTS = 6
    axes = [{"param": "uavs_mean", "values": [3, 4, 5]},
            {"param": "targets_mean", "values": [6, 7, 8]}]
    response = post(APIClient(), axes=axes)
    assert response.status_code == 400 and "9 sweep points" in response.json()["axes"][0]
    settings.HETSITE_MAX_POINTS = 100
    settings.HETSITE_MAX_RUNS = 30
    response = post(APIClient(), axes=axes)  # 9 points x 2 policies x 2 trials = 36 runs
    assert response.status_code == 400 and "36" in response.json()["axes"][0]


def test_a_sweep_fans_out_one_run_per_point_policy_and_trial_with_its_overrides():
    axes = [{"param": "uavs_mean", "start": 3, "stop": 5, "step": 1},
            {"param": "priority_cv", "values": [0.2, 1.0]}]
    response = post(APIClient(), axes=axes)
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["axes"] == [{"param": "uavs_mean", "values": [3, 4, 5]},
                            {"param": "priority_cv", "values": [0.2, 1.0]}]
    experiment = Experiment.objects.get(public_id=body["id"])
    runs = list(experiment.runs.all())
    assert len(runs) == 3 * 2 * 2 * 2
    points = {r.point: r.overrides for r in runs}
    assert sorted(points) == list(range(6))
    assert {(o["uavs_mean"], o["priority_cv"]) for o in points.values()} == {
        (u, c) for u in (3, 4, 5) for c in (0.2, 1.0)}
    assert all(r.status == Status.DONE for r in runs)
    # Each run really ran with its point's parameters.
    one = experiment.runs.filter(point=5, policy="random", trial=0).get()
    stored = json.loads(gzip.decompress(bytes(one.result_gz)))
    assert stored["meta"]["scenario"]["params"]["uavs_mean"] == one.overrides["uavs_mean"]
    assert stored["meta"]["scenario"]["params"]["horizon_h"] == 3.0
    # One summary row per (point, policy), each over its 2 trials; the API lists them as points.
    detail = APIClient().get(f"/api/experiments/{body['id']}/").json()
    assert len(detail["points"]) == 6 * 2 and detail["summary"] == {}
    assert all(row["runs"] == 2 and row["value"]["n"] == 2 for row in detail["points"])
    experiment.refresh_from_db()
    assert experiment.summary_by_policy(point=3).keys() == {"random", "max-vpe"}


def test_same_seed_pairs_policies_at_each_point():
    sub = submission.validate_submission(**UAV, params=SHORT, trials=3,
                                         axes=[{"param": "uavs_mean", "values": [3, 6]}])
    experiment = submission.create_experiment(sub)
    runs = selectors.sweep_runs(experiment)
    from simcore.sweep import table

    rows = table(runs, ["value"], baseline="random")
    for row in rows:
        seeds = sorted(r.seed for r in runs if r.point == row["point"]
                       and r.policy == row["policy"])
        assert seeds == [0, 1, 2]
        diffs = [next(x.summary["value"] for x in runs if x.point == row["point"]
                      and x.policy == row["policy"] and x.seed == s)
                 - next(x.summary["value"] for x in runs if x.point == row["point"]
                        and x.policy == "random" and x.seed == s) for s in seeds]
        assert row["value:diff"]["mean"] == pytest.approx(sum(diffs) / 3)


def test_axes_from_text():
    assert submission.parse_axis_text("x", "8, 10,12") == {"param": "x", "values": [8, 10, 12]}
    assert submission.parse_axis_text("x", "8:16:4") == {"param": "x", "start": 8, "stop": 16,
                                                         "step": 4}
    axis = submission.parse_axis_text("x", "1:1000:*10")
    assert submission.axis_values(axis) == [1, 10, 100, 1000]
    assert submission.axis_values({"param": "x", "start": 0.1, "stop": 0.5, "step": 0.1}) == [
        0.1, 0.2, 0.3, 0.4, 0.5]
    with pytest.raises(ScenarioError):
        submission.parse_axis_text("x", "1:2")


def test_rerun_keeps_the_axes():
    sub = submission.validate_submission(**UAV, params=SHORT, trials=1,
                                         axes=[{"param": "uavs_mean", "values": [3, 6]}])
    again = submission.rerun_experiment(submission.create_experiment(sub))
    assert again.axes == [{"param": "uavs_mean", "values": [3, 6]}]
    assert again.runs.count() == 4


def test_a_figure_preset_becomes_an_experiment_with_its_axes_and_claim():
    figure = kinds.get_figure("ch3-quick")
    sub = submission.figure_submission("ch3-quick", trials=1)
    assert sub.figure == "ch3-quick" and sub.policies == list(figure.policies)
    assert sub.trials == 1 and sub.params["workload"]["tasks_per_day"] > 0
    with pytest.raises(ScenarioError) as err:
        submission.figure_submission("no-such-figure")
    assert err.value.field == "figure"


CHECK_FIELDS = {"better", "worse", "metric", "point", "n", "diff_mean", "diff_low",
                "diff_high", "verdict"}


def test_reproduce_writes_checks_and_one_row_per_run_that_recompute_them(tmp_path, capsys):
    """The JSON and runs CSV contract: ``checks`` are objects with the claim, the point, n and
    the paired interval; the runs CSV has point, policy, seed and every metric of each run, so
    the interval can be computed again from it."""
    call_command("reproduce", "ch4-quick", "--trials", "3", "--in-process", "--jobs", "1",
                 "--out", str(tmp_path), "--no-png")
    out = capsys.readouterr().out
    assert "published (" in out and "max-util-greedy > max-util on pct_max_utility" in out
    figure = kinds.get_figure("ch4-quick")
    table = json.loads((tmp_path / "ch4-quick.json").read_text())
    assert table["seeds"] == [1000, 1001, 1002]  # fresh seeds by default
    assert [(c["better"], c["worse"]) for c in table["checks"]] == list(figure.ranking)
    for check in table["checks"]:
        assert set(check) >= CHECK_FIELDS and check["point"] is None and check["n"] == 3
        assert check["metric"] == "pct_max_utility"
        assert check["verdict"] in ("holds", "inconclusive", "contradicted")
    with open(tmp_path / "ch4-quick-runs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(figure.policies) * 3
    assert {"point", "policy", "seed"} <= set(rows[0])
    summary = simulate_summary(figure, "max-upt", 1001)
    mine = next(r for r in rows if r["policy"] == "max-upt" and r["seed"] == "1001")
    numeric = {k for k, v in summary.items() if isinstance(v, (int, float))}
    assert numeric <= set(rows[0])  # every metric
    assert all(float(mine[k]) == pytest.approx(summary[k]) for k in numeric)
    for check in table["checks"]:  # recomputed from the CSV alone
        value = {(r["policy"], r["seed"]): float(r[check["metric"]]) for r in rows}
        diffs = [value[(check["better"], s)] - value[(check["worse"], s)]
                 for s in ("1000", "1001", "1002")]
        ci = mean_ci(diffs)
        assert (check["diff_mean"], check["diff_low"], check["diff_high"]) == pytest.approx(
            (ci["mean"], ci["low"], ci["high"]))
    assert "plotly" in (tmp_path / "ch4-quick.html").read_text()[:200000].lower()
    assert Run.objects.count() == 0  # in-process: nothing stored


def test_reproduce_files_name_policies_and_keep_intervals_in_range():
    """The figure files draw and write what the lab's sweep pages do: policies by name, every
    interval (charts and points CSV) inside the metric's declared range; two trials far apart
    give a t interval far wider than 0-100%."""
    from hetsite import reproduce

    figure = kinds.get_figure("ch3-quick")
    runs = [SweepRun(0, {}, policy, seed, {"pct_max_utility": value})
            for policy in figure.policies for seed, value in ((1000, 1.0), (1001, 99.0))]
    rows = reproduce.rows_of(figure, runs)
    assert rows[0]["pct_max_utility"]["low"] < 0  # the raw interval leaves the range
    table = list(csv.DictReader(io.StringIO(reproduce.points_csv(figure, rows))))
    for row in table:
        assert 0 <= float(row["pct_max_utility_low"]) <= float(row["pct_max_utility_high"]) <= 100
    charts_ = reproduce.figures_of(figure, rows)
    for chart in charts_:
        for trace in chart["figure"]["data"]:
            assert trace.get("name") in (None, *figure.policies), trace.get("name")
            high = [y for y in (trace.get("error_y") or {}).get("array") or [] if y is not None]
            ys = [y for y in trace.get("y") or [] if isinstance(y, (int, float))]
            if chart["id"] == "pct_max_utility":
                assert all(0 <= y <= 100 for y in ys) and all(
                    y + h <= 100 + 1e-9 for y, h in zip(ys, high, strict=False))


def simulate_summary(figure, policy, seed):
    from hetsite.services import submission as sub_

    sub = sub_.figure_submission(figure.name, 1)
    engine = sub.kind_lab.engine.ENGINE
    return engine.simulate(engine.scenario(sub.kind_lab.kind, sub.params), policy, seed).summary


def test_reproduce_on_given_seeds_writes_one_row_per_run(tmp_path):
    """``--first-seed`` moves the trials; the runs CSV pairs policies seed by seed, and the
    same seeds give the same numbers."""
    args = ("reproduce", "ch3-quick", "--trials", "2", "--first-seed", "101", "--in-process",
            "--jobs", "1", "--no-png")
    call_command(*args, "--out", str(tmp_path / "a"))
    call_command(*args, "--out", str(tmp_path / "b"))

    def runs_of(folder):  # CPU time aside, which never affects results
        with open(tmp_path / folder / "ch3-quick-runs.csv") as fh:
            return [{k: v for k, v in row.items() if k != "cpu_s"}
                    for row in csv.DictReader(fh)]

    runs = runs_of("a")
    assert sorted((r["policy"], r["seed"]) for r in runs) == [
        ("easy", "101"), ("easy", "102"), ("max-upe-ph", "101"), ("max-upe-ph", "102")]
    assert all(float(r["pct_max_utility"]) > 0 for r in runs)
    assert json.loads((tmp_path / "a" / "ch3-quick.json").read_text())["seeds"] == [101, 102]
    assert runs == runs_of("b")
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="base_seed"):
        call_command("reproduce", "ch3-quick", "--first-seed", "-1", "--in-process",
                     "--out", str(tmp_path / "c"))


def recording(folder):
    """A record file of its own in ``folder`` and the options that record there."""
    status = folder / "status.json"
    return status, ("--in-process", "--jobs", "1", "--no-png", "--out", str(folder),
                    "--status", str(status))


def test_a_record_edited_to_disagree_with_its_intervals_fails_check(tmp_path, monkeypatch):
    from django.core.management.base import CommandError

    from hetsite import scoreboard
    from hetsite.management.commands import reproduce as command

    # a checkout with local edits is refused as the record's commit; this test is about the
    # intervals
    monkeypatch.setattr(command, "code_version", lambda: "0123456789ab")

    status, base = recording(tmp_path)
    call_command("reproduce", "ch4-quick", "--record", *base)
    rec = scoreboard.load(status)["figures"]["ch4-quick"]
    figure = kinds.get_figure("ch4-quick")
    assert scoreboard.problems(figure, rec) == []
    assert rec["first_seed"] == 1000 and rec["trials"] == figure.trials and rec["cpu_s"] > 0
    call_command("reproduce", "ch4-quick", "--check", *base)  # sound: passes

    data = json.loads(status.read_text())
    check = data["figures"]["ch4-quick"]["checks"][0]
    assert check["verdict"] == "holds" and check["diff_low"] > 0
    check["verdict"] = "contradicted"  # the interval still says holds
    status.write_text(json.dumps(data))
    with pytest.raises(CommandError, match="verdict 'contradicted' but the interval"):
        call_command("reproduce", "ch4-quick", "--check", *base)

    check["verdict"] = "holds"
    check["diff_low"] += 1e-3  # a number the same seeds no longer give
    status.write_text(json.dumps(data))
    with pytest.raises(CommandError, match=r"ch4-quick: max-util-greedy>max-util .*recorded"):
        call_command("reproduce", "ch4-quick", "--check", *base)


def test_a_short_recording_says_why_and_fewer_trials_need_a_reason(tmp_path, monkeypatch):
    from django.core.management.base import CommandError

    from hetsite import scoreboard
    from hetsite.management.commands import reproduce as command

    monkeypatch.setattr(command, "code_version", lambda: "0123456789ab")
    status, base = recording(tmp_path)
    with pytest.raises(CommandError, match="--short REASON"):
        call_command("reproduce", "ch4-quick", "--record", "--trials", "2", *base)
    with pytest.raises(CommandError, match="--short goes with --record and --trials"):
        call_command("reproduce", "ch4-quick", "--short", "time", *base)
    call_command("reproduce", "ch4-quick", "--record", "--trials", "2", "--short",
                 "the session's time", *base)
    rec = scoreboard.load(status)["figures"]["ch4-quick"]
    figure = kinds.get_figure("ch4-quick")
    assert (rec["trials"], rec["last_seed"], rec["short"]) == (2, 1001, "the session's time")
    assert all(c["n"] == 2 for c in rec["checks"]) and scoreboard.problems(figure, rec) == []
    # more than the figure's own count is not a record of the figure: capped at its count
    call_command("reproduce", "ch4-quick", "--record", "--trials", str(figure.trials + 3),
                 "--short", "no", *base)
    rec = scoreboard.load(status)["figures"]["ch4-quick"]
    assert rec["trials"] == figure.trials and "short" not in rec


def test_rescore_judges_the_recorded_runs_again(tmp_path, monkeypatch):
    from hetsite import scoreboard

    status, base = recording(tmp_path)
    call_command("reproduce", "ch3-quick", "--record", *base)
    before = scoreboard.load(status)["figures"]["ch3-quick"]
    figure = kinds.get_figure("ch3-quick")
    swapped = dataclasses.replace(figure, claims=(Claim("easy", "max-upe-ph",
                                                        "pct_max_utility"),))
    monkeypatch.setattr(kinds, "all_figures", lambda: [swapped])
    call_command("reproduce", "ch3-quick", "--rescore", *base)
    after = scoreboard.load(status)["figures"]["ch3-quick"]
    (old,), (new,) = before["checks"], after["checks"]
    assert new["better"] == "easy" and new["diff_mean"] == pytest.approx(-old["diff_mean"])
    assert new["verdict"] == "contradicted" and after["commit"] == before["commit"]


def test_sweep_and_paired_figures_and_the_points_export():
    sub = submission.validate_submission(**UAV, params=SHORT, trials=2,
                                         axes=[{"param": "uavs_mean", "values": [3, 6]}])
    experiment = submission.create_experiment(sub)
    experiment.refresh_from_db()
    sweep = {f["id"]: f["figure"] for f in figures.sweep_figures(experiment)}
    lines = [t for t in sweep["sweep-value"]["data"] if t.get("mode") == "lines+markers"]
    assert len(lines) == 2 and all(t["x"] == [3, 6] for t in lines)
    means = {r["policy"]: r["value"]["mean"] for r in experiment.summary if r["point"] == 1}
    assert lines[1]["y"][1] == pytest.approx(means["max-vpe"], rel=1e-4)
    paired = {f["id"]: f["figure"] for f in figures.paired_figures(experiment, "random")}
    (line,) = [t for t in paired["paired-value"]["data"] if t.get("mode") == "lines+markers"]
    runs = selectors.sweep_runs(experiment)
    diffs = [x.summary["value"] - y.summary["value"] for x in runs for y in runs
             if x.point == y.point == 1 and x.seed == y.seed and x.policy == "max-vpe"
             and y.policy == "random"]
    assert line["y"][1] == pytest.approx(sum(diffs) / len(diffs), rel=1e-4, abs=1e-9)
    with pytest.raises(figures.UnknownChart):
        figures.paired_figures(experiment, "meta")

    text = exports.points_csv(experiment).content.decode()
    header, *rows = text.strip().splitlines()
    assert header.startswith("point,uavs_mean,policy,runs,value mean")
    assert len(rows) == 4 and rows[0].startswith("0,3,random,2,")


def test_figure_presets_through_the_api():
    api = APIClient()
    listed = {f["name"]: f for f in api.get("/api/figures/").json()}
    assert "ch3-quick" in listed and listed["ch3-quick"]["claim"]
    assert all(f["kind"] == "uav" for f in api.get("/api/figures/?kind=uav").json())
    assert api.post("/api/figures/nope/run/", {}, format="json").status_code == 404
    assert api.post("/api/figures/ch3-quick/run/", {"trials": 0},
                    format="json").status_code == 400
    response = api.post("/api/figures/ch3-quick/run/", {"trials": 1}, format="json")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["figure"] == "ch3-quick" and len(body["runs"]) == 2


def test_reproduce_check_reruns_the_quick_figures_against_the_record(tmp_path, capsys):
    """The ``--quick`` figures (ch. 3, 4 and 5) are recorded, and a re-run of their recorded
    seeds gives every recorded verdict and interval again; every record is sound."""
    from hetsite import scoreboard

    quick = [f for f in kinds.all_figures() if f.quick]
    assert {f.name.split("-")[0] for f in quick} >= {"ch3", "ch4", "ch5"}
    status = scoreboard.load()
    assert all(f.name in status["figures"] for f in quick)
    call_command("reproduce", "--check", "--in-process", "--jobs", "1", "--no-png",
                 "--out", str(tmp_path))
    out = capsys.readouterr().out
    assert f"{len(status['figures'])} records complete and consistent" in out
    assert out.count(" holds") >= sum(len(f.claims) for f in quick)


@pytest.mark.django_db
def test_a_figure_preset_may_ask_for_its_published_trials_beyond_the_site_limit(settings):
    settings.HETSITE_MAX_TRIALS = 10
    figure = kinds.get_figure("ch5-fig-46")
    sub = submission.figure_submission("ch5-fig-46")
    assert sub.trials == figure.trials > 10 and figure.paper_trials > figure.trials
    assert submission.figure_submission("ch5-fig-46", trials=figure.paper_trials).trials == \
        figure.paper_trials
    with pytest.raises(ScenarioError) as err:
        submission.figure_submission("ch5-fig-46", trials=figure.paper_trials + 1)
    assert err.value.field == "trials"
    with pytest.raises(ScenarioError):  # the site limit still holds for everything else
        submission.validate_submission(kind="uav", preset="small-baseline", policies=["meta"],
                                       trials=11)


@pytest.mark.django_db
def test_a_figure_may_run_at_the_papers_trial_count_and_no_further():
    figure = kinds.get_figure("ch4-fig-38")
    assert figure.paper_trials == 64 == figure.trials
    runs = len(figure.axes[0][1]) * len(figure.policies) * 64
    assert runs > 1000  # beyond the site's run limit, which a figure at its own size respects
    assert submission.figure_submission("ch4-fig-38").trials == 64
    with pytest.raises(ScenarioError) as err:
        submission.figure_submission("ch4-fig-38", trials=65)
    assert err.value.field == "axes" and "runs" in str(err.value)  # the run count, named
    capped = kinds.get_figure("ch3-fig26")  # recorded below the paper's count, for its cost
    assert capped.paper_trials == 48 > capped.trials
    assert submission.figure_submission("ch3-fig26", trials=48).trials == 48
    assert kinds.get_figure("ch3-quick").paper_trials is None  # not a published figure


def test_every_figure_preset_is_a_valid_lab_experiment():
    """The /figures/ page's Run buttons and ``reproduce`` go through the lab's validation."""
    for figure in kinds.all_figures():
        sub = submission.figure_submission(figure.name, trials=1)
        assert len(sub.points) == math.prod(len(v) for _, v in figure.axes), figure.name


def test_a_linked_axis_sets_both_parameters_and_draws_one_line_per_policy():
    linked = "uavs_mean+targets_mean"
    sub = submission.validate_submission(**UAV, params=SHORT, trials=1,
                                         axes=[{"param": linked, "values": [3, 6]}])
    assert sub.points == [{"uavs_mean": 3, "targets_mean": 3},
                          {"uavs_mean": 6, "targets_mean": 6}]
    experiment = submission.create_experiment(sub)
    experiment.refresh_from_db()
    runs = selectors.sweep_runs(experiment)
    assert {r.point: (r.setting["uavs_mean"], r.setting["targets_mean"]) for r in runs} == {
        0: (3, 3), 1: (6, 6)}
    sweep = {f["id"]: f["figure"] for f in figures.sweep_figures(experiment)}
    lines = [t for t in sweep["sweep-value"]["data"] if t.get("mode") == "lines+markers"]
    assert len(lines) == 2 and all(t["x"] == [3, 6] for t in lines)
    body = exports.points_csv(experiment).content.decode()
    assert body.splitlines()[0].startswith(f"point,{linked},policy")
    assert body.splitlines()[1].startswith("0,3,")
    with pytest.raises(ScenarioError, match="swept twice"):
        submission.validate_submission(**UAV, params=SHORT, trials=1, axes=[
            {"param": linked, "values": [3]}, {"param": "uavs_mean", "values": [4]}])
