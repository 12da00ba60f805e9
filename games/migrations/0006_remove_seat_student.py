from django.db import migrations


class Migration(migrations.Migration):
    """A child's seat is the classroom's link now (classroom.ChildSeat, filled from this field
    by classroom 0015, which also gave the seat the child's seat key as its owner key): the
    games app names no classroom model."""

    dependencies = [
        ("games", "0005_remove_match_assignment"),
        ("classroom", "0015_child_seat"),
    ]

    operations = [
        migrations.RemoveField(model_name="seat", name="student"),
    ]
