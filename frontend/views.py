"""Pages: thin views that call the services, selectors and figures of ``hetsite``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from hetsite import exports, figures, kinds, selectors
from hetsite.models import FINAL_STATUSES, Run, Status
from hetsite.permissions import can_edit
from hetsite.services import submission
from hetsite.throttles import SubmitThrottle

from .forms import ExperimentForm


def home(request):
    return render(request, "frontend/home.html", {
        "experiments": selectors.experiments_newest_first(limit=50),
        "kinds": [(ui, ui.engine.list_presets(ui.kind)) for ui in kinds.all_kinds()],
    })


def _ui_or_404(kind: str) -> kinds.LabKind:
    ui = kinds.get_kind(kind)
    if ui is None:
        raise Http404(f"no scenario kind {kind!r}")
    return ui


def new_experiment(request, kind: str):
    ui = _ui_or_404(kind)
    if request.method == "POST":
        form = ExperimentForm(ui, request.POST, request.FILES)
        throttle = SubmitThrottle()
        if not throttle.allow_request(request, None):
            form.add_error(None, f"Too many experiments from this client; try again in "
                                 f"{int(throttle.wait() or 1)} s.")
            return render(request, "frontend/new.html", _form_context(ui, form), status=429)
        status = 400
        if form.is_valid() and form.submission is not None:
            try:
                experiment = submission.create_experiment(form.submission, owner=request.user)
            except submission.BrokerUnavailable as exc:
                form.add_error(None, str(exc))
                status = 503
            else:
                return redirect("frontend:experiment", public_id=experiment.public_id)
        return render(request, "frontend/new.html", _form_context(ui, form), status=status)

    preset_name = request.GET.get("preset") or ui.default_preset
    clone = request.GET.get("clone")
    if clone:
        source = selectors.experiment_by_public_id(clone)
        if source.kind != ui.kind:
            raise Http404("that experiment is of another kind")
        initial = ExperimentForm.initial_for(
            ui, source.scenario.params, preset=source.scenario.preset,
            policies=source.policies, trials=source.trials, base_seed=source.base_seed,
            name=f"{source.name} (copy)")
    else:
        presets = {p.name: p for p in ui.engine.list_presets(ui.kind)}
        if preset_name not in presets:
            preset_name = next(iter(presets), "")
        params = submission.validate_scenario(kind=ui.kind, preset=preset_name)
        initial = ExperimentForm.initial_for(ui, params, preset=preset_name)
    form = ExperimentForm(ui, initial=initial)
    return render(request, "frontend/new.html", _form_context(ui, form))


def _form_context(ui, form):
    families: dict[str, list] = {}
    for policy in ui.engine.list_policies(ui.kind):
        families.setdefault(policy.family or "policies", []).append(policy)
    presets = ui.engine.list_presets(ui.kind)
    current = form["preset"].value() or ""
    return {"ui": ui, "form": form, "presets": presets,
            "families": families, "chosen": set(form["policies"].value() or []),
            "current_preset": current,
            # the whole description: the picker truncates it, and it may carry caveats
            "current_preset_info": next((p for p in presets if p.name == current), None)}


def experiment_page(request, public_id):
    experiment = selectors.experiment_by_public_id(public_id)
    ui = kinds.get_kind(experiment.kind)
    runs = selectors.runs_of(experiment)
    groups = selectors.run_groups(experiment, runs=runs)
    figs = figures.experiment_figures(experiment, groups=groups) if groups else []
    done_runs = [r for r in runs if r.status == Status.DONE]
    metrics = ui.metrics if ui else []
    by_policy = experiment.summary_by_policy()
    table = [{"policy": p, "label": _label(ui, p),
              "cells": [by_policy.get(p, {}).get(m.key) for m in metrics],
              "runs": by_policy.get(p, {}).get("runs", 0)}
             for p in experiment.policies]
    return render(request, "frontend/experiment.html", {
        "experiment": experiment, "ui": ui, "runs": runs, "done_runs": done_runs,
        "failed_runs": [r for r in runs if r.status == Status.FAILED],
        "figures": figs, "metrics": metrics, "table": table,
        "final": experiment.status in FINAL_STATUSES,
        "can_edit": can_edit(request.user, experiment),
        "share_url": request.build_absolute_uri(
            reverse("frontend:experiment", args=[experiment.public_id])),
    })


def _label(ui, policy: str) -> str:
    try:
        return ui.engine.get_policy(ui.kind, policy).label
    except Exception:
        return policy


def compare_policies(request, public_id):
    """Side by side: the chosen policies of one experiment, one panel each, same axes."""
    experiment = selectors.experiment_by_public_id(public_id)
    chosen = [p for p in request.GET.getlist("p") if p in experiment.policies]
    if len(chosen) < 2:
        chosen = experiment.policies[:]
    figs = figures.experiment_figures(experiment, policies=chosen, side_by_side=True)
    return render(request, "frontend/compare.html", {
        "experiment": experiment, "chosen": chosen, "figures": figs,
        "policies": experiment.policies})


def compare_runs(request):
    """Side by side: any runs of one scenario kind, picked by id (from any experiments)."""
    ids = request.GET.getlist("run")[:12]
    runs = [selectors.run_by_public_id(i) for i in ids]
    runs = [r for r in runs if r.status == Status.DONE]
    if runs and len({r.experiment.kind for r in runs}) > 1:
        raise Http404("runs of different scenario kinds cannot share axes")
    return render(request, "frontend/compare.html", {
        "runs": runs, "figures": figures.compare_runs_figures(runs)})


def _editable(request, public_id):
    experiment = selectors.experiment_by_public_id(public_id)
    if not can_edit(request.user, experiment):
        raise PermissionDenied
    return experiment


@require_POST
@login_required
def cancel_experiment(request, public_id):
    submission.cancel_experiment(_editable(request, public_id))
    messages.info(request, "Cancelled: queued runs were withdrawn; running ones stop at their "
                           "next event.")
    return redirect("frontend:experiment", public_id=public_id)


@require_POST
@login_required
def delete_experiment(request, public_id):
    submission.delete_experiment(_editable(request, public_id))
    messages.info(request, "Experiment deleted.")
    return redirect("frontend:home")


def export_runs_csv(request, public_id):
    experiment = selectors.experiment_by_public_id(public_id)
    return exports.runs_csv(selectors.runs_of(experiment), f"runs-{experiment.public_id}.csv")


def export_tasks_csv(request, public_id):
    run = selectors.run_by_public_id(public_id, with_result=True)
    if run.status != Status.DONE:
        raise Http404("the run has no result yet")
    return exports.tasks_csv(run)


def run_result_json(request, public_id):
    run: Run = selectors.run_by_public_id(public_id, with_result=True)
    if run.status != Status.DONE:
        raise Http404("the run has no result yet")
    return exports.result_json(run, attachment=True)
