"""The request side: validate an experiment once, price it, store it, start dispatching.

An experiment is a scenario x policies x trials, optionally swept over the product of one or
more parameter axes; every (point, policy, trial) is one run with its own parameter overrides
and its estimated cost. Creation checks the caller's account may queue it (``admission``),
writes the scenario, the experiment, its runs and its summary cells in one transaction, and
when that commits runs one dispatch pass (``dispatch``: a few messages, fairly between
accounts; the other runs wait in the database). If the broker is unreachable, the experiment is
deleted again and ``BrokerUnavailable`` raised: nothing half-made is left behind.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from simcore.errors import ScenarioError
from simcore.explain import task_id
from simcore.params import describe, merge, parse_value, to_dict, with_overrides
from simcore.result import code_version
from simcore.sweep import points as sweep_points

from .. import kinds, uploads
from ..decisions import TASK_CHARS
from ..models import FINAL_STATUSES, Experiment, Run, Scenario, Status, SummaryRow, Visibility
from ..permissions import SITE, Account
from . import admission
from . import dispatch as dispatcher
from .execution import cell_metrics, refresh_experiment

log = logging.getLogger(__name__)


class BrokerUnavailable(Exception):
    """The task broker could not take the experiment's runs."""


@dataclass(frozen=True)
class Submission:
    """A validated experiment request, ready to be stored."""

    kind_lab: kinds.LabKind
    params: dict  # normalized by the engine (defaults filled in)
    policies: list[str]
    trials: int
    base_seed: int
    name: str
    preset: str
    # The preset's own normalized parameters, when a preset was named (reuses its row).
    preset_params: dict | None = None
    # Swept parameters: [{"param": dotted name, "values": [...]}, ...]; their product gives
    # the points, each a dict of dotted overrides ({} for an experiment without axes).
    axes: list[dict] = field(default_factory=list)
    points: list[dict] = field(default_factory=lambda: [{}])
    figure: str = ""  # the figure preset reproduced, if any
    visibility: str = Visibility.UNLISTED
    notes: str = ""
    tags: str = ""
    uploads: tuple[str, ...] = ()  # SHA-256 of every upload the scenario or its axes name
    staged: tuple[uploads.StagedUpload, ...] = ()  # the ones this submission brings
    # Estimated worker-seconds of one run, per point and policy (the kind's cost estimate).
    costs: list[list[float]] = field(default_factory=list)
    # How a figure preset's size exceeds the site's ordinary limits ("" within them).
    beyond_site_limits: str = ""
    # Its runs record their decisions with the reasons (experiments without a sweep only),
    # keeping these tasks' whole stories whatever the sampling.
    explain: bool = False
    explain_tasks: list = field(default_factory=list)

    @property
    def run_count(self) -> int:
        return len(self.points) * len(self.policies) * self.trials

    @property
    def estimate_s(self) -> float:
        return self.trials * sum(sum(row) for row in self.costs)


def limits() -> dict:
    return {"max_trials": settings.HETSITE_MAX_TRIALS,
            "max_policies": settings.HETSITE_MAX_POLICIES,
            "max_runs": settings.HETSITE_MAX_RUNS,
            "max_points": settings.HETSITE_MAX_POINTS}


def lab_kind(kind: str) -> kinds.LabKind:
    kind_lab = kinds.get_kind(kind)
    if kind_lab is None:
        known = ", ".join(k.kind for k in kinds.all_kinds())
        raise ScenarioError("kind", f"unknown scenario kind {kind!r}; known: {known}")
    return kind_lab


def _preset_params(kind_lab: kinds.LabKind, preset: str) -> dict:
    info = kind_lab.engine.get_preset(preset)
    if info.kind != kind_lab.kind:
        raise ScenarioError("preset", f"preset {preset!r} is for {info.kind!r}, "
                                      f"not {kind_lab.kind!r}")
    return to_dict(kind_lab.engine.scenario(kind_lab.kind, info.params).params)


def validate_scenario(*, kind: str, params: dict | None = None, preset: str = "",
                      who=None) -> dict:
    """The engine-normalized parameters (defaults filled in); raises ScenarioError. With
    ``who`` (a ``permissions.Viewer``), every upload named must be one they may use."""
    normalized = _normalize(lab_kind(kind), params, preset)[0]
    if who is not None:
        uploads.check_usable(uploads.upload_refs(normalized), who)
    return normalized


def _normalize(kind_lab: kinds.LabKind, params: dict | None,
               preset: str) -> tuple[dict, dict | None]:
    if params is not None and not isinstance(params, dict):
        raise ScenarioError("params", "must be an object of parameters")
    check_size("params", params)
    if _holds_nul(params):
        raise ScenarioError("params", "must not contain the NUL character (\\u0000)")
    base = _preset_params(kind_lab, preset) if preset else None
    merged = merge(base, params or {}) if base is not None else (params or {})
    normalized = to_dict(kind_lab.engine.scenario(kind_lab.kind, merged).params)
    check_size("params", normalized)  # defaults filled in
    return normalized, base


def _holds_nul(value) -> bool:
    """Whether a NUL character is in any key or text of JSON data (without recursion)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if "\x00" in node:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False


def check_size(field_name: str, value) -> None:
    """Refuse a value larger as JSON than ``HETSITE_MAX_SCENARIO_BYTES`` (every scenario is
    stored and sent back whole)."""
    cap = settings.HETSITE_MAX_SCENARIO_BYTES
    size = len(json.dumps(value, separators=(",", ":"), default=str))
    if size > cap:
        raise ScenarioError(field_name, f"is {size:,} bytes as JSON; this site stores at most "
                                        f"{cap:,} (HETSITE_MAX_SCENARIO_BYTES); a long list "
                                        "of run times can be uploaded as a file instead")


def validate_submission(*, kind: str, params: dict | None = None, preset: str = "",
                        policies: list[str], trials: int, base_seed: int = 0,
                        name: str = "", axes: list[dict] | None = None,
                        visibility: str = Visibility.UNLISTED, notes: str = "",
                        tags="", lim: dict | None = None, who=None,
                        staged: tuple[uploads.StagedUpload, ...] = (),
                        explain: bool = False, explain_tasks=None) -> Submission:
    """Check an experiment request against the engine; raises ScenarioError naming the field.
    ``lim`` replaces the site's limits (a figure preset brings its own sizes). ``who`` (a
    ``permissions.Viewer``; None for the site's own commands) must be allowed every upload
    the scenario or its axes name, unless ``staged`` brings it with this submission.
    ``explain``: every run records its decisions with their reasons (:func:`check_explain`),
    keeping the whole story of the tasks ``explain_tasks`` names (:func:`clean_explain_tasks`)."""
    kind_lab = lab_kind(kind)
    labels = clean_labels(visibility=visibility, notes=notes, tags=tags)
    normalized, preset_params = _normalize(kind_lab, params, preset)
    lim = lim or limits()
    if not policies:
        raise ScenarioError("policies", "choose at least one policy")
    if len(policies) > lim["max_policies"]:
        raise ScenarioError("policies", f"at most {lim['max_policies']} policies per experiment")
    if len(set(policies)) != len(policies):
        raise ScenarioError("policies", "each policy may be chosen once")
    for policy in policies:
        try:
            kind_lab.engine.get_policy(kind, policy)
        except ScenarioError as err:
            raise ScenarioError("policies", err.message) from None
    if isinstance(trials, bool) or not isinstance(trials, int) or not (
            1 <= trials <= lim["max_trials"]):
        raise ScenarioError("trials", f"must be an integer >= 1 and <= {lim['max_trials']}")
    if isinstance(base_seed, bool) or not isinstance(base_seed, int) or not (
            0 <= base_seed < 2**62):
        raise ScenarioError("base_seed", "must be an integer >= 0 and < 2^62")
    # Sizes are checked on the lengths alone: the product of the axes is built only once it is
    # known to fit (two 1,000-value axes would otherwise be a million dicts).
    axes = _clean_axes(kind_lab, axes or [], most=lim["max_points"])
    refs = uploads.upload_refs(normalized, axes)
    uploads.check_usable(refs, who, staged)
    n_points = math.prod(len(a["values"]) for a in axes)
    if n_points > lim["max_points"]:
        raise ScenarioError("axes", f"{n_points:,} sweep points; at most {lim['max_points']} "
                                    "(HETSITE_MAX_POINTS)")
    n_runs = n_points * len(policies) * trials
    if n_runs > lim["max_runs"]:
        field_name = "axes" if axes else "trials"
        raise ScenarioError(field_name, f"points x policies x trials must be <= "
                                        f"{lim['max_runs']} runs; this asks for {n_runs:,}")
    check_explain(explain, axes, n_runs)
    explain_tasks = clean_explain_tasks(explain_tasks, explain)
    points = sweep_points([(a["param"], a["values"]) for a in axes])
    costs = []
    factor = 1.0 + settings.HETSITE_EXPLAIN_OVERHEAD if explain else 1.0
    with uploads.staging(staged):
        for point in points:
            try:
                spec = kind_lab.engine.scenario(kind, with_overrides(normalized, point))
            except ScenarioError as err:
                raise ScenarioError("axes", f"{err.field}: {err.message}") from None
            point_params = to_dict(spec.params) if point else normalized
            check_site_limits(kind_lab, point_params)
            costs.append([kind_lab.run_seconds(point_params, policy, spec) * factor
                          for policy in policies])
    check_no_nul("name", name)
    name = (name or "").strip()[:200] or _default_name(kind_lab, preset, policies, axes)
    brought = {s.sha256: s for s in staged if s.sha256 in refs}
    return Submission(kind_lab, normalized, list(policies), trials, base_seed, name, preset,
                      preset_params, axes, points, **labels, uploads=tuple(sorted(refs)),
                      staged=tuple(brought.values()), costs=costs, explain=explain,
                      explain_tasks=explain_tasks)


def check_explain(explain, axes: list, runs: int) -> None:
    """Explained runs are single runs one reads task by task: never a sweep's (sweeps keep
    their speed), at most ``HETSITE_EXPLAIN_MAX_RUNS`` of them (each stores a decision log)."""
    if not isinstance(explain, bool):
        raise ScenarioError("explain", "must be true or false")
    if not explain:
        return
    if axes:
        raise ScenarioError("explain", "only experiments without a sweep explain their "
                                       "decisions; remove the swept parameters or the option")
    most = settings.HETSITE_EXPLAIN_MAX_RUNS
    if runs > most:
        raise ScenarioError("explain", f"{runs:,} runs would explain themselves; at most "
                                       f"{most} (HETSITE_EXPLAIN_MAX_RUNS): fewer policies or "
                                       "trials")


def clean_explain_tasks(tasks, explain: bool) -> list:
    """The ids of the tasks whose whole story the runs keep (``--explain-task``'s): a list, or
    one comma-separated text, of at most ``HETSITE_EXPLAIN_MAX_TASKS`` ids of at most
    ``TASK_CHARS`` characters each, as the log names them (numbers for digits), once
    each; only with ``explain``. A ScenarioError names ``explain_tasks``."""
    if tasks in (None, "", []):
        return []
    if isinstance(tasks, str):
        tasks = [t for t in tasks.split(",") if t.strip()]
    not_ids = ScenarioError("explain_tasks", "must be a list of task ids or one "
                                             "comma-separated text of them")
    if not isinstance(tasks, list):
        raise not_ids
    most = settings.HETSITE_EXPLAIN_MAX_TASKS
    if len(tasks) > most:  # before looking at each
        raise ScenarioError("explain_tasks", f"{len(tasks):,} tasks; at most {most} "
                                             "(HETSITE_EXPLAIN_MAX_TASKS)")
    if not all(isinstance(t, (str, int)) and not isinstance(t, bool) for t in tasks):
        raise not_ids
    if tasks and not explain:
        raise ScenarioError("explain_tasks", "only with \"Explain decisions\" (explain: true)")
    cleaned = []
    for raw in tasks:
        text = str(raw).strip()
        check_no_nul("explain_tasks", text)
        if not text or len(text) > TASK_CHARS:
            raise ScenarioError("explain_tasks", f"each id is 1 to {TASK_CHARS} "
                                                 f"characters; got {text[:40]!r}")
        task = task_id(text)
        if task not in cleaned:
            cleaned.append(task)
    return cleaned


MAX_TAGS, MAX_TAG_CHARS, MAX_TAGS_TEXT = 20, 40, 500  # Experiment.tags holds 500


def normalize_tags(tags) -> str:
    """Tags as stored: lower case, comma-separated, unique, in the order given. At most
    ``MAX_TAGS`` of at most ``MAX_TAG_CHARS`` characters each (spaces run together), at most
    ``MAX_TAGS_TEXT`` characters stored, no NUL character (PostgreSQL refuses it in text): a
    ScenarioError naming ``tags`` otherwise, never a tag silently cut."""
    if tags is None:
        tags = ""
    if not isinstance(tags, (str, list, tuple)):
        raise ScenarioError("tags", "must be words separated by commas (or a list of them)")
    items = tags if isinstance(tags, (list, tuple)) else tags.split(",")
    items = [i for i in items if not isinstance(i, str) or i.strip()]  # "a, b," is two tags
    limits = f"at most {MAX_TAGS} tags of at most {MAX_TAG_CHARS} characters each"
    if len(items) > MAX_TAGS:
        raise ScenarioError("tags", f"{len(items):,} tags; {limits}")
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ScenarioError("tags", "must be words separated by commas (or a list of them)")
        check_no_nul("tags", item)
        tag = " ".join(item.replace(",", " ").split()).lower()
        if len(tag) > MAX_TAG_CHARS:
            raise ScenarioError("tags", f"{tag[:20]!r}... has {len(tag):,} characters; "
                                        f"{limits}")
        if tag and tag not in out:
            out.append(tag)
    text = ",".join(out)
    if len(text) > MAX_TAGS_TEXT:  # the column's width
        raise ScenarioError("tags", f"are {len(text):,} characters together (with a comma "
                                    f"between tags); at most {MAX_TAGS_TEXT}")
    return text


def check_no_nul(field_name: str, text) -> None:
    """Refuse a NUL character in text that is stored (PostgreSQL refuses it in text and JSON:
    a 500 there; SQLite kept it)."""
    if isinstance(text, str) and "\x00" in text:
        raise ScenarioError(field_name, "must not contain the NUL character (\\u0000)")


def clean_labels(*, visibility=None, notes=None, tags=None) -> dict:
    """The descriptive fields an owner sets (checked once for the form, the API and edits)."""
    out = {}
    if visibility is not None:
        if visibility not in Visibility.values:
            raise ScenarioError("visibility", f"must be one of {', '.join(Visibility.values)}")
        out["visibility"] = visibility
    if notes is not None:
        if not isinstance(notes, str) or len(notes) > 20_000:
            raise ScenarioError("notes", "must be text of at most 20,000 characters")
        check_no_nul("notes", notes)
        out["notes"] = notes.strip()
    if tags is not None:
        out["tags"] = normalize_tags(tags)
    return out


def update_experiment(experiment: Experiment, *, name=None, notes=None, tags=None,
                      visibility=None) -> Experiment:
    """Rename, annotate, tag or change the visibility of an experiment (its owner's edits)."""
    changes = clean_labels(visibility=visibility, notes=notes, tags=tags)
    if name is not None:
        if not isinstance(name, str) or not name.strip():
            raise ScenarioError("name", "must not be empty")
        if len(name.strip()) > 200:
            raise ScenarioError("name", "at most 200 characters")
        check_no_nul("name", name)
        changes["name"] = name.strip()
    if changes:
        Experiment.objects.filter(pk=experiment.pk).update(**changes)
        for key, value in changes.items():
            setattr(experiment, key, value)
    return experiment


def figure_submission(name: str, trials: int | None = None,
                      base_seed: int | None = None, with_policies=()) -> Submission:
    """The experiment that reproduces a figure preset: its trials and its seeds (from 1000,
    the recorded ones) unless ``trials`` or ``base_seed`` is given. ``with_policies`` adds
    other policies of the figure's kind (built in or installed as plugins) on the same seeds
    and points, to be compared with the published ones (field ``with_policies``)."""
    figure = kinds.get_figure(name)
    if figure is None:
        known = ", ".join(f.name for f in kinds.all_figures())
        raise ScenarioError("figure", f"unknown figure {name!r}; known: {known}")
    kind_lab = lab_kind(figure.kind)
    extra = _with_policies(kind_lab, figure, with_policies)
    params = with_overrides(_preset_params(kind_lab, figure.preset), figure.overrides)
    # The published trial counts (up to 1,000 missions) exceed what the site lets anyone ask
    # for; a figure preset is a fixed, reviewed size, so its own sizes are allowed too, up to
    # the publication's trial count when it states one.
    sub = validate_submission(
        kind=figure.kind, params=params, preset=figure.preset,
        policies=[*figure.policies, *extra],
        trials=figure.trials if trials is None else trials,
        base_seed=figure.first_seed if base_seed is None else base_seed,
        name=f"{figure.title} ({figure.source})" + (f" with {', '.join(extra)}" if extra
                                                    else ""),
        axes=[{"param": p, "values": list(v)} for p, v in figure.axes],
        lim=_figure_limits(figure, len(extra)))
    return _as_figure(sub, figure)


def _with_policies(kind_lab: kinds.LabKind, figure, names) -> list[str]:
    """The extra policies of a figure run, checked: each a policy of the figure's kind named
    once, not one the figure runs already, at most the site's policies per experiment."""
    if isinstance(names, str) or not isinstance(names, (list, tuple)) or not all(
            isinstance(n, str) for n in names):
        raise ScenarioError("with_policies", "must be a list of policy names")
    most = limits()["max_policies"]
    if len(names) > most:
        raise ScenarioError("with_policies", f"at most {most} policies may be added")
    if len(set(names)) != len(names):
        raise ScenarioError("with_policies", "each policy may be added once")
    for n in names:
        if n in figure.policies:
            raise ScenarioError("with_policies", f"{n!r} is one of the figure's own policies")
        try:
            kind_lab.engine.get_policy(figure.kind, n)
        except ScenarioError as err:
            raise ScenarioError("with_policies", err.message) from None
    return list(names)


def _figure_limits(figure, extra: int = 0) -> dict:
    """The site's limits, raised to a figure preset's own sizes (with ``extra`` policies)."""
    points = math.prod(len(v) for _, v in figure.axes)
    most = max(figure.trials, figure.paper_trials or 0)
    policies = len(figure.policies) + extra
    own = {"max_trials": most, "max_policies": policies,
           "max_points": points, "max_runs": points * policies * most}
    return {k: max(v, own[k]) for k, v in limits().items()}


def _as_figure(sub: Submission, figure) -> Submission:
    """``sub`` marked as reproducing ``figure``, with how its size exceeds the site's ordinary
    limits."""
    site = limits()
    sizes = {"max_trials": (sub.trials, "trials"), "max_policies": (len(sub.policies), "policies"),
             "max_points": (len(sub.points), "points"), "max_runs": (sub.run_count, "runs")}
    beyond = [f"{n:,} {what} > {site[key]:,}" for key, (n, what) in sizes.items()
              if n > site[key]]
    if sub.trials > figure.trials:  # toward the publication's count: beyond the scaled preset
        beyond.insert(0, f"{sub.trials:,} trials > the preset's {figure.trials:,}")
    return dataclasses.replace(sub, figure=figure.name, beyond_site_limits=", ".join(beyond))


def _clean_axes(kind_lab: kinds.LabKind, axes, most: int) -> list[dict]:
    """Each axis names a declared scalar parameter once and gives a non-empty list of at most
    ``most`` scalar values, either as ``values`` or as a range ``start``, ``stop`` and ``step``
    (see axis_values)."""
    if not isinstance(axes, list):
        raise ScenarioError("axes", "must be a list of {param, values}")
    if len(axes) > MAX_AXES:
        raise ScenarioError("axes", f"at most {MAX_AXES} swept parameters")
    declared = {d["name"]: d for d in describe(kind_lab.engine_kind.config_cls)}
    out, seen = [], set()
    for i, axis in enumerate(axes):
        where = f"axis {i + 1}"
        if not isinstance(axis, dict) or "param" not in axis:
            raise ScenarioError("axes", f"{where}: expected {{param, values}} or "
                                        "{param, start, stop, step}")
        param = axis["param"]
        # ``a+b`` links parameters that take each value together (simcore.sweep.points).
        for name in str(param).split("+"):
            info = declared.get(name)
            if info is None or info["type"] not in ("int", "float", "bool", "str"):
                known = ", ".join(n for n, d in declared.items()
                                  if d["type"] in ("int", "float", "bool", "str"))
                raise ScenarioError("axes", f"{where}: {name!r} is not a scalar parameter of "
                                            f"{kind_lab.kind!r} (scalar parameters: {known})")
            if name in seen:
                raise ScenarioError("axes", f"{where}: {name!r} is swept twice")
            seen.add(name)
        values = axis_values(axis, where, most)
        if len({repr(v) for v in values}) != len(values):
            raise ScenarioError("axes", f"{where} ({param}): values repeat")
        out.append({"param": param, "values": values})
    return out


MAX_AXES = 4
# The most values one axis may have whatever the point limit (a figure preset's own limit may
# be larger than the site's); the point limit usually refuses far earlier.
MAX_AXIS_VALUES = 1000
SCALAR = (bool, int, float, str, type(None))


def axis_values(axis: dict, where: str = "axis", most: int = MAX_AXIS_VALUES) -> list:
    """The values of one axis: ``values`` as given, or ``start`` to ``stop`` (inclusive) by
    ``step`` (added) or by ``factor`` (multiplied, for ranges that span decades). More than
    ``most`` values are refused from the count alone, before any is built."""
    most = min(most, MAX_AXIS_VALUES)
    keys = set(axis) - {"param"}
    if keys == {"values"}:
        values = axis["values"]
        if not isinstance(values, list):
            raise ScenarioError("axes", f"{where} ({axis['param']}): values must be a list, "
                                        "e.g. [8, 10, 12]; a range is start, stop and step "
                                        "(or factor), e.g. {\"start\": 8, \"stop\": 16, "
                                        "\"step\": 2}")
        if not values:
            raise ScenarioError("axes", f"{where} ({axis['param']}): give at least one value")
        _at_most(len(values), most, where)
        if not all(isinstance(v, SCALAR) and (not isinstance(v, str) or len(v) <= 200)
                   for v in values):
            raise ScenarioError("axes", f"{where} ({axis['param']}): values must be numbers, "
                                        "booleans or short strings")
        if _holds_nul(values):
            raise ScenarioError("axes", f"{where} ({axis['param']}): values must not contain "
                                        "the NUL character (\\u0000)")
        return list(values)
    if keys not in ({"start", "stop", "step"}, {"start", "stop", "factor"}):
        raise ScenarioError("axes", f"{where}: expected values, or start, stop and step (or "
                                    "factor)")
    start, stop = axis["start"], axis["stop"]
    by = axis.get("step", axis.get("factor"))
    if not all(_finite_number(v) for v in (start, stop, by)):
        raise ScenarioError("axes", f"{where}: start, stop and step must be finite numbers")
    geometric = "factor" in axis
    if (geometric and (by <= 1 or start <= 0)) or (not geometric and by <= 0) or stop < start:
        raise ScenarioError("axes", f"{where}: need start <= stop and a positive step (a "
                                    "factor > 1 from a positive start)")
    try:
        span = math.log(stop / start) / math.log(by) if geometric else (stop - start) / by
    except (OverflowError, ZeroDivisionError):  # 1e-300 to 1e300; -1e308 to 1e308
        span = math.inf
    if not span <= 1e15:  # too many to count exactly (floor(inf) raised OverflowError)
        raise ScenarioError("axes", f"{where}: {start!r} to {stop!r} by "
                                    f"{'*' if geometric else ''}{by!r} is more than "
                                    f"{most:,} values; at most {most} (HETSITE_MAX_POINTS)")
    _at_most(math.floor(span * (1 + 1e-9) + 1e-9) + 1, most, where)
    values, v = [], start
    while v <= stop + abs(stop) * 1e-9 + 1e-12 and len(values) <= most:  # (a negative stop too)
        values.append(v)
        v = v * by if geometric else start + len(values) * by
    _at_most(len(values), most, where)
    integral = all(isinstance(x, int) and not isinstance(x, bool) for x in (start, stop, by))
    return [int(round(x)) if integral else round(x, 12) for x in values]


def _finite_number(value) -> bool:
    """A JSON number (not a boolean) that a float holds finitely: ``math.isfinite`` raises
    OverflowError for an integer past the float range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _at_most(count: int, most: int, where: str) -> None:
    if count > most:
        raise ScenarioError("axes", f"{where}: {count:,} values; at most {most} "
                                    "(HETSITE_MAX_POINTS)")


def parse_axis_text(param: str, text: str) -> dict:
    """An axis from what a user types: ``8, 10, 12``, ``8:16:2`` (start:stop:step) or
    ``1:1000:*10`` (start:stop:*factor)."""
    text = (text or "").strip()
    if not text:
        raise ScenarioError("axes", f"{param}: give values, e.g. 8, 10, 12 or 8:16:2")
    if ":" in text:
        parts = [p.strip() for p in text.split(":")]
        if len(parts) != 3:
            raise ScenarioError("axes", f"{param}: a range is start:stop:step, e.g. 8:16:2")
        geometric = parts[2].startswith("*")
        nums = [parse_value(p.lstrip("*")) for p in parts]
        return {"param": param, "start": nums[0], "stop": nums[1],
                "factor" if geometric else "step": nums[2]}
    if text.count(",") >= MAX_AXIS_VALUES:  # refused before a value is parsed
        _at_most(text.count(",") + 1, MAX_AXIS_VALUES, param)
    return {"param": param, "values": [parse_value(v.strip()) for v in text.split(",")
                                       if v.strip()]}


def check_site_limits(kind_lab: kinds.LabKind, params: dict) -> None:
    """Refuse scenarios larger than this site allows (each declared limit, at its default or
    this site's override)."""
    for limit in kind_lab.limits:
        cap = kinds.limit_cap(limit)
        value = limit.measure(params)
        if value > cap:
            raise ScenarioError(limit.field, f"{limit.what} is {value:,.0f}, above this site's "
                                             f"limit {limit.name} = {cap:,} "
                                             f"(HETSITE_LIMIT_{limit.name.upper()})")


def _default_name(kind_lab, preset, policies, axes) -> str:
    head = preset or kind_lab.title
    more = f" +{len(policies) - 2}" if len(policies) > 2 else ""
    swept = f" vs {' x '.join(a['param'] for a in axes)}" if axes else ""
    return f"{head}: {', '.join(policies[:2])}{more}{swept}"


def _scenario_row(sub: Submission, ownership: dict) -> Scenario:
    """The preset's own row when the parameters are the preset's, else a new scenario (the
    experiment's owner owns it)."""
    if sub.preset:
        if sub.params == sub.preset_params:
            row, _ = Scenario.objects.get_or_create(
                is_preset=True, preset=sub.preset,
                defaults={"kind": sub.kind_lab.kind, "name": sub.preset, "params": sub.params,
                          "description": sub.kind_lab.engine.get_preset(sub.preset).description})
            return row
        name = f"{sub.preset} (edited)"
    else:
        name = sub.kind_lab.title
    return Scenario.objects.create(kind=sub.kind_lab.kind, name=name, preset=sub.preset,
                                   params=sub.params, **ownership)


def create_scenario(*, kind: str, name: str, params: dict, description: str = "",
                    preset: str = "", owner=None, owner_token: str = "") -> Scenario:
    """Save a named scenario; ``params`` must come from validate_scenario. ``owner`` or
    ``owner_token`` own it, as for experiments."""
    return Scenario.objects.create(kind=kind, name=name, params=params, preset=preset,
                                   description=description, **_ownership(owner, owner_token))


def _ownership(owner, owner_token: str) -> dict:
    """The ownership columns: a logged-in user, else an anonymous token."""
    if owner is not None and owner.is_authenticated:
        return {"owner": owner, "owner_token": ""}
    return {"owner": None, "owner_token": owner_token}


def create_experiment(sub: Submission, owner=None, dispatch: bool = True,
                      owner_token: str = "", account: Account = SITE) -> Experiment:
    """Store the experiment, its runs and its summary cells; a dispatch pass starts its runs
    once the rows are committed.

    ``owner`` (a user) or ``owner_token`` (an anonymous creator's cookie token, see
    ``hetsite.permissions``) say who may edit it; they also own the scenario and the uploads
    the submission brings, which are stored now and only now. ``account`` is what its work is
    charged to (``admission.Refused`` when it may not queue it; the default, the site, is not
    limited). Raises BrokerUnavailable (with nothing kept) when the broker cannot be reached.
    """
    ownership = _ownership(owner, owner_token)
    uploads.keep(sub.staged)
    try:
        with transaction.atomic():
            admission.admit(sub, account, sub.beyond_site_limits)
            scenario = _scenario_row(sub, ownership)
            experiment = Experiment.objects.create(
                name=sub.name, kind=sub.kind_lab.kind, scenario=scenario, policies=sub.policies,
                trials=sub.trials, base_seed=sub.base_seed, axes=sub.axes, figure=sub.figure,
                visibility=sub.visibility, notes=sub.notes, tags=sub.tags,
                code_version=code_version(), account=account.key, estimate_s=sub.estimate_s,
                explain=sub.explain, explain_tasks=sub.explain_tasks, **ownership)
            Run.objects.bulk_create([
                Run(experiment=experiment, point=point, overrides=overrides, policy=policy,
                    trial=trial, seed=sub.base_seed + trial, cost=sub.costs[point][i])
                for point, overrides in enumerate(sub.points)
                for i, policy in enumerate(sub.policies) for trial in range(sub.trials)
            ], batch_size=2000)
            empty = cell_metrics(sub.kind_lab, [])
            SummaryRow.objects.bulk_create([
                SummaryRow(experiment=experiment, point=point, policy=policy, setting=overrides,
                           metrics=empty)
                for point, overrides in enumerate(sub.points) for policy in sub.policies
            ], batch_size=2000)
            uploads.link(experiment, sub.uploads, [s.sha256 for s in sub.staged], **ownership)
            if dispatch:
                transaction.on_commit(lambda: _start(experiment))
    except BaseException:
        uploads.release(s.sha256 for s in sub.staged)
        raise
    return experiment


def _start(experiment: Experiment) -> None:
    """The dispatch pass after creation; an unreachable broker undoes the creation."""
    try:
        sent = dispatcher.dispatch()
        # A pass that sent nothing (the lookahead is full) has not talked to the broker.
        reachable, detail = (True, "") if sent else dispatcher.broker_reachable()
    except dispatcher.BrokerError as exc:
        reachable, detail = False, str(exc)
    if reachable:
        return
    log.warning("broker unreachable for experiment %s: %s", experiment.public_id, detail)
    # Runs of a partly sent pass find their rows gone and skip (claim_run).
    if not experiment.runs.exclude(status=Status.QUEUED).exists():
        _delete_with_scenario(experiment)
    raise BrokerUnavailable(f"the task broker is unreachable ({detail.split(':')[0]}); "
                            "nothing was saved, please try again shortly")


def cancel_experiment(experiment: Experiment) -> Experiment:
    """Queued runs are cancelled in one update and the few whose message waits in the broker
    are revoked; running ones stop at their next mapping event. The revoked messages' room in
    the broker goes to other experiments' runs at once (a worker discards a revoked message
    without running it, so no run's end would start that pass)."""
    from ..celery import app

    with transaction.atomic():
        Experiment.objects.filter(pk=experiment.pk).update(cancel_requested=True)
        queued = experiment.runs.filter(status=Status.QUEUED)
        ids = list(queued.filter(celery_id__gt="").values_list("celery_id", flat=True))
        queued.update(status=Status.CANCELLED, error="cancelled before it started",
                      finished=timezone.now())
    if ids:
        try:
            app.control.revoke(ids)
        except Exception as exc:  # the run rows are already cancelled; revoke is an optimization
            log.warning("could not revoke %d tasks: %s", len(ids), exc)
        dispatcher.top_up()
    return refresh_experiment(experiment.pk)


def rerun_experiment(experiment: Experiment, owner=None, account: Account = SITE) -> Experiment:
    """A new experiment with the same scenario, axes, policies, trials and seeds."""
    sub = validate_submission(kind=experiment.kind, params=experiment.scenario.params,
                              policies=list(experiment.policies), trials=experiment.trials,
                              base_seed=experiment.base_seed, axes=experiment.axes,
                              name=f"{experiment.name} (re-run)"[:200],
                              preset=experiment.scenario.preset,
                              visibility=experiment.visibility, tags=experiment.tags,
                              explain=experiment.explain, explain_tasks=experiment.explain_tasks)
    return create_experiment(sub, owner=owner, account=account)


def added_trials(experiment: Experiment, add: int) -> tuple[Submission, str]:
    """The runs ``add`` more trials of every (point, policy) would be, as a submission of their
    own for pricing (trials = ``add``), and how the experiment at its new size exceeds the
    site's ordinary limits (a figure's: "" within them). Raises ScenarioError naming ``add``
    when the new total is beyond the limits."""
    if isinstance(add, bool) or not isinstance(add, int) or add < 1:
        raise ScenarioError("add", "must be an integer >= 1")
    lim = _experiment_limits(experiment)
    total = experiment.trials + add
    if total > lim["max_trials"]:
        raise ScenarioError("add", f"{experiment.trials:,} trials + {add:,} = {total:,}; at most "
                                   f"{lim['max_trials']:,} trials per experiment "
                                   "(HETSITE_MAX_TRIALS)")
    try:
        whole = validate_submission(
            kind=experiment.kind, params=experiment.scenario.params, trials=total,
            preset=experiment.scenario.preset, policies=list(experiment.policies),
            base_seed=experiment.base_seed, name=experiment.name, axes=experiment.axes, lim=lim,
            explain=experiment.explain, explain_tasks=experiment.explain_tasks)
    except ScenarioError as err:
        field_name = "add" if err.field in ("trials", "axes", "explain") else err.field
        raise ScenarioError(field_name, err.message) from None
    figure = kinds.get_figure(experiment.figure) if experiment.figure else None
    if figure is not None:
        whole = _as_figure(whole, figure)
    return dataclasses.replace(whole, trials=add), whole.beyond_site_limits


def _experiment_limits(experiment: Experiment) -> dict:
    """A figure experiment's limits count the policies it added to the figure's."""
    figure = kinds.get_figure(experiment.figure) if experiment.figure else None
    if figure is None:
        return limits()
    return _figure_limits(figure, len(set(experiment.policies) - set(figure.policies)))


def trials_limit(experiment: Experiment) -> int:
    """The most trials the experiment may grow to (a figure's: its published count)."""
    return _experiment_limits(experiment)["max_trials"]


def add_trials(experiment: Experiment, add: int, account: Account = SITE) -> Experiment:
    """``add`` more trials of every (point, policy): new runs whose seeds continue the sequence
    (trial k has seed base_seed + k), priced and admitted like a new submission of those runs.
    The experiment is running again until they end; each run's end updates its summary cell,
    and a finished experiment's kept charts and tables are keyed on its (new) end time."""
    if experiment.cancel_requested and experiment.status not in FINAL_STATUSES:
        raise admission.Refused("add", "its cancelled runs are still stopping; try again when "
                                       "it has ended", status=409)
    extra, beyond = added_trials(experiment, add)
    first = experiment.trials
    with transaction.atomic():
        admission.admit(extra, account, beyond)
        # Conditional on the trial count read: two concurrent additions never make the same
        # trials twice (the second is refused and may be sent again).
        if not Experiment.objects.filter(pk=experiment.pk, trials=first).update(
                trials=first + add, estimate_s=F("estimate_s") + extra.estimate_s,
                cancel_requested=False):
            raise admission.Refused("add", "its trials changed meanwhile; reload it and try "
                                           "again", status=409)
        Run.objects.bulk_create([
            Run(experiment=experiment, point=point, overrides=overrides, policy=policy,
                trial=trial, seed=experiment.base_seed + trial, cost=extra.costs[point][i])
            for point, overrides in enumerate(extra.points)
            for i, policy in enumerate(extra.policies) for trial in range(first, first + add)
        ], batch_size=2000)
        refreshed = refresh_experiment(experiment.pk)
        transaction.on_commit(dispatcher.top_up)
    return refreshed


def delete_experiment(experiment: Experiment) -> None:
    """Cancel first (queued messages revoked, running runs told to stop), then delete: a run
    still simulating sees its experiment gone at its next event and ends there."""
    if experiment.status not in FINAL_STATUSES:
        cancel_experiment(experiment)
    _delete_with_scenario(experiment)


def _delete_with_scenario(experiment: Experiment) -> None:
    """Delete an experiment and its runs, its scenario unless a preset or shared, and the
    uploads no other experiment uses."""
    scenario = experiment.scenario
    used = list(experiment.upload_links.values_list("sha256", flat=True))
    experiment.delete()
    if not scenario.is_preset and not scenario.experiments.exists():
        scenario.delete()
    uploads.release(used)


def load_presets() -> int:
    """Create or update one Scenario row per engine preset; returns how many exist.

    Rows of presets the engines no longer have are deleted, or, when experiments used them,
    kept as ordinary scenarios (so their experiments still show what was run)."""
    names = set()
    for kind_lab in kinds.all_kinds():
        for preset in kind_lab.engine.list_presets(kind_lab.kind):
            Scenario.objects.update_or_create(
                is_preset=True, preset=preset.name,
                defaults={"kind": kind_lab.kind, "name": preset.name,
                          "params": _preset_params(kind_lab, preset.name),
                          "description": preset.description})
            names.add(preset.name)
    gone = Scenario.objects.filter(is_preset=True).exclude(preset__in=names)
    gone.filter(experiments__isnull=True).delete()
    gone.update(is_preset=False)
    return len(names)
