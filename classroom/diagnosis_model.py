"""A published-error model of children's wrong answers to the 2–9 facts: pure Python, seeded.

``generate(n, seed)`` draws ``n`` wrong answers, each labelled with the mechanism that made it,
so the naming of ``classroom.diagnosis.classify`` can be measured against something it was
not written from: ``agreement`` is the share of answers whose kind is the one a teacher would
give the mechanism (``EXPECTED_KIND``). The mechanisms follow the research cited in
docs/analytics.md ("Kinds of wrong answer"); the proportions of ``MIX`` are **our
approximation** of its ordering (Campbell & Graham 1985: most errors operand-related, then
table-related, few non-table), not figures copied from a paper. Nothing here imports the
classifier's rules: each mechanism is written from its description, independently.

Used by tests/classroom/test_diagnosis.py (the ≥ 95 % agreement test) and importable from
the benches (``from classroom.diagnosis_model import generate``). No Django import.
"""

import random
from collections import Counter
from dataclasses import dataclass

FACTORS = range(2, 10)  # the facts the children practise
PRODUCTS = frozenset(x * y for x in FACTORS for y in FACTORS)

# The mechanisms, and the share of wrong answers each makes (they add up to 1).
NEIGHBOUR = "neighbour"  # the product of a fact sharing a number, the other 1 or 2 away
NEAR = "near"  # counting or skip-counting slip: the product ± 1 or 2
TABLE_RECALL = "table_recall"  # another product of the tables, not of a near neighbour
OPERATION = "operation"  # added, subtracted, or the two numbers written side by side
ZERO_ONE = "zero_one"  # a × 0 or × 1 rule: 0, or one of the two numbers
REVERSED = "reversed"  # the product's two digits written the other way round
GUESS = "guess"  # a number that is not a product of the tables
MIX = {
    NEIGHBOUR: 0.55,
    NEAR: 0.12,
    TABLE_RECALL: 0.15,
    OPERATION: 0.07,
    ZERO_ONE: 0.03,
    REVERSED: 0.03,
    GUESS: 0.05,
}

# The kind a teacher would give each mechanism (``classroom.diagnosis`` kinds): one each.
EXPECTED_KIND = {
    NEIGHBOUR: "operand",
    NEAR: "close",
    TABLE_RECALL: "table",
    OPERATION: "operation",
    ZERO_ONE: "zero_one",
    REVERSED: "reversed",
    GUESS: "other",
}

# Within a mechanism (our choices): a neighbour one step away three times as often as two
# steps (the operand-distance effect); a near miss of 1 more often than of 2; addition the
# most frequent operation confusion.
NEIGHBOUR_STEPS = {1: 0.75, 2: 0.25}
NEAR_OFFSETS = {-1: 0.35, 1: 0.35, -2: 0.15, 2: 0.15}
OPERATIONS = {"add": 0.6, "subtract": 0.15, "side_by_side": 0.25}
ZERO_SHARE = 0.4  # of the rule errors, answering 0; the rest give one of the two numbers


@dataclass(frozen=True)
class ModelError:
    a: int
    b: int
    answer: int
    mechanism: str


def _pick(rng: random.Random, weights: dict):
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _fact(rng: random.Random, size_effect: bool) -> tuple[int, int]:
    """A fact, the larger ones more often when ``size_effect`` (weight = the product: errors
    grow with problem size, the problem-size effect); otherwise uniformly."""
    facts = [(a, b) for a in FACTORS for b in FACTORS]
    if not size_effect:
        return rng.choice(facts)
    return rng.choices(facts, weights=[a * b for a, b in facts])[0]


def _near_neighbours(a: int, b: int) -> set[int]:
    out = set()
    for d in (-2, -1, 1, 2):
        for x, y in ((a + d, b), (a, b + d)):
            if 2 <= x <= 10 and 2 <= y <= 10:
                out.add(x * y)
    return out


def _answer(rng: random.Random, mechanism: str, a: int, b: int) -> int | None:
    """One wrong answer of ``mechanism`` to a × b, or None when it cannot make one here (the
    caller draws another fact)."""
    p = a * b
    if mechanism == NEIGHBOUR:
        steps = _pick(rng, NEIGHBOUR_STEPS) * rng.choice((-1, 1))
        x, y = (a + steps, b) if rng.random() < 0.5 else (a, b + steps)
        return x * y if 2 <= x <= 10 and 2 <= y <= 10 else None
    if mechanism == NEAR:
        return p + _pick(rng, NEAR_OFFSETS)
    if mechanism == TABLE_RECALL:
        # Similar in size: from half to twice the product (our choice).
        near = _near_neighbours(a, b)
        pool = sorted(x for x in PRODUCTS if p / 2 <= x <= 2 * p and x != p and x not in near)
        return rng.choice(pool) if pool else None
    if mechanism == OPERATION:
        how = _pick(rng, OPERATIONS)
        if how == "add":
            answer = a + b
        elif how == "subtract":
            answer = abs(a - b)
        else:
            answer = int(f"{a}{b}") if rng.random() < 0.5 else int(f"{b}{a}")
        return None if answer == p else answer
    if mechanism == ZERO_ONE:
        return 0 if rng.random() < ZERO_SHARE else rng.choice((a, b))
    if mechanism == REVERSED:
        tens, units = divmod(p, 10)
        if p < 10 or units == 0 or tens == units:
            return None
        return units * 10 + tens
    if mechanism == GUESS:
        pool = [x for x in range(1, 2 * p + 11) if x not in PRODUCTS]
        return rng.choice(pool)
    raise ValueError(mechanism)


def generate(n: int, seed: int = 0, *, size_effect: bool = True) -> list[ModelError]:
    """``n`` wrong answers drawn from MIX, deterministic from ``seed``."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        mechanism = _pick(rng, MIX)
        while True:
            a, b = _fact(rng, size_effect)
            answer = _answer(rng, mechanism, a, b)
            if answer is not None and answer != a * b:
                break
        out.append(ModelError(a, b, answer, mechanism))
    return out


def agreement(errors, classify) -> tuple[float, Counter]:
    """The share of ``errors`` that ``classify(a, b, answer)`` names as EXPECTED_KIND says,
    and the disagreements counted as (mechanism, kind given)."""
    misses = Counter()
    for e in errors:
        kind = classify(e.a, e.b, e.answer)
        if kind != EXPECTED_KIND[e.mechanism]:
            misses[(e.mechanism, kind)] += 1
    return 1 - sum(misses.values()) / max(len(errors), 1), misses
