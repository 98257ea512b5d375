"""``explain`` on the command line (``simcore.cli``), for both engines: a file that is not a
result it can read is an error naming the file and what is wrong (exit 2), never a traceback;
a gzipped result reads as the result; and the messages about a task without the decisions
asked for say what the log holds and how to get the rest."""

import gzip
import json
import shlex

import pytest

from scheduling.engine import ENGINE
from simcore.cli import main
from simcore.decisions import bucket
from uav.engine import ENGINE as UAV


@pytest.fixture(scope="module")
def easy():
    """swf-small under EASY, explained (job 29 waits, starts and completes: 3 decisions)."""
    return ENGINE.simulate(ENGINE.preset_scenario("swf-small"), "easy", seed=0,
                           explain=True).to_dict()


def explain(engine, capsys, *args):
    code = main(engine, ["explain", *map(str, args)], prog="explain")
    out = capsys.readouterr()
    return code, out.out, out.err


BROKEN = {
    "list": ("[1, 2]", "not a result: a JSON object expected, got a list"),
    "no-task": ('{"decisions": [{"t": 1}]}',
                "decisions[0]: no task, action or reason (every decision has t, task, action "
                "and reason)"),
    "text-decisions": ('{"decisions": "abc"}',
                       "decisions: a list of decisions expected, got a text"),
    "number-in-list": ('{"decisions": [3]}', "decisions[0]: an object expected, got a number"),
    "t-text": ('{"decisions": [{"t": "x", "task": 1, "action": "mapped", "reason": "r"}]}',
               "decisions[0].t: a number expected, got 'x'"),
    "meta-list": ('{"meta": [], "decisions": []}', "meta: an object expected, got a list"),
    "stride-text": ('{"meta": {"decisions": {"stride": "4"}}, "decisions": []}',
                    "meta.decisions.stride: a whole number of at least 1 expected, got '4'"),
    "not-json": ('{"a":', "not a JSON result (Expecting value"),
}


@pytest.mark.parametrize("engine", [ENGINE, UAV], ids=["scheduling", "uav"])
@pytest.mark.parametrize("case", list(BROKEN))
@pytest.mark.parametrize("args", [[], ["--task", "1"], ["SECOND"]],
                         ids=["all", "task", "compared"])
def test_a_file_explain_cannot_read_is_an_error_naming_it(engine, case, args, tmp_path,
                                                          capsys, easy):
    text, says = BROKEN[case]
    path = tmp_path / f"{case}.json"
    path.write_text(text)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(easy))
    args = [good if a == "SECOND" else a for a in args]
    code, out, err = explain(engine, capsys, path, *args)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {path}: {says}")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_gzipped_result_reads_as_the_result_and_a_broken_one_is_named(tmp_path, capsys,
                                                                        easy):
    plain, packed = tmp_path / "e.json", tmp_path / "e.json.gz"
    plain.write_text(json.dumps(easy))
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for args in (["--task", "29"], ["--action", "backfilled"], []):
        assert explain(ENGINE, capsys, packed, *args) == explain(ENGINE, capsys, plain, *args)
    assert explain(ENGINE, capsys, packed, plain)[0] == 0  # (compared with itself)
    broken = tmp_path / "cut.json"  # by its first bytes, whatever its name
    broken.write_bytes(packed.read_bytes()[:40])
    code, _, err = explain(ENGINE, capsys, broken)
    assert code == 2 and err.startswith(f"error: {broken}: a gzip file that does not "
                                        "decompress")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\xfa")
    code, _, err = explain(ENGINE, capsys, binary)
    assert code == 2 and err.startswith(f"error: {binary}: not a JSON result (")


def test_a_task_without_the_actions_asked_says_what_it_has(tmp_path, capsys, easy):
    path = tmp_path / "e.json"
    path.write_text(json.dumps(easy))
    told = sorted((d for d in easy["decisions"] if d["task"] == 29), key=lambda d: d["t"])
    had = list(dict.fromkeys(d["action"] for d in told))
    assert len(told) == 3 and "dropped" not in had
    assert explain(ENGINE, capsys, path, "--task", "29", "--action", "dropped") == (
        2, "", f"error: task: '29' has 3 decisions, none of them dropped (its actions: "
               f"{', '.join(had)})\n")
    code, _, err = explain(ENGINE, capsys, path, "--task", "29", "--action", "dropped,expired")
    assert code == 2 and "none of them dropped or expired" in err


def test_a_task_asked_for_or_in_an_unsampled_log_is_not_said_to_be_left_out(tmp_path, capsys):
    path = tmp_path / "al.json"
    assert main(ENGINE, ["run", "--preset", "swf-small", "--policy", "easy", "--explain",
                         "--explain-limit", "100", "--explain-task", "99999", "--out",
                         str(path)], prog="run") == 0
    capsys.readouterr()
    info = json.loads(path.read_text())["meta"]["decisions"]
    assert info["stride"] > 1 and bucket(99999) % info["stride"]  # the hash alone: left out
    code, _, err = explain(ENGINE, capsys, path, "--task", "99999")
    assert code == 2 and err == (
        "error: task: no decision about '99999' in this result; it was asked for "
        "(--explain-task), so the sampling kept whatever was decided about it: the run made "
        "no decision about it (no such task, or it never reached a decision point)\n")
    whole = tmp_path / "whole.json"
    whole.write_text(json.dumps(ENGINE.simulate(ENGINE.preset_scenario("swf-small"), "easy",
                                                explain=True).to_dict()))
    code, _, err = explain(ENGINE, capsys, whole, "--task", "99999")
    assert code == 2 and "left" not in err and "--explain-task" not in err
    assert "the log kept every task, so the run made no decision about it" in err


def test_a_uav_target_left_out_is_called_a_target_with_a_hint_that_pastes(tmp_path, capsys):
    path, again = tmp_path / "u40.json", tmp_path / "again.json"
    run = ["run", "--preset", "small-baseline", "--policy", "meta", "--explain",
           "--explain-limit", "40"]
    assert main(UAV, [*run, "--out", str(path)], prog="run") == 0
    capsys.readouterr()
    stride = json.loads(path.read_text())["meta"]["decisions"]["stride"]
    assert stride > 1 and bucket("target 1") % stride
    code, _, err = explain(UAV, capsys, path, "--task", "target 1")
    assert code == 2
    assert f"the log kept 1 target in {stride} and left this one out" in err
    hint = err.split("the same run with ")[1].split(" keeps its whole story")[0]
    assert hint == "--explain-task 'target 1'"
    assert main(UAV, [*run, *shlex.split(hint), "--out", str(again)], prog="run") == 0
    capsys.readouterr()
    code, out, _ = explain(UAV, capsys, again, "--task", "target 1")
    assert code == 0 and out.startswith("task target 1: ")
