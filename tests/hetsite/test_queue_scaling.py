"""Issue 27 (6): what an experiment costs does not grow with its size. A finished run
recomputes its own summary cell only; creation sends a bounded batch of messages and the rest
wait in the database; pages, the API and /progress/ list one page of runs; cancel is one update
plus revoking the few messages in the broker."""

import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from hetsite import kinds
from hetsite.broker import held_task_ids
from hetsite.models import Experiment, Run, Status
from hetsite.services import dispatch, execution, submission
from simcore.result import Result
from simcore.stats import mean_ci

UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random", "rbs", "max-value"]}


def big(settings, trials: int, **extra):
    settings.HETSITE_MAX_TRIALS = settings.HETSITE_MAX_RUNS = 100_000
    return submission.validate_submission(**UAV, trials=trials, **extra)


def one_result():
    lab = kinds.get_kind("uav")
    return lab, lab.engine.simulate({"kind": "uav", "params": submission.validate_scenario(
        kind="uav", preset="small-baseline")}, policy="random", seed=1)


@pytest.mark.django_db(transaction=True)
def test_a_finished_run_recomputes_its_own_cell_only(settings):
    sub = big(settings, trials=5, axes=[{"param": "uavs_mean", "values": [3, 4, 5]}])
    experiment = submission.create_experiment(sub, dispatch=False)
    lab, result = one_result()
    runs = list(experiment.runs.filter(point=1, policy="rbs"))
    for run in runs[:2]:
        claimed = execution.claim_run(run.pk)
        with CaptureQueriesContext(connection) as queries:
            assert execution.finish_run(claimed, lab, result) == Status.DONE
        reads = [q["sql"] for q in queries.captured_queries
                 if q["sql"].startswith("SELECT") and '"hetsite_run"."summary"' in q["sql"]]
        # Summaries are read for the cell (point 1, rbs) alone, never the whole experiment.
        assert reads and all('"point" = 1' in sql and '"policy" = \'rbs\'' in sql
                             or ('"point" = %s' in sql) for sql in reads), reads
    experiment = Experiment.objects.get(pk=experiment.pk)
    row = experiment.summary_by_policy(1)["rbs"]
    done = [r.summary for r in experiment.runs.filter(point=1, policy="rbs", status=Status.DONE)]
    assert row["runs"] == 2 and len(done) == 2
    for metric in lab.metrics:
        assert row[metric.key] == mean_ci([s[metric.key] for s in done
                                           if isinstance(s.get(metric.key), (int, float))])
    others = [r for r in experiment.summary if (r["point"], r["policy"]) != (1, "rbs")]
    assert len(others) == 3 * 3 - 1 and all(r["runs"] == 0 for r in others)
    assert experiment.progress == pytest.approx(100.0 * 2 / 45, abs=0.1)


@pytest.mark.django_db(transaction=True)
def test_pages_progress_and_run_lists_are_bounded(settings):
    sub = big(settings, trials=1000)  # 3,000 runs
    experiment = submission.create_experiment(sub, dispatch=False)
    lab, result = one_result()
    data = result.to_dict()
    compact = lab.compact(Result.from_dict(data))  # as the worker stores it
    finished = list(experiment.runs.order_by("id").values_list("pk", flat=True)[:2000])
    Run.objects.filter(pk__in=finished).update(
        status=Status.DONE, summary=data["summary"], series=compact["series"],
        dist=compact["dist"], progress=100.0)
    execution.refresh_experiment(experiment.pk)
    client = Client()
    page = client.get(f"/e/{experiment.public_id}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count("<tr data-run=") == 100 and 'id="runs-pager"' in html
    assert len(page.content) < 600_000, len(page.content)
    progress = client.get(f"/api/experiments/{experiment.public_id}/progress/")
    body = progress.json()
    assert len(progress.content) < 40_000, len(progress.content)
    assert body["counts"] == {"queued": 1000, "running": 0, "done": 2000, "failed": 0,
                              "cancelled": 0}
    assert (body["runs_total"], body["runs_pages"], len(body["runs"])) == (3000, 30, 100)
    # Paging through the API lists every run exactly once, in the page's order.
    seen, url = [], f"/api/experiments/{experiment.public_id}/runs/"
    api = APIClient()
    while url:
        response = api.get(url)
        assert response["X-Total-Count"] == "3000"
        seen += [r["id"] for r in response.json()]
        link = response.get("Link", "")
        url = link[1:link.index(">")].split("testserver", 1)[-1] if link else ""
    assert len(seen) == 3000 and len(set(seen)) == 3000
    assert set(seen) == {str(u) for u in experiment.runs.values_list("public_id", flat=True)}
    assert seen[:100] == [r["id"] for r in body["runs"]]
    detail = api.get(f"/api/experiments/{experiment.public_id}/").json()
    assert detail["runs_total"] == 3000 and len(detail["runs"]) == 100
    # A page past the end, or not a number, is the nearest page, not an error.
    for bad in ("999", "1e22", "x"):
        assert client.get(f"/e/{experiment.public_id}/?runs_page={bad}").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_running_figure_sweeps_page_and_progress_read_its_runs_in_a_fixed_number_of_queries(
        settings):
    """The page of a figure sweep (a table per point ranked by paired trials, the published
    checks, the charts) and its /progress/ are fetched every second or two while it runs. Each
    read every finished run's summary one query per run (a related manager's rows wanting
    their experiment id, which only() had left out), three times a page: 16 s for the page of
    a 21,600-run figure. The same figure at 10 and at 100 trials must cost the same queries."""
    settings.HETSITE_LIVE_FIGURES_SECONDS = 0  # charts redrawn on every fetch, as below 200
    lab, result = one_result()
    data = result.to_dict()
    compact = lab.compact(Result.from_dict(data))
    client, queries = Client(), {}
    for trials in (10, 100):
        sub = submission.figure_submission("ch5-fig-47", trials)  # 4 points x 5 policies
        experiment = submission.create_experiment(sub, dispatch=False)
        runs = list(experiment.runs.order_by("id").values_list("pk", flat=True))
        Run.objects.filter(pk__in=runs[:-3]).update(  # three still queued: running
            status=Status.DONE, summary=data["summary"], series=compact["series"],
            dist=compact["dist"], progress=100.0)
        for point in range(4):
            for policy in sub.policies:
                execution.refresh_cell(lab, experiment.pk, point, policy)
        execution.refresh_experiment(experiment.pk)
        counted = []
        for url in (f"/e/{experiment.public_id}/",
                    f"/api/experiments/{experiment.public_id}/progress/"):
            with CaptureQueriesContext(connection) as captured:
                assert client.get(url).status_code == 200
            counted.append(len(captured.captured_queries))
        queries[trials] = counted
    assert queries[10] == queries[100], queries
    assert queries[100][1] < 20, queries  # /progress/: counts and one page, not a query a run
    # Beyond 200 finished runs a running experiment's tables and charts are rebuilt at most
    # every HETSITE_LIVE_FIGURES_SECONDS: a second fetch within it reads the summaries of the
    # page's 100 rows only, not every finished run's.
    settings.HETSITE_LIVE_FIGURES_SECONDS = 60
    url = f"/e/{experiment.public_id}/"
    first = client.get(url)
    with CaptureQueriesContext(connection) as captured:
        again = client.get(url)
    # the same page but for the clock (elapsed and time left move between two fetches)
    clock = re.compile(r'id="(elapsed|eta)">[^<]*<')
    assert clock.sub("", again.content.decode()) == clock.sub("", first.content.decode())
    reads = [q["sql"] for q in captured.captured_queries if '"hetsite_run"."summary"' in q["sql"]]
    assert reads and all(sql.endswith("LIMIT 100") for sql in reads), reads


@pytest.mark.realstack
@pytest.mark.django_db(transaction=True)
def test_creation_sends_a_bounded_batch_and_cancel_revokes_only_that(live_celery, settings,
                                                                     monkeypatch):
    from hetsite.celery import app

    settings.HETSITE_DISPATCH_AHEAD = 16
    sub = big(settings, trials=1000)
    experiment = submission.create_experiment(sub)  # no worker: nothing is claimed
    sent = list(experiment.runs.exclude(celery_id="").values_list("celery_id", flat=True))
    assert len(sent) == 16 and dispatch.waiting() == 16
    assert set(sent) <= held_task_ids()  # the messages are in redis
    assert experiment.runs.filter(status=Status.QUEUED, celery_id="").count() == 3000 - 16
    revoked = []
    real_revoke = app.control.revoke
    monkeypatch.setattr(app.control, "revoke",
                        lambda ids, **kw: revoked.append(list(ids)) or real_revoke(ids, **kw))
    with CaptureQueriesContext(connection) as queries:
        cancelled = submission.cancel_experiment(experiment)
    assert cancelled.status == Status.CANCELLED
    assert sorted(revoked[0]) == sorted(sent) and len(revoked) == 1
    assert len(queries.captured_queries) < 20
    assert not experiment.runs.exclude(status=Status.CANCELLED).exists()
    json.dumps(cancelled.summary)  # still a plain table


@pytest.mark.realstack
@pytest.mark.django_db(transaction=True)
def test_cancelling_gives_the_revoked_messages_room_to_other_accounts_at_once(live_celery,
                                                                             settings):
    """A user's experiment fills the broker's lookahead, an anonymous client's runs wait in
    the database. Cancelling the first revokes its messages, and workers drop revoked messages
    without running anything, so no run's end starts a pass: the cancel does, and the other
    client's runs are in the broker straight away, not after the next reaper pass."""
    from hetsite.permissions import ANONYMOUS, USER, Account

    settings.HETSITE_DISPATCH_AHEAD = 3
    first = submission.create_experiment(submission.validate_submission(**UAV, trials=4),
                                         account=Account("user:1", USER))
    waiting = submission.create_experiment(
        submission.validate_submission(**UAV, trials=1), account=Account("anon:x", ANONYMOUS))
    assert first.runs.exclude(celery_id="").count() == 3
    assert not waiting.runs.exclude(celery_id="").exists()
    submission.cancel_experiment(first)
    sent = list(waiting.runs.exclude(celery_id="").values_list("celery_id", flat=True))
    assert len(sent) == 3 and set(sent) <= held_task_ids()
    submission.cancel_experiment(waiting)


@pytest.mark.django_db
def test_messages_take_turns_between_accounts_costliest_first_within_one(settings):
    """The dispatch order: the account with the fewest runs in service first (ties: the one
    waiting longest), and within an experiment its costliest runs first."""
    from hetsite.permissions import STAFF, Account

    def make(account, trials, **extra):
        sub = submission.validate_submission(**{**UAV, "policies": ["random"]}, trials=trials,
                                             **extra)
        return submission.create_experiment(sub, dispatch=False,
                                            account=Account(account, STAFF))

    big = make("user:big", 3, axes=[{"param": "uavs_mean", "values": [3, 6]}])
    small = make("anon:small", 4)
    other = make("user:other", 2)
    order = dispatch.next_runs(12)
    accounts = dict(Run.objects.filter(pk__in=order).values_list("pk", "experiment__account"))
    assert [accounts[pk] for pk in order] == (
        ["user:big", "anon:small", "user:other"] * 2 + ["user:big", "anon:small"] * 2
        + ["user:big"] * 2)
    costs = [Run.objects.get(pk=pk).cost for pk in order if accounts[pk] == "user:big"]
    assert costs == sorted(costs, reverse=True) and costs[0] > costs[-1]  # 6 UAVs before 3
    # Runs already in service count: an account with two running waits for the others.
    Run.objects.filter(pk__in=list(small.runs.values_list("pk", flat=True)[:2])).update(
        status=Status.RUNNING)
    first = dispatch.next_runs(2)
    assert {accounts.get(pk) or Run.objects.get(pk=pk).experiment.account for pk in first} == {
        "user:big", "user:other"}
    assert big.runs.count() == 6 and other.runs.count() == 2


@pytest.mark.realstack
@pytest.mark.django_db(transaction=True)
def test_a_pass_that_died_between_marking_and_sending_loses_no_run(live_celery, settings):
    """A pass marks a run sent, then dies before the broker has the message: the next reaper
    pass sees the broker does not hold it and queues the run again; nothing else is touched."""
    from django.utils import timezone

    settings.HETSITE_LOST_AFTER_SECONDS = 5
    experiment = submission.create_experiment(
        submission.validate_submission(**UAV, trials=1), dispatch=False)
    dead, fresh, sent = experiment.runs.order_by("id")
    long_ago = timezone.now() - timezone.timedelta(minutes=1)
    Run.objects.filter(pk=dead.pk).update(celery_id="never-published", sent=long_ago)
    Run.objects.filter(pk=fresh.pk).update(celery_id="being-published", sent=timezone.now())
    from hetsite.tasks import run_simulation

    run_simulation.apply_async((sent.pk,), task_id="in-the-broker")
    Run.objects.filter(pk=sent.pk).update(celery_id="in-the-broker", sent=long_ago)
    assert dispatch.resend_lost() == 1
    ids = dict(experiment.runs.values_list("pk", "celery_id"))
    assert ids == {dead.pk: "", fresh.pk: "being-published", sent.pk: "in-the-broker"}
    settings.HETSITE_DISPATCH_AHEAD = 10
    assert dispatch.dispatch() == 1
    resent = Run.objects.get(pk=dead.pk).celery_id
    assert resent and resent in held_task_ids()
    submission.cancel_experiment(experiment)
