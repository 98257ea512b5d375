"""Charts of the ch4 serial-preemption scenarios: plain Plotly dicts, bounded in size."""

import json

import pytest

from scheduling.engine import preset_scenario, simulate
from scheduling.serial_preemption.charts import preemption_timeline
from simcore.charts import mean_series
from simcore.lab import RunData
from simcore.result import Result


@pytest.fixture(scope="module")
def runs():
    sc = preset_scenario("ch4-small", {"scheduler.duration_min": 600,
                                       "scheduler.warmup_min": 60})
    return {p: simulate(sc, p, seed=1) for p in ("max-util", "max-util-greedy")}


def _points(fig):
    return sum(len(tr.get("x", [])) for tr in fig["data"])


def test_preemption_timeline_marks_suspends_and_resumes(runs):
    res = runs["max-util-greedy"]
    fig = preemption_timeline(res)
    json.dumps(fig)
    traces = {tr["name"]: tr for tr in fig["data"]}
    log = res.extra["preemption_log"]
    n_suspend = log["kind"].count("suspend")
    n_resume = log["kind"].count("resume")
    assert n_suspend > 0 and n_resume > 0
    if n_suspend + n_resume <= 1000:
        assert len(traces["suspend"]["x"]) == n_suspend
        assert len(traces["resume"]["x"]) == n_resume
    # Markers sit on real cores, inside their cluster's lane.
    lanes = {c["index"]: (c["first_core"], c["first_core"] + c["cores"])
             for c in res.extra["clusters"]}
    for k, core, cl in zip(log["kind"], log["core"], log["cluster"], strict=True):
        lo, hi = lanes[cl]
        assert lo <= core < hi, k
    assert len(fig["layout"]["yaxis"]["tickvals"]) == 5
    assert _points(fig) <= 2000
    # The dict form of a stored result works too.
    assert preemption_timeline(json.loads(res.to_json()))["data"][1]["x"] == \
        traces["suspend"]["x"]


def test_preemption_timeline_downsamples_big_logs(runs):
    res = runs["max-util-greedy"]
    big = Result.from_json(res.to_json())
    log = big.extra["preemption_log"]
    for key in log:
        log[key] = log[key] * 20  # a long log: thousands of events
    fig = preemption_timeline(big)
    assert _points(fig) <= 2000
    assert "showing" in fig["layout"]["title"]["text"]


def test_preemption_timeline_without_preemptions(runs):
    fig = preemption_timeline(runs["max-util"])
    assert _points(fig) == 0
    assert "no preemptions" in fig["layout"]["annotations"][0]["text"]


def test_preemptions_per_minute_as_the_lab_draws_it(runs):
    """The lab plots preemptions per minute with the shared mean-series chart."""
    groups = {p: [RunData(p, 0, 0, r.summary, r.to_dict()["series"], {})]
              for p, r in runs.items()}
    fig = mean_series(groups, "preemptions", "Preemptions per minute", "preemptions / min")
    lines = {t["name"]: t["y"] for t in fig["data"]}
    assert max(lines["max-util"]) == 0  # Max Util never preempts
    greedy = runs["max-util-greedy"]
    assert sum(lines["max-util-greedy"]) == pytest.approx(sum(greedy.series["preemptions"]))


def test_timeline_hover_speaks_the_axis_unit_and_lanes_have_room(runs):
    fig = preemption_timeline(runs["max-util-greedy"])
    marks = next(t for t in fig["data"] if t["name"] == "suspend")
    assert marks["text"] and all(text.endswith(" h") for text in marks["text"])
    hours = float(marks["text"][0].rsplit("= ", 1)[1][:-2])
    assert hours == pytest.approx(marks["x"][0], abs=0.01)  # hover and axis agree
    lanes = len(runs["max-util-greedy"].extra["clusters"])
    per_lane = (fig["layout"]["height"] - 160) / lanes
    assert per_lane >= 16  # room for each lane's label
