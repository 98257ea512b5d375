"""A kind's lab face as declarations on the core (simcore.lab): each kind keeps its own metrics."""

from types import SimpleNamespace

import pytest

from simcore import lab
from simcore.lab import ChartSpec, LabKind, Metric, MetricBars, RunData


def _engine(*kinds: str):
    """The little of an engine package registration reads: its kinds."""
    known = set(kinds)

    def get_kind(name):
        if name not in known:
            raise KeyError(name)
        return name

    return SimpleNamespace(ENGINE=SimpleNamespace(get_kind=get_kind))


def _kind(name: str, metric: Metric, engine) -> LabKind:
    return LabKind(kind=name, title=name, engine=engine, metrics=[metric],
                   primary_metric=metric.key, compact=lambda result: {},
                   experiment_charts=[ChartSpec("wait", "Wait", MetricBars(metric.key, "Wait"),
                                                facetable=False)])


@pytest.fixture
def registry(monkeypatch):
    """An empty lab registry for the test (the real kinds are left as they were)."""
    monkeypatch.setattr(lab, "_KINDS", {})


def _runs(values):
    return [RunData(policy="p", trial=i, seed=i, summary={"wait": v}, series={}, dist={})
            for i, v in enumerate(values)]


def test_two_kinds_declaring_one_metric_key_with_different_units_keep_their_own(registry):
    engine = _engine("in-seconds", "in-jobs")
    seconds = lab.register(_kind("in-seconds", Metric("wait", "mean wait", "s",
                                                      higher_is_better=False), engine))
    jobs = lab.register(_kind("in-jobs", Metric("wait", "jobs waiting", "jobs",
                                                higher_is_better=False, scale=10.0), engine))
    assert seconds.metric("wait").unit == "s" and jobs.metric("wait").unit == "jobs"
    # Each kind's bar chart of "wait" is drawn in its own unit and scale, whichever came last.
    groups = {"p": _runs([7200.0, 7200.0])}
    drawn_s = seconds.experiment_charts[0].build(groups)
    drawn_j = jobs.experiment_charts[0].build(groups)
    assert drawn_s["layout"]["yaxis"]["title"]["text"] == "Wait (h)"
    assert drawn_s["data"][0]["y"] == [2.0]  # 7,200 s shown in hours
    assert drawn_j["layout"]["yaxis"]["title"]["text"] == "Wait (jobs)"
    assert drawn_j["data"][0]["y"] == [72000.0]  # the declared scale, no duration units


def test_a_kind_declaring_one_metric_twice_or_an_undeclared_primary_metric_is_refused():
    engine = _engine("k")
    wait = Metric("wait", "mean wait", "s", higher_is_better=False)
    with pytest.raises(ValueError, match="declares metric 'wait' twice"):
        LabKind(kind="k", title="k", engine=engine, metrics=[wait, wait], primary_metric="wait",
                compact=dict)
    with pytest.raises(ValueError, match="primary metric 'utility'"):
        LabKind(kind="k", title="k", engine=engine, metrics=[wait], primary_metric="utility",
                compact=dict)


def test_registering_a_kind_its_engine_does_not_know_or_twice_fails_loudly(registry):
    wait = Metric("wait", "mean wait", "s", higher_is_better=False)
    with pytest.raises(KeyError):
        lab.register(_kind("unknown", wait, _engine("other")))
    lab.register(_kind("k", wait, _engine("k")))
    with pytest.raises(RuntimeError, match="registered twice"):
        lab.register(_kind("k", wait, _engine("k")))
