import hashlib

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from . import permissions
from .models import Experiment, Run, Scenario
from .notebook import csv_response, runs_table
from .selectors import HEAVY
from .services import submission


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "preset", "is_preset", "created"]
    list_filter = ["kind", "is_preset", ("created", admin.DateFieldListFilter)]
    search_fields = ["name", "description", "preset"]
    readonly_fields = ["public_id", "kind", "params", "created"]

    def has_add_permission(self, request):
        # A scenario's parameters are validated by its engine; new ones come from the lab's
        # form or the API (``POST /api/scenarios/``), never from an unvalidated admin form.
        return False


class RunInline(admin.TabularInline):
    model = Run
    fields = ["policy", "trial", "seed", "status", "progress", "error"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Experiment)
class ExperimentAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "status", "visibility", "owned_by", "progress", "trials",
                    "created", "share_link"]
    list_select_related = ["owner"]
    list_filter = ["kind", "status", "visibility", ("created", admin.DateFieldListFilter)]
    search_fields = ["name", "notes", "tags", "public_id", "scenario__name"]
    readonly_fields = ["public_id", "kind", "scenario", "policies", "trials", "base_seed",
                       "status", "progress", "cancel_requested", "code_version", "summary",
                       "account", "estimate_s", "created", "finished", "share_link", "owned_by"]
    fields = ["name", "owner", "visibility", "notes", "tags", *readonly_fields]
    inlines = [RunInline]
    actions = ["rerun", "cancel", "export_csv"]

    def has_add_permission(self, request):
        # Experiments are created through the lab's form or the API, which validate the
        # scenario and dispatch the runs; an admin form could do neither.
        return False

    # Deleting goes through the service, as on the page and in the API: its scenario and the
    # uploads no other experiment uses go with it.
    def delete_model(self, request, obj):
        submission.delete_experiment(obj)

    def delete_queryset(self, request, queryset):
        for experiment in queryset:
            submission.delete_experiment(experiment)

    @admin.display(description="owner", ordering="owner__username")
    def owned_by(self, obj):
        """The user, or an anonymous owner by a short digest of their cookie: two experiments
        of one browser read alike, and the cookie itself (which would let its reader act as
        the owner) is never shown."""
        if obj.owner_id is not None:
            return obj.owner.get_username()
        if obj.owner_token:
            return f"cookie {hashlib.sha256(obj.owner_token.encode()).hexdigest()[:8]}"
        return "none (site)"

    @admin.display(description="share link")
    def share_link(self, obj):
        url = reverse("frontend:experiment", args=[obj.public_id])
        return format_html('<a href="{}">{}</a>', url, url)

    @admin.action(description="Re-run (new experiment, same scenario and seeds)")
    def rerun(self, request, queryset):
        for experiment in queryset:
            try:
                submission.rerun_experiment(experiment, owner=request.user,
                                            account=permissions.viewer(request).account())
            except submission.BrokerUnavailable as exc:
                self.message_user(request, str(exc), messages.ERROR)
                return
        self.message_user(request, f"re-ran {queryset.count()} experiment(s)")

    @admin.action(description="Cancel")
    def cancel(self, request, queryset):
        for experiment in queryset:
            submission.cancel_experiment(experiment)
        self.message_user(request, f"cancelled {queryset.count()} experiment(s)")

    @admin.action(description="Export run summaries as CSV")
    def export_csv(self, request, queryset):
        runs = Run.objects.filter(experiment__in=queryset).defer(*HEAVY).select_related(
            "experiment")
        return csv_response(runs_table(runs, "experiments"))


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["experiment", "policy", "trial", "seed", "status", "progress", "finished"]
    list_filter = ["status", "policy", "experiment__kind", ("created", admin.DateFieldListFilter)]
    search_fields = ["policy", "public_id", "experiment__name", "error"]
    readonly_fields = ["public_id", "experiment", "policy", "trial", "seed", "status",
                       "progress", "error", "celery_id", "sent", "cost", "attempts", "worker",
                       "summary",
                       "timing", "result_bytes", "code_version", "plugin", "created", "started",
                       "heartbeat", "finished", "decisions_info"]
    exclude = ["series", "dist"]
    actions = ["export_csv"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer(*HEAVY, "series", "dist")

    def has_add_permission(self, request):
        return False

    @admin.action(description="Export as CSV")
    def export_csv(self, request, queryset):
        return csv_response(runs_table(queryset, "runs"))
