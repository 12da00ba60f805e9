from django.db import migrations, models


class Migration(migrations.Migration):
    """``assignment.matches`` through the link (after games 0005 dropped the old field, whose
    reverse name this was)."""

    dependencies = [
        ("classroom", "0013_session_match"),
        ("games", "0005_remove_match_assignment"),
    ]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="matches",
            field=models.ManyToManyField(
                blank=True,
                related_name="assignments",
                through="classroom.SessionMatch",
                to="games.match",
            ),
        ),
    ]
