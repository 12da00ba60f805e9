"""The potion warm-up: a short quick-fire round of typed times-table answers before a game
(docs/classroom/warm-up.md). Each answer is an ``Attempt`` with context ``warm-up``.

A round plans its questions when it starts (``WarmUp.objects.start``, the Coach's choice in
``classroom.warmup_plan``). Each question is served with a signed token holding the round,
the question's number and the server's clock (``WarmUp.ask``); the answer brings the token
back (``WarmUp.objects.answer``), so the time to answer is measured on the server from the
moment the question was shown, and the token can be used once (the unique constraint on
``Attempt.warm_up`` and ``Attempt.question``).
"""

import random
from dataclasses import dataclass
from dataclasses import field
from datetime import timedelta

from django.core import signing
from django.db import IntegrityError
from django.db import models
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from classroom import error_kinds
from classroom import knowledge
from classroom import live
from classroom import warmup_plan
from games import queue
from games.models import Match

SALT = "classroom.warmup.question"  # the question tokens' signing salt (not a secret)
GRACE_SECONDS = 5  # an answer sent just before the time was up still counts when it lands
QUESTIONS_PER_MINUTE = 10  # an untimed (accuracy first) round: this many per minute set
PLANNED_MIN = 40  # a timed round plans at least this many questions…
PLANNED_PER_MINUTE = 40  # …and this many per minute (nobody answers one every 1.5 s for long)
UNTIMED_IDLE = timedelta(minutes=15)  # an untimed round left this long is over
PAUSED_LIMIT = timedelta(minutes=15)  # a round paused this long ("Pause all") is over
# The least known facts, asked first (and again the other way round): up to FOCUS_FACTS, and
# no more than a quarter of the questions the child answers in a round (two questions a fact),
# so half a round still finds out about the other facts. A child who has not finished a
# round yet is taken to answer ROUND_GUESS.
FOCUS_FACTS = 5
ROUND_GUESS = 16
ROUNDS_READ = 3  # the child's latest rounds whose answers give their pace
MAX_ANSWER = 999  # three digits


class WarmUpRefused(Exception):
    """An answer that is not stored; ``message`` says why, for the child (the web layer
    chooses the status code: classroom.views.warmup.REFUSED_STATUS)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class BadAnswer(WarmUpRefused):
    """A forged or unreadable question token, or an answer that is not a number."""


class NotYourWarmUp(WarmUpRefused):
    """The question is of another child's round."""


class AnsweredAlready(WarmUpRefused):
    """The question has an answer already (a replay, a double tap)."""


class WarmUpOver(WarmUpRefused):
    """The round is over: the teacher ended it, or its time was up."""


@dataclass(frozen=True)
class Question:
    index: int  # 0, 1, 2… in the round
    a: int
    b: int
    token: str

    @property
    def product(self) -> int:
        return self.a * self.b


@dataclass(frozen=True)
class Result:
    correct: bool
    a: int
    b: int
    product: int
    answer: int
    finished: bool  # the round is over after this answer
    warm_up: "WarmUp | None" = field(default=None, compare=False, repr=False)
    index: int = 0


def _ms(moment) -> int:
    return int(moment.timestamp() * 1000)


def parse_typed(typed) -> int:
    """The child's typed answer as a number: 1 to 3 digits (spaces around are fine)."""
    text = str(typed if typed is not None else "").strip()
    if not text:
        raise BadAnswer(_("Type your answer with the number keys, then press OK."))
    if not (text.isascii() and text.isdigit()) or len(text) > 3:
        raise BadAnswer(_("Type a number from 0 to 999 with the number keys."))
    return int(text)


class WarmUpQuerySet(models.QuerySet):
    # --- starting -------------------------------------------------------------------------
    def start(self, student, assignment=None, *, now=None) -> "WarmUp":
        """A new round for the child: in ``assignment`` (its tables, its length, untimed in
        an accuracy-first session) or, without one, at home (a minute, timed). The questions
        are planned now and stored in ``facts``."""
        from classroom.models import Assignment

        now = now or timezone.now()
        if assignment is not None:
            tier = assignment.tier_for(student)
            timed = not assignment.accuracy_first
            seconds = 60 * (assignment.warm_up_minutes or 1)
        else:
            latest = Assignment.objects.for_student(student).order_by("-opens_at").first()
            tier = latest.tier_for(student) if latest else Assignment.Tier.FULL
            timed, seconds = True, 60
        if timed:
            n = max(PLANNED_MIN, PLANNED_PER_MINUTE * seconds // 60)
        else:
            n = QUESTIONS_PER_MINUTE * seconds // 60
        facts = plan_for(student, tier, n, seed=student.pk * 1_000_003 + _ms(now), now=now)
        with transaction.atomic():
            paused = False
            if assignment is not None:
                live.class_changed(assignment.classroom_id)  # "Warming up" on the wall
                # Read under the session's row lock, which "Pause all" takes too: a round
                # started as the teacher pauses starts paused (its matches do too), or is
                # there for the pause to find; it never runs on through it.
                status = (
                    Assignment.objects.select_for_update()
                    .filter(pk=assignment.pk)
                    .values_list("status", flat=True)
                    .first()
                )
                paused = status == Assignment.Status.PAUSED
            return self.create(
                student=student,
                assignment=assignment,
                home=assignment is None,
                timed=timed,
                seconds=seconds,
                facts=[list(f) for f in facts],
                started_at=now,
                paused_at=now if paused else None,
            )

    def latest_since_game(self, student, assignment) -> "WarmUp | None":
        """The child's latest round in this session since their latest game of it started
        (one warm-up per game), or None."""

        rounds = self.filter(student=student, assignment=assignment)
        latest_game = (
            Match.objects.filter(assignments=assignment, seats__child_link__student=student)
            .order_by("-created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        if latest_game is not None:
            rounds = rounds.filter(started_at__gte=latest_game)
        return rounds.order_by("-started_at", "-pk").first()

    def before_game(self, student, assignment, *, now=None) -> "WarmUp | None":
        """The round the child does before their next game of this session: the one under
        way, or a new one; None when no warm-up is due (the session has none, the teacher
        skipped it, or one was done since the child's latest game started). Two taps on
        Play at once start one round (the child's row is locked)."""
        from classroom.models import Student

        if not assignment.warm_up_minutes or assignment.warm_up_skipped:
            return None
        now = now or timezone.now()
        with transaction.atomic():
            list(Student.objects.select_for_update().filter(pk=student.pk).values_list("pk"))
            current = self.latest_since_game(student, assignment)
            if current is not None:
                return None if current.is_over(now) else current
            return self.start(student, assignment, now=now)

    # --- answering ------------------------------------------------------------------------
    def answer(self, student, token, typed, *, now=None) -> Result:
        """Store the child's answer to the question of ``token`` as an Attempt, timed from
        when the question was served to ``now``; raise ``WarmUpRefused`` (nothing stored)
        for a forged token, another child's round, a question answered already, a round
        that is over, or an answer that is not a number."""
        now = now or timezone.now()
        try:
            payload = signing.loads(str(token or ""), salt=SALT)
            round_id, index, served_ms = int(payload["w"]), int(payload["q"]), int(payload["t"])
        except (signing.BadSignature, KeyError, TypeError, ValueError):
            raise BadAnswer(_("That question could not be checked. Here is a fresh one.")) from None
        with transaction.atomic():
            warm_up = self.select_for_update().filter(pk=round_id, student=student).first()
            if warm_up is None:
                raise NotYourWarmUp(_("That question belongs to somebody else's warm-up."))
            if warm_up.skipped:
                raise WarmUpOver(_("Your teacher has ended the warm-up. Time to play!"))
            if not 0 <= index < warm_up.question_limit():
                raise BadAnswer(_("That question could not be checked."))
            # While the teacher has paused the class the clock is stopped: the question on
            # the child's screen may still be answered (it was served before the pause).
            clock = warm_up.clock(now)
            if warm_up.timed and clock > warm_up.deadline() + timedelta(seconds=GRACE_SECONDS):
                raise WarmUpOver(_("Time is up! This answer came too late."))
            if not warm_up.timed and warm_up.finished_at is not None:
                raise WarmUpOver(_("This warm-up is over."))
            answer = parse_typed(typed)
            a, b = (int(x) for x in warm_up.facts[index])
            correct = answer == a * b
            try:
                with transaction.atomic():
                    warm_up.attempts.create(
                        student=student,
                        question=index,
                        a=a,
                        b=b,
                        answer=answer,
                        correct=correct,
                        kind=error_kinds.classify(a, b, answer),
                        context="warm-up",
                        response_ms=max(0, _ms(now) - served_ms),
                        home=warm_up.home,
                        created_at=now,
                    )
            except IntegrityError:
                raise AnsweredAlready(
                    _("You have answered that question already. Here is the next one.")
                ) from None
            if warm_up.finished_at is not None:
                # A late answer (within the grace) after the round was closed: its
                # statistics are rebuilt again, this answer with them.
                WarmUp.objects.filter(pk=warm_up.pk).update(stats_at=None)
                warm_up.stats_at = None
                warm_up.enqueue_stats()
            finished = warm_up.is_over(now, answered=index + 1)
            if finished:
                warm_up.finish(now)
        return Result(correct, a, b, a * b, answer, finished, warm_up, index)

    # --- the wall and the sweep -----------------------------------------------------------
    def running(self, now=None):
        """Rounds under way: not finished, and neither out of time nor left idle (an untimed
        round: started within ``UNTIMED_IDLE``); a paused round is under way, its clock
        stopped, for ``PAUSED_LIMIT``."""
        now = now or timezone.now()
        deadline = models.ExpressionWrapper(
            models.F("started_at")
            + models.ExpressionWrapper(
                models.ExpressionWrapper(models.F("seconds"), output_field=models.IntegerField())
                * models.Value(timedelta(seconds=1)),
                output_field=models.DurationField(),
            ),
            output_field=models.DateTimeField(),
        )
        return (
            self.filter(finished_at__isnull=True)
            .alias(deadline=deadline)
            .filter(
                models.Q(paused_at__isnull=True, timed=True, deadline__gt=now)
                | models.Q(paused_at__isnull=True, timed=False, started_at__gt=now - UNTIMED_IDLE)
                | models.Q(paused_at__gt=now - PAUSED_LIMIT)
            )
        )

    # --- the teacher's "Pause all" ---------------------------------------------------------
    def pause(self, now=None) -> int:
        """Stop the clocks of these rounds that are under way (the wall's "Pause all"): no
        question is served until they are resumed. Returns how many."""
        now = now or timezone.now()
        return self.running(now).filter(paused_at__isnull=True).update(paused_at=now)

    def resume(self, now=None) -> int:
        """Start the clocks of these paused rounds again where they stopped: the pause is
        added to their start, so it counts neither as time to answer nor as idle time. A
        round paused for ``PAUSED_LIMIT`` or longer stays over. Returns how many resumed."""
        now = now or timezone.now()
        paused = self.filter(paused_at__isnull=False, finished_at__isnull=True)
        resumed = paused.filter(paused_at__gt=now - PAUSED_LIMIT).update(
            started_at=models.ExpressionWrapper(
                models.F("started_at")
                + (models.Value(now, output_field=models.DateTimeField()) - models.F("paused_at")),
                output_field=models.DateTimeField(),
            ),
            paused_at=None,
        )
        paused.update(paused_at=None)
        return resumed

    def missing_stats(self, now=None, *, within=timedelta(hours=6), limit=50) -> list[int]:
        """Rounds that are over (finished, out of time or left idle) whose answers' statistics
        were never rebuilt, or rebuilt before their latest answer (the child closed the lid,
        or the broker was down): the ids, oldest first."""
        now = now or timezone.now()
        settle = now - timedelta(seconds=10)  # a round's own task has had its chance
        latest = models.Max("attempts__created_at")
        return list(
            self.filter(started_at__gte=now - within)
            .exclude(pk__in=self.running(now - timedelta(seconds=GRACE_SECONDS + 10)))
            .filter(models.Q(finished_at__isnull=True) | models.Q(finished_at__lte=settle))
            .annotate(latest=latest)
            .filter(latest__isnull=False)
            .filter(models.Q(stats_at__isnull=True) | models.Q(stats_at__lt=models.F("latest")))
            .order_by("started_at", "pk")
            .values_list("pk", flat=True)[:limit]
        )

    def skip_for(self, assignments, now=None) -> int:
        """The teacher's "Skip the warm-up": the rounds under way in these sessions end
        (skipped). Returns how many."""
        rounds = list(self.running(now).filter(assignment__in=assignments))
        for warm_up in rounds:
            warm_up.finish(now, skipped=True)
        return len(rounds)


def focus_count(student) -> int:
    """How many focus facts the child's round starts with (``FOCUS_FACTS`` at most): a
    quarter of the answers of their typical round, from their latest finished rounds."""
    answered = sorted(
        WarmUp.objects.filter(student=student, finished_at__isnull=False)
        .order_by("-started_at")
        .annotate(n=models.Count("attempts"))
        .values_list("n", flat=True)[:ROUNDS_READ]
    )
    pace = answered[len(answered) // 2] if answered else ROUND_GUESS
    return max(1, min(FOCUS_FACTS, pace // 4))


def plan_for(student, tier, n, *, seed, now=None) -> list[tuple[int, int]]:
    """The child's questions (docs/classroom/warm-up.md): ``warmup_plan.plan`` over the
    tier's tables, from the knowledge model (``classroom.knowledge``): the focus facts (a
    stuck fact, then the facts not yet known with the lowest probability; ``focus_count``
    of them), the known facts
    due again by the spacing schedule (fsrs: their recall has fallen below 90 %, the oldest
    first), the facts answered but not sure yet (the closest to a decision first) and the
    facts never answered (those whose twin was answered first: an order the child may know
    one way only shows soonest)."""
    from classroom.models import FactStat

    now = now or timezone.now()
    tables = warmup_plan.tables_of_tier(tier)
    in_tier = set(warmup_plan.tier_facts(tables))
    orders = FactStat.objects.filter(student=student).orders()
    summary = knowledge.summarise(orders, (), now, limit=focus_count(student))
    shown = {fact: summary.squares[fact].state for fact in knowledge.ORDERS}
    due = sorted(
        (
            (when, fact)
            for fact, order in orders.items()
            if shown[fact] in (knowledge.KNOWN, knowledge.SLOW)
            and (when := knowledge.due_at(order)) is not None
            and when <= now
        ),
    )
    unsure = sorted(
        (f for f, o in orders.items() if o.evidence and shown[f] == knowledge.UNSURE),
        key=lambda f: (-abs(summary.squares[f].p - 0.5), f),
    )
    never = [f for f in knowledge.ORDERS if f in in_tier and f not in orders]
    rng = random.Random(seed)
    rng.shuffle(never)
    never.sort(key=lambda f: f[::-1] not in orders)  # stable: shuffled within each group
    return warmup_plan.plan(
        tables, summary.focus, [f for _when, f in due], never, n, seed, unfinished=unsure
    )


class WarmUp(models.Model):
    """One round of warm-up questions for one child, in a session or at home."""

    student = models.ForeignKey(
        "classroom.Student", on_delete=models.CASCADE, related_name="warm_ups"
    )
    assignment = models.ForeignKey(
        "classroom.Assignment",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="warm_ups",
    )
    home = models.BooleanField(default=False)  # done at home, not in a session
    timed = models.BooleanField(default=True)  # False: an "accuracy first" session's round
    seconds = models.PositiveSmallIntegerField(default=60)  # the round's length
    facts = models.JSONField(default=list)  # [[a, b], ...]: the questions in the order asked
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    skipped = models.BooleanField(default=False)  # ended by the teacher's "skip"
    paused_at = models.DateTimeField(null=True, blank=True)  # the wall's "Pause all": clock stopped
    stats_at = models.DateTimeField(null=True, blank=True)  # statistics rebuilt after the end

    objects = WarmUpQuerySet.as_manager()

    class Meta:
        app_label = "classroom"
        indexes = [models.Index(fields=["student", "-started_at"])]

    def __str__(self):
        return f"warm-up {self.pk} of {self.student_id}"

    def get_absolute_url(self):
        return reverse("classroom:warm_up_round", args=[self.pk])

    # --- time and length ------------------------------------------------------------------
    def deadline(self):
        """When a timed round's time is up."""
        return self.started_at + timedelta(seconds=self.seconds)

    def question_limit(self) -> int:
        """How many questions the round asks at most: an untimed round's fixed number, a
        timed round's planned list (it ends by time long before)."""
        if self.timed:
            return len(self.facts)
        return min(len(self.facts), QUESTIONS_PER_MINUTE * self.seconds // 60)

    def clock(self, now=None):
        """The round's time now: while paused, the moment its clock stopped."""
        return self.paused_at if self.paused_at is not None else (now or timezone.now())

    def is_paused(self, now=None) -> bool:
        """Paused by the teacher, and not for so long that the round is over."""
        now = now or timezone.now()
        return self.paused_at is not None and now - self.paused_at < PAUSED_LIMIT

    def seconds_left(self, now=None) -> int | None:
        """Whole seconds until the time is up (None: untimed); while paused, the seconds the
        round will have when it is resumed."""
        if not self.timed:
            return None
        left = (self.deadline() - self.clock(now)).total_seconds()
        return max(0, int(left + 0.999))

    def answered(self) -> int:
        return self.attempts.count()

    def is_over(self, now=None, *, answered=None) -> bool:
        """Finished or skipped, out of time (timed), every question answered, an untimed
        round left idle, or a round paused for ``PAUSED_LIMIT``. A paused round's time stands
        still."""
        now = now or timezone.now()
        if self.finished_at is not None:
            return True
        if self.paused_at is not None:
            if now - self.paused_at >= PAUSED_LIMIT:
                return True
            now = self.paused_at
        if self.timed and now >= self.deadline():
            return True
        if not self.timed and now >= self.started_at + UNTIMED_IDLE:
            return True
        if answered is None:
            answered = self.answered()
        return answered >= self.question_limit()

    # --- questions ------------------------------------------------------------------------
    def ask(self, now=None) -> Question | None:
        """The next unanswered question with its signed token (the server's clock in it), or
        None when the round is over."""
        now = now or timezone.now()
        index = self.answered()
        if self.is_over(now, answered=index):
            return None
        a, b = (int(x) for x in self.facts[index])
        token = signing.dumps({"w": self.pk, "q": index, "t": _ms(now)}, salt=SALT)
        return Question(index, a, b, token)

    def question_for(self, token, now=None) -> Question | None:
        """The question of ``token`` when it is this round's next, still unanswered question
        (the page shows it again, its clock still running: an answer that was not a number
        does not restart it); None otherwise."""
        try:
            payload = signing.loads(str(token or ""), salt=SALT)
            round_id, index = int(payload["w"]), int(payload["q"])
        except (signing.BadSignature, KeyError, TypeError, ValueError):
            return None
        if round_id != self.pk or index != self.answered() or self.is_over(now, answered=index):
            return None
        a, b = (int(x) for x in self.facts[index])
        return Question(index, a, b, str(token))

    # --- the end --------------------------------------------------------------------------
    def finish(self, now=None, *, skipped=False) -> bool:
        """End the round (once: a second call changes nothing) and, when this transaction
        commits, rebuild its statistics. True when this call ended it."""
        now = now or timezone.now()
        if self.timed:
            now = min(now, self.deadline() + timedelta(seconds=GRACE_SECONDS))
        ended = WarmUp.objects.filter(pk=self.pk, finished_at__isnull=True).update(
            finished_at=now, skipped=skipped, paused_at=None
        )
        if ended:
            self.finished_at, self.skipped, self.paused_at = now, skipped, None
            self.enqueue_stats()
            if self.assignment_id is not None:
                live.class_changed(self.assignment.classroom_id)
        else:
            self.refresh_from_db(fields=["finished_at", "skipped", "stats_at", "paused_at"])
        return bool(ended)

    def enqueue_stats(self) -> None:
        from classroom.tasks import update_warm_up_stats

        pk = self.pk
        transaction.on_commit(lambda: queue.enqueue(update_warm_up_stats, pk))

    def apply_stats(self, now=None) -> None:
        """Count what this round's answers feed (idempotent: the incremental path counts each
        attempt once): the child's pending attempts into their facts, the class's touched
        facts and the days' trend rows; then ``stats_at``."""
        from classroom.models import FactStat

        # Taken before counting: an answer stored meanwhile is newer, and swept again.
        last = self.attempts.aggregate(last=models.Max("created_at"))["last"]
        stamp = now or timezone.now()
        stamp = max(stamp, last) if last else stamp
        if last is not None:
            FactStat.objects.apply_pending([self.student_id])
        WarmUp.objects.filter(pk=self.pk).update(stats_at=stamp)
        self.stats_at = stamp

    def right_count(self) -> int:
        return self.attempts.filter(correct=True).count()

    def summary(self) -> dict:
        """For the end screen: the answers and the right ones (never a time, never a rank)."""
        counts = self.attempts.aggregate(
            answered=models.Count("pk"), right=models.Count("pk", filter=models.Q(correct=True))
        )
        return {"answered": counts["answered"], "right": counts["right"]}
