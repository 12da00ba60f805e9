"""Which facts a potion warm-up asks, in which order: the Coach's choice (pure, no ORM).

``plan`` puts the child's focus facts first, then the facts due for review, then the facts
begun but not decided and those with no evidence yet, taking turns, then the rest of the
session's tables, and repeats each focus fact a few questions later the other way round
(7 × 8, then 8 × 7). The caller (``warmup.plan_for``) gathers the lists from the knowledge
model; docs/classroom/warm-up.md explains the choice.
"""

import random
from collections.abc import Iterable
from collections.abc import Sequence
from itertools import zip_longest

Fact = tuple[int, int]

FACTORS = range(2, 10)  # the 2–9 times tables
# The tables of each session tier (``Assignment.Tier``), as MultipliPotion's decks deal them:
# the green cards make the facts of 2 to 5 by 2 to 5, the purple cards every fact with a 6,
# 7, 8 or 9 in it, the rainbow deck both.
TIER_TABLES: dict[str, range] = {
    "green": range(2, 6),
    "purple": range(6, 10),
    "full": range(2, 10),
}
FOCUS_GAP = 4  # a focus fact comes back this many questions later


def tier_facts(tables: Iterable[int]) -> list[Fact]:
    """Every fact (both orders) of these tables within 2–9: a × b whose larger number is one
    of ``tables`` (green: 2–5 × 2–5; purple: any fact with a 6–9; full: all 64)."""
    tables = set(tables)
    return [(a, b) for a in FACTORS for b in FACTORS if max(a, b) in tables]


def tables_of_tier(tier: str) -> range:
    return TIER_TABLES.get(tier, TIER_TABLES["full"])


def plan(
    tables: Iterable[int],
    focus: Sequence[Fact],
    due: Sequence[Fact],
    unseen: Sequence[Fact],
    n: int,
    seed: int,
    unfinished: Sequence[Fact] = (),
) -> list[Fact]:
    """``n`` questions (a, b) for a warm-up over ``tables``, in the order they are asked.

    Focus facts first (in the order given: weakest first), each asked again ``FOCUS_GAP``
    questions later the other way round; then the facts due for review (in the order given:
    the longest unseen first); then facts with no evidence (in the order given, taking turns
    with the facts begun and not decided yet); then the rest of the
    tables (shuffled). A fact outside the tables is left out, each fact comes once per pass,
    and when the tables run out before ``n`` they are dealt again, reshuffled. The same fact
    is never asked twice in a row. Deterministic from ``seed``."""
    if n <= 0:
        return []
    rng = random.Random(seed)
    allowed = tier_facts(tables)
    in_tier = set(allowed)
    used: set[Fact] = set()

    def take(facts: Iterable[Fact]) -> list[Fact]:
        out = []
        for a, b in facts:
            fact = (int(a), int(b))
            if fact in in_tier and fact not in used:
                used.add(fact)
                out.append(fact)
        return out

    focus_facts = take(focus)
    used |= {(b, a) for a, b in focus_facts}  # each comes back the other way round anyway
    due_facts = take(due)
    unfinished_facts = take(unfinished)  # in the order given: the closest to a state first
    unseen_facts = take(unseen)  # in the order given
    rest = take(f for f in allowed if f not in used)
    rng.shuffle(rest)
    # Facts begun and facts never met take turns: evidence deepens and spreads at once.
    fresh = [f for pair in zip_longest(unfinished_facts, unseen_facts) for f in pair if f]
    queue = [*focus_facts, *due_facts, *fresh, *rest]
    focus_set = set(focus_facts)

    out: list[Fact] = []
    repeats: dict[int, Fact] = {}  # position -> the focus fact (other order) due there
    while len(out) < n:
        if not queue:  # a new pass over the tables
            queue = list(allowed)
            rng.shuffle(queue)
            if not queue:
                break
        pos = len(out)
        fact = repeats.pop(pos, None)
        if fact is not None and out and fact == out[-1]:  # never twice in a row
            repeats[pos + 1], fact = fact, None
        if fact is None:
            fact = queue.pop(0)
            if out and fact == out[-1] and queue:  # never twice in a row
                queue.append(fact)
                fact = queue.pop(0)
            if fact in focus_set:
                focus_set.discard(fact)  # once repeated is enough
                twin = (fact[1], fact[0])
                later = pos + FOCUS_GAP
                while later in repeats:
                    later += 1
                repeats[later] = twin if twin in in_tier else fact
        out.append(fact)
    return out[:n]
