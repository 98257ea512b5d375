"""A comparison of two runs claims agreement only over what it compared
(``simcore.explain.divergence``, ``explain A.json B.json``).

Sampled logs keep 1 task (UAV: target) in ``stride``; two logs can keep none in common, and
two runs that agree on the tasks kept may differ on the others. Outside audit: UAV
small-baseline, seed 2, max-value against max-value+p at ``--explain-limit 16`` kept no
decision in either log and was said to have "made the same decisions", their values 7545
and 8969.
"""

import json
import subprocess
import sys

import pytest

from simcore import explain
from simcore.decisions import DecisionLog, bucket
from uav.engine import ENGINE as UAV


def d(t, task, action, reason="r", **numbers):
    return {"t": t, "task": task, "action": action, "reason": reason, **numbers}


def result(decisions, policy, stride=1, summary=None):
    out = {"meta": {"policy": policy, "seed": 0, "scenario": {"kind": "k"},
                    "decisions": {"time_unit": "s", "stride": stride}},
           "decisions": decisions}
    if summary is not None:
        out["summary"] = summary
    return out


def uav_pair(limit, always=()):
    scenario = UAV.preset_scenario("small-baseline")
    return [UAV.simulate(scenario, policy, seed=2,
                         explain=DecisionLog(limit=limit, always=always)).to_dict()
            for policy in ("max-value", "max-value+p")]


def test_two_logs_that_kept_nothing_in_common_are_not_said_to_agree(tmp_path):
    a, b = uav_pair(16)
    assert a["summary"]["value"] != b["summary"]["value"]
    assert not a["decisions"] and not b["decisions"]
    found = explain.divergence(a, b)
    assert (found["compared_tasks"], found["first"], found["same_decisions"]) == (0, None, "none")
    assert "value" in found["summary_differs"]
    paths = []
    for name, r in (("a", a), ("b", b)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(r))
    done = subprocess.run([sys.executable, "-m", "uav.engine", "explain", *map(str, paths)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "same decisions" not in done.stdout + done.stderr
    assert done.stderr.startswith("error: decisions: nothing to compare: sampled to 1 target in ")
    assert "raise --explain-limit" in done.stderr
    assert "--explain-task 'target N'" in done.stderr


def test_targets_asked_for_in_both_runs_are_compared_whatever_the_stride():
    # The way out the message gives: the target named in both runs is kept whole by both and
    # compared, though its hash leaves it out of the sample (max-value+p preempts a surveil
    # of target 3 at 20 min, max-value does not).
    target = "target 3"
    assert bucket(target) % 16
    a, b = uav_pair(16, always=[target])
    found = explain.divergence(a, b)
    assert found["compared_tasks"] == 1 and found["first"]["t"] == 20
    assert [(x["action"], x["target"]) for x in found["first"]["only_b"]][0] == ("preempted", 3)
    assert not found["first"]["only_a"]


# Tasks 1 and 2 start on c0 in both runs; task 3 only in B. At stride 2 the comparison keeps
# the tasks whose hash is even.
KEPT = [k for k in range(1, 40) if bucket(k) % 2 == 0][:2]
LEFT_OUT = next(k for k in range(1, 40) if bucket(k) % 2)


@pytest.mark.parametrize("summaries, says, not_said", [
    (({"value": 1.0}, {"value": 1.0}),
     "the 2 tasks both logs kept made the same decisions; only those were compared "
     "(the logs kept 1 task in 2; raise --explain-limit, or keep chosen tasks whole in both "
     "runs with --explain-task ID)", "summaries differ"),
    (({"value": 1.0, "n": float("nan")}, {"value": 2.0, "n": float("nan")}),
     "; the runs' summaries differ (value): they differ in what the logs did not keep",
     "the two runs made the same decisions")])
def test_sampled_logs_that_agree_agree_on_the_kept_tasks_only(summaries, says, not_said):
    same = [d(0, k, "mapped", where="c0") for k in KEPT]
    a = result(same, "a", stride=2, summary=summaries[0])
    b = result([*same, d(0, LEFT_OUT, "mapped", where="c0")], "b", stride=2,
               summary=summaries[1])
    found = explain.divergence(a, b)
    assert found["first"] is None and found["same_decisions"] == "kept"
    assert found["stride"] == 2 and found["compared_tasks"] == 2
    text = explain.divergence_text(a, b)
    assert says in text and not_said not in text
    assert text.splitlines()[0] == "A = a, B = b: 2 tasks compared (the logs kept 1 task in 2)"


def test_unsampled_logs_that_agree_say_so_unless_the_results_differ():
    same = [d(0, 1, "mapped", where="c0"), d(5, 1, "completed")]
    found = explain.divergence(result(same, "a", summary={"value": 1}),
                               result(same, "b", summary={"value": 1}))
    assert (found["same_decisions"], found["summary_differs"]) == ("all", [])
    assert explain.divergence_text(result(same, "a"), result(same, "b")).splitlines()[1] == (
        "the two runs made the same decisions")
    text = explain.divergence_text(result(same, "a", summary={"value": 1, "x": 0}),
                                   result(same, "b", summary={"value": 2, "x": 0}))
    assert text.splitlines()[1] == (
        "the two runs made the same decisions as far as their logs say, but their summaries "
        "differ (value): they differ in what the logs do not record")
    # two empty unsampled logs compare nothing
    with pytest.raises(explain.ExplainError,
                       match="^decisions: nothing to compare: neither log kept a decision$"):
        explain.divergence_text(result([], "a"), result([], "b"))


def test_a_sampled_first_difference_is_the_first_among_what_both_kept():
    """Outside audit of the compare page: two sampled logs said "they part ways at 40 min"
    where the whole runs part at 6 min, without saying the logs were sampled."""
    kept = [t for t in range(40) if bucket(t) % 4 == 0][:2]
    a = result([d(1.0, kept[0], "mapped", where=1), d(2.0, kept[1], "mapped", where=1)], "p", 4)
    b = result([d(1.0, kept[0], "mapped", where=1), d(2.0, kept[1], "mapped", where=2)], "q", 4)
    text = explain.divergence_text(a, b)
    assert ("first difference among the 2 tasks both logs kept (1 task in 4) at t=2s; the whole "
            "runs may part earlier, in what the logs did not keep:") in text
    unsampled = explain.divergence_text(result(a["decisions"], "p"), result(b["decisions"], "q"))
    assert "first difference at t=2s:" in unsampled and "may part earlier" not in unsampled


def test_a_story_that_ends_in_a_repeated_wait_ends_at_its_last_time():
    """Outside audit: "how it ended" and the fate gap read a repeated wait's first time (held
    at 60000 where it was held 136 times until 100500), so two runs holding a task from the
    same instant until different times were not listed at all."""
    a = result([d(10.0, 1, "held", count=5, t_last=50.0), d(12.0, 2, "mapped", where=1)], "p")
    b = result([d(10.0, 1, "held", count=2, t_last=20.0), d(12.0, 2, "mapped", where=2)], "q")
    found = explain.divergence(a, b)
    row = next(r for r in found["tasks"] if r["task"] == 1)
    assert (row["gap"], row["action_differs"]) == (30.0, False)
    text = explain.divergence_text(a, b)
    assert "task 1: A held at 50 (the last of 5), B held at 20 (the last of 2)" in text
