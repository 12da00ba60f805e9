"""Load the demo school when the database is empty, and print the demo logins."""

import random
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from classroom.models import Assignment, Classroom, Membership, RecomputeJob, School, Student
from games.models import Match, Seat

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
            classroom = Classroom.objects.filter(name="4B").first()
            ada = classroom.students.filter(name="Ada").first() if classroom else None
            if ada is not None:
                self.stdout.write(
                    f"Children: open /join/, type the class code {classroom.code}, tap Ada, "
                    f"then her pictures: {', '.join(ada.picture_slugs)}."
                )
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
        assignment = Assignment.objects.create(
            classroom=classroom,
            created_by=users["teacher"],
            title="Warm-up: green tables",
            tier=Assignment.Tier.GREEN,
            opponents=Assignment.Opponents.CLASSMATES_THEN_BOT,
            target_kind=Assignment.Target.GAMES,
            target_value=3,
            opens_at=timezone.now() - timedelta(days=2),
        )
        rng = random.Random(2026)
        for days_ago, student in enumerate(classroom.students.order_by("name")[:8]):
            match = play_demo_match(student, rng, assignment)
            backdate(match, timedelta(days=days_ago))
        # The demo games were played without the worker: build their statistics here.
        RecomputeJob.objects.create(classroom=classroom).run()
        return school


def backdate(match: Match, delta: timedelta) -> None:
    """Spread the demo games over the last days, so the charts show a week of play."""
    if not delta:
        return
    Match.objects.filter(pk=match.pk).update(
        created_at=F("created_at") - delta,
        changed_at=F("changed_at") - delta,
        finished_at=F("finished_at") - delta,
    )
    match.moves.update(created_at=F("created_at") - delta)
    match.attempts.update(created_at=F("created_at") - delta)


def play_demo_match(student, rng: random.Random, assignment=None) -> Match:
    """A finished game of a child against the computer, played through Match.play. The
    child's seat plays like a learner: it sometimes claims a wrong product or misses one."""
    tier = assignment.tier if assignment else rng.choice(["green", "purple", "full"])
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.STUDENT, "name": student.name, "student": student},
            {"kind": Seat.Kind.BOT, "name": "Apprentice Pip", "bot_level": "apprentice"},
        ],
        options={"tier": tier},
        seed=rng.randrange(2**31),
        assignment=assignment,
    )
    module = match.engine
    while not match.is_over:
        state = module.load(match.state)
        seat = module.to_act(state)[0]
        legal = module.legal_actions(state, seat)
        claims = [a for a in legal if a["type"] in {"capture", "challenge"}]
        if seat == 0 and claims and rng.random() < 0.15:
            action = rng.choice(claims)  # a guess, right or wrong
        else:
            action = module.bot_action(module.view(state, seat), legal, "apprentice", rng)
        match.play(seat, action, version=match.version, follow_ups=False)
    pace_demo_answers(match, rng)
    return match


def pace_demo_answers(match: Match, rng: random.Random) -> None:
    """The demo plays in a blink: give its answers a child's pace (1 to 7 s each, a wrong
    answer slower), spread over the game's minutes and ending when the game was played (never
    in the future), so the reports show real times."""
    attempts = list(match.attempts.order_by("created_at", "pk"))
    if not attempts:
        return
    paces = []
    for attempt in attempts:
        think = rng.randint(1200, 4500) if attempt.correct else rng.randint(3000, 7000)
        paces.append((think, think + rng.randint(5000, 20000)))
    start = match.created_at - timedelta(milliseconds=sum(step for _think, step in paces))
    when = start
    for attempt, (think, step) in zip(attempts, paces, strict=True):
        when += timedelta(milliseconds=step)
        fields = {"created_at": when}
        if attempt.response_ms is not None:
            fields["response_ms"] = think
        type(attempt).objects.filter(pk=attempt.pk).update(**fields)
    Match.objects.filter(pk=match.pk).update(created_at=start)
