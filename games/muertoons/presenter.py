"""Muertoons' board and replay from the engine's view (its log lines are the engine's
EVENT_TEXTS: game.py)."""

from django.utils.translation import gettext as _

from games.engine.base import render_event
from games.models import Match
from games.presenters import common_step
from games.presenters import names_and
from games.presenters import own_legal_actions

from .engine import GIRL_WORDS
from .engine import card_name

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
    word = GIRL_WORDS.get(girl)
    return _(word) if word else ""


def mu_card(card: dict, playable: bool = False) -> dict:
    """A card of a view, ready for the template: its id, girl, number, symbol and a name."""
    girl, number = card["girl"], card["number"]
    template, fields = card_name(card)
    return {
        "id": card["id"],
        "girl": girl,
        "girl_name": mu_girl_name(girl) if girl != "spirit" else _("Spirit"),
        "number": number,
        "symbol": MU_SYMBOLS.get(girl, ""),
        "label": render_event(template, fields, _),
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


def mu_join(names: list[str]) -> str:
    return ", ".join(names)


def muertoons_context(view, ctx) -> dict:
    match, seat, names = ctx["match"], ctx["seat"], ctx["names"]
    phase = view["phase"]
    me = seat.number if seat is not None else None
    my_turn = ctx["my_turn"]
    legal = own_legal_actions(ctx)
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
    last_contest = mu_last_contest(view, names) if phase != "contest" else None
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
        "log": match.recent_lines(match.spec.event_line, names, 8),
        "result": mu_result_text(view, names, me),
        "ranking": mu_ranking(view, names),
    }


def mu_next_step(view, ctx, my_turn, waiting_for) -> str:
    names = ctx["names"]
    phase = view["phase"]
    if (step := common_step(view, ctx)) is not None:
        return step
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
    straight = view["straight"]
    return {
        "replay_board": "games/muertoons/replay.html",
        "mu_players": players,
        "top": mu_card(view["top"]),
        "top_by": names.get(view["top_by"], ""),
        "straight_cards": [mu_card(c) for c in straight["cards"]] if straight else [],
        "last_contest": mu_last_contest(view, names),
        "ranking": mu_ranking(view, names),
    }


def mu_last_contest(view, names) -> dict | None:
    """The cards of the last contest, turned over (None before any)."""
    lc = view["last_contest"]
    if not lc:
        return None
    return {
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
