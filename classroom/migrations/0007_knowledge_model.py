"""The knowledge model (docs/analytics.md): FactStat keeps the fold's state of each fact as
asked instead of the pooled states of the old SQL rules, ClassFactStat goes (a class's map
is counted from its children's rows), attempts keep the board a claim was made on, and a
capture after being caught is stored as "forced".

The old rows cannot be turned into the new state: they are deleted, every stored wrong
answer is named again by ``classroom.error_kinds``, and every attempt is marked pending, so
the minute's sweep replays each child through the fold in time order (its trend rows are
deleted with them and counted again). ``manage.py recompute`` does it all at once.
"""

from django.db import migrations
from django.db import models

from classroom import error_kinds

BATCH = 2000


def start_again(apps, schema_editor):
    Attempt = apps.get_model("classroom", "Attempt")
    FactStat = apps.get_model("classroom", "FactStat")
    DailyTrend = apps.get_model("classroom", "DailyTrend")
    FactStat.objects.all().delete()
    DailyTrend.objects.all().delete()
    wrong = Attempt.objects.filter(correct=False).order_by("pk")
    last = 0
    while True:
        batch = list(wrong.filter(pk__gt=last)[:BATCH])
        if not batch:
            break
        for attempt in batch:
            attempt.kind = error_kinds.classify(
                attempt.a, attempt.b, attempt.answer, context=attempt.context
            )
        Attempt.objects.bulk_update(batch, ["kind"])
        last = batch[-1].pk
    Attempt.objects.update(stats_applied=False)


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0006_warmup_paused_at"),
    ]

    operations = [
        migrations.RunPython(start_again, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name="classfactstat",
            name="one_stat_per_class_fact",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="close_errors",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="latest",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="omission_errors",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="operand_errors",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="operation_errors",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="other_errors",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="recent_attempts",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="recent_correct",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="recent_days",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="reversed_errors",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="speed_from_game",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="speed_ms",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="state",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="table_errors",
        ),
        migrations.RemoveField(
            model_name="factstat",
            name="zero_one_errors",
        ),
        migrations.AddField(
            model_name="attempt",
            name="options",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="factstat",
            name="forced",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="factstat",
            name="model",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="factstat",
            name="p_known",
            field=models.FloatField(default=0.0),
        ),
        migrations.AlterField(
            model_name="attempt",
            name="context",
            field=models.CharField(
                choices=[
                    ("capture", "Capture"),
                    ("challenge", "Challenge"),
                    ("missed", "Missed"),
                    ("warm-up", "Warm Up"),
                    ("forced", "Forced"),
                ],
                max_length=12,
            ),
        ),
        migrations.DeleteModel(
            name="ClassFactStat",
        ),
    ]
