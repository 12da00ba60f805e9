"""What a child's multiplication answers say: pure functions, no ORM.

``classify`` names the kind of every wrong answer; ``mastery`` turns a fact's attempts into
a state a teacher can act on. The rules, their order, the thresholds and the research they
rest on are in docs/analytics.md ("Kinds of wrong answer"); ``classroom.diagnosis_model`` is
the published-error model the naming is measured against.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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


# --- mastery -------------------------------------------------------------------------------

NOT_SEEN = "not_seen"
LEARNING = "learning"
FLUENT = "fluent"
MASTERED = "mastered"
STATES = (NOT_SEEN, LEARNING, FLUENT, MASTERED)

RECENT = 10  # attempts that count: the latest ten
FLUENT_MIN_ATTEMPTS, FLUENT_ACCURACY, FLUENT_MEDIAN_MS = 4, 0.8, 6000
MASTERED_MIN_ATTEMPTS, MASTERED_ACCURACY, MASTERED_MEDIAN_MS = 6, 0.9, 3000
MASTERED_NO_OMISSION_IN = 5  # no capture of this fact missed among the latest five


@dataclass(frozen=True)
class Attempt:
    """One piece of evidence about a fact, oldest first when in a list."""

    correct: bool
    ms: int | None = None  # response time; None when not measured
    omission: bool = False


@dataclass(frozen=True)
class Mastery:
    state: str
    attempts: int
    accuracy: float | None
    median_ms: int | None
    omissions: int


def mastery(attempts: Sequence[Attempt], *, use_time: bool = True) -> Mastery:
    """The state of one fact from its attempts (oldest first). With ``use_time=False``
    ("accuracy first" sessions) speed never decides the state."""
    recent = list(attempts)[-RECENT:]
    n = len(recent)
    if n == 0:
        return Mastery(NOT_SEEN, 0, None, None, 0)
    correct = [x for x in recent if x.correct]
    accuracy = len(correct) / n
    times = [x.ms for x in correct if x.ms is not None]
    median_ms = int(median(times)) if times else None
    omissions = sum(1 for x in recent if x.omission)
    recent_omission = any(x.omission for x in recent[-MASTERED_NO_OMISSION_IN:])

    def quick_enough(limit: int) -> bool:
        return not use_time or (median_ms is not None and median_ms <= limit)

    if (
        n >= MASTERED_MIN_ATTEMPTS
        and accuracy >= MASTERED_ACCURACY
        and not recent_omission
        and quick_enough(MASTERED_MEDIAN_MS)
    ):
        state = MASTERED
    elif (
        n >= FLUENT_MIN_ATTEMPTS and accuracy >= FLUENT_ACCURACY and quick_enough(FLUENT_MEDIAN_MS)
    ):
        state = FLUENT
    else:
        state = LEARNING
    return Mastery(state, n, accuracy, median_ms, omissions)


def fact_key(a: int, b: int, *, commuted: bool = False) -> tuple[int, int]:
    """(a, b) as asked, or with ``commuted`` the fact and its twin together: (min, max)."""
    return (min(a, b), max(a, b)) if commuted else (a, b)


def focus_facts(states: dict[tuple[int, int], Mastery], limit: int = 3) -> list[tuple[int, int]]:
    """The facts to practise next: seen but not yet fluent, weakest first (lowest accuracy,
    then most omissions, then slowest)."""

    def weakness(item):
        _fact, m = item
        return (m.accuracy if m.accuracy is not None else 1.0, -m.omissions, -(m.median_ms or 0))

    seen = [(f, m) for f, m in states.items() if m.state == LEARNING]
    return [fact for fact, _m in sorted(seen, key=weakness)[:limit]]


def error_profile(answers: Iterable[tuple[int, int, int | None]]) -> dict[str, int]:
    """How many wrong answers of each kind: {"operand": 3, "operation": 1, ...}."""
    counts = dict.fromkeys(ERROR_KINDS, 0)
    for a, b, answer in answers:
        kind = classify(a, b, answer)
        if kind != CORRECT:
            counts[kind] += 1
    return counts
