"""The experiment list (issue 31, the pages): owners in words, each experiment's preset and
headline result, search by a policy's label, a policy filter by part of a name, and a page whose
queries do not grow with its rows."""

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from hetsite import listing, permissions, selectors
from hetsite.models import Experiment, Visibility
from hetsite.services import execution, submission

pytestmark = pytest.mark.django_db


def make(name, policies=("random", "rbs"), trials=1, run=False, **fields):
    sub = submission.validate_submission(kind="uav", preset="small-baseline",
                                         policies=list(policies), trials=trials, name=name,
                                         visibility=Visibility.PUBLIC)
    experiment = submission.create_experiment(sub, dispatch=False, **fields)
    for pk in experiment.runs.values_list("pk", flat=True) if run else []:
        execution.execute_run(pk)
    return experiment


def names(who, **browse):
    return sorted(selectors.browse_experiments(who, selectors.Browse(**browse))
                  .values_list("name", flat=True))


def test_search_finds_policy_labels_and_the_filter_takes_part_of_a_name_or_label():
    make("plain", policies=("random", "rbs"))
    make("value study", policies=("random", "max-vpt+pf"))
    anyone = permissions.Viewer(user=None)
    # "Random Best Sensor" is rbs's label: the search finds the experiment that runs it.
    assert names(anyone, q="best sensor") == ["plain"]
    assert names(anyone, q="SENSOR plain") == ["plain"]
    assert names(anyone, q="sensor value") == []  # every word must match
    # The filter: the exact name as before, part of a name, or a label; any case.
    assert names(anyone, policy="rbs") == ["plain"]
    assert names(anyone, policy="VPT") == ["value study"]
    assert names(anyone, policy="random best") == ["plain"]
    assert names(anyone, policy="random") == ["plain", "value study"]
    assert names(anyone, policy="no such policy") == []


def test_owners_are_words_and_a_cookie_never_shows():
    ada = User.objects.create_user("ada")
    make("ada's", owner=ada)
    make("cookie's", owner_token="s3cret-cookie-token")
    make("site's")
    rows = {r.experiment.name: r for r in listing.list_rows(
        permissions.Viewer(user=None, token="s3cret-cookie-token"),
        selectors.browse_experiments(permissions.Viewer(user=None)))}
    assert {n: r.owner for n, r in rows.items()} == {
        "ada's": "ada", "cookie's": "you", "site's": "anonymous"}
    stranger = {r.experiment.name: r.owner for r in listing.list_rows(
        permissions.Viewer(user=None, token="another"),
        selectors.browse_experiments(permissions.Viewer(user=None)))}
    assert stranger["cookie's"] == "anonymous"
    html = Client().get("/").content.decode()
    assert "s3cret" not in html and ">anonymous<" in html and ">ada<" in html


def test_each_row_says_its_preset_and_headline_result():
    done = make("finished", policies=("random", "max-vpt"), trials=2, run=True)
    waiting = make("waiting")
    rows = {r.experiment.name: r for r in listing.list_rows(
        permissions.Viewer(user=None), Experiment.objects.select_related("scenario", "owner"))}
    assert rows["waiting"].result == "no run done yet"
    assert rows["finished"].origin == "preset small-baseline"
    # The best mean of the kind's first ranked metric, as the experiment's summary has it.
    summary = Experiment.objects.get(pk=done.pk).summary_by_policy(0)
    from hetsite import kinds
    metric = next(m for m in kinds.get_kind("uav").metrics if m.higher_is_better is not None)
    means = {p: row[metric.key]["mean"] for p, row in summary.items()}
    best = (max if metric.higher_is_better else min)(means, key=means.get)
    text = rows["finished"].result
    assert text.startswith(f"{best}: ") and metric.label in text and text.endswith("(4 runs done)")
    html = Client().get("/").content.decode()
    assert "preset small-baseline" in html and text.split(":")[0] in html
    assert waiting.pk


def test_the_home_page_costs_the_same_queries_for_2_or_25_rows():
    client = Client()
    for i in range(2):
        make(f"first {i}", trials=1, run=True)

    def queries():
        with CaptureQueriesContext(connection) as ctx:
            assert client.get("/").status_code == 200
        return len(ctx.captured_queries)

    few = queries()
    for i in range(23):
        make(f"more {i}", trials=1, run=i % 3 == 0)
    assert Client().get("/").content.decode().count('<td class="name">') == 25
    assert queries() == few
