"""Parameters, presets, figure presets, schedulers, the CLI and the run contract of ``grid``."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scheduling.engine import (
    ENGINE,
    RunCancelled,
    ScenarioError,
    list_policies,
    list_presets,
    preset_scenario,
    scenario,
    simulate,
)
from scheduling.grid.config import GridConfig
from simcore.params import describe

REPO = Path(__file__).resolve().parents[3]
KIND = "grid"
ALL = ["fcfs", "local", "internode-can", "internode-2nn", "internode-can+qb",
       "internode-2nn+qb"]


def test_schedulers_registered_with_labels_families_and_spec_sections():
    pols = {p.name: p for p in list_policies(KIND)}
    assert sorted(pols) == sorted(ALL)
    assert pols["internode-can"].label == "Internode CAN'"
    assert pols["internode-2nn"].label == "Internode 2-NN"
    assert {p.family for p in pols.values()} == {"baseline", "local", "internode", "extra"}
    assert all(p.spec.startswith("§") and p.description for p in pols.values())


def test_defaults_are_the_papers_setting():
    cfg = preset_scenario("grid-main").params
    assert (cfg.nodes.n_nodes, cfg.jobs.n_jobs) == (1000, 5000)
    assert cfg.nodes.cores == (1, 2, 4, 8) and cfg.jobs.run_mean_s == 3600.0
    assert cfg.jobs.run_spread == 0.5  # Uniform(0.5 T, 1.5 T)
    assert (cfg.scheduler.alpha, cfg.scheduler.beta, cfg.scheduler.delta_s) == (0.0, 1.0, 5.0)
    assert cfg.matchmaking.sample == 8 and cfg.scheduler.pull_recent == 3
    assert cfg.scheduler.victims == "exact" and not cfg.scheduler.migrate_suspended
    assert (cfg.report.omit_lowest, cfg.report.tail_jobs) == (2000, 200)
    assert preset_scenario("grid-aging").params.scheduler.alpha == 0.5
    assert preset_scenario("grid-delta-2.5").params.scheduler.delta_s == 2.5
    for iat in (1.5, 2, 2.5, 3, 3.5, 4):
        assert preset_scenario(f"grid-iat-{iat:g}").params.jobs.iat_s == iat


def test_every_preset_validates_and_names_its_source():
    names = {p.name for p in list_presets(KIND)}
    assert {"grid-small", "grid-main", "grid-aging", "grid-delta-2.5"} <= names
    for preset in list_presets(KIND):
        assert preset.source.startswith("§")
        preset_scenario(preset.name)


def test_figure_presets_are_runnable_sweeps_with_claims():
    figures = {f.name: f for f in ENGINE.list_figures(KIND)}
    assert {"grid-fig3", "grid-fig4-aging", "grid-fig56-iat-1.5", "grid-fig56-iat-4",
            "grid-delta", "grid-preemptions"} <= set(figures)
    params = {d["name"] for d in describe(GridConfig)}
    pols = {p.name for p in list_policies(KIND)}
    summary = simulate(preset_scenario("grid-small"), "local", seed=0).summary
    for fig in figures.values():
        assert fig.claim and fig.source and fig.scale and fig.claims
        assert set(fig.policies) <= pols
        for c in fig.claims:  # waits, preemptions: claims say which way each metric goes
            assert {c.better, c.worse} <= set(fig.policies) and c.metric in fig.metrics
        for param, values in fig.axes:
            assert param in params and values
            for v in values:  # every point validates
                preset_scenario(fig.preset, {**fig.overrides, param: v})
        assert all(m in summary for m in fig.metrics)
    fig3 = figures["grid-fig3"]
    assert dict(fig3.axes)["jobs.iat_s"] == (1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
    (local,) = [c for c in fig3.claims if (c.better, c.worse) == ("local", "fcfs")]
    assert local.lower and local.per_point and local.metric == "wait_median_s"
    assert fig3.trials >= 10


def test_every_parameter_is_described_for_the_form():
    rows = describe(GridConfig)
    assert len(rows) >= 30 and all(r["help"] for r in rows)


@pytest.mark.parametrize("params,field", [
    ({"nodes": {"cores_p": [0.5, 0.5]}}, "nodes.cores_p"),
    ({"nodes": {"speed_p": [0.5, 0.2, 0.2, 0.2]}}, "nodes.speed_p"),
    ({"jobs": {"memory_p": [1.0, 0, 0, 0.1]}}, "jobs.memory_p"),
    ({"jobs": {"iat_s": 0}}, "jobs.iat_s"),
    ({"jobs": {"cores": [0, 1, 2, 4]}}, "jobs.cores.0"),
    ({"nodes": {"speed": [0.5, 1, -1, 2]}}, "nodes.speed.2"),
    ({"scheduler": {"victims": "random"}}, "scheduler.victims"),
    ({"scheduler": {"delta_s": 0.1}}, "scheduler.delta_s"),
    ({"scheduler": {"delta_s": 0.5}, "jobs": {"n_jobs": 1_000_000, "iat_s": 100}},
     "scheduler.delta_s"),
    ({"jobs": {"cores": [16], "cores_p": [1.0]}}, "jobs.cores"),
    ({"report": {"tail_jobs": 6000}}, "report.tail_jobs"),
    ({"nodes": {"n_nodes": 0}}, "nodes.n_nodes"),
    ({"matchmaking": {"load": "random"}}, "matchmaking.load"),
    ({"scheduler": {"nope": 1}}, "scheduler.nope"),
])
def test_bad_input_raises_scenario_error_naming_the_field(params, field):
    with pytest.raises(ScenarioError) as err:
        scenario(KIND, params)
    assert err.value.field == field


def test_nodes_that_can_run_nothing_are_refused_at_run_time():
    # One node of 1 core cannot take jobs that all need 2 cores.
    sc = scenario(KIND, {"nodes": {"n_nodes": 1, "cores": [1, 2], "cores_p": [1.0, 0.0]},
                         "jobs": {"cores": [2], "cores_p": [1.0], "n_jobs": 5},
                         "report": {"tail_jobs": 1}})
    with pytest.raises(ScenarioError) as err:
        simulate(sc, "fcfs", seed=0)
    assert err.value.field == "nodes.n_nodes"


def test_progress_is_reported_and_can_cancel(small):
    seen = []
    simulate(small, "internode-can", seed=0, progress=seen.append)
    assert seen[-1] == 1.0 and len(seen) >= 50
    assert all(a <= b for a, b in zip(seen, seen[1:], strict=False))

    def cancel(frac):
        if frac > 0.3:
            raise RunCancelled()

    with pytest.raises(RunCancelled):
        simulate(small, "internode-2nn", seed=0, progress=cancel)


def test_same_seed_same_json_other_seed_other_result(small):
    a = simulate(small, "internode-can", seed=3)
    b = simulate(small, "internode-can", seed=3)
    c = simulate(small, "internode-can", seed=4)
    assert a.to_json() == b.to_json()
    assert a.summary["wait_mean_s"] != c.summary["wait_mean_s"]
    json.loads(a.to_json())  # strict JSON (no NaN)


def test_cli_runs_a_preset_and_lists_the_kind(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, "-m", "scheduling.engine", "run", "--preset", "grid-small",
         "--policy", "internode-2nn", "--seed", "2", "--set", "scheduler.alpha=0.5",
         "--out", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["meta"]["kind"] == KIND and data["meta"]["policy"] == "internode-2nn"
    assert data["meta"]["scenario"]["params"]["scheduler"]["alpha"] == 0.5
    assert data["summary"]["jobs"] == 500
    listed = subprocess.run([sys.executable, "-m", "scheduling.engine", "policies", "--kind",
                             KIND], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert "internode-can" in listed.stdout and "fcfs" in listed.stdout
