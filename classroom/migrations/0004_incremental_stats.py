"""Incremental statistics (docs/analytics.md, "Pipeline"): each attempt's idempotency marker
and each FactStat row's window of its latest ten attempts.

Attempts stored before this migration count as applied (the statistics of the old pipeline
already hold them); the rows' windows are empty until a rebuild, and the incremental update
repairs a child whose touched rows have none (``incremental.py``). ``manage.py recompute``
after migrating fills every window at once."""

from django.db import migrations
from django.db import models


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0003_student_signed_in_until"),
        ("games", "0001_initial"),
    ]

    operations = [
        # Existing rows take True; new attempts default to False (not yet counted), also
        # when written by SQL of their own (an import, the benchmark's COPY).
        migrations.AddField(
            model_name="attempt",
            name="stats_applied",
            field=models.BooleanField(default=True),
        ),
        migrations.AlterField(
            model_name="attempt",
            name="stats_applied",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="factstat",
            name="latest",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddIndex(
            model_name="attempt",
            index=models.Index(
                condition=models.Q(("stats_applied", False)),
                fields=["student"],
                name="attempt_stats_pending",
            ),
        ),
    ]
