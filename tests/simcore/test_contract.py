"""The shared engine contract: parameters, registry, result JSON, CLI."""

import json
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import params as P
from simcore.cli import main
from simcore.clock import timing_summary
from simcore.errors import ScenarioError
from simcore.registry import Engine
from simcore.result import Result
from simcore.sampling import rng


@dataclass(frozen=True)
class Cluster:
    nodes: int = P.param(4, min=1, max=1000, unit="nodes")
    name: str = P.param("A")


@dataclass(frozen=True)
class ToyConfig:
    tasks: int = P.param(10, min=1, max=100, help="tasks to generate")
    rate: float = P.param(0.5, min=0, max=1, min_exclusive=True, unit="1/s")
    mode: str = P.param("a", choices=["a", "b"])
    budget: float | None = P.param(None, min=0)
    factors: tuple[float, ...] = P.param([1.0, 0.5], min=0, min_items=1)
    clusters: tuple[Cluster, ...] = P.group(lambda: (Cluster(), Cluster(8, "B")), min_items=1)

    def validate(self):
        if self.mode == "b" and self.budget is None:
            raise ScenarioError("budget", "is required when mode is b")


class Weight:
    """The toy kind's policy base: ``weight()`` scales the run's total."""

    factor = 1

    def weight(self) -> int:
        return self.factor


class One(Weight):
    factor = 1


class Two(Weight):
    factor = 2


def toy_engine():
    engine = Engine("toy", "toy", kinds={"toy": "toy"})

    @engine.kind("toy", title="Toy", description="d", config_cls=ToyConfig, policy_type=Weight)
    def run(config, policy, seed, ctx):
        r = rng(seed, "workload").random(config.tasks)
        ctx.clock.report(0.5)
        return Result(summary={"total": float(r.sum()) * policy.build().weight(),
                               "n": config.tasks},
                      series={"t_min": [0, 1], "x": np.array([1.5, 2.5])})

    engine.policy("toy", "one", label="One", description="x1", spec="§1")(One)
    engine.policy("toy", "two", label="Two", description="x2", spec="§2")(Two)
    engine.preset("toy-small", "toy", description="small", params={"tasks": 5})
    return engine


def test_defaults_round_trip():
    cfg = P.from_dict(ToyConfig, {})
    assert P.from_dict(ToyConfig, P.to_dict(cfg)) == cfg
    assert cfg.clusters[1].nodes == 8


@pytest.mark.parametrize("data, field, words", [
    ({"tasks": 0}, "tasks", ">= 1 and <= 100"),
    ({"tasks": 2.5}, "tasks", "integer"),
    ({"rate": 0}, "rate", "> 0"),
    ({"mode": "c"}, "mode", "one of a, b"),
    ({"nope": 1}, "nope", "not a parameter"),
    ({"clusters": [{"nodes": 0}]}, "clusters.0.nodes", ">= 1"),
    ({"clusters": []}, "clusters", "at least 1"),
    ({"factors": [1, -1]}, "factors.1", ">= 0"),
    ({"mode": "b"}, "budget", "required when mode is b"),
    ({"tasks": True}, "tasks", "integer"),
    ({"rate": float("nan")}, "rate", "finite"),
])
def test_errors_name_the_parameter_and_range(data, field, words):
    with pytest.raises(ScenarioError) as err:
        P.from_dict(ToyConfig, data)
    assert err.value.field == field
    assert words in str(err.value)


def test_set_dotted_and_describe():
    data = P.to_dict(P.from_dict(ToyConfig, {}))
    P.set_dotted(data, "clusters.1.nodes", 16)
    assert P.from_dict(ToyConfig, data).clusters[1].nodes == 16
    for index in ("5", "\u00b2", "-1", "9" * 5000):  # (an index typed as "²" once was a 500)
        with pytest.raises(ScenarioError, match="out of range"):
            P.set_dotted(data, f"clusters.{index}.nodes", 1)
    described = {d["name"]: d for d in P.describe(ToyConfig)}
    assert described["tasks"]["range"] == ">= 1 and <= 100"
    assert described["rate"]["unit"] == "1/s"
    assert described["clusters"]["type"] == "json"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["tasks", "rate", "mode", "budget", "factors",
                                        "clusters", "junk"]), json_values, max_size=5))
def test_from_dict_only_raises_scenario_error(data):
    try:
        P.from_dict(ToyConfig, data)
    except ScenarioError as err:
        assert err.field


def test_simulate_is_deterministic_and_records_meta():
    engine = toy_engine()
    scenario = engine.preset_scenario("toy-small", {"rate": 0.25})
    seen = []
    a = engine.simulate(scenario, "two", seed=3, progress=seen.append)
    b = engine.simulate(scenario.to_dict(), "two", seed=3)
    assert a.to_json() == b.to_json()
    assert seen[-1] == 1.0 and 0.5 in seen
    assert a.meta["policy"] == "two" and a.meta["seed"] == 3
    assert a.meta["scenario"]["params"]["rate"] == 0.25
    assert engine.simulate(scenario, "one", seed=3).summary["total"] * 2 == pytest.approx(
        a.summary["total"])
    assert engine.simulate(scenario, "two", seed=4).to_json() != a.to_json()
    again = Result.from_json(a.to_json())
    assert again.series["x"] == [1.5, 2.5]


@pytest.mark.parametrize("policy, seed, field", [("three", 1, "policy"), ("one", -1, "seed"),
                                                 ("one", True, "seed")])
def test_simulate_rejects_bad_policy_and_seed(policy, seed, field):
    engine = toy_engine()
    with pytest.raises(ScenarioError) as err:
        engine.simulate(engine.preset_scenario("toy-small"), policy, seed=seed)
    assert err.value.field == field


def test_timing_is_excluded_from_default_json():
    r = Result(summary={"a": 1}, timing=timing_summary([0.001, 0.003], 0.5))
    assert "timing" not in json.loads(r.to_json())
    assert json.loads(r.to_json(timing=True))["timing"]["event_ms_max"] == pytest.approx(3.0)


def test_cli_run_writes_json_and_reports_errors(tmp_path, capsys):
    engine = toy_engine()
    out = tmp_path / "r.json"
    code = main(engine, ["run", "--preset", "toy-small", "--policy", "one", "--seed", "2",
                         "--set", "tasks=7", "--out", str(out)], prog="toy")
    assert code == 0
    data = json.loads(out.read_text())
    assert data["summary"]["n"] == 7 and data["meta"]["seed"] == 2
    code = main(engine, ["run", "--preset", "toy-small", "--policy", "one", "--set",
                         "tasks=1000"], prog="toy")
    assert code == 2
    assert "tasks: must be >= 1 and <= 100" in capsys.readouterr().err


@given(st.one_of(st.text(max_size=30), st.from_regex(r"[0-9]{1,14}", fullmatch=True),
                 st.sampled_from(["\u00b2", "\u0663", "-1", "+1", " 1", "1_0"])))
def test_a_whole_number_is_ascii_digits_that_int_reads_as_written(text):
    number = P.whole_number(text)
    if number is None:
        assert not (text.isascii() and text.isdigit() and len(text) <= 12)
    else:
        assert str(number) == text.lstrip("0") or (number == 0 and set(text) == {"0"})
    assert P.whole_number("9" * 13) is None and P.whole_number("9" * 12) == 10**12 - 1
