"""Saved scenarios, experiments and runs, shared by every scenario kind.

One set of tables serves both engines (scheduling and UAV): a run is a run whatever its engine,
so one share-link namespace, one API, one admin and one home page list them all. The ``kind``
column says which engine and environment a row belongs to.

Status changes go through ``hetsite.services`` only.
"""

import uuid
from functools import cached_property

from django.conf import settings
from django.db import models


class Status(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINAL_STATUSES = (Status.DONE, Status.FAILED, Status.CANCELLED)


class Visibility(models.TextChoices):
    """Who sees an experiment (``hetsite.permissions`` decides; pages and API ask it)."""

    UNLISTED = "unlisted", "unlisted: anyone with the link"
    PUBLIC = "public", "public: listed for everyone"
    PRIVATE = "private", "private: only you (and staff)"


class Scenario(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=40, db_index=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    preset = models.CharField(max_length=80, blank=True,
                              help_text="the preset this scenario started from")
    is_preset = models.BooleanField(default=False, db_index=True)
    params = models.JSONField(help_text="validated by the engine's scenario config")
    # Who saved it (hetsite.permissions): a scenario made with an experiment has the
    # experiment's owner; presets have none.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="scenarios")
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["preset"], condition=models.Q(is_preset=True),
                                    name="one_row_per_preset"),
        ]

    def __str__(self):
        return f"{self.name} ({self.kind})"


class Experiment(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=40, db_index=True)
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="experiments")
    policies = models.JSONField(help_text="policy names, in the order chosen")
    trials = models.PositiveIntegerField()
    base_seed = models.PositiveBigIntegerField(default=0)
    figure = models.CharField(max_length=80, blank=True,
                              help_text="the figure preset this experiment reproduces")
    axes = models.JSONField(default=list, blank=True,
                            help_text="swept parameters [{param, values}]; their product gives "
                                      "the points (empty: one point)")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED,
                              db_index=True)
    progress = models.FloatField(default=0.0, help_text="0-100, mean over runs")
    cancel_requested = models.BooleanField(default=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="experiments")
    owner_token = models.CharField(
        max_length=64, blank=True, db_index=True,
        help_text="anonymous ownership: the creator's signed-cookie token (cleared once a user "
                  "adopts the experiment at login)")
    visibility = models.CharField(max_length=10, choices=Visibility.choices,
                                  default=Visibility.UNLISTED, db_index=True)
    notes = models.TextField(blank=True, max_length=20_000)
    tags = models.CharField(max_length=500, blank=True,
                            help_text="comma-separated, lower case (see tag_list)")
    code_version = models.CharField(max_length=40, blank=True)
    account = models.CharField(
        max_length=80, blank=True, db_index=True,
        help_text="who its work is charged to (queue share, caps): user:<id>, anon:<digest of "
                  "the client address> or site (commands)")
    estimate_s = models.FloatField(default=0.0,
                                   help_text="estimated worker-seconds of all its runs")
    explain = models.BooleanField(
        default=False, help_text="its runs record every decision with its reason "
                                 "(hetsite.decisions); experiments without a sweep only")
    explain_tasks = models.JSONField(
        default=list, blank=True,
        help_text="ids of the tasks whose whole story its explained runs keep, whatever the "
                  "sampling of a large run (the CLI's run --explain-task)")
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return self.name

    @property
    def tag_list(self) -> list[str]:
        return [t for t in self.tags.split(",") if t]

    @cached_property
    def summary(self) -> list[dict]:
        """One row per (point, policy), points in order and policies in the experiment's
        order: the point's setting, the finished runs and the mean and 95% CI of every
        headline metric (``SummaryRow``, kept up to date one cell at a time)."""
        return [row.as_dict() for row in self.summary_rows.order_by("point", "id")]

    def summary_by_policy(self, point: int = 0) -> dict[str, dict]:
        """The summary rows of one point, keyed by policy."""
        return {row["policy"]: row for row in self.summary if row["point"] == point}


class SummaryRow(models.Model):
    """One cell of an experiment's summary table: a (sweep point, policy) pair. A finished run
    recomputes only its own cell, from the runs of that cell."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE,
                                   related_name="summary_rows")
    point = models.PositiveIntegerField()
    policy = models.CharField(max_length=80)
    setting = models.JSONField(default=dict, blank=True, help_text="the point's overrides")
    runs = models.PositiveIntegerField(default=0, help_text="finished runs")
    metrics = models.JSONField(default=dict, blank=True,
                               help_text="headline metric -> mean and 95% CI over the runs")

    class Meta:
        ordering = ["experiment", "point", "id"]
        constraints = [
            models.UniqueConstraint(fields=["experiment", "point", "policy"],
                                    name="one_summary_row_per_point_and_policy"),
        ]

    def as_dict(self) -> dict:
        return {"point": self.point, "setting": self.setting, "policy": self.policy,
                "runs": self.runs, **self.metrics}


class Run(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="runs")
    point = models.PositiveIntegerField(default=0, help_text="index of the sweep point")
    overrides = models.JSONField(default=dict, blank=True,
                                 help_text="dotted parameter overrides of this run's point")
    policy = models.CharField(max_length=80, db_index=True)
    trial = models.PositiveIntegerField()
    seed = models.PositiveBigIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED,
                              db_index=True)
    progress = models.FloatField(default=0.0, help_text="0-100")
    error = models.TextField(blank=True)
    celery_id = models.CharField(max_length=64, blank=True,
                                 help_text="id of its task message; empty while it waits in "
                                           "the database for the dispatcher")
    sent = models.DateTimeField(null=True, blank=True,
                                help_text="when its task message was last sent to the broker")
    cost = models.FloatField(default=0.0,
                             help_text="estimated worker-seconds (the kind's cost estimate)")
    attempts = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    summary = models.JSONField(default=dict, blank=True, help_text="headline metrics")
    timing = models.JSONField(default=dict, blank=True, help_text="wall-clock figures")
    series = models.JSONField(default=dict, blank=True,
                              help_text="time series downsampled for charts")
    dist = models.JSONField(default=dict, blank=True,
                            help_text="distributions (quantiles) for charts")
    result_gz = models.BinaryField(null=True, blank=True, editable=False,
                                   help_text="full result JSON, gzip-compressed")
    result_bytes = models.PositiveBigIntegerField(default=0, help_text="uncompressed size")
    decisions_gz = models.BinaryField(
        null=True, blank=True, editable=False,
        help_text="an explained run's decisions with their reasons and the result meta they "
                  "are compared by, gzip-compressed JSON (hetsite.decisions)")
    decisions_info = models.JSONField(
        null=True, blank=True, default=None,
        help_text="what bounded the decisions (the result's meta.decisions) and their count "
                  "per action; null when the run did not explain itself")
    code_version = models.CharField(max_length=40, blank=True)
    plugin = models.JSONField(null=True, blank=True, default=None,
                              help_text="the plugin its policy came from, {name, version} as "
                                        "recorded in its result; null for the project's own")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["experiment", "point", "trial", "id"]
        constraints = [
            models.UniqueConstraint(fields=["experiment", "point", "policy", "trial"],
                                    name="one_run_per_point_policy_and_trial"),
        ]
        indexes = [
            # An experiment's counts by status (its progress) and its next runs to send.
            models.Index(fields=["experiment", "status", "cost"], name="run_exp_status_cost"),
            # The dispatcher's count of messages waiting in the broker (queued and sent).
            models.Index(fields=["status", "celery_id"], name="run_status_task"),
        ]

    def __str__(self):
        return f"{self.policy} #{self.trial} (seed {self.seed})"


class Upload(models.Model):
    """An uploaded file, kept in the database so that every worker can read it. To the site it
    is an opaque blob: the kind's file input that took it checked it and counted its records
    (``simcore.lab.FileInput.check``). Who uploaded it: :class:`UploadOwner`.

    Scenarios name it ``upload:<sha256>``; ``hetsite.uploads`` stores and materializes it.
    """

    sha256 = models.CharField(max_length=64, primary_key=True,
                              help_text="SHA-256 of the file as uploaded")
    data = models.BinaryField(editable=False,
                              help_text="the file, gzip-compressed (as uploaded when it was)")
    size = models.PositiveBigIntegerField(help_text="bytes as uploaded")
    records = models.PositiveIntegerField(
        help_text="records the check counted (a trace's jobs, a list's run times)")
    accepts = models.CharField(max_length=40, blank=True, default="",
                               help_text="the format its file input accepts (swf, runtimes); "
                                         "empty for uploads stored before it was kept")
    name = models.CharField(max_length=255, blank=True, default="",
                            help_text="file name as uploaded (first upload of these bytes)")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return f"upload:{self.sha256}"


class UploadOwner(models.Model):
    """Who uploaded the file with this SHA-256: a user or an anonymous owner's token, as for
    experiments. The same bytes uploaded by two people have two owners and are stored once."""

    sha256 = models.CharField(max_length=64, db_index=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.CASCADE, related_name="uploads")
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["sha256", "owner"], condition=models.Q(
                owner__isnull=False), name="one_row_per_upload_and_user"),
            models.UniqueConstraint(fields=["sha256", "owner_token"], condition=~models.Q(
                owner_token=""), name="one_row_per_upload_and_token"),
        ]

    def __str__(self):
        return f"upload:{self.sha256} of {self.owner or 'an anonymous owner'}"


class ExperimentUpload(models.Model):
    """An upload an experiment's scenario (or one of its sweep points) names; the upload is
    removed with the last experiment that uses it."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE,
                                   related_name="upload_links")
    sha256 = models.CharField(max_length=64, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["experiment", "sha256"],
                                               name="one_link_per_experiment_and_upload")]
