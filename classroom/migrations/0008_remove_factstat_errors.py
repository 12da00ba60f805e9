"""The JSON column of FactStat's wrong answers by kind, now in six columns (0007)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0007_factstat_error_columns"),
    ]

    operations = [
        migrations.RemoveField(model_name="factstat", name="errors"),
    ]
