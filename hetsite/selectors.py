"""Reads for pages and the API: what to show, loaded with only the columns it needs."""

from __future__ import annotations

import gzip
import uuid
from dataclasses import dataclass

from django.db.models import Case, Count, Exists, IntegerField, OuterRef, Q, QuerySet, Value, When
from django.http import Http404
from django.shortcuts import get_object_or_404

from simcore.errors import ScenarioError
from simcore.params import whole_number, with_overrides

from . import kinds, permissions
from .models import Experiment, ExperimentUpload, Run, Scenario, Status, UploadOwner

# The compressed full result and decisions are large; pages never load them.
HEAVY = ("result_gz", "decisions_gz")


def parse_id(value) -> uuid.UUID:
    """A public id from a URL or query string; malformed ids are a 404, never a 500."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        raise Http404(f"{str(value)[:60]!r} is not an experiment or run id") from None


@dataclass(frozen=True)
class Browse:
    """The experiment browser's search and filters (home page and ``GET /api/experiments/``)."""

    q: str = ""
    kind: str = ""
    status: str = ""
    policy: str = ""
    owner: str = ""  # a username
    mine: bool = False

    @classmethod
    def from_query(cls, params) -> Browse:
        def get(name):
            return (params.get(name) or "").strip()[:100]

        return cls(q=get("q"), kind=get("kind"), status=get("status"), policy=get("policy"),
                   owner=get("owner"), mine=get("mine") in ("1", "true", "on", "yes"))

    def active(self) -> bool:
        return any((self.q, self.kind, self.status, self.policy, self.owner, self.mine))

    def unknown(self) -> tuple[str, str] | None:
        """(field, message) for a ``kind`` or ``status`` no experiment can have, with the
        known values: the list would be empty, which looks like an answer."""
        known = {"kind": [k.kind for k in kinds.all_kinds()], "status": [s.value for s in Status]}
        for name, values in known.items():
            given = getattr(self, name)
            if given and given not in values:
                return name, f"unknown {name} {given[:40]!r}; known: {', '.join(values)}"
        return None


def browse_experiments(who: permissions.Viewer, f: Browse = Browse()) -> QuerySet[Experiment]:
    """The experiments the viewer may list, filtered, newest first."""
    qs = permissions.listable(who, Experiment.objects.select_related("scenario", "owner"))
    if f.q:
        words = [w for w in f.q.split() if w][:8]
        for word in words:
            qs = qs.filter(Q(name__icontains=word) | Q(notes__icontains=word)
                           | Q(tags__icontains=word) | _running_a_policy_like(word))
    if f.kind:
        qs = qs.filter(kind=f.kind)
    if f.status:
        qs = qs.filter(status=f.status)
    if f.policy:
        qs = qs.filter(_running_a_policy_like(f.policy))
    if f.owner:
        qs = qs.filter(owner__username=f.owner)
    if f.mine:
        qs = qs.filter(permissions.mine(who))
    return qs.order_by("-created", "-id")


def policies_like(text: str) -> dict[str, list[str]]:
    """``{kind: [policy names]}`` of the policies whose name or label contains ``text``
    (ignoring case): "value per time" finds max-vpt, "VPT" finds max-vpt and max-vpt+p."""
    text = text.casefold()
    found = {}
    for kind_lab in kinds.all_kinds():
        names = [p.name for p in kind_lab.engine.list_policies(kind_lab.kind)
                 if text in p.name.casefold() or text in (p.label or "").casefold()]
        if names:
            found[kind_lab.kind] = names
    return found


def _running_a_policy_like(text: str) -> Q:
    """Experiments with a run of a policy named or labelled like ``text`` (in their own kind:
    the same name may mean another policy in another kind). Matched through the indexed runs
    (an experiment's policy list is JSON, which SQLite cannot search by element)."""
    match = Q(pk__in=[])
    for kind, names in policies_like(text).items():
        match |= Q(kind=kind) & Exists(Run.objects.filter(experiment=OuterRef("pk"),
                                                          policy__in=names))
    return match


def browse_choices() -> dict:
    """Values the browser's filters offer: the kinds and every policy name of every kind."""
    kind_labs = kinds.all_kinds()
    policies = sorted({p.name for kind_lab in kind_labs
                       for p in kind_lab.engine.list_policies(kind_lab.kind)})
    return {"kinds": [(kind_lab.kind, kind_lab.title) for kind_lab in kind_labs],
            "policies": policies, "statuses": [s.value for s in Status]}


def preset_scenarios() -> QuerySet[Scenario]:
    return Scenario.objects.filter(is_preset=True).order_by("kind", "preset")


def scenarios_for(who: permissions.Viewer) -> QuerySet[Scenario]:
    """The scenarios the viewer may list, newest first."""
    return permissions.listable_scenarios(who, Scenario.objects.all()).order_by("-created",
                                                                                 "-id")


def scenario_by_public_id(public_id, who: permissions.Viewer) -> Scenario:
    """The scenario, if ``who`` may read it (404 otherwise, as for experiments)."""
    qs = permissions.readable_scenarios(who, Scenario.objects.all())
    return get_object_or_404(qs, public_id=parse_id(public_id))


def uploads_of(who: permissions.Viewer) -> QuerySet[UploadOwner]:
    """The viewer's own uploads (one row per upload they hold), newest first."""
    return UploadOwner.objects.filter(permissions.mine(who)).order_by("-created", "-id")


def upload_row(claim: UploadOwner, who: permissions.Viewer) -> dict:
    """What the API shows of one of the viewer's uploads: its size and the records its check
    counted as stored (the JSON's ``jobs``: a trace's jobs, a list's run times), and how many
    of the viewer's own experiments use it (another's experiment using the same bytes is not
    theirs to know of, a private one least of all)."""
    from .uploads import upload_store

    stored = upload_store().info(claim.sha256)
    own = Experiment.objects.filter(permissions.mine(who))
    return {"sha256": claim.sha256, "ref": f"upload:{claim.sha256}",
            "size": stored.size if stored else None, "jobs": stored.records if stored else None,
            "experiments": ExperimentUpload.objects.filter(sha256=claim.sha256,
                                                           experiment__in=own).count(),
            "created": claim.created}


def experiment_by_public_id(public_id, who: permissions.Viewer | None = None) -> Experiment:
    """The experiment, if ``who`` may read it (404 otherwise: private ones are not revealed)."""
    qs = Experiment.objects.select_related("scenario", "owner")
    if who is not None:
        qs = permissions.readable(who, qs)
    return get_object_or_404(qs, public_id=parse_id(public_id))


def run_by_public_id(public_id, with_result: bool = False,
                     who: permissions.Viewer | None = None, with_decisions: bool = False) -> Run:
    """The run, if ``who`` may read its experiment (404 otherwise); its full result and its
    decisions are loaded only when asked for."""
    qs = Run.objects.select_related("experiment")
    if not with_result:
        qs = qs.defer(*(c for c in HEAVY if not (with_decisions and c == "decisions_gz")))
    if who is not None:
        # In the query, so a private run is the very 404 of a missing one, with nothing loaded
        qs = qs.filter(experiment__in=permissions.readable(who, Experiment.objects.all()))
    return get_object_or_404(qs, public_id=parse_id(public_id))


def _in_policy_order(experiment: Experiment, runs) -> list[Run]:
    order = {p: i for i, p in enumerate(experiment.policies)}
    return sorted(runs, key=lambda r: (order.get(r.policy, len(order)), r.trial))


def runs_of(experiment: Experiment, charts: bool = True) -> list[Run]:
    """Runs in the experiment's policy order, then by trial; without their chart data
    (series, distributions) when ``charts`` is False."""
    heavy = HEAVY if charts else (*HEAVY, "series", "dist")
    return _in_policy_order(experiment, experiment.runs.defer(*heavy))


RUNS_PAGE = 100


def _policy_order(experiment: Experiment):
    """A SQL expression of a run's policy's position in the experiment's list."""
    return Case(*[When(policy=p, then=Value(i)) for i, p in enumerate(experiment.policies)],
                default=Value(len(experiment.policies)), output_field=IntegerField())


def ordered_runs(experiment: Experiment, fields: tuple[str, ...] | None = None):
    """The runs in the order of :func:`runs_of` as a queryset, without their heavy columns
    (only ``fields`` when given)."""
    qs = experiment.runs.order_by(_policy_order(experiment), "trial", "point", "id")
    return only(qs, fields) if fields else qs.defer(*HEAVY, "series", "dist")


def only(runs: QuerySet[Run], fields) -> QuerySet[Run]:
    """``runs.only(*fields)`` that keeps the experiment's id: rows of a related manager
    (``experiment.runs``) link back to their experiment, and without the id each row would
    load it in a query of its own."""
    return runs.only(*fields, "experiment")


def runs_page(experiment: Experiment, page=1, size: int = RUNS_PAGE,
              fields: tuple[str, ...] | None = None) -> tuple[list[Run], dict]:
    """One page of an experiment's runs in the order of :func:`runs_of` (policy, trial, point),
    and the paging facts ``{"page", "pages", "total", "size"}``; a page out of range or
    malformed is clamped, never an error."""
    qs = ordered_runs(experiment, fields)
    total = experiment.runs.count()
    pages = max(1, -(-total // size))
    number = min(max(1, page if isinstance(page, int) else page_number(page)), pages)
    runs = list(qs[(number - 1) * size: number * size])
    return runs, {"page": number, "pages": pages, "total": total, "size": size,
                  "first": (number - 1) * size + 1, "last": min(number * size, total)}


def status_counts(experiment: Experiment, point: int | None = None) -> dict[str, int]:
    """Runs by status (of one sweep point when ``point`` is given)."""
    runs = experiment.runs if point is None else experiment.runs.filter(point=point)
    counts = dict(runs.order_by().values_list("status").annotate(n=Count("id")))
    return {s.value: counts.get(s.value, 0) for s in Status}


def progress_of(experiment: Experiment, page=1) -> dict:
    """Status, progress and the runs of one page (100 runs): bounded whatever the size of the
    experiment; ``counts`` has the runs by status."""
    runs, paging = runs_page(experiment, page, fields=(
        "public_id", "policy", "trial", "point", "status", "progress", "error"))
    return {
        "status": experiment.status,
        "progress": experiment.progress,
        "counts": status_counts(experiment),
        "runs_total": paging["total"], "runs_page": paging["page"],
        "runs_pages": paging["pages"],
        "runs": [{"id": str(r.public_id), "policy": r.policy, "trial": r.trial,
                  "status": r.status, "progress": r.progress, "error": r.error[:300]}
                 for r in runs],
    }


def run_groups(experiment: Experiment, policies: list[str] | None = None,
               point: int | None = None) -> dict[str, list[kinds.RunData]]:
    """Finished runs grouped by policy label (experiment order), as chart input; only the runs
    of one sweep point when ``point`` is given. Only those runs are read: a point of a
    72,000-run sweep is 200 of them, not all 72,000 (outside audit: 33 s and 3 GB a view)."""
    wanted = policies or experiment.policies
    runs = experiment.runs.filter(status=Status.DONE, policy__in=wanted)
    if point is not None:
        runs = runs.filter(point=point)
    groups: dict[str, list[kinds.RunData]] = {p: [] for p in wanted}
    params: dict[int, dict | None] = {}  # a point's parameters, worked out once
    for r in _in_policy_order(experiment, runs.defer(*HEAVY)):
        if r.point not in params:
            params[r.point] = run_params(experiment, r)
        groups[r.policy].append(run_data(r, params=params[r.point]))
    return {p: g for p, g in groups.items() if g}


def finished_runs(experiment: Experiment, policies: list[str] | None = None,
                  point: int | None = None) -> int:
    """How many finished runs :func:`run_groups` would read, from the experiment's summary
    rows (no run is read)."""
    wanted = set(policies or experiment.policies)
    return sum(row["runs"] for row in experiment.summary
               if row["policy"] in wanted and point in (None, row["point"]))


def run_params(experiment: Experiment, run: Run) -> dict | None:
    """The parameters a run ran with (:func:`params_at` its point)."""
    return params_at(experiment.scenario.params, run.overrides)


def params_at(scenario: dict, overrides: dict | None) -> dict | None:
    """A sweep point's parameters: its overrides over the scenario's (None when they no
    longer apply: stored before a parameter was renamed)."""
    if not overrides:
        return scenario
    try:
        return with_overrides(scenario, overrides)
    except ScenarioError:
        return None


def run_data(run: Run, label: str = "", params: dict | None = None) -> kinds.RunData:
    """A finished run as chart input; ``params``: its parameters (:func:`run_params`), if
    already worked out."""
    kind_lab = kinds.get_kind(run.experiment.kind)
    return kinds.RunData(policy=run.policy, trial=run.trial, seed=run.seed, summary=run.summary,
                         series=run.series, dist=run.dist, label=label or run.policy,
                         color=kind_lab.policy_color(run.policy) if kind_lab else "",
                         params=params if params is not None
                         else run_params(run.experiment, run))


def result_json(run: Run) -> bytes:
    """The full stored result of a run (JSON bytes)."""
    return gzip.decompress(bytes(run.result_gz)) if run.result_gz else b""


def sweep_runs(experiment: Experiment, point: int | None = None, timing: bool = False) -> list:
    """The finished runs of an experiment (of one point, if given) as
    ``simcore.sweep.SweepRun`` (point, setting, policy, seed, summary; and timing if asked):
    the input of per-point tables, paired differences and the claims' verdicts."""
    from simcore.sweep import SweepRun

    runs = Run.objects.filter(experiment_id=experiment.pk, status=Status.DONE)
    if point is not None:
        runs = runs.filter(point=point)
    fields = ("point", "overrides", "policy", "seed", "summary") + (("timing",) if timing else ())
    return [SweepRun(*row) for row in runs.order_by("point", "id").values_list(*fields)]


def point_count(experiment: Experiment) -> int:
    """The number of points of a sweep (1 for an experiment without axes)."""
    count = 1
    for axis in experiment.axes or []:
        count *= len(axis["values"])
    return count


def point_of(experiment: Experiment, value) -> int | None:
    """The sweep point a query's ``point`` names (k from 0), or None when it names none: absent
    or empty (the whole sweep), or 0 of an experiment without a sweep (its only point). Anything
    else is not a point of this experiment: a ScenarioError naming ``point`` and the points
    there are, never the whole sweep in its place."""
    if value is None or value == "":
        return None
    count = point_count(experiment)
    point = whole_number(value, 6)
    if point is None or point >= count:
        shown = str(value)[:20]
        there = (f"its points are 0 to {count - 1} (counted from 0)" if experiment.axes else
                 "it is not a sweep (its one point is 0)")
        raise ScenarioError("point", f"{shown!r} is not a point of this experiment: {there}")
    return point if experiment.axes else None


def page_number(value) -> int:
    """A page's number as a page's ``?page=`` gives it, clamped (the pages' rule; the API's
    lists answer 400 and 404 instead): 1-12 ASCII digits, else the first page."""
    return whole_number(value or "") or 1
