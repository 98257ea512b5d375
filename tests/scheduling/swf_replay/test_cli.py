"""``python -m scheduling.engine replay --trace PATH --policy NAME [--nodes N] --out FILE``."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scheduling.engine import ENGINE
from scheduling.hpc import traces
from simcore.cli import main

REPO = traces.LIBRARY_DIR.parents[1]
SMALL = traces.LIBRARY_DIR / "lublin_256_small.swf"


def replay_cli(*args):
    return main(ENGINE, ["replay", *map(str, args)], prog="test")


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_writes_summary_and_per_job_table(tmp_path, capsys, policy):
    out = tmp_path / "r.json"
    assert replay_cli("--trace", SMALL, "--policy", policy, "--out", out) == 0
    data = json.loads(out.read_text())
    assert data["summary"]["jobs_total"] == 500
    for column in ("job_id", "submit", "start", "end", "procs"):
        assert len(data["tasks"][column]) == 500
    assert data["tasks"]["job_id"][:3] == [1, 2, 3]
    assert data["extra"]["nodes"] == 256  # from the header
    assert data["meta"]["policy"] == policy and data["meta"]["scenario"]["params"]["trace"]
    assert "wait_mean_s" in capsys.readouterr().out


def test_nodes_and_extra_options(tmp_path):
    out = tmp_path / "r.json"
    assert replay_cli("--trace", SMALL, "--policy", "easy", "--nodes", 64, "--out", out,
                      "--estimate-scale", 2, "--cores-per-node", 2, "--keep-failed",
                      "--job-limit", 100) == 0
    data = json.loads(out.read_text())
    assert data["extra"]["nodes"] == 64 and data["extra"]["cores_per_node"] == 2
    assert data["summary"]["jobs_total"] == 100
    assert max(data["tasks"]["nodes"]) <= 64


def test_library_name_and_gzip(tmp_path):
    out = tmp_path / "r.json"
    assert replay_cli("--trace", "example_8", "--policy", "fcfs", "--out", out) == 0
    assert json.loads(out.read_text())["summary"]["jobs_rejected"] == 1


def test_bad_trace_is_reported_with_line_and_field(tmp_path, capsys):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxNodes: 4\n1 0 -1 10 -3 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "r.json"
    assert replay_cli("--trace", bad, "--policy", "easy", "--out", out) == 2
    assert "trace:2:allocated_procs" in capsys.readouterr().err
    assert not out.exists()
    assert replay_cli("--trace", tmp_path / "missing.swf", "--policy", "easy",
                      "--out", out) == 2


def test_policy_choices_are_enforced(tmp_path):
    with pytest.raises(SystemExit):
        replay_cli("--trace", SMALL, "--policy", "sjf", "--out", tmp_path / "r.json")


def test_module_entry_point(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "scheduling.engine", "replay", "--trace",
                           str(traces.LIBRARY_DIR / "example_8.swf"), "--policy",
                           "conservative", "--out", str(out)], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["summary"]["jobs_completed"] == 13


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_a_trace_with_nothing_to_replay(tmp_path, policy):
    trace = tmp_path / "failed.swf"
    trace.write_text("; MaxNodes: 4\n1 0 -1 10 2 -1 -1 -1 -1 -1 0 -1 -1 -1 -1 -1 -1 -1\n"
                     "2 5 -1 10 8 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "r.json"
    assert replay_cli("--trace", trace, "--policy", policy, "--out", out) == 0
    data = json.loads(out.read_text())
    s = data["summary"]
    assert (s["jobs_total"], s["jobs_completed"], s["jobs_dropped_status"],
            s["jobs_rejected"]) == (2, 0, 1, 1)
    assert data["tasks"]["job_id"] == [] and data["series"]["t_min"] == []
    assert data["extra"]["rejected_job_ids"] == [2]


def test_a_truncated_gzip_trace_is_a_clear_error(tmp_path):
    """Was a traceback ending in EOFError from gzip."""
    packed = (traces.LIBRARY_DIR / "lublin_256.swf.gz").read_bytes()
    cut = tmp_path / "cut.swf.gz"
    cut.write_bytes(packed[: len(packed) // 2])
    root = Path(__file__).resolve().parents[3]  # this checkout's code first on sys.path
    proc = subprocess.run([sys.executable, "-m", "scheduling.engine", "replay", "--trace",
                           str(cut), "--policy", "easy", "--out", str(tmp_path / "r.json")],
                          cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: trace: is not a whole gzip file"), proc.stderr
