"""What a child's multiplication answers say: pure functions, no ORM.

``classify`` names the kind of every wrong answer; ``mastery`` turns a fact's attempts into
a state a teacher can act on. The rules, their order, the thresholds and the research they
rest on are in docs/analytics.md ("Kinds of wrong answer"); ``classroom.diagnosis_model`` is
the published-error model the naming is measured against.
"""

from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from statistics import median

TABLE = range(2, 10)  # the 2–9 times tables
TABLE_PRODUCTS = frozenset(x * y for x in TABLE for y in TABLE)

CORRECT = "correct"
OPERAND = "operand"  # the product of a neighbouring fact: 7×8 → 48 (6×8), 63 (7×9), 40 (5×8)
CLOSE = "close"  # a near miss, within 2 of the product, a product or not: 7×8 → 54, 55, 58
ZERO_ONE = "zero_one"  # 0 or one of the two numbers (a × 0 or × 1 rule): 7×8 → 0, 7, 8
OPERATION = "operation"  # added, subtracted or side by side: 7×8 → 15, 1, 78, 87
REVERSED = "reversed"  # the product's two digits swapped: 7×8 → 65
TABLE_ERROR = "table"  # another product of the 2–9 tables: 7×8 → 42, 81
OTHER = "other"  # none of the above: 7×8 → 59, 100
OMISSION = "omission"  # a capture left on the board (no answer given)

# Neighbouring facts share one number with the fact; the other is at most this many steps
# away (Campbell & Graham's operand errors fall off with that distance) and is itself a
# number from 2 to 10: × 1 and × 0 are the rules of ZERO_ONE, and 10 × 7 = 70 is one step
# from 9 × 7 in a table every child knows.
NEIGHBOUR_REACH = 2
NEIGHBOUR_FACTORS = range(2, 11)
NEAR_MISS = 2  # a near miss is at most this far from the product


def neighbour_fact(a: int, b: int, answer: int) -> tuple[int, int, int] | None:
    """The nearest fact sharing a number with a × b whose product is ``answer``, as
    (x, y, steps): 7 × 8, 48 → (6, 8, 1). The fewest steps first, then the first number
    changed before the second, down before up; None when no neighbour makes it."""
    for steps in range(1, NEIGHBOUR_REACH + 1):
        for x, y in ((a - steps, b), (a + steps, b), (a, b - steps), (a, b + steps)):
            if x * y == answer and x in NEIGHBOUR_FACTORS and y in NEIGHBOUR_FACTORS:
                return x, y, steps
    return None


def neighbour_products(a: int, b: int) -> set[int]:
    """Products of the facts that share a number with a × b and whose other number is at
    most NEIGHBOUR_REACH away (Campbell & Graham's operand-related errors)."""
    out = set()
    for d in range(-NEIGHBOUR_REACH, NEIGHBOUR_REACH + 1):
        if d == 0:
            continue
        if a + d in NEIGHBOUR_FACTORS and b in NEIGHBOUR_FACTORS:
            out.add((a + d) * b)
        if b + d in NEIGHBOUR_FACTORS and a in NEIGHBOUR_FACTORS:
            out.add(a * (b + d))
    return out - {a * b}


def operation_answers(a: int, b: int) -> set[int]:
    """Answers of another operation on the same numbers: a + b, |a − b|, "ab" and "ba"."""
    return {a + b, abs(a - b), int(f"{a}{b}"), int(f"{b}{a}")} - {a * b}


def reversed_product(a: int, b: int) -> int | None:
    """The product with its two digits swapped (56 → 65); None for a one-digit product, one
    ending in 0 (40 → "04" is not a two-digit answer) or one that reads the same."""
    digits = str(a * b)
    if len(digits) != 2 or digits[1] == "0" or digits[0] == digits[1]:
        return None
    return int(digits[::-1])


def _operand(a, b, x):
    return x in neighbour_products(a, b)


def _close(a, b, x):
    return abs(x - a * b) <= NEAR_MISS


def _zero_one(a, b, x):
    return x in (0, a, b)


def _operation(a, b, x):
    return x in operation_answers(a, b)


def _reversed(a, b, x):
    return x == reversed_product(a, b)


def _table(a, b, x):
    return x in TABLE_PRODUCTS


# The order in which the rules are tried: the first that fits names the answer. Each rule's
# reasons and the answers that fit two of them: docs/analytics.md, "Kinds of wrong answer".
PRECEDENCE = (
    (OPERAND, _operand),
    (CLOSE, _close),
    (ZERO_ONE, _zero_one),
    (OPERATION, _operation),
    (REVERSED, _reversed),
    (TABLE_ERROR, _table),
)
ANSWER_KINDS = (*(kind for kind, _rule in PRECEDENCE), OTHER)  # the kinds of a given answer
ERROR_KINDS = (*ANSWER_KINDS, OMISSION)  # every kind of wrong answer, in this order


def classify(a: int, b: int, answer: int | None) -> str:
    """The kind of an answer to a × b. ``None`` (no answer: a missed capture) is an omission;
    otherwise the first rule of PRECEDENCE that fits, or OTHER."""
    if answer is None:
        return OMISSION
    if answer == a * b:
        return CORRECT
    for kind, fits in PRECEDENCE:
        if fits(a, b, answer):
            return kind
    return OTHER


def kinds_of_answers(answers: Iterable[int]) -> frozenset[str]:
    """The kinds that wrong answers drawn from ``answers`` can get on the 2–9 facts."""
    answers = frozenset(answers)
    return frozenset(classify(a, b, x) for a in TABLE for b in TABLE for x in answers) - {CORRECT}


# Which kinds the evidence of each context (``Attempt.context``) can produce, so a report
# shows no empty row for a kind its evidence could never contain. In a game the claimed
# answer is always a monster on the board, and every monster is a product of the tables
# (tested against the deck): no OTHER there. Every game context stands for the game as a
# whole (one that played can miss a capture too). A new source of evidence is one line here;
# a context not listed can produce every kind.
GAME_ANSWERS = TABLE_PRODUCTS
GAME_KINDS = kinds_of_answers(GAME_ANSWERS) | {OMISSION}
CONTEXT_KINDS: dict[str, frozenset[str]] = {
    "capture": GAME_KINDS,
    "challenge": GAME_KINDS,
    "missed": GAME_KINDS,
    "warm-up": frozenset(ERROR_KINDS),  # typed on a number pad: any answer at all
}


def possible_kinds(contexts: Iterable[str]) -> frozenset[str]:
    """The kinds the evidence of these contexts can produce (none for no evidence)."""
    out: frozenset[str] = frozenset()
    for context in contexts:
        out |= CONTEXT_KINDS.get(context, frozenset(ERROR_KINDS))
    return out


def shown_kinds(counts: dict[str, int], contexts: Iterable[str]) -> list[str]:
    """The kinds a report lists, in ERROR_KINDS order: those counted at least once and those
    the evidence's contexts can produce (a zero there is news; elsewhere it is noise)."""
    possible = possible_kinds(contexts)
    return [k for k in ERROR_KINDS if counts.get(k) or k in possible]


# --- mastery ---------------------------------------------------------------------------------
# The rules, the thresholds and the research behind them: docs/analytics.md, "States".

NOT_SEEN = "not_seen"  # no evidence yet
WRONG_SO_FAR = "wrong_so_far"  # 1–3 attempts, at least one wrong or missed
LEARNING = "learning"
RIGHT_SO_FAR = "right_so_far"  # 1–3 attempts, every one right
FLUENT = "fluent"
MASTERED = "mastered"
# Weakest first (``charts.weaker_state`` and the monotony test read this order).
STATES = (NOT_SEEN, WRONG_SO_FAR, LEARNING, RIGHT_SO_FAR, FLUENT, MASTERED)
CHECK_AGAIN = "check_again"  # display only: mastered, but not seen for REVIEW_AFTER_DAYS
STRUGGLING = (WRONG_SO_FAR, LEARNING)  # what the focus facts and the class's count pick

RECENT = 10  # attempts that count: the latest ten of the fact, both orders together
EARLY = 3  # up to this many attempts: "right so far" or "wrong so far", nothing firmer
FLUENT_MIN_ATTEMPTS, FLUENT_ACCURACY, FLUENT_MEDIAN_MS = 4, 0.8, 6000
MASTERED_MIN_ATTEMPTS, MASTERED_ACCURACY, MASTERED_MEDIAN_MS = 6, 0.9, 3000
MASTERED_NO_OMISSION_IN = 5  # no capture of this fact missed among the latest five
MASTERED_MIN_DAYS = 2  # the latest attempts span at least two different (school-local) days
REVIEW_AFTER_DAYS = 28  # a mastered fact not seen for four weeks: "check again"

# Where a response time comes from (``Attempt.context``): typed on the warm-up's number pad
# or a challenge are retrieval times; a capture's time includes choosing the cards.
RETRIEVAL_CONTEXTS = frozenset({"warm-up", "challenge"})


@dataclass(frozen=True)
class Attempt:
    """One piece of evidence about a fact, oldest first when in a list."""

    correct: bool
    ms: int | None = None  # response time; None when not measured
    omission: bool = False
    game_time: bool = True  # a capture's time (choosing the cards too), not a retrieval time
    untimed: bool = False  # accuracy-first evidence: its round promised speed would not count
    day: object = None  # the school-local day it was made (any comparable value); None unknown


@dataclass(frozen=True)
class Mastery:
    state: str
    attempts: int  # the recent ones (at most RECENT), both orders together
    accuracy: float | None
    median_ms: int | None  # the speed: median of the recent right answers' times (below)
    omissions: int
    correct: int = 0
    days: int = 0  # different days among the recent attempts
    speed_from_game: bool = False  # median_ms is of game times only
    timed: bool = True  # speed could decide (no accuracy-first evidence among the recent)

    @property
    def misses(self) -> int:
        return self.attempts - self.correct

    @property
    def speed_ms(self) -> int | None:
        """The time the state was judged on: None when speed could not decide."""
        return self.median_ms if self.timed else None


def speed(recent: Sequence[Attempt]) -> tuple[int | None, bool]:
    """The median time of the right answers among ``recent``, from their retrieval times
    (warm-up, challenge) when there is any, else from their game times; and whether it is of
    game times. (None, False) without a timed right answer."""
    right = [x for x in recent if x.correct and x.ms is not None]
    retrieval = [x.ms for x in right if not x.game_time]
    if retrieval:
        return int(median(retrieval)), False
    game = [x.ms for x in right]
    return (int(median(game)), True) if game else (None, False)


def mastery(attempts: Sequence[Attempt], *, use_time: bool = True) -> Mastery:
    """The state of one fact from its attempts (oldest first; both orders of the fact
    together). With ``use_time=False``, or accuracy-first evidence among the latest, speed
    never decides the state."""
    recent = list(attempts)[-RECENT:]
    n = len(recent)
    if n == 0:
        return Mastery(NOT_SEEN, 0, None, None, 0)
    right = sum(1 for x in recent if x.correct)
    accuracy = right / n
    median_ms, from_game = speed(recent)
    omissions = sum(1 for x in recent if x.omission)
    recent_omission = any(x.omission for x in recent[-MASTERED_NO_OMISSION_IN:])
    days = len({x.day for x in recent if x.day is not None})
    timed = use_time and not any(x.untimed for x in recent)

    def quick_enough(limit: int) -> bool:
        return not timed or (median_ms is not None and median_ms <= limit)

    if n <= EARLY:
        state = RIGHT_SO_FAR if right == n else WRONG_SO_FAR
    elif (
        n >= MASTERED_MIN_ATTEMPTS
        and accuracy >= MASTERED_ACCURACY
        and not recent_omission
        and days >= MASTERED_MIN_DAYS
        and quick_enough(MASTERED_MEDIAN_MS)
    ):
        state = MASTERED
    elif (
        n >= FLUENT_MIN_ATTEMPTS and accuracy >= FLUENT_ACCURACY and quick_enough(FLUENT_MEDIAN_MS)
    ):
        state = FLUENT
    else:
        state = LEARNING
    return Mastery(
        state,
        n,
        accuracy,
        median_ms,
        omissions,
        correct=right,
        days=days,
        speed_from_game=from_game and timed,
        timed=timed,
    )


def due_for_review(state: str, last_attempt_at, now) -> bool:
    """A mastered fact whose latest attempt is REVIEW_AFTER_DAYS days or more before ``now``."""
    return (
        state == MASTERED
        and last_attempt_at is not None
        and now - last_attempt_at >= timedelta(days=REVIEW_AFTER_DAYS)
    )


def shown_state(state: str, last_attempt_at, now) -> str:
    """The state a report shows: CHECK_AGAIN for a mastered fact due for review (the stored
    state stays MASTERED), else the state."""
    return CHECK_AGAIN if due_for_review(state, last_attempt_at, now) else state


def fact_key(a: int, b: int, *, commuted: bool = False) -> tuple[int, int]:
    """(a, b) as asked, or with ``commuted`` the fact and its twin together: (min, max)."""
    return (min(a, b), max(a, b)) if commuted else (a, b)


def focus_facts(
    states: dict[tuple[int, int], Mastery],
    limit: int = 3,
    wrong: dict[tuple[int, int], int] | None = None,
) -> list[tuple[int, int]]:
    """The facts to practise next, weakest first: those wrong so far or learning, ranked by
    their recent evidence (the lowest share right among the latest attempts, then the most
    recent wrong or missed, then the slowest). ``states``: each fact as asked with its pooled
    Mastery (7 × 8 and 8 × 7 carry the same); one entry per fact and its twin, in the order
    with the most wrong answers in ``wrong`` (as asked, all-time; equal: the smaller first)."""
    wrong = wrong or {}
    pooled: dict[tuple[int, int], tuple[Mastery, tuple[int, int]]] = {}
    for fact, m in sorted(states.items()):
        if m.state not in STRUGGLING:
            continue
        key = fact_key(*fact, commuted=True)
        held = pooled.get(key)
        if held is None or wrong.get(fact, 0) > wrong.get(held[1], 0):
            pooled[key] = (m, fact)

    def weakness(item):
        m, _fact = item
        accuracy = m.accuracy if m.accuracy is not None else 1.0
        return (accuracy, -m.misses, -(m.median_ms or 0))

    return [fact for _m, fact in sorted(pooled.values(), key=weakness)[:limit]]


def error_profile(answers: Iterable[tuple[int, int, int | None]]) -> dict[str, int]:
    """How many wrong answers of each kind: {"operand": 3, "operation": 1, ...}."""
    counts = dict.fromkeys(ERROR_KINDS, 0)
    for a, b, answer in answers:
        kind = classify(a, b, answer)
        if kind != CORRECT:
            counts[kind] += 1
    return counts
