"""A log is read in time order whatever order it was written in (``simcore.explain``).

parallel-energy writes a reservation's start or a completion that fell between two mapping
events when it reaches the later one, with its own, earlier ``t``. Stories, listings and the
search for where two runs part must read such a log by time (the order made within an
instant), or two runs that did the same thing at one instant are said to part there.
"""

import json
from collections import Counter, defaultdict

import pytest

from scheduling.engine import ENGINE
from simcore import explain
from simcore.cli import main
from simcore.decisions import MOVES, STARTS


def d(t, task, action, reason="r", **numbers):
    return {"t": t, "task": task, "action": action, "reason": reason, **numbers}


def result(decisions, policy):
    return {"meta": {"policy": policy, "seed": 0, "scenario": {"kind": "k"},
                     "decisions": {"time_unit": "s"}}, "decisions": decisions}


def first_difference_by_hand(a: list[dict], b: list[dict]):
    """The first instant where the two runs' moves differ, worked out apart from
    ``simcore.explain``: every move bucketed by its time, the instants walked in order, each
    compared as a multiset of (task, start or action, place)."""
    def at(decisions):
        out = defaultdict(Counter)
        for x in decisions:
            if x["action"] in MOVES:
                kind = "start" if x["action"] in STARTS else x["action"]
                place = tuple(x.get(k) for k in ("where", "pstate", "config", "sensor",
                                                 "to_node"))
                out[x["t"]][(x["task"], kind, place)] += 1
        return out

    ma, mb = at(a), at(b)
    for t in sorted(ma.keys() | mb.keys()):
        if ma[t] != mb[t]:
            return t, ma[t] - mb[t], mb[t] - ma[t]
    return None


# Both runs start task 1 at 0, end it at 4, hold task 3 at 7 and start tasks 2 at 10 and 4 at
# 12 on c0; only B starts task 3 at 10 (on c2). A wrote its completion at 4 and its waits at
# 5 and 7 after its moves at 10 and 12, as parallel-energy does.
A = [d(0, 1, "mapped", where="c0"), d(10, 2, "mapped", where="c0"),
     d(12, 4, "mapped", where="c0"), d(4, 1, "completed", where="c0"),
     d(7, 3, "held", "no room"), d(5, 2, "held", "no room")]
B = [d(0, 1, "mapped", where="c0"), d(4, 1, "completed", where="c0"),
     d(5, 2, "held", "no room"), d(7, 3, "held", "no room"),
     d(10, 2, "mapped", where="c0"), d(10, 3, "mapped", where="c2"),
     d(12, 4, "mapped", where="c0")]


def test_logs_written_out_of_time_order_part_where_the_runs_do():
    found = explain.divergence(result(A, "a"), result(B, "b"))
    first = found["first"]
    assert first_difference_by_hand(A, B)[0] == 10
    # not at 4, where A's completion of task 1 comes after its moves at 10 and 12
    assert first["t"] == 10 and first["only_a"] == [] and first["only_b"] == [B[5]]
    # what A last said about task 3 by then, though A wrote a move at 12 before it
    assert first["why_not"]["a"] == [A[4]]
    # task 2's story ends with its start at 10 in both, whatever A wrote last
    assert [r["task"] for r in found["tasks"]] == [3]


def test_stories_and_listings_are_in_time_order_and_in_the_order_made_within_an_instant():
    assert explain.story(A, 2) == [A[5], A[1]]
    assert explain.fate(A)[2] == A[1]
    assert [x["t"] for x in explain.of_actions(A, ["mapped", "completed"])] == [0, 4, 10, 12]
    text = explain.story_text(result(A, "a"), None).splitlines()
    assert [line.split("]")[0] for line in text[1:]] == ["[1", "[1", "[2", "[3", "[2", "[4"]
    assert explain.in_time_order(A) == [A[0], A[3], A[5], A[4], A[1], A[2]]
    # one instant keeps the order its decisions were made in (B starts 2, then 3, at 10)
    same_instant = [d(10, 3, "mapped", where="c1"), d(1, 9, "held"), d(10, 2, "mapped")]
    assert explain.in_time_order(same_instant) == [same_instant[1], *same_instant[::2]]


@pytest.fixture(scope="module")
def ch3_pair():
    scenario = ENGINE.preset_scenario("small")
    return [ENGINE.simulate(scenario, policy, seed=0, explain=True).to_dict()
            for policy in ("conservative", "easy")]


def test_parallel_energy_conservative_and_easy_part_where_a_sorted_walk_says(ch3_pair):
    # The outside audit's case: conservative's log is not in time order (completions and
    # reservation starts come late), and easy's first difference was said to be task 7's
    # completion at 5237.39 s, which both runs made.
    cons, easy = ch3_pair
    written = [x["t"] for x in cons["decisions"]]
    assert written != sorted(written)
    t, only_a, only_b = first_difference_by_hand(cons["decisions"], easy["decisions"])
    first = explain.divergence(cons, easy)["first"]
    assert first["t"] == t == pytest.approx(5261.4156, abs=1e-3)
    assert Counter((x["task"], x.get("where")) for x in first["only_a"]) == Counter(
        {(task, place[0]): n for (task, _, place), n in only_a.items()})
    assert Counter((x["task"], x.get("where")) for x in first["only_b"]) == Counter(
        {(task, place[0]): n for (task, _, place), n in only_b.items()})
    assert 7 not in {x["task"] for x in first["only_a"] + first["only_b"]}


def test_the_cli_lists_a_log_written_out_of_order_in_time_order(ch3_pair, tmp_path, capsys):
    cons = ch3_pair[0]
    path = tmp_path / "cons.json"
    path.write_text(json.dumps(cons))
    assert main(ENGINE, ["explain", str(path), "--action", "completed,mapped"],
                prog="explain") == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    times = [float(line.split("t=")[1].split("s ")[0]) for line in lines]
    expected = sorted((x for x in cons["decisions"] if x["action"] in ("completed", "mapped")),
                      key=lambda x: x["t"])
    assert len(times) == len(expected) and times == sorted(times)
    assert [line.split("]")[0][1:] for line in lines] == [str(x["task"]) for x in expected]
