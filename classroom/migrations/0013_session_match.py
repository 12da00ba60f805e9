import django.db.models.deletion
from django.db import migrations, models


def link_session_matches(apps, schema_editor):
    """Every match with a session gets its link row (games 0005 then drops the old field)."""
    Match = apps.get_model("games", "Match")
    SessionMatch = apps.get_model("classroom", "SessionMatch")
    rows = Match.objects.filter(assignment__isnull=False).values_list("pk", "assignment_id")
    SessionMatch.objects.bulk_create(
        (SessionMatch(match_id=pk, assignment_id=assignment) for pk, assignment in rows),
        batch_size=1000,
    )


def unlink_session_matches(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    SessionMatch = apps.get_model("classroom", "SessionMatch")
    for link in SessionMatch.objects.all().iterator():
        Match.objects.filter(pk=link.match_id).update(assignment_id=link.assignment_id)


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0012_warm_up_and_pooled_state"),
        ("games", "0004_family_rooms"),
    ]

    operations = [
        migrations.CreateModel(
            name="SessionMatch",
            fields=[
                (
                    "match",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="session_link",
                        serialize=False,
                        to="games.match",
                    ),
                ),
                (
                    "assignment",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="match_links",
                        to="classroom.assignment",
                    ),
                ),
            ],
            options={
                "verbose_name": "session match",
                "verbose_name_plural": "session matches",
            },
        ),
        migrations.RunPython(link_session_matches, unlink_session_matches),
    ]
