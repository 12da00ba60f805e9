"""Muertoons' board, replay and log lines from the engine's view."""

from django.utils.translation import gettext as _

from config.names import isolate
from games.models import Match
from games.presenters import names_and

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
        "replay_board": "games/muertoons/replay.html",
        "mu_players": players,
        "top": mu_card(view["top"]),
        "top_by": names.get(view["top_by"], ""),
        "straight_cards": [mu_card(c) for c in straight["cards"]] if straight else [],
        "last_contest": last_contest,
        "ranking": mu_ranking(view, names),
    }
