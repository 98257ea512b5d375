"""No empty chart: a chart of one headline metric that no finished run has a value of is left
out, and the page says why in its place (UAV's Value over Random without the Random runs
beside each policy: the figure presets ch5-fig-43-45 and ch5-quick)."""

import re

import pytest
from django.test import Client

from hetsite import figures
from hetsite.services import execution, submission

pytestmark = pytest.mark.django_db


def run_all(sub):
    experiment = submission.create_experiment(sub, dispatch=False)
    for pk in experiment.runs.values_list("pk", flat=True):
        execution.execute_run(pk)
    experiment.refresh_from_db()
    return experiment


def drawn(figure: dict) -> list[float]:
    """The finite heights of a figure's bars (what a reader sees drawn)."""
    return [y for trace in figure["data"] for y in trace.get("y") or []
            if isinstance(y, (int, float)) and y == y]


@pytest.mark.parametrize("name", ["ch5-fig-43-45", "ch5-quick"])
def test_a_figure_preset_without_random_beside_its_policies_draws_no_value_over_random(name):
    experiment = run_all(submission.figure_submission(name, trials=2))
    assert experiment.scenario.params["compare_random"] is False  # the premise
    client = Client()
    page = client.get(f"/e/{experiment.public_id}/")
    ids = [f["id"] for f in page.context["figures"]]
    assert "value-over-random" not in ids and "value" in ids
    for f in page.context["figures"]:  # every chart left has something drawn
        assert f["figure"]["data"], f["id"]
    text = page.content.decode()
    note = re.search(r'<p class="muted small" id="not-drawn">(.*?)</p>', text, re.S).group(1)
    assert "Value over Random" in note and "Also run Random" in note
    assert 'id="chart-value-over-random"' not in text
    # Nor through the API, nor among the paired differences or side by side.
    api = client.get(f"/api/experiments/{experiment.public_id}/figures/value-over-random/")
    assert api.status_code == 404
    baseline = experiment.policies[0]
    paired = client.get(f"/e/{experiment.public_id}/?baseline={baseline}")
    assert "paired-value_pct_over_random" not in [f["id"] for f in paired.context["figures"]]
    assert paired.context["not_drawn"][0]["title"] == "Value over Random"
    side = client.get(f"/e/{experiment.public_id}/compare/")
    assert "value-over-random" not in [f["id"] for f in side.context["figures"]]
    assert 'id="not-drawn"' in side.content.decode()


def test_with_random_beside_each_policy_the_chart_is_drawn_and_no_note():
    experiment = run_all(submission.validate_submission(
        kind="uav", preset="small-baseline", policies=["random", "max-vpe"], trials=2))
    assert experiment.scenario.params["compare_random"] is True
    page = Client().get(f"/e/{experiment.public_id}/")
    chart = next(f["figure"] for f in page.context["figures"] if f["id"] == "value-over-random")
    assert len(drawn(chart)) == 2  # a bar per policy, Random's at 0
    assert 'id="not-drawn"' not in page.content.decode()
    assert figures.not_drawn(experiment, 0) == []


def test_compared_experiments_draw_no_bars_of_a_metric_none_of_them_has():
    subs = [submission.validate_submission(kind="uav", preset="small-baseline",
                                           policies=["meta", "meta+p"], trials=2,
                                           params={"compare_random": False, "uavs_mean": n})
            for n in (3, 4)]
    a, b = (run_all(s) for s in subs)
    page = Client().get(f"/compare/experiments/?e={a.public_id}&e={b.public_id}")
    ids = [f["id"] for f in page.context["figures"]]
    assert "compare-value_pct_over_random" not in ids and "compare-value" in ids
    assert all(drawn(f["figure"]) for f in page.context["figures"])
    assert "value over Random" in re.search(r'id="not-drawn">(.*?)</p>',
                                            page.content.decode(), re.S).group(1)
