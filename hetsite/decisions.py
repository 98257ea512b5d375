"""An explained run's decisions as the lab keeps and reads them (docs/explain.md).

A run of an experiment with ``explain`` records every decision with its reason
(``simcore.decisions``), bounded by this site's ``HETSITE_EXPLAIN_LIMIT`` and
``HETSITE_EXPLAIN_PER_TASK``. The decisions are stored beside the full result in a blob of
their own (``Run.decisions_gz``), with the result meta two runs are compared by, so reading
them never decompresses the whole result; ``Run.decisions_info`` keeps the bounds and the
counts per action for lists. Everything here is read through ``simcore.explain``, the
functions the CLI's ``explain`` prints with; who may read a run is the caller's business
(``selectors.run_by_public_id``).
"""

from __future__ import annotations

import gzip
import json
import math
from typing import Any

from django.conf import settings

from simcore import explain
from simcore.decisions import ACTIONS, DecisionLog
from simcore.errors import ScenarioError
from simcore.params import whole_number

from .models import Run, Status

PAGE_SIZE = 50  # decisions or tasks per page of the API and the run page
TASK_CHARS = 100  # a task id asked for is at most this long
# The result meta two runs are compared by (scenario and seed) and that labels them.
META_KEYS = ("kind", "policy", "seed", "scenario", "decisions")


def decision_log(always=()) -> DecisionLog:
    """The log a lab run records into, with this site's bounds, keeping the whole story of
    the tasks ``always`` names (the experiment's ``explain_tasks``)."""
    return DecisionLog(per_task=settings.HETSITE_EXPLAIN_PER_TASK,
                       limit=settings.HETSITE_EXPLAIN_LIMIT, always=always)


def packed(data: dict) -> tuple[bytes | None, dict | None]:
    """``(decisions_gz, decisions_info)`` of a result (its JSON data); ``(None, None)`` when
    the run did not explain itself."""
    decisions = data.get("decisions")
    if decisions is None:
        return None, None
    meta = {k: data["meta"][k] for k in META_KEYS if k in data["meta"]}
    blob = json.dumps({"meta": meta, "decisions": decisions}, sort_keys=True,
                      separators=(",", ":")).encode()
    return (gzip.compress(blob, compresslevel=6),
            {**meta.get("decisions", {}), "counts": explain.counts(decisions)})


def load(run: Run) -> dict:
    """``{"meta", "decisions"}`` of an explained run, the shape ``simcore.explain`` reads, the
    decisions in time order as the CLI reads them (``simcore.explain.in_time_order``: a blob
    stores them as the run wrote them, which for some kinds is not time order); a run without
    decisions is a ScenarioError naming ``decisions``."""
    if run.status != Status.DONE or not run.decisions_gz:
        raise ScenarioError("decisions", why_none(run))
    data = json.loads(gzip.decompress(bytes(run.decisions_gz)))
    data["decisions"] = explain.in_time_order(data["decisions"])
    return data


NOT_RECORDING = "its kind does not record its decisions yet"


def why_none(run: Run) -> str:
    if run.status == Status.FAILED:
        return "the run failed, so it has no result"
    if run.status == Status.CANCELLED:
        return "the run was cancelled before it finished"
    if run.status != Status.DONE:
        return "the run has not finished"
    if not run.experiment.explain:
        return ("the run did not record its decisions; run it again with "
                "\"Explain decisions\" (API: \"explain\": true)")
    return "the run recorded no decisions"


def _page_number(raw: Any) -> int:
    number = whole_number(1 if raw in (None, "") else raw)
    if number is None or number < 1:
        raise ScenarioError("page", "must be a positive integer")
    return number


def _one_page(rows: list, number: int) -> tuple[list, dict]:
    """One page of ``rows`` and its paging facts; past the last page is an error naming it
    (the first page of nothing is empty)."""
    pages = max(1, math.ceil(len(rows) / PAGE_SIZE))
    if number > pages:
        raise ScenarioError("page", f"there is no page {number}; the last is {pages}")
    return rows[(number - 1) * PAGE_SIZE: number * PAGE_SIZE], {
        "page": number, "pages": pages, "page_size": PAGE_SIZE, "total": len(rows)}


def actions_asked(raw: str | None) -> list[str]:
    """``?action=dropped,expired`` as a list (empty: every action); an unknown one is a
    ScenarioError naming ``action``."""
    asked = [a.strip() for a in (raw or "").split(",") if a.strip()]
    unknown = explain.unknown_actions(asked)
    if unknown:
        shown = ", ".join(u[:40] for u in unknown[:5])
        raise ScenarioError("action", f"unknown {shown}; known: {', '.join(ACTIONS)}")
    return asked


def decisions_page(run: Run, *, task: str | None = None, action: str | None = None,
                   page: Any = 1) -> dict:
    """One page of a run's decisions, of one task (its story) and of some actions if asked,
    with the counts per action of the whole run and the bounds the log kept to."""
    if task is not None and len(task) > TASK_CHARS:
        raise ScenarioError("task", f"at most {TASK_CHARS} characters")
    wanted, number = actions_asked(action), _page_number(page)  # before opening the log
    data = load(run)
    rows = data["decisions"]
    if task not in (None, ""):
        rows = explain.story(rows, task)
    if wanted:
        rows = explain.of_actions(rows, wanted)
    shown, paging = _one_page(rows, number)
    bounds = data["meta"].get("decisions", {})
    out = {"run": str(run.public_id), "policy": run.policy, "task": task or None,
           "actions": wanted, "bounds": bounds,
           "counts": explain.counts(data["decisions"]), **paging, "decisions": shown}
    if task not in (None, "") and not rows:
        # why a story is empty, as the CLI says it: only a task the sampling left out is
        # worth a clone that names it (None: the id does not say, a UAV surveil)
        out["left_out"] = explain.left_out(bounds, task)
    return out


def tasks_page(run: Run, page: Any = 1) -> dict:
    """One page of the tasks the run's log kept, in the order of their first decision in time:
    how many decisions each has and how its story ended (its last decision in time)."""
    number = _page_number(page)
    data = load(run)
    first: dict[str, dict] = {}
    for d in data["decisions"]:
        row = first.get(repr(d["task"]))
        if row is None:
            row = first[repr(d["task"])] = {"task": d["task"], "t_first": d["t"],
                                            "decisions": 0}
        row["decisions"] += 1
        row["last"] = d
    shown, paging = _one_page(list(first.values()), number)
    return {"run": str(run.public_id), "bounds": data["meta"].get("decisions", {}), **paging,
            "tasks": shown}


def compare(a: Run, b: Run, top: int = 10) -> dict:
    """Where two runs part ways (``simcore.explain.divergence``), or why they cannot be
    compared decision by decision: ``{"found": divergence or None, "problem": text}``."""
    for name, run in (("first", a), ("second", b)):
        if run.status != Status.DONE or not run.decisions_gz:
            return {"found": None, "problem": f"the {name} run ({run.policy} #{run.trial}) has "
                                              f"no decisions: {why_none(run)}."}
        if not (run.decisions_info or {}).get("tasks_seen"):
            # Two empty logs would otherwise "make the same decisions".
            return {"found": None, "problem": f"the {name} run ({run.policy} #{run.trial}) "
                                              f"recorded no decision: {NOT_RECORDING}."}
    try:
        # (with each run's summary: decisions that agree where the results do not are said
        # to leave out what made the difference)
        found = explain.divergence({**load(a), "summary": a.summary},
                                   {**load(b), "summary": b.summary}, top=top)
    except explain.ExplainError as err:
        field, _, message = str(err).partition(": ")
        return {"found": None, "problem": f"{field}: {message}"}
    if found["same_decisions"] == "none":
        # a comparison of nothing is no agreement: as a problem, like two empty logs
        return {"found": None, "problem": "decisions: " + explain.no_difference(
            found, widen(found["compared_by"])) + "."}
    found["time_unit"] = (a.decisions_info or {}).get("time_unit", "")
    return {"found": found, "problem": "", "shown": _shown(found)}


def widen(by: str) -> str:
    """How a lab user keeps more of two runs' decisions, for the comparison's words."""
    return (f"this host's HETSITE_EXPLAIN_LIMIT bounds each log, and {by}s named under "
            "\"Keep these tasks' stories\" keep their whole story in every run")


#: Moves the compare pages list per run and side at the first difference; a row says how many
#: more there are.
SHOWN_MOVES = 20


def _shown(found: dict) -> dict:
    """The divergence as the compare pages draw it: the first difference's rows (what only
    one run did there, and what the other last said about those tasks by then) and the tasks
    whose fate differs most."""
    first = found["first"]
    rows = []
    if first is not None:
        for who, listed in explain.first_lists(first):
            # (the first instant of a many-task run can start thousands: the API has all)
            rows += [{"who": who, **cells(d)} for d in listed[:SHOWN_MOVES]]
            if len(listed) > SHOWN_MOVES:
                rows.append({"who": who, "more": len(listed) - SHOWN_MOVES})
    # (what no first difference means: agreement only over what was compared)
    same = "" if first else explain.no_difference(found, widen(found["compared_by"]))
    by, stride = found["compared_by"], found["stride"]
    return {"t_text": number_text(first["t"]) if first else "", "rows": rows, "same_text": same,
            "compared_text": f"{found['compared_tasks']} {by}"
                             + ("" if found["compared_tasks"] == 1 else "s"),
            # (of sampled logs the first difference is the first among what both kept only)
            "sample_text": explain.sampling_text(by, stride) if stride > 1 else "",
            "tasks": [{"task": r["task"], "a": _ended(r["a"]), "b": _ended(r["b"]),
                       "gap": number_text(r["gap"])} for r in found["tasks"]]}


def _ended(decision: dict | None) -> dict | None:
    """A fate row's side: how the story ended (a repeated wait at its last time)."""
    return None if decision is None else {**cells(decision),
                                          "end_text": explain.end_text(decision)}


def pair_of_policies(experiment, policies: list[str], trial: Any = None) -> dict:
    """What the side-by-side page of an experiment says about its runs' decisions: for two
    policies, where their runs of one trial (``trial``, else the first both finished) part
    ways; otherwise, or without decisions, why not."""
    out = {"found": None, "problem": "", "a": None, "b": None, "trials": []}
    if not experiment.explain:
        out["problem"] = ("these runs did not record their decisions: clone the experiment "
                          "with \"Explain decisions\" to compare them decision by decision.")
        return out
    if len(policies) != 2:
        out["problem"] = "pick exactly two policies to compare their decisions."
        return out
    runs = {(r.policy, r.trial): r for r in experiment.runs.filter(
        policy__in=policies, point=0, status=Status.DONE).defer("result_gz", "series", "dist")}
    both = sorted(t for (p, t) in runs if p == policies[0] and (policies[1], t) in runs)
    out["trials"] = both
    if not both:
        out["problem"] = "no trial has finished runs of both policies yet."
        return out
    chosen = whole_number(trial)
    chosen = chosen if chosen in both else both[0]
    out.update(trial=chosen, a=runs[policies[0], chosen], b=runs[policies[1], chosen])
    return {**out, **compare(out["a"], out["b"])}


def pair_of_runs(runs: list[Run]) -> dict:
    """The same for runs picked from any experiments: exactly two, of one scenario and seed."""
    if len(runs) != 2:
        return {"found": None, "a": None, "b": None,
                "problem": f"pick exactly two runs to compare their decisions "
                           f"({len(runs)} picked)."}
    return {"a": runs[0], "b": runs[1], **compare(runs[0], runs[1])}


number_text = explain.number_text  # (one rule for the CLI, the pages and app.js)


def cells(decision: dict) -> dict:
    """A decision as the pages show it: its fields and its numbers as ``name=value`` text."""
    return {**decision, "t_text": number_text(decision["t"]),
            "numbers_text": ", ".join(f"{k}={number_text(v)}"
                                      for k, v in explain.numbers(decision).items())}
