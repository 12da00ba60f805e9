"""Load the demo school when the database is empty, and print the demo logins."""

import random
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from classroom.models import Assignment
from classroom.models import Classroom
from classroom.models import Membership
from classroom.models import RecomputeJob
from classroom.models import School
from classroom.models import Student
from classroom.models.report_queries import help_reasons
from classroom.models.report_queries import stuck_reason
from games.models import Match
from games.models import Seat

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


@dataclass(frozen=True)
class Skill:
    """How a demo child plays: ``games`` against the computer in the last week; ``guess``: the
    share of turns with a claim on offer on which they claim at random (right or wrong);
    ``stuck``: potions they always multiply wrong (claim a wrong monster with them, or leave
    the right one on the board); ``misses``: the share of right captures left on the board;
    ``slips``: the share of wrong answers typed in the warm-up before each game."""

    games: int = 1
    guess: float = 0.1
    stuck: tuple[int, int] | None = None
    misses: float = 0.1
    slips: float = 0.04


# The first eight children play, each game after a potion warm-up. Most play steadily; a few
# do not (docs/analytics.md, "Needs help."), so a new teacher sees what the marks look like:
# Ben, Chloe and Grace guess, miss and slip a lot (the knowledge model finds them likely right
# on under 60 % of the facts: "needs help"), Dev and Finn always get one fact wrong ("stuck on
# a fact", one way round or the other). The command prints both lists: usually 2 or 3 flagged,
# Dev or Finn or both stuck (the warm-ups' questions are planned from the clock, so the lists
# vary a little from one run to the next; tests/foundation/test_seed_demo.py holds their
# shape). The statistics are rebuilt at the end: a replay of every answer through the model.
DEMO_SKILLS = {
    "Ben": Skill(games=2, guess=0.35, misses=0.5, slips=0.6),
    "Chloe": Skill(games=2, guess=0.35, misses=0.4, slips=0.6),
    "Dev": Skill(games=2, guess=0.02, stuck=(2, 4), misses=0.02),
    "Finn": Skill(games=2, guess=0.02, stuck=(4, 5), misses=0.02),
    "Grace": Skill(games=6, guess=0.35, misses=0.3, slips=0.55),
}
DEMO_PLAYERS = 8


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
            self.print_flags()
        if not options["quiet_logins"]:
            classroom = Classroom.objects.filter(name="4B").first()
            ada = classroom.students.filter(name="Ada").first() if classroom else None
            if ada is not None:
                self.stdout.write(
                    f"Children: open /join/, type the class code {classroom.code}, tap Ada, "
                    f"then the pictures: {', '.join(ada.picture_slugs)}."
                )
            self.stdout.write(
                f"Demo logins (password for both: {DEMO_PASSWORD}):\n"
                "  teacher  — Sam Rivera, teacher of Class 4B\n"
                "  head     — Alex Morgan, school admin"
            )

    def print_flags(self):
        """How many demo children need help, and who is stuck on a fact (report_queries)."""
        classroom = Classroom.objects.get(name="4B")
        children = list(
            Student.reports.filter(classroom=classroom).order_by("name").with_help_flags()
        )
        flagged = [s for s in children if s.needs_help]
        stuck = [s for s in children if s.stuck and not s.needs_help]
        self.stdout.write(
            f"Needs help in {classroom.name}: {len(flagged)} of {len(children)} children."
        )
        for s in flagged:
            self.stdout.write(f"  {s.name}: {'; '.join(help_reasons(s))}")
        self.stdout.write(f"Stuck on a fact, not flagged: {len(stuck)}.")
        for s in stuck:
            self.stdout.write(f"  {s.name}: {stuck_reason(s)}")

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
        for i, student in enumerate(classroom.students.order_by("name")[:DEMO_PLAYERS]):
            skill = DEMO_SKILLS.get(student.name, Skill())
            for game in range(skill.games):
                match = play_demo_match(student, rng, assignment, skill)
                backdate(match, timedelta(days=(i + 2 * game) % 7))  # all in the last week
                match.refresh_from_db(fields=["created_at"])
                demo_warm_up(student, assignment, rng, skill, match.created_at)
        # The demo games were played without the worker: build their statistics here.
        RecomputeJob.objects.create(classroom=classroom).run()
        return school


def demo_warm_up(student, assignment, rng: random.Random, skill: Skill, game_start) -> None:
    """The potion warm-up the child did just before a game, through the warm-up's own model
    (``WarmUp.objects.start``, ``ask``, ``answer``, ``finish``) on a clock ending when the
    game began: right answers at a child's pace, wrong ones (a neighbouring fact's answer or a
    near miss) as often as the child slips, and the stuck fact always wrong."""
    from classroom.models import WarmUp
    from classroom.models.warmup import WarmUpRefused

    now = game_start - timedelta(seconds=assignment.warm_up_minutes * 60 + 15)
    warm_up = WarmUp.objects.start(student, assignment, now=now)
    while (question := warm_up.ask(now)) is not None:
        a, b = question.a, question.b
        stuck = skill.stuck is not None and sorted((a, b)) == sorted(skill.stuck)
        if stuck or rng.random() < skill.slips:
            typed = a * b - (b if stuck or rng.random() < 0.6 else rng.choice((1, 2)))
            now += timedelta(milliseconds=rng.randint(3500, 8000))
        else:
            typed = a * b
            now += timedelta(milliseconds=rng.randint(1500, 4500))
        try:
            WarmUp.objects.answer(student, question.token, str(typed), now=now)
        except WarmUpRefused:  # the time was up before the answer came
            break
    warm_up.finish(now)


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


def play_demo_match(student, rng: random.Random, assignment=None, skill=Skill()) -> Match:
    """A finished game of a child against the computer, played through Match.play. The
    child's seat plays like a learner of that ``skill``: it sometimes claims a wrong product
    or misses one."""
    tier = assignment.tier if assignment else rng.choice(["green", "purple", "full"])
    seats = [
        {"kind": Seat.Kind.STUDENT, "name": student.name, "owner_key": student.seat_key},
        {"kind": Seat.Kind.BOT, "name": "Apprentice Pip", "bot_level": "apprentice"},
    ]
    create = {"options": {"tier": tier}, "seed": rng.randrange(2**31)}
    if assignment is not None:
        match = assignment.new_match(seats, **create)
    else:
        match = Match.create("multiplipotion", seats, **create)
    module = match.engine
    while not match.is_over:
        state = module.load(match.state)
        seat = module.to_act(state)[0]
        legal = module.legal_actions(state, seat)
        claims = [a for a in legal if a["type"] in {"capture", "challenge"}]
        if seat == 0 and claims and rng.random() < skill.guess:
            action = rng.choice(claims)  # a guess, right or wrong
        else:
            action = module.bot_action(module.view(state, seat), legal, "apprentice", rng)
            if seat == 0:
                action = learner_action(module, legal, action, skill, rng)
        match.play(seat, action, version=match.version, follow_ups=False)
    pace_demo_answers(match, rng)
    return match


def learner_action(module, legal, action, skill: Skill, rng: random.Random):
    """The computer's move for the child's seat, changed by the child's weaknesses."""
    ends = [a for a in legal if a["type"] == "end_turn"]

    def right(claim):
        p, q = claim["potions"]
        return module.POTION[p] * module.POTION[q] == module.MONSTER[claim["monster"]]

    on_fact = []
    if skill.stuck:
        on_fact = [
            a
            for a in legal
            if a["type"] in {"capture", "challenge"}
            and sorted(module.POTION[c] for c in a["potions"]) == sorted(skill.stuck)
        ]
        wrong = [a for a in on_fact if not right(a)]
        if wrong and rng.random() < 0.4:  # a wrong claim costs nothing: not forever
            return rng.choice(wrong)
        if action in on_fact:  # not right about it: leave it, or capture another monster
            others = [a for a in legal if a["type"] == "capture" and right(a)]
            others = [a for a in others if a not in on_fact]
            action = ends[0] if ends else rng.choice(others) if others else action
    rights = [a for a in legal if a["type"] == "capture" and right(a) and a not in on_fact]
    if rights and ends:
        return ends[0] if rng.random() < skill.misses else rng.choice(rights)
    return action


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
