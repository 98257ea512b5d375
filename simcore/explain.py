"""Reading a run's decisions (``simcore.decisions``): one task's story, every decision of some
actions, and where two runs of one scenario and seed part ways.

Pure functions on the ``decisions`` list of a result JSON, shared by the CLI (``explain``), the
API and the run pages.
"""

from __future__ import annotations

import math
import shlex
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from itertools import groupby
from operator import itemgetter
from typing import Any

from .decisions import ACTIONS, MOVES, STARTS, bucket
from .params import whole_number

# Fields every decision has; the rest are the numbers it rests on.
BASE_FIELDS = ("t", "task", "action", "reason")


class ExplainError(ValueError):
    """A request the decisions cannot answer; names what is wrong."""


def _kind_of(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a text", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def check_result(result: Any, name: str) -> dict:
    """``result`` (a JSON document read from ``name``) if it has the shape the readers here
    take, else an ExplainError naming ``name`` and the field: a file that is not a result, or
    a decision without its time, task, action or reason, is said so, not a traceback."""
    if not isinstance(result, dict):
        raise ExplainError(f"{name}: not a result: a JSON object expected, got "
                           f"{_kind_of(result)}")
    meta = result.get("meta", {})
    if not isinstance(meta, dict):
        raise ExplainError(f"{name}: meta: an object expected, got {_kind_of(meta)}")
    info = meta.get("decisions", {})
    if not isinstance(info, dict):
        raise ExplainError(f"{name}: meta.decisions: an object expected, got {_kind_of(info)}")
    stride = info.get("stride", 1)
    if type(stride) is not int or stride < 1:
        raise ExplainError(f"{name}: meta.decisions.stride: a whole number of at least 1 "
                           f"expected, got {stride!r:.40}")
    for key, kind in (("always", list), ("time_unit", str), ("across_runs", str),
                      ("sampled_by", str)):
        if info.get(key) is not None and not isinstance(info[key], kind):
            raise ExplainError(f"{name}: meta.decisions.{key}: {_kind_of(kind())} expected, "
                               f"got {_kind_of(info[key])}")
    decisions = result.get("decisions")
    if decisions is None:
        return result
    if not isinstance(decisions, list):
        raise ExplainError(f"{name}: decisions: a list of decisions expected, got "
                           f"{_kind_of(decisions)}")
    for i, d in enumerate(decisions):
        if not isinstance(d, dict):
            raise ExplainError(f"{name}: decisions[{i}]: an object expected, got {_kind_of(d)}")
        missing = [k for k in BASE_FIELDS if k not in d]
        if missing:
            raise ExplainError(f"{name}: decisions[{i}]: no {_either(missing)} (every "
                               f"decision has {', '.join(BASE_FIELDS[:-1])} and "
                               f"{BASE_FIELDS[-1]})")
        t, task = d["t"], d["task"]
        if type(t) not in (int, float) or t != t:
            raise ExplainError(f"{name}: decisions[{i}].t: a number expected, got {t!r:.40}")
        if type(task) not in (int, float, str):
            raise ExplainError(f"{name}: decisions[{i}].task: a number or a text expected, "
                               f"got {_kind_of(task)}")
        for key in ("action", "reason"):
            if not isinstance(d[key], str):
                raise ExplainError(f"{name}: decisions[{i}].{key}: a text expected, got "
                                   f"{_kind_of(d[key])}")
    return result


def same_task(a: Any, b: Any) -> bool:
    """Task ids as typed on a command line or a URL are strings; the JSON's may be numbers."""
    return a == b or str(a) == str(b)


def task_id(text: str) -> Any:
    """A task id as typed (``--explain-task``, the lab's "Keep these tasks' stories") as the
    log names it: a number for digits (the ids of most kinds), else the text ("target 3")."""
    text = text.strip()
    number = whole_number(text[1:] if text.startswith("-") else text, 18)
    return text if number is None else -number if text.startswith("-") else number


_T = itemgetter("t")


def in_time_order(decisions: list[dict]) -> list[dict]:
    """The decisions by time, those of one instant in the order they were made.

    A log is written in the order the decisions were made, which is not always time order:
    parallel-energy writes a reservation's start or a completion that fell between two mapping
    events when it reaches the later one, with its own earlier ``t``. Everything that reads a
    log in time (stories, listings, where two runs part) goes through here, so results of any
    kind and age read alike. A stable sort: Timsort passes once over a log already in order.
    """
    return sorted(decisions, key=_T)


def story(decisions: list[dict], task: Any) -> list[dict]:
    """Every kept decision about ``task``, in time order (:func:`in_time_order`)."""
    return in_time_order([d for d in decisions if same_task(d["task"], task)])


def unknown_actions(actions) -> list[str]:
    """The names in ``actions`` that are not actions (:data:`ACTIONS`), sorted."""
    return sorted(set(actions) - set(ACTIONS))


def of_actions(decisions: list[dict], actions) -> list[dict]:
    """Every decision whose action is one of ``actions``, in time order (an unknown action is
    an error)."""
    wanted = set(actions)
    unknown = unknown_actions(wanted)
    if unknown:
        raise ExplainError(f"action: unknown {', '.join(unknown)}; known: {', '.join(ACTIONS)}")
    return in_time_order([d for d in decisions if d["action"] in wanted])


def counts(decisions: list[dict]) -> dict[str, int]:
    """How many decisions of each action (repeats included), in :data:`ACTIONS` order."""
    c: Counter = Counter()
    for d in decisions:
        c[d["action"]] += d.get("count", 1)
    return {a: c[a] for a in ACTIONS if c[a]}


def numbers(decision: dict) -> dict:
    """The numbers a decision rests on (everything but its time, task, action and reason)."""
    return {k: v for k, v in decision.items() if k not in BASE_FIELDS}


def describe(decision: dict, unit: str = "") -> str:
    """One line: time, action, reason, numbers."""
    extra = ", ".join(f"{k}={_fmt(v)}" for k, v in numbers(decision).items())
    when = f"t={_fmt(decision['t'])}{unit}"
    return f"{when:>14}  {decision['action']:<10} {decision['reason']}" + (
        f"  [{extra}]" if extra else "")


def number_text(v: Any) -> str:
    """A number as the stories, listings and pages print it, one rule everywhere (the run
    page's ``numberText`` in app.js is the same, checked by a browser test): 6 significant
    digits but every digit of the integer part (a time of 7694634.2 s is ``7694634``, never
    ``7.69463e+06``), trailing zeros dropped, rounded half away from zero on the exact binary
    value as JavaScript's ``toFixed`` does; an exponent only below 1e-6 or from 1e21; a
    missing number (None) is ``none`` and a truth value reads as in JSON."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if not isinstance(v, int | float) or not math.isfinite(v):
        return str(v)
    a = abs(v)
    if a == 0:
        return "0"
    if a < 1e-6 or a >= 1e21:
        return f"{v:.6g}"
    lead = Decimal(repr(float(a))).adjusted()  # the first digit's power of ten
    text = f"{Decimal(v).quantize(Decimal(1).scaleb(-max(0, 5 - lead)), ROUND_HALF_UP):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _fmt(v: Any) -> str:
    if isinstance(v, dict):  # ``last``: a repeated decision's numbers the last time
        return "(" + ", ".join(f"{k}={_fmt(x)}" for k, x in v.items()) + ")"
    return number_text(v)


def fate(decisions: list[dict], subject=None) -> dict[Any, dict]:
    """Each task's last kept decision in time: how its story ended (by ``subject(decision)``
    in place of the task when given: :func:`subject_of`)."""
    last: dict[Any, dict] = {}
    for d in in_time_order(decisions):
        last[d["task"] if subject is None else subject(d)] = d
    return last


def ended_at(decision: dict) -> Any:
    """When a story that ends with ``decision`` ended: a wait repeated until ``t_last`` (a
    task held at every event) lasted till then, not till its first time."""
    return decision.get("t_last", decision["t"])


def end_text(decision: dict, unit: str = "") -> str:
    """How a story ended, in words: ``held at 100500 (the last of 136)``, with ``unit`` after
    the time when given (the run page's tasks table says it the same way)."""
    count = decision.get("count", 1)
    return (f"{decision['action']} at {_fmt(ended_at(decision))}{' ' + unit if unit else ''}"
            + (f" (the last of {count})" if count > 1 else ""))


def subject_of(field: str | None):
    """What a decision is about, as two runs of one scenario both name it: its task, or where
    a kind's task ids are the run's own (``meta.decisions.across_runs``: UAV surveils are
    numbered in start order, so two policies' surveil 7 are different surveils) the number
    each decision carries that names it in any run, as ``"<field> <number>"`` (``"target
    5"``, which is also the task of a UAV target's own waits)."""
    if not field:
        return lambda d: d["task"]
    return lambda d: f"{field} {d[field]}" if field in d else d["task"]


#: Numbers that say where a move put a task (beside ``where``): two runs that start a task on
#: one cluster in different P-states, configurations or sensors have parted ways there.
PLACEMENT = ("where", "pstate", "config", "sensor", "to_node")


def _identity(d: dict, subject) -> tuple:
    # What was decided, not why: two policies give different reasons for the same move, and
    # name a start by why it could happen (mapped, backfilled ahead of a reservation, resumed
    # after a preemption); one task started at one place at one instant is one fate.
    action = d["action"]
    return (repr(subject(d)), "started" if action in STARTS else action,
            *(repr(d.get(k)) for k in PLACEMENT))


def _check_comparable(a: dict, b: dict) -> None:
    meta_a, meta_b = a.get("meta", {}), b.get("meta", {})
    for key in ("scenario", "seed"):
        if meta_a.get(key) != meta_b.get(key):
            raise ExplainError(f"{key}: the two runs differ; only runs of one scenario and seed "
                               "(common random numbers) can be compared decision by decision")
    for name, result in (("first", a), ("second", b)):
        if result.get("decisions") is None:
            raise ExplainError(f"decisions: the {name} result has none; run it with --explain")


def divergence(a: dict, b: dict, top: int = 10) -> dict:
    """Where two results of one scenario and seed part ways.

    The moves (:data:`~simcore.decisions.MOVES`: a start, drop, preemption, ...; not the
    "held" and "filtered" that explain why nothing happened) are walked in time order
    (:func:`in_time_order`, whatever order the logs were written in); at each
    instant the two sets of moves (task, action, where) are compared, so the order in which a
    policy happened to list simultaneous moves does not count as a difference, nor does the
    name it gave a start (:data:`~simcore.decisions.STARTS`: one policy's "backfilled" is
    another's "mapped" when both start the task there then). Only tasks both
    logs kept are compared (the sampling of the more sampled log applied to both: it keeps
    tasks by a hash of their id, so the same tasks in both). Where a kind's task ids are the
    run's own (``meta.decisions.across_runs``), decisions are matched, and were sampled, by
    what they are about (:func:`subject_of`: UAV, the target); a log sampled by task id there
    (written before logs sampled so, no ``sampled_by``) cannot be compared.
    Returns ``first``: the first instant where they differ, the moves only one run made there,
    and for each task in them what the other run last said about it by then (``why_not``);
    and ``tasks``: the tasks whose fate differs most (a different last action first, then the
    largest time gap).
    """
    _check_comparable(a, b)
    infos = [r.get("meta", {}).get("decisions", {}) for r in (a, b)]
    stride = max(info.get("stride", 1) for info in infos)
    field = next((info["across_runs"] for info in infos if info.get("across_runs")), None)
    if field and any(info.get("stride", 1) > 1 and info.get("sampled_by") != field
                     for info in infos):
        raise ExplainError(f"decisions: a log sampled 1 task in {stride} by task id keeps "
                           f"different {field}s' decisions in each run (its task ids are the "
                           "run's own; logs written since sample by "
                           f"{field}); logs that kept every decision can be compared: run "
                           "both again, or with a higher --explain-limit (in the lab, the "
                           "host's HETSITE_EXPLAIN_LIMIT)")
    subject = subject_of(field)
    both = _kept_by_both(infos, stride, subject)
    # (in time order: the walk in instants, what the other run said "by then" and each
    # subject's last decision all read the log in time)
    da = in_time_order([d for d in a["decisions"] if both(d)])
    db = in_time_order([d for d in b["decisions"] if both(d)])
    kept = {repr(subject(d)) for d in da} | {repr(subject(d)) for d in db}
    first = _first_difference([d for d in da if d["action"] in MOVES],
                              [d for d in db if d["action"] in MOVES], subject)
    if first is not None:
        first["why_not"] = {"a": _last_before(da, first["only_b"], first["t"], subject),
                            "b": _last_before(db, first["only_a"], first["t"], subject)}
    fa, fb = fate(da, subject), fate(db, subject)
    rows = []
    for task in fa.keys() | fb.keys():
        x, y = fa.get(task), fb.get(task)
        if (x and y and _identity(x, subject) == _identity(y, subject)
                and ended_at(x) == ended_at(y)):
            continue
        one_sided = x is None or y is None
        rows.append({"task": task, "a": x, "b": y,
                     "action_differs": one_sided or x["action"] != y["action"],
                     "gap": 0.0 if one_sided else abs(float(ended_at(x)) - float(ended_at(y)))})
    rows.sort(key=lambda r: (not r["action_differs"], -r["gap"], repr(r["task"])))
    same = None if first is not None else "none" if not kept else "kept" if stride > 1 else "all"
    return {"policies": [a.get("meta", {}).get("policy"), b.get("meta", {}).get("policy")],
            "compared_by": field or "task", "compared_tasks": len(kept), "stride": stride,
            "first": first, "same_decisions": same, "summary_differs": _summary_differs(a, b),
            "differing_tasks": len(rows), "tasks": rows[:top]}


def _kept_by_both(infos: list[dict], stride: int, subject):
    """Whether both logs kept every decision about what a decision is about: its hash kept it
    at the larger stride (strides are powers of 2, so the smaller keeps it too), or each log
    kept it whole because it was asked for (``always``) or kept it by its own stride."""
    asked = [{repr(x) for x in info.get("always") or ()} for info in infos]
    if stride == 1:
        return lambda d: True
    if not any(asked):
        return lambda d: bucket(subject(d)) % stride == 0
    strides = [info.get("stride", 1) for info in infos]

    def both(d: dict) -> bool:
        key = subject(d)
        h = bucket(key)
        return h % stride == 0 or all(h % s == 0 or repr(key) in named
                                      for s, named in zip(strides, asked, strict=True))
    return both


def _summary_differs(a: dict, b: dict) -> list[str]:
    """The keys of the two results' ``summary`` whose values differ (none when either has no
    summary or an empty one: the lab's stored logs carry none unless the caller adds the
    run's)."""
    sa, sb = a.get("summary"), b.get("summary")
    if not isinstance(sa, dict) or not isinstance(sb, dict) or not sa or not sb:
        return []
    return sorted((k for k in sa.keys() | sb.keys() if not _same_value(sa.get(k), sb.get(k))),
                  key=str)


def _same_value(x: Any, y: Any) -> bool:
    # (a metric with nothing to average is NaN in both runs: the same value)
    return x == y or (isinstance(x, float) and isinstance(y, float) and x != x and y != y)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def sampling_text(by: str, stride: int) -> str:
    """How a log sampled at ``stride`` kept its tasks (or ``by``: targets), in words."""
    if stride >= 2**32:  # past every hash: only what was asked for is left
        return f"only the {by}s asked for"
    return f"1 {by} in {stride}"


def no_difference(found: dict, widen: str) -> str:
    """What a comparison that found no first difference (``found["first"]`` None) may claim,
    in one sentence: agreement only over what was compared. ``widen`` says how to keep more
    (the CLI's flags, the lab's setting). A comparison of nothing is no agreement
    (``same_decisions`` "none"), a sampled one holds for the subjects both logs kept only
    ("kept"), and where the results' summaries differ (``summary_differs``) although the
    decisions compared agree, the runs differ in what the logs did not keep."""
    by, stride, n = found["compared_by"], found["stride"], found["compared_tasks"]
    sample = sampling_text(by, stride)
    differs = found.get("summary_differs") or []
    shown = ", ".join(differs[:5]) + (f" and {len(differs) - 5} more" if len(differs) > 5 else "")
    if found["same_decisions"] == "none":
        if stride > 1:
            return (f"nothing to compare: sampled to {sample} at this limit, the two logs kept "
                    f"no decision about the same {by}; {widen}")
        return "nothing to compare: neither log kept a decision"
    if found["same_decisions"] == "kept":
        text = (f"the {_count(n, by)} both logs kept made the same decisions; "
                f"only those were compared (the logs kept {sample}; {widen})")
        if differs:
            text += (f"; the runs' summaries differ ({shown}): they differ in what the logs "
                     "did not keep")
        return text
    if differs:
        return (f"the two runs made the same decisions as far as their logs say, but their "
                f"summaries differ ({shown}): they differ in what the logs do not record")
    return "the two runs made the same decisions"


def first_text(found: dict, when: str) -> str:
    """The first difference's heading: of sampled logs, it is the first among what both kept
    only, and the whole runs may part earlier."""
    if found["stride"] == 1:
        return f"first difference at {when}"
    return (f"first difference among the {_count(found['compared_tasks'], found['compared_by'])}"
            f" both logs kept ({sampling_text(found['compared_by'], found['stride'])}) at {when};"
            " the whole runs may part earlier, in what the logs did not keep")


def _last_before(decisions: list[dict], moves: list[dict], t, subject) -> list[dict]:
    """For each subject of ``moves``, the last decision ``decisions`` made about it by ``t``."""
    tasks = {repr(subject(m)) for m in moves}
    last: dict[str, dict] = {}
    for d in decisions:
        if d["t"] > t:
            break
        key = repr(subject(d))
        if key in tasks:
            last[key] = d
    return list(last.values())


def first_lists(first: dict) -> list[tuple[str, list[dict]]]:
    """The lists of a first difference as the text and the pages show them, in order: what
    only A did there and what B last said about those tasks, then the same for B."""
    return [(f"{role} {side}", listed)
            for side, key, other in (("A", "only_a", "b"), ("B", "only_b", "a"))
            for role, side, listed in (("only", side, first[key]),
                                       ("meanwhile", other.upper(), first["why_not"][other]))]


def _first_difference(da: list[dict], db: list[dict], subject) -> dict | None:
    ga = [(t, list(g)) for t, g in groupby(da, key=lambda d: d["t"])]
    gb = [(t, list(g)) for t, g in groupby(db, key=lambda d: d["t"])]
    for (ta, xa), (tb, xb) in zip(ga, gb, strict=False):
        if ta != tb:
            earlier = xa if ta < tb else xb
            return {"t": min(ta, tb), "only_a": earlier if ta < tb else [],
                    "only_b": earlier if tb < ta else []}
        ca = Counter(_identity(d, subject) for d in xa)
        cb = Counter(_identity(d, subject) for d in xb)
        if ca != cb:
            # (each difference once: a many-task instant starts thousands of tasks a side)
            only_a, only_b = ca - cb, cb - ca
            return {"t": ta, "only_a": [d for d in xa if only_a[_identity(d, subject)]],
                    "only_b": [d for d in xb if only_b[_identity(d, subject)]]}
    if len(ga) != len(gb):
        longer, which = (ga, "only_a") if len(ga) > len(gb) else (gb, "only_b")
        t, rest = longer[min(len(ga), len(gb))]
        return {"t": t, "only_a": [], "only_b": [], which: rest}
    return None


def story_text(result: dict, task: Any, actions=None) -> str:
    """A task's story as printed by ``explain RESULT.json --task ID``."""
    decisions = result.get("decisions")
    if decisions is None:
        raise ExplainError("decisions: the result has none; run it with --explain")
    unit = result.get("meta", {}).get("decisions", {}).get("time_unit", "")
    chosen = story(decisions, task) if task is not None else in_time_order(decisions)
    if actions:
        chosen = of_actions(chosen, actions)
    if task is not None and not chosen:
        raise ExplainError(_nothing_about(result, task, actions))
    head = f"task {task}" if task is not None else "all tasks"
    lines = [f"{head}: {_count(len(chosen), 'decision')}"]
    lines += [("" if task is not None else f"[{d['task']}] ") + describe(d, unit)
              for d in chosen]
    return "\n".join(lines)


def _nothing_about(result: dict, task: Any, actions) -> str:
    """Why ``explain --task`` found nothing to print: what the log holds about the task, and
    whether the sampling, the run or the actions asked for left it empty."""
    told = story(result["decisions"], task)
    if told:  # (only the actions asked for ruled it out)
        had = list(dict.fromkeys(d["action"] for d in told))
        return (f"task: {task!r} has {_count(len(told), 'decision')}, none of them "
                f"{_either(list(actions))} (its actions: {', '.join(had)})")
    info = result.get("meta", {}).get("decisions", {})
    stride, field = info.get("stride", 1), info.get("sampled_by")
    noun = field or "task"
    # a hint the user can paste: a UAV target's id has a space
    again = f"the same run with --explain-task {shlex.quote(str(task))} keeps its whole story"
    head = f"task: no decision about {task!r} in this result"
    out = left_out(info, task)
    if out is False and any(same_task(asked, task) for asked in info.get("always") or ()):
        return (f"{head}; it was asked for (--explain-task), so the sampling kept whatever "
                f"was decided about it: the run made no decision about it (no such {noun}, or "
                "it never reached a decision point)")
    if stride == 1:
        return (f"{head}; the log kept every {noun}, so the run made no decision about it (no "
                f"such {noun}, or it never reached a decision point)")
    sample = sampling_text(noun, stride)
    if out is None:
        return (f"{head}; the log kept {sample} with all its decisions, perhaps not this "
                f"one's: {again}")
    if out:
        return f"{head}; the log kept {sample} and left this one out: {again}"
    return (f"{head}; the log kept {sample}, this one among them: the run made no decision "
            "about it")


def left_out(info: dict, task: Any) -> bool | None:
    """Whether a log (its ``meta.decisions``, ``info``) left ``task`` out by its sampling:
    False when it kept every decision about it (unsampled, asked for, or kept by its hash),
    True when the hash left it out, None when the id does not say (a UAV surveil, where the
    log sampled by what the surveil is about)."""
    stride, field = info.get("stride", 1), info.get("sampled_by")
    if stride == 1 or any(same_task(asked, task) for asked in info.get("always") or ()):
        return False
    if field and not str(task).startswith(f"{field} "):
        return None
    return bool(bucket(task_id(str(task))) % stride)


def divergence_text(a: dict, b: dict, top: int = 10) -> str:
    """Where two runs part ways, as printed by ``explain A.json B.json``."""
    found = divergence(a, b, top)
    unit = a.get("meta", {}).get("decisions", {}).get("time_unit", "")
    pa, pb = found["policies"]
    by = found["compared_by"]
    widen = (f"raise --explain-limit, or keep chosen {by}s whole in both runs with "
             f"--explain-task {'ID' if by == 'task' else shlex.quote(f'{by} N')}")
    if found["same_decisions"] == "none":
        raise ExplainError("decisions: " + no_difference(found, widen))
    sampled = (f" (the logs kept {sampling_text(by, found['stride'])})"
               if found["stride"] > 1 else "")
    lines = [f"A = {pa}, B = {pb}: {_count(found['compared_tasks'], by)} compared{sampled}"]
    first = found["first"]
    if first is None:
        lines.append(no_difference(found, widen))
        return "\n".join(lines)
    lines.append(first_text(found, f"t={_fmt(first['t'])}{unit}") + ":")
    # (``top`` of each list: the first instant of a many-task run can start thousands)
    for who, listed in first_lists(first):
        who = ("  " if who.startswith("only") else "    ") + who
        lines += [f"{who}: [{d['task']}] " + describe(d, unit).strip() for d in listed[:top]]
        if len(listed) > top:
            lines.append(f"{who}: ... and {len(listed) - top} more (--top)")
    lines.append(f"{found['differing_tasks']} {by}s end differently; the most different:")
    for row in found["tasks"]:
        # (where, when a kind names it: two ends at one time may differ only in their place)
        ends = [f"{side} {end_text(x)}"
                + ("" if x.get("where") is None else f" (where={_fmt(x['where'])})")
                if x else f"{side}: no decision" for side, x in (("A", row["a"]), ("B", row["b"]))]
        name = f"task {row['task']}" if by == "task" else row["task"]  # ("target 5")
        lines.append(f"  {name}: " + ", ".join(ends))
    return "\n".join(lines)
