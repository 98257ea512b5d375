"""The wait ECDF's stored data of finished runs, rebuilt from their full results.

Runs stored before this kept ``dist.wait_min`` in hours for the kinds whose engine keeps
minutes (value-of-service, serial-preemption: the minutes were divided by 60 again), counted a
value-of-service reservation booked past the run's end as a start, and recorded no dropped
tasks. Each such run's ``wait_min`` is computed again by its kind's ``compact`` from the stored
result (``result_gz``); nothing else of the run changes.
"""

import gzip
import json

from django.db import migrations

KINDS = ("value-of-service", "serial-preemption", "parallel-energy")


def rebuild_wait_quantiles(apps, schema_editor):
    from hetsite import kinds
    from simcore.result import Result

    Run = apps.get_model("hetsite", "Run")
    for kind in KINDS:
        kind_lab = kinds.get_kind(kind)
        if kind_lab is None:
            continue
        runs = (Run.objects.filter(experiment__kind=kind, status="done", result_gz__isnull=False)
                .only("pk", "dist", "result_gz").order_by("pk"))
        for run in runs.iterator(chunk_size=200):
            try:
                data = json.loads(gzip.decompress(bytes(run.result_gz)))
                waits = kind_lab.compact(Result.from_dict(data))["dist"].get("wait_min")
            except (OSError, ValueError, KeyError, TypeError):
                continue  # a result this code cannot read keeps the chart data it had
            Run.objects.filter(pk=run.pk).update(dist={**(run.dist or {}), "wait_min": waits})


class Migration(migrations.Migration):

    dependencies = [
        ('hetsite', '0011_explain_tasks'),
    ]

    operations = [
        migrations.RunPython(rebuild_wait_quantiles, migrations.RunPython.noop),
    ]
