"""REST API: thin views over services, selectors and figures."""

from __future__ import annotations

import dataclasses
import math

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from simcore.errors import ScenarioError
from simcore.params import describe, whole_number
from simcore.references import spell

from .. import decisions, exports, figures, kinds, permissions, selectors, uploads
from ..models import Status
from ..services import admission, pricing, submission
from ..throttles import EstimateThrottle, SubmitThrottle
from . import serializers as S


def _page_number(request, total: int, size: int) -> tuple[int, int]:
    """``?page=N`` of ``total`` rows, ``size`` a page, and the last page's number: a page that
    is not a positive integer (1-18 ASCII digits) is a 400 naming ``page``, one past the last
    a 404 (the first page of nothing is empty)."""
    page = whole_number(request.query_params.get("page", "1"), 18)
    if page is None or page < 1:
        raise ValidationError({"page": ["must be a positive integer (digits 0-9)"]})
    last = max(1, math.ceil(total / size))
    if page > last:
        raise NotFound(f"there is no page {page}; the last is {last}")
    return page, last


def _page(request, rows, size: int) -> tuple[list, dict]:
    """One page of ``rows`` (a queryset) by ``?page=N`` (:func:`_page_number`) and its headers:
    ``X-Total-Count`` and a ``Link`` to the next page."""
    total = rows.count()
    page, last = _page_number(request, total, size)
    headers = {"X-Total-Count": str(total)}
    if page < last:
        query = request.query_params.copy()
        query["page"] = str(page + 1)
        headers["Link"] = (f'<{request.build_absolute_uri(request.path)}?'
                           f'{query.urlencode()}>; rel="next"')
    return list(rows[(page - 1) * size: page * size]), headers


def _page_param(size: int) -> OpenApiParameter:
    return OpenApiParameter("page", int, required=False,
                            description=f"page number ({size} per page; past the last: 404)")


def _policies_param(request, experiment) -> list[str] | None:
    """``?policies=a,b``: policies of the experiment (None: all of them); a name it did not
    run is a 400 naming ``policies``, never an empty chart."""
    raw = request.query_params.get("policies")
    names = list(dict.fromkeys(p for p in raw.split(",") if p)) if raw else []
    unknown = [p for p in names if p not in experiment.policies]
    if unknown:
        raise ValidationError({"policies": [
            f"not run by this experiment: {', '.join(repr(u[:40]) for u in unknown[:5])}; "
            f"its policies are {', '.join(experiment.policies)}"]})
    return names or None


# The spellings of a yes/no query parameter (``?side_by_side=1``, ``?mine=true``).
TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def query_flag(request, name: str) -> bool:
    """A yes/no query parameter: absent is no; one of TRUE_WORDS or FALSE_WORDS (any case);
    anything else a 400 naming it."""
    raw = request.query_params.get(name)
    if raw is None:
        return False
    word = raw.strip().lower() if raw.isascii() else raw
    if word not in TRUE_WORDS + FALSE_WORDS:
        raise ValidationError({name: [f"must be one of {', '.join(TRUE_WORDS)} (yes) or "
                                      f"{', '.join(w for w in FALSE_WORDS if w)} (no)"]})
    return word in TRUE_WORDS


def _browse(request) -> selectors.Browse:
    """The list's filters; a ``kind`` or ``status`` that no experiment can have is a 400
    naming it with the known values (an empty list would look like an answer)."""
    browse = selectors.Browse.from_query(request.query_params)
    if unknown := browse.unknown():
        raise ValidationError({unknown[0]: [unknown[1]]})
    return dataclasses.replace(browse, mine=query_flag(request, "mine"))


def _preset(p) -> dict:
    """A preset as listed, its ``source`` also spelled out for people (``source_text``)."""
    return {**p.public(), "source_text": spell(p.source, p.kind)}


class KindsView(APIView):
    """Scenario kinds with their parameters (unit, range, help), policies, presets, metrics."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        out = []
        for kind_lab in kinds.all_kinds():
            engine_kind = kind_lab.engine_kind
            out.append({
                "kind": kind_lab.kind, "title": kind_lab.title,
                "description": engine_kind.description,
                "parameters": [{**d, "help_text": spell(d["help"], kind_lab.kind)}
                               for d in describe(engine_kind.config_cls)],
                "policies": [p.public() for p in kind_lab.engine.list_policies(kind_lab.kind)],
                "presets": [_preset(p) for p in kind_lab.engine.list_presets(kind_lab.kind)],
                "metrics": [{"key": m.key, "label": m.label, "unit": m.unit,
                             "higher_is_better": m.higher_is_better, "lower": m.lower,
                             "upper": m.upper} for m in kind_lab.metrics],
                "charts": [{"id": c.id, "title": c.title} for c in kind_lab.experiment_charts],
                "run_charts": [{"id": c.id, "title": c.title} for c in kind_lab.run_charts],
            })
        return Response(out)


class PresetsView(APIView):
    @extend_schema(parameters=[OpenApiParameter("kind", str, required=False)],
                   responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        kind = request.query_params.get("kind")
        return Response([_preset(p) for kind_lab in kinds.all_kinds()
                         if kind in (None, kind_lab.kind)
                         for p in kind_lab.engine.list_presets(kind_lab.kind)])


class PoliciesView(APIView):
    @extend_schema(parameters=[OpenApiParameter("kind", str, required=False)],
                   responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        kind = request.query_params.get("kind")
        return Response([p.public() for kind_lab in kinds.all_kinds()
                         if kind in (None, kind_lab.kind)
                         for p in kind_lab.engine.list_policies(kind_lab.kind)])


SCENARIO_PAGE_SIZE = 25


class ScenarioListCreate(APIView):
    def get_throttles(self):
        return [SubmitThrottle()] if self.request.method == "POST" else []

    @extend_schema(parameters=[_page_param(SCENARIO_PAGE_SIZE)],
                   responses={200: S.ScenarioSerializer(many=True)})
    def get(self, request):
        """The scenarios the caller may list: the presets, their own, and those of public
        experiments (staff: all), newest first, 25 per page (``X-Total-Count``, ``Link``)."""
        rows, headers = _page(request, selectors.scenarios_for(permissions.viewer(request)),
                              SCENARIO_PAGE_SIZE)
        return Response(S.ScenarioSerializer(rows, many=True).data, headers=headers)

    @extend_schema(request=S.ScenarioCreateSerializer, responses={201: S.ScenarioSerializer})
    def post(self, request):
        who = permissions.viewer(request)
        ser = S.ScenarioCreateSerializer(data=request.data, context={"who": who})
        ser.is_valid(raise_exception=True)
        data = ser.validated_data
        scenario = submission.create_scenario(kind=data["kind"], name=data["name"],
                                              params=data["params"],
                                              description=data.get("description", ""),
                                              preset=data.get("preset", ""),
                                              **who.owner_fields())
        return Response(S.ScenarioSerializer(scenario).data, status=status.HTTP_201_CREATED,
                        headers={"Location": f"/api/scenarios/{scenario.public_id}/"})


class ScenarioDetail(APIView):
    @extend_schema(responses={200: S.ScenarioSerializer})
    def get(self, request, id):
        """A scenario the caller may read: a preset, their own, or one an experiment they may
        read uses (404 otherwise)."""
        scenario = selectors.scenario_by_public_id(id, permissions.viewer(request))
        return Response(S.ScenarioSerializer(scenario).data)


UPLOAD_PAGE_SIZE = 100


class UploadList(APIView):
    @extend_schema(parameters=[_page_param(UPLOAD_PAGE_SIZE)],
                   responses={200: S.UploadSerializer(many=True)})
    def get(self, request):
        """The caller's uploaded traces and run-time lists (uploaded through the form),
        newest first, each with how many of the caller's own experiments use it."""
        who = permissions.viewer(request)
        rows, headers = _page(request, selectors.uploads_of(who), UPLOAD_PAGE_SIZE)
        return Response(S.UploadSerializer([selectors.upload_row(r, who) for r in rows],
                                           many=True).data, headers=headers)


class UploadDetail(APIView):
    @extend_schema(responses={204: None, 404: OpenApiResponse(description="not yours")})
    def delete(self, request, sha256):
        """Give up an upload: it is removed once nobody who uploaded those bytes keeps it,
        and from then on no experiment makes it usable (runs not started yet fail)."""
        if not uploads.disown(sha256, permissions.viewer(request)):
            raise NotFound("you have no upload with this SHA-256")
        return Response(status=status.HTTP_204_NO_CONTENT)


PAGE_SIZE = 100


PRICE_ONLY = OpenApiResponse(S.QuoteSerializer, description='"dry_run": the price only')


def _writes_throttled(request) -> list:
    """A POST is a creation unless it asks for a price only (``"dry_run": true``), which
    counts against the quote rate instead."""
    if request.method != "POST":
        return []
    data = request.data
    return [EstimateThrottle() if isinstance(data, dict) and data.get("dry_run") is True
            else SubmitThrottle()]


class ExperimentListCreate(APIView):
    def get_throttles(self):
        # Only creation is throttled: reading lists and pages stays free.
        return _writes_throttled(self.request)

    @extend_schema(
        parameters=[OpenApiParameter(name, str, required=False, description=text)
                    for name, text in (
            ("q", "words searched in name, notes and tags"), ("kind", "scenario kind"),
            ("status", "queued, running, done, failed or cancelled"),
            ("policy", "experiments that ran this policy"), ("owner", "owner's user name"),
            ("mine", "1: only the caller's own"))] + [_page_param(PAGE_SIZE)],
        responses={200: S.ExperimentListSerializer(many=True)})
    def get(self, request):
        """The experiments the caller may list (public ones and their own; staff: all),
        newest first, 100 per page; ``Link`` and ``X-Total-Count`` headers page through."""
        who = permissions.viewer(request)
        qs = selectors.browse_experiments(who, _browse(request))
        rows, headers = _page(request, qs, PAGE_SIZE)
        return Response(S.ExperimentListSerializer(rows, many=True).data, headers=headers)

    @extend_schema(request=S.ExperimentCreateSerializer,
                   responses={202: S.ExperimentSerializer,
                              200: PRICE_ONLY,
                              400: OpenApiResponse(description="invalid field (named)"),
                              503: OpenApiResponse(description="broker unavailable")})
    def post(self, request):
        """Start an experiment, or with ``"dry_run": true`` say what it would cost (runs,
        estimated CPU and wall time, the budget it would use, whether it would be admitted)
        and create nothing."""
        ser = S.ExperimentCreateSerializer(data=request.data,
                                           context={"who": permissions.viewer(request)})
        ser.is_valid(raise_exception=True)
        if ser.dry_run:
            return _quoted(request, ser.validated_data)
        return _created(request, ser.validated_data)


class FigureList(APIView):
    """The figure presets: published comparisons of the seeds made runnable (claim, source,
    scale, axes, policies, trials, expected ranking), each with its ``cost``: runs and
    estimated CPU seconds at its default trials and at the published ones."""

    @extend_schema(parameters=[OpenApiParameter("kind", str, required=False)],
                   responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        kind = request.query_params.get("kind")
        return Response([{**f.public(), "source_text": spell(f.source, f.kind),
                          "cost": pricing.figure_cost(f.name)}
                         for f in kinds.all_figures() if kind in (None, f.kind)])


class FigureRun(APIView):
    """Start the experiment that reproduces a figure preset (optionally with other trials), or
    with ``"dry_run": true`` say what it would cost."""

    def get_throttles(self):
        return _writes_throttled(self.request)

    @extend_schema(request=S.FigureRunSerializer,
                   responses={202: S.ExperimentSerializer,
                              200: PRICE_ONLY,
                              400: OpenApiResponse(description="invalid field (named)"),
                              404: OpenApiResponse(description="unknown figure"),
                              503: OpenApiResponse(description="broker unavailable")})
    def post(self, request, name):
        if kinds.get_figure(name) is None:
            raise NotFound(f"no figure preset {name!r}")
        ser = S.FigureRunSerializer(data=request.data, context={"figure": name})
        ser.is_valid(raise_exception=True)
        if ser.dry_run:
            return _quoted(request, ser.validated_data)
        return _created(request, ser.validated_data)


def _quoted(request, sub, beyond: str | None = None) -> Response:
    quote = pricing.quote(sub, permissions.viewer(request).account(), beyond)
    return Response({"dry_run": True, **quote})


def _created(request, sub) -> Response:
    who = permissions.viewer(request)
    fields = who.owner_fields()
    try:
        experiment = submission.create_experiment(sub, owner=fields["owner"],
                                                  owner_token=fields["owner_token"],
                                                  account=who.account())
    except admission.Refused as err:
        return Response({err.field: [err.message], **err.details}, status=err.status)
    except submission.BrokerUnavailable as exc:
        return Response({"detail": str(exc), "failing": ["broker"]},
                        status=status.HTTP_503_SERVICE_UNAVAILABLE)
    body = S.ExperimentSerializer(experiment, context={"request": request}).data
    return Response(body, status=status.HTTP_202_ACCEPTED,
                    headers={"Location": f"/api/experiments/{experiment.public_id}/"})


def _readable(request, id):
    return selectors.experiment_by_public_id(id, permissions.viewer(request))


def _editable(request, id, what: str):
    experiment = _readable(request, id)
    if not permissions.can_edit(permissions.viewer(request), experiment):
        raise PermissionDenied(f"{what} an experiment needs its owner or staff")
    return experiment


class ExperimentDetail(APIView):
    @extend_schema(responses={200: S.ExperimentSerializer})
    def get(self, request, id):
        experiment = _readable(request, id)
        return Response(S.ExperimentSerializer(experiment, context={"request": request}).data)

    @extend_schema(request=S.ExperimentUpdateSerializer,
                   responses={200: S.ExperimentSerializer,
                              403: OpenApiResponse(description="not the owner")})
    def patch(self, request, id):
        """Rename, annotate, tag or change the visibility (the owner or staff)."""
        experiment = _editable(request, id, "changing")
        ser = S.ExperimentUpdateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        try:
            submission.update_experiment(experiment, **ser.validated_data)
        except ScenarioError as err:
            raise S.scenario_error(err) from None
        return Response(S.ExperimentSerializer(experiment, context={"request": request}).data)

    @extend_schema(responses={204: None, 403: OpenApiResponse(description="not the owner")})
    def delete(self, request, id):
        submission.delete_experiment(_editable(request, id, "deleting"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ExperimentCancel(APIView):
    @extend_schema(request=None, responses={200: S.ExperimentSerializer})
    def post(self, request, id):
        experiment = submission.cancel_experiment(_editable(request, id, "cancelling"))
        return Response(S.ExperimentSerializer(experiment, context={"request": request}).data)


class ExperimentTrials(APIView):
    """Add trials to every (point, policy) of an experiment (its owner or staff)."""

    def get_throttles(self):
        return _writes_throttled(self.request)

    @extend_schema(request=S.AddTrialsSerializer,
                   responses={202: S.ExperimentSerializer,
                              200: PRICE_ONLY,
                              400: OpenApiResponse(description="invalid or too many trials"),
                              403: OpenApiResponse(description="not the owner"),
                              409: OpenApiResponse(description="changed meanwhile")})
    def post(self, request, id):
        """``{"add": N}``: N more trials of every (point, policy), seeds continuing after the
        last; priced and admitted like a new submission of those runs. The experiment runs
        again, and its summary, verdicts and exports grow as the new runs finish."""
        experiment = _editable(request, id, "adding trials to")
        ser = S.AddTrialsSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        add, who = ser.validated_data["add"], permissions.viewer(request)
        try:
            if ser.validated_data["dry_run"]:
                return _quoted(request, *submission.added_trials(experiment, add))
            experiment = submission.add_trials(experiment, add, account=who.account())
        except ScenarioError as err:
            if isinstance(err, admission.Refused):
                return Response({err.field: [err.message], **err.details}, status=err.status)
            raise S.scenario_error(err) from None
        body = S.ExperimentSerializer(experiment, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


class ExperimentProgress(APIView):
    """Status and progress of an experiment, its runs by status, and the runs of one page
    (``?page=``, 100 per page) with their progress (polled by the page)."""

    @extend_schema(parameters=[_page_param(selectors.RUNS_PAGE)],
                   responses={200: S.ProgressSerializer})
    def get(self, request, id):
        experiment = _readable(request, id)
        page, _ = _page_number(request, experiment.runs.count(), selectors.RUNS_PAGE)
        return Response(selectors.progress_of(experiment, page))


class ExperimentRuns(APIView):
    """An experiment's runs, 100 per page (``?page=``), in policy, trial and point order;
    ``Link`` and ``X-Total-Count`` headers page through."""

    @extend_schema(parameters=[OpenApiParameter("page", int, required=False)],
                   responses={200: S.RunSerializer(many=True)})
    def get(self, request, id):
        runs, headers = _page(request, selectors.ordered_runs(_readable(request, id)),
                              selectors.RUNS_PAGE)
        return Response(S.RunSerializer(runs, many=True).data, headers=headers)


class ExperimentFigure(APIView):
    @extend_schema(parameters=[
        OpenApiParameter("policies", str, required=False,
                         description="comma-separated policies of the experiment to include "
                                     "(another is a 400)"),
        OpenApiParameter("side_by_side", bool, required=False,
                         description="one panel per policy on shared axes (1/true/yes/on or "
                                     "0/false/no/off)"),
        OpenApiParameter("point", int, required=False,
                         description="a sweep's point (from 0): that point's runs only (one "
                                     "that is not a point of the experiment is a 400)")],
        responses={200: S.FigureSerializer})
    def get(self, request, id, chart):
        experiment = _readable(request, id)
        side = query_flag(request, "side_by_side")
        policies = _policies_param(request, experiment)
        try:
            point = selectors.point_of(experiment, request.query_params.get("point"))
        except ScenarioError as err:
            raise ValidationError({err.field: [err.message]}) from None
        try:
            figure = figures.experiment_figure(experiment, chart, policies, side_by_side=side,
                                               point=point)
        except figures.UnknownChart as exc:
            raise NotFound(f"no chart {exc.args[0]!r} for this experiment") from None
        except ScenarioError as err:  # a view of more runs than one request draws
            raise ValidationError({err.field: [err.message]}) from None
        return Response(figure)


class RunDetail(generics.RetrieveAPIView):
    serializer_class = S.RunSerializer

    def get_object(self):
        return selectors.run_by_public_id(self.kwargs["id"],
                                          who=permissions.viewer(self.request))


class RunResult(APIView):
    """The full result JSON of a finished run (summary, series, per-task records)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, id):
        run = selectors.run_by_public_id(id, with_result=True, who=permissions.viewer(request))
        if run.status != Status.DONE:
            raise NotFound("the run has no result yet")
        return exports.result_json(run, attachment=False, request=request)


class RunFigure(APIView):
    @extend_schema(responses={200: S.FigureSerializer})
    def get(self, request, id, chart):
        run = selectors.run_by_public_id(id, with_result=True, who=permissions.viewer(request))
        try:
            return Response(figures.run_figure(run, chart))
        except figures.UnknownChart as exc:
            raise NotFound(f"no chart {exc.args[0]!r} for this run") from None



def _explained(request, id) -> object:
    """The run with its decisions, if the caller may read it (404 otherwise, as the run)."""
    return selectors.run_by_public_id(id, who=permissions.viewer(request), with_decisions=True)


def _answer(build) -> Response:
    """``build()``'s page; a bad query is a 400 naming its field, a run without decisions a
    404 saying why."""
    try:
        return Response(build())
    except ScenarioError as err:
        if err.field == "decisions":
            raise NotFound(err.message) from None
        raise ValidationError({err.field: [err.message]}) from None


class RunDecisions(APIView):
    """An explained run's decisions with their reasons, 50 per page: one task's story
    (``?task=``), the decisions of some actions (``?action=dropped,expired``), or all; with
    the counts per action of the whole run and the bounds its log kept to."""

    @extend_schema(parameters=[
        OpenApiParameter("task", str, required=False,
                         description="a task id of the run's task table: its story"),
        OpenApiParameter("action", str, required=False,
                         description="comma-separated actions (mapped, held, dropped, ...)"),
        _page_param(decisions.PAGE_SIZE)],
        responses={200: S.DecisionsPageSerializer,
                   400: OpenApiResponse(description="bad task, action or page (named)"),
                   404: OpenApiResponse(description="no such run, or it has no decisions")})
    def get(self, request, id):
        run = _explained(request, id)
        q = request.query_params
        return _answer(lambda: decisions.decisions_page(
            run, task=q.get("task"), action=q.get("action"), page=q.get("page")))


class RunDecisionTasks(APIView):
    """The tasks an explained run's log kept, 50 per page, in the order of their first
    decision: how many decisions each has and its last one (how its story ended)."""

    @extend_schema(parameters=[_page_param(decisions.PAGE_SIZE)],
                   responses={200: OpenApiTypes.OBJECT})
    def get(self, request, id):
        run = _explained(request, id)
        return _answer(lambda: decisions.tasks_page(run, request.query_params.get("page")))


class RunDivergence(APIView):
    """Where this run and another (``?with=<run id>``) of the same scenario and seed part
    ways: the first decision that differs and the tasks whose fate differs most; when they
    cannot be compared, ``problem`` says why."""

    @extend_schema(parameters=[OpenApiParameter("with", str, required=True,
                                                description="the other run's id")],
                   responses={200: OpenApiTypes.OBJECT})
    def get(self, request, id):
        other = request.query_params.get("with")
        if not other:
            raise ValidationError({"with": ["the other run's id is required"]})
        a, b = _explained(request, id), _explained(request, other)
        return Response(decisions.compare(a, b))
