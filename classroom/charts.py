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

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.utils.translation import pgettext

from classroom import error_kinds as ek
from classroom import knowledge

TABLE = knowledge.FACTORS

# --- words -------------------------------------------------------------------------------


def state_label(state: str) -> str:
    """What a square says of a fact (classroom.knowledge.shown), in a teacher's words."""
    return {
        knowledge.KNOWN: pgettext("how well a child knows a fact", "knows it"),
        knowledge.SLOW: pgettext("how well a child knows a fact", "knows it, slowly"),
        knowledge.NOT_YET: pgettext("how well a child knows a fact", "not yet"),
        knowledge.UNSURE: pgettext("how well a child knows a fact", "not sure yet"),
    }.get(state, state)


def state_mark(state: str) -> str:
    """The text mark in a child's heatmap square (colour is never the only cue)."""
    return {
        knowledge.KNOWN: pgettext("knowledge mark: knows it", "✓"),
        knowledge.SLOW: pgettext("knowledge mark: knows it, slowly", "S"),
        knowledge.NOT_YET: pgettext("knowledge mark: not yet", "✗"),
        knowledge.UNSURE: pgettext("knowledge mark: not sure yet", "?"),
    }.get(state, "?")


# Speed, shown apart from the state: quick (within 3 s), steady (within the 6 s of the
# Multiplication Tables Check), slow, or none (no right answer timed).
QUICK_MS = 3000
QUICK, STEADY, SLOW_SPEED, NO_SPEED = "quick", "steady", "slow", "none"


def speed_class(ms: int | None) -> str:
    if ms is None:
        return NO_SPEED
    if ms <= QUICK_MS:
        return QUICK
    if ms <= knowledge.FLUENT_MS:
        return STEADY
    return SLOW_SPEED


def seconds(ms: int) -> str:
    """2400 → "2.4" ("2,4" in Spanish and Italian: a number people read), 12400 → "12"."""
    if ms < 10_000:
        return number_format(ms / 1000, decimal_pos=1)
    return str(round(ms / 1000))


def speed_mark(ms: int | None, from_game: bool = False) -> str:
    """The speed in a square: "2.4s", "~7.0s" for game times (choosing the cards included),
    "" without a timed right answer."""
    if ms is None:
        return ""
    mark = pgettext("speed mark: seconds", "%(s)ss") % {"s": seconds(ms)}
    return f"~{mark}" if from_game else mark


def speed_words(ms: int | None, from_game: bool = False) -> str:
    speed = speed_class(ms)
    if speed == NO_SPEED:
        return ""
    values = {"s": seconds(ms)}
    how = {
        QUICK: _("quick, %(s)s s") % values,
        STEADY: _("steady, %(s)s s") % values,
        SLOW_SPEED: _("slow, %(s)s s") % values,
    }[speed]
    if from_game:
        return _("%(how)s game time (includes choosing the cards)") % {"how": how}
    return how


def kind_label(kind: str) -> str:
    """A kind of wrong answer in words (classroom.error_kinds.classify)."""
    return {
        ek.OPERAND: _("answer of another fact"),
        ek.TIE: _("answer of a fact like 7 × 7"),
        ek.NEAR: pgettext("a kind of wrong answer", "near miss"),
        ek.TENS_SLIP: _("tens digit wrong"),
        ek.KEYPAD: _("pressed a key next to the right one"),
        ek.OPERATION: _("added or subtracted instead"),
        ek.ZERO_ONE: _("0 or one of the two numbers"),
        ek.REVERSED: _("digits the other way round"),
        ek.SIDE_BY_SIDE: _("wrote the two numbers side by side"),
        ek.UNCLEAR: pgettext("a kind of wrong answer", "unclear"),
        ek.OMISSION: _("missed capture"),
    }.get(kind, kind)


def kind_help(kind: str) -> str:
    """What a kind means, with 7 × 8 as the example (the help under the kinds table)."""
    return {
        ek.OPERAND: _(
            "the answer of a fact with one number changed: 7 × 8 → 48 (6 × 8) or 42 (7 × 6)"
        ),
        ek.TIE: _("the answer of 7 × 7 or 8 × 8 for 7 × 8 (49 or 64)"),
        ek.NEAR: _("a little off, as when counting up in sevens: 7 × 8 → 55 or 58"),
        ek.TENS_SLIP: _("the right last digit, the wrong tens: 6 × 9 → 44 or 64"),
        ek.KEYPAD: _("one digit a key away on the number pad: 56 → 59; the fact is known"),
        ek.OPERATION: _("7 + 8 = 15 or 8 − 7 = 1 instead of 7 × 8"),
        ek.ZERO_ONE: _("0, or one of the two numbers, as if multiplying by 0 or 1: 7 × 8 → 7"),
        ek.REVERSED: _("the right digits the other way round: 7 × 8 → 65"),
        ek.SIDE_BY_SIDE: _("the numbers side by side: 7 × 8 → 78 or 87"),
        ek.UNCLEAR: _("no pattern is clear from this answer alone: 7 × 8 → 101"),
        ek.OMISSION: _("a capture left on the board"),
    }.get(kind, "")


def kind_advice(kind: str) -> str:
    """What a teacher can do about a child's main kind of mistake."""
    return {
        ek.OPERAND: _(
            "Build each fact from one the child knows (7 × 8 is 7 × 7 and one more 7) and say "
            "both numbers aloud, so the neighbouring fact does not slip in."
        ),
        ek.TIE: _(
            "Facts like 7 × 7 and 8 × 8 are crowding out their neighbours: practise 7 × 8 "
            "next to 7 × 7, saying what changes."
        ),
        ek.NEAR: _(
            "The child counts up and slips by a little: practise counting in steps, then aim "
            "for recalling the answer without counting."
        ),
        ek.TENS_SLIP: _("Check the tens: say the answer as tens and ones before typing it."),
        ek.KEYPAD: _(
            "The child knows these facts and misses a key: a slower, careful tap is enough."
        ),
        ek.OPERATION: _(
            "The child adds or subtracts instead of multiplying: read the sign aloud and "
            "show times as groups (7 groups of 8)."
        ),
        ek.ZERO_ONE: _("Revisit × 0 and × 1 separately from the other tables."),
        ek.REVERSED: _("Check the order of the digits when writing two-digit answers."),
        ek.SIDE_BY_SIDE: _("Show that 7 × 8 is a number of things, not the digits 7 and 8."),
    }.get(kind, "")


def explain_answer(a: int, b: int, answer: int | None, kind: str, options=None) -> str:
    """Why this wrong answer to a × b is what it is, in a few words: "the answer to 7 × 6,
    not 7 × 8", "added instead (7 + 8)". ``kind`` is the one stored with the answer; the
    details are read again for it (``error_kinds.explain``)."""
    if kind == ek.OMISSION or answer is None:
        return _("missed capture")
    context = ek.CAPTURE if options else ek.WARM_UP
    found = ek.explain(a, b, answer, context=context, options=options)
    if found.kind != kind:  # stored under other rules: the kind's name only
        return kind_label(kind)
    if kind == ek.OPERAND:
        x, y = found.fact
        return _("the answer to %(x)s × %(y)s, not %(a)s × %(b)s") % {
            "x": x,
            "y": y,
            "a": a,
            "b": b,
        }
    if kind == ek.TIE:
        n = found.square
        return _("the answer to %(n)s × %(n)s (%(p)s)") % {"n": n, "p": n * n}
    if kind == ek.NEAR:
        return _("near miss (%(off)+d)") % {"off": found.difference}
    if kind == ek.TENS_SLIP:
        right, given = found.tens
        return _("tens digit %(given)s instead of %(right)s") % {"given": given, "right": right}
    if kind == ek.KEYPAD:
        _position, right, pressed = found.digit
        return _("pressed %(pressed)s next to %(right)s (%(p)s)") % {
            "pressed": pressed,
            "right": right,
            "p": a * b,
        }
    if kind == ek.OPERATION:
        if found.operation == "add":
            return _("added instead (%(a)s + %(b)s)") % {"a": a, "b": b}
        return _("subtracted instead (%(x)s − %(y)s)") % {"x": max(a, b), "y": min(a, b)}
    if kind == ek.ZERO_ONE:
        if answer == 0:
            return _("0, as if multiplying by 0")
        return _("%(n)s, one of the two numbers, as if multiplying by 1") % {"n": answer}
    if kind == ek.REVERSED:
        return _("digits the other way round (%(p)s)") % {"p": a * b}
    if kind == ek.SIDE_BY_SIDE:
        return _("wrote the two numbers side by side")
    return pgettext("a kind of wrong answer", "unclear")


def wrong_answer_rows(
    a: int, b: int, wrong_answers: dict, named: dict | None = None, limit: int = 5
) -> list[dict]:
    """The most frequent wrong answers {"48": 3} as rows with their kind, most frequent first
    (ties: the smaller answer first). ``named``: {answer: kind}, the kind the reports give
    each (``knowledge.Summary.named``); an answer without one is read on its own."""
    rows = []
    for raw, n in wrong_answers.items():
        try:
            answer = int(raw)
        except (TypeError, ValueError):
            continue
        kind = (named or {}).get(answer) or ek.classify(a, b, answer)
        rows.append(
            {
                "answer": answer,
                "count": int(n),
                "kind": kind,
                "kind_label": kind_label(kind),
                "why": explain_answer(a, b, answer, kind),
            }
        )
    rows.sort(key=lambda r: (-r["count"], r["answer"]))
    return rows[:limit]


# --- the heatmap ---------------------------------------------------------------------------


@dataclass
class Cell:
    a: int
    b: int
    css: str  # heat-<state> (child) or heat-band-<band> (class, school)
    mark: str  # the state's text mark
    label: str  # the whole story in words (aria-label / title)
    href: str = ""
    selected: bool = False
    ratio: str = ""  # "2/3": right of the latest answers (child), not yet/children (group)
    speed: str = ""  # "2.4s", "~7.0s" (child)
    speed_css: str = ""
    twin_mark: str = ""  # the other order's mark, when its state differs (child)
    twin_css: str = ""


def heatmap(cell_for: Callable[[int, int], Cell]) -> list[dict]:
    """Rows a = 2..9, each with its cells b = 2..9 (7 × 8 is row 7, column 8)."""
    return [{"a": a, "cells": [cell_for(a, b) for b in TABLE]} for a in TABLE]


def differs(x: knowledge.Square, y: knowledge.Square | None) -> bool:
    """Two orders of a fact the child has answered both ways, one known and the other not
    yet (or the other way round): the square shows both."""
    known = (knowledge.KNOWN, knowledge.SLOW)
    return (
        y is not None
        and x.a != x.b
        and x.answered
        and y.answered
        and ((x.state in known and y.state == knowledge.NOT_YET)
             or (x.state == knowledge.NOT_YET and y.state in known))
    )  # fmt: skip


def square_words(square: knowledge.Square) -> str:
    """One order in words: "7 × 8: knows it, 4 right of the latest 5; quick, 2.1 s"."""
    values = {"a": square.a, "b": square.b, "state": state_label(square.state)}
    if square.answered:
        text = _("%(a)s × %(b)s: %(state)s, %(right)s right of the latest %(n)s") % {
            **values,
            "right": square.right,
            "n": square.latest,
        }
        speed = speed_words(square.speed_ms, square.speed_from_game)
        return f"{text}; {speed}" if speed else text
    if square.state == knowledge.NOT_YET:
        return _("%(a)s × %(b)s: not asked yet, likely not yet (from the other answers)") % values
    return _("%(a)s × %(b)s: not asked yet") % values


def child_cell(
    square: knowledge.Square,
    twin: knowledge.Square | None = None,
    href: str = "",
    selected: bool = False,
    at: tuple[int, int] | None = None,
) -> Cell:
    """A child's square of a fact as asked: its state (colour and mark), its own latest
    answers ("4/5": the number matches the colour, both this order's) and speed; when the
    other order's state differs (3 × 7 known, 7 × 3 not yet), the other's mark too.
    ``at``: the square's place on the map when it shows another fact (twins together)."""
    label = square_words(square)
    twin_mark = twin_css = ""
    if twin is not None and differs(square, twin):
        twin_mark, twin_css = state_mark(twin.state), f"heat-twin-{twin.state}"
        label = f"{label}. {square_words(twin)}"
    a, b = at or (square.a, square.b)
    return Cell(
        a=a,
        b=b,
        css=f"heat-{square.state}" + ("" if square.answered else " heat-estimate"),
        mark=state_mark(square.state),
        label=label,
        href=href,
        selected=selected,
        ratio=f"{square.right}/{square.latest}" if square.answered else "",
        speed=speed_mark(square.speed_ms, square.speed_from_game),
        speed_css=f"speed-{speed_class(None if square.speed_from_game else square.speed_ms)}",
        twin_mark=twin_mark,
        twin_css=twin_css,
    )


# A class (or school) square: how many children are not yet on the fact as asked, of the
# children counted (every child's square says something: known, not yet, or not sure yet).
BAND_NONE, BAND_MANY, BAND_SOME, BAND_NOBODY = "none", "many", "some", "nobody"


@dataclass(frozen=True)
class GroupCounts:
    """A fact as asked across children: how many of them the model says know it, not yet,
    and not sure yet (each child's own square: the counts never differ from their pages)."""

    known: int = 0
    not_yet: int = 0
    unsure: int = 0

    @property
    def children(self) -> int:
        return self.known + self.not_yet + self.unsure

    def __add__(self, other: "GroupCounts") -> "GroupCounts":
        return GroupCounts(
            self.known + other.known, self.not_yet + other.not_yet, self.unsure + other.unsure
        )


def count_squares(summaries) -> dict[tuple[int, int], GroupCounts]:
    """Each fact as asked: the children's squares counted by state."""
    out = {}
    for a, b in knowledge.ORDERS:
        known = not_yet = unsure = 0
        for summary in summaries:
            state = summary.squares[(a, b)].state
            if state in (knowledge.KNOWN, knowledge.SLOW):
                known += 1
            elif state == knowledge.NOT_YET:
                not_yet += 1
            else:
                unsure += 1
        out[(a, b)] = GroupCounts(known, not_yet, unsure)
    return out


def group_band(counts: GroupCounts) -> str:
    """none: no child counted; many: a third or more not yet; some: fewer, at least one;
    nobody: no child not yet."""
    if counts.children <= 0:
        return BAND_NONE
    if counts.not_yet * 3 >= counts.children:
        return BAND_MANY
    if counts.not_yet > 0:
        return BAND_SOME
    return BAND_NOBODY


def band_label(band: str) -> str:
    return {
        BAND_NONE: _("no children yet"),
        BAND_MANY: _("a third or more of the children not yet"),
        BAND_SOME: _("fewer than a third of the children not yet"),
        BAND_NOBODY: _("not yet: nobody"),
    }[band]


def group_words(a: int, b: int, counts: GroupCounts) -> str:
    return ngettext(
        "%(a)s × %(b)s: %(not_yet)s of %(n)s child not yet, %(unsure)s not sure yet, "
        "%(known)s know it",
        "%(a)s × %(b)s: %(not_yet)s of %(n)s children not yet, %(unsure)s not sure yet, "
        "%(known)s know it",
        counts.children,
    ) % {
        "a": a,
        "b": b,
        "not_yet": counts.not_yet,
        "n": counts.children,
        "unsure": counts.unsure,
        "known": counts.known,
    }


def group_cell(a: int, b: int, counts: GroupCounts, href="", selected=False) -> Cell:
    band = group_band(counts)
    return Cell(
        a=a,
        b=b,
        css=f"heat-band-{band}",
        mark="" if counts.children else "·",
        label=group_words(a, b, counts) if counts.children else _("no children yet"),
        href=href,
        selected=selected,
        ratio=f"{counts.not_yet}/{counts.children}" if counts.children else "",
    )


# --- the trend line: a share of right answers per day -------------------------------------------

TREND_DAYS = 28  # four weeks, day by day: learning inside a week shows
TREND_WEEKS = 12  # a fact's bars (the fact panel): week by week
TREND_WIDTH, TREND_HEIGHT = 720, 240
TREND_LEFT, TREND_RIGHT, TREND_TOP, TREND_BOTTOM = 52, 30, 24, 44  # room for the last label


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


def daily(rows: Iterable[tuple[date, int, int]], today: date, days=TREND_DAYS) -> list[dict]:
    """(day, attempts, correct) rows as the last ``days`` days up to today, oldest first,
    empty days included; each day says whether it starts a week (its label is shown)."""
    first = today - timedelta(days=days - 1)
    totals = {first + timedelta(days=i): [0, 0] for i in range(days)}
    for day, attempts, correct in rows:
        if day in totals:
            totals[day][0] += attempts
            totals[day][1] += correct
    return [
        {
            "day": day,
            "monday": day.weekday() == 0,
            "attempts": attempts,
            "correct": correct,
            "accuracy": round(100 * correct / attempts) if attempts else None,
        }
        for day, (attempts, correct) in totals.items()
    ]


def trend_chart(weeks: list[dict]) -> dict:
    """Coordinates for the accuracy line (0–100 %) of ``daily``'s days: points, the line's
    segments (a day without attempts breaks the line), y ticks and x labels."""
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
        "days": len(weeks),
        "days_with_data": len(with_data),
        "total": sum(w["attempts"] for w in weeks),
        "first": weeks[0]["day"] if weeks else None,
        "last": weeks[-1]["day"] if weeks else None,
    }
