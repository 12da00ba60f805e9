"""Load the demo school when the database is empty, and print the demo logins."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from classroom.models import Classroom, Membership, School, Student

DEMO_PASSWORD = "potion-demo"  # noqa: S105 - printed for the demo, documented in README
DEMO_USERS = {
    "teacher": ("Sam", "Rivera", Membership.Role.TEACHER),
    "head": ("Alex", "Morgan", Membership.Role.ADMIN),
}
DEMO_CHILDREN = [
    "Ada", "Ben", "Chloe", "Dev", "Ella", "Finn", "Grace", "Hugo", "Isla", "Jay", "Kai",
    "Lena", "Milo", "Nora", "Omar", "Pia", "Quinn", "Rosa", "Sami", "Tom", "Uma", "Vik",
    "Wren", "Zoe",
]  # fmt: skip


class Command(BaseCommand):
    help = "Create the demo school (only when there is no school yet) and print the logins."

    def add_arguments(self, parser):
        parser.add_argument("--quiet-logins", action="store_true", help="Do not print logins.")

    def handle(self, *args, **options):
        if School.objects.exists():
            self.stdout.write("Demo data: the database already has a school; nothing added.")
        else:
            with transaction.atomic():
                self.create_demo()
            self.stdout.write(self.style.SUCCESS("Demo data: created Riverside Primary."))
        if not options["quiet_logins"]:
            self.stdout.write(
                f"Demo logins (password for both: {DEMO_PASSWORD}):\n"
                "  teacher  — Sam Rivera, teacher of Class 4B\n"
                "  head     — Alex Morgan, school admin"
            )

    def create_demo(self):
        User = get_user_model()
        school = School.objects.create(name="Riverside Primary")
        users = {}
        for username, (first, last, role) in DEMO_USERS.items():
            user = User.objects.create_user(
                username=username,
                email=f"{username}@example.com",
                password=DEMO_PASSWORD,
                first_name=first,
                last_name=last,
            )
            Membership.objects.create(user=user, school=school, role=role)
            users[username] = user
        classroom = Classroom.objects.create(school=school, teacher=users["teacher"], name="4B")
        Student.objects.bulk_create(Student(classroom=classroom, name=n) for n in DEMO_CHILDREN)
        return school
