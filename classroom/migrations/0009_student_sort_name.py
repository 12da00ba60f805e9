"""Children sort by their name without accents and case ("Émilie" with the Es, "bob" with the
Bs): a stored key, filled here for the children there already are."""

import unicodedata

from django.db import migrations, models


def sort_key(name: str) -> str:
    # A copy of classroom.models.roster.name_sort_key as it is today (migrations keep theirs).
    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return plain.casefold()[:80]


def fill(apps, schema_editor):
    Student = apps.get_model("classroom", "Student")
    batch = []
    for student in Student.objects.only("pk", "name").iterator(chunk_size=2000):
        student.sort_name = sort_key(student.name)
        batch.append(student)
        if len(batch) >= 2000:
            Student.objects.bulk_update(batch, ["sort_name"])
            batch = []
    if batch:
        Student.objects.bulk_update(batch, ["sort_name"])


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0008_remove_factstat_errors"),
    ]

    operations = [
        migrations.AddField(
            model_name="student",
            name="sort_name",
            field=models.CharField(default="", editable=False, max_length=80),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterModelOptions(
            name="student",
            options={
                "ordering": ["sort_name", "name", "pk"],
                "verbose_name": "student",
                "verbose_name_plural": "students",
            },
        ),
    ]
