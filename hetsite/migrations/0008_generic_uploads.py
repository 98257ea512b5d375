"""Uploads become generic blobs: the trace-only TraceUpload table is renamed, keeping every row;
its job count becomes the records the kind's check counted, and the format tag and file name are
kept from now on (empty for the rows stored before)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("hetsite", "0007_fair_queue_and_summary_rows"),
    ]

    operations = [
        migrations.RenameModel("TraceUpload", "Upload"),
        migrations.RenameField("Upload", "jobs", "records"),
        migrations.AlterField(
            model_name="upload",
            name="records",
            field=models.PositiveIntegerField(
                help_text="records the check counted (a trace's jobs, a list's run times)"),
        ),
        migrations.AddField(
            model_name="upload",
            name="accepts",
            field=models.CharField(blank=True, default="", max_length=40,
                                   help_text="the format its file input accepts (swf, "
                                             "runtimes); empty for uploads stored before it "
                                             "was kept"),
        ),
        migrations.AddField(
            model_name="upload",
            name="name",
            field=models.CharField(blank=True, default="", max_length=255,
                                   help_text="file name as uploaded (first upload of these "
                                             "bytes)"),
        ),
    ]
