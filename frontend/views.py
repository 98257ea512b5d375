"""Pages: thin views that call the services, selectors and figures of ``hetsite``."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_POST

from hetsite import (
    comparing,
    decisions,
    exports,
    figures,
    kinds,
    listing,
    notebook,
    permissions,
    presenters,
    scoreboard,
    selectors,
    uploads,
)
from hetsite.models import FINAL_STATUSES, Run, Status, Visibility
from hetsite.services import admission, pricing, submission
from hetsite.throttles import refused
from simcore.errors import ScenarioError
from simcore.params import whole_number

from .forms import ExperimentForm

PAGE_SIZE = 25
RUN_CHOICES = 200  # finished runs offered in the run-chart picker, failed runs listed


def _page_of(request, rows, size: int):
    """The ``?page=`` of a page's list, clamped as every page's list is (a page that is not
    1-12 ASCII digits is the first, one past the last the last; the API answers 400/404)."""
    return Paginator(rows, size).get_page(selectors.page_number(request.GET.get("page")))


def _no_such_point(request, experiment, err: ScenarioError, title: str = "No such point"):
    """The answer to a ``?point=`` (or ``?baseline=``) that is not the experiment's: a 404
    saying so, never the whole sweep (or its first point) in its place."""
    return render(request, "frontend/bad_query.html", {
        "title": title, "field": err.field, "message": err.message,
        "back": reverse("frontend:experiment", args=[experiment.public_id]),
        "back_text": f"The whole of “{experiment.name}”"}, status=404)


def home(request):
    """"New experiment" first, then the experiment browser (search, filters, pages)."""
    who = permissions.viewer(request)
    browse = selectors.Browse.from_query(request.GET)
    if unknown := browse.unknown():  # as the API answers it: an empty list looks like an answer
        return render(request, "frontend/bad_query.html", {
            "title": "No such filter", "field": unknown[0], "message": unknown[1],
            "back": reverse("frontend:home"), "back_text": "All experiments"}, status=400)
    page = _page_of(request, selectors.browse_experiments(who, browse), PAGE_SIZE)
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "frontend/home.html", {
        "page": page, "browse": browse, "query": query.urlencode(),
        "choices": selectors.browse_choices(),
        "kinds": kinds.all_kinds(), "rows": listing.list_rows(who, page.object_list),
    })


def _say_what_the_cookie_means(request, who) -> None:
    """Once, when an anonymous visitor's first experiment gave them an owner cookie."""
    if who.new_token:
        messages.info(request, OWNER_COOKIE_NOTICE)


OWNER_COOKIE_NOTICE = (
    "This experiment is yours on this browser: a cookie here lets you edit, cancel and delete "
    "it, and nobody else can. Log in to keep it (and any others you make) in your account; "
    "clearing this browser's cookies otherwise loses it.")


def new_index(request):
    """Pick a scenario kind and a preset to start from."""
    return render(request, "frontend/new_index.html", {
        "kinds": [(kind_lab, kind_lab.engine.list_presets(kind_lab.kind))
                  for kind_lab in kinds.all_kinds()]})


@cache_control(max_age=86400, public=True)
def favicon(request):
    return redirect(static("frontend/favicon.svg"), permanent=True)


def _kind_lab_or_404(kind: str) -> kinds.LabKind:
    kind_lab = kinds.get_kind(kind)
    if kind_lab is None:
        raise Http404(f"no scenario kind {kind!r}")
    return kind_lab


def new_experiment(request, kind: str):
    kind_lab = _kind_lab_or_404(kind)
    who = permissions.viewer(request)
    if request.method == "POST":
        data, files = request.POST, request.FILES  # reading them streams the uploads
        dropped = uploads.refusals(request)
        form = ExperimentForm(kind_lab, data, files, who=who, refused=dropped)
        denied = refused(request)
        if denied is not None:
            form.add_error(None, denied.message)
            return render(request, "frontend/new.html", _form_context(kind_lab, form),
                          status=denied.status)
        status = max((d.status for d in dropped.values()), default=400)
        if form.is_valid() and form.submission is not None:
            fields = who.owner_fields()
            try:
                experiment = submission.create_experiment(
                    form.submission, owner=fields["owner"], owner_token=fields["owner_token"],
                    account=who.account())
            except admission.Refused as err:
                form.add_error(None, err.message)
                status = err.status
            except submission.BrokerUnavailable as exc:
                form.add_error(None, str(exc))
                status = 503
            else:
                _say_what_the_cookie_means(request, who)
                return redirect("frontend:experiment", public_id=experiment.public_id)
        return render(request, "frontend/new.html", _form_context(kind_lab, form), status=status)

    notice = ""
    presets = {p.name: p for p in kind_lab.engine.list_presets(kind_lab.kind)}
    clone = request.GET.get("clone")
    if clone:
        source = selectors.experiment_by_public_id(clone, who)
        if source.kind != kind_lab.kind:
            raise Http404("that experiment is of another kind")
        # A clone gets a fresh name (made from its preset and policies unless you type one).
        initial = ExperimentForm.initial_for(
            kind_lab, source.scenario.params, preset=source.scenario.preset,
            policies=source.policies, trials=source.trials, base_seed=source.base_seed,
            visibility=source.visibility, axes=source.axes, explain=source.explain,
            explain_tasks=source.explain_tasks)
        notice = f"Cloned from “{source.name}”: change what you like and run."
        keep = (request.GET.get("explain_task") or "").strip()
        if keep:  # from a story the sampling left out; an id the form would refuse is ignored
            try:
                tasks = submission.clean_explain_tasks([*source.explain_tasks, keep], True)
            except ScenarioError:
                tasks = None
            if tasks is not None:
                initial.update(explain=True, explain_tasks=", ".join(str(t) for t in tasks))
                notice = (f"Cloned from “{source.name}”, keeping task {keep}'s whole story: "
                          "run it as it is, or change what you like.")
    else:
        preset_name = request.GET.get("preset") or kind_lab.default_preset
        if preset_name not in presets:
            fallback = (kind_lab.default_preset if kind_lab.default_preset in presets
                        else next(iter(presets), ""))
            if request.GET.get("preset"):
                notice = (f"There is no preset “{preset_name[:80]}” for {kind_lab.title}; "
                          f"showing “{fallback}” instead.")
            preset_name = fallback
        params = submission.validate_scenario(kind=kind_lab.kind, preset=preset_name)
        initial = ExperimentForm.initial_for(kind_lab, params, preset=preset_name)
        initial.update(_kept_choices(request.GET, kind_lab))
    form = ExperimentForm(kind_lab, initial=initial)
    return render(request, "frontend/new.html", {**_form_context(kind_lab, form), "notice": notice})


@require_POST
def estimate(request, kind: str):
    """The price of the experiment the form describes (``pricing.quote``), for the form's live
    estimate. Files are not read: an uploaded trace is priced when it is submitted."""
    kind_lab = _kind_lab_or_404(kind)
    denied = refused(request, "estimate")
    if denied is not None:
        return JsonResponse({"errors": [{"id": "", "label": "", "message": denied.message}]},
                            status=denied.status)
    who = permissions.viewer(request)
    form = ExperimentForm(kind_lab, request.POST, who=who)
    if not form.is_valid() or form.submission is None:
        return JsonResponse({"errors": form.error_summary()}, status=400)
    return JsonResponse(pricing.quote(form.submission, who.account()))


def _kept_choices(query, kind_lab) -> dict:
    """What the user had typed before switching presets (name, trials, seed, policies)."""
    kept = {}
    if query.get("name"):
        kept["name"] = query["name"][:200]
    for key in ("trials", "base_seed"):
        if (number := whole_number(query.get(key) or "")) is not None:
            kept[key] = number
    known = {p.name for p in kind_lab.engine.list_policies(kind_lab.kind)}
    chosen = [p for p in query.getlist("policies") if p in known]
    if chosen:
        kept["policies"] = chosen
    return kept


def _form_context(kind_lab, form):
    families: dict[str, list] = {}
    for policy in kind_lab.engine.list_policies(kind_lab.kind):
        families.setdefault(policy.family or "policies", []).append(policy)
    presets = kind_lab.engine.list_presets(kind_lab.kind)
    current = form["preset"].value() or ""
    return {"kind_lab": kind_lab, "form": form, "presets": presets,
            "families": families, "chosen": set(form["policies"].value() or []),
            "current_preset": current,
            # the whole description: the picker truncates it, and it may carry caveats
            "current_preset_info": next((p for p in presets if p.name == current), None),
            "errors": form.error_summary() if form.is_bound else [],
            "limits": submission.limits(),
            "run_time_limit": settings.CELERY_TASK_SOFT_TIME_LIMIT}


def experiment_page(request, public_id):
    """The share link. A sweep shows its metrics against the swept parameters and a table per
    point; ``?point=k`` shows one point like a plain experiment; ``?baseline=P`` adds every
    policy's paired difference to P."""
    who = permissions.viewer(request)
    experiment = selectors.experiment_by_public_id(public_id, who)
    kind_lab = kinds.get_kind(experiment.kind)
    # Bounded whatever the experiment's size: one page of runs, counts for the rest.
    try:
        point = selectors.point_of(experiment, request.GET.get("point"))
    except ScenarioError as err:
        return _no_such_point(request, experiment, err)
    runs, paging = selectors.runs_page(experiment, request.GET.get("runs_page"))
    counts = selectors.status_counts(experiment)
    # A point's page counts and charts that point's runs only.
    shown = counts if point is None else selectors.status_counts(experiment, point)
    done = experiment.runs.filter(status=Status.DONE)
    done = done if point is None else done.filter(point=point)
    done_runs = list(selectors.only(done.order_by("point", "id"),
                                    ("public_id", "policy", "trial", "point"))[:RUN_CHOICES])
    whole_sweep = bool(experiment.axes) and point is None
    baseline = request.GET.get("baseline", "")
    if baseline and baseline not in experiment.policies:  # (was the page without it, unsaid)
        return _no_such_point(request, experiment, ScenarioError(
            "baseline", f"{baseline[:40]!r} is not a policy of this experiment; its policies: "
                        f"{', '.join(experiment.policies)}"), title="No such baseline")

    def tables():
        # The finished runs' summaries the page shows: one point's (a point of a 72,000-run
        # sweep read all of them, 5 s a point), or all of them, read once for the tables and
        # the published checks, which read every point.
        finished = selectors.sweep_runs(experiment, point) if counts[Status.DONE] else []
        if point is None:
            figures.kept(experiment, "published",
                         lambda: presenters.published(experiment, finished))
        return (presenters.summary_table(kind_lab, experiment, point or 0, finished),
                presenters.point_tables(kind_lab, experiment, finished) if whole_sweep else [])

    table, point_tables = figures.kept(experiment, f"tables:{point}", tables)
    published = figures.kept(experiment, "published", lambda: presenters.published(experiment))
    figs, paired = [], []
    if counts[Status.DONE]:
        figs = (figures.sweep_figures(experiment) if whole_sweep
                else figures.experiment_figures(experiment, point=point))
        paired = figures.paired_figures(experiment, baseline, point) if baseline else []
    return render(request, "frontend/experiment.html", {
        "experiment": experiment, "kind_lab": kind_lab, "runs": runs, "paging": paging,
        "counts": counts,
        "shown": {**shown, "total": sum(shown.values())}, "done_runs": done_runs,
        "point_count": selectors.point_count(experiment),
        "failed_runs": selectors.only(experiment.runs.filter(status=Status.FAILED).order_by(
            "id"), ("policy", "trial", "error"))[:RUN_CHOICES],
        "figures": figs + paired,
        "not_drawn": figures.not_drawn(experiment, None if whole_sweep else (point or 0),
                                       every_metric=whole_sweep or bool(baseline))
        if counts[Status.DONE] else [],
        "table": table,
        "whole_sweep": whole_sweep, "point": point, "baseline": baseline,
        "point_tables": point_tables,
        "point_label": presenters.point_label(
            kind_lab, experiment.runs.filter(point=point).values_list(
                "overrides", flat=True).first() or {}) if point is not None else "",
        "sweep_axes": presenters.sweep_axes(kind_lab, experiment),
        "published": published,
        "final": experiment.status in FINAL_STATUSES,
        "can_edit": permissions.can_edit(who, experiment),
        "last_seed": experiment.base_seed + experiment.trials - 1,
        "max_trials_to_add": max(1, submission.trials_limit(experiment) - experiment.trials),
        "visibility_choices": Visibility.choices,
        "scenario": presenters.scenario_description(kind_lab, experiment),
        "timing": presenters.timing(experiment, counts),
        "share_url": request.build_absolute_uri(
            reverse("frontend:experiment", args=[experiment.public_id])),
    })


def figures_index(request):
    """The published comparisons of the seeds, one click from running."""
    groups: dict[str, list] = {}
    for figure in kinds.all_figures():
        groups.setdefault(figure.kind, []).append(figure)
    slots = pricing.worker_slots()
    costs = {}
    for name, cost in pricing.known_figure_costs().items():
        # Spread over the workers: the wall time on an idle site.
        costs[name] = {at: size and {**size, "wall_s": size["estimated_cpu_s"] / slots}
                       for at, size in cost.items()}
    # Every other policy of a figure's kind (built in or installed) may run beside its own.
    others = {}
    for kind, figs in groups.items():
        lab = kinds.get_kind(kind)
        names = [p.name for p in lab.engine.list_policies(kind)] if lab else []
        others |= {f.name: [n for n in names if n not in f.policies] for f in figs}
    return render(request, "frontend/figures.html", {
        "groups": [(kinds.get_kind(k), figs) for k, figs in groups.items()],
        "others": others,
        "costs": costs, "workers": slots,
        "scoreboard": scoreboard.page(scoreboard.load(), kinds.all_figures())})


@require_POST
def run_figure(request, name):
    """Start the experiment that reproduces a figure preset and show it."""
    who = permissions.viewer(request)
    denied = refused(request)
    if denied is not None:
        messages.error(request, denied.message)
        return redirect("frontend:figures")
    raw = request.POST.get("trials", "").strip()
    if raw and whole_number(raw) is None:
        messages.error(request, "Trials must be a whole number.")
        return redirect("frontend:figures")
    try:
        sub = submission.figure_submission(name, int(raw) if raw else None,
                                           base_seed=None,
                                           with_policies=request.POST.getlist("with_policies"))
    except ScenarioError as err:
        if err.field == "figure":
            raise Http404(err.message) from None
        messages.error(request, f"{err.field}: {err.message}")
        return redirect("frontend:figures")
    fields = who.owner_fields()
    try:
        experiment = submission.create_experiment(sub, owner=fields["owner"],
                                                  owner_token=fields["owner_token"],
                                                  account=who.account())
    except (admission.Refused, submission.BrokerUnavailable) as exc:
        messages.error(request, getattr(exc, "message", str(exc)))
        return redirect("frontend:figures")
    _say_what_the_cookie_means(request, who)
    return redirect("frontend:experiment", public_id=experiment.public_id)


def export_points_csv(request, public_id):
    """A row per (point, policy); ``?point=k`` that point's rows only."""
    experiment = selectors.experiment_by_public_id(public_id, permissions.viewer(request))
    try:
        point = selectors.point_of(experiment, request.GET.get("point"))
    except ScenarioError as err:
        return _no_such_point(request, experiment, err)
    return exports.points_csv(experiment, point)


def compare_policies(request, public_id):
    """Side by side: the chosen policies of one experiment, one panel each, same axes."""
    experiment = selectors.experiment_by_public_id(public_id, permissions.viewer(request))
    asked = request.GET.getlist("p")
    chosen = list(dict.fromkeys(p for p in asked if p in experiment.policies))
    notice = ""
    unknown = [p for p in asked if p not in experiment.policies]
    if unknown:
        notice = (f"Not in this experiment, ignored: {', '.join(u[:40] for u in unknown[:5])}. "
                  f"Its policies are {', '.join(experiment.policies)}.")
    if len(chosen) < 2:
        if asked and not unknown:
            notice = "Pick at least two policies to compare; showing all of them."
        chosen = experiment.policies[:]
    try:
        figs = figures.experiment_figures(experiment, policies=chosen, side_by_side=True)
    except ScenarioError:  # more runs than one view draws side by side
        figs, notice = [], (
            f"Not drawn side by side: these policies have "
            f"{selectors.finished_runs(experiment, chosen):,} finished runs, more than one "
            f"view draws (HETSITE_MAX_RUNS = {settings.HETSITE_MAX_RUNS:,}); the "
            f"experiment's page draws every policy together"
            f"{', a sweep point at a time' if experiment.axes else ''}.")
    return render(request, "frontend/compare.html", {
        "experiment": experiment, "chosen": chosen, "figures": figs, "notice": notice,
        "not_drawn": figures.not_drawn(experiment, policies=chosen) if figs else [],
        "policies": experiment.policies, "decision_compare": None if experiment.axes else
        decisions.pair_of_policies(experiment, chosen, request.GET.get("trial"))})


def compare_runs(request):
    """Side by side: finished runs of one kind picked from any experiments; without runs, the
    run picker."""
    who = permissions.viewer(request)
    ids = request.GET.getlist("run")[:12]
    if not ids:
        return _run_picker(request, who)
    # (decisions are compared, so loaded, for two runs only)
    picked = [selectors.run_by_public_id(i, who=who, with_decisions=len(ids) == 2) for i in ids]
    runs = [r for r in picked if r.status == Status.DONE]
    kinds_picked = sorted({r.experiment.kind for r in runs})
    if len(kinds_picked) > 1:
        return render(request, "frontend/compare.html", {
            "runs": runs, "figures": [], "mixed": kinds_picked,
            "picker_url": reverse("frontend:compare-runs")}, status=400)
    return render(request, "frontend/compare.html", {
        "runs": runs, "figures": figures.compare_runs_figures(runs),
        "picker_url": reverse("frontend:compare-runs"),
        # (an unfinished run picked is named there, not dropped)
        "decision_compare": decisions.pair_of_runs(picked)})


def compare_experiments(request):
    """Experiments (or sweep points) of one kind side by side, ``?e=<id>&e=<id>[:point]``: the
    policies' means with their intervals per metric and what differs between the scenarios;
    with fewer than two, the picker (of the kind of the one given)."""
    who = permissions.viewer(request)
    context, status = {"max_sides": comparing.MAX_SIDES, "sides": [], "figures": []}, 200
    try:
        sides = comparing.read_sides(request.GET.getlist("e"), who)
    except comparing.Refused as err:
        sides, status = [], 400
        context["error"] = str(err)
    context["sides"] = sides
    if len(sides) >= 2:
        kind_lab = kinds.get_kind(sides[0].experiment.kind)
        tables = comparing.tables(kind_lab, sides)
        measured = [t for t in tables if any(c.mean is not None for r in t.rows for c in r.cells)]
        context.update(tables=tables, differences=comparing.differences(kind_lab, sides), figures=[
            {"id": f"compare-{t.column.metric.key}", "title": t.column.header,
             "figure": comparing.figure(t, sides)} for t in measured],
            not_drawn=[{"title": t.column.metric.label, "why": t.column.metric.missing}
                       for t in tables if t not in measured])
    kind = sides[0].experiment.kind if sides else request.GET.get("kind", "")
    page = _page_of(request, selectors.browse_experiments(
        who, selectors.Browse(kind=kind[:40])).filter(status=Status.DONE).exclude(
        pk__in=[s.experiment.pk for s in sides]), 10)
    query = request.GET.copy()
    query.pop("page", None)
    context.update(kind=kind, page=page, query=query.urlencode(), choices=[
        (e, comparing.point_choices(kinds.get_kind(e.kind), e)) for e in page.object_list])
    return render(request, "frontend/compare_experiments.html", context, status=status)


def _run_picker(request, who):
    browse = selectors.Browse.from_query(request.GET)
    if unknown := browse.unknown():  # as the API answers it: an empty list looks like an answer
        return render(request, "frontend/bad_query.html", {
            "title": "No such filter", "field": unknown[0], "message": unknown[1],
            "back": reverse("frontend:home"), "back_text": "All experiments"}, status=400)
    # EXISTS, not a join made distinct: the join read every run of every listed experiment.
    finished = Run.objects.filter(experiment=OuterRef("pk"), status=Status.DONE)
    page = _page_of(request, selectors.browse_experiments(who, browse).filter(
        Exists(finished)), 10)
    rows = [(e, list(e.runs.filter(status=Status.DONE).defer(*selectors.HEAVY, "series", "dist")
                     .order_by("point", "trial", "id")[:RUN_CHOICES]))
            for e in page.object_list]
    return render(request, "frontend/run_picker.html", {
        "page": page, "rows": rows, "browse": browse, "choices": selectors.browse_choices()})


def _editable(request, public_id):
    who = permissions.viewer(request)
    experiment = selectors.experiment_by_public_id(public_id, who)
    if not permissions.can_edit(who, experiment):
        raise PermissionDenied("only the experiment's owner (or staff) may change it")
    return experiment


@require_POST
def edit_experiment(request, public_id):
    experiment = _editable(request, public_id)
    try:
        submission.update_experiment(
            experiment, name=request.POST.get("name"), notes=request.POST.get("notes"),
            tags=request.POST.get("tags"), visibility=request.POST.get("visibility"))
    except ScenarioError as err:
        messages.error(request, f"Not saved: {err.field} {err.message}.")
    else:
        messages.info(request, "Saved.")
    return redirect("frontend:experiment", public_id=experiment.public_id)


@require_POST
def cancel_experiment(request, public_id):
    submission.cancel_experiment(_editable(request, public_id))
    messages.info(request, "Cancelled: queued runs were withdrawn; running ones stop at their "
                           "next event.")
    return redirect("frontend:experiment", public_id=public_id)


@require_POST
def add_trials(request, public_id):
    """More trials of every (point, policy), from the experiment page's form."""
    experiment = _editable(request, public_id)
    denied = refused(request)
    raw = request.POST.get("add", "").strip()
    if denied is not None:
        messages.error(request, denied.message)
    elif whole_number(raw) is None:
        messages.error(request, "Trials to add must be a whole number.")
    else:
        who = permissions.viewer(request)
        try:
            submission.add_trials(experiment, int(raw), account=who.account())
        except ScenarioError as err:  # admission.Refused included
            messages.error(request, f"No trials added: {err.message}.")
        else:
            messages.info(request, f"Added {int(raw)} trial{'s' if int(raw) != 1 else ''}: "
                                   "the table grows as the new runs finish.")
    return redirect("frontend:experiment", public_id=experiment.public_id)


@require_POST
def delete_experiment(request, public_id):
    submission.delete_experiment(_editable(request, public_id))
    messages.info(request, "Experiment deleted.")
    return redirect("frontend:home")


def export_runs(request, public_id, fmt: str):
    """A row per run (``notebook.runs_table``) as CSV or Parquet, streamed."""
    experiment = selectors.experiment_by_public_id(public_id, permissions.viewer(request))
    table = notebook.runs_table(selectors.ordered_runs(experiment),
                                f"runs-{experiment.public_id}", axes=experiment.axes)
    return notebook.response(table, fmt)


def export_summary(request, public_id, fmt: str):
    """The summary table of the experiment, or of the sweep point ``?point=k`` that the page
    shows (a sweep without a point: its first)."""
    if fmt not in ("csv", "tex"):
        raise Http404("the summary comes as .csv or .tex")
    experiment = selectors.experiment_by_public_id(public_id, permissions.viewer(request))
    kind_lab = kinds.get_kind(experiment.kind)
    try:
        point = selectors.point_of(experiment, request.GET.get("point")) or 0
    except ScenarioError as err:
        return _no_such_point(request, experiment, err)
    table = presenters.summary_table(kind_lab, experiment, point)
    if fmt == "tex":
        return exports.summary_latex(experiment, table, point)
    return exports.summary_csv(experiment, table, point)


def export_run_records(request, public_id, records: str, fmt: str):
    """A finished run's tasks or series, a row each, as CSV or Parquet."""
    run = selectors.run_by_public_id(public_id, with_result=True,
                                     who=permissions.viewer(request))
    if run.status != Status.DONE:
        raise Http404("the run has no result yet")
    table = notebook.tasks_table(run) if records == "tasks" else notebook.series_table(run)
    return notebook.response(table, fmt)


def run_result_json(request, public_id):
    run: Run = selectors.run_by_public_id(public_id, with_result=True,
                                          who=permissions.viewer(request))
    if run.status != Status.DONE:
        raise Http404("the run has no result yet")
    return exports.result_json(run, attachment=True, request=request)
