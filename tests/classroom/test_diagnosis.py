"""The error taxonomy and the mastery states (pure functions, no database)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from classroom import diagnosis as d
from classroom.diagnosis import Attempt

factor = st.integers(min_value=2, max_value=9)


@pytest.mark.parametrize(
    "a, b, answer, kind",
    [
        (7, 8, 56, d.CORRECT),
        (7, 8, 48, d.OPERAND),  # 6 × 8
        (7, 8, 63, d.OPERAND),  # 7 × 9
        (7, 8, 40, d.OPERAND),  # 5 × 8: two away
        (7, 8, 15, d.OPERATION),  # added
        (7, 8, 1, d.OPERATION),  # subtracted
        (7, 8, 78, d.OPERATION),  # written side by side
        (7, 8, 87, d.OPERATION),
        (7, 8, 54, d.TABLE_ERROR),  # 6 × 9: a product, no shared operand
        (7, 8, 81, d.TABLE_ERROR),
        (7, 8, 55, d.CLOSE),
        (7, 8, 57, d.CLOSE),
        (7, 8, 58, d.CLOSE),
        (7, 8, 59, d.OTHER),
        (7, 8, 100, d.OTHER),
        (7, 8, None, d.OMISSION),
        (3, 3, 6, d.OPERATION),  # 3 + 3 before 3 × 2: operation wins the tie
        (6, 7, 43, d.CLOSE),  # one more than 42
    ],
)
def test_classify(a, b, answer, kind):
    assert d.classify(a, b, answer) == kind


@given(factor, factor)
def test_the_product_is_always_correct(a, b):
    assert d.classify(a, b, a * b) == d.CORRECT


@given(factor, factor, st.integers(min_value=0, max_value=200))
def test_every_wrong_answer_gets_exactly_one_error_kind(a, b, answer):
    kind = d.classify(a, b, answer)
    assert (kind == d.CORRECT) == (answer == a * b)
    assert kind == d.CORRECT or kind in d.ERROR_KINDS


@given(factor, factor, st.integers(min_value=0, max_value=200))
def test_commuting_a_fact_never_changes_the_kind(a, b, answer):
    assert d.classify(a, b, answer) == d.classify(b, a, answer)


@given(factor, factor, st.integers(min_value=-2, max_value=2))
def test_close_misses_are_never_products(a, b, delta):
    answer = a * b + delta
    if d.classify(a, b, answer) == d.CLOSE:
        assert answer not in d.TABLE_PRODUCTS


def attempts(pattern: str, ms=2000):
    """'1' right, '0' wrong, 'm' missed capture; oldest first."""
    return [
        Attempt(correct=c == "1", ms=ms if c != "m" else None, omission=c == "m") for c in pattern
    ]


def test_mastery_not_seen():
    assert d.mastery([]).state == d.NOT_SEEN


def test_mastery_learning_with_few_attempts():
    assert d.mastery(attempts("111")).state == d.LEARNING


def test_mastery_fluent_threshold():
    assert d.mastery(attempts("1110", ms=5000)).state == d.LEARNING  # 75 %
    assert d.mastery(attempts("11111", ms=5000)).state == d.FLUENT
    assert d.mastery(attempts("11111", ms=7000)).state == d.LEARNING  # too slow


def test_mastery_mastered_threshold():
    assert d.mastery(attempts("111111", ms=2500)).state == d.MASTERED
    assert d.mastery(attempts("111111", ms=3500)).state == d.FLUENT
    assert d.mastery(attempts("1111111110", ms=2500)).state == d.MASTERED  # 90 %
    assert d.mastery(attempts("1111111100", ms=2500)).state == d.FLUENT  # 80 %


def test_a_recent_missed_capture_stops_mastery():
    assert d.mastery(attempts("1111111111m", ms=2000)).state != d.MASTERED
    assert d.mastery(attempts("m1111111111", ms=2000)).state == d.MASTERED  # old, out of window


def test_accuracy_first_never_uses_time():
    slow = attempts("111111", ms=20_000)
    assert d.mastery(slow).state == d.LEARNING
    assert d.mastery(slow, use_time=False).state == d.MASTERED


@given(st.lists(st.booleans(), max_size=30))
def test_more_right_answers_never_lower_the_state(results):
    base = [Attempt(correct=r, ms=1000) for r in results]
    better = [*base, Attempt(correct=True, ms=1000)]
    order = d.STATES.index
    assert order(d.mastery(better).state) >= order(d.mastery(base).state)


def test_commuted_facts_together_and_apart():
    assert d.fact_key(8, 7) == (8, 7)
    assert d.fact_key(8, 7, commuted=True) == d.fact_key(7, 8, commuted=True) == (7, 8)


def test_focus_facts_weakest_first():
    states = {
        (7, 8): d.mastery(attempts("0101")),
        (6, 7): d.mastery(attempts("0001")),
        (2, 2): d.mastery(attempts("111111", ms=1000)),
        (3, 4): d.mastery([]),
    }
    assert d.focus_facts(states) == [(6, 7), (7, 8)]


def test_error_profile_counts_kinds():
    profile = d.error_profile([(7, 8, 48), (7, 8, 15), (7, 8, 56), (7, 8, None)])
    assert profile[d.OPERAND] == 1 and profile[d.OPERATION] == 1 and profile[d.OMISSION] == 1
    assert sum(profile.values()) == 3
