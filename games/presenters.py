"""Turn an engine view into template context. Templates see only ``view(state, seat)``."""

import uuid

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.names import isolate
from config.qr import qr_svg
from games.models import Match, Seat
from games.presenters_mortadelo import mm_event_line, mortadelo_context
from games.presenters_munchkin import mk_event_line, munchkin_context
from games.presenters_trono import tr_event_line, trono_context


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


def board_context(request, match, mine, *, notice="", spectator=False, keys=()):
    seat, handoff = (None, None) if spectator else viewing_seat(request, match, mine)
    view = match.view_for(seat.number if seat else None)
    seats = list(match.seats.all())
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
        "log": log_lines(match, names),
        "polling": not match.is_over,
        "poll_every": poll_interval(match, view, mine, my_turn),
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
    game_context = GAME_CONTEXTS.get(match.game, multiplipotion_context)
    ctx.update(game_context(view, ctx))
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
    if seat is not None and seat.student_id:
        return {"url": reverse("classroom:child_home"), "label": _("Back to my page")}
    return {"url": reverse("games:new"), "label": _("Play again")}


POLL_FAST = "1s"
POLL_SLOW = "3s"


def poll_interval(match, view, mine, my_turn) -> str:
    """How often the board asks whether it changed (its poller's ``hx-trigger``).

    Every second while anyone else could change it. While only this device can act (its own
    turn, nobody else in ``to_act``, no open seat, no pause) only a teacher's pause or end of
    the session, or a computer taking over a quiet seat, can, so the board asks every 3 s: a
    third of the requests of the child on turn, and the partner's board, which waits, still sees
    every move within a second."""
    acting = set(view["to_act"])
    only_mine = bool(acting) and acting <= {s.number for s in mine}
    if my_turn and only_mine and not match.open_seats():
        return POLL_SLOW
    return POLL_FAST


def waiting_text(match) -> str:
    n = len(match.open_seats())
    return ngettext(
        "Waiting for %(n)s more player to join.", "Waiting for %(n)s more players to join.", n
    ) % {"n": n}


def host_name(match) -> str:
    """The name of the host's first seat (the person who set the game up)."""
    for seat in match.seats.all():
        if match.host_key and seat.owner_key == match.host_key:
            return seat.name
    for seat in match.seats.all():
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
    from games.forms import bot_levels

    host = match.is_host(keys)
    room = {
        "host": host,
        "waiting": match.status == Match.Status.WAITING,
        "over": match.is_over,
        "poll": False,
        "replay_url": "",
        "quiet": [],
    }
    if room["waiting"]:
        room["code"] = room_code_display(match.room_code or "")
        room["people"] = [
            s.name for s in match.seats.all() if s.kind not in {Seat.Kind.OPEN, Seat.Kind.BOT}
        ]
        room["open_count"] = len(match.open_seats())
        if host and match.room_code:
            url = request.build_absolute_uri(reverse("games:join", args=[match.public_id]))
            room["url"] = url
            room["join_url"] = request.build_absolute_uri(reverse("games:join_room"))
            room["qr"] = qr_svg(url, _("QR code to join this game"))
            room["levels"] = bot_levels(match.engine)
            room["best_level"] = match.engine.BEST_LEVEL
    elif room["over"]:
        if match.game != "multiplipotion":  # MultipliPotion's board has its own link
            room["replay_url"] = reverse("games:replay", args=[match.public_id])
    elif host and any(
        s.kind in Seat.TAKEOVER_KINDS and s.owner_key != match.host_key for s in match.seats.all()
    ):
        # The host's card checks every few seconds for people who went quiet.
        room["poll"] = True
        room["levels"] = bot_levels(match.engine)
        room["best_level"] = match.engine.BEST_LEVEL
        room["quiet"] = [
            {
                "number": seat.number,
                "name": seat.name,
                "minutes": minutes,
                "text": ngettext(
                    "%(name)s has been quiet for %(n)s minute.",
                    "%(name)s has been quiet for %(n)s minutes.",
                    minutes,
                )
                % {"name": isolate(seat.name), "n": minutes},
            }
            for seat, minutes in match.quiet_seats()
        ]
    return {"room": room}


def multiplipotion_context(view, ctx) -> dict:
    me, them = ctx["me"], ctx["them"]
    names = ctx["names"]
    phase = view["phase"]
    my_turn = ctx["my_turn"]
    area_mode = ""
    if my_turn and phase in {"capture_or_end", "forced_capture"} and view["areas"][them]:
        area_mode = "capture"
    elif my_turn and view["can_challenge"] and phase == "place":
        area_mode = "challenge"
    feedback = None
    last = view.get("last")
    if last and ctx["seat"] is not None and last["seat"] == me and last["ply"] >= view_ply(ctx):
        a, b, answer, product = last["a"], last["b"], last["answer"], last["product"]
        if last["correct"]:
            feedback = ("ok", _("Yes! %(a)s × %(b)s = %(p)s.") % {"a": a, "b": b, "p": product})
        else:
            feedback = (
                "oops",
                _("Not quite: %(a)s × %(b)s is %(p)s, not %(n)s. Try again!")
                % {"a": a, "b": b, "p": product, "n": answer},
            )
    # Where keyboard focus goes when this board is swapped in: the next step's first control.
    focus = ""
    if my_turn and phase == "place" and view.get("hand"):
        focus = "hand"
    elif area_mode == "capture" and len(view["areas"][me]) >= 2:
        focus = "capture"
    elif my_turn and phase in {"capture_or_end", "end"}:
        focus = "end"
    return {
        "focus": focus,
        "area_mode": area_mode,
        "feedback": feedback,
        "step": next_step(view, ctx),
        "my_area": view["areas"][me],
        "their_area": view["areas"][them],
        "my_trophies": view["trophies"][me],
        "their_trophies": view["trophies"][them],
        "their_hand_count": view["hand_counts"][them],
        "goal_slots": range(view["goal"]),
        "result": result_text(view, names, ctx),
    }


def view_ply(ctx) -> int:
    """The claim feedback is shown only right after the claim (it stays until the next move)."""
    return ctx["match"].version - 1 if ctx["match"].version else 0


def next_step(view, ctx) -> str:
    names, me, them = ctx["names"], ctx["me"], ctx["them"]
    if view["outcome"]:
        return ""
    if ctx["handoff"] is not None:
        return _("Pass the device to %(name)s.") % {"name": isolate(ctx["handoff"].name)}
    if ctx["open_seat"] is not None:
        return _("Waiting for your friend to join.")
    if ctx["spectator"]:
        acting = view["to_act"][0] if view["to_act"] else None
        return _("%(name)s is playing.") % {"name": names.get(acting, "")}
    if not ctx["my_turn"]:
        if view["phase"] == "forced_capture":
            return _("%(name)s must now make a capture.") % {"name": names[them]}
        return _("%(name)s is playing…") % {"name": names[them]}
    phase = view["phase"]
    if phase == "forced_capture":
        return _("You were caught! Tap two of your potions, then a monster they capture.")
    if phase == "place":
        if view["can_challenge"]:
            return _(
                "Place one card from your hand. But first: did %(name)s miss a capture? "
                "If so, tap two of their potions, then your monster they make."
            ) % {"name": names[them]}
        return _("Place one card from your hand.")
    if phase == "capture_or_end":
        if view["areas"][them] and len(view["areas"][me]) >= 2:
            return _(
                "Capture a monster: tap two of your potions, then the monster. Or end your turn."
            )
        return _("No capture possible this time. End your turn.")
    return _("Well done! End your turn.")


def result_text(view, names, ctx) -> str:
    outcome = view.get("outcome")
    if not outcome:
        return ""
    winners = outcome.get("winners") or []
    if not winners:
        return _("It's a tie! Nobody wins this time.")
    if ctx["seat"] is not None and winners == [ctx["me"]]:
        return _("You win! Brilliant multiplying.")
    name = names.get(winners[0], "")
    if ctx["seat"] is None:
        return _("%(name)s wins!") % {"name": name}
    # The player who lost hears what they did win (if anything), and is asked back.
    n = len(view["trophies"][ctx["me"]])
    if n == 0:
        return _("%(name)s wins! Well played: have another go!") % {"name": name}
    return ngettext(
        "%(name)s wins! You won %(n)s trophy. Well played: have another go!",
        "%(name)s wins! You won %(n)s trophies. Well played: have another go!",
        n,
    ) % {"name": name, "n": n}


def event_line(event, names) -> str | None:
    """A log line for everybody. Facts a player missed are never shown (their opponent
    must spot them), and no event names a hidden card."""
    kind = event.get("kind")
    who = names.get(event.get("seat"), "")
    if kind == "placed":
        card = event["card"]
        return _("%(who)s placed potion %(p)s (monster %(m)s).") % {
            "who": who,
            "p": card["potion"],
            "m": card["monster"],
        }
    if kind == "captured":
        return _("%(who)s captured monster %(v)s: %(a)s × %(b)s.") % {
            "who": who,
            "v": event["a"] * event["b"],
            "a": event["a"],
            "b": event["b"],
        }
    if kind == "fact" and event["context"] != "missed" and not event["correct"]:
        return _("%(who)s tried %(a)s × %(b)s = %(n)s. It is %(p)s.") % {
            "who": who,
            "a": event["a"],
            "b": event["b"],
            "n": event["answer"],
            "p": event["a"] * event["b"],
        }
    if kind == "challenge" and event["correct"]:
        return _("%(who)s spotted a capture that %(other)s missed!") % {
            "who": who,
            "other": names.get(event.get("against"), ""),
        }
    if kind == "vigilance_trophy":
        if event.get("card") is None:
            return _("%(who)s was vigilant, but the draw pile is empty.") % {"who": who}
        return _("%(who)s takes the top card of the pile as a reward.") % {"who": who}
    if kind == "turn_ended":
        return _("%(who)s ended the turn.") % {"who": who}
    if kind == "drew":
        return ngettext(
            "%(who)s drew a card (%(n)s left).",
            "%(who)s drew a card (%(n)s left).",
            event.get("pile_count", 0),
        ) % {"who": who, "n": event.get("pile_count", 0)}
    return None


def log_lines(match, names) -> list[str]:
    """The last public events of the match as sentences, in the game's own words."""
    return match.recent_lines(EVENT_LINES.get(match.game, event_line), names, 6)


def replay_context(request, match, ply_param) -> dict:
    """A finished match at move ``ply``, seen by nobody in particular (``view(state, None)``:
    no hand at all). The game's own replay presenter (REPLAY_CONTEXTS) adds its board; a game
    without one shows the public log so far (REPLAY_LOG)."""
    total = match.moves.count()
    try:
        ply = max(0, min(total, int(ply_param)))
    except (TypeError, ValueError):
        ply = 0
    seats = list(match.seats.all())
    names = {s.number: isolate(s.name) for s in seats}  # isolated, as in board_context
    state, move, moves = None, None, []
    for move_i, state_i in match.replay_states():
        state, move = state_i, move_i
        if move_i is not None:
            moves.append(move_i)
        if (move_i.ply if move_i else 0) >= ply:
            break
    view = match.engine.view(state, None)
    line_of = EVENT_LINES.get(match.game, engine_event_line(match))
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
    replay_game = REPLAY_CONTEXTS.get(match.game)
    if replay_game is not None:
        ctx.update(replay_game(view, ctx))
    return ctx


def engine_event_line(match):
    """A game without its own log lines: the engine's plain English ``describe``."""
    describe = getattr(match.engine, "describe", None)

    def line(event, names):
        return describe(event) if describe else None

    return line


def multiplipotion_replay(view, ctx) -> dict:
    names = ctx["names"]
    return {
        "replay_board": "games/replay_multiplipotion.html",
        "their_area": view["areas"][1],
        "my_area": view["areas"][0],
        "their_trophies": view["trophies"][1],
        "my_trophies": view["trophies"][0],
        "them_name": names.get(1, ""),
        "me_name": names.get(0, ""),
    }


# --- Muertoons ------------------------------------------------------------------------------
# Each girl has her own symbol and name as well as her colour (colour is never the only cue).
MU_SYMBOLS = {
    "rosita": "✿",
    "bibi": "♪",
    "rubi": "◆",
    "gabi": "✉",
    "lupita": "☾",
    "spirit": "✦",
}


def mu_girl_name(girl: str) -> str:
    return {
        "rosita": _("Rosita"),
        "bibi": _("Bibi"),
        "rubi": _("Rubi"),
        "gabi": _("Gabi"),
        "lupita": _("Lupita"),
        "spirit": _("the Spirit"),
    }.get(girl, "")


def mu_card(card: dict, playable: bool = False) -> dict:
    """A card of a view, ready for the template: its id, girl, number, symbol and a name."""
    girl, number = card["girl"], card["number"]
    if girl == "spirit":
        label = _("the Spirit")
    else:
        label = _("%(girl)s %(n)s") % {"girl": mu_girl_name(girl), "n": number}
    return {
        "id": card["id"],
        "girl": girl,
        "girl_name": mu_girl_name(girl) if girl != "spirit" else _("Spirit"),
        "number": number,
        "symbol": MU_SYMBOLS.get(girl, ""),
        "label": label,
        "playable": playable,
    }


def mu_asks_text(view) -> str:
    """What the top card asks for, in words."""
    asks = view["asks"]
    rule = asks["rule"]
    if view["lead"]:
        return _("Play any card you like.")
    if rule == "spirit_only":
        return _("Only the Spirit can go on an 11.")
    if rule == "next_number":
        return _("Play any %(n)s, or the Spirit.") % {"n": asks["number"]}
    if rule == "same_number_or_girl":
        return _("Play any %(n)s or any %(girl)s, or the Spirit.") % {
            "n": asks["number"],
            "girl": mu_girl_name(asks["girl"]),
        }
    return _("Play any card.")


def names_and(names: list[str]) -> str:
    """ "Ana", "Ana and Ben", "Ana, Ben and Cleo"."""
    names = [n for n in names if n]
    if len(names) <= 1:
        return "".join(names)
    return _("%(list)s and %(last)s") % {"list": ", ".join(names[:-1]), "last": names[-1]}


def mu_join(names: list[str]) -> str:
    return ", ".join(names)


def muertoons_context(view, ctx) -> dict:
    match, seat, names = ctx["match"], ctx["seat"], ctx["names"]
    phase = view["phase"]
    me = seat.number if seat is not None else None
    my_turn = ctx["my_turn"]
    # The viewing seat's own legal actions (its own cards only): which cards are buttons now.
    legal = []
    if my_turn:
        module = match.engine
        legal = module.legal_actions(module.load(match.state), me)
    card_actions = {a["card"]: a["type"] for a in legal if "card" in a}
    hand_action = next(iter(card_actions.values()), "")
    hand = [mu_card(c, c["id"] in card_actions) for c in view.get("hand") or []]
    can_pass = any(a["type"] == "pass" for a in legal)
    straight_done = next(
        (a["type"] for a in legal if a["type"] in {"straight_done", "no_straight"}), ""
    )
    contest = view["contest"]
    waiting_for = []
    if contest is not None:
        waiting_for = [names.get(p, "") for p in contest["players"] if p not in contest["chosen"]]
    players = []
    for number in range(view["players"]):
        status = ""
        if contest is not None and number in contest["players"]:
            status = "chosen" if number in contest["chosen"] else "choosing"
        players.append(
            {
                "number": number,
                "name": names.get(number, ""),
                "count": view["hand_counts"][number],
                "is_me": number == me,
                # Nobody is "to play" before the table is full (a family room waiting).
                "acting": number in view["to_act"] and match.status == Match.Status.ACTIVE,
                "status": status,
            }
        )
    last_contest = None
    if view["last_contest"] and phase != "contest":
        lc = view["last_contest"]
        last_contest = {
            "winner": names.get(lc["winner"], "") if lc["winner"] is not None else "",
            "choices": [
                {
                    "name": names.get(c["seat"], ""),
                    "card": mu_card(c["card"]),
                    "won": c["seat"] == lc["winner"],
                }
                for c in lc["choices"]
            ],
        }
    straight = view["straight"]
    focus = ""
    if my_turn and any(c["playable"] for c in hand):
        focus = "hand"
    elif my_turn and (can_pass or straight_done):
        focus = "pass"
    return {
        "focus": focus,
        "focus_card": next((c["id"] for c in hand if c["playable"]), "") if my_turn else "",
        "me": me,
        "hand": hand,
        "hand_action": hand_action,
        "can_pass": can_pass,
        "straight_done": straight_done,
        "top": mu_card(view["top"]),
        "top_by": names.get(view["top_by"], ""),
        "asks_text": mu_asks_text(view),
        "players": players,
        "waiting_for": mu_join(waiting_for),
        "my_choice": mu_card(view["my_choice"]) if view.get("my_choice") else None,
        "received": [
            {"name": names.get(r["from"], ""), "card": mu_card(r["card"])}
            for r in view.get("received") or []
        ],
        "straight_cards": [mu_card(c) for c in straight["cards"]] if straight else [],
        "last_contest": last_contest,
        "step": mu_next_step(view, ctx, my_turn, waiting_for),
        "log": match.recent_lines(mu_event_line, names, 8),
        "result": mu_result_text(view, names, me),
        "ranking": mu_ranking(view, names),
    }


def mu_next_step(view, ctx, my_turn, waiting_for) -> str:
    names = ctx["names"]
    phase = view["phase"]
    if view["outcome"]:
        return ""
    if ctx["handoff"] is not None:
        return _("Pass the device to %(name)s.") % {"name": isolate(ctx["handoff"].name)}
    if phase == "contest":
        if my_turn:
            return _("Choose a card for the contest. Nobody sees it until all have chosen.")
        return _("Waiting for %(names)s…") % {"names": mu_join(waiting_for)}
    if phase == "give":
        giver, receiver = view["give"]["giver"], view["give"]["receiver"]
        if my_turn:
            return _("%(name)s passed on the Gabi: give %(name)s one card from your hand.") % {
                "name": names.get(receiver, "")
            }
        if ctx["seat"] is not None and ctx["seat"].number == receiver:
            return _("%(giver)s is giving you a card.") % {"giver": names.get(giver, "")}
        return _("%(giver)s is giving %(name)s a card.") % {
            "giver": names.get(giver, ""),
            "name": names.get(receiver, ""),
        }
    if phase == "straight":
        chooser = view["straight"]["chooser"]
        if my_turn:
            if view["straight"]["cards"]:
                return _("Add a card just below or just above your straight, or say you are done.")
            return _(
                "Nobody played on your Lupita: you may put down a straight (cards with numbers "
                "in a row). Tap its first card, or say no straight."
            )
        return _("%(name)s may put down a straight.") % {"name": names.get(chooser, "")}
    if my_turn:
        if view["lead"]:
            return _("Your turn: play any card you like.")
        penalty = view["penalty"]
        if penalty == "gabi":
            return _(
                "Your turn: play a card, or pass. If you pass on the Gabi, everybody gives you "
                "a card."
            )
        if penalty == "lupita":
            return _(
                "Your turn: play a card, or pass. If you pass on the Lupita, %(name)s may put "
                "down a straight."
            ) % {"name": names.get(view["top_by"], "")}
        return _("Your turn: play a card, or pass.")
    acting = view["to_act"][0] if view["to_act"] else None
    return _("%(name)s is playing…") % {"name": names.get(acting, "")}


def mu_result_text(view, names, me) -> str:
    outcome = view.get("outcome")
    if not outcome:
        return ""
    winners = outcome.get("winners") or []
    if me is not None and me in winners and len(winners) == 1:
        return _("You reached the party first: you win!")
    if me is not None and me in winners:
        return _("You and %(names)s reached the party together: you win!") % {
            "names": names_and([names.get(w, "") for w in winners if w != me])
        }
    if len(winners) > 1:
        return _("%(names)s reached the party together and win!") % {
            "names": names_and([names.get(w, "") for w in winners])
        }
    return _("%(name)s reached the party first and wins!") % {
        "name": names.get(winners[0], "") if winners else ""
    }


def mu_ranking(view, names) -> list[dict]:
    outcome = view.get("outcome")
    if not outcome:
        return []
    return [
        {"place": i + 1, "names": mu_join([names.get(p, "") for p in group])}
        for i, group in enumerate(outcome.get("ranking") or [])
    ]


def mu_event_line(event, names) -> str | None:
    """A log line for everybody, from public events only: a card given for a Gabi or chosen
    for a contest is never named before the reveal."""
    kind = event.get("kind")
    who = names.get(event.get("seat"), "")
    if kind == "played":
        return _("%(who)s played %(card)s.") % {"who": who, "card": mu_card(event["card"])["label"]}
    if kind == "passed":
        return _("%(who)s passed.") % {"who": who}
    if kind == "lead":
        why = event.get("why")
        if why == "all_passed":
            return _("Everybody passed, so %(who)s plays any card.") % {"who": who}
        if why == "contest_won":
            return _("%(who)s won the contest and plays any card.") % {"who": who}
        if why == "no_winner":
            return _("Nobody won the contest, so %(who)s plays any card.") % {"who": who}
        return _("%(who)s plays any card.") % {"who": who}
    if kind == "contest_started":
        return _("%(who)s played a Rubi: it's a contest!") % {"who": who}
    if kind == "contest_choice":
        return _("%(who)s chose a card for the contest.") % {"who": who}
    if kind == "contest_reveal":
        shown = ", ".join(
            f"{names.get(c['seat'], '')}: {mu_card(c['card'])['label']}" for c in event["choices"]
        )
        if event.get("winner") is None:
            return _("The contest cards are turned over (%(shown)s). Nobody wins.") % {
                "shown": shown
            }
        return _("The contest cards are turned over (%(shown)s). %(who)s wins!") % {
            "shown": shown,
            "who": names.get(event["winner"], ""),
        }
    if kind == "gabi_gifts":
        return _("%(who)s passed on the Gabi, so everybody gives %(who)s a card.") % {"who": who}
    if kind == "gave":
        if event.get("nothing"):
            return _("%(who)s has only one card left and keeps it.") % {"who": who}
        return _("%(who)s gave %(to)s a card.") % {"who": who, "to": names.get(event.get("to"), "")}
    if kind == "lupita_straight":
        return _("Nobody played on the Lupita, so %(who)s may put down a straight.") % {"who": who}
    if kind == "straight_card":
        return _("%(who)s put %(card)s in the straight.") % {
            "who": who,
            "card": mu_card(event["card"])["label"],
        }
    if kind == "straight":
        return _("%(who)s put down a straight: %(cards)s.") % {
            "who": who,
            "cards": ", ".join(mu_card(c)["label"] for c in event["cards"]),
        }
    if kind == "no_straight":
        return _("%(who)s put down no straight.") % {"who": who}
    if kind == "game_over":
        winners = event.get("winners") or []
        return _("%(names)s reached the party!") % {
            "names": mu_join([names.get(w, "") for w in winners])
        }
    return None


def muertoons_replay(view, ctx) -> dict:
    names = ctx["names"]
    players = [
        {
            "name": names.get(n, ""),
            "count": view["hand_counts"][n],
            "acting": n in view["to_act"],
        }
        for n in range(view["players"])
    ]
    last_contest = None
    if view["last_contest"]:
        lc = view["last_contest"]
        last_contest = {
            "winner": names.get(lc["winner"], "") if lc["winner"] is not None else "",
            "choices": [
                {
                    "name": names.get(c["seat"], ""),
                    "card": mu_card(c["card"]),
                    "won": c["seat"] == lc["winner"],
                }
                for c in lc["choices"]
            ],
        }
    straight = view["straight"]
    return {
        "replay_board": "games/replay_muertoons.html",
        "mu_players": players,
        "top": mu_card(view["top"]),
        "top_by": names.get(view["top_by"], ""),
        "straight_cards": [mu_card(c) for c in straight["cards"]] if straight else [],
        "last_contest": last_contest,
        "ranking": mu_ranking(view, names),
    }


# Replays: a game's log lines and its replay board (games without them show the public log).
EVENT_LINES = {"multiplipotion": event_line, "muertoons": mu_event_line}
EVENT_LINES["mortadelo"] = mm_event_line
EVENT_LINES["trono"] = tr_event_line
EVENT_LINES["munchkin"] = mk_event_line
REPLAY_CONTEXTS = {"multiplipotion": multiplipotion_replay, "muertoons": muertoons_replay}

GAME_CONTEXTS = {
    "multiplipotion": multiplipotion_context,
    "muertoons": muertoons_context,
    "trono": trono_context,
    "mortadelo": mortadelo_context,
    "munchkin": munchkin_context,
}
