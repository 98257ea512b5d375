"""Experiments side by side (issue 31): the policies' means and intervals as each experiment's
summary has them, clipped to each metric's range, the parameters that differ in words, only
experiments the caller may read, a bounded number of them, one kind."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from hetsite import comparing, kinds
from hetsite.services import submission
from simcore.bounds import interval

pytestmark = pytest.mark.django_db(transaction=True)

UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random", "max-vpe"]}


def make(params=None, trials=2, axes=None, **fields):
    sub = submission.validate_submission(**UAV, params={"horizon_h": 3.0, **(params or {})},
                                         trials=trials, axes=axes, **fields)
    experiment = submission.create_experiment(sub)
    experiment.refresh_from_db()
    return experiment


def test_means_and_intervals_are_each_experiment_s_summary_clipped_to_the_range():
    a, b = make({"uavs_mean": 3}), make({"uavs_mean": 6, "horizon_h": 4.0}, trials=3)
    page = Client().get(f"/compare/experiments/?e={a.public_id}&e={b.public_id}")
    assert page.status_code == 200
    lab = kinds.get_kind("uav")
    tables = {t.column.metric.key: t for t in page.context["tables"]}
    assert set(tables) == {m.key for m in lab.metrics}
    for metric in lab.metrics:
        table = tables[metric.key]
        column = table.column
        assert [r.policy for r in table.rows] == UAV["policies"]
        for row in table.rows:
            assert row.color == lab.policy_color(row.policy)
            for experiment, cell in zip((a, b), row.cells, strict=True):
                stats = experiment.summary_by_policy(0)[row.policy][metric.key]
                ci = interval(stats, metric.bounds.scaled(column.factor), column.factor)
                assert cell.mean == pytest.approx(ci.mean)
                assert (cell.low, cell.high) == (pytest.approx(ci.low), pytest.approx(ci.high))
                shown = metric.bounds.scaled(column.factor)
                assert shown.lower is None or cell.low >= shown.lower
                assert shown.upper is None or cell.high <= shown.upper
    figures = {f["id"]: f["figure"] for f in page.context["figures"]}
    value = figures["compare-value"]
    assert [t["name"] for t in value["data"]] == UAV["policies"]
    assert value["data"][0]["x"] == ["A", "B"]
    assert value["layout"]["barmode"] == "group"
    text = page.content.decode()
    # The differences in words: declared labels, units, each experiment's value.
    assert [d.text for d in page.context["differences"]] == [
        "Mean number of UAVs λ_U: 3 in A, 6 in B", "Mission day (h): 3 in A, 4 in B",
        "Trials: 2 in A, 3 in B"]
    assert "Mission day (h): 3 in A, 4 in B" in text


def test_a_sweep_takes_part_at_the_point_asked():
    sweep = make(axes=[{"param": "uavs_mean", "values": [3, 9]}])
    nine = make({"uavs_mean": 9})
    client = Client()
    same = client.get(f"/compare/experiments/?e={sweep.public_id}:1&e={nine.public_id}")
    assert "uavs_mean" not in [d.name for d in same.context["differences"]]
    first = client.get(f"/compare/experiments/?e={sweep.public_id}&e={nine.public_id}")
    assert [d.values for d in first.context["differences"] if d.name == "uavs_mean"] == [
        ["3", "9"]]
    table = next(t for t in same.context["tables"] if t.column.metric.key == "value")
    stats = sweep.summary_by_policy(1)["random"]["value"]
    assert table.rows[0].cells[0].mean == pytest.approx(stats["mean"] * table.column.factor)


def test_different_kinds_and_too_many_experiments_get_a_clear_error():
    a = make()
    other = submission.create_experiment(submission.validate_submission(
        kind="serial-preemption", preset="ch4-small", policies=["fcfs"], trials=1))
    page = Client().get(f"/compare/experiments/?e={a.public_id}&e={other.public_id}")
    assert page.status_code == 400
    assert "different kinds" in page.content.decode() and "serial-preemption" in (
        page.content.decode())
    many = "&".join(f"e={make(trials=1).public_id}" for _ in range(comparing.MAX_SIDES + 1))
    page = Client().get(f"/compare/experiments/?{many}")
    assert page.status_code == 400
    assert f"at most {comparing.MAX_SIDES} experiments" in page.content.decode()


def test_only_experiments_the_caller_may_read():
    alice = User.objects.create_user("alice", password="pw-123456789")
    hidden = make(visibility="private")
    hidden.owner = alice
    hidden.save(update_fields=["owner"])
    mine = make({"uavs_mean": 6})
    stranger = Client()
    url = f"/compare/experiments/?e={mine.public_id}&e={hidden.public_id}"
    assert stranger.get(url).status_code == 404
    picker = stranger.get(f"/compare/experiments/?e={mine.public_id}").content.decode()
    assert str(hidden.public_id) not in picker
    owner = Client()
    owner.force_login(alice)
    assert owner.get(url).status_code == 200
    assert str(hidden.public_id) in owner.get(
        f"/compare/experiments/?e={mine.public_id}").content.decode()


def test_an_experiment_without_finished_runs_shows_no_numbers_and_a_bad_id_is_a_404():
    done = make()
    waiting = submission.create_experiment(submission.validate_submission(
        **UAV, params={"horizon_h": 3.0}, trials=2), dispatch=False)
    page = Client().get(f"/compare/experiments/?e={done.public_id}&e={waiting.public_id}")
    assert page.status_code == 200
    for table in page.context["tables"]:
        assert all(row.cells[1].mean is None and row.cells[1].text == "–" for row in table.rows)
        assert all(row.cells[0].mean is not None for row in table.rows)
    value = next(f["figure"] for f in page.context["figures"] if f["id"] == "compare-value")
    assert all(trace["y"][1] is None for trace in value["data"])
    assert Client().get(f"/compare/experiments/?e={done.public_id}&e=not-an-id"
                        ).status_code == 404
