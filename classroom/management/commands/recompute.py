"""Rebuild every analytics statistic from the stored attempts (operators).

    python manage.py recompute                 # every child, class and school
    python manage.py recompute --classroom 12  # one class

Runs synchronously in this process (no worker needed), through the same RecomputeJob code
as the teacher's button, and shows a progress line. Safe to run at any time: statistics are
rebuilt, never incremented.
"""

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError

from classroom.models import Classroom
from classroom.models import RecomputeJob


class Command(BaseCommand):
    help = "Rebuild per-child and per-class fact statistics and daily trends from attempts."

    def add_arguments(self, parser):
        parser.add_argument("--classroom", type=int, help="only this class (its pk)")

    def handle(self, *args, classroom=None, **options):
        scope = None
        if classroom is not None:
            scope = Classroom.objects.filter(pk=classroom).first()
            if scope is None:
                raise CommandError(f"There is no class with pk {classroom}.")
        job = RecomputeJob.objects.create(classroom=scope)

        def progress(done, total):
            self.stdout.write(f"\rRecomputing: {done}/{total} children", ending="")
            self.stdout.flush()

        job.run(progress=progress)
        self.stdout.write("")
        self.stdout.write(
            self.style.SUCCESS(
                f"Done: {job.total} children"
                + (f" of class {scope.name!r}" if scope else "")
                + ", their classes and trends rebuilt."
            )
        )
