"""The kinds of wrong answer of issue 19: two new FactStat columns (reversed digits; 0 or one of
the two numbers) and every stored wrong answer named again by the new ``classify``
(docs/analytics.md, "Kinds of wrong answer").

The stored attempts are renamed with the rules of the code that runs this migration; then the
error columns of the children whose attempts changed are counted again from their attempts
(what the next rebuild would do, so the reports are right at once). Going back keeps the new
names: the old rules are not kept anywhere, and ``manage.py recompute`` recounts with the
rules of whichever code then runs.
"""

from collections import defaultdict

from django.db import migrations, models
from django.db.models import Count

from classroom.diagnosis import classify

KINDS = ("operand", "close", "zero_one", "operation", "reversed", "table", "other", "omission")
COLUMNS = [f"{kind}_errors" for kind in KINDS]
BATCH = 2000


def rename_wrong_answers(apps, schema_editor):
    Attempt = apps.get_model("classroom", "Attempt")
    FactStat = apps.get_model("classroom", "FactStat")
    children = set()
    last = 0
    while True:  # by ranges of ids, so no cursor stays open on a table being updated
        rows = list(
            Attempt.objects.filter(pk__gt=last, correct=False, answer__isnull=False)
            .order_by("pk")
            .values_list("pk", "student_id", "a", "b", "answer", "kind")[:BATCH]
        )
        if not rows:
            break
        last = rows[-1][0]
        renamed = defaultdict(list)
        for pk, student_id, a, b, answer, kind in rows:
            new = classify(a, b, answer)
            if new != kind:
                renamed[new].append(pk)
                children.add(student_id)
        for kind, pks in renamed.items():
            Attempt.objects.filter(pk__in=pks).update(kind=kind)

    ids = sorted(children)
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        counts = defaultdict(dict)
        wrong = (
            Attempt.objects.filter(student_id__in=chunk, correct=False)
            .values("student_id", "a", "b", "kind")
            .annotate(n=Count("id"))
            .order_by()
        )
        for row in wrong:
            counts[(row["student_id"], row["a"], row["b"])][row["kind"]] = row["n"]
        stats = list(FactStat.objects.filter(student_id__in=chunk))
        for stat in stats:
            fact = counts.get((stat.student_id, stat.a, stat.b), {})
            for kind in KINDS:
                setattr(stat, f"{kind}_errors", fact.get(kind, 0))
        FactStat.objects.bulk_update(stats, COLUMNS, batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0010_signin_device_and_rate_limit"),
    ]

    operations = [
        migrations.AddField(
            model_name="factstat",
            name="reversed_errors",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="factstat",
            name="zero_one_errors",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(rename_wrong_answers, migrations.RunPython.noop),
    ]
