"""Issue 27: runs wait in the database for a fair dispatcher (``Run.sent``, ``Run.cost``,
``Experiment.account``) and the summary table becomes one row per (point, policy) cell, so a
finished run recomputes its own cell only. Existing summaries are copied into rows; an
existing experiment is charged to its owner (user) or to its anonymous owner token."""

import django.db.models.deletion
from django.db import migrations, models


def summary_rows_and_accounts(apps, schema_editor):
    Experiment = apps.get_model("hetsite", "Experiment")
    SummaryRow = apps.get_model("hetsite", "SummaryRow")
    for experiment in Experiment.objects.only("pk", "summary", "owner_id", "owner_token"):
        rows = [SummaryRow(experiment_id=experiment.pk, point=row.get("point", 0),
                           policy=row["policy"], setting=row.get("setting") or {},
                           runs=row.get("runs", 0),
                           metrics={k: v for k, v in row.items()
                                    if k not in ("point", "setting", "policy", "runs")})
                for row in (experiment.summary or []) if isinstance(row, dict)]
        SummaryRow.objects.bulk_create(rows, ignore_conflicts=True)
        account = (f"user:{experiment.owner_id}" if experiment.owner_id
                   else f"token:{experiment.owner_token}" if experiment.owner_token else "site")
        Experiment.objects.filter(pk=experiment.pk).update(account=account)


def summary_lists(apps, schema_editor):
    Experiment = apps.get_model("hetsite", "Experiment")
    for experiment in Experiment.objects.only("pk"):
        rows = experiment.summary_rows.order_by("point", "id")
        Experiment.objects.filter(pk=experiment.pk).update(summary=[
            {"point": r.point, "setting": r.setting, "policy": r.policy, "runs": r.runs,
             **r.metrics} for r in rows])


class Migration(migrations.Migration):

    dependencies = [
        ('hetsite', '0006_upload_ownership'),
    ]

    operations = [
        migrations.CreateModel(
            name='SummaryRow',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('point', models.PositiveIntegerField()),
                ('policy', models.CharField(max_length=80)),
                ('setting', models.JSONField(blank=True, default=dict, help_text="the point's overrides")),
                ('runs', models.PositiveIntegerField(default=0, help_text='finished runs')),
                ('metrics', models.JSONField(blank=True, default=dict, help_text='headline metric -> mean and 95% CI over the runs')),
            ],
            options={
                'ordering': ['experiment', 'point', 'id'],
            },
        ),
        migrations.AddField(
            model_name='experiment',
            name='account',
            field=models.CharField(blank=True, db_index=True, help_text='who its work is charged to (queue share, caps): user:<id>, anon:<digest of the client address> or site (commands)', max_length=80),
        ),
        migrations.AddField(
            model_name='experiment',
            name='estimate_s',
            field=models.FloatField(default=0.0, help_text='estimated worker-seconds of all its runs'),
        ),
        migrations.AddField(
            model_name='run',
            name='cost',
            field=models.FloatField(default=0.0, help_text="estimated worker-seconds (the kind's cost estimate)"),
        ),
        migrations.AddField(
            model_name='run',
            name='sent',
            field=models.DateTimeField(blank=True, help_text='when its task message was last sent to the broker', null=True),
        ),
        migrations.AlterField(
            model_name='run',
            name='celery_id',
            field=models.CharField(blank=True, help_text='id of its task message; empty while it waits in the database for the dispatcher', max_length=64),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(fields=['experiment', 'status', 'cost'], name='run_exp_status_cost'),
        ),
        migrations.AddIndex(
            model_name='run',
            index=models.Index(fields=['status', 'celery_id'], name='run_status_task'),
        ),
        migrations.AddField(
            model_name='summaryrow',
            name='experiment',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='summary_rows', to='hetsite.experiment'),
        ),
        migrations.AddConstraint(
            model_name='summaryrow',
            constraint=models.UniqueConstraint(fields=('experiment', 'point', 'policy'), name='one_summary_row_per_point_and_policy'),
        ),
        migrations.RunPython(summary_rows_and_accounts, summary_lists),
        migrations.RemoveField(
            model_name='experiment',
            name='summary',
        ),
    ]
