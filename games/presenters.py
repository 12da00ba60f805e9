"""Turn an engine view into template context. Templates see only ``view(state, seat)``."""

import uuid

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http.request import split_domain_port
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.names import isolate
from config.qr import qr_svg
from games.engine.base import render_event
from games.models import Match
from games.models import Seat


def reveal_key(match) -> str:
    return f"reveal:{match.public_id}"


def acting_seat(request, match, mine, *, revealed_only=True):
    """The seat of this browser that may act now (None when none may). On a shared device
    (pass-and-play) the seat must also have been revealed by a tap on the hand-off screen.

    Simultaneous choices (a Muertoons contest): ``to_act`` lists every seat that has not
    chosen yet, so this is the first seat of this device still to choose; once it has chosen
    it drops out of ``to_act`` and the next seat of this device waits behind the hand-off."""
    acting = set(match.to_act())
    candidates = [s for s in mine if s.number in acting]
    if not candidates:
        return None
    seat = candidates[0]
    if revealed_only and len(mine) > 1 and request.session.get(reveal_key(match)) != seat.number:
        return None
    return seat


def viewing_seat(request, match, mine):
    """(seat whose private view is shown, seat waiting behind the hand-off screen)."""
    if not mine:
        return None, None
    if len(mine) == 1:
        return mine[0], None
    acting = acting_seat(request, match, mine, revealed_only=False)
    if acting is None:
        return None, None
    if request.session.get(reveal_key(match)) == acting.number:
        return acting, None
    return None, acting


def common_step(view, ctx) -> str | None:
    """The next-step line every board shares: none once the game is over, "Pass the device to
    …" while a shared device waits for its next person; None: the game's own line."""
    if view["outcome"]:
        return ""
    if ctx["handoff"] is not None:
        return _("Pass the device to %(name)s.") % {"name": isolate(ctx["handoff"].name)}
    return None


def own_legal_actions(ctx) -> list[dict]:
    """The viewing seat's own legal actions (its own cards only), none when it is not its turn:
    what a board offers as buttons. Asked by the boards that need them, not on every page."""
    if not ctx["my_turn"]:
        return []
    engine = ctx["match"].engine
    return engine.legal_actions(engine.load(ctx["match"].state), ctx["seat"].number)


def board_context(request, match, mine, *, notice="", spectator=False, keys=()):
    seat, handoff = (None, None) if spectator else viewing_seat(request, match, mine)
    view = match.view_for(seat.number if seat else None)
    seats = list(match.seat_list())
    # Every seat's name between the Unicode isolates (config/names.py): each sentence built
    # from ``names`` (turn, result, log lines) and each attribute keeps its own order.
    names = {s.number: isolate(s.name) for s in seats}
    anchor = seat or handoff or (mine[0] if mine else None)
    bottom = anchor.number if anchor else 0
    top = 1 - bottom
    # Nobody acts before the game starts (a family room waits for its people) or while the
    # teacher has paused the class (the board says so and offers no move).
    my_turn = (
        seat is not None
        and seat.number in view["to_act"]
        and match.status == Match.Status.ACTIVE
        and match.paused_at is None
    )
    ctx = {
        "match": match,
        "view": view,
        "seat": seat,
        "handoff": handoff,
        "spectator": seat is None and handoff is None,
        "names": names,
        "me": bottom,
        "them": top,
        "my_name": names.get(bottom, ""),
        "their_name": names.get(top, ""),
        "my_turn": my_turn,
        # A refused move's notice may be an engine sentence (IllegalAction: English, marked with
        # gettext_noop in the engine): translated here. Django's own notices are already.
        "notice": _(str(notice)) if notice else "",
        "move_id": uuid.uuid4().hex,
        # Every form of a board posts here (reversed once, not once per form).
        "move_url": reverse("games:move", args=[match.public_id]),
        "open_seat": next((s for s in seats if s.kind == Seat.Kind.OPEN), None),
        "log": log_lines(match, names, seat.number if seat else None),
        "polling": not match.is_over,
        "poll_every": poll_interval(match, view, mine, my_turn),
        "live": live_settings(request),
        # Only watching: no seat of this browser (a teacher, a link). A device holding seats
        # that are not acting (pass-and-play after the end, a remote seat's turn) is playing.
        "watching": spectator or not mine,
        "way_on": way_on(match, anchor, spectator=spectator or not mine),
    }
    if ctx["open_seat"] is not None and not match.family:
        ctx["invite_url"] = request.build_absolute_uri(
            reverse("games:join", args=[match.public_id])
        )
        ctx["invite_qr"] = qr_svg(ctx["invite_url"], _("QR code of the invitation link"))
    ctx.update(match.spec.board(view, ctx))
    if (match.paused_at is not None and not match.is_over) or (
        match.status == Match.Status.ABANDONED
    ):
        # The pause or "stopped" banner says it all: no "Ben is playing…" to the child whose
        # turn it was.
        ctx["step"], ctx["waiting_for"] = "", ""
    if match.family:
        # A family room shows its own card (code, QR code, who has joined) above the board.
        ctx["open_seat"] = None
        if not spectator:
            ctx.update(room_context(request, match, mine, keys))
        if match.status == Match.Status.WAITING:
            ctx["step"] = waiting_text(match)
    return ctx


def way_on(match, seat, *, spectator) -> dict | None:
    """The button under a finished or stopped game: where this player goes next.

    A child of a class goes back to their page (a session's game, or one they started from
    it); a family (home play included) plays the same game again; anyone else starts a practice
    game. Somebody only
    watching (a teacher) gets none."""
    if spectator:
        return None
    if match.family:
        return {"url": reverse("games:new_family", args=[match.game]), "label": _("Play again")}
    if seat is not None and seat.kind == Seat.Kind.STUDENT:
        return {"url": reverse("classroom:child_home"), "label": _("Back to my page")}
    return {"url": reverse("games:new"), "label": _("Play again")}


def poll_every(times: int = 1) -> str:
    """A poller's interval for htmx's ``every`` and data-live-poll: ``times`` ×
    LIVE_POLL_SECONDS, as "3s" when it is whole seconds, else in milliseconds ("250ms")."""
    ms = round(settings.LIVE_POLL_SECONDS * times * 1000)
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


def pushed(request) -> bool:
    """Whether this request's page listens on a stream: push is on (Redis) and a stream server
    answers it: the one ``LIVE_STREAM_ORIGIN`` names (production's proxy, make run's port), or,
    when none is named, the ASGI server serving this very page (the tests' in-process servers;
    a page on a WSGI server then polls)."""
    if not settings.LIVE_PUSH:
        return False
    return bool(settings.LIVE_STREAM_ORIGIN) or isinstance(request, ASGIRequest)


def streams_here(request) -> bool:
    """Whether this request may be answered with a stream: push is on and the server is an
    ASGI one (a WSGI server would hold one of its few threads for the stream's minutes)."""
    return settings.LIVE_PUSH and isinstance(request, ASGIRequest)


def stream_origin(request) -> str:
    """What goes before a stream's path in a page: the stream server's origin when it has one
    of its own (``LIVE_STREAM_ORIGIN``: an origin, or ":<port>", this page's host on that port:
    make run), else nothing (the page's own origin)."""
    origin = settings.LIVE_STREAM_ORIGIN
    if origin.startswith(":"):
        host, _port = split_domain_port(request.get_host())  # an IPv6 address in brackets
        return f"{request.scheme}://{host}{origin}"
    return origin if "://" in origin else ""


def live_settings(request) -> dict:
    """The board's stream, when boards are pushed to (docs/platform.md, "Live updates"); the
    times in whole milliseconds (a template would write a float the language's way)."""
    return {
        "push": pushed(request),
        "origin": stream_origin(request) if pushed(request) else "",
        "stale": int(settings.LIVE_STALE_SECONDS * 1000),
        "retry": int(settings.LIVE_RETRY_SECONDS * 1000),
        "safety": int(settings.LIVE_SAFETY_POLL_SECONDS * 1000),
        "room_poll": poll_every(2),
    }


def poll_interval(match, view, mine, my_turn) -> str:
    """How often the board asks whether it changed (its poller's ``hx-trigger``).

    Every second (LIVE_POLL_SECONDS) while anyone else could change it. While only this device
    can act (its own turn, nobody else in ``to_act``, no open seat, no pause) only a teacher's
    pause or end of the session, or a computer taking over a quiet seat, can, so the board asks
    every 3 s: a third of the requests of the child on turn, and the partner's board, which
    waits, still sees every move within a second."""
    acting = set(view["to_act"])
    only_mine = bool(acting) and acting <= {s.number for s in mine}
    if my_turn and only_mine and not match.open_seats():
        return poll_every(3)
    return poll_every(1)


def waiting_text(match) -> str:
    n = len(match.open_seats())
    return ngettext(
        "Waiting for %(n)s more player to join.", "Waiting for %(n)s more players to join.", n
    ) % {"n": n}


def host_name(match) -> str:
    """The name of the host's first seat (the person who set the game up)."""
    for seat in match.seat_list():
        if match.host_key and seat.owner_key == match.host_key:
            return seat.name
    for seat in match.seat_list():
        if seat.kind == Seat.Kind.STUDENT:
            return seat.name
    return ""


def room_code_display(code: str) -> str:
    """ "ACDEFG" as "ACD EFG": easier to read aloud."""
    return f"{code[:3]} {code[3:]}" if code else ""


def room_context(request, match, mine, keys) -> dict:
    """The room card of a family game: while it waits, the code, QR code and link (for the
    host), who has joined and the start button; while it is played, the host's quiet seats;
    once it is over, the replay link. ``room`` is None when there is nothing to show."""
    if not match.family or not mine:
        return {"room": None}
    host = match.is_host(keys)
    room = {
        "host": host,
        "waiting": match.status == Match.Status.WAITING,
        "over": match.is_over,
        "poll": False,
        "replay_url": "",
        "quiet": [],
        "asleep": [],
        "back": [],
    }
    if room["waiting"]:
        room["code"] = room_code_display(match.room_code or "")
        room["people"] = [
            s.name for s in match.seat_list() if s.kind not in {Seat.Kind.OPEN, Seat.Kind.BOT}
        ]
        room["open_count"] = len(match.open_seats())
        if host and match.room_code:
            url = request.build_absolute_uri(reverse("games:join", args=[match.public_id]))
            room["url"] = url
            room["join_url"] = request.build_absolute_uri(reverse("games:join_room"))
            room["qr"] = qr_svg(url, _("QR code to join this game"))
            room["levels"] = match.spec.bot_levels()
            room["best_level"] = match.engine.BEST_LEVEL
    elif room["over"]:
        if not match.spec.board_links_replay:  # else the board has its own link
            room["replay_url"] = reverse("games:replay", args=[match.public_id])
    elif host and any(
        s.kind in Seat.TAKEOVER_KINDS and s.owner_key != match.host_key for s in match.seat_list()
    ):
        # The host's card checks every few seconds for people who went quiet or are gone.
        room["poll"] = True
        room["levels"] = match.spec.bot_levels()
        room["best_level"] = match.engine.BEST_LEVEL
        for seat, minutes, gone in match.quiet_seats():
            name = isolate(seat.name)
            if gone:
                text = ngettext(
                    "%(name)s has been gone for %(n)s minute, and the game is waiting for them.",
                    "%(name)s has been gone for %(n)s minutes, and the game is waiting for them.",
                    minutes,
                ) % {"name": name, "n": minutes}
                room["quiet"].append({"number": seat.number, "name": seat.name, "text": text})
            else:
                text = ngettext(
                    "%(name)s's screen has been off for %(n)s minute: it is not their turn, "
                    "so nobody is waiting for them.",
                    "%(name)s's screen has been off for %(n)s minutes: it is not their turn, "
                    "so nobody is waiting for them.",
                    minutes,
                ) % {"name": name, "n": minutes}
                room["asleep"].append(text)
        room["back"] = [
            _("%(name)s is back and plays their own seat again.") % {"name": isolate(s.name)}
            for s in match.back_seats()
        ]
    return {"room": room}


# "What just happened": at least the last LOG_LINES sentences, and for a player everything since
# their own last move (a computer's turn can take several moves), up to LOG_LINES_MOST.
LOG_LINES, LOG_LINES_MOST = 6, 14


def log_lines(match, names, seat_number: int | None = None) -> list[str]:
    """The last public events of the match as sentences, in the game's own words."""
    return match.recent_lines(
        match.spec.event_line, names, LOG_LINES, since_seat=seat_number, most=LOG_LINES_MOST
    )


def replay_context(request, match, ply_param) -> dict:
    """A finished match at move ``ply``, seen by nobody in particular (``view(state, None)``:
    no hand at all). The game's own replay presenter (``Game.replay``) adds its board; a game
    without one shows the public log so far (games/replay_log.html)."""
    total = match.moves.count()
    try:
        ply = max(0, min(total, int(ply_param)))
    except (TypeError, ValueError):
        ply = 0
    seats = list(match.seat_list())
    names = {s.number: isolate(s.name) for s in seats}  # isolated, as in board_context
    state, move, moves = None, None, []
    for move_i, state_i in match.replay_states():
        state, move = state_i, move_i
        if move_i is not None:
            moves.append(move_i)
        if (move_i.ply if move_i else 0) >= ply:
            break
    view = match.engine.view(state, None)
    line_of = match.spec.event_line
    lines = [line for e in (move.events if move else []) if (line := line_of(e, names))]
    ctx = {
        "match": match,
        "view": view,
        "names": names,
        "players": " · ".join(names[n] for n in sorted(names)),
        "ply": ply,
        "total": total,
        "prev": max(0, ply - 1),
        "next": min(total, ply + 1),
        "lines": lines,
        "mover": names.get(move.seat) if move else "",
        "replay_board": "games/replay_log.html",
        "history": [line for m in moves[-12:] for e in m.events if (line := line_of(e, names))][
            -12:
        ],
    }
    if match.spec.replay is not None:
        ctx.update(match.spec.replay(view, ctx))
    return ctx


def event_lines(engine):
    """A game's ``event_line`` from its engine's event texts (``EVENT_TEXTS`` and
    ``event_fields``, games/engine/base.py): the same templates as the engine's ``describe``,
    translated, with the seats' (isolated) names."""

    def event_line(event, names) -> str | None:
        found = engine.event_fields(event, lambda seat: names.get(seat, ""))
        if found is None:
            return None
        key, fields = found
        return render_event(engine.EVENT_TEXTS[key], fields, _, ngettext)

    return event_line


def names_and(names: list[str]) -> str:
    """ "Ana", "Ana and Ben", "Ana, Ben and Cleo"."""
    names = [n for n in names if n]
    if len(names) <= 1:
        return "".join(names)
    return _("%(list)s and %(last)s") % {"list": ", ".join(names[:-1]), "last": names[-1]}
