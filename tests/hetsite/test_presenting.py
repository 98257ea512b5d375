"""What the lab shows and exports: readable units, best values, bounded
intervals, natural column order, status words; and who sees which experiment in lists."""

import csv
import gzip
import io
import json

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from hetsite import kinds, notebook, permissions, presenters, selectors
from hetsite.models import Experiment, Run, Scenario, Visibility
from hetsite.services import submission
from simcore.sweep import SweepRun


def test_numbers_and_units_read_at_a_glance():
    assert presenters.number(12.0, 2) == "12" and presenters.number(1234.5, 2) == "1,234.50"
    wait = kinds.Metric("wait_mean_s", "mean wait", "s", higher_is_better=False)
    col = presenters.column_for(wait, [2_388_443.0])
    assert col.unit == "days" and col.factor == pytest.approx(1 / 86400)
    assert presenters.column_for(wait, [90.0]).unit == "s"
    assert presenters.column_for(wait, [600.0]).unit == "min"
    util = kinds.get_kind("swf-replay").metrics[2]
    col = presenters.column_for(util, [0.5])
    assert (col.unit, col.factor, col.header) == ("%", 100.0, "utilization (%)")


def _experiment(kind, rows):
    experiment = Experiment(name="t", kind=kind, policies=[r["policy"] for r in rows], trials=3)
    experiment.summary = [{"point": 0, "setting": {}, **r} for r in rows]
    return experiment


def test_best_value_per_column_and_intervals_clipped_to_the_range():
    ui = kinds.get_kind("serial-preemption")
    ci = lambda mean, half: {"n": 3, "mean": mean, "half_width": half}  # noqa: E731
    experiment = _experiment("serial-preemption", [
        {"policy": "fcfs", "runs": 3, "pct_max_utility": ci(97.0, 6.0), "preemptions": ci(4, 1)},
        {"policy": "max-util", "runs": 3, "pct_max_utility": ci(60.0, 2.0),
         "preemptions": ci(2, 1)}])
    # The trials behind the rows, paired by seed (the ranking reads them).
    runs = [SweepRun(0, {}, policy, seed, {"pct_max_utility": u, "preemptions": p})
            for policy, values in (("fcfs", [(95, 4), (97, 5), (99, 3)]),
                                   ("max-util", [(59, 2), (60, 3), (61, 1)]))
            for seed, (u, p) in enumerate(values)]
    table = presenters.summary_table(ui, experiment, runs=runs)
    pct = [r.cells[0] for r in table.rows]
    assert pct[0].best and not pct[1].best  # higher is better
    # The cell keeps the t interval's half-width; its clipped ends are in the tooltip.
    assert pct[0].clipped and pct[0].high == 100.0 and pct[0].text == "97 ± 6"
    assert "91 – 100" in pct[0].note and "n = 3" in pct[0].note
    assert pct[1].text == "60 ± 2" and not pct[1].clipped
    k = [c.metric.key for c in table.columns].index("preemptions")
    # Fewer on every seed, yet preempting is how the chapter's heuristics earn utility: the
    # count declares no better side, so no row is marked.
    assert [r.cells[k].rank for r in table.rows] == ["", ""]
    assert table.clipped
    assert [r.color for r in table.rows] == [ui.policy_color("fcfs"),
                                             ui.policy_color("max-util")]


def read_csv(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.getvalue().decode())))


@pytest.mark.django_db
def test_exports_name_units_order_columns_naturally_and_write_status_words():
    scenario = Scenario.objects.create(kind="serial-preemption", name="s", params={})
    experiment = Experiment.objects.create(name="e", kind="serial-preemption", scenario=scenario,
                                           policies=["fcfs"], trials=1)
    result = {"tasks": {"id": [0, 1], "arrival": [0.0, 60.0], "status": [2, 3]},
              "extra": {"status_codes": {"2": "done", "3": "dropped"}}}
    run = Run.objects.create(experiment=experiment, policy="fcfs", trial=0, seed=0,
                             summary={"value_priority_10": 1, "value_priority_2": 2,
                                      "wait_mean_s": 3.0, "pct_max_utility": 50.0},
                             result_gz=gzip.compress(json.dumps(result).encode()))
    rows = read_csv(notebook.csv_response(notebook.tasks_table(run)))
    # The ch. 4 engine's clock is in minutes (scheduler.duration_min).
    assert rows[0] == ["run", "policy", "trial", "seed", "id", "arrival (min)", "status"]
    assert [r[6] for r in rows[1:]] == ["done", "dropped"]
    assert {r[0] for r in rows[1:]} == {str(run.public_id)}
    rows = read_csv(notebook.csv_response(
        notebook.runs_table(Run.objects.filter(pk=run.pk), "runs")))
    head = rows[0]
    assert head[0] == "kind" and rows[1][0] == "serial-preemption"
    assert head.index("value_priority_2") < head.index("value_priority_10")
    assert "wait_mean_s (s)" in head and "pct_max_utility (%)" in head


@pytest.mark.django_db(transaction=True)
def test_lists_show_public_and_own_experiments_only_and_page_through():
    def make(name, visibility, owner=None, token=""):
        sub = submission.validate_submission(kind="uav", preset="small-baseline",
                                             policies=["random"], trials=1, name=name,
                                             visibility=visibility)
        return submission.create_experiment(sub, owner=owner, owner_token=token,
                                            dispatch=False)

    ada = User.objects.create_user("ada", password="pw-123456789")
    make("ada private", Visibility.PRIVATE, owner=ada)
    make("ada unlisted", Visibility.UNLISTED, owner=ada)
    make("anon public", Visibility.PUBLIC, token="tok")
    for i in range(105):
        make(f"bulk {i}", Visibility.PUBLIC)
    stranger = permissions.Viewer(user=None)
    names = set(selectors.browse_experiments(stranger).values_list("name", flat=True))
    assert "anon public" in names and not {"ada private", "ada unlisted"} & names
    mine = permissions.Viewer(user=ada)
    assert set(selectors.browse_experiments(mine, selectors.Browse(mine=True))
               .values_list("name", flat=True)) == {"ada private", "ada unlisted"}
    anon = permissions.Viewer(user=None, token="tok")
    assert list(selectors.browse_experiments(anon, selectors.Browse(mine=True))
                .values_list("name", flat=True)) == ["anon public"]
    # The API lists the same, 100 at a time, newest first, with a link to the next page.
    api = APIClient()
    first = api.get("/api/experiments/")
    assert first["X-Total-Count"] == "106" and len(first.json()) == 100
    assert first.json()[0]["name"] == "bulk 104"
    second = api.get(first["Link"].split(";")[0].strip("<>"))
    assert len(second.json()) == 6 and "Link" not in second
    assert api.get("/api/experiments/?q=anon").json()[0]["name"] == "anon public"
    assert api.get("/api/experiments/?page=x").status_code == 400
    api.force_authenticate(ada)
    assert {e["name"] for e in api.get("/api/experiments/?mine=1").json()} == {
        "ada private", "ada unlisted"}
