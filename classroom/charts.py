"""Server-rendered charts for the teachers' reports: the fact heatmap and the weekly trend line.

Pure functions, no ORM: the views read the statistics and hand plain values here; the
templates draw the result (an HTML table of links for the heatmap, an SVG for the trend).
Nothing here produces a ``style`` attribute: colours are CSS classes (the CSP forbids
inline styles), and every cell carries a text mark so colour is never the only cue.
"""

from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from datetime import timedelta
from fractions import Fraction

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.utils.translation import pgettext

from classroom.diagnosis import CHECK_AGAIN
from classroom.diagnosis import CLOSE
from classroom.diagnosis import FLUENT
from classroom.diagnosis import FLUENT_ACCURACY
from classroom.diagnosis import FLUENT_MEDIAN_MS
from classroom.diagnosis import FLUENT_MIN_ATTEMPTS
from classroom.diagnosis import LEARNING
from classroom.diagnosis import MASTERED
from classroom.diagnosis import MASTERED_MEDIAN_MS
from classroom.diagnosis import NOT_SEEN
from classroom.diagnosis import OMISSION
from classroom.diagnosis import OPERAND
from classroom.diagnosis import OPERATION
from classroom.diagnosis import OTHER
from classroom.diagnosis import REVERSED
from classroom.diagnosis import RIGHT_SO_FAR
from classroom.diagnosis import STATES
from classroom.diagnosis import TABLE
from classroom.diagnosis import TABLE_ERROR
from classroom.diagnosis import WRONG_SO_FAR
from classroom.diagnosis import ZERO_ONE
from classroom.diagnosis import classify
from classroom.diagnosis import neighbour_fact

# --- words -------------------------------------------------------------------------------


# A display-only state of the heatmap: learning, with the accuracy of a fluent fact but too
# slow for it (the only rule of fluency it misses), so a slow-but-right fact never looks
# like a wrong one. Like CHECK_AGAIN it is never stored.
SLOW = "slow"


def state_label(state: str) -> str:
    return {
        NOT_SEEN: pgettext("how well a child knows a fact", "not seen yet"),
        WRONG_SO_FAR: pgettext("how well a child knows a fact", "wrong so far"),
        RIGHT_SO_FAR: pgettext("how well a child knows a fact", "right so far"),
        LEARNING: pgettext("how well a child knows a fact", "learning"),
        SLOW: pgettext("how well a child knows a fact", "right but slow"),
        FLUENT: pgettext("how well a child knows a fact", "fluent"),
        MASTERED: pgettext("how well a child knows a fact", "mastered"),
        CHECK_AGAIN: pgettext("how well a child knows a fact", "check again"),
    }.get(state, state)


def state_mark(state: str) -> str:
    """The text mark in a child's heatmap cell (colour is never the only cue)."""
    return {
        NOT_SEEN: "·",
        WRONG_SO_FAR: pgettext("mastery mark: wrong so far", "✗"),
        RIGHT_SO_FAR: pgettext("mastery mark: right so far", "✓"),
        LEARNING: pgettext("mastery mark: learning", "L"),
        SLOW: pgettext("mastery mark: right but slow", "S"),
        FLUENT: pgettext("mastery mark: fluent", "F"),
        MASTERED: pgettext("mastery mark: mastered", "M"),
        CHECK_AGAIN: pgettext("mastery mark: check again", "M?"),
    }.get(state, "?")


# Speed, shown apart from the state: quick (retrieval, the 3 s of mastery), steady (within
# the 6 s of fluency), slow, untimed (accuracy-first evidence), or none (no right answer).
QUICK, STEADY, SLOW_SPEED, UNTIMED, NO_SPEED = "quick", "steady", "slow", "untimed", "none"


def speed_class(numbers) -> str:
    if not numbers.recent_correct:
        return NO_SPEED
    if numbers.speed_ms is None:
        return UNTIMED
    if numbers.speed_ms <= MASTERED_MEDIAN_MS:
        return QUICK
    if numbers.speed_ms <= FLUENT_MEDIAN_MS:
        return STEADY
    return SLOW_SPEED


def seconds(ms: int) -> str:
    """2400 → "2.4" ("2,4" in Spanish and Italian: a number people read), 12400 → "12"."""
    if ms < 10_000:
        return number_format(ms / 1000, decimal_pos=1)
    return str(round(ms / 1000))


def speed_mark(numbers) -> str:
    """The speed in a cell: "2.4s", "~7.0s" for game times (choosing the cards included),
    "–" untimed, "" without a right answer."""
    speed = speed_class(numbers)
    if speed == NO_SPEED:
        return ""
    if speed == UNTIMED:
        return pgettext("speed mark: untimed", "–")
    mark = pgettext("speed mark: seconds", "%(s)ss") % {"s": seconds(numbers.speed_ms)}
    return f"~{mark}" if numbers.speed_from_game else mark


def speed_words(numbers) -> str:
    speed = speed_class(numbers)
    if speed == NO_SPEED:
        return ""
    if speed == UNTIMED:
        return _("not timed (accuracy first)")
    values = {"s": seconds(numbers.speed_ms)}
    how = {
        QUICK: _("quick, %(s)s s") % values,
        STEADY: _("steady, %(s)s s") % values,
        SLOW_SPEED: _("slow, %(s)s s") % values,
    }[speed]
    if numbers.speed_from_game:
        return _("%(how)s game time (includes choosing the cards)") % {"how": how}
    return how


def kind_label(kind: str) -> str:
    """A kind of wrong answer in words (classroom.diagnosis.classify)."""
    return {
        OPERAND: _("neighbouring fact"),
        CLOSE: pgettext("a kind of wrong answer", "near miss"),
        ZERO_ONE: _("0 or one of the two numbers"),
        OPERATION: _("added, subtracted or wrote the numbers side by side"),
        REVERSED: _("digits the other way round"),
        TABLE_ERROR: _("another times-table answer"),
        OTHER: pgettext("a kind of wrong answer", "other"),
        OMISSION: _("missed capture"),
    }.get(kind, kind)


def kind_help(kind: str) -> str:
    """What a kind means, with 7 × 8 as the example (the help under the kinds table)."""
    return {
        OPERAND: _(
            "the answer of a fact one or two steps away that shares a number: 7 × 8 → 48 "
            "(6 × 8, one step), 63 (7 × 9) or 40 (5 × 8, two steps)"
        ),
        CLOSE: _("1 or 2 away from the answer, even another table answer: 7 × 8 → 54 or 57"),
        ZERO_ONE: _("0, or one of the two numbers, as if multiplying by 0 or 1: 7 × 8 → 0 or 7"),
        OPERATION: _("7 + 8 = 15, 8 − 7 = 1, or the numbers side by side: 78 or 87"),
        REVERSED: _("the right digits the other way round: 7 × 8 → 65"),
        TABLE_ERROR: _("an answer from elsewhere in the tables: 7 × 8 → 81 (9 × 9)"),
        OTHER: _("none of these: 7 × 8 → 59"),
        OMISSION: _("a capture left on the board"),
    }.get(kind, "")


def explain_answer(a: int, b: int, answer: int | None) -> str:
    """Why this wrong answer to a × b is what it is, in a few words: "added instead",
    "neighbouring fact, one step away: 6 × 8"..."""
    kind = classify(a, b, answer)
    if kind == OPERAND:
        found = neighbour_fact(a, b, answer)
        if found is not None:
            x, y, steps = found
            values = {"x": x, "y": y}
            if steps == 1:
                return _("neighbouring fact, one step away: %(x)s × %(y)s") % values
            return _("neighbouring fact, two steps away: %(x)s × %(y)s") % values
        return _("neighbouring fact")
    if kind == CLOSE:
        return _("near miss (%(off)+d)") % {"off": answer - a * b}
    if kind == ZERO_ONE:
        if answer == 0:
            return _("0, as if multiplying by 0")
        return _("%(n)s, one of the two numbers, as if multiplying by 1") % {"n": answer}
    if kind == OPERATION:
        if answer == a + b:
            return _("added instead (%(a)s + %(b)s)") % {"a": a, "b": b}
        if answer == abs(a - b):
            return _("subtracted instead (%(x)s − %(y)s)") % {"x": max(a, b), "y": min(a, b)}
        return _("wrote the two numbers side by side")
    if kind == REVERSED:
        return _("digits the other way round (%(p)s)") % {"p": a * b}
    if kind == TABLE_ERROR:
        facts = [f"{x} × {y}" for x in TABLE for y in TABLE if x <= y and x * y == answer]
        return _("another times-table answer (%(facts)s)") % {"facts": ", ".join(facts)}
    if kind == OMISSION:
        return _("missed capture")
    return pgettext("a kind of wrong answer", "other")


def wrong_answer_rows(a: int, b: int, wrong_answers: dict, limit: int = 5) -> list[dict]:
    """The most frequent wrong answers {"48": 3} as rows with their kind, most frequent first
    (ties: the smaller answer first)."""
    rows = []
    for raw, n in wrong_answers.items():
        try:
            answer = int(raw)
        except (TypeError, ValueError):
            continue
        kind = classify(a, b, answer)
        rows.append(
            {
                "answer": answer,
                "count": int(n),
                "kind": kind,
                "kind_label": kind_label(kind),
                "why": explain_answer(a, b, answer),
            }
        )
    rows.sort(key=lambda r: (-r["count"], r["answer"]))
    return rows[:limit]


# --- the heatmap ---------------------------------------------------------------------------


@dataclass
class Cell:
    a: int
    b: int
    css: str  # heat-<shown state> (child) or heat-band-<band> (class, school)
    mark: str  # the state's text mark
    label: str  # the whole story in words (aria-label / title)
    href: str = ""
    selected: bool = False
    ratio: str = ""  # "2/3": right of the latest answers (child), struggling/tried (group)
    speed: str = ""  # "2.4s", "~7.0s", "–" (child)
    speed_css: str = ""


def heatmap(cell_for: Callable[[int, int], Cell]) -> list[dict]:
    """Rows a = 2..9, each with its cells b = 2..9 (7 × 8 is row 7, column 8)."""
    return [{"a": a, "cells": [cell_for(a, b) for b in TABLE]} for a in TABLE]


@dataclass
class FactNumbers:
    """What the heatmap needs to know about one fact (one child, as asked or together):
    ``state`` as shown (check again for a mastered fact due for review), the all-time
    counts of the order(s) and the pooled recent figures that decide the state."""

    state: str = NOT_SEEN
    attempts: int = 0
    correct: int = 0
    omissions: int = 0
    recent_attempts: int = 0
    recent_correct: int = 0
    speed_ms: int | None = None
    speed_from_game: bool = False
    # "As asked": this order's own latest answers (up to 10; FactStat.latest), None when not
    # known (the squares then show the pooled figures); 0 when asked only the other way round.
    own_attempts: int | None = None
    own_correct: int = 0

    @property
    def seen(self) -> bool:
        """Met at all: answered (in either order), or asked only the other way round."""
        return bool(self.attempts) or self.own_attempts == 0

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.attempts if self.attempts else None

    @property
    def accuracy_percent(self) -> int | None:
        acc = self.accuracy
        return None if acc is None else round(acc * 100)

    @property
    def shown(self) -> str:
        """The state the heatmap draws: SLOW for a learning fact that is right often enough
        to be fluent (so only its speed holds it back), else the state."""
        n, right = self.recent_attempts, self.recent_correct
        if (
            self.state == LEARNING
            and n >= FLUENT_MIN_ATTEMPTS
            and Fraction(right, n) >= Fraction(str(FLUENT_ACCURACY))
        ):
            return SLOW
        return self.state


def weaker_state(states: Iterable[str]) -> str:
    """The weakest of the states of the orders that were seen (not seen when none was)."""
    seen = [s for s in states if s != NOT_SEEN]
    if not seen:
        return NOT_SEEN
    return min(seen, key=lambda s: STATES.index(MASTERED if s == CHECK_AGAIN else s))


def together(x: FactNumbers, y: FactNumbers) -> FactNumbers:
    """A fact and its twin (7 × 8 and 8 × 7) together: counts added. The state and recent
    figures are the pooled ones both orders carry (the weaker state, should they differ)."""
    pooled = x if x.attempts else y
    return FactNumbers(
        state=weaker_state([x.state, y.state]),
        attempts=x.attempts + y.attempts,
        correct=x.correct + y.correct,
        omissions=x.omissions + y.omissions,
        recent_attempts=pooled.recent_attempts,
        recent_correct=pooled.recent_correct,
        speed_ms=pooled.speed_ms,
        speed_from_game=pooled.speed_from_game,
    )


def child_cell(a: int, b: int, numbers: FactNumbers, href: str = "", selected=False) -> Cell:
    """A child's square. Its colour and mark are the state (both orders together); its
    "right/latest" is this order's own latest answers when they are known ("As asked":
    ``own_attempts``), so 3 × 2 known and 2 × 3 not shows, else the pooled figures."""
    shown = numbers.shown
    if numbers.seen:
        pooled = {
            "a": a,
            "b": b,
            "state": state_label(shown),
            "correct": numbers.recent_correct,
            "n": numbers.recent_attempts,
        }
        if numbers.own_attempts is None:
            label = (
                _(
                    "%(a)s × %(b)s: %(state)s, %(correct)s right of the latest %(n)s (both orders "
                    "together)"
                )
                % pooled
            )
            ratio = f"{numbers.recent_correct}/{numbers.recent_attempts}"
        elif numbers.own_attempts:
            label = _(
                "%(a)s × %(b)s as asked: %(own)s right of its latest %(own_n)s; both orders "
                "together: %(state)s, %(correct)s right of the latest %(n)s"
            ) % {**pooled, "own": numbers.own_correct, "own_n": numbers.own_attempts}
            ratio = f"{numbers.own_correct}/{numbers.own_attempts}"
        else:
            label = (
                _(
                    "%(a)s × %(b)s: not asked this way yet; both orders together: %(state)s, "
                    "%(correct)s right of the latest %(n)s"
                )
                % pooled
            )
            ratio = ""
        words = speed_words(numbers)
        if words:
            label = f"{label}; {words}"
    else:
        label = _("%(a)s × %(b)s: not seen yet") % {"a": a, "b": b}
        ratio = ""
    return Cell(
        a=a,
        b=b,
        css=f"heat-{shown}",
        mark=state_mark(shown),
        label=label,
        href=href,
        selected=selected,
        ratio=ratio,
        speed=speed_mark(numbers) if numbers.seen else "",
        speed_css=f"speed-{speed_class(numbers)}",
    )


# A class (or school) cell: how many of the children who tried the fact are wrong so far or
# still learning it (their pooled state), of those who tried it.
BAND_NONE, BAND_MANY, BAND_SOME, BAND_NOBODY = "none", "many", "some", "nobody"


def group_band(children: int, struggling: int) -> str:
    """none: nobody tried it; many: half or more of those who tried it are wrong so far or
    learning; some: fewer than half; nobody: none of them (right so far, fluent, mastered)."""
    if children <= 0:
        return BAND_NONE
    if struggling * 2 >= children:
        return BAND_MANY
    if struggling > 0:
        return BAND_SOME
    return BAND_NOBODY


def band_label(band: str) -> str:
    return {
        BAND_NONE: _("nobody has tried it yet"),
        BAND_MANY: _("half or more wrong so far or still learning it"),
        BAND_SOME: _("a few wrong so far or still learning it"),
        BAND_NOBODY: _("nobody wrong so far or still learning it"),
    }[band]


def group_cell(a: int, b: int, children: int, struggling: int, href="", selected=False) -> Cell:
    band = group_band(children, struggling)
    if children:
        ratio = f"{struggling}/{children}"
        label = ngettext(
            "%(a)s × %(b)s: %(struggling)s of %(children)s child who tried it wrong so far "
            "or still learning it",
            "%(a)s × %(b)s: %(struggling)s of %(children)s children who tried it wrong so far "
            "or still learning it",
            children,
        ) % {"a": a, "b": b, "struggling": struggling, "children": children}
    else:
        ratio = ""
        label = _("%(a)s × %(b)s: nobody has tried it yet") % {"a": a, "b": b}
    return Cell(
        a=a,
        b=b,
        css=f"heat-band-{band}",
        mark="" if children else "·",
        label=label,
        href=href,
        selected=selected,
        ratio=ratio,
    )


# --- the weekly trend line -------------------------------------------------------------------

TREND_WEEKS = 12
TREND_WIDTH, TREND_HEIGHT = 720, 240
TREND_LEFT, TREND_RIGHT, TREND_TOP, TREND_BOTTOM = 52, 30, 24, 44  # room for the last week label


def week_of(day: date) -> date:
    """The Monday of ``day``'s week."""
    return day - timedelta(days=day.weekday())


def weekly(days: Iterable[tuple[date, int, int]], today: date, weeks=TREND_WEEKS) -> list[dict]:
    """Daily (day, attempts, correct) rows added up per week (Monday first), for the last
    ``weeks`` weeks up to this week, oldest first, empty weeks included."""
    this_week = week_of(today)
    first = this_week - timedelta(weeks=weeks - 1)
    totals = {first + timedelta(weeks=i): [0, 0] for i in range(weeks)}
    for day, attempts, correct in days:
        monday = week_of(day)
        if monday in totals:
            totals[monday][0] += attempts
            totals[monday][1] += correct
    out = []
    for monday, (attempts, correct) in totals.items():
        out.append(
            {
                "week": monday,
                "attempts": attempts,
                "correct": correct,
                "accuracy": round(100 * correct / attempts) if attempts else None,
            }
        )
    return out


def trend_chart(weeks: list[dict]) -> dict:
    """Coordinates for the weekly accuracy line (0–100 %): points, the line's segments (a
    week without attempts breaks the line), y ticks and x labels."""
    plot_w = TREND_WIDTH - TREND_LEFT - TREND_RIGHT
    plot_h = TREND_HEIGHT - TREND_TOP - TREND_BOTTOM
    baseline = TREND_TOP + plot_h
    step = plot_w / max(len(weeks) - 1, 1)
    points, segments, current = [], [], []
    for i, week in enumerate(weeks):
        x = round(TREND_LEFT + i * step, 1)
        point = {**week, "x": x, "label_y": baseline + 18}
        if week["accuracy"] is None:
            if current:
                segments.append(current)
            current = []
        else:
            y = round(baseline - plot_h * week["accuracy"] / 100, 1)
            point["y"] = y
            point["value_y"] = round(y - 10, 1)
            current.append(f"{x},{y}")
        points.append(point)
    if current:
        segments.append(current)
    ticks = [{"value": v, "y": round(baseline - plot_h * v / 100, 1)} for v in (0, 50, 100)]
    with_data = [w for w in weeks if w["accuracy"] is not None]
    return {
        "width": TREND_WIDTH,
        "height": TREND_HEIGHT,
        "left": TREND_LEFT,
        "right": TREND_WIDTH - TREND_RIGHT,
        "baseline": baseline,
        "axis_label_y": baseline + 38,
        "points": points,
        "lines": [" ".join(s) for s in segments if len(s) > 1],
        "ticks": ticks,
        "weeks": len(weeks),
        "weeks_with_data": len(with_data),
        "total": sum(w["attempts"] for w in weeks),
        "first": weeks[0]["week"] if weeks else None,
        "last": weeks[-1]["week"] if weeks else None,
    }
