"""The kind of a child's wrong answer to a × b, named only when the answer supports it.

Pure Python (standard library only, no Django). ``classify`` names the kind of one answer,
``explain`` says which fact, digit or operation lies behind it, ``main_error`` and
``error_profile`` sum up a child's answers. It replaces the first-rule-wins rules of
``classroom.diagnosis`` with a small, explicit likelihood model (and does not import it).

How an answer is named
======================
For each kind K the model says how a child who makes that kind of error spreads their wrong
answers to a × b: P(answer | K, a, b), each distribution over wrong answers only (an answer
equal to the product is dropped and the rest renormalised). A **no-mechanism** competitor
spreads its answers evenly over what a child could type. With a prior share π(K) of each kind

    P(K | answer) = π(K) · P(answer | K) / Σ_J π(J) · P(answer | J)

(J over the kinds and the competitor). The kind with the highest posterior is named when that
posterior is at least THRESHOLD, otherwise the answer is UNCLEAR (ties between kinds, which the
model never produced on the 2–9 facts, go to the first in display order). Several kinds can fit
one answer (6 × 9 → 45 is 5 × 9 and 54 turned round): the model decides, not an order of rules.
Every distribution is a function of the unordered pair {a, b}, so the kind of an answer never
depends on the order of the numbers.

The answer distributions (relative weights, normalised per fact)
----------------------------------------------------------------
operand
    One number kept, the other moved to any x in 1..12 (x ≠ the number): which number 1/2, and
    the distance d = |x − number| weighted OPERAND_FALLOFF ** (d − 1), OPERAND_FALLOFF = 0.35
    (so about 2/3 of the mass is one step away, 1/4 two steps). Source: Campbell & Graham
    (1985) — operand errors come mostly from the neighbouring facts and fall off with operand
    distance; the geometric form and 0.35 are our judgement. A move that lands on the square
    of a or b (7 × 8 → 7 × 7) is left to TIE: by this taxonomy the square's answer is a tie
    confusion, so the two kinds do not both claim it.
tie
    a² or b², 1/2 each (none for a square fact). Our judgement.
near
    product ± k for 1 ≤ k ≤ max(1, 10 % of the product) (the brief's window), sign 1/2, weight
    NEAR_FALLOFF ** (k − 1), NEAR_FALLOFF = 0.2: a near miss is mostly a counting slip of one
    (± 1 five times as likely as ± 2). Our judgement.
tens_slip
    Units digit kept, tens digit t → t' in 1..9 (t' ≠ t), weight TENS_FALLOFF ** (|t' − t| − 1),
    TENS_FALLOFF = 0.3 (± 1 most likely); two-digit products only. Our judgement.
keypad
    One digit replaced by a neighbouring key of the on-screen pad (rows 1 2 3 / 4 5 6 / 7 8 9 /
    ⌫ 0 OK; left, right, above, below), every (digit, neighbour) variant equally likely; no
    leading 0 (81 → "01"). Warm-up only. Our judgement.
operation
    a + b with ADD_SHARE = 0.7, |a − b| with 0.3. Operation confusions are mostly with
    addition: Miller, Perlmutter & Trabasso (1984), Campbell (1994, *Cognition* 53); the 0.7 is
    our judgement.
zero_one
    0, a, b: 1/3 each (the × 0 and × 1 rules). Our judgement.
reversed
    The product's two digits swapped: 1 (none for a one-digit product, one ending in 0 or one
    with two equal digits). Our judgement.
side_by_side
    "ab" and "ba" read as numbers: 1/2 each. Our judgement.
no mechanism
    Typed: 1 / (2 × product + 11), uniform over about 0..2 × product + 10, applied to any
    answer (one outside that range is no less random). In a game: 1 / the number of distinct
    wrong options. The brief's form.

The priors (PRIORS: shares of typed wrong answers, summing to 1)
----------------------------------------------------------------
operand 0.50
    Campbell & Graham (1985, *Canadian Journal of Psychology* 39): operand errors are the large
    majority of single-digit multiplication errors; set below their adult share because
    children aged 7–11 also count and guess (our judgement).
near 0.10
    Our judgement: children skip-count to the products they do not know yet and stop one short
    or one long.
tie 0.05
    Our judgement, after the tie effects reported by Campbell & Graham (1985), Miller,
    Perlmutter & Trabasso (1984) and Campbell (1997): squares are learnt early and stand out.
operation 0.05
    Miller, Perlmutter & Trabasso (1984) and Campbell (1994): a small share of errors are
    answers of another operation (mostly addition); the figure is our judgement.
tens_slip 0.04, keypad 0.04, zero_one 0.02, reversed 0.01, side_by_side 0.01
    Our judgement (slips of writing or typing and misapplied rules, each rare).
no mechanism 0.18
    Our judgement, after Campbell & Graham (1985): besides operand errors a noticeable share
    are products of unrelated facts and non-table answers; no kind here explains them.

In a game (context "capture" or "challenge") KEYPAD is impossible: it is left out and the
others keep their ratios.

The threshold
-------------
THRESHOLD = 0.6: a kind is named only when it is at least 1.5 times as likely as every other
reading together. At 0.5 a kind could be named against an equally weighty set of other
readings. Measured on 30,000 answers of the published-style generator of
tests/classroom/test_error_kinds.py (agreement among named / real errors named / random answers
named): 0.5 → 91 % / 97 % / 33 %; 0.55 → 92 % / 95 % / 31 %; 0.6 → 93 % / 93 % / 29 %;
2/3 → 94 % / 88 % / 25 %, but 2/3 leaves slips the brief names (7 × 8 → 59 a keypad slip,
6 × 9 → 44 a tens slip) unclear. 0.6 is the lowest threshold that keeps random answers named
under 30 %.

A claim in the game
-------------------
The child tapped two potions (a, b) and a monster whose value is the answer; ``options`` are
the monsters on the board then (the right one included or not, duplicates allowed). The wrong
options W are the distinct options other than the product, with the answer itself; without
``options``, every product of the 2–9 tables. The no-mechanism child taps any of them:
1 / |W|. A child who makes kind K of error picks among what is shown in proportion to how K
spreads its answers (one who gives operand answers and sees {42, 12, 30} for 7 × 8 taps 42):

    P(o | K, W) = P(o | K) / max(M_K, c_W),   M_K = Σ_{w in W} P(w | K),
                                              c_W = min(1, |W| / (2 × product + 11))

c_W, the share of the typed range the board shows, is our addition to plain renormalisation by
M_K: without it a board showing a single, barely K-like option (7 × 8 → 21, five steps away)
would make that tap certain evidence of K. With it, a board never makes an answer stronger
evidence of a kind, against chance, than the same answer typed, so a claim among
random-looking options is left unclear at least as often as the same answer typed.
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import fields
from functools import lru_cache
from math import fsum

TABLE = range(2, 10)  # the 2–9 times tables
TABLE_PRODUCTS = frozenset(x * y for x in TABLE for y in TABLE)
OTHER_OPERANDS = range(1, 13)  # an operand error's moved number: 1 to 12

CORRECT = "correct"
OPERAND = "operand"  # another fact, one number changed: 7×8 → 42 (7×6), 48 (6×8)
TIE = "tie"  # the square of one number: 7×8 → 49, 64
NEAR = "near"  # within max(1, 10 %) of the product: 7×8 → 55, 57
TENS_SLIP = "tens_slip"  # right units, wrong tens: 6×9 → 44, 64
KEYPAD = "keypad"  # one digit replaced by a neighbouring key: 7×8 → 59
OPERATION = "operation"  # added or subtracted: 7×8 → 15, 1
ZERO_ONE = "zero_one"  # 0 or one of the numbers: 7×8 → 0, 7, 8
REVERSED = "reversed"  # the product's digits swapped: 7×8 → 65
SIDE_BY_SIDE = "side_by_side"  # the numbers written side by side: 7×8 → 78, 87
UNCLEAR = "unclear"  # no kind supported well enough
OMISSION = "omission"  # no answer: a capture left on the board

MECHANISMS = (OPERAND, TIE, NEAR, TENS_SLIP, KEYPAD, OPERATION, ZERO_ONE, REVERSED, SIDE_BY_SIDE)
ERROR_KINDS = (*MECHANISMS, UNCLEAR, OMISSION)  # display order
NO_MECHANISM = "none"  # the competitor: an answer no mechanism explains

# Contexts (``Attempt.context`` values and "forced").
WARM_UP = "warm-up"
CAPTURE = "capture"
CHALLENGE = "challenge"
MISSED = "missed"
FORCED = "forced"
GAME_CONTEXTS = frozenset({CAPTURE, CHALLENGE})
CONTEXTS = frozenset({WARM_UP, CAPTURE, CHALLENGE, MISSED, FORCED})

# The numbers of the model (see the module's docstring for their sources).
OPERAND_FALLOFF = 0.35
NEAR_SHARE = 0.10
NEAR_FALLOFF = 0.2
TENS_FALLOFF = 0.3
ADD_SHARE = 0.7
PRIORS_OF_ALL: dict[str, float] = {
    OPERAND: 0.50,
    NEAR: 0.10,
    TIE: 0.05,
    OPERATION: 0.05,
    TENS_SLIP: 0.04,
    KEYPAD: 0.04,
    ZERO_ONE: 0.02,
    REVERSED: 0.01,
    SIDE_BY_SIDE: 0.01,
    NO_MECHANISM: 0.18,
}
PRIORS = PRIORS_OF_ALL
THRESHOLD = 0.65

# main_error: a kind named by at least this many answers and this share of the named ones.
MAIN_MIN_ANSWERS = 3
MAIN_MIN_SHARE = 0.5

# The on-screen number pad, row by row (None: the ⌫ and OK keys, no digit).
PAD = ((1, 2, 3), (4, 5, 6), (7, 8, 9), (None, 0, None))


def _pad_neighbours() -> dict[int, tuple[int, ...]]:
    where = {
        key: (r, c) for r, row in enumerate(PAD) for c, key in enumerate(row) if key is not None
    }
    out = {}
    for key, (r, c) in where.items():
        near = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < len(PAD) and 0 <= cc < len(PAD[rr]) and PAD[rr][cc] is not None:
                near.append(PAD[rr][cc])
        out[key] = tuple(sorted(near))
    return out


KEY_NEIGHBOURS = _pad_neighbours()  # 5: (2, 4, 6, 8), 8: (0, 5, 7, 9), 0: (8,)


@dataclass(frozen=True)
class Explanation:
    """What lies behind an answer, for the words a teacher reads (written elsewhere).

    Only the fields of the named kind are set: ``fact`` and ``steps`` (operand: the fact whose
    answer was given, in the order asked, and how far the changed number moved), ``difference``
    (near: answer − product), ``operation`` ("add" / "subtract"), ``square`` (tie: the number
    squared), ``digit`` (keypad: (position from the left, right digit, digit pressed)),
    ``tens`` (tens slip: (right tens digit, tens digit given)), ``number`` (zero_one: 0, a or
    b), ``product`` (reversed and side by side: the right product). ``probability``: the
    posterior of the kind named (of the likeliest kind for UNCLEAR; 1 for correct, omission and
    forced taps)."""

    kind: str
    fact: tuple[int, int] | None = None
    steps: int | None = None
    difference: int | None = None
    operation: str | None = None
    square: int | None = None
    digit: tuple[int, int, int] | None = None
    tens: tuple[int, int] | None = None
    number: int | None = None
    product: int | None = None
    probability: float = 1.0

    @property
    def details(self) -> dict[str, object]:
        """The fields set besides the kind and the probability."""
        skip = {"kind", "probability"}
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in skip and getattr(self, f.name) is not None
        }


# --- the answer distributions (for a ≤ b; the kind never depends on the order) ---------------


def _normalised(weights: dict[int, list[float]], product: int) -> dict[int, float]:
    """Sum each answer's weights, drop the product, scale to 1 (empty when nothing is left)."""
    summed = {x: fsum(w) for x, w in weights.items() if x != product and x >= 0}
    total = fsum(summed.values())
    return {x: w / total for x, w in summed.items()} if total > 0 else {}


def _add(weights: dict[int, list[float]], answer: int, weight: float) -> None:
    weights.setdefault(answer, []).append(weight)


def operand_facts(a: int, b: int) -> list[tuple[int, int, int, float]]:
    """The facts an operand error on a × b can give, as (x, y, steps, weight): one number kept,
    the other moved to 1..12, landing neither on the fact nor on a square of a or b (a tie).
    Weights before normalisation."""
    out = []
    for x in OTHER_OPERANDS:
        if x not in (a, b):
            out.append((x, b, abs(x - a), OPERAND_FALLOFF ** (abs(x - a) - 1)))
            out.append((a, x, abs(x - b), OPERAND_FALLOFF ** (abs(x - b) - 1)))
    return out


def _operand(a: int, b: int) -> dict[int, float]:
    weights: dict[int, list[float]] = {}
    for x, y, _steps, w in operand_facts(a, b):
        _add(weights, x * y, w)
    return _normalised(weights, a * b)


def _tie(a: int, b: int) -> dict[int, float]:
    weights: dict[int, list[float]] = {}
    if a != b:
        _add(weights, a * a, 0.5)
        _add(weights, b * b, 0.5)
    return _normalised(weights, a * b)


def near_window(product: int) -> int:
    """The largest distance of a near miss: max(1, 10 % of the product), whole numbers."""
    return max(1, product * round(NEAR_SHARE * 100) // 100)


def _near(a: int, b: int) -> dict[int, float]:
    p = a * b
    weights: dict[int, list[float]] = {}
    for k in range(1, near_window(p) + 1):
        _add(weights, p - k, NEAR_FALLOFF ** (k - 1))
        _add(weights, p + k, NEAR_FALLOFF ** (k - 1))
    return _normalised(weights, p)


def _tens_slip(a: int, b: int) -> dict[int, float]:
    p = a * b
    weights: dict[int, list[float]] = {}
    if 10 <= p <= 99:
        tens, units = divmod(p, 10)
        for t in range(1, 10):
            if t != tens:
                _add(weights, 10 * t + units, TENS_FALLOFF ** (abs(t - tens) - 1))
    return _normalised(weights, p)


def is_keypad_slip(a: int, b: int, answer: int | None) -> bool:
    """The answer is the product with one digit replaced by a neighbouring key of the pad
    (whatever else it could be): what the knowledge model weighs as a slip of the finger."""
    if answer is None:
        return False
    return any(variant == answer for variant, *_rest in keypad_variants(a * b))


def keypad_variants(product: int) -> list[tuple[int, int, int, int]]:
    """The answers one neighbouring key gives for ``product``, as (answer, position from the
    left, right digit, digit pressed); none with a leading 0."""
    digits = str(product)
    out = []
    for i, d in enumerate(digits):
        for n in KEY_NEIGHBOURS[int(d)]:
            if i == 0 and n == 0 and len(digits) > 1:
                continue
            out.append((int(digits[:i] + str(n) + digits[i + 1 :]), i, int(d), n))
    return out


def _keypad(a: int, b: int) -> dict[int, float]:
    weights: dict[int, list[float]] = {}
    for answer, *_ in keypad_variants(a * b):
        _add(weights, answer, 1.0)
    return _normalised(weights, a * b)


def _operation(a: int, b: int) -> dict[int, float]:
    weights: dict[int, list[float]] = {}
    _add(weights, a + b, ADD_SHARE)
    _add(weights, abs(a - b), 1 - ADD_SHARE)
    return _normalised(weights, a * b)


def _zero_one(a: int, b: int) -> dict[int, float]:
    weights: dict[int, list[float]] = {}
    for x in (0, a, b):
        _add(weights, x, 1 / 3)
    return _normalised(weights, a * b)


def reversed_product(product: int) -> int | None:
    """The product's two digits swapped (56 → 65); None for a one-digit product, one ending in
    0 or one whose digits are equal."""
    digits = str(product)
    if len(digits) != 2 or digits[1] == "0" or digits[0] == digits[1]:
        return None
    return int(digits[::-1])


def _reversed(a: int, b: int) -> dict[int, float]:
    weights: dict[int, list[float]] = {}
    turned = reversed_product(a * b)
    if turned is not None:
        _add(weights, turned, 1.0)
    return _normalised(weights, a * b)


def _side_by_side(a: int, b: int) -> dict[int, float]:
    weights: dict[int, list[float]] = {}
    _add(weights, int(f"{a}{b}"), 0.5)
    _add(weights, int(f"{b}{a}"), 0.5)
    return _normalised(weights, a * b)


_MODELS = {
    OPERAND: _operand,
    TIE: _tie,
    NEAR: _near,
    TENS_SLIP: _tens_slip,
    KEYPAD: _keypad,
    OPERATION: _operation,
    ZERO_ONE: _zero_one,
    REVERSED: _reversed,
    SIDE_BY_SIDE: _side_by_side,
}


@lru_cache(maxsize=512)
def distributions(a: int, b: int) -> dict[str, dict[int, float]]:
    """P(answer | kind, a, b) for every kind, as {kind: {answer: probability}}; the same for
    a × b and b × a. Cached: read it, never change it."""
    lo, hi = min(a, b), max(a, b)
    return {kind: model(lo, hi) for kind, model in _MODELS.items()}


def typed_range(product: int) -> int:
    """How many answers a child could plausibly type: 0 .. 2 × product + 10."""
    return 2 * product + 11


# --- the posterior ----------------------------------------------------------------------------


def _check_context(context: str) -> None:
    if context not in CONTEXTS:
        raise ValueError(f"unknown context {context!r}; expected one of {sorted(CONTEXTS)}")


def wrong_options(a: int, b: int, answer: int, options: Iterable[int] | None) -> frozenset[int]:
    """The distinct wrong answers a claim could have been: the options (every product of the
    tables when None) and the answer, without the product."""
    shown = TABLE_PRODUCTS if options is None else frozenset(options)
    return (shown | {answer}) - {a * b}


@lru_cache(maxsize=8192)
def likelihoods(
    a: int, b: int, answer: int, context: str, options: tuple[int, ...] | None
) -> tuple[tuple[str, float], ...]:
    """P(answer | kind) for every mechanism and the competitor (NO_MECHANISM), before the
    shares of the kinds: ((kind, likelihood), …). In a game each kind is renormalised over
    the board (with the floor of the module's docstring) and keypad is impossible. Cached:
    a child's same answer to the same fact is read once."""
    p = a * b
    dists = distributions(a, b)
    out = []
    if context in GAME_CONTEXTS:
        board = wrong_options(a, b, answer, options)
        floor = min(1.0, len(board) / typed_range(p))
        for kind, dist in dists.items():
            if kind == KEYPAD:
                out.append((kind, 0.0))  # no number pad in the game
                continue
            mass = fsum(dist.get(o, 0.0) for o in board)
            out.append((kind, dist.get(answer, 0.0) / max(mass, floor)))
        out.append((NO_MECHANISM, 1 / len(board)))
    else:
        out += [(kind, dist.get(answer, 0.0)) for kind, dist in dists.items()]
        out.append((NO_MECHANISM, 1 / typed_range(p)))
    return tuple(out)


def posteriors(
    a: int,
    b: int,
    answer: int,
    *,
    context: str = WARM_UP,
    options: Iterable[int] | None = None,
    priors: dict[str, float] | None = None,
) -> dict[str, float]:
    """P(kind | answer) for every mechanism and the competitor (NO_MECHANISM), summing to 1;
    for a wrong answer in the warm-up or a game claim. ``priors``: the shares of the kinds
    (``PRIORS_OF_ALL`` by default; ``child_priors``: a child's own)."""
    _check_context(context)
    shares = priors or PRIORS_OF_ALL
    board = None if options is None else tuple(sorted(options))
    joint = {kind: shares[kind] * like for kind, like in likelihoods(a, b, answer, context, board)}
    # The priors left out (keypad in a game) need no renormalising: only ratios count here.
    total = fsum(joint.values())
    return {kind: value / total for kind, value in joint.items()}


def _decide(a, b, answer, context, options, priors=None) -> tuple[str, float]:
    """(kind, its probability) for an answer, before the details."""
    _check_context(context)
    if context == MISSED or answer is None:
        return OMISSION, 1.0
    if answer == a * b:
        return CORRECT, 1.0
    if context == FORCED:
        return UNCLEAR, 1.0
    post = posteriors(a, b, answer, context=context, options=options, priors=priors)
    # The likeliest mechanism; equal posteriors go to the first in display order.
    best = max(MECHANISMS, key=lambda k: (post.get(k, 0.0), -MECHANISMS.index(k)))
    chance = post.get(best, 0.0)
    return (best if chance >= THRESHOLD else UNCLEAR), chance


def classify(
    a: int, b: int, answer: int | None, *, context: str = WARM_UP, options=None, priors=None
) -> str:
    """The kind of ``answer`` to a × b: CORRECT, a kind of ERROR_KINDS, UNCLEAR or OMISSION.

    ``context``: "warm-up" (typed on the number pad), "capture" or "challenge" (a claim in
    the game, ``options`` the monsters' values on the board; None: every product of the
    tables), "missed" (OMISSION) or "forced" (the taps after being caught for a missed capture:
    CORRECT or UNCLEAR, never evidence of a kind). The same for a × b and b × a."""
    return _decide(a, b, answer, context, options, priors)[0]


def _operand_detail(a: int, b: int, answer: int) -> tuple[tuple[int, int], int]:
    """The likeliest fact (in the order asked) and its steps among those giving ``answer``:
    the fewest steps; equal, the smaller of the two numbers changed (so that 8 × 6 names the
    mirror of 6 × 8's fact)."""
    best = None
    for x, y, steps, _w in operand_facts(a, b):
        if x * y != answer:
            continue
        changed = a if y == b and x != a else b
        key = (steps, changed)
        if best is None or key < best[0]:
            best = (key, (x, y), steps)
    assert best is not None  # the kind was named from these facts
    return best[1], best[2]


def explain(
    a: int, b: int, answer: int | None, *, context: str = WARM_UP, options=None, priors=None
) -> Explanation:
    """``classify`` with what lies behind the kind (see Explanation)."""
    kind, chance = _decide(a, b, answer, context, options, priors)
    p = a * b
    if kind == OPERAND:
        fact, steps = _operand_detail(a, b, answer)
        return Explanation(kind, fact=fact, steps=steps, probability=chance)
    if kind == TIE:
        return Explanation(kind, square=a if answer == a * a else b, probability=chance)
    if kind == NEAR:
        return Explanation(kind, difference=answer - p, probability=chance)
    if kind == TENS_SLIP:
        return Explanation(kind, tens=(p // 10, answer // 10), probability=chance)
    if kind == KEYPAD:
        for variant, position, right, pressed in keypad_variants(p):
            if variant == answer:
                return Explanation(kind, digit=(position, right, pressed), probability=chance)
    if kind == OPERATION:
        how = "add" if answer == a + b else "subtract"
        return Explanation(kind, operation=how, probability=chance)
    if kind == ZERO_ONE:
        return Explanation(kind, number=answer, probability=chance)
    if kind in (REVERSED, SIDE_BY_SIDE):
        return Explanation(kind, product=p, probability=chance)
    return Explanation(kind, probability=chance)


# --- a child's answers together ----------------------------------------------------------------


def error_profile(kinds: Iterable[str]) -> dict[str, int]:
    """How many answers of each kind of ERROR_KINDS (zeros included, in that order); CORRECT
    is not counted. An unknown kind is a ValueError."""
    counts = dict.fromkeys(ERROR_KINDS, 0)
    for kind in kinds:
        if kind == CORRECT:
            continue
        if kind not in counts:
            raise ValueError(f"unknown kind {kind!r}")
        counts[kind] += 1
    return counts


def main_error(kinds: Iterable[str]) -> str | None:
    """The child's main kind of error: the mechanism of at least MAIN_MIN_ANSWERS (3) answers
    that is also at least MAIN_MIN_SHARE (50 %) of the child's named wrong answers (not
    unclear, omission or correct); None otherwise, and None when two kinds tie at 50 %."""
    named = Counter(k for k in kinds if k in MECHANISMS)
    total = sum(named.values())
    qualified = [
        kind
        for kind in MECHANISMS
        if named[kind] >= MAIN_MIN_ANSWERS and named[kind] >= MAIN_MIN_SHARE * total
    ]
    return qualified[0] if len(qualified) == 1 else None


# --- a child's own shares of the kinds ---------------------------------------------------------

CHILD_PRIOR_STRENGTH = 12.0  # pseudo-answers at PRIORS_OF_ALL in a child's own shares
CHILD_PRIOR_ROUNDS = 8


@dataclass(frozen=True)
class Answer:
    """A wrong answer as ``child_priors`` and ``name_answers`` read it."""

    a: int
    b: int
    answer: int | None
    context: str = WARM_UP
    options: tuple[int, ...] | None = None


def child_priors(answers: Iterable[Answer]) -> dict[str, float]:
    """The child's own shares of the kinds, from all their wrong answers: an
    expectation-maximisation of the mixture (each answer's posterior under the current
    shares, then the shares from those posteriors, smoothed by CHILD_PRIOR_STRENGTH
    pseudo-answers at the shares of all children, PRIORS_OF_ALL). A child who adds instead
    of multiplying has a large share of operation errors, so an answer that could be an
    addition or a neighbour's product reads as an addition; a child who guesses has a large
    share of answers no mechanism explains, so their chance fits are left unclear. Children
    differ in their errors (Campbell & Graham 1985 report it of adults already)."""
    wrong = [
        x
        for x in answers
        if x.answer is not None and x.answer != x.a * x.b and x.context in (WARM_UP, *GAME_CONTEXTS)
    ]
    shares = dict(PRIORS_OF_ALL)
    if not wrong:
        return shares
    # Each distinct answer's likelihoods once, with how often the child gave it.
    counted = Counter(
        (x.a, x.b, x.answer, x.context, None if x.options is None else tuple(sorted(x.options)))
        for x in wrong
    )
    tables = [(likelihoods(*key), n) for key, n in counted.items()]
    for _round in range(CHILD_PRIOR_ROUNDS):
        totals = {k: CHILD_PRIOR_STRENGTH * v for k, v in PRIORS_OF_ALL.items()}
        for table, n in tables:
            joint = [(kind, shares[kind] * like) for kind, like in table]
            whole = sum(value for _kind, value in joint)
            for kind, value in joint:
                totals[kind] += n * value / whole
        whole = fsum(totals.values())
        shares = {kind: value / whole for kind, value in totals.items()}
    return shares


def name_answers(answers: list[Answer]) -> list[str]:
    """The kind of each of a child's answers, read with the child's own shares of the kinds
    (``child_priors``): what every report says of them."""
    priors = child_priors(answers)
    return [
        classify(x.a, x.b, x.answer, context=x.context, options=x.options, priors=priors)
        for x in answers
    ]
