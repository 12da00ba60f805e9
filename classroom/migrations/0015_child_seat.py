import django.db.models.deletion
from django.db import migrations, models


def link_child_seats(apps, schema_editor):
    """Every child's seat gets its link row and the child's seat key as its owner key (games
    0006 then drops the old field). A child's seat had no device key (only tests made one):
    the child's key replaces it, so the child reaches the seat wherever they sign in."""
    Seat = apps.get_model("games", "Seat")
    ChildSeat = apps.get_model("classroom", "ChildSeat")
    rows = list(Seat.objects.filter(student__isnull=False).values_list("pk", "student_id"))
    ChildSeat.objects.bulk_create(
        (ChildSeat(seat_id=pk, student_id=student) for pk, student in rows), batch_size=1000
    )
    for pk, student in rows:
        Seat.objects.filter(pk=pk).update(owner_key=f"child:{student}")


def unlink_child_seats(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    ChildSeat = apps.get_model("classroom", "ChildSeat")
    for link in ChildSeat.objects.all().iterator():
        Seat.objects.filter(pk=link.seat_id).update(student_id=link.student_id, owner_key="")


class Migration(migrations.Migration):
    dependencies = [
        ("classroom", "0014_assignment_matches"),
        ("games", "0005_remove_match_assignment"),
    ]

    operations = [
        migrations.CreateModel(
            name="ChildSeat",
            fields=[
                (
                    "seat",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="child_link",
                        serialize=False,
                        to="games.seat",
                    ),
                ),
                (
                    "student",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="child_seats",
                        to="classroom.student",
                    ),
                ),
            ],
            options={
                "verbose_name": "child's seat",
                "verbose_name_plural": "children's seats",
            },
        ),
        migrations.RunPython(link_child_seats, unlink_child_seats),
    ]
