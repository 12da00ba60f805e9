"""The kinds of wrong answer, named only when the answer supports them (pure, no database)."""

import random
from collections import Counter
from dataclasses import FrozenInstanceError

import pytest

from classroom import error_kinds as ek

TABLE = range(2, 10)


# --- one answer ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, answer, kind",
    [
        (7, 8, 56, ek.CORRECT),
        (7, 8, 42, ek.OPERAND),  # 7 × 6, two steps
        (7, 8, 48, ek.OPERAND),  # 6 × 8, one step
        (7, 8, 63, ek.OPERAND),  # 7 × 9
        (7, 8, 72, ek.OPERAND),  # 9 × 8, two steps
        (7, 8, 40, ek.OPERAND),  # 5 × 8
        (9, 7, 70, ek.OPERAND),  # 10 × 7: the moved number may pass 9
        (7, 8, 49, ek.TIE),
        (7, 8, 64, ek.TIE),
        (7, 8, 55, ek.NEAR),
        (7, 8, 57, ek.NEAR),
        (7, 8, 54, ek.NEAR),  # 6 × 9, but no number of 7 × 8 in it
        (6, 9, 44, ek.TENS_SLIP),
        (6, 9, 64, ek.TENS_SLIP),
        (6, 9, 74, ek.TENS_SLIP),
        (7, 8, 59, ek.KEYPAD),  # the 6 key's neighbour below
        (7, 8, 15, ek.OPERATION),
        (7, 8, 1, ek.OPERATION),
        (7, 8, 0, ek.ZERO_ONE),
        (7, 8, 7, ek.ZERO_ONE),
        (7, 8, 8, ek.ZERO_ONE),
        (7, 8, 65, ek.REVERSED),
        (6, 6, 63, ek.REVERSED),  # 7 × 9 too, but no number of 6 × 6 in it
        (7, 8, 78, ek.SIDE_BY_SIDE),
        (7, 8, 87, ek.SIDE_BY_SIDE),
        (7, 8, 101, ek.UNCLEAR),
        (7, 8, 200, ek.UNCLEAR),
        (7, 8, 31, ek.UNCLEAR),
        (7, 8, None, ek.OMISSION),
    ],
)
def test_classify(a, b, answer, kind):
    assert ek.classify(a, b, answer) == kind
    assert ek.classify(b, a, answer) == kind


@pytest.mark.parametrize(
    "a, b, answer, details",
    [
        (7, 8, 42, {"fact": (7, 6), "steps": 2}),
        (8, 7, 42, {"fact": (6, 7), "steps": 2}),
        (7, 8, 48, {"fact": (6, 8), "steps": 1}),
        (8, 7, 48, {"fact": (8, 6), "steps": 1}),
        (7, 8, 24, {"fact": (3, 8), "steps": 4}),
        (7, 8, 49, {"square": 7}),
        (8, 7, 64, {"square": 8}),
        (7, 8, 55, {"difference": -1}),
        (7, 8, 57, {"difference": 1}),
        (6, 9, 44, {"tens": (5, 4)}),
        (7, 8, 59, {"digit": (1, 6, 9)}),  # the second digit, 6 typed as 9
        (7, 8, 15, {"operation": "add"}),
        (7, 8, 1, {"operation": "subtract"}),
        (7, 8, 8, {"number": 8}),
        (7, 8, 65, {"product": 56}),
        (7, 8, 78, {"product": 56}),
        (7, 8, 101, {}),
        (7, 8, None, {}),
    ],
)
def test_explain_says_what_lies_behind_the_kind(a, b, answer, details):
    e = ek.explain(a, b, answer)
    assert e.kind == ek.classify(a, b, answer)
    assert e.details == details
    assert 0 <= e.probability <= 1
    with pytest.raises(FrozenInstanceError):
        e.kind = ek.CORRECT


def test_a_named_kind_is_the_likeliest_and_passes_the_threshold():
    post = ek.posteriors(7, 8, 48)
    assert abs(sum(post.values()) - 1) < 1e-9
    assert max(post, key=post.get) == ek.OPERAND
    assert ek.explain(7, 8, 48).probability == pytest.approx(post[ek.OPERAND])
    # 4 × 8 → 16 is 2 × 8 (two steps) and 4 × 4 alike: neither reading is enough.
    post = ek.posteriors(4, 8, 16)
    assert post[ek.OPERAND] < ek.THRESHOLD and post[ek.TIE] < ek.THRESHOLD
    assert ek.classify(4, 8, 16) == ek.UNCLEAR


def test_the_kinds_and_their_order():
    assert ek.ERROR_KINDS == (
        "operand",
        "tie",
        "near",
        "tens_slip",
        "keypad",
        "operation",
        "zero_one",
        "reversed",
        "side_by_side",
        "unclear",
        "omission",
    )
    assert ek.CORRECT == "correct"
    assert abs(sum(ek.PRIORS.values()) - 1) < 1e-9


def test_the_keypad_neighbours():
    assert ek.KEY_NEIGHBOURS[5] == (2, 4, 6, 8)
    assert ek.KEY_NEIGHBOURS[8] == (0, 5, 7, 9)
    assert ek.KEY_NEIGHBOURS[0] == (8,)
    assert ek.KEY_NEIGHBOURS[7] == (4, 8)
    assert ek.KEY_NEIGHBOURS[1] == (2, 4)
    assert {v for v, *_ in ek.keypad_variants(56)} == {26, 46, 66, 86, 53, 55, 59}
    assert 1 not in {v for v, *_ in ek.keypad_variants(81)}  # no leading 0: "01"


def test_what_each_kind_can_give():
    """Each kind's answers are where the brief puts them, and no kind gives the product."""
    for a in TABLE:
        for b in TABLE:
            p = a * b
            dists = ek.distributions(a, b)
            for kind, dist in dists.items():
                assert p not in dist, (a, b, kind)
                if dist:
                    assert abs(sum(dist.values()) - 1) < 1e-9
            assert all(1 <= abs(x - p) <= max(1, p / 10) for x in dists[ek.NEAR])
            assert all(x % 10 == p % 10 and x != p for x in dists[ek.TENS_SLIP])
            assert bool(dists[ek.TENS_SLIP]) == (p >= 10)
            assert set(dists[ek.ZERO_ONE]) == {0, a, b} - {p}
            assert set(dists[ek.TIE]) == ({a * a, b * b} if a != b else set())
            for x in dists[ek.OPERAND]:
                assert x not in (a * a, b * b) or x in {
                    u * v for u, v, *_ in ek.operand_facts(a, b)
                }
    # The operand's distance falls off: one step likelier than two, two than three.
    dist = ek.distributions(7, 8)[ek.OPERAND]
    assert dist[48] == dist[63] > dist[40] == dist[72] > dist[32] == dist[80]
    assert dist[42] == dist[40]  # 7 × 6 and 5 × 8: both two steps
    near = ek.distributions(7, 8)[ek.NEAR]
    assert set(near) == {51, 52, 53, 54, 55, 57, 58, 59, 60, 61}
    assert near[55] == near[57] > near[54] > near[53]
    op = ek.distributions(7, 8)[ek.OPERATION]
    assert op[15] > op[1]


# --- commutativity ---------------------------------------------------------------------------


def test_the_kind_never_depends_on_the_order_of_the_numbers():
    for a in TABLE:
        for b in TABLE:
            if a > b:
                continue
            for answer in range(201):
                one, other = ek.explain(a, b, answer), ek.explain(b, a, answer)
                assert one.kind == other.kind, (a, b, answer)
                if one.kind == ek.OPERAND and a != b:
                    assert other.fact == one.fact[::-1] and other.steps == one.steps
                    x, y = one.fact
                    assert x * y == answer and (x == a or y == b)
                elif one.kind != ek.OPERAND:
                    assert one.details == other.details
                claim = ek.classify(a, b, answer, context="capture")
                assert claim == ek.classify(b, a, answer, context="capture"), (a, b, answer)


# --- games -----------------------------------------------------------------------------------


def test_keypad_is_never_named_in_a_game():
    for context in ("capture", "challenge"):
        for a in TABLE:
            for b in TABLE:
                for answer in range(101):
                    assert ek.classify(a, b, answer, context=context) != ek.KEYPAD
                    assert (
                        ek.classify(a, b, answer, context=context, options=[answer, 12])
                        != ek.KEYPAD
                    )
    assert ek.classify(7, 8, 59) == ek.KEYPAD
    assert ek.classify(7, 8, 59, context="capture", options=[59, 12, 30]) != ek.KEYPAD


@pytest.mark.parametrize(
    "options",
    [
        [42, 12, 30],
        [42, 12, 30, 56],  # the right one on the board too
        [42, 42, 12, 12, 30],  # two monsters of one value
        [30, 12, 42, 56, 56],
    ],
)
def test_a_child_who_picks_the_operand_like_monster_makes_an_operand_error(options):
    e = ek.explain(7, 8, 42, context="capture", options=options)
    assert e.kind == ek.OPERAND and e.fact == (7, 6) and e.steps == 2
    assert ek.classify(8, 7, 42, context="challenge", options=options) == ek.OPERAND
    assert ek.classify(7, 8, 56, context="capture", options=options) == ek.CORRECT


def test_a_claim_among_random_looking_options_is_unclear_more_often_than_typed():
    """In the game the no-mechanism child picks among a few monsters, so a tap is weaker
    evidence than a typed answer: every wrong table product, claimed with every product of
    the tables on offer (options None) or on random boards, is left unclear at least as often
    as the same answer typed, and for some answers only in the game."""
    rng = random.Random(5)
    products = sorted(ek.TABLE_PRODUCTS)
    typed = claimed = board = 0
    for a in TABLE:
        for b in TABLE:
            for answer in products:
                if answer == a * b:
                    continue
                typed += ek.classify(a, b, answer) == ek.UNCLEAR
                claimed += ek.classify(a, b, answer, context="capture") == ek.UNCLEAR
                options = [answer, *rng.sample(products, 4)]
                board += ek.classify(a, b, answer, context="capture", options=options) == (
                    ek.UNCLEAR
                )
    print(f"unclear: typed {typed}, claimed (all products) {claimed}, on boards of 5 {board}")
    assert claimed > typed
    assert board > typed
    # One weak fit among monsters no kind explains is no surer in the game than typed:
    # 7 × 8 → 21 (7 × 3, five steps away) alone among 25, 27 and 81.
    typed_p = ek.explain(7, 8, 21).probability
    game_p = ek.posteriors(7, 8, 21, context="capture", options=[21, 25, 27, 81])[ek.OPERAND]
    assert game_p <= typed_p + 1e-9


def test_forced_taps_and_missed_captures():
    assert ek.classify(7, 8, 42, context="forced") == ek.UNCLEAR
    assert ek.classify(7, 8, 49, context="forced", options=[49, 56]) == ek.UNCLEAR
    assert ek.classify(7, 8, 56, context="forced") == ek.CORRECT
    assert ek.classify(7, 8, None, context="missed") == ek.OMISSION
    assert ek.classify(7, 8, None, context="capture") == ek.OMISSION
    with pytest.raises(ValueError):
        ek.classify(7, 8, 42, context="homework")


# --- a child's answers together --------------------------------------------------------------


@pytest.mark.parametrize(
    "kinds, main",
    [
        ([ek.OPERAND] * 3, ek.OPERAND),
        ([ek.OPERAND] * 2, None),  # two is not several
        ([ek.OPERAND] * 2 + [ek.UNCLEAR] * 5 + [ek.OMISSION] * 5, None),
        ([ek.OPERAND] * 3 + [ek.TIE] * 3, None),  # 50 % each: no main kind
        ([ek.OPERAND] * 3 + [ek.TIE, ek.NEAR, ek.REVERSED], ek.OPERAND),  # exactly 50 %
        ([ek.OPERAND] * 3 + [ek.TIE, ek.NEAR, ek.REVERSED, ek.ZERO_ONE], None),  # 3 of 7
        ([ek.OPERAND] * 3 + [ek.UNCLEAR] * 10 + [ek.OMISSION] * 10, ek.OPERAND),
        ([ek.OPERAND] * 3 + [ek.CORRECT] * 20 + [ek.TIE] * 2, ek.OPERAND),
        ([ek.TIE] * 4 + [ek.OPERAND] * 3, ek.TIE),
        ([ek.UNCLEAR] * 6, None),
        ([ek.OMISSION] * 6, None),
        ([], None),
    ],
)
def test_main_error(kinds, main):
    assert ek.main_error(kinds) == main
    assert ek.main_error(iter(kinds)) == main


def test_error_profile():
    profile = ek.error_profile([ek.OPERAND, ek.OPERAND, ek.CORRECT, ek.OMISSION, ek.UNCLEAR])
    assert list(profile) == list(ek.ERROR_KINDS)
    assert profile[ek.OPERAND] == 2 and profile[ek.OMISSION] == 1 and profile[ek.UNCLEAR] == 1
    assert sum(profile.values()) == 4
    assert ek.error_profile([]) == dict.fromkeys(ek.ERROR_KINDS, 0)
    with pytest.raises(ValueError):
        ek.error_profile(["table"])


# --- a published-error generator -------------------------------------------------------------
# Its own code, not the classifier's: each wrong answer is made by one mechanism and labelled
# with it. The mix follows the ordering of the literature: operand errors the large majority
# (Campbell & Graham 1985), then near misses, tie confusions and operation confusions
# (Campbell 1994; Miller, Perlmutter & Trabasso 1984), few of the rest (our judgement), and
# about 10 % answers no mechanism explains. Larger facts err more often (the problem-size
# effect): a fact is drawn with weight equal to its product.

MIX = {
    "operand": 0.50,
    "near": 0.14,
    "tie": 0.08,
    "operation": 0.07,
    "tens_slip": 0.03,
    "keypad": 0.03,
    "zero_one": 0.02,
    "reversed": 0.02,
    "side_by_side": 0.01,
    "random": 0.10,
}
# How far an operand error's number moves: mostly one step (Campbell & Graham 1985).
OPERAND_STEPS = {1: 0.60, 2: 0.25, 3: 0.10, 4: 0.05}
PAD_ROWS = ("123", "456", "789", " 0 ")


def _pad_neighbours(digit):
    where = {ch: (r, c) for r, row in enumerate(PAD_ROWS) for c, ch in enumerate(row) if ch != " "}
    r, c = where[digit]
    return [ch for ch, (rr, cc) in where.items() if abs(rr - r) + abs(cc - c) == 1]


def _draw(rng, weights):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def _make(rng, mechanism, a, b):
    """One answer of ``mechanism`` to a × b, or None when it cannot make one here."""
    p = a * b
    if mechanism == "operand":
        steps = _draw(rng, OPERAND_STEPS)
        moved = rng.choice(
            [(a + s, b) for s in (-steps, steps)] + [(a, b + s) for s in (-steps, steps)]
        )
        x, y = moved
        # A move onto a square of a or b is the tie confusion by the taxonomy's definition.
        if not (1 <= x <= 12 and 1 <= y <= 12) or x == y:
            return None
        return x * y
    if mechanism == "near":
        window = max(1, p // 10)
        k = _draw(rng, {1: 0.7, 2: 0.2, 3: 0.1})
        if k == 3:
            k = rng.randint(3, max(3, window))
        if k > window:
            return None
        return p + rng.choice((-k, k))
    if mechanism == "tie":
        return None if a == b else rng.choice((a * a, b * b))
    if mechanism == "operation":
        return a + b if rng.random() < 0.75 else abs(a - b)
    if mechanism == "tens_slip":
        if p < 10:
            return None
        tens = p // 10
        far = _draw(rng, {1: 0.7, 2: 0.2, 3: 0.1})
        if far == 3:
            far = rng.randint(3, 8)
        new = tens + rng.choice((-far, far))
        return 10 * new + p % 10 if 1 <= new <= 9 else None
    if mechanism == "keypad":
        digits = str(p)
        i = rng.randrange(len(digits))
        new = rng.choice(_pad_neighbours(digits[i]))
        if i == 0 and new == "0" and len(digits) > 1:
            return None
        return int(digits[:i] + new + digits[i + 1 :])
    if mechanism == "zero_one":
        return _draw(rng, {0: 0.4, a: 0.3, b: 0.3}) if a != b else rng.choice((0, a))
    if mechanism == "reversed":
        digits = str(p)
        if len(digits) != 2 or digits[0] == digits[1] or digits[1] == "0":
            return None
        return int(digits[::-1])
    if mechanism == "side_by_side":
        return int(rng.choice((f"{a}{b}", f"{b}{a}")))
    assert mechanism == "random"
    return rng.randint(0, 2 * p + 10)


def generate(n, seed):
    """``n`` wrong typed answers as (a, b, answer, mechanism)."""
    rng = random.Random(seed)
    facts = [(a, b) for a in TABLE for b in TABLE]
    sizes = [a * b for a, b in facts]
    out = []
    while len(out) < n:
        mechanism = _draw(rng, MIX)
        a, b = rng.choices(facts, weights=sizes)[0]
        answer = _make(rng, mechanism, a, b)
        if answer is not None and answer != a * b:
            out.append((a, b, answer, mechanism))
    return out


def test_the_generator_makes_what_it_says():
    errors = generate(3000, seed=2)
    shares = Counter(m for *_, m in errors)
    assert shares["operand"] > shares["near"] > shares["operation"] > shares["reversed"]
    assert abs(shares["random"] / len(errors) - 0.10) < 0.03
    for a, b, answer, m in errors:
        p = a * b
        assert answer != p
        if m == "tie":
            assert answer in (a * a, b * b)
        elif m == "operand":
            assert answer % a == 0 or answer % b == 0
        elif m == "near":
            assert 1 <= abs(answer - p) <= max(1, p / 10)
        elif m == "tens_slip":
            assert answer % 10 == p % 10
    assert generate(50, seed=8) == generate(50, seed=8)


def test_the_generated_errors_are_named_as_they_were_made():
    errors = generate(5000, seed=19)
    named = agree = random_named = randoms = made = made_named = 0
    wrong = Counter()
    for a, b, answer, mechanism in errors:
        kind = ek.classify(a, b, answer)
        if mechanism == "random":
            randoms += 1
            random_named += kind != ek.UNCLEAR
        else:
            made += 1
            made_named += kind != ek.UNCLEAR
        if kind != ek.UNCLEAR:
            named += 1
            if kind == mechanism:
                agree += 1
            else:
                wrong[(mechanism, kind)] += 1
    agreement = agree / named
    naming = made_named / made
    random_naming = random_named / randoms
    print(
        f"\nnamed {named}/{len(errors)}; agreement among named {agreement:.1%}; "
        f"non-random named {naming:.1%}; random named {random_naming:.1%}; "
        f"commonest disagreements (made, named) {wrong.most_common(6)}"
    )
    assert agreement >= 0.90
    assert naming >= 0.80
    assert random_naming <= 0.30
