"""bench/populations/literature.py: the simulated class that is the truth of the evidence-week
bench. These tests check the interface the bench relies on (24 children, 12 kinds × 2,
``truth`` that ``answer`` honours), that every wrong answer really is what its mechanism says,
and the shape of each kind. The mechanism definitions are written out again here, from the
brief, rather than taken from the module. No database; a few seconds."""

import ast
import itertools
import random
import statistics
from collections import Counter
from pathlib import Path

import pytest

from bench.populations import literature

SEED = 20260
FACTS = [(a, b) for a in range(2, 10) for b in range(2, 10)]
PAD_NEIGHBOURS = {
    "1": "24",
    "2": "135",
    "3": "26",
    "4": "157",
    "5": "2468",
    "6": "359",
    "7": "48",
    "8": "0579",
    "9": "68",
    "0": "8",
}


@pytest.fixture(scope="module")
def klass():
    return literature.children(SEED)


def of_kind(klass, kind):
    found = [child for child in klass if child.kind == kind]
    assert len(found) == 2
    return found


def within(values, low, high):
    return all(low <= value <= high for value in values)


def is_operand(a, b, x):
    return any(x == a * k for k in range(1, 13) if k != b) or any(
        x == k * b for k in range(1, 13) if k != a
    )


def fits(mechanism, a, b, x):
    """Whether ``x``, a wrong answer to a × b, is what ``mechanism`` can produce (the brief)."""
    p = a * b
    if not isinstance(x, int) or x == p or not 0 <= x <= 999:
        return False
    match mechanism:
        case "operand":
            return is_operand(a, b, x)
        case "tie":
            return x in (a * a, b * b)
        case "near":
            return 1 <= abs(x - p) <= max(1, p / 10 + 0.5) and not is_operand(a, b, x)
        case "tens_slip":
            return 10 <= p <= 99 and 10 <= x <= 99 and x % 10 == p % 10
        case "keypad":
            typed, right = str(x), str(p)
            if len(typed) != len(right):
                return False
            changed = [i for i in range(len(right)) if typed[i] != right[i]]
            return len(changed) == 1 and typed[changed[0]] in PAD_NEIGHBOURS[right[changed[0]]]
        case "operation":
            return x in (a + b, abs(a - b))
        case "zero_one":
            return x in (0, a, b)
        case "reversed":
            return 10 <= p <= 99 and p % 10 != 0 and x == int(str(p)[::-1])
        case "side_by_side":
            return x in (int(f"{a}{b}"), int(f"{b}{a}"))
        case "random":
            return 1 <= x <= 2 * p + 10
    return False


def test_the_checker_knows_each_mechanism():
    assert fits("operand", 7, 8, 42) and fits("operand", 7, 8, 72) and fits("operand", 7, 8, 21)
    assert not fits("operand", 7, 8, 55)
    assert fits("tie", 7, 8, 49) and fits("tie", 7, 8, 64) and not fits("tie", 7, 8, 36)
    assert fits("near", 4, 8, 35) and fits("near", 7, 8, 57) and not fits("near", 7, 8, 63)
    assert fits("tens_slip", 6, 9, 44) and fits("tens_slip", 6, 9, 64)
    assert not fits("tens_slip", 6, 9, 53)
    assert fits("keypad", 7, 8, 59) and fits("keypad", 7, 8, 26) and not fits("keypad", 7, 8, 16)
    assert fits("keypad", 9, 9, 84) and not fits("keypad", 9, 9, 1)
    assert fits("operation", 7, 8, 15) and fits("operation", 7, 8, 1)
    assert fits("zero_one", 7, 8, 0) and fits("reversed", 7, 8, 65)
    assert not fits("reversed", 5, 8, 4)
    assert fits("side_by_side", 7, 8, 87) and not fits("random", 7, 8, 56)


def test_the_class_is_24_children_two_of_each_kind_interleaved(klass):
    assert len(klass) == 24
    assert Counter(child.kind for child in klass) == dict.fromkeys(literature.KINDS, 2)
    assert [child.kind for child in klass[:12]] == list(literature.KINDS)
    assert all(x.kind != y.kind for x, y in itertools.pairwise(klass))
    names = [child.name for child in klass]
    assert len(set(names)) == 24
    assert all(
        name.isalpha() and child.kind not in name for name, child in zip(names, klass, strict=True)
    )


def test_the_class_is_the_same_for_the_same_seed_and_differs_for_another(klass):
    again = literature.children(SEED)
    other = literature.children(SEED + 1)

    def table(child):
        return [child.truth(a, b, day) for a, b in FACTS for day in range(5)]

    assert [c.name for c in again] == [c.name for c in klass]
    assert [table(c) for c in again] == [table(c) for c in klass]
    assert [table(c) for c in other] != [table(c) for c in klass]
    for first, second in zip(klass, again, strict=True):
        rng1, rng2 = random.Random(1), random.Random(1)
        one = [first.answer(a, b, 0, rng1) for a, b in FACTS]
        two = [second.answer(a, b, 0, rng2) for a, b in FACTS]
        assert one == two


def test_truth_is_a_probability_on_every_fact_and_day(klass):
    for child in klass:
        for a, b in FACTS:
            for day in range(5):
                assert 0 <= child.truth(a, b, day) <= 1
    with pytest.raises(ValueError):
        klass[0].truth(1, 5, 0)
    with pytest.raises(ValueError):
        klass[0].truth(3, 5, 5)


def probe_facts(child):
    facts = [(2, 3, 0), (7, 8, 0), (9, 6, 0)]
    if child.systematic_facts and child.kind != "key_slipper":
        a, b = sorted(child.systematic_facts)[0]
        facts.append((a, b, 0))
    weak = [(a, b) for a, b in FACTS if child.truth(a, b, 0) < 0.45]
    if weak:
        facts.append((*weak[0], 0))
    if child.kind == "improver":
        a, b = next((a, b) for a, b in FACTS if child.learned(a, b))
        facts += [(a, b, 1), (a, b, 2), (a, b, 4)]
    return facts


def test_the_share_of_right_answers_is_the_truth(klass):
    draws = 2000
    for child in klass:
        rng = random.Random(f"share:{child.name}")
        for a, b, day in probe_facts(child):
            right = sum(child.answer(a, b, day, rng)[0] == a * b for _ in range(draws))
            assert right / draws == pytest.approx(child.truth(a, b, day), abs=0.045), (
                child,
                a,
                b,
                day,
            )


def test_every_wrong_answer_fits_its_mechanism(klass):
    seen = Counter()
    for child in klass:
        rng = random.Random(f"mechanisms:{child.name}")
        for day in (0, 4):
            for a, b in FACTS:
                for _ in range(25):
                    for recall in (child.answer, child.game_answer):
                        given, seconds = recall(a, b, day, rng)
                        assert seconds > 0
                        if given is None:
                            assert recall == child.game_answer
                            assert child.last_mechanism is None
                        elif given == a * b:
                            assert child.last_mechanism is None
                        else:
                            assert child.last_mechanism in literature.MECHANISMS
                            assert fits(child.last_mechanism, a, b, given), (
                                child,
                                a,
                                b,
                                given,
                                child.last_mechanism,
                            )
                            seen[child.last_mechanism] += 1
                            if recall == child.game_answer:
                                assert child.last_mechanism != "keypad"
    assert set(seen) == set(literature.MECHANISMS)


def test_order_asymmetric_children_know_16_facts_one_way_only(klass):
    for child in of_kind(klass, "order_asymmetric"):
        lopsided = [
            (a, b) for a, b in FACTS if child.truth(a, b, 0) >= 0.8 and child.truth(b, a, 0) < 0.35
        ]
        assert len(lopsided) >= 16
        assert all(child.truth(a, b, 0) >= 0.8 for a, b in FACTS if (b, a) not in lopsided)


def test_improvers_learn_8_facts_during_the_week(klass):
    for child in of_kind(klass, "improver"):
        learned = {(a, b) for a, b in FACTS if child.learned(a, b)}
        assert len(learned) == 16
        assert all((b, a) in learned for a, b in learned)
        derived = {
            (a, b) for a, b in FACTS if child.truth(a, b, 0) < 0.6 and child.truth(a, b, 4) >= 0.8
        }
        assert derived == learned
        for a, b in learned:
            week = [child.truth(a, b, day) for day in range(5)]
            assert week == sorted(week)
            assert week[0] < 0.25 and 0.35 <= week[2] <= 0.65 and week[4] >= 0.8
        for other in klass:
            if other.kind != "improver":
                assert not any(
                    other.truth(a, b, 0) < 0.6 and other.truth(a, b, 4) >= 0.8 for a, b in FACTS
                )


def test_systematic_children_make_their_error_on_their_facts(klass):
    expected = {"adder": "operation", "tie_confuser": "tie", "key_slipper": "keypad"}
    for child in klass:
        assert child.systematic_error == expected.get(child.kind)
        if child.systematic_error is None:
            assert not child.systematic_facts
            continue
        facts = child.systematic_facts
        assert all((b, a) in facts for a, b in facts)
        pairs = len({tuple(sorted(fact)) for fact in facts})
        if child.kind == "adder":
            assert 6 <= pairs <= 12
            assert all(0.2 <= child.truth(a, b, 0) <= 0.4 for a, b in facts)
        elif child.kind == "tie_confuser":
            assert 8 <= pairs <= 12
            assert all(a != b and 0.3 <= child.truth(a, b, 0) <= 0.5 for a, b in facts)
        else:
            assert facts == set(FACTS)
        rng = random.Random(f"systematic:{child.name}")
        mechanisms = Counter()
        for a, b in sorted(facts):
            for _ in range(60):
                given, _seconds = child.answer(a, b, 0, rng)
                if given != a * b:
                    mechanisms[child.last_mechanism] += 1
        share = mechanisms[child.systematic_error] / mechanisms.total()
        assert share >= 0.7, (child, mechanisms)


def test_an_adder_mostly_adds(klass):
    for child in of_kind(klass, "adder"):
        rng = random.Random(f"adds:{child.name}")
        answers = Counter()
        for a, b in sorted(child.systematic_facts):
            for _ in range(40):
                given, _seconds = child.answer(a, b, 0, rng)
                if child.last_mechanism == "operation":
                    answers["added" if given == a + b else "subtracted"] += 1
        assert answers["added"] > 3 * answers["subtracted"]


def test_the_inattentive_child_misses_half_the_game_pairs(klass):
    for child in klass:
        rng = random.Random(f"games:{child.name}")
        results = [child.game_answer(7, 6, 0, rng)[0] for _ in range(3000)]
        missed = results.count(None) / len(results)
        right = results.count(42) / len(results)
        assert right == pytest.approx(child.game_truth(7, 6, 0), abs=0.04)
        if child.kind == "inattentive":
            assert 0.37 <= missed <= 0.63
            seen = [x for x in results if x is not None]
            assert seen.count(42) / len(seen) == pytest.approx(child.truth(7, 6, 0), abs=0.04)
        else:
            assert missed == 0
        if child.kind == "key_slipper":
            # No keypad in a game: the child recalls as a secure child does.
            assert right >= child.truth(7, 6, 0) + 0.05 and right >= 0.95


def test_each_kind_knows_what_its_description_says(klass):
    def truths(child, facts=FACTS):
        return [child.truth(a, b, 0) for a, b in facts]

    for child in of_kind(klass, "secure"):
        assert within(truths(child), 0.93, 0.98)
    for child in of_kind(klass, "slow_accurate"):
        assert within(truths(child), 0.88, 0.95)
    for child in of_kind(klass, "inattentive"):
        assert within(truths(child), 0.9, 0.97)
    for child in of_kind(klass, "fast_guesser"):
        assert within(truths(child), 0.25, 0.5)
    for child in of_kind(klass, "key_slipper"):
        assert within(truths(child), 0.84, 0.92)
    for child in of_kind(klass, "hard_facts"):
        hard = [(a, b) for a, b in FACTS if (a >= 6 and b >= 6) or a * b >= 40]
        easy = [fact for fact in FACTS if fact not in hard]
        assert all(0.2 <= t <= 0.5 for t in truths(child, hard))
        assert min(truths(child, easy)) >= 0.85
    for child in of_kind(klass, "sevens_eights"):
        weak = [(a, b) for a, b in FACTS if {a, b} & {7, 8}]
        rest = [fact for fact in FACTS if fact not in weak]
        assert all(0.15 <= t <= 0.45 for t in truths(child, weak))
        assert min(truths(child, rest)) >= 0.85
    for child in of_kind(klass, "weak_overall"):
        values = truths(child)
        assert sum(0.3 <= t <= 0.55 for t in values) > len(values) / 2
        easy = [(a, b) for a, b in FACTS if a in (2, 5) or b in (2, 5) or a == b]
        hard = [fact for fact in FACTS if fact not in easy]
        assert statistics.mean(truths(child, easy)) > statistics.mean(truths(child, hard)) + 0.05
    for child in klass:  # the problem-size effect, for every child, among the facts of a kind
        kind_of_fact = {}
        for a, b in FACTS:
            kind_of_fact.setdefault(child.truth(a, b, 0) >= 0.8, []).append((a, b))
        for facts in kind_of_fact.values():
            small = [(a, b) for a, b in facts if a * b <= 12]
            large = [(a, b) for a, b in facts if a * b >= 48]
            if small and large:
                assert statistics.mean(truths(child, small)) > statistics.mean(
                    truths(child, large)
                ), child


def typed_times(child, facts, draws, seed):
    rng = random.Random(seed)
    right, wrong = [], []
    for a, b in facts:
        for _ in range(draws):
            given, seconds = child.answer(a, b, 0, rng)
            (right if given == a * b else wrong).append(seconds)
    return right, wrong


def test_response_times_are_plausible(klass):
    medians = {}
    for child in klass:
        right, wrong = typed_times(child, FACTS, 20, f"times:{child.name}")
        every = right + wrong
        assert all(0.3 < seconds <= 60 for seconds in every)
        medians.setdefault(child.kind, []).append(statistics.median(every))
        assert statistics.median(right) == pytest.approx(
            statistics.median(child.median_seconds(a, b, 0) for a, b in FACTS), rel=0.15
        )
    assert all(1.3 <= m <= 2.8 for m in medians["secure"])
    assert all(5.5 <= m <= 10.5 for m in medians["slow_accurate"])
    assert all(0.9 <= m <= 2.2 for m in medians["fast_guesser"])
    assert max(medians["secure"]) < min(medians["slow_accurate"])
    assert max(medians["secure"]) < 6 < min(medians["slow_accurate"])  # the MTC's fluency line


def test_wrong_answers_are_slower_and_weak_facts_slower(klass):
    for child in klass:
        right, wrong = typed_times(child, [(7, 8)], 2500, f"slower:{child.name}")
        assert len(wrong) >= 40
        assert statistics.median(wrong) > statistics.median(right), child
    for child in of_kind(klass, "hard_facts") + of_kind(klass, "sevens_eights"):
        assert child.median_seconds(7, 8, 0) > 1.4 * child.median_seconds(6, 5, 0)
    for child in klass:  # the problem-size effect on time, among facts as well known
        groups = {}
        for a, b in FACTS:
            groups.setdefault(child.truth(a, b, 0) >= 0.8, []).append((a, b))
        for facts in groups.values():
            small = [child.median_seconds(a, b, 0) for a, b in facts if a * b <= 12]
            large = [child.median_seconds(a, b, 0) for a, b in facts if a * b >= 48]
            if small and large:
                assert statistics.mean(large) > statistics.mean(small), child


def test_errors_without_a_system_follow_the_literature_mix(klass):
    """Operand errors the large majority, then close misses; few non-table errors."""
    plain = [c for c in klass if c.kind in ("secure", "slow_accurate", "inattentive")]
    mechanisms = Counter()
    for child in plain:
        rng = random.Random(f"mix:{child.name}")
        for a, b in FACTS:
            for _ in range(60):
                given, _seconds = child.answer(a, b, 0, rng)
                if given != a * b:
                    mechanisms[child.last_mechanism] += 1
    total = mechanisms.total()
    assert total > 500
    ranked = [name for name, _count in mechanisms.most_common()]
    assert ranked[:2] == ["operand", "near"]
    assert mechanisms["operand"] / total >= 0.45
    non_table = sum(mechanisms[m] for m in ("random", "zero_one", "reversed", "side_by_side"))
    assert non_table / total <= 0.15
    guesses = Counter()
    for child in of_kind(klass, "fast_guesser"):
        rng = random.Random(f"guess:{child.name}")
        for a, b in FACTS:
            for _ in range(10):
                if child.answer(a, b, 0, rng)[0] != a * b:
                    guesses[child.last_mechanism] += 1
    assert guesses.most_common(1)[0][0] == "random"


def test_the_population_is_pure_python_and_independent_of_the_app():
    path = Path(literature.__file__)
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"math", "random", "statistics", "collections", "dataclasses", ""}
