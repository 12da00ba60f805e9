"""What a child knows: one knowledge model, per fact and per order, as a pure fold over the
child's attempts in time order. No Django, no database; deterministic.

The model (docs/analytics.md, "The knowledge model", with every parameter's source):

- **Bayesian Knowledge Tracing** (Corbett & Anderson 1995) for each fact *as asked* (3 × 7
  and 7 × 3 apart): the probability ``p`` that the child knows it, updated by each piece of
  evidence with a guess (right without knowing) and a slip (wrong although known), then the
  chance of learning from the opportunity. Each kind of evidence has its own guess and slip:
  a typed warm-up answer, a claim in a game (the child picks among the monsters on the board,
  so guessing right is likelier), a capture left on the board (weak evidence: a child who
  knows the fact may simply not have looked at that pair) and a typed answer one key away
  on the number pad (often a slip of the finger: it weighs less against the fact). The
  taps a child makes after being caught for a missed capture are not evidence.
- **Forgetting**: between two pieces of evidence, and up to the moment a report is read, ``p``
  is multiplied by the retrievability of the fact's memory, as FSRS computes it (the ``fsrs``
  library: the power forgetting curve over whole days, with a stability that grows with
  each right answer spread over days; Ye, Su & Cao 2022). A known fact not seen for weeks
  comes back as "not sure yet" and is due again.
- **Priors**: a fact's first evidence starts from the twin's probability when the child has
  answered the other order (most children transfer a fact to its twin: Baroody 1999), mixed
  with the child's own level on the facts that share a number with it, and on all facts
  (an individualised prior, Pardos & Heffernan 2010), shrunk towards the population's rate.
- **Two options, measured and left off** (``size_weight``, ``slow_ratio`` at 0; issue 38,
  docs/analytics.md): a prior that carries the problem-size effect across tables (the
  facts of about the same product, ``SIZE_BANDS``: Campbell & Graham 1985; Ashcraft 1992),
  and slow typed answers as evidence of working a fact out (Siegler 1988; response time in
  knowledge tracing after Wang & Heffernan 2012). On the tuning weeks each traded "not yet"
  precision for recall as a lower threshold does.
- **Speed** is its own dimension: the median time of the latest right retrieval answers
  (warm-up, challenges); a known fact slower than 6 s (the UK Multiplication Tables Check's
  time per question) is "known, slowly". Game times (choosing the cards included) and
  accuracy-first evidence never make a fact slow.

What a teacher reads (``shown``): **known** (or **slow**: known but slowly), **not yet**, or
**not sure yet** (too little evidence either way). A fact never answered is not sure yet,
unless the child's other answers make "not yet" clear (``estimate``).

``fold`` is the one definition: the live update (a batch of new attempts on the stored
state), the repair rebuild (every attempt replayed) and every report call these functions
(tests/classroom/test_knowledge.py checks that batches and a replay give the same state).

Why the update is written here and not taken from ``pyBKT``: pyBKT fits the parameters
(``bench/fit_knowledge.py`` uses it, on the tuning seeds) but predicts over whole data
frames; it has no update of one stored state by one new observation, which is what a
game's end needs, and it would bring numpy, pandas and scikit-learn into every web process
for six lines of arithmetic. The forgetting curve is fsrs's own.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from datetime import UTC
from datetime import date
from datetime import datetime
from datetime import timedelta

from fsrs import Card
from fsrs import Rating
from fsrs import Scheduler
from fsrs import State

FACTORS = range(2, 10)  # the 2–9 times tables
ORDERS: tuple[tuple[int, int], ...] = tuple((a, b) for a in FACTORS for b in FACTORS)

# What a teacher reads of a fact as asked.
KNOWN = "known"  # knows it, quickly enough
SLOW = "slow"  # knows it, but slowly (typed answers over FLUENT_MS)
NOT_YET = "not_yet"
UNSURE = "unsure"  # not sure yet: too little evidence either way
SHOWN_STATES = (NOT_YET, UNSURE, SLOW, KNOWN)  # weakest first

# The contexts of ``Attempt.context`` and how each counts.
TYPED = "warm-up"  # typed on the warm-up's number pad
CAPTURE = "capture"
CHALLENGE = "challenge"
MISSED = "missed"  # a capture left on the board: no answer
FORCED = "forced"  # the taps after being caught for a missed capture: stored, not evidence
RETRIEVAL = frozenset({TYPED, CHALLENGE})  # times that measure recall (speed)

FLUENT_MS = 6000  # slower than this is "slow": the Multiplication Tables Check's 6 s
SPEED_WINDOW = 5  # the speed is the median of the latest right retrieval times
WINDOW = 5  # the square's "right of the latest": this order's latest answers
HISTORY_DAYS = 8  # end-of-day probabilities kept, for "the last 7 days"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Params:
    """The model's parameters; ``PARAMS`` has the values used, with their sources in
    docs/analytics.md. Likelihoods are P(observation | knows it) and P(… | does not)."""

    prior: float  # the population's rate of knowing a fact before any evidence
    learn: float  # BKT transit: the chance of learning it from one opportunity
    guess_typed: float  # typed right without knowing it (derived, counted, guessed)
    slip_typed: float  # typed wrong although known
    guess_claim: float  # claimed right in a game without knowing it
    slip_claim: float  # claimed wrong although known
    missed_known: float  # a capture of it left on the board, knowing it
    missed_unknown: float  # …not knowing it
    keypad_known: float  # of the slips of a child who knows it, the share one key away
    keypad_unknown: float  # of the wrong answers of a child who does not, that share
    twin_weight: float  # a first answer's prior: the twin's probability, this much
    shrink_child: float  # pseudo-facts at ``prior`` in the child's own level
    shrink_table: float  # pseudo-facts at the child's level in a table's level
    shrink_size: float  # pseudo-facts at the child's level in a size band's level
    size_weight: float  # how much a size band's level moves the prior (log-odds, 0: not at all)
    slow_ratio: float  # a typed answer slower than this × the child's usual right time is slow
    slow_right_known: float  # P(a right typed answer is slow | knows it)
    slow_right_unknown: float  # …| does not (a back-up strategy: counting on, adding up)
    slow_wrong_known: float  # P(a wrong typed answer is slow | knows it): a slip
    slow_wrong_unknown: float  # …| does not
    known_above: float  # shown known (or slow) from this probability
    not_yet_below: float  # shown not yet under this one
    min_evidence: int  # at least this many answers of the order to be shown known
    min_not_yet: int  # …and to be shown not yet (one wrong answer can be a slip)
    estimate_below: float  # a fact never answered is shown not yet under this estimate…
    estimate_facts: int  # …when the child has answered at least this many facts
    desired_retention: float  # a known fact is due again when its recall falls below this
    relax_days: float  # old evidence gives way to the child's level: e-folding time in days


PARAMS = Params(
    prior=0.74,
    learn=0.04,
    guess_typed=0.33,
    slip_typed=0.09,
    guess_claim=0.23,
    slip_claim=0.09,
    missed_known=0.5,
    missed_unknown=0.8,
    keypad_known=0.35,
    keypad_unknown=0.13,
    twin_weight=0.7,
    shrink_child=4.0,
    shrink_table=4.0,
    shrink_size=4.0,
    size_weight=0.0,
    slow_ratio=0.0,  # 0: response times are not evidence of knowing
    slow_right_known=0.2,
    slow_right_unknown=0.6,
    slow_wrong_known=0.5,
    slow_wrong_unknown=0.8,
    known_above=0.6,
    not_yet_below=0.45,
    min_evidence=1,
    min_not_yet=1,
    estimate_below=0.55,
    estimate_facts=12,
    desired_retention=0.9,
    relax_days=2.0,
)


@dataclass(frozen=True)
class Evidence:
    """One attempt, as the fold reads it."""

    id: int
    at: datetime  # when it was made (aware)
    a: int
    b: int
    correct: bool
    context: str
    keypad: bool = False  # a wrong typed answer one key away from the product on the pad
    ms: int | None = None  # response time
    untimed: bool = False  # accuracy-first: its speed is never scored
    day: int = 0  # the school-local day (``date.toordinal()``)


@dataclass
class Order:
    """The model's state of one fact as asked, and what the reports show of it."""

    p: float = 0.0  # P(knows it) just after the latest evidence (before forgetting)
    evidence: int = 0  # answers and misses counted (forced taps are not)
    last_at: datetime | None = None  # the latest evidence
    reviewed_at: datetime | None = None  # the latest answer (a miss is no review of the memory)
    stability: float | None = None  # fsrs memory
    difficulty: float | None = None
    memory_state: int = State.Learning.value
    memory_step: int | None = 0
    window: list[int] = field(default_factory=list)  # latest WINDOW: 1 right, 0 wrong or missed
    times: list[int] = field(default_factory=list)  # latest right retrieval times (ms)
    game_times: list[int] = field(default_factory=list)  # latest right capture times
    untimed: bool = False  # accuracy-first evidence among the latest
    # [[day, p × 1000, right, latest]] at the end of its last HISTORY_DAYS days with evidence
    history: list[list[int]] = field(default_factory=list)
    # The first typed answer to it (1 right, 0 wrong; None before one): what the priors of
    # the other facts read (``prior_for``). Only the first: the warm-up asks a fact again
    # when it was wrong, so a share of all the answers would lean towards right ones.
    first: int | None = None

    def to_json(self) -> dict:
        return {
            "p": self.p,
            "n": self.evidence,
            "f": self.first,
            "at": None if self.last_at is None else micros(self.last_at),
            "r": None if self.reviewed_at is None else micros(self.reviewed_at),
            "s": self.stability,
            "d": self.difficulty,
            "ms": self.memory_state,
            "st": self.memory_step,
            "w": self.window,
            "t": self.times,
            "gt": self.game_times,
            "u": int(self.untimed),
            "h": self.history,
        }

    @classmethod
    def from_json(cls, data: dict | None) -> Order:
        if not data:
            return cls()
        at, reviewed = data.get("at"), data.get("r")
        return cls(
            p=float(data.get("p", 0.0)),
            evidence=int(data.get("n", 0)),
            first=data.get("f"),
            last_at=None if at is None else from_micros(at),
            reviewed_at=None if reviewed is None else from_micros(reviewed),
            stability=data.get("s"),
            difficulty=data.get("d"),
            memory_state=int(data.get("ms", State.Learning.value)),
            memory_step=data.get("st", 0),
            window=list(data.get("w", [])),
            times=list(data.get("t", [])),
            game_times=list(data.get("gt", [])),
            untimed=bool(data.get("u", 0)),
            history=[list(x) for x in data.get("h", [])],
        )


def micros(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(microseconds=1)


def from_micros(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=int(us))


# --- forgetting (fsrs) ---------------------------------------------------------------------------

_SCHEDULERS: dict[float, Scheduler] = {}


def scheduler(params: Params = PARAMS) -> Scheduler:
    found = _SCHEDULERS.get(params.desired_retention)
    if found is None:
        found = Scheduler(desired_retention=params.desired_retention, enable_fuzzing=False)
        _SCHEDULERS[params.desired_retention] = found
    return found


def _card(order: Order) -> Card:
    return Card(
        card_id=0,
        state=State(order.memory_state),
        step=order.memory_step,
        stability=order.stability,
        difficulty=order.difficulty,
        due=order.reviewed_at,
        last_review=order.reviewed_at,
    )


def retrievability(order: Order, now: datetime, params: Params = PARAMS) -> float:
    """fsrs's probability of recalling a learned fact at ``now`` (1 without a memory yet)."""
    if order.reviewed_at is None or order.stability is None:
        return 1.0
    return scheduler(params).get_card_retrievability(_card(order), max(now, order.reviewed_at))


def p_now(
    order: Order,
    now: datetime | None = None,
    params: Params = PARAMS,
    level: float | None = None,
) -> float:
    """The probability that the child knows the fact at ``now``: ``p`` with the days since
    its latest evidence. Old evidence gives way to ``level``, what the child's other facts
    say of it (``level_for``) when that is higher, as 1 − e^(−days / relax_days): the child
    may have learned it since (a child taught the 7s on Tuesday is not held to Monday's
    answers); then fsrs's forgetting of what is known (the way down). Whole days only:
    within a day, nothing."""
    p = order.p
    if now is None or order.last_at is None:
        return p
    days = (now - order.last_at).days
    if level is not None and level > p and days > 0 and params.relax_days > 0:
        p += (level - p) * (1 - math.exp(-days / params.relax_days))
    return p * retrievability(order, now, params)


def due_at(order: Order, params: Params = PARAMS) -> datetime | None:
    """When the fact's recall falls below the desired retention (fsrs's interval): a known
    fact is asked again then."""
    if order.reviewed_at is None or order.stability is None:
        return None
    return order.reviewed_at + timedelta(days=max(1.0, order.stability))


# --- the update ----------------------------------------------------------------------------------


def likelihoods(
    ev: Evidence, params: Params = PARAMS, pace: int | None = None
) -> tuple[float, float] | None:
    """(P(this evidence | knows it), P(… | does not)), or None when it is no evidence.
    ``pace``: the child's usual time of a right typed answer (``pace_of``), for the speed of
    a timed typed answer (``timed``)."""
    if ev.context == FORCED:
        return None
    if ev.context == MISSED:
        return params.missed_known, params.missed_unknown
    if ev.context == TYPED:
        guess, slip = params.guess_typed, params.slip_typed
        if ev.correct:
            return timed(ev, (1 - slip, guess), pace, params)
        if ev.keypad:
            return timed(
                ev, (slip * params.keypad_known, (1 - guess) * params.keypad_unknown), pace, params
            )
        return timed(
            ev,
            (slip * (1 - params.keypad_known), (1 - guess) * (1 - params.keypad_unknown)),
            pace,
            params,
        )
    guess, slip = params.guess_claim, params.slip_claim  # a claim: capture or challenge
    return (1 - slip, guess) if ev.correct else (slip, 1 - guess)


def timed(
    ev: Evidence, like: tuple[float, float], pace: int | None, params: Params
) -> tuple[float, float]:
    """A typed answer's likelihoods with its speed: an answer much slower than the child's
    usual right answer (``slow_ratio`` × ``pace``) is more likely from a child who does not
    know the fact and works it out (Siegler 1988: back-up strategies are slower than
    retrieval): the response time as evidence in knowledge tracing, binned, after Wang &
    Heffernan (2012, "Leveraging first response time into the knowledge tracing model").
    Only a slow answer is read: reading quick ones as well (a guessing child's quick answers
    made facts look known) lowered recall on the tuning weeks. Off while ``slow_ratio`` is 0
    (measured, not adopted: docs/analytics.md). Untimed (accuracy-first) answers and children
    without a pace yet are read on their answer alone."""
    if not params.slow_ratio or pace is None or ev.ms is None or ev.untimed:
        return like
    if ev.ms <= params.slow_ratio * pace:
        return like
    if ev.correct:
        known, unknown = params.slow_right_known, params.slow_right_unknown
    else:
        known, unknown = params.slow_wrong_known, params.slow_wrong_unknown
    return like[0] * known, like[1] * unknown


PACE_MIN = 8  # right typed answers the child's pace needs


def pace_of(orders: dict[tuple[int, int], Order]) -> int | None:
    """The child's usual time of a right typed answer: the median of the latest right
    retrieval times of all their facts (None under ``PACE_MIN`` of them)."""
    times = [t for o in orders.values() for t in o.times]
    if len(times) < PACE_MIN:
        return None
    return int(statistics.median(times))


def observe(
    order: Order, ev: Evidence, prior: float, params: Params = PARAMS, pace: int | None = None
) -> Order:
    """The order's state after one piece of evidence. ``prior``: its P(knows) before any
    evidence (``prior_for``), or, once it has some, the level its old evidence gives way to
    (``level_for``); ``pace``: the child's usual right time (``pace_of``). Returns a new
    Order; ``order`` is not changed."""
    like = likelihoods(ev, params, pace)
    if like is None:
        return order
    known, unknown = like
    p = p_now(order, ev.at, params, prior) if order.evidence else prior
    posterior = p * known / (p * known + (1 - p) * unknown)
    # Rounded as it is stored (``to_json``), so a state read back from its row folds on
    # exactly as one kept in memory: the live update and the replay agree to the last digit.
    p = round(posterior + (1 - posterior) * params.learn, 6)
    new = replace(
        order,
        p=p,
        evidence=order.evidence + 1,
        last_at=ev.at if order.last_at is None else max(order.last_at, ev.at),
        window=[*order.window, int(ev.correct)][-WINDOW:],
    )
    if ev.context == TYPED and order.first is None:  # not a claim: a claim is made when
        # what the child recalls is on the board, so claims lean towards right ones
        new.first = int(ev.correct)
    if ev.context != MISSED:
        card, _log = scheduler(params).review_card(
            _card(order), Rating.Good if ev.correct else Rating.Again, ev.at
        )
        new.stability, new.difficulty = card.stability, card.difficulty
        new.memory_state, new.memory_step = card.state.value, card.step
        new.reviewed_at = ev.at
    if ev.correct and ev.ms is not None:
        if ev.context in RETRIEVAL:
            new.times = [*order.times, int(ev.ms)][-SPEED_WINDOW:]
        else:
            new.game_times = [*order.game_times, int(ev.ms)][-SPEED_WINDOW:]
    if ev.context != MISSED:
        new.untimed = ev.untimed
    history = [h for h in order.history if h[0] != ev.day]
    end_of_day = [ev.day, round(p * 1000), sum(new.window), len(new.window)]
    new.history = [*history, end_of_day][-HISTORY_DAYS:]
    return new


def level_of(right: int, count: int, prior_p: float, shrink: float, params: Params) -> float:
    """The probability of knowing a fact that makes ``right`` of ``count`` first typed
    answers (each fact's first answer: a fact asked ten times counts once, and its first
    answer was asked before anything was known of it) the expected share of right answers
    (BKT's P(right) = p (1 − slip) + (1 − p) guess, turned round), shrunk towards the share
    ``prior_p`` expects by ``shrink`` pseudo-facts."""
    expected = expected_accuracy(prior_p, params)
    share = (expected * shrink + right) / (shrink + count)
    p = (share - params.guess_typed) / (1 - params.slip_typed - params.guess_typed)
    return min(0.99, max(0.01, p))


@dataclass(frozen=True)
class Shares:
    """The child's first typed answers added up (``shares_of``), so that ``level_for`` of
    each of the 64 facts costs a few additions, not a pass over the others."""

    total: int  # right first answers
    count: int  # facts with a first answer
    by_number: dict[int, tuple[int, int]]  # n → (right, count) over the facts with n in them
    own: dict[tuple[int, int], int]  # (a, b) → its first answer
    by_band: dict[int, tuple[int, int]] = field(default_factory=dict)  # size band → (right, count)


# The problem-size effect: the larger the product, the harder the fact, for children and
# adults alike (Campbell & Graham 1985; Ashcraft 1992; Zbrodoff & Logan 2005). The 64 facts
# as asked in four bands of about 16 by their product: up to 15, 16–25, 27–40, 42–81.
SIZE_BANDS = (15, 25, 40, 81)


def size_band(a: int, b: int) -> int:
    """The size band of a × b (0: the smallest products)."""
    product = a * b
    return next((i for i, top in enumerate(SIZE_BANDS) if product <= top), len(SIZE_BANDS) - 1)


def shares_of(orders: dict[tuple[int, int], Order]) -> Shares:
    by_number: dict[int, list[int]] = {}
    by_band: dict[int, list[int]] = {}
    own = {}
    for (x, y), o in orders.items():
        if o.first is None:
            continue
        own[(x, y)] = o.first
        for right_count in (
            *(by_number.setdefault(n, [0, 0]) for n in {x, y}),
            by_band.setdefault(size_band(x, y), [0, 0]),
        ):
            right_count[0] += o.first
            right_count[1] += 1
    return Shares(
        total=sum(own.values()),
        count=len(own),
        by_number={n: (rc[0], rc[1]) for n, rc in by_number.items()},
        own=own,
        by_band={n: (rc[0], rc[1]) for n, rc in by_band.items()},
    )


def level_for(
    orders: dict[tuple[int, int], Order],
    a: int,
    b: int,
    params: Params = PARAMS,
    shares: Shares | None = None,
) -> float:
    """What the child's other facts say of a × b (its own answers and its twin's left out):
    the child's share of right first typed answers on the facts that share a number with
    it, shrunk to their share over all facts, itself shrunk to the population's rate, read
    as a probability of knowing it (an individualised prior, after Pardos & Heffernan 2010).
    The level a fact's old evidence gives way to (``p_now``). With ``size_weight`` (off in
    ``PARAMS``), the child's share on the facts of its size band moves it too. ``shares``:
    ``shares_of`` the same orders, when several facts are asked of them."""
    shares = shares or shares_of(orders)
    mine = [shares.own[f] for f in {(a, b), (b, a)} if f in shares.own]
    right, count = shares.total - sum(mine), shares.count - len(mine)
    level = level_of(right, count, params.prior, params.shrink_child, params)
    ra, ca = shares.by_number.get(a, (0, 0))
    if a == b:
        table_right, table_count = ra - sum(mine), ca - len(mine)
    else:
        rb, cb = shares.by_number.get(b, (0, 0))
        # (a, b) and (b, a) hold both numbers: counted twice, and left out
        table_right, table_count = ra + rb - 2 * sum(mine), ca + cb - 2 * len(mine)
    table = level_of(table_right, table_count, level, params.shrink_table, params)
    if not params.size_weight:
        return table
    # The facts of about its size (the problem-size effect): how far the child's share on
    # them is from their share over all facts moves the table's level, in log-odds, as the
    # item effects of the additive factors model add up (Cen, Koedinger & Junker 2006).
    band_right, band_count = shares.by_band.get(size_band(a, b), (0, 0))
    band_right, band_count = band_right - sum(mine), band_count - len(mine)
    band = level_of(band_right, band_count, level, params.shrink_size, params)
    moved = logit(table) + params.size_weight * (logit(band) - logit(level))
    return min(0.99, max(0.01, 1 / (1 + math.exp(-moved))))


def prior_for(
    orders: dict[tuple[int, int], Order],
    a: int,
    b: int,
    now: datetime | None,
    params: Params = PARAMS,
    shares: Shares | None = None,
) -> float:
    """The probability that the child knows a × b before any answer of it: ``level_for``,
    mixed with the twin's probability when they answered it (most children carry a fact
    over to its twin: Baroody 1999)."""
    table = level_for(orders, a, b, params, shares)
    twin = orders.get((b, a)) if a != b else None
    if twin is not None and twin.evidence:
        return params.twin_weight * p_now(twin, now, params) + (1 - params.twin_weight) * table
    return table


def fold(
    orders: dict[tuple[int, int], Order],
    evidence: Iterable[Evidence],
    params: Params = PARAMS,
) -> dict[tuple[int, int], Order]:
    """The child's orders after ``evidence``, taken in time order (equal times: by id). The
    input is not changed. The state after two batches is the state after both at once
    when the second batch is not older than the first (the caller replays otherwise)."""
    out = dict(orders)
    for ev in sorted(evidence, key=lambda e: (e.at, e.id)):
        key = (ev.a, ev.b)
        order = out.get(key) or Order()
        if order.evidence:
            start = level_for(out, ev.a, ev.b, params)
        else:
            start = prior_for(out, ev.a, ev.b, ev.at, params)
        pace = pace_of(out) if params.slow_ratio else None
        out[key] = observe(order, ev, start, params, pace)
    return out


# --- what a teacher reads -------------------------------------------------------------------------


def speed_ms(order: Order) -> tuple[int | None, bool]:
    """The order's speed: the median of its latest right retrieval times, else of its game
    times; and whether it is of game times."""
    if order.times:
        return int(statistics.median(order.times)), False
    if order.game_times:
        return int(statistics.median(order.game_times)), True
    return None, False


def shown(
    order: Order | None,
    now: datetime | None = None,
    params: Params = PARAMS,
    level: float | None = None,
) -> str:
    """What the square of a fact the child has answered says (``estimate`` for one never
    answered); ``level``: what the child's other facts say of it (``level_for``). The
    colour never contradicts the number under it, its latest answers: "not yet" only when at
    most 60 % of them were right (the line under which a fact is not known yet), "knows it"
    only when at least 60 % were (else "not sure yet": a child right once on a fact of a table
    they find hard is not shown not to know it)."""
    if order is None or not order.evidence:
        return UNSURE
    p = p_now(order, now, params, level)
    right, latest = sum(order.window), len(order.window)
    if p < params.not_yet_below:
        if order.evidence >= params.min_not_yet and 5 * right <= 3 * latest:
            return NOT_YET
        return UNSURE
    if (
        p >= params.known_above
        and order.evidence >= params.min_evidence
        and 5 * right >= 3 * latest
    ):
        speed, from_game = speed_ms(order)
        if speed is not None and not from_game and not order.untimed and speed > FLUENT_MS:
            return SLOW
        return KNOWN
    return UNSURE


@dataclass(frozen=True)
class Square:
    """One fact as asked, as the child's report shows it."""

    a: int
    b: int
    state: str
    p: float  # P(knows it) now (the estimate for a fact never answered)
    answered: bool  # evidence of this order itself
    right: int  # of the latest answers of this order (``WINDOW``)
    latest: int
    speed_ms: int | None
    speed_from_game: bool


def estimate(
    orders: dict[tuple[int, int], Order],
    a: int,
    b: int,
    now=None,
    params: Params = PARAMS,
    shares: Shares | None = None,
) -> tuple[str, float]:
    """A fact the child never answered: not yet when their other answers say so clearly
    (enough facts answered, ESTIMATE_SHARING of them sharing a number with it, and a low
    estimate), else not sure yet; and the estimate. A child wrong on the 7s says nothing of
    2 × 2."""
    shares = shares or shares_of(orders)
    p = prior_for(orders, a, b, now, params, shares)
    answered = sum(1 for o in orders.values() if o.evidence)
    mine = sum(1 for f in {(a, b), (b, a)} if f in shares.own)
    if a == b:
        sharing = shares.by_number.get(a, (0, 0))[1] - mine
    else:
        sharing = shares.by_number.get(a, (0, 0))[1] + shares.by_number.get(b, (0, 0))[1] - 2 * mine
    if (
        answered >= params.estimate_facts
        and sharing >= ESTIMATE_SHARING
        and p < params.estimate_below
    ):
        return NOT_YET, p
    return UNSURE, p


def squares(
    orders: dict[tuple[int, int], Order], now=None, params: Params = PARAMS
) -> dict[tuple[int, int], Square]:
    """Every fact as asked (the 64 of the 2–9 tables), as the report shows it."""
    out = {}
    shares = shares_of(orders)
    for a, b in ORDERS:
        order = orders.get((a, b))
        if order is not None and order.evidence:
            speed, from_game = speed_ms(order)
            level = level_for(orders, a, b, params, shares)
            out[(a, b)] = Square(
                a,
                b,
                shown(order, now, params, level),
                p_now(order, now, params, level),
                True,
                sum(order.window),
                len(order.window),
                speed,
                from_game,
            )
        else:
            state, p = estimate(orders, a, b, now, params, shares)
            out[(a, b)] = Square(a, b, state, p, False, 0, 0, None, False)
    return out


ORDER_PATTERN_FACTS = 3  # facts known one way and not yet the other to name the pattern
# A fact never answered is "not yet" only with this many answered in its tables.
ESTIMATE_SHARING = 4


def order_gaps(shown_states: dict[tuple[int, int], Square]) -> list[tuple[int, int]]:
    """The facts known as asked (a × b) and not yet the other way round (b × a), both
    answered: [(a, b), …], the known order first."""
    out = []
    for (a, b), square in sorted(shown_states.items()):
        twin = shown_states.get((b, a))
        if (
            a != b
            and twin is not None
            and square.answered
            and twin.answered
            and square.state in (KNOWN, SLOW)
            and twin.state == NOT_YET
        ):
            out.append((a, b))
    return out


def order_pattern(shown_states: dict[tuple[int, int], Square]) -> bool:
    """Name "knows 3 × 7 but not 7 × 3" when enough facts show it."""
    return len(order_gaps(shown_states)) >= ORDER_PATTERN_FACTS


def focus(
    orders: dict[tuple[int, int], Order],
    now=None,
    limit: int = 3,
    params: Params = PARAMS,
    shown_squares: dict[tuple[int, int], Square] | None = None,
) -> list[tuple[int, int]]:
    """The facts to practise next: answered, shown not yet, the least known first (one per
    fact and its twin: the weaker order). ``shown_squares``: ``squares`` of the same
    orders, when already made."""
    shown_squares = shown_squares or squares(orders, now, params)
    picked: dict[tuple[int, int], tuple[float, tuple[int, int]]] = {}
    for (a, b), square in shown_squares.items():
        if not square.answered or square.state != NOT_YET:
            continue
        p = square.p
        pooled = (min(a, b), max(a, b))
        if pooled not in picked or p < picked[pooled][0]:
            picked[pooled] = (p, (a, b))
    ranked = sorted(picked.values(), key=lambda x: (x[0], x[1]))
    return [fact for _p, fact in ranked[:limit]]


def expected_accuracy(p: float, params: Params = PARAMS) -> float:
    """The chance of a right typed answer for a child who knows the fact with probability p."""
    return p * (1 - params.slip_typed) + (1 - p) * params.guess_typed


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


# --- a child at a glance ------------------------------------------------------------------------

HELP_BELOW = 0.6  # needs help: likely right on under 60 % of the 64 facts…
HELP_MIN_FACTS = 12  # …judged once the child has answered at least this many of them
STUCK_IN_A_ROW = 3  # stuck on a fact: its latest answers this many times wrong or missed…
STUCK_WITHIN = timedelta(days=7)  # …the latest of them in the last 7 days


def wrong_run(order: Order) -> int:
    """How many of the order's latest answers in a row were wrong or missed."""
    run = 0
    for outcome in reversed(order.window):
        if outcome:
            break
        run += 1
    return run


def stuck(
    orders: dict[tuple[int, int], Order], now: datetime | None
) -> tuple[int, int, int] | None:
    """The fact the child is stuck on, as (a, b, run): its latest STUCK_IN_A_ROW answers or
    more wrong or missed, the latest in the last 7 days; the longest run, then the smallest
    fact. None when stuck on nothing."""
    found = []
    for (a, b), order in orders.items():
        run = wrong_run(order)
        recent = now is None or (order.last_at is not None and now - order.last_at <= STUCK_WITHIN)
        if run >= STUCK_IN_A_ROW and recent:
            found.append((-run, (min(a, b), max(a, b)), (a, b)))
    if not found:
        return None
    run, _pooled, (a, b) = min(found)
    return a, b, -run


@dataclass(frozen=True)
class Summary:
    """What the reports say of one child (``summarise``): every square, the focus facts,
    the order pattern, the flag and its figures, the stuck fact and the main kind of error."""

    squares: dict[tuple[int, int], Square]
    focus: list[tuple[int, int]]
    order_gaps: list[tuple[int, int]]
    answered: int  # facts as asked with evidence
    known: int  # squares known or slow, of the 64
    not_yet: int
    likely: float  # the expected share of right answers over the 64 facts
    stuck: tuple[int, int, int] | None
    main_error: str | None
    # The wrong answers as the reports name them (``error_kinds.name_answers``): how many of
    # each kind, and the kind of each (fact as asked, answer).
    errors: dict[str, int] = field(default_factory=dict)
    named: dict[tuple[int, int, int], str] = field(default_factory=dict)

    @property
    def order_pattern(self) -> bool:
        return len(self.order_gaps) >= ORDER_PATTERN_FACTS

    @property
    def needs_help(self) -> bool:
        return self.answered >= HELP_MIN_FACTS and self.likely < HELP_BELOW

    @property
    def likely_percent(self) -> int:
        """The likely share right, rounded down (a child under 60 % never reads "60 %")."""
        return int(self.likely * 100)


def summarise(
    orders: dict[tuple[int, int], Order],
    wrong: Iterable = (),
    now: datetime | None = None,
    params: Params = PARAMS,
    limit: int = 3,
) -> Summary:
    """A child at a glance from their orders and their wrong answers
    (``error_kinds.Answer``, oldest first), each named with the child's own shares of the
    kinds (``error_kinds.name_answers``)."""
    from classroom import error_kinds

    wrong = list(wrong)
    kinds = error_kinds.name_answers(wrong)
    named: dict[tuple[int, int, int], str] = {}
    for x, kind in zip(wrong, kinds, strict=True):
        if x.answer is not None:
            named[(x.a, x.b, x.answer)] = kind
    shown_squares = squares(orders, now, params)
    stuck_fact = stuck(orders, now)
    ranked = focus(orders, now, limit, params, shown_squares)
    if stuck_fact is not None:  # the fact a child is stuck on is always among the focus facts
        a, b, _run = stuck_fact
        ranked = [(a, b), *(f for f in ranked if {f[0], f[1]} != {a, b})][:limit]
    states = [s.state for s in shown_squares.values()]
    return Summary(
        squares=shown_squares,
        focus=ranked,
        order_gaps=order_gaps(shown_squares),
        answered=sum(1 for s in shown_squares.values() if s.answered),
        known=sum(1 for s in states if s in (KNOWN, SLOW)),
        not_yet=states.count(NOT_YET),
        likely=statistics.fmean(expected_accuracy(s.p, params) for s in shown_squares.values()),
        stuck=stuck_fact,
        main_error=error_kinds.main_error(kinds),
        errors={k: n for k, n in error_kinds.error_profile(kinds).items() if n},
        named=named,
    )


def state_on(order: Order | None, day: int | date) -> str | None:
    """What the order's square said at the end of ``day`` (a school-local day), from its
    day-by-day history: None before its first evidence. Forgetting within the week is left
    out (a week is far shorter than the memory's stability once known)."""
    if order is None:
        return None
    ordinal = day.toordinal() if isinstance(day, date) else int(day)
    before = [h for h in order.history if h[0] <= ordinal]
    if not before:
        return None
    _day, p, right, latest = before[-1]
    window = [1] * right + [0] * (latest - right)
    return shown(replace(order, p=p / 1000, window=window, history=[]), None)
