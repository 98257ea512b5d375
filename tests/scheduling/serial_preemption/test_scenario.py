"""Scenario parameters, presets, policies and the CLI of the serial-preemption kind."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scheduling.engine import (
    ENGINE,
    ScenarioError,
    list_policies,
    list_presets,
    preset_scenario,
    scenario,
    simulate,
)
from scheduling.serial_preemption.config import SerialConfig
from simcore.params import describe

REPO = Path(__file__).resolve().parents[3]
KIND = "serial-preemption"


def test_policies_registered_with_labels_and_families():
    pols = {p.name: p for p in list_policies(KIND)}
    assert set(pols) == {"random", "fcfs", "max-util", "max-upt", "max-util-greedy",
                         "max-upt-greedy", "max-util-diff", "max-upt-diff", "max-util-pair",
                         "max-upt-pair"}
    assert pols["max-util-greedy"].label == "Max Util Preempt Greedy"
    assert pols["max-upt-pair"].label == "Max UPT Preempt Pair"
    assert {p.family for p in pols.values()} == {"comparison", "utility", "preemptive"}
    assert all(p.spec.startswith("§9") and p.description for p in pols.values())


def test_presets_are_few_and_every_sweep_is_a_figure_preset():
    from scheduling.engine import ENGINE

    names = {p.name for p in list_presets(KIND)}
    assert names == {"ch4-small", "ch4-baseline", "ch4-decay-fast"}
    for name in names:
        preset = next(p for p in list_presets(KIND) if p.name == name)
        assert preset.source.startswith("§")
        preset_scenario(name)  # validates
    swept = {p for f in ENGINE.list_figures(KIND) for p, _ in f.axes}
    assert {"utility.family", "workload.burst_size", "etc.critical_mean_min",
            "workload.p_can_preempt+workload.p_preemptible"} <= swept


def test_baseline_defaults_match_the_spec():
    cfg = preset_scenario("ch4-baseline").params
    assert cfg.system.total_cores == 800 and cfg.system.n_clusters == 5
    assert (cfg.etc.n_types, cfg.etc.n_critical_types) == (100, 20)
    assert (cfg.etc.critical_mean_min, cfg.etc.noncritical_mean_min) == (10, 50)
    assert (cfg.etc.task_cov, cfg.etc.cluster_cov) == (0.1, 0.3)
    assert cfg.workload.tasks_per_core_per_day == 75 and cfg.workload.burst_size == 64
    assert cfg.utility.family == "classes"
    assert (cfg.utility.critical_utility, cfg.utility.noncritical_utility) == (8, 1)
    assert (cfg.scheduler.duration_min, cfg.scheduler.warmup_min) == (1680, 240)
    assert cfg.scheduler.mapping_interval_min == 1


def test_every_parameter_is_described_for_the_form():
    rows = describe(SerialConfig)
    assert len(rows) >= 40
    assert all(r["help"] for r in rows)
    assert ENGINE.get_kind(KIND).config_cls is SerialConfig


@pytest.mark.parametrize("params,field", [
    ({"etc": {"n_critical_types": 200}}, "etc.n_critical_types"),
    ({"scheduler": {"warmup_min": 2000}}, "scheduler.warmup_min"),
    ({"workload": {"amplitude_min": 0.95}}, "workload.amplitude_min"),
    ({"workload": {"p_can_preempt": 1.5}}, "workload.p_can_preempt"),
    ({"workload": {"burst_size": 0}}, "workload.burst_size"),
    ({"utility": {"family": "linear"}}, "utility.family"),
    ({"utility": {"rate_min": 0.1}}, "utility.rate_min"),
    ({"system": {"cores_per_cluster": 4000, "n_clusters": 20}}, "system.cores_per_cluster"),
    ({"workload": {"tasks_per_core_per_day": 5000}}, "workload.tasks_per_core_per_day"),
    ({"scheduler": {"tie_break": "fastest", "nope": 1}}, "scheduler.nope"),
    ({"utility": {"n_classes": 1000}, "etc": {"n_types": 1000}}, "utility.n_classes"),
])
def test_bad_input_raises_scenario_error_naming_the_field(params, field):
    with pytest.raises(ScenarioError) as err:
        scenario(KIND, params)
    assert err.value.field == field


def test_options_run(small):
    short = {"scheduler.duration_min": 240, "scheduler.warmup_min": 60}
    for extra in ({"scheduler.tie_break": "random"}, {"scheduler.tie_break": "fastest"},
                  {"scheduler.fcfs_core": "first"},
                  {"system.cluster_sizes": "gamma", "system.min_cores": 2},
                  {"etc.etc_mode": "classic"}, {"utility.average_time": "nominal"},
                  {"scheduler.mapping_interval_min": 2.0}):
        sc = preset_scenario("ch4-small", {**short, **extra})
        for policy in ("fcfs", "max-upt-diff"):
            res = simulate(sc, policy, seed=1)
            assert res.summary["tasks_completed"] > 0, (extra, policy)
    gamma = simulate(preset_scenario("ch4-small", {**short, "system.cluster_sizes": "gamma",
                                                       "system.min_cores": 2}),
                     "random", seed=1)
    cores = [c["cores"] for c in gamma.extra["clusters"]]
    assert sum(cores) == 40 and len(set(cores)) > 1


def test_progress_is_reported_and_can_cancel(small):
    from scheduling.engine import RunCancelled

    seen = []
    simulate(small, "max-util", seed=0, progress=seen.append)
    assert seen[-1] == 1.0 and len(seen) >= 50
    assert all(a <= b for a, b in zip(seen, seen[1:], strict=False))

    def cancel(frac):
        if frac > 0.2:
            raise RunCancelled()

    with pytest.raises(RunCancelled):
        simulate(small, "max-util-pair", seed=0, progress=cancel)


def test_cli_runs_a_preset(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, "-m", "scheduling.engine", "run", "--preset", "ch4-small",
         "--policy", "max-upt-greedy", "--seed", "2", "--set", "scheduler.duration_min=300",
         "--set", "scheduler.warmup_min=60", "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "pct_max_utility" in proc.stdout and "preemptions" in proc.stdout
    data = json.loads(out.read_text())
    assert data["meta"]["kind"] == KIND and data["meta"]["policy"] == "max-upt-greedy"
    bad = subprocess.run(
        [sys.executable, "-m", "scheduling.engine", "run", "--preset", "ch4-small",
         "--policy", "max-util", "--set", "workload.burst_size=-1"],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "workload.burst_size" in bad.stderr


def test_sweep_command_writes_rows_and_ci(tmp_path):
    """The older ``ch4-sweep`` name of the core sweep: presets x a linked flag axis x policies x
    trials, one CSV row per run and a mean ± CI line per (point, policy)."""
    out = tmp_path / "runs.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "scheduling.engine", "ch4-sweep", "--presets",
         "ch4-small,ch4-decay-fast", "--policies", "max-util,max-util-greedy", "--trials", "2",
         "--vary", "workload.p_can_preempt+workload.p_preemptible=0,1",
         "--set", "scheduler.duration_min=200", "--set", "scheduler.warmup_min=40",
         "--set", "system.cores_per_cluster=4", "--csv", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * 2 * 2 * 2
    assert {(r["preset"], r["set:workload.p_preemptible"], r["policy"], r["seed"])
            for r in rows} == {(p, f, q, s) for p in ("ch4-small", "ch4-decay-fast")
                               for f in ("0", "1") for q in ("max-util", "max-util-greedy")
                               for s in ("0", "1")}
    lines = [line for line in proc.stdout.splitlines() if "p_preemptible=" in line]
    assert len(lines) == 8 and all("±" in line for line in lines)
    # With no task allowed to preempt, Greedy equals Max Util (same seeds): their rows agree.
    metrics = [k for k in rows[0] if not k.startswith("set:") and k not in (
        "preset", "point", "policy", "seed", "wall_s", "event_ms_mean")]
    flags0 = [r for r in rows if r["set:workload.p_preemptible"] == "0"]
    util = {(r["preset"], r["seed"]): [r[k] for k in metrics] for r in flags0
            if r["policy"] == "max-util"}
    greedy = {(r["preset"], r["seed"]): [r[k] for k in metrics] for r in flags0
              if r["policy"] == "max-util-greedy"}
    assert util == greedy
