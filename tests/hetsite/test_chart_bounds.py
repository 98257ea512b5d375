"""What drawing an experiment's charts may read (outside audit: on a public 72,000-run figure
sweep one anonymous GET of a point's charts read every run, 31-40 s and 2-3 GB of the web
process, and a subset of its policies, or the same ones in another order, read them again).

A chart reads the finished runs of the point and policies it draws, from the database; a
selection is kept in the cache, drawn in the order it was asked in; a view of more runs than
an experiment may hold (HETSITE_MAX_RUNS: only a published figure holds more) is drawn only
as the page draws it, once; the paired comparison is kept too; the run picker lists the
experiments with finished runs."""

import pytest
from django.core.cache import cache
from django.db.models.signals import post_init
from django.test import Client
from rest_framework.test import APIClient

from hetsite import figures, selectors
from hetsite.models import Run
from hetsite.services import submission

pytestmark = pytest.mark.django_db(transaction=True)  # runs are sent when the experiment commits


@pytest.fixture
def sweep():
    """swf-small, FCFS and EASY, at three estimate scales: 6 runs, 2 a point."""
    cache.clear()
    sub = submission.validate_submission(
        kind="swf-replay", preset="swf-small", policies=["fcfs", "easy"], trials=1,
        axes=[{"param": "estimate_scale", "values": [1.0, 2.0, 3.0]}], visibility="public")
    experiment = submission.create_experiment(sub)
    experiment.refresh_from_db()
    assert experiment.runs.filter(status="done").count() == 6
    return experiment


class Reads:
    """Counts the runs loaded from the database while it is open."""

    def __init__(self):
        self.count = 0

    def __call__(self, sender, instance, **kwargs):
        self.count += 1

    def __enter__(self):
        post_init.connect(self, sender=Run)
        return self

    def __exit__(self, *exc):
        post_init.disconnect(self, sender=Run)


def figure_url(experiment, chart: str, **query) -> str:
    tail = "&".join(f"{k}={v}" for k, v in query.items())
    return f"/api/experiments/{experiment.public_id}/figures/{chart}/?{tail}"


def test_a_points_charts_and_tables_read_that_points_runs_only(sweep, monkeypatch):
    with Reads() as reads:
        groups = selectors.run_groups(sweep, point=1)
    assert reads.count == 2
    assert {r.params["estimate_scale"] for g in groups.values() for r in g} == {2.0}
    summaries = []
    real = selectors.sweep_runs
    monkeypatch.setattr(selectors, "sweep_runs",
                        lambda e, point=None, **k: summaries.append(point) or real(e, point, **k))
    with Reads() as reads:
        page = Client().get(f"/e/{sweep.public_id}/?point=2")
    # its charts' 2 runs, and the page's table of runs and run picker (6 and 2)
    assert page.status_code == 200 and reads.count <= 2 + 6 + 2
    assert summaries == [2]  # the point's table: that point's summaries
    with Reads() as reads:
        selectors.run_groups(sweep, policies=["easy"], point=0)
    assert reads.count == 1


def test_a_selection_is_kept_and_drawn_in_the_order_asked(sweep):
    """The side-by-side page's first panel is its A: a choice is drawn in the order it was
    asked in, and kept so (asked again, nothing is read)."""
    client = APIClient()
    bars = {}
    for order in ("easy,fcfs", "fcfs,easy"):
        first = client.get(figure_url(sweep, "wait-mean", policies=order, point=0))
        assert first.status_code == 200, first.content
        bars[order] = first.json()["data"][0]["x"]
        with Reads() as reads:
            again = client.get(figure_url(sweep, "wait-mean", policies=order, point=0))
            other_chart = client.get(figure_url(sweep, "wait-time", policies=order, point=0))
        assert again.json() == first.json() and other_chart.status_code == 200
        assert reads.count == 0  # both drawn from what the first request kept
    assert bars == {"easy,fcfs": ["easy", "fcfs"], "fcfs,easy": ["fcfs", "easy"]}


def test_a_view_of_more_runs_than_an_experiment_may_hold_is_drawn_as_its_page_draws_it(
        sweep, settings):
    plain = submission.create_experiment(submission.validate_submission(
        kind="swf-replay", preset="swf-small", policies=["fcfs", "easy"], trials=2,
        visibility="public"))
    settings.HETSITE_MAX_RUNS = 2  # a point's 2 runs, of 6: as a figure's 200 of 72,000 to 1,000
    client = APIClient()
    # A sweep's points pooled (its page never draws them so): a point is asked for.
    for query in ({}, {"policies": "fcfs"}, {"side_by_side": "1"}):
        refused = client.get(figure_url(sweep, "wait-time", **query))
        assert refused.status_code == 400, query
        message = refused.json()["point"][0]
        assert "finished runs" in message and "HETSITE_MAX_RUNS" in message
        assert "choose one (point)" in message
    # A point's runs are within the bound: any view of them is drawn.
    point = client.get(figure_url(sweep, "wait-time", policies="fcfs", point=1,
                                  side_by_side="1"))
    assert point.status_code == 200 and point.json()["data"]
    # An experiment of one point over the bound (a figure's 55,900 runs): its page's charts,
    # every policy together, are drawn once and kept; a part of it, or side by side, is not.
    whole = client.get(figure_url(plain, "wait-time"))
    assert whole.status_code == 200 and whole.json()["data"]
    with Reads() as reads:
        assert client.get(figure_url(plain, "wait-mean")).status_code == 200
        assert Client().get(f"/e/{plain.public_id}/").status_code == 200
    assert reads.count <= 8  # its table of runs and its run picker, 4 each; no chart
    assert client.get(figure_url(plain, "wait-time", policies="easy")).status_code == 200
    refused = client.get(figure_url(plain, "wait-time", side_by_side="1"))
    assert refused.status_code == 400
    assert "4 finished runs" in refused.json()["policies"][0]
    page = Client().get(f"/e/{plain.public_id}/compare/?p=fcfs&p=easy")
    text = page.content.decode()
    assert page.status_code == 200 and "Not drawn side by side" in text
    assert "4 finished runs" in text and "HETSITE_MAX_RUNS = 2" in text
    swept = Client().get(f"/e/{sweep.public_id}/compare/?p=fcfs&p=easy").content.decode()
    assert "6 finished runs" in swept and "a sweep point at a time" in swept


def test_the_paired_comparison_is_kept(sweep, monkeypatch):
    reads = []
    real = selectors.sweep_runs
    monkeypatch.setattr(selectors, "sweep_runs", lambda *a, **k: reads.append(a) or real(*a, **k))
    first = figures.paired_figures(sweep, "fcfs", 1)
    assert first and len(reads) == 1
    assert figures.paired_figures(sweep, "fcfs", 1) == first and len(reads) == 1
    figures.paired_figures(sweep, "easy", 1)
    assert len(reads) == 2  # another baseline is another comparison


def test_the_run_picker_lists_the_experiments_with_finished_runs(sweep):
    empty = submission.create_experiment(submission.validate_submission(
        kind="swf-replay", preset="swf-small", policies=["fcfs"], trials=1,
        visibility="public"), dispatch=False)
    page = Client().get("/compare/").content.decode()
    assert str(sweep.public_id) in page and str(empty.public_id) not in page
