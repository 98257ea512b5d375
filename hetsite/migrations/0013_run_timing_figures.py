"""A run's row keeps its timing figures, not the per-event lists (``services.execution.
run_timing``): rows stored before this kept ``event_ms`` (one number per event, 11 MB of JSON
for a 500,000-job replay), which every run list and detail served. The full result
(``result_gz``) keeps them."""

from django.db import migrations


def drop_event_lists(apps, schema_editor):
    Run = apps.get_model("hetsite", "Run")
    runs = Run.objects.filter(status="done").only("pk", "timing").order_by("pk")
    for run in runs.iterator(chunk_size=20):  # (a row may hold megabytes)
        timing = run.timing or {}
        kept = {k: v for k, v in timing.items() if not isinstance(v, list | dict)}
        if kept != timing:
            Run.objects.filter(pk=run.pk).update(timing=kept)


class Migration(migrations.Migration):

    dependencies = [("hetsite", "0012_wait_chart_minutes")]

    operations = [migrations.RunPython(drop_event_lists, migrations.RunPython.noop)]
