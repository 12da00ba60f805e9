"""FactStat's wrong answers by kind: six integer columns instead of one JSON object (the
rebuild counts them far more cheaply; docs/performance.md, "Session 6"). The JSON column goes
in the next migration, in a transaction of its own (PostgreSQL refuses to alter a table with
pending trigger events, such as the foreign-key checks of the rows just updated)."""

from django.db import migrations, models

KINDS = ("operand", "operation", "table", "close", "omission", "other")
COLUMNS = [f"{kind}_errors" for kind in KINDS]


def copy_errors(apps, schema_editor):
    """The old JSON counts into the new columns (`manage.py recompute` would rebuild them
    too; this keeps the reports right until then)."""
    FactStat = apps.get_model("classroom", "FactStat")
    batch = []
    for stat in FactStat.objects.only("pk", "errors").iterator(chunk_size=2000):
        for kind in KINDS:
            setattr(stat, f"{kind}_errors", int((stat.errors or {}).get(kind, 0)))
        batch.append(stat)
        if len(batch) == 2000:
            FactStat.objects.bulk_update(batch, COLUMNS)
            batch = []
    if batch:
        FactStat.objects.bulk_update(batch, COLUMNS)


def copy_errors_back(apps, schema_editor):
    FactStat = apps.get_model("classroom", "FactStat")
    batch = []
    for stat in FactStat.objects.iterator(chunk_size=2000):
        stat.errors = {kind: getattr(stat, f"{kind}_errors") for kind in KINDS}
        batch.append(stat)
        if len(batch) == 2000:
            FactStat.objects.bulk_update(batch, ["errors"])
            batch = []
    if batch:
        FactStat.objects.bulk_update(batch, ["errors"])


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0006_drop_trend_median"),
    ]

    operations = [
        *(
            migrations.AddField(
                model_name="factstat",
                name=column,
                field=models.PositiveIntegerField(default=0),
            )
            for column in COLUMNS
        ),
        migrations.RunPython(copy_errors, copy_errors_back),
    ]
