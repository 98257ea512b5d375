"""The decision log's bounds (property-based against a model of what it must keep) and the
readers of ``simcore.explain``: stories, action filters, where two runs part ways."""

import zlib
from itertools import repeat

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import explain
from simcore.decisions import ACTIONS, DecisionLog, bucket, buckets


def model(adds, per_task, limit):
    """What the log must export: per task, repeated waits counted, every move and the first
    per_task - 1 and the latest waits kept; tasks sampled by hash with the smallest
    power-of-2 stride that fits."""
    stories = {}
    for seq, (t, task, action, reason) in enumerate(adds):
        story = stories.setdefault(task, [])
        if story and story[-1]["action"] == action == "held" and story[-1]["reason"] == reason:
            story[-1]["count"] += 1
            story[-1]["t_last"] = t
            story[-1]["last"] = {"x": t}
            continue
        story.append({"t": t, "task": task, "action": action, "reason": reason, "count": 1,
                      "t_last": t, "seq": seq, "omitted": 0, "last": {"x": t}})
    for task, story in stories.items():  # every move, and the first and latest waits
        waits = [r for r in story if r["action"] == "held"]
        if len(waits) > per_task:
            waits[-1]["omitted"] = len(waits) - per_task
            gone = {id(r) for r in waits[per_task - 1:-1]}
            stories[task] = [r for r in story if id(r) not in gone]
    stride = 1
    while sum(len(s) for k, s in stories.items()
              if zlib.crc32(repr(k).encode()) % stride == 0) > limit:
        stride *= 2
    kept = [r for k, s in stories.items() if zlib.crc32(repr(k).encode()) % stride == 0
            for r in s]
    return sorted(kept, key=lambda r: r["seq"]), stride, len(stories)


adds_strategy = st.lists(
    st.tuples(st.integers(0, 50), st.integers(0, 12), st.sampled_from(["held", "mapped"]),
              st.sampled_from(["a", "b"])), max_size=120)


@settings(max_examples=150, deadline=None)
@given(adds=adds_strategy, per_task=st.integers(2, 5), extra=st.integers(0, 30))
def test_the_log_keeps_what_its_bounds_promise(adds, per_task, extra):
    adds = sorted(adds, key=lambda a: a[0])  # time moves forward
    limit = per_task + extra
    log = DecisionLog(per_task=per_task, limit=limit)
    for t, task, action, reason in adds:
        if log.keeps(task):  # a kind skips the numbers of a task the sampling left out
            log.add(t, task, action, reason, x=t)
    out, info = log.export()
    want, stride, seen = model(adds, per_task, limit)
    assert info["stride"] == stride
    assert info["tasks_seen"] == seen
    assert len(out) == len(want) == info["recorded"] <= limit
    for got, exp in zip(out, want, strict=True):
        assert (got["t"], got["task"], got["action"], got["reason"]) == (
            exp["t"], exp["task"], exp["action"], exp["reason"])
        assert got.get("count", 1) == exp["count"]
        assert got.get("t_last", got["t"]) == exp["t_last"]
        assert got.get("omitted_before", 0) == exp["omitted"]
        assert got["x"] == exp["t"]  # the numbers of its first time, and of its last if new
        assert got.get("last", {"x": got["x"]}) == exp["last"]
    # every kept task's latest decision is its last one added, and every move survives the cap
    for task, last in explain.fate(out).items():
        final = [a for a in adds if a[1] == task][-1]
        assert (last["action"], last["reason"], last.get("t_last", last["t"])) == (
            final[2], final[3], final[0])
        moves = [a for a in adds if a[1] == task and a[2] == "mapped"]
        assert len(explain.of_actions(explain.story(out, task), ["mapped"])) == len(moves)


def test_bounds_are_refused_when_they_cannot_hold():
    with pytest.raises(ValueError):
        DecisionLog(per_task=1)
    with pytest.raises(ValueError):
        DecisionLog(per_task=8, limit=4)


def _result(decisions, policy="a", seed=1, scenario=None):
    return {"meta": {"policy": policy, "seed": seed, "scenario": scenario or {"kind": "k"},
                     "decisions": {"time_unit": "s"}},
            "decisions": decisions}


def d(t, task, action, reason="r", **numbers):
    return {"t": t, "task": task, "action": action, "reason": reason, **numbers}


def test_story_filter_and_counts():
    ds = [d(0, 1, "held", count=3), d(0, 2, "mapped", where="c0"), d(5, 1, "mapped"),
          d(9, 2, "completed"), d(9, 1, "dropped")]
    assert [x["action"] for x in explain.story(ds, "1")] == ["held", "mapped", "dropped"]
    assert explain.of_actions(ds, ["dropped"]) == [ds[4]]
    assert explain.counts(ds) == {"mapped": 2, "held": 3, "dropped": 1, "completed": 1}
    assert list(explain.counts(ds)) == [a for a in ACTIONS if a in explain.counts(ds)]
    with pytest.raises(explain.ExplainError, match="action: unknown sleep"):
        explain.of_actions(ds, ["sleep"])
    text = explain.story_text(_result(ds), "2")
    assert "task 2: 2 decisions" in text and "where=c0" in text
    # (not sampled: the log cannot have left it out)
    with pytest.raises(explain.ExplainError, match="task: no decision about '7' in this result; "
                                                   "the log kept every task, so the run made "
                                                   "no decision about it"):
        explain.story_text(_result(ds), "7")
    # In a sampled log: whether the sampling left the task out, and how to get its story.
    sampled = {**_result(ds), "meta": {"decisions": {"stride": 4}}}
    out = next(k for k in range(3, 100) if bucket(k) % 4)  # (tasks 1 and 2 have stories)
    kept = next(k for k in range(3, 100) if bucket(k) % 4 == 0)
    with pytest.raises(explain.ExplainError, match=f"left this one out: the same run with "
                                                   f"--explain-task {out} keeps its whole story"):
        explain.story_text(sampled, str(out))
    with pytest.raises(explain.ExplainError, match="kept 1 task in 4, this one among them"):
        explain.story_text(sampled, str(kept))


def test_divergence_finds_the_first_move_that_differs_and_ignores_order_and_reasons():
    same = [d(0, 1, "mapped", "fits", where="c0"), d(0, 2, "mapped", "fits", where="c1")]
    a = same + [d(3, 3, "held", "no room"), d(5, 3, "mapped", "fits", where="c0"),
                d(9, 4, "dropped", "late", utility=0.1)]
    # B lists the t=0 moves in the other order, with other reasons, and holds task 3 for a
    # reason of its own: none of that is a difference. At t=5 it sends task 3 elsewhere.
    b = [same[1] | {"reason": "best score"}, same[0], d(3, 3, "held", "filter"),
         d(5, 3, "mapped", "fits", where="c1"), d(9, 4, "mapped", "fits", where="c0")]
    found = explain.divergence(_result(a, "a"), _result(b, "b"))
    assert found["first"]["t"] == 5
    assert [x["where"] for x in found["first"]["only_a"]] == ["c0"]
    assert [x["where"] for x in found["first"]["only_b"]] == ["c1"]
    assert found["first"]["why_not"]["b"] == [b[3]]  # what B last said about task 3 by t=5
    # task 4 ends dropped in A and running in B: a different fate ranks first
    assert [r["task"] for r in found["tasks"]] == [4, 3]
    assert found["tasks"][0]["action_differs"] and not found["tasks"][1]["action_differs"]
    text = explain.divergence_text(_result(a, "a"), _result(b, "b"))
    assert "first difference at t=5s" in text and "task 4: A dropped at 9, B mapped at 9" in text


def test_a_start_is_a_start_whatever_the_policy_calls_it():
    # EASY backfills tasks 1 and 2 ahead of task 3's reservation where Min-Min maps them: the
    # same tasks on the same clusters at the same instant, so the runs have not parted there.
    # They part at t=6, where A resumes task 3 on c0 and B maps it on c1.
    a = [d(0, 3, "held", "reserved", where="c0"), d(0, 1, "backfilled", "ahead", where="c0"),
         d(0, 2, "backfilled", "ahead", where="c1"), d(6, 3, "resumed", "back", where="c0")]
    b = [d(0, 3, "held", "placeholder", where="c0"), d(0, 2, "mapped", "best", where="c1"),
         d(0, 1, "mapped", "best", where="c0"), d(6, 3, "mapped", "best", where="c1")]
    first = explain.divergence(_result(a, "a"), _result(b, "b"))["first"]
    assert first["t"] == 6
    assert first["only_a"] == [a[3]] and first["only_b"] == [b[3]]
    # the same start elsewhere, or a start against a drop, is a difference at once
    moved = [b[0], b[1] | {"where": "c2"}, *b[2:]]
    assert explain.divergence(_result(a), _result(moved))["first"]["only_b"] == [moved[1]]
    dropped = [b[0], d(0, 2, "dropped", "late"), *b[2:]]
    assert explain.divergence(_result(a), _result(dropped))["first"]["t"] == 0


def test_runs_whose_task_ids_are_their_own_are_matched_by_what_the_decisions_are_about():
    # UAV numbers surveils in start order: both runs start UAV 1 on target 4 and UAV 2 on
    # target 9 at t=0, in the other order, so the ids swap. By task they would part at once;
    # by target (``across_runs``) they part at t=5, where only B starts a surveil of target 4.
    a = [d(0, 1, "mapped", where="UAV 1 on target 4", target=4),
         d(0, 2, "mapped", where="UAV 2 on target 9", target=9),
         d(5, "target 3", "held", "busy", target=3)]
    b = [d(0, 1, "mapped", where="UAV 2 on target 9", target=9),
         d(0, 2, "mapped", where="UAV 1 on target 4", target=4),
         d(5, 3, "mapped", where="UAV 3 on target 3", target=3)]

    def run(ds, field="target", stride=1):
        r = _result(ds)
        r["meta"]["decisions"].update(across_runs=field, stride=stride)
        return r

    assert explain.divergence(run(a, None), run(b, None))["first"]["t"] == 0
    found = explain.divergence(run(a), run(b))
    assert found["first"]["t"] == 5 and found["first"]["only_b"] == [b[2]]
    assert found["first"]["why_not"]["a"] == [a[2]]  # what A said about target 3 by then
    assert found["compared_by"] == "target" and found["compared_tasks"] == 3
    assert [r["task"] for r in found["tasks"]] == ["target 3"]
    text = explain.divergence_text(run(a), run(b))
    assert "3 targets compared" in text
    # a fate's place is printed: two ends at one time may differ only there
    assert "  target 3: A held at 5, B mapped at 5 (where=UAV 3 on target 3)" in text.splitlines()
    # a log sampled by task id (before logs sampled by target) keeps other targets' surveils
    # in each run: refused, with the way out
    with pytest.raises(explain.ExplainError, match="higher --explain-limit"):
        explain.divergence(run(a, stride=2), run(b))
    # sampled by target, both keep the same targets: compared on the ones the stride keeps
    by_target = run(a, stride=2)
    by_target["meta"]["decisions"]["sampled_by"] = "target"
    kept = [t for t in (3, 4, 9) if bucket(f"target {t}") % 2 == 0]
    found = explain.divergence(by_target, run(b))
    assert found["compared_tasks"] == len(kept)
    assert (found["first"] is not None) == (3 in kept)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from(["mapped", "held", "completed"])),
                min_size=1, max_size=150),
       st.integers(2, 4), st.integers(4, 60), st.randoms(use_true_random=False))
def test_a_log_that_samples_by_target_keeps_or_leaves_out_a_target_whole(events, per_task,
                                                                          limit, rnd):
    # Surveils numbered in start order, as UAV does: the same targets' decisions under
    # another numbering must keep the same targets, and each target with all its decisions.
    targets = sorted({t for t, _ in events})
    relabel = dict(zip(targets, rnd.sample(range(1000), len(targets)), strict=True))

    def fill(ids):
        log = DecisionLog(per_task=per_task, limit=limit)
        log.across_runs = "target"
        for k, (target, action) in enumerate(events):
            task = f"target {target}" if action == "held" else ids[target]
            log.add(float(k), task, action, "why", target=target)
        return log.export()

    one, info = fill({t: t for t in targets})
    other, _ = fill(relabel)
    assert info["sampled_by"] == "target"
    kept = {d["target"] for d in one}
    assert kept == {d["target"] for d in other}
    unlimited = DecisionLog(per_task=per_task, limit=10**6)
    unlimited.across_runs = "target"
    for k, (target, action) in enumerate(events):
        unlimited.add(float(k), f"target {target}" if action == "held" else target, action,
                      "why", target=target)
    whole, _ = unlimited.export()
    # the sampled log is the whole one less the targets the stride leaves out, nothing else
    assert one == [d for d in whole if bucket(f"target {d['target']}") % info["stride"] == 0]
    assert len(one) <= limit or info["stride"] == 2**33


def test_the_text_lists_top_moves_of_a_crowded_first_instant_and_counts_the_rest():
    # A many-task run starts a worker's worth of tasks at one instant: 25 here, on c0 in A
    # and on c1 in B.
    a = [d(0, k, "mapped", where="c0") for k in range(25)]
    b = [d(0, k, "mapped", where="c1") for k in range(25)]
    text = explain.divergence_text(_result(a), _result(b), top=3)
    assert [line.split("]")[0] for line in text.splitlines() if "only A: [" in line] == [
        "  only A: [0", "  only A: [1", "  only A: [2"]
    assert "  only A: ... and 22 more (--top)" in text
    assert "    meanwhile B: ... and 22 more (--top)" in text
    assert "only B: ... and 22 more (--top)" in text and "25 tasks end differently" in text


def test_identical_runs_do_not_part_and_different_scenarios_cannot_be_compared():
    ds = [d(0, 1, "mapped", where="x")]
    assert explain.divergence(_result(ds), _result(list(ds)))["first"] is None
    with pytest.raises(explain.ExplainError, match="seed: the two runs differ"):
        explain.divergence(_result(ds, seed=1), _result(ds, seed=2))
    with pytest.raises(explain.ExplainError, match="decisions: the second result has none"):
        explain.divergence(_result(ds), _result(None))


def test_a_run_that_stops_early_parts_where_the_other_goes_on():
    a = [d(0, 1, "mapped"), d(4, 2, "mapped")]
    found = explain.divergence(_result(a), _result(a[:1]))
    assert found["first"]["t"] == 4 and found["first"]["only_a"] == [a[1]]


def test_the_same_cluster_in_another_p_state_is_where_two_runs_part():
    a = [d(0, 1, "mapped", where=0, pstate=0), d(7, 1, "completed")]
    b = [d(0, 1, "mapped", where=0, pstate=2), d(9, 1, "completed")]
    found = explain.divergence(_result(a), _result(b))
    assert found["first"]["t"] == 0 and found["first"]["only_b"] == [b[0]]


def test_a_task_that_waits_often_keeps_its_start_beyond_the_cap():
    log = DecisionLog(per_task=3, limit=100)
    for k in range(10):  # waits for alternating reasons, then starts, then ends
        log.add(k, 7, "held", "no nodes" if k % 2 else "the energy left", k=k)
    log.add(10, 7, "mapped", "fits", where=1)
    for k in range(11, 15):
        log.add(k, 7, "held", "suspended" if k % 2 else "queued again")
    log.add(15, 7, "completed", "done")
    out, info = log.export()
    assert [x["action"] for x in out] == ["held", "held", "mapped", "held", "completed"]
    assert [x["t"] for x in out] == [0, 1, 10, 14, 15]
    assert out[3]["omitted_before"] == 11 and info["omitted"] == 11


@given(st.lists(st.integers(0, 2**62), max_size=60))
def test_ids_hashed_at_once_sample_as_one_by_one(ids):
    ids += [0, 9, 10, 99, 100, 123_456, 10**18]
    got = buckets(np.array(ids, dtype=np.int64))
    assert [int(h) for h in got] == [zlib.crc32(repr(i).encode()) for i in ids]
    ascending = sorted(ids)  # hashed by slices of one width, not by masks
    assert [int(h) for h in buckets(np.array(ascending, dtype=np.int64))] == [
        zlib.crc32(repr(i).encode()) for i in ascending]
    wide = np.array(sorted(ids + [2**64 - 1, 10**19]), dtype=np.uint64)  # 64-bit arithmetic
    assert [int(h) for h in buckets(wide)] == [zlib.crc32(repr(int(i)).encode()) for i in wide]
    assert [int(h) for h in buckets(["a", 7, "7"])] == [bucket("a"), bucket(7), bucket("7")]


@pytest.mark.parametrize("per_task", [1, 3, 5])
def test_sampling_up_front_keeps_what_the_log_would_keep(per_task):
    """A kind that knows its tasks and records only the ones ``sample_up_front`` names ends
    with the tasks, stride and counts of a log handed every decision that thinned itself."""
    ids = np.arange(3, 5003, 7)
    whole, ahead = DecisionLog(limit=300), DecisionLog(limit=300)
    keep = ahead.sample_up_front(ids, per_task)
    assert keep is not None and ahead.stride > 1
    for k in range(per_task):
        for i, task in enumerate(ids.tolist()):
            whole.add(float(k), task, "held" if k % 2 else "mapped", f"step {k}")
            if keep[i]:
                ahead.add(float(k), task, "held" if k % 2 else "mapped", f"step {k}")
    assert whole.export() == ahead.export()
    assert DecisionLog(limit=10_000).sample_up_front(ids, per_task) is None
    with pytest.raises(ValueError, match="before the first record"):
        ahead.sample_up_front(ids, per_task)


def test_tasks_asked_for_keep_their_whole_story_past_any_limit():
    log = DecisionLog(per_task=2, limit=6, always=[5, "target 9"])
    for k in range(4):
        for task in [*range(40), "target 9"]:
            log.add(float(k), task, "mapped" if k % 2 == 0 else "preempted", "step")
    out, info = log.export()
    for task in (5, "target 9"):
        assert [d["t"] for d in out if d["task"] == task] == [0.0, 1.0, 2.0, 3.0]
    assert info["always"] == [5, "target 9"] and "every task asked for" in info["sampling"]
    assert info["tasks_seen"] == 41  # sampling stopped with only the asked-for tasks left
    ahead = DecisionLog(limit=50, always=[3])
    keep = ahead.sample_up_front(np.arange(200), 2)
    assert keep[3] and ahead.keeps(3) and ahead.keeps(3) == bool(keep[3])
    assert all(ahead.keeps(int(i)) == bool(keep[i]) for i in range(200))
    # a number asked for beside a text id (the lab's "12, target 3") is still found
    mixed = DecisionLog(limit=50, always=[3, "target 9"]).sample_up_front(np.arange(200), 2)
    assert mixed[3] and mixed.sum() == keep.sum()


@pytest.mark.parametrize("task_by_task", [False, True])
def test_a_log_sampled_ahead_that_thins_itself_counts_every_task_once(task_by_task):
    """Thinning may leave out tasks sampled ahead before their first record (task by task:
    the later tasks); they count as seen once, like the tasks left out ahead."""
    ids = np.arange(2000)
    log = DecisionLog(limit=200)
    keep = log.sample_up_front(ids, 1)  # expects one decision a task; each makes three
    steps = [(k, i) for k in range(3) for i in np.flatnonzero(keep).tolist()]
    for k, i in sorted(steps, key=lambda s: s[::-1]) if task_by_task else steps:
        log.add(float(k), i, "mapped", "step")
    assert log.stride > 16  # it thinned itself past the stride chosen ahead
    for i in range(2000):  # asking about any task, sampled ahead or not, counts it once
        assert log.keeps(i) == (bucket(i) % log.stride == 0)
    _, info = log.export()
    assert info["tasks_seen"] == 2000 and info["recorded"] <= 200


def test_numbers_as_one_dict_record_what_keywords_record():
    by_keywords, by_dict = DecisionLog(), DecisionLog()
    shared = {"free": 3, "nodes": 8}  # one dict for many tasks, as a group's hold passes it
    for k in range(3):
        for task in range(4):
            by_keywords.add(float(k), task, "held", "waits", free=3, nodes=8)
            by_dict.add(float(k), task, "held", "waits", shared)
        by_keywords.add(float(k), 9, "mapped", "go", where="n1", free=k)
        by_dict.add(float(k), 9, "mapped", "go", {"where": "n1"}, free=k)  # merged, dict first
    assert by_dict.export() == by_keywords.export()
    assert shared == {"free": 3, "nodes": 8}  # the log never changes the numbers it keeps


def test_an_export_is_a_snapshot_that_later_decisions_do_not_change():
    """The log hands out its records as they are and writes a wait's repeats onto a copy: a
    later repeat, or a second export, leaves what was exported before as it was."""
    log = DecisionLog(per_task=2)
    log.add(0.0, 1, "held", "full", free=0)
    log.add(1.0, 1, "held", "full", free=1)
    first, _ = log.export()
    assert first == [{"t": 0.0, "task": 1, "action": "held", "reason": "full", "free": 0,
                      "count": 2, "t_last": 1.0, "last": {"free": 1}}]
    for k in range(2, 5):  # more repeats, then waits past the cap of 2
        log.add(float(k), 1, "held", "full", free=1)
    log.add(5.0, 1, "held", "other", free=2)
    log.add(6.0, 1, "held", "third", free=3)
    second, info = log.export()
    assert first[0]["count"] == 2 and "omitted_before" not in first[0]
    assert [(d["reason"], d.get("count", 1), d.get("omitted_before", 0)) for d in second] == [
        ("full", 5, 0), ("third", 1, 1)]
    assert second[0]["last"] == {"free": 1} and info["omitted"] == 1
    assert log.export() == (second, info)


batches_strategy = st.lists(
    st.tuples(st.lists(st.integers(0, 15), max_size=12), st.sampled_from(["held", "mapped"]),
              st.sampled_from(["a", "b"]), st.booleans(), st.booleans()),
    max_size=25)


@settings(max_examples=150, deadline=None)
@given(batches=batches_strategy, per_task=st.integers(2, 4), extra=st.integers(0, 25))
def test_a_decision_about_each_task_records_what_one_add_each_records(batches, per_task,
                                                                      extra):
    """``add_each`` counts a repeat itself and hands the rest to ``add``: the same export as
    ``add`` task by task, with shared numbers, per-task columns or both, and a limit that
    thins the log in the middle of a batch."""
    one_by_one = DecisionLog(per_task=per_task, limit=per_task + extra)
    at_once = DecisionLog(per_task=per_task, limit=per_task + extra)
    for k, (tasks, action, reason, share, per) in enumerate(batches):
        shared = {"free": k % 3} if share else None
        column = [k * 100 + task % 4 for task in tasks]
        for task, x in zip(tasks, column, strict=True):
            one_by_one.add(float(k), task, action, reason, shared or {},
                           **({"x": x} if per else {}))
        at_once.add_each(float(k), tasks, action, reason, shared,
                         **({"x": column} if per else {}))
    assert at_once.export() == one_by_one.export()


def test_a_column_of_another_length_than_its_tasks_is_refused_before_any_record():
    """A kind that passes one value too few (or too many) for its tasks finds out at once,
    with nothing half recorded; a generator of tasks and ``repeat`` columns are accepted."""
    log = DecisionLog()
    for column in ([1.0, 2.0], [1.0, 2.0, 3.0, 4.0]):
        with pytest.raises(ValueError, match=f"{len(column)} values for 3 tasks"):
            log.add_each(0.0, [1, 2, 3], "held", "full", x=column)
    assert len(log) == 0 and log.export()[0] == []
    log.add_each(0.0, (t for t in (1, 2)), "held", "full", free=repeat(0), x=iter([5, 6]))
    with pytest.raises(ValueError, match="1 values for 2 tasks"):
        log.add_each(1.0, [1, 2], "held", "other", x=iter([7]))
    assert [(d["task"], d["free"], d["x"]) for d in log.export()[0]] == [(1, 0, 5), (2, 0, 6)]


@pytest.mark.parametrize("typed, task", [
    ("12", 12), (" -5 ", -5), ("target 3", "target 3"), ("\u00b2", "\u00b2"),
    ("--5", "--5"), ("\u0663", "\u0663"), ("9" * 5000, "9" * 5000)])
def test_a_task_id_as_typed_is_a_number_only_for_ascii_digits(typed, task):
    # (``int`` refuses "²" and over 4,300 digits, which ``str.isdigit`` passes: an error once)
    assert explain.task_id(typed) == task
