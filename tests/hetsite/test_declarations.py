"""Every kind declares once what the lab shows of it: each parameter its label (and each group
its heading), each metric its unit and its direction. The form, "What was run", sweep axes and
``GET /api/kinds/`` read those declarations and make up no words of their own."""

import html

import pytest
from django.test import Client

from hetsite import kinds, presenters
from hetsite.kinds import UNITLESS, Metric
from simcore.params import parameters

LABS = kinds.all_kinds()
# Every kind of every engine the lab finds through its registry (a kind without a lab face
# would be missed here, which tests/hetsite/test_kinds.py rules out).
KINDS = sorted({k.name: k for lab in LABS for k in lab.engine.ENGINE.list_kinds()}.items())


def label_problems(config_cls) -> list[str]:
    """What is wrong with the labels of a config: a parameter or group without one, a label
    not in sentence case or carrying the unit shown beside it, a label used twice in a group."""
    problems, taken, headings = [], {}, {}
    for p in parameters(config_cls):
        label, unit = p.info.label, p.info.unit
        if not label:
            problems.append(f"{p.name} declares no label")
            continue
        if label[0].islower():
            problems.append(f"{p.name}: {label!r} is not in sentence case")
        if unit and label.endswith(f"({unit})"):
            problems.append(f"{p.name}: {label!r} repeats the unit shown beside it")
        group = ""
        if p.group is not None:
            group, prefix = p.group.label, p.name.rsplit(".", 1)[0]
            if not group:
                problems.append(f"the group {prefix} declares no heading")
            elif headings.setdefault(group, prefix) != prefix:
                problems.append(f"groups {headings[group]} and {prefix} are both {group!r}")
        other = taken.setdefault((group, label), p.name)
        if other != p.name:
            problems.append(f"{other} and {p.name} are both {label!r}")
    return list(dict.fromkeys(problems))  # a group's problem once, not once per parameter


@pytest.mark.parametrize("kind", [k for _, k in KINDS], ids=[name for name, _ in KINDS])
def test_every_parameter_declares_a_label_of_its_own_within_its_group(kind):
    assert label_problems(kind.config_cls) == []


def test_the_label_check_finds_what_it_looks_for():
    from dataclasses import dataclass

    from simcore.params import group, param

    @dataclass(frozen=True)
    class Inner:
        a: int = param(1, label="Nodes")
        b: int = param(2, label="Nodes")
        c: float = param(1.0, unit="h")
        d: float = param(1.0, unit="h", label="warm-up (h)")

    @dataclass(frozen=True)
    class Config:
        inner: Inner = group(Inner)

    assert label_problems(Config) == [
        "the group inner declares no heading", "inner.a and inner.b are both 'Nodes'",
        "inner.c declares no label", "inner.d: 'warm-up (h)' is not in sentence case",
        "inner.d: 'warm-up (h)' repeats the unit shown beside it"]


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.kind)
def test_every_metric_declares_its_unit_direction_and_range_once(lab):
    keys = [m.key for m in lab.metrics]
    labels = [m.label for m in lab.metrics]
    assert len(set(keys)) == len(keys) and len(set(labels)) == len(labels)
    for m in lab.metrics:
        assert m.higher_is_better is None or isinstance(m.higher_is_better, bool), m.key
        assert m.unit or m.unit is UNITLESS, f"{lab.kind}.{m.key} declares no unit"
        assert m.lower is not None, f"{lab.kind}.{m.key} declares no range"
        if m.display_unit == "%" and m.upper is not None:
            assert m.upper * m.scale == 100, f"{lab.kind}.{m.key}: a % that ends below 100%"


def test_a_kind_s_metric_bars_are_drawn_from_its_own_declaration():
    """Several kinds declare a metric of the same key (mean wait, utilization, preemptions):
    each kind's bar chart of it takes that kind's declaration (unit, scale, range)."""
    bound = {lab.kind: [c.build for c in lab.experiment_charts
                        if isinstance(c.build, presenters.MetricBars)] for lab in LABS}
    for lab in LABS:
        for bars in bound[lab.kind]:
            assert any(bars.metric is m for m in lab.metrics), (lab.kind, bars.key)
    wait = bound["swf-replay"][0]
    assert wait.key == "wait_mean_s" and wait.metric is kinds.get_kind("swf-replay").metrics[0]
    assert wait.metric is not kinds.get_kind("grid").metrics[1]  # grid's mean wait
    assert sum(map(len, bound.values())) >= 10


def test_a_metric_cannot_leave_out_its_unit_or_its_direction():
    with pytest.raises(TypeError, match="higher_is_better"):
        Metric("wait", "mean wait", "s")
    with pytest.raises(TypeError, match="unit"):
        Metric("jobs", "jobs", higher_is_better=False)
    with pytest.raises(ValueError, match="UNITLESS"):
        Metric("jobs", "jobs", "", higher_is_better=False)
    with pytest.raises(ValueError, match="True, False or None"):
        Metric("jobs", "jobs", UNITLESS, higher_is_better=1)
    assert Metric("jobs", "jobs", UNITLESS, higher_is_better=None).unit == ""


@pytest.mark.django_db
def test_the_form_and_the_api_show_the_declared_labels_and_headings():
    client = Client()
    listed = {k["kind"]: k for k in client.get("/api/kinds/").json()}
    for lab in LABS:
        declared = list(parameters(lab.engine_kind.config_cls))
        api = {p["name"]: p for p in listed[lab.kind]["parameters"]}
        for p in declared:
            assert api[p.name]["label"] == p.info.label
            assert api[p.name]["group"] == (p.group.label if p.group else "")
        page = client.get(f"/new/{lab.kind}/")
        form = page.context["form"]
        for p in declared:
            field = form.fields[kinds.PARAM_PREFIX + p.name]
            # A kind's form hook may re-make a field (a trace upload): it keeps the label.
            assert field.label.startswith(p.info.label), (lab.kind, p.name, field.label)
            assert field.group == (p.group.label if p.group else "")
        text = page.content.decode()
        headings = {p.group.label for p in declared if p.group}
        assert all(f'<h3 class="group">{html.escape(h)}</h3>' in text for h in headings)


def test_a_swept_parameter_is_titled_by_its_declared_label_and_unit():
    parallel = kinds.get_kind("parallel-energy")
    assert presenters.param_title(parallel, "energy.budget_gj") == "Daily energy budget (GJ/day)"
    assert presenters.param_title(parallel, "time.sim_h+time.warmup_h") == \
        "Simulated time (h) = Warm-up (h)"
    # A name the kind does not declare (an experiment stored before a rename) stays as it is.
    assert presenters.param_title(parallel, "energy.old_name") == "energy.old_name"
