"""Each class row keeps its children's median times (``ClassFactStat.medians``), so a child's
game updates the class's median of medians without reading the classmates' FactStat rows
(docs/analytics.md, "Pipeline"). The existing rows are filled from the FactStat rows here, as
``stats_sql.class_stats`` fills them on a rebuild."""

from django.db import migrations
from django.db import models

FILL = """
UPDATE classroom_classfactstat SET medians = COALESCE((
  SELECT {object_agg}(f.student_id || ':' || f.a || ':' || f.b, f.median_ms)
  FROM classroom_factstat f JOIN classroom_student s ON s.id = f.student_id
  WHERE s.classroom_id = classroom_classfactstat.classroom_id
    AND {least}(f.a, f.b) = classroom_classfactstat.a
    AND {greatest}(f.a, f.b) = classroom_classfactstat.b
), {empty})
"""


def fill(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        sql = FILL.format(
            object_agg="jsonb_object_agg", least="LEAST", greatest="GREATEST", empty="'{}'"
        )
    else:
        sql = FILL.format(object_agg="json_group_object", least="MIN", greatest="MAX", empty="'{}'")
    schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0004_incremental_stats"),
    ]

    operations = [
        migrations.AddField(
            model_name="classfactstat",
            name="medians",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
