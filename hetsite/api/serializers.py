from __future__ import annotations

import math
from collections.abc import Mapping

from rest_framework import serializers

from simcore.errors import ScenarioError
from simcore.params import whole_number

from ..models import Experiment, Run, Scenario, Visibility
from ..services import submission

TOP_LEVEL = {"kind", "preset", "params", "policies", "trials", "base_seed", "name", "policy",
             "seed", "axes", "visibility", "notes", "tags", "dry_run", "add",
             "with_policies", "explain", "explain_tasks"}


RUNS_INLINE = 100  # runs listed in an experiment's detail; all of them at runs_url, paged


def scenario_error(err: ScenarioError) -> serializers.ValidationError:
    """A 400 body that names the field: top-level fields as is, parameters as ``params.<name>``."""
    head = err.field.split(".")[0].split("[")[0]
    key = err.field if head in TOP_LEVEL else f"params.{err.field}"
    return serializers.ValidationError({key: [err.message]})


class StrictSerializer(serializers.Serializer):
    """Input whose unknown top-level fields are a 400 naming them: a misspelt or unsupported
    field is never silently ignored."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(str(k) for k in data if k not in self.fields)
            if unknown:
                known = ", ".join(self.fields)
                raise serializers.ValidationError(
                    {name[:80]: [f"unknown field; known fields: {known}"]
                     for name in unknown[:20]})
        return super().to_internal_value(data)


class JsonInteger(serializers.IntegerField):
    """An integer as a JSON number (``3``, or ``3.0``) or as text of digits 0-9 (``"3"``, as
    clients have always been able to send it): other text (``"٣"``, ``"²"``, ``"1_0"``) is a
    400 naming the field. DRF's own field reads text through ``int``, which takes other
    scripts' digits (``"٣"`` was 3 trials)."""

    default_error_messages = {
        "invalid": "A valid integer is required: a number such as 3, or its digits 0-9."}

    def to_internal_value(self, data):
        if isinstance(data, str):
            text = data.strip()
            number = whole_number(text.removeprefix("-"), 19)
            if number is None:
                self.fail("invalid")
            data = -number if text.startswith("-") else number
        elif isinstance(data, bool) or not isinstance(data, (int, float)) or (
                isinstance(data, float) and not (math.isfinite(data) and data.is_integer())):
            self.fail("invalid")
        return super().to_internal_value(int(data))


class RunSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    experiment = serializers.UUIDField(source="experiment.public_id", read_only=True)
    explain = serializers.BooleanField(source="experiment.explain", read_only=True,
                                       help_text="the run records its decisions")
    decisions = serializers.JSONField(
        source="decisions_info", read_only=True,
        help_text="null, or what bounded its decisions (meta.decisions) and their counts per "
                  "action; read them at decisions_url")
    decisions_url = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["id", "experiment", "point", "overrides", "policy", "trial", "seed", "status",
                  "progress", "error", "summary", "timing", "attempts", "code_version",
                  "plugin", "created", "started", "finished", "explain", "decisions",
                  "decisions_url"]
        read_only_fields = fields

    def get_decisions_url(self, obj) -> str | None:
        return f"/api/runs/{obj.public_id}/decisions/" if obj.decisions_info else None


class ScenarioSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)

    class Meta:
        model = Scenario
        fields = ["id", "kind", "name", "description", "preset", "is_preset", "params",
                  "created"]
        read_only_fields = ["id", "is_preset", "created"]


class ScenarioCreateSerializer(StrictSerializer):
    kind = serializers.CharField(max_length=40)
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    preset = serializers.CharField(required=False, allow_blank=True, max_length=80)
    params = serializers.DictField(required=False)

    def validate(self, data):
        try:
            sub = submission.validate_scenario(kind=data["kind"], params=data.get("params"),
                                             preset=data.get("preset", ""),
                                             who=self.context["who"])
        except ScenarioError as err:
            raise scenario_error(err) from None
        return {**data, "params": sub}


class ExperimentSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    scenario = ScenarioSerializer(read_only=True)
    summary = serializers.SerializerMethodField()
    points = serializers.JSONField(source="summary", read_only=True)
    runs = serializers.SerializerMethodField()
    runs_total = serializers.SerializerMethodField()
    runs_url = serializers.SerializerMethodField()
    share_url = serializers.SerializerMethodField()

    class Meta:
        model = Experiment
        fields = ["id", "name", "kind", "status", "progress", "policies", "trials", "base_seed",
                  "axes", "figure", "visibility", "notes", "tags", "owner", "code_version",
                  "created", "finished", "scenario", "summary", "points", "runs", "runs_total",
                  "runs_url", "estimate_s", "share_url", "explain", "explain_tasks"]
        read_only_fields = fields

    tags = serializers.ListField(source="tag_list", child=serializers.CharField(),
                                 read_only=True)
    owner = serializers.CharField(source="owner.get_username", read_only=True, default=None)

    def get_summary(self, obj) -> dict:
        """Per policy, the mean and 95% CI of every headline metric (experiments without
        axes; a sweep's rows are in ``points``)."""
        return {} if obj.axes else {p: {k: v for k, v in row.items()
                                        if k not in ("point", "setting", "policy")}
                                    for p, row in obj.summary_by_policy().items()}

    def get_runs(self, obj) -> list[dict]:
        """The first RUNS_INLINE runs (every run of most experiments); ``runs_total`` says how
        many there are, and ``runs_url`` lists them all, page by page."""
        from ..selectors import runs_page

        return RunSerializer(runs_page(obj, 1, size=RUNS_INLINE)[0], many=True).data

    def get_runs_total(self, obj) -> int:
        return obj.runs.count()

    def get_runs_url(self, obj) -> str:
        request = self.context.get("request")
        path = f"/api/experiments/{obj.public_id}/runs/"
        return request.build_absolute_uri(path) if request else path

    def get_share_url(self, obj) -> str:
        request = self.context.get("request")
        path = f"/e/{obj.public_id}/"
        return request.build_absolute_uri(path) if request else path


class ExperimentListSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    tags = serializers.ListField(source="tag_list", child=serializers.CharField(),
                                 read_only=True)

    class Meta:
        model = Experiment
        fields = ["id", "name", "kind", "status", "progress", "policies", "trials",
                  "visibility", "tags", "created", "finished"]
        read_only_fields = fields


class ExperimentUpdateSerializer(StrictSerializer):
    """What an owner may change: name, notes, tags (a list or comma-separated), visibility."""

    name = serializers.CharField(required=False, max_length=200)
    notes = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    tags = serializers.JSONField(required=False)
    visibility = serializers.ChoiceField(required=False, choices=Visibility.choices)


class ExperimentCreateSerializer(StrictSerializer):
    kind = serializers.CharField(max_length=40, help_text="scenario kind, see /api/kinds/")
    preset = serializers.CharField(required=False, allow_blank=True, max_length=80,
                                   help_text="start from this preset")
    params = serializers.DictField(required=False,
                                   help_text="scenario parameters (override the preset)")
    policies = serializers.ListField(child=serializers.CharField(max_length=80),
                                     allow_empty=False, max_length=200)
    trials = JsonInteger(min_value=1, default=1)
    base_seed = JsonInteger(min_value=0, max_value=2**62 - 1, default=0)
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    axes = serializers.ListField(child=serializers.DictField(), required=False, max_length=4,
                                 help_text="swept parameters [{param, values}]; their product "
                                           "gives the points")
    visibility = serializers.ChoiceField(choices=Visibility.choices, default=Visibility.UNLISTED,
                                         help_text="unlisted (link only), public or private")
    notes = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    tags = serializers.JSONField(required=False, help_text="list of tags or comma-separated")
    dry_run = serializers.BooleanField(required=False, default=False,
                          help_text="true: answer 200 with the price (runs, CPU and wall "
                                    "time, budget) and create nothing")
    explain = serializers.BooleanField(
        required=False, default=False,
        help_text="true: every run records its decisions with their reasons (read them at "
                  "/api/runs/<id>/decisions/); experiments without axes only, priced with the "
                  "recording's overhead")
    explain_tasks = serializers.JSONField(
        required=False,
        help_text="with explain: ids of tasks whose whole story every run keeps, whatever the "
                  "sampling of a large run (a list, or one comma-separated text; at most "
                  "HETSITE_EXPLAIN_MAX_TASKS), as run --explain-task")

    def validate(self, data):
        self.dry_run = data.get("dry_run", False)
        try:
            return submission.validate_submission(
                kind=data["kind"], params=data.get("params"), preset=data.get("preset", ""),
                policies=data["policies"], trials=data["trials"],
                base_seed=data.get("base_seed", 0), name=data.get("name", ""),
                axes=data.get("axes"), visibility=data.get("visibility", Visibility.UNLISTED),
                notes=data.get("notes", ""), tags=data.get("tags", ""),
                who=self.context["who"], explain=data.get("explain", False),
                explain_tasks=data.get("explain_tasks"))
        except ScenarioError as err:
            raise scenario_error(err) from None


class FigureRunSerializer(StrictSerializer):
    trials = JsonInteger(min_value=1, required=False,
                         help_text="trials per point and policy (default: the figure's)")
    base_seed = JsonInteger(min_value=0, max_value=2**62 - 1, required=False,
                            help_text="seed of the first trial (default: the figure's "
                                      "recorded seeds, from 1000)")
    with_policies = serializers.ListField(
        child=serializers.CharField(max_length=80), required=False, max_length=64,
        help_text="other policies of the figure's kind to run beside the published ones, on "
                  "the same seeds; the result page compares each with every published policy")
    dry_run = serializers.BooleanField(required=False, default=False,
                          help_text="true: answer 200 with the price and create nothing")

    def validate(self, data):
        self.dry_run = data.get("dry_run", False)
        try:
            return submission.figure_submission(self.context["figure"], data.get("trials"),
                                                data.get("base_seed"),
                                                data.get("with_policies", []))
        except ScenarioError as err:
            raise scenario_error(err) from None


class AddTrialsSerializer(StrictSerializer):
    add = JsonInteger(min_value=1, help_text="trials to add to every (point, policy); seeds "
                                             "continue the sequence")
    dry_run = serializers.BooleanField(required=False, default=False,
                          help_text="true: answer 200 with the price of the added runs and "
                                    "add nothing")


class QuoteSerializer(serializers.Serializer):
    """What a submission would cost (``hetsite.services.pricing``)."""

    dry_run = serializers.BooleanField()
    runs = serializers.IntegerField()
    estimated_cpu_s = serializers.FloatField(help_text="worker-seconds, the estimate admission "
                                                       "charges")
    estimated_wall_s = serializers.FloatField(help_text="with the workers to itself")
    estimated_wall_queued_s = serializers.FloatField(help_text="behind all the work queued now")
    longest_run_s = serializers.FloatField()
    run_time_limit_s = serializers.IntegerField()
    workers = serializers.IntegerField()
    queue_s = serializers.FloatField()
    tier = serializers.CharField()
    budget_s = serializers.FloatField(allow_null=True, help_text="null: no limit (staff)")
    budget_in_use_s = serializers.FloatField()
    budget_after_s = serializers.FloatField()
    queued_runs = serializers.IntegerField()
    admitted = serializers.BooleanField()
    refusal = serializers.DictField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())


class UploadSerializer(serializers.Serializer):
    """One of the caller's uploads."""

    sha256 = serializers.CharField()
    ref = serializers.CharField(help_text="how a scenario names it: upload:<sha256>")
    size = serializers.IntegerField(allow_null=True, help_text="bytes as uploaded")
    jobs = serializers.IntegerField(allow_null=True, help_text="jobs or run times in the file")
    experiments = serializers.IntegerField(help_text="the caller's own experiments that use "
                                                     "it (others' are not counted)")
    created = serializers.DateTimeField()


class ProgressSerializer(serializers.Serializer):
    status = serializers.CharField()
    progress = serializers.FloatField()
    counts = serializers.DictField(child=serializers.IntegerField())
    runs_total = serializers.IntegerField()
    runs_page = serializers.IntegerField()
    runs_pages = serializers.IntegerField()
    runs = serializers.ListField(child=serializers.DictField())


class DecisionsPageSerializer(serializers.Serializer):
    """One page of a run's decisions (``hetsite.decisions.decisions_page``)."""

    run = serializers.UUIDField()
    policy = serializers.CharField()
    task = serializers.CharField(allow_null=True, help_text="the task whose story this is")
    actions = serializers.ListField(child=serializers.CharField(),
                                    help_text="the actions asked for (empty: all)")
    bounds = serializers.DictField(help_text="the result's meta.decisions: time_unit, "
                                             "per_task, limit, sampling, ...")
    counts = serializers.DictField(child=serializers.IntegerField(),
                                   help_text="decisions per action over the whole run")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    page_size = serializers.IntegerField()
    total = serializers.IntegerField(help_text="decisions matching task and action")
    decisions = serializers.ListField(child=serializers.DictField(),
                                      help_text="{t, task, action, reason, ...numbers}")


class FigureSerializer(serializers.Serializer):
    data = serializers.ListField(child=serializers.DictField())
    layout = serializers.DictField()
