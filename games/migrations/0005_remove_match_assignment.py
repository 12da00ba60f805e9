from django.db import migrations


class Migration(migrations.Migration):
    """A match's classroom session is the classroom's link now (classroom.SessionMatch,
    filled from this field by classroom 0013): the games app names no classroom model."""

    dependencies = [
        ("games", "0004_family_rooms"),
        ("classroom", "0013_session_match"),
    ]

    operations = [
        migrations.RemoveField(model_name="match", name="assignment"),
    ]
