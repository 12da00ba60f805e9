"""Simulated children for the ``evidence_week`` benchmark: pure Python, deterministic from a seed.

No Django import: a class of children is a list of frozen ``Child`` values, and every answer,
every response time and every choice in a game is drawn from a ``random.Random`` the caller
passes in (bench/evidence_week.py seeds one per child, session and round).

The model (docs/performance.md, "evidence_week"):

- The 36 facts are the pooled facts of the 2–9 tables, a ≤ b (7 × 8 and 8 × 7 are one fact:
  a child who knows one knows the other as well, here).
- Each child has an **ability**: the true accuracy on the facts they know. About one child in
  five (``LOW_EVERY``: children 2, 7, 12, … of the class) is a child who struggles overall,
  ability 0.50–0.62; the others 0.80–0.97. Larger facts are a little harder (the problem-size
  effect): up to ``SIZE_DROP`` less for 9 × 9 than for 2 × 2 (each child draws their own drop).
- Each child has their own **true weak facts**: 3 to 6 facts, drawn without replacement with
  the larger facts more likely (weight = the product), each with a true accuracy of 0.10–0.40
  (0.05–0.30 for a child who struggles overall).
- The **true overall accuracy** is the mean of the 36 facts' true accuracies (every fact
  counted once). It is under 60 % for the children who struggle overall and above it for the
  others (the model's ranges make sure of that); it is the truth of "needs help".
- **Retrieval time** (a lognormal, sigma 0.35): a fact the child knows has a median of
  ``KNOWN_MS`` × the child's own speed × (1 + 0.4 × a × b / 81) — 1.5 to 3 s; a weak fact or a
  wrong answer ``WEAK_MS`` × speed. Speed is 0.8–1.3 (× 1.25 for a child who struggles).
- A **wrong answer** comes from the published-error model ``classroom.diagnosis_model``: a
  mechanism drawn from its ``MIX`` (each child leans on one mechanism twice as much as the
  model's mix says: their own ``habit``), then that mechanism's answer to the fact
  (``classroom.diagnosis_model._answer``, the model's own per-fact generator).
- **In a warm-up** the child types what they believe: the product with the fact's true
  accuracy, else a wrong answer; the server measures the retrieval time plus ``TYPING_MS``.
- **In a MultipliPotion game** a claim is right or wrong according to the child's true
  accuracy on its fact: for each capture the board offers the child (two of their potions
  whose product is a monster in the opponent's area), in a random order, the child recalls
  the product with the fact's true accuracy and claims it right; otherwise, half of the time
  (``WRONG_CLAIM``), claims those two potions on another monster — the error model's wrong
  answer when such a monster lies there, else any other — and else lets it pass (the game
  records a missed capture when the turn ends without a capture). So a fact's evidence in a
  game (its claims and misses) is right with the fact's true accuracy. At most
  ``CLAIMS_PER_TURN`` claims a turn (a second look after a wrong one), then the turn ends.
  When caught (the opponent spotted a missed capture) the child must capture: the same, but
  a wrong recall always makes a wrong claim, and with nothing recalled a guess among the
  claims not tried yet. The child places the card whose potion makes, by their beliefs (as in
  the warm-up), a product on the board, else one at random; the child never challenges (the
  Coach never leaves a capture, so there is nothing to find).
- **Think times** of a move (the clock moves on by them; the Coach's moves take none): a place
  ``PLACE_MS`` (it holds the wait for the Coach's turn to show), a claim ``TAP_MS`` plus the
  retrieval time, ending the turn ``END_MS`` plus ``LOOK_MS`` for each pair of own potions.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import combinations

from classroom import diagnosis_model
from classroom.diagnosis_model import MIX

FACTORS = range(2, 10)
FACTS: tuple[tuple[int, int], ...] = tuple((a, b) for a in FACTORS for b in FACTORS if a <= b)
assert len(FACTS) == 36

LOW_EVERY, LOW_OFFSET = 5, 2  # children 2, 7, 12, … struggle overall
ABILITY = (0.80, 0.97)
LOW_ABILITY = (0.50, 0.62)
SIZE_DROP = 0.10  # at most this much less accurate on 9 × 9 than on 2 × 2
WEAK_COUNT = (3, 6)
WEAK_ACCURACY = (0.10, 0.40)
LOW_WEAK_ACCURACY = (0.05, 0.30)
HABIT_WEIGHT = 2.0  # the child's own mechanism: twice its share of MIX
SPEED = (0.8, 1.3)
LOW_SLOWER = 1.25
KNOWN_MS = 1500  # median retrieval of a known fact (× speed × the size factor)
WEAK_MS = 6000  # median retrieval of a weak fact, and of a wrong answer (× speed)
SIGMA = 0.35  # lognormal spread of a retrieval time
TYPING_MS = 700  # typing the answer on the warm-up's number pad and OK
TAP_MS = 3000  # tapping two potions and a monster for a claim
# Placing a card: a fixed part and the mean of an exponential part. It is the first move of
# the child's turn, so it holds the wait for the Coach's turn to show (the board polls), the
# card drawn and the choice: calibrated so that a game gives about 0.4 attempts a minute, the
# figure the issue reports for today's games (class seed 101, decks 0-199, offline against
# the Grand Wizard).
PLACE_MS = (20000, 10000)
END_MS = 6000  # ending a turn, plus LOOK_MS per pair of own potions looked at
LOOK_MS = 500
CLAIMS_PER_TURN = 2
WRONG_CLAIM = 0.5  # a capture offered but not recalled: claimed wrong, else left (missed)


def pooled(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class Child:
    index: int
    low: bool  # one of the children who struggle overall
    ability: float
    weak: frozenset[tuple[int, int]]  # pooled, a ≤ b
    accuracy: dict  # pooled fact -> true accuracy
    speed: float
    habit: str  # the error mechanism the child leans on
    mix: dict  # mechanism -> weight (MIX with the habit doubled)

    @property
    def true_accuracy(self) -> float:
        """The mean true accuracy over the 36 facts (each fact once)."""
        return sum(self.accuracy[f] for f in FACTS) / len(FACTS)

    @property
    def needs_help(self) -> bool:
        return self.true_accuracy < 0.6

    def knows(self, a: int, b: int) -> float:
        return self.accuracy[pooled(a, b)]

    # --- answers --------------------------------------------------------------------------
    def wrong_answer(self, a: int, b: int, rng: random.Random) -> int:
        """A wrong answer to a × b from the published-error model, with the child's mix."""
        names, weights = list(self.mix), list(self.mix.values())
        for _attempt in range(50):
            mechanism = rng.choices(names, weights=weights)[0]
            answer = diagnosis_model._answer(rng, mechanism, a, b)
            if answer is not None and answer != a * b and answer >= 0:
                return answer
        return a * b + 1  # every mechanism failed 50 times (never seen): a near miss

    def believe(self, a: int, b: int, rng: random.Random) -> int:
        """What the child believes a × b is: right with the fact's true accuracy."""
        if rng.random() < self.knows(a, b):
            return a * b
        return self.wrong_answer(a, b, rng)

    def retrieval_ms(self, a: int, b: int, right: bool, rng: random.Random) -> int:
        """How long the child takes to come up with an answer to a × b."""
        if right and pooled(a, b) not in self.weak:
            median = KNOWN_MS * self.speed * (1 + 0.4 * a * b / 81)
        else:
            median = WEAK_MS * self.speed
        return int(median * math.exp(rng.gauss(0, SIGMA)))

    def warm_up_answer(self, a: int, b: int, rng: random.Random) -> tuple[int, int]:
        """(typed answer, ms from the question shown to OK) for a warm-up question."""
        answer = self.believe(a, b, rng)
        return answer, self.retrieval_ms(a, b, answer == a * b, rng) + TYPING_MS

    # --- a MultipliPotion game ---------------------------------------------------------------
    def game_move(self, view: dict, legal: list, tried: list, rng: random.Random):
        """(action, think ms) for the child's seat. ``tried``: the claims made this turn
        (the caller clears it at the start of each of the child's turns)."""
        me, phase = view["seat"], view["phase"]
        if phase == "place":
            return self._place(view, legal, rng)
        ends = [x for x in legal if x["type"] == "end_turn"]
        if phase == "forced_capture" or (
            phase == "capture_or_end" and len(tried) < CLAIMS_PER_TURN
        ):
            claim, ms = self._claim(view, legal, tried, rng, forced=phase == "forced_capture")
            if claim is not None:
                return claim, ms
        pairs = len(list(combinations(view["areas"][me], 2)))
        return (ends[0] if ends else legal[0]), END_MS + LOOK_MS * pairs

    def _claim(self, view: dict, legal: list, tried: list, rng: random.Random, *, forced):
        """A claim on one of the captures the board offers (None: the child sees none), and
        its time: the retrieval of the fact plus the taps. Each offered capture, in a random
        order: the child recalls its product with the fact's true accuracy and claims it
        right; otherwise claims it wrong (WRONG_CLAIM of the time, or always when caught)
        on another monster, the error model's answer when it lies there, or lets it pass."""
        me = view["seat"]
        potion = {c["id"]: c["potion"] for c in view["areas"][me]}
        monster = {c["id"]: c["monster"] for c in view["areas"][1 - me]}
        captures = [x for x in legal if x["type"] == "capture" and x not in tried]
        offered = [
            x
            for x in captures
            if potion[x["potions"][0]] * potion[x["potions"][1]] == monster[x["monster"]]
        ]
        rng.shuffle(offered)
        for right in offered:
            p, q = (potion[c] for c in right["potions"])
            if rng.random() < self.knows(p, q):
                return right, TAP_MS + self.retrieval_ms(p, q, True, rng)
            wrong = [
                x
                for x in captures
                if x["potions"] == right["potions"] and x["monster"] != right["monster"]
            ]
            if wrong and (forced or rng.random() < WRONG_CLAIM):
                answer = self.wrong_answer(p, q, rng)
                claim = next(
                    (x for x in wrong if monster[x["monster"]] == answer), rng.choice(wrong)
                )
                return claim, TAP_MS + self.retrieval_ms(p, q, False, rng)
        if forced and captures:  # caught, and nothing recalled: a guess among the untried
            return rng.choice(captures), END_MS + TAP_MS + LOOK_MS * len(captures)
        return None, 0

    def _place(self, view: dict, legal: list, rng: random.Random):
        me = view["seat"]
        mine = [c["potion"] for c in view["areas"][me]]
        monsters = {c["monster"] for c in view["areas"][1 - me]}
        hand = {c["id"]: c["potion"] for c in view.get("hand", ())}
        places = [x for x in legal if x["type"] == "place"]
        good = [
            x
            for x in places
            if any(self.believe(hand[x["card"]], q, rng) in monsters for q in mine)
        ]
        ms = PLACE_MS[0] + int(rng.expovariate(1 / PLACE_MS[1]))
        return rng.choice(good or places or legal), ms


def make_child(index: int, seed: int) -> Child:
    rng = random.Random(f"{seed}:child:{index}")
    low = index % LOW_EVERY == LOW_OFFSET
    ability = rng.uniform(*(LOW_ABILITY if low else ABILITY))
    drop = rng.uniform(0, SIZE_DROP)
    k = rng.randint(*WEAK_COUNT)
    pool = list(FACTS)
    weak = set()
    while len(weak) < k:  # weighted by the product, without replacement
        fact = rng.choices(pool, weights=[a * b for a, b in pool])[0]
        weak.add(fact)
        pool.remove(fact)
    accuracy = {}
    for a, b in FACTS:
        if (a, b) in weak:
            accuracy[(a, b)] = rng.uniform(*(LOW_WEAK_ACCURACY if low else WEAK_ACCURACY))
        else:
            accuracy[(a, b)] = min(0.99, max(0.3, ability - drop * (a * b - 4) / 77))
    habit = rng.choices(list(MIX), weights=list(MIX.values()))[0]
    mix = {m: w * (HABIT_WEIGHT if m == habit else 1.0) for m, w in MIX.items()}
    speed = rng.uniform(*SPEED) * (LOW_SLOWER if low else 1.0)
    return Child(index, low, ability, frozenset(weak), accuracy, speed, habit, mix)


def make_class(n: int, seed: int) -> list[Child]:
    """``n`` children, deterministic from ``seed``."""
    return [make_child(i, seed) for i in range(n)]
