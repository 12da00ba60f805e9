"""What a child's multiplication answers say: pure functions, no ORM.

``classify`` names the kind of every wrong answer; ``mastery`` turns a fact's attempts into
a state a teacher can act on. The rules, their thresholds and the research they rest on are
in docs/analytics.md.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import median

TABLE = range(2, 10)  # the 2–9 times tables
TABLE_PRODUCTS = frozenset(x * y for x in TABLE for y in TABLE)

CORRECT = "correct"
OPERAND = "operand"  # the product of a neighbouring fact: 7×8 → 48 (6×8) or 63 (7×9)
OPERATION = "operation"  # added, subtracted or concatenated: 7×8 → 15, 1, 78, 87
TABLE_ERROR = "table"  # another product of the 2–9 tables: 7×8 → 54
CLOSE = "close"  # within 2 of the product and not a product: 7×8 → 55
OMISSION = "omission"  # a capture left on the board (no answer given)
OTHER = "other"

ERROR_KINDS = (OPERAND, OPERATION, TABLE_ERROR, CLOSE, OMISSION, OTHER)
NEIGHBOUR_REACH = 2  # operand errors: the other factor off by at most 2


def classify(a: int, b: int, answer: int | None) -> str:
    """The kind of an answer to a × b. ``None`` (no answer: a missed capture) is an omission.

    When an answer fits several kinds the first in this order wins: operation (it names a
    misconception about what × means), operand, table, close miss, other.
    """
    if answer is None:
        return OMISSION
    product = a * b
    if answer == product:
        return CORRECT
    if answer in operation_answers(a, b):
        return OPERATION
    if answer in neighbour_products(a, b):
        return OPERAND
    if answer in TABLE_PRODUCTS:
        return TABLE_ERROR
    if abs(answer - product) <= 2:
        return CLOSE
    return OTHER


def operation_answers(a: int, b: int) -> set[int]:
    """Answers of another operation on the same numbers: a + b, |a − b|, "ab" and "ba"."""
    return {a + b, abs(a - b), int(f"{a}{b}"), int(f"{b}{a}")} - {a * b}


def neighbour_products(a: int, b: int) -> set[int]:
    """Products of the facts that share an operand with a × b and whose other operand is at
    most NEIGHBOUR_REACH away (Campbell & Graham's operand-related errors)."""
    out = set()
    for d in range(-NEIGHBOUR_REACH, NEIGHBOUR_REACH + 1):
        if d == 0:
            continue
        if a + d >= 1:
            out.add((a + d) * b)
        if b + d >= 1:
            out.add(a * (b + d))
    return out - {a * b}


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
