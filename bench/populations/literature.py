"""A class of 24 simulated children whose answers follow the research literature on
children's multiplication-fact errors and response times.

This is the *truth* side of ``bench/evidence_week.py``: the bench plays a school week through
the real app with these children and then compares what the app concluded about each child with
what is written here. It was written from the literature and the bench's brief only, without
reading the app's classifier or knowledge model (``classroom/``), so that the app is checked
against a model it was not built from. Pure Python, standard library only,
deterministic from the seed.

Interface
=========

``children(seed) -> list[Child]``: 24 children, two of each of the 12 kinds below, in the order
kind 1, 2, …, 12, 1, 2, …, 12 (so kinds interleave). Child ``i`` draws all its parameters from
its own ``random.Random(f"{seed}:{i}")``; the names come from ``random.Random(f"{seed}:names")``.

Every child has:

``name: str``
    a short invented first name, unique within the class (the kind is a separate attribute).
``truth(a, b, day) -> float``
    the probability that a typed answer to ``a × b`` (in that order) is right on school day
    ``day`` (0 = Monday … 4 = Friday), for ``a, b`` in 2..9. Deterministic (a table, or for the
    improver a curve over the days). ``answer`` draws right with exactly this probability.
``answer(a, b, day, rng) -> (int, float)``
    one typed answer (an int in 0..999, never None) and its response time in seconds, from the
    question shown to the answer sent, typing on the app's number pad included.

Optional extensions, used by the bench when present:

``kind: str``
    one of ``KINDS``.
``systematic_error: str | None``
    ``"operation"`` (adder), ``"tie"`` (tie_confuser), ``"keypad"`` (key_slipper), else None.
``systematic_facts: frozenset[tuple[int, int]]``
    the ordered facts on which the systematic error dominates the wrong answers (all 64 facts
    for the key_slipper; empty for children with no systematic error).
``last_mechanism: str | None``
    after each ``answer`` / ``game_answer``: the mechanism (one of ``MECHANISMS``) that produced
    the answer if it was wrong; None when it was right or when there was no answer.
``game_answer(a, b, day, rng) -> (int | None, float)``
    what the child recalls in a card game when looking at two potions; None = did not look.
    Differs from ``answer`` for two kinds: the inattentive child does not look 40–60 % of the
    time, and the key_slipper has no keypad in a game, so recalls as a secure child would. For
    every child a game answer is never a "keypad" error (there are no keys), and its time has a
    tap (``GAME_TAP_SECONDS``) in place of typing.
``game_truth(a, b, day) -> float``
    the probability that ``game_answer`` gives the right product (no answer counts as not right).
``median_seconds(a, b, day) -> float``
    the median response time of a right typed answer to ``a × b`` (6 s is the fluency line of the
    UK Multiplication Tables Check).
``learned(a, b) -> bool``
    improvers only: the 8 facts (both orders) learned during the week. The same facts satisfy
    ``truth(a, b, 0) < 0.6 and truth(a, b, 4) >= 0.8``; no other fact of any child does.

Mechanisms (``MECHANISMS``; the vocabulary of ``last_mechanism`` and ``systematic_error``)
=========================================================================================

``operand``
    the product of a neighbouring fact: one operand changed by 1 (60 %), 2 (25 %), 3 (10 %) or 4
    (5 %) steps, staying in 1..12 (7×8 → 48, 63, 42, 72 …). Campbell & Graham (1985): operand
    errors are the large majority of errors and mostly one step away (operand distance effect);
    the 60/25/10/5 split is our choice.
``tie``
    the square of one operand (7×8 → 49 or 64), only for a ≠ b (the brief cites Campbell 1997 on
    tie effects; making it a child's *systematic* habit is our construction).
``near``
    a close miss that is not an operand answer: 1 ≤ |answer − product| ≤ max(1, round(10 % of
    the product)), nearer values likelier (weight 1/distance). Campbell & Graham's (1985)
    "close-miss" class uses the same ±10 %; we read it as a counting / skip-counting slip of a
    back-up strategy (Siegler 1988).
``tens_slip``
    right units digit, tens digit off by 1 (80 %) or 2 (20 %), staying two-digit (54 → 44, 64);
    two-digit products only. Our choice of sizes.
``keypad``
    the right answer with one digit replaced by a key next to it on the app's pad (rows ``1 2 3``
    / ``4 5 6`` / ``7 8 9`` / ``⌫ 0 OK``; left, right, up, down; never a leading 0). A motor
    slip, uniform over the possible (digit, neighbour) pairs.
``operation``
    added (70 %) or subtracted (30 %) instead of multiplied: 7×8 → 15 or 1 (Miller, Perlmutter &
    Trabasso 1984; Campbell 1994 on cross-operation confusions). The adder adds 90 % of the time.
``zero_one``
    0, a or b (the ×0 / ×1 rules misapplied), equally likely.
``reversed``
    the product's two digits swapped (56 → 65); only two-digit products not ending in 0.
``side_by_side``
    the two numbers written next to each other (7×8 → 78 or 87), equally likely.
``random``
    a guess, uniform over 1 .. 2 × product + 10 without the product.

A wrong answer draws a mechanism from the child's mix for that fact; one that cannot make an
answer different from the product (``tie`` on 6×6, ``reversed`` on 40, ``tens_slip`` on 8 …) is
struck out and another is drawn (``random`` always can). So the realised shares differ a little
from the mixes below, most on small facts. An operand change that would land on the square of
one of the fact's numbers (7×8 → 7×7 = 49) is not drawn as an operand error: that answer is the
tie confusion. Other classes still overlap (7×8 → 57 is near and a keypad slip):
``last_mechanism`` names the mechanism that *produced* the answer, which a classifier of
answers cannot always recover.

Mixes of wrong answers (``MIXES``)
---------------------------------

``literature`` (every child without a systematic error, and the part of the systematic
children's errors that is not systematic)::

    operand 0.55  near 0.15  tie 0.07  random 0.06  tens_slip 0.05  operation 0.04
    keypad 0.03  zero_one 0.02  reversed 0.02  side_by_side 0.01

What is from the papers is the ordering, not the numbers: Campbell & Graham (1985; adults and
school children) and McCloskey, Harley & Sokol (1991) find operand errors the large majority
of single-digit multiplication errors, then table-related and close-miss errors, with few
non-table errors, operation confusions being rare but real (Miller et al. 1984). The figures
are our approximation of that ordering; ``keypad`` is ours (the app's pad, not a paper).

``weak`` (weak_overall: "more operand errors")::

    operand 0.62  near 0.13  tie 0.06  random 0.05  operation 0.05  tens_slip 0.04
    zero_one 0.02  reversed 0.01  side_by_side 0.01  keypad 0.01

``guesser`` (fast_guesser: mostly guesses)::

    random 0.60  operand 0.20  near 0.12  tie 0.02  tens_slip 0.02  operation 0.02  keypad 0.02

On a systematic fact the systematic mechanism has weight ``SYSTEMATIC_SHARE`` = 0.8 and the
``literature`` mix the other 0.2 (so "operation" is ~81 % of the adder's errors there, "tie"
~81 % of the tie_confuser's). The key_slipper's keypad slips are a separate branch: each typed
answer is recalled right with ``p_know`` (0.98–0.995), and a right recall is mistyped with the
child's slip rate (8–14 %); a wrong recall (0.5–2 %) follows the ``literature`` mix. So truth =
``p_know × (1 − slip)`` ≈ 0.85–0.92 and about 80 % or more of that child's errors are keypad
slips.

The 12 kinds (``KINDS``)
========================

"Known" below means truth falling linearly with product size from the child's ``hi`` (on 2×2)
to its ``lo`` (on 9×9), ± 0.01 per fact, the same in both orders: the problem-size effect on
accuracy (Campbell & Graham 1985; Zbrodoff & Logan 2005). A range for weak facts ("0.2–0.4")
falls with size the same way, ± 0.02. A fact a child does not know is answered by back-up
strategies and is slower (Siegler 1988): its retrieval time is multiplied by the child's
``weak_slow``. "Pairs" are unordered: a pair "both orders" is two facts. All ranges are our
choices within the brief unless a source is named; each child draws its own values.

================ ====================================================== ==================
kind             truth (day-independent unless said)                    retrieval base /
                                                                        weak_slow; mix
================ ====================================================== ==================
secure           known: hi 0.965–0.98, lo 0.93–0.945                    0.7–1.2 s; lit.
hard_facts       known (hi 0.94–0.97, lo 0.88–0.92); the 20 facts with  1.0–1.6 s /
                 both operands ≥ 6 or product ≥ 40: 0.5 → 0.2 with      1.6–2.2; lit.
                 size, ± 0.04
adder            known (as above); 6–12 pairs (not 2×2), both orders:   1.0–1.6 s /
                 0.2–0.4; systematic "operation" there                  1.0–1.2; lit.
slow_accurate    known: hi 0.93–0.95, lo 0.88–0.90                      4.5–7.5 s; lit.
fast_guesser     hi 0.42–0.50, lo 0.25–0.32 on every fact               0.35–0.7 s; guesser
order_asymmetric known (hi 0.92–0.95, lo 0.85–0.88); 16 pairs with      1.0–1.6 s /
                 a ≠ b: one order 0.19–0.33, the other known. The       1.5–2.0; lit.
                 weak order is the larger-first one (7×3) for a child
                 or the smaller-first one (3×7), a coin toss a child
improver         known (hi 0.94–0.97, lo 0.88–0.92); 8 pairs, a < b,    1.0–1.6 s / 1.8 on
                 product ≥ 14, both orders: day 0 0.12–0.18, day 2      day 0 → 1 once
                 0.45–0.55, day 4 0.86–0.92 (linear in log-odds from    learned; lit.
                 day to day, so days 1 and 3 too; larger facts a
                 little lower)
weak_overall     hi 0.50–0.55, lo 0.30–0.35; ×2, ×5 and squares         2.5–4.0 s; weak
                 + 0.08–0.12 (at most 0.65)
tie_confuser     known (hi 0.94–0.97, lo 0.88–0.92); 8–12 pairs with    1.0–1.6 s /
                 0 < |a − b| ≤ 3, both orders: 0.3–0.5; systematic      1.3–1.6; lit.
                 "tie" there
key_slipper      recall (p_know) hi 0.99–0.995, lo 0.98–0.985; slip     0.8–1.3 s; lit.
                 8–14 % of right recalls; truth = p_know × (1 − slip)   (keypad separate)
inattentive      known: hi 0.95–0.97, lo 0.90–0.92; in games does not   0.8–1.3 s; lit.
                 look at 40–60 % of the pairs
sevens_eights    known (hi 0.94–0.97, lo 0.88–0.92); facts with a 7 or  1.0–1.6 s /
                 an 8: 0.45 → 0.15 with size, ± 0.04                    1.6–2.2; lit.
================ ====================================================== ==================

Every truth but the improver's learned facts is the same on every day: one week of practice is
not modelled as changing what the other children know (our simplification).

Response times
==============

A typed answer takes ``retrieval + typing``, where ``retrieval = base × (1 + slope × size) ×
weak_slow`` (``size`` = (a×b − 4) / 77, 0 on 2×2 and 1 on 9×9; ``slope`` 0.3–0.5, 0.1–0.2 for
the fast_guesser, 0.4–0.6 for weak_overall: the problem-size effect on time, Campbell & Graham
1985, Zbrodoff & Logan 2005) and ``typing = key_seconds × digits + OK_SECONDS`` (key_seconds
0.25–0.35, 0.2–0.3 for the guesser, 0.3–0.45 for slow_accurate and weak_overall; OK 0.3 s). That
sum is the median; a wrong answer's median is ``wrong_slow`` (1.3–1.6; 1.05–1.2 for the guesser;
1.1 for a keypad slip) times longer. The time drawn is lognormal around the median (sigma
0.3–0.45 per child) and kept within 0.4–60 s.

What the sizes give: a secure child's median ~1.5–2.5 s, a slow_accurate child's 6–10 s (above
the UK Multiplication Tables Check's 6 s a question, the fluency line; Siegler 1988 on slower,
accurate back-up strategies), a fast_guesser's 1–2 s. The lognormal shape and its sigma, the
typing model and every figure here are our own choices, set to the brief, as is the rule that a
child's wrong answers are slower than their right ones.

Sources
=======

(Written from memory without the papers at hand: the journal, volume and page details below are
not checked against the originals.)

- Baroody, A. J. (1999), on children's use of commutativity (as cited in the brief).
- Campbell, J. I. D. (1994). Architectures for numerical cognition. Cognition 53, 1–44.
- Campbell, J. I. D. (1997), on tie effects (as cited in the brief).
- Campbell, J. I. D., & Graham, D. J. (1985). Mental multiplication skill: Structure, process,
  and acquisition. Canadian Journal of Psychology 39, 338–366.
- McCloskey, M., Harley, W., & Sokol, S. M. (1991). Models of arithmetic fact retrieval: An
  evaluation in light of findings from normal and brain-damaged subjects. JEP: LMC 17, 377–397.
- Miller, K., Perlmutter, M., & Trabasso, T. (1984), on children's and adults' multiplication
  and its confusions with addition (full reference not checked here).
- Siegler, R. S. (1988). Strategy choice procedures and the development of multiplication
  skill. JEP: General 117, 258–275.
- Zbrodoff, N. J., & Logan, G. D. (2005). What everyone finds: The problem-size effect. In
  J. I. D. Campbell (Ed.), Handbook of Mathematical Cognition.
- Standards and Testing Agency: the Multiplication Tables Check (Year 4, England), 6 s a
  question.
"""

import math
import random

FACTORS = range(2, 10)
DAYS = range(5)
FACTS = tuple((a, b) for a in FACTORS for b in FACTORS)
PAIRS = tuple((a, b) for a in FACTORS for b in FACTORS if a <= b)

KINDS = (
    "secure",
    "hard_facts",
    "adder",
    "slow_accurate",
    "fast_guesser",
    "order_asymmetric",
    "improver",
    "weak_overall",
    "tie_confuser",
    "key_slipper",
    "inattentive",
    "sevens_eights",
)

MECHANISMS = (
    "operand",
    "tie",
    "near",
    "tens_slip",
    "keypad",
    "operation",
    "zero_one",
    "reversed",
    "side_by_side",
    "random",
)

MIXES = {
    "literature": {
        "operand": 0.55,
        "near": 0.15,
        "tie": 0.07,
        "random": 0.06,
        "tens_slip": 0.05,
        "operation": 0.04,
        "keypad": 0.03,
        "zero_one": 0.02,
        "reversed": 0.02,
        "side_by_side": 0.01,
    },
    "weak": {
        "operand": 0.62,
        "near": 0.13,
        "tie": 0.06,
        "random": 0.05,
        "operation": 0.05,
        "tens_slip": 0.04,
        "zero_one": 0.02,
        "reversed": 0.01,
        "side_by_side": 0.01,
        "keypad": 0.01,
    },
    "guesser": {
        "random": 0.60,
        "operand": 0.20,
        "near": 0.12,
        "tie": 0.02,
        "tens_slip": 0.02,
        "operation": 0.02,
        "keypad": 0.02,
    },
}

SYSTEMATIC_SHARE = 0.8
OPERAND_DISTANCE = {1: 0.60, 2: 0.25, 3: 0.10, 4: 0.05}
NEAR_SHARE = 0.10
TENS_STEP = {1: 0.8, 2: 0.2}
ADDITION_SHARE = 0.7
ADDER_ADDITION_SHARE = 0.9

OK_SECONDS = 0.3
GAME_TAP_SECONDS = 0.8
KEYPAD_WRONG_SLOW = 1.1
MIN_SECONDS = 0.4
MAX_SECONDS = 60.0

PAD_ROWS = ("123", "456", "789", "<0>")  # "<" is ⌫ and ">" is OK: keys, not digits

NAMES = (
    "Ada",
    "Bilal",
    "Cleo",
    "Dara",
    "Emeka",
    "Fenna",
    "Gus",
    "Hana",
    "Ivo",
    "Jun",
    "Kit",
    "Lila",
    "Milo",
    "Nia",
    "Oren",
    "Pia",
    "Quin",
    "Rafa",
    "Suki",
    "Tam",
    "Uma",
    "Vik",
    "Wren",
    "Yara",
    "Zeb",
    "Noor",
)


def _pad_neighbours() -> dict[str, str]:
    where = {key: (row, col) for row, keys in enumerate(PAD_ROWS) for col, key in enumerate(keys)}
    return {
        digit: "".join(
            sorted(
                key
                for key, (row, col) in where.items()
                if key.isdigit() and abs(row - where[digit][0]) + abs(col - where[digit][1]) == 1
            )
        )
        for digit in "0123456789"
    }


PAD_NEIGHBOURS = _pad_neighbours()


def size(a: int, b: int) -> float:
    """The problem size: 0 on 2×2, 1 on 9×9."""
    return (a * b - 4) / 77


def near_bound(product: int) -> int:
    """The largest distance of a "near" answer: 10 % of the product, rounded, at least 1."""
    return max(1, int(NEAR_SHARE * product + 0.5))


def operand_answers(a: int, b: int) -> set[int]:
    """Every answer of a fact with one operand changed (to 1..12)."""
    answers = {a * k for k in range(1, 13) if k != b} | {k * b for k in range(1, 13) if k != a}
    answers.discard(a * b)
    return answers


def _weighted(rng: random.Random, weights: dict) -> object:
    keys = list(weights)
    return rng.choices(keys, weights=[weights[key] for key in keys])[0]


def _clamp(value: float, low: float, high: float) -> float:
    return min(high, max(low, value))


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _logistic(x: float) -> float:
    return 1 / (1 + math.exp(-x))


# The mechanisms: each returns a wrong answer for a × b, or None when it cannot make one.


def _operand(child, a, b, rng):
    distance = _weighted(rng, OPERAND_DISTANCE)
    options = [k * b for k in (a - distance, a + distance) if 1 <= k <= 12]
    options += [a * k for k in (b - distance, b + distance) if 1 <= k <= 12]
    # A changed operand that lands on a square of the fact's own numbers (7×8 → 7×7 = 49) is
    # the tie confusion, the mechanism of its own (the example of one): not drawn here.
    options = [x for x in options if x not in (a * a, b * b)]
    return rng.choice(options) if options else None


def _tie(child, a, b, rng):
    return rng.choice((a * a, b * b)) if a != b else None


def _near(child, a, b, rng):
    product = a * b
    avoid = operand_answers(a, b)
    options = {}
    for distance in range(1, near_bound(product) + 1):
        for value in (product - distance, product + distance):
            if value >= 1 and value not in avoid:
                options[value] = 1 / distance
    return _weighted(rng, options) if options else None


def _tens_slip(child, a, b, rng):
    product = a * b
    if not 10 <= product <= 99:
        return None
    tens, units = divmod(product, 10)
    step = _weighted(rng, TENS_STEP)
    options = [t for t in (tens - step, tens + step) if 1 <= t <= 9]
    options = options or [t for t in (tens - 1, tens + 1) if 1 <= t <= 9]
    return rng.choice(options) * 10 + units


def keypad_slip(number: int, rng: random.Random) -> int:
    """``number`` typed with one digit replaced by a neighbouring key (never a leading 0)."""
    digits = str(number)
    options = [
        int(digits[:i] + key + digits[i + 1 :])
        for i, digit in enumerate(digits)
        for key in PAD_NEIGHBOURS[digit]
        if not (i == 0 and key == "0" and len(digits) > 1)
    ]
    return rng.choice(options)


def _keypad(child, a, b, rng):
    return keypad_slip(a * b, rng)


def _operation(child, a, b, rng):
    added, subtracted = a + b, abs(a - b)
    first, second = (
        (added, subtracted) if rng.random() < child.addition_share else (subtracted, added)
    )
    return first if first != a * b else second


def _zero_one(child, a, b, rng):
    return rng.choice((0, a, b))


def _reversed(child, a, b, rng):
    product = a * b
    if not 10 <= product <= 99 or product % 10 == 0:
        return None
    swapped = int(str(product)[::-1])
    return swapped if swapped != product else None


def _side_by_side(child, a, b, rng):
    return rng.choice((int(f"{a}{b}"), int(f"{b}{a}")))


def _random(child, a, b, rng):
    product = a * b
    guess = rng.randint(1, 2 * product + 9)
    return guess + 1 if guess >= product else guess


MAKERS = {
    "operand": _operand,
    "tie": _tie,
    "near": _near,
    "tens_slip": _tens_slip,
    "keypad": _keypad,
    "operation": _operation,
    "zero_one": _zero_one,
    "reversed": _reversed,
    "side_by_side": _side_by_side,
    "random": _random,
}


class Child:
    """One simulated child (see the module docstring for the interface)."""

    def __init__(self, name: str, kind: str, index: int):
        self.name = name
        self.kind = kind
        self.index = index
        self.systematic_error: str | None = None
        self.systematic_facts: frozenset[tuple[int, int]] = frozenset()
        self.last_mechanism: str | None = None
        self.mix = "literature"
        self.addition_share = ADDITION_SHARE
        self.slip_rate = 0.0  # the key_slipper's share of right recalls mistyped
        self.inattention = 0.0  # the share of game pairs not looked at
        self._truth: dict[tuple[int, int], float] = {}
        self._recall: dict[tuple[int, int], float] = {}  # key_slipper: P(right recall)
        self._curve: dict[tuple[int, int], tuple[float, float, float]] = {}  # improver
        self._weak_slow: dict[tuple[int, int], float] = {}
        self.retrieval_base = 1.0
        self.size_slope = 0.4
        self.key_seconds = 0.3
        self.sigma = 0.35
        self.wrong_slow = 1.4

    def __repr__(self) -> str:
        return f"<Child {self.name} ({self.kind})>"

    # The truth.

    def truth(self, a: int, b: int, day: int) -> float:
        _check(a, b, day)
        curve = self._curve.get((a, b))
        if curve is None:
            return self._truth[(a, b)]
        return _logistic(_on_day(curve, day))

    def recall(self, a: int, b: int, day: int) -> float:
        """The probability of recalling the right product (before any typing slip)."""
        return self._recall.get((a, b)) or self.truth(a, b, day)

    def game_truth(self, a: int, b: int, day: int) -> float:
        return (1 - self.inattention) * self.recall(a, b, day)

    def median_seconds(self, a: int, b: int, day: int) -> float:
        _check(a, b, day)
        return self._median(a, b, day, a * b, None, game=False)

    # The answers.

    def answer(self, a: int, b: int, day: int, rng: random.Random) -> tuple[int, float]:
        product = a * b
        draw = rng.random()
        if draw < self.truth(a, b, day):
            given, mechanism = product, None
        elif self.slip_rate and draw < self.recall(a, b, day):
            given, mechanism = keypad_slip(product, rng), "keypad"
        else:
            given, mechanism = self._wrong(a, b, rng, exclude=())
        self.last_mechanism = mechanism
        return given, self._seconds(a, b, day, given, mechanism, rng, game=False)

    def game_answer(self, a: int, b: int, day: int, rng: random.Random) -> tuple[int | None, float]:
        if self.inattention and rng.random() < self.inattention:
            self.last_mechanism = None
            return None, self._seconds(a, b, day, None, None, rng, game=True)
        product = a * b
        if rng.random() < self.recall(a, b, day):
            given, mechanism = product, None
        else:
            given, mechanism = self._wrong(a, b, rng, exclude=("keypad",))
        self.last_mechanism = mechanism
        return given, self._seconds(a, b, day, given, mechanism, rng, game=True)

    def _wrong(self, a, b, rng, exclude) -> tuple[int, str]:
        weights = dict(MIXES[self.mix])
        if (a, b) in self.systematic_facts and self.systematic_error != "keypad":
            weights = {name: (1 - SYSTEMATIC_SHARE) * share for name, share in weights.items()}
            weights[self.systematic_error] = weights.get(self.systematic_error, 0) + (
                SYSTEMATIC_SHARE
            )
        for name in exclude:
            weights.pop(name, None)
        while weights:
            mechanism = _weighted(rng, weights)
            given = MAKERS[mechanism](self, a, b, rng)
            if given is not None and given != a * b and 0 <= given <= 999:
                return given, mechanism
            del weights[mechanism]
        return _random(self, a, b, rng), "random"

    # The times.

    def _slow(self, a, b, day) -> float:
        curve = self._curve.get((a, b))
        if curve is None:
            return self._weak_slow.get((a, b), 1.0)
        # An improver's learned fact: as slow as a weak fact on day 0, normal once learned.
        start, end = _logistic(curve[0]), _logistic(curve[2])
        unlearned = _clamp((end - self.truth(a, b, day)) / (end - start), 0, 1)
        return 1 + 0.8 * unlearned

    def _median(self, a, b, day, given, mechanism, game) -> float:
        retrieval = self.retrieval_base * (1 + self.size_slope * size(a, b)) * self._slow(a, b, day)
        motor = GAME_TAP_SECONDS if game else self.key_seconds * len(str(given)) + OK_SECONDS
        median = retrieval + motor
        if mechanism == "keypad":
            median *= KEYPAD_WRONG_SLOW
        elif mechanism is not None:
            median *= self.wrong_slow
        return median

    def _seconds(self, a, b, day, given, mechanism, rng, game) -> float:
        median = self._median(a, b, day, given, mechanism, game)
        seconds = median * math.exp(self.sigma * rng.gauss(0, 1))
        return round(_clamp(seconds, MIN_SECONDS, MAX_SECONDS), 3)

    # Building (each kind's builder below uses these).

    def _set_known(self, rng, hi, lo, jitter=0.01):
        for a, b in PAIRS:
            self._truth[(a, b)] = self._truth[(b, a)] = _sized(rng, lo, hi, a, b, jitter)

    def _set_times(self, rng, base, slope=(0.3, 0.5), keys=(0.25, 0.35), wrong=(1.3, 1.6)):
        self.retrieval_base = rng.uniform(*base)
        self.size_slope = rng.uniform(*slope)
        self.key_seconds = rng.uniform(*keys)
        self.sigma = rng.uniform(0.3, 0.45)
        self.wrong_slow = rng.uniform(*wrong)


class Improver(Child):
    """The improver: 8 facts (both orders) learned during the week."""

    def learned(self, a: int, b: int) -> bool:
        return (a, b) in self._curve


def _check(a: int, b: int, day: int) -> None:
    if a not in FACTORS or b not in FACTORS:
        raise ValueError(f"{a} × {b}: the factors are 2..9")
    if day not in DAYS:
        raise ValueError(f"day {day}: the school days are 0..4")


def _on_day(curve: tuple[float, float, float], day: int) -> float:
    """The log-odds on ``day``, linear between days 0, 2 and 4."""
    day0, day2, day4 = curve
    if day <= 2:
        return day0 + (day2 - day0) * day / 2
    return day2 + (day4 - day2) * (day - 2) / 2


def _both_orders(pairs) -> frozenset[tuple[int, int]]:
    return frozenset(fact for a, b in pairs for fact in ((a, b), (b, a)))


def _sized(rng, lo, hi, a, b, jitter=0.02):
    """A truth in [lo, hi], lower on larger facts (the problem-size effect), ± jitter."""
    return _clamp(hi - (hi - lo) * size(a, b) + rng.uniform(-jitter, jitter), lo, hi)


def _known(child, rng):
    """The usual "knows the rest" for the kinds with some weak facts."""
    child._set_known(rng, rng.uniform(0.94, 0.97), rng.uniform(0.88, 0.92))


# The kinds.


def _secure(child, rng):
    child._set_known(rng, rng.uniform(0.965, 0.98), rng.uniform(0.93, 0.945))
    child._set_times(rng, base=(0.7, 1.2))


def _hard_facts(child, rng):
    _known(child, rng)
    slow = rng.uniform(1.6, 2.2)
    for a, b in PAIRS:
        if (a >= 6 and b >= 6) or a * b >= 40:
            relative = (a * b - 36) / (81 - 36)
            value = _clamp(0.5 - 0.3 * relative + rng.uniform(-0.04, 0.04), 0.2, 0.5)
            for fact in {(a, b), (b, a)}:
                child._truth[fact] = value
                child._weak_slow[fact] = slow
    child._set_times(rng, base=(1.0, 1.6))


def _adder(child, rng):
    _known(child, rng)
    pairs = rng.sample([pair for pair in PAIRS if pair != (2, 2)], rng.randint(6, 12))
    slow = rng.uniform(1.0, 1.2)  # adding is quick
    for a, b in pairs:
        value = _sized(rng, 0.2, 0.4, a, b)
        for fact in {(a, b), (b, a)}:
            child._truth[fact] = value
            child._weak_slow[fact] = slow
    child.systematic_error = "operation"
    child.systematic_facts = _both_orders(pairs)
    child.addition_share = ADDER_ADDITION_SHARE
    child._set_times(rng, base=(1.0, 1.6))


def _slow_accurate(child, rng):
    child._set_known(rng, rng.uniform(0.93, 0.95), rng.uniform(0.88, 0.90))
    child._set_times(rng, base=(4.5, 7.5), keys=(0.3, 0.45))


def _fast_guesser(child, rng):
    child._set_known(rng, rng.uniform(0.42, 0.50), rng.uniform(0.25, 0.32))
    child.mix = "guesser"
    child._set_times(rng, base=(0.35, 0.7), slope=(0.1, 0.2), keys=(0.2, 0.3), wrong=(1.05, 1.2))


def _order_asymmetric(child, rng):
    child._set_known(rng, rng.uniform(0.92, 0.95), rng.uniform(0.85, 0.88))
    pairs = rng.sample([(a, b) for a, b in PAIRS if a != b], 16)
    larger_first_weak = rng.random() < 0.5
    slow = rng.uniform(1.5, 2.0)
    for a, b in pairs:  # a < b
        weak = (b, a) if larger_first_weak else (a, b)
        child._truth[weak] = _sized(rng, 0.19, 0.33, a, b)
        child._weak_slow[weak] = slow
    child._set_times(rng, base=(1.0, 1.6))


def _improver(child, rng):
    _known(child, rng)
    candidates = [(a, b) for a, b in PAIRS if a < b and a * b >= 14]
    day0, day2, day4 = (
        _logit(rng.uniform(0.12, 0.18)),
        _logit(rng.uniform(0.45, 0.55)),
        _logit(rng.uniform(0.86, 0.92)),
    )
    for pair in rng.sample(candidates, 8):
        shift = rng.uniform(-0.05, 0.05) - 0.2 * (size(*pair) - 0.5)
        for fact in _both_orders([pair]):
            child._curve[fact] = (day0 + shift, day2 + shift, day4 + shift)
            del child._truth[fact]
    child._set_times(rng, base=(1.0, 1.6))


def _weak_overall(child, rng):
    hi, lo = rng.uniform(0.50, 0.55), rng.uniform(0.30, 0.35)
    bonus = rng.uniform(0.08, 0.12)
    for a, b in PAIRS:
        value = _clamp(hi - (hi - lo) * size(a, b) + rng.uniform(-0.02, 0.02), lo, hi)
        if a in (2, 5) or b in (2, 5) or a == b:
            value = min(0.65, value + bonus)
        for fact in {(a, b), (b, a)}:
            child._truth[fact] = value
    child.mix = "weak"
    child._set_times(rng, base=(2.5, 4.0), slope=(0.4, 0.6), keys=(0.3, 0.45))


def _tie_confuser(child, rng):
    _known(child, rng)
    pairs = rng.sample([(a, b) for a, b in PAIRS if 0 < b - a <= 3], rng.randint(8, 12))
    slow = rng.uniform(1.3, 1.6)
    for a, b in pairs:
        value = _sized(rng, 0.3, 0.5, a, b)
        for fact in {(a, b), (b, a)}:
            child._truth[fact] = value
            child._weak_slow[fact] = slow
    child.systematic_error = "tie"
    child.systematic_facts = _both_orders(pairs)
    child._set_times(rng, base=(1.0, 1.6))


def _key_slipper(child, rng):
    child._set_known(rng, rng.uniform(0.99, 0.995), rng.uniform(0.98, 0.985), jitter=0.003)
    child._recall = dict(child._truth)
    child.slip_rate = rng.uniform(0.08, 0.14)
    child._truth = {fact: p * (1 - child.slip_rate) for fact, p in child._recall.items()}
    child.systematic_error = "keypad"
    child.systematic_facts = frozenset(FACTS)
    child._set_times(rng, base=(0.8, 1.3))


def _inattentive(child, rng):
    child._set_known(rng, rng.uniform(0.95, 0.97), rng.uniform(0.90, 0.92))
    child.inattention = rng.uniform(0.4, 0.6)
    child._set_times(rng, base=(0.8, 1.3))


def _sevens_eights(child, rng):
    _known(child, rng)
    slow = rng.uniform(1.6, 2.2)
    for a, b in PAIRS:
        if {a, b} & {7, 8}:
            relative = (a * b - 14) / (72 - 14)
            value = _clamp(0.45 - 0.3 * relative + rng.uniform(-0.04, 0.04), 0.15, 0.45)
            for fact in {(a, b), (b, a)}:
                child._truth[fact] = value
                child._weak_slow[fact] = slow
    child._set_times(rng, base=(1.0, 1.6))


BUILDERS = {
    "secure": _secure,
    "hard_facts": _hard_facts,
    "adder": _adder,
    "slow_accurate": _slow_accurate,
    "fast_guesser": _fast_guesser,
    "order_asymmetric": _order_asymmetric,
    "improver": _improver,
    "weak_overall": _weak_overall,
    "tie_confuser": _tie_confuser,
    "key_slipper": _key_slipper,
    "inattentive": _inattentive,
    "sevens_eights": _sevens_eights,
}


def children(seed: int) -> list[Child]:
    """The class: 24 children, two of each kind, kinds interleaved (see the module docstring)."""
    names = random.Random(f"{seed}:names").sample(NAMES, 2 * len(KINDS))
    class_ = []
    for index, name in enumerate(names):
        kind = KINDS[index % len(KINDS)]
        child = (Improver if kind == "improver" else Child)(name, kind, index)
        BUILDERS[kind](child, random.Random(f"{seed}:{index}"))
        class_.append(child)
    return class_
