"""Mortadelo Multiverso: turn an engine view into template context.

Templates see only ``view(state, seat)`` and the viewing seat's own legal actions. Another
player's hand and secret duel choice are never in a view; a chosen card shows only to its owner
until both duellists have chosen, then both flip together (``last_duel``)."""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.utils.translation import pgettext

from games.engine.base import Phrase
from games.engine.base import render_event
from games.mortadelo.cards import blow_effects
from games.mortadelo.engine import effect_phrase
from games.presenters import common_step
from games.presenters import own_legal_actions

# Each card kind has a sign and a name as well as a colour (colour is never the only cue):
# attacks are filled shapes, defences the same shapes hollow, Total Defence a "no" sign.
MM_KIND_SIGNS = {
    "punch": "◆",
    "kick": "▲",
    "block_punch": "◇",
    "block_kick": "△",
    "total": "⊘",
}
# Each colour deck has a sign too.
MM_COLOUR_SIGNS = {
    "red": "♥",
    "blue": "♠",
    "green": "♣",
    "yellow": "★",
    "purple": "♦",
    "orange": "●",
}
MM_CHARACTER_SIGNS = {
    "pirate": "☠",
    "caveman": "⚒",
    "ninja": "☯",
    "vampire": "☾",
    "wizard": "✪",
    "robot": "⚙",
    "doctor": "✚",
    "chef": "♨",
    "astronaut": "☄",
    "mummy": "☥",
    "king": "♛",
    "cowboy": "☆",
}


def mm_kind_name(kind: str) -> str:
    return {
        "punch": _("Punch attack"),
        "kick": _("Kick attack"),
        "block_punch": _("Punch defence"),
        "block_kick": _("Kick defence"),
        "total": _("Total Defence"),
    }.get(kind, kind)


def mm_colour_name(colour: str) -> str:
    return {
        "red": pgettext("the colour of a deck of cards", "red"),
        "blue": pgettext("the colour of a deck of cards", "blue"),
        "green": pgettext("the colour of a deck of cards", "green"),
        "yellow": pgettext("the colour of a deck of cards", "yellow"),
        "purple": pgettext("the colour of a deck of cards", "purple"),
        "orange": pgettext("the colour of a deck of cards", "orange"),
    }.get(colour, colour)


def mm_card_name(name: str) -> str:
    return {
        "Jab": _("Jab"),
        "Haymaker": _("Haymaker"),
        "Mystery Fist": _("Mystery Fist"),
        "Stomp": _("Stomp"),
        "Cartwheel": _("Cartwheel"),
        "Mystery Boot": _("Mystery Boot"),
        "Fist Catcher": _("Fist Catcher"),
        "Shin Guard": _("Shin Guard"),
        "Clever Dodge": _("Clever Dodge"),
        "Not Today!": _("Not Today!"),
        "Mega Wallop": _("Mega Wallop"),
        "Thunder Stomp": _("Thunder Stomp"),
        "Windmill Fists": _("Windmill Fists"),
        "Scissor Kick": _("Scissor Kick"),
        "Cosmic Knuckles": _("Cosmic Knuckles"),
        "Rocket Boots": _("Rocket Boots"),
        "Boomerang Block": _("Boomerang Block"),
        "Trampoline Block": _("Trampoline Block"),
        "Pillow Fort": _("Pillow Fort"),
        "Cloning Shield": _("Cloning Shield"),
        "Healing Hook": _("Healing Hook"),
        "Treasure Kick": _("Treasure Kick"),
        "Lucky Parry": _("Lucky Parry"),
        "Sidestep Surprise": _("Sidestep Surprise"),
    }.get(name, name)


def mm_character_name(key: str) -> str:
    return {
        "pirate": _("Captain Mortadelo"),
        "caveman": _("Caveman Mortadelo"),
        "ninja": _("Ninja Mortadelo"),
        "vampire": _("Vampire Mortadelo"),
        "wizard": _("Wizard Mortadelo"),
        "robot": _("Robot Mortadelo"),
        "doctor": _("Doctor Mortadelo"),
        "chef": _("Chef Mortadelo"),
        "astronaut": _("Astro Mortadelo"),
        "mummy": _("Mummy Mortadelo"),
        "king": _("King Mortadelo"),
        "cowboy": _("Cowboy Mortadelo"),
    }.get(key, key)


def mm_blow_name(key: str) -> str:
    return {
        "pirate": _("Cannonball Clout"),
        "caveman": _("Big Club Bonk"),
        "ninja": _("Shadow Flurry"),
        "vampire": _("Midnight Nibble"),
        "wizard": _("Hat Trick"),
        "robot": _("Oil Change"),
        "doctor": _("Magic Plaster"),
        "chef": _("Hot Soup Splash"),
        "astronaut": _("Moon Jump"),
        "mummy": _("Bandage Whip"),
        "king": _("Royal Treasury"),
        "cowboy": _("Lasso Yank"),
    }.get(key, key)


def mm_effect_text(name: str, amount: int) -> str:
    phrase = effect_phrase(name, amount)
    return render_event(*phrase, _, ngettext) if isinstance(phrase, Phrase) else phrase


def mm_effects_text(effects) -> str:
    return ", ".join(mm_effect_text(n, a) for n, a in effects) or _("no effect")


def mm_card(card: dict, playable: bool = False) -> dict:
    """A card of a view, ready for the template. ``id`` only when the view gave one."""
    name = mm_card_name(card["name"])
    kind = mm_kind_name(card["kind"])
    effects = mm_effects_text(card["effects"])
    return {
        "id": card.get("id", ""),
        "name": name,
        "kind": card["kind"],
        "kind_name": kind,
        "sign": MM_KIND_SIGNS.get(card["kind"], ""),
        "effects": [mm_effect_text(n, a) for n, a in card["effects"]],
        "plus": card["plus"],
        "label": _("%(name)s: %(kind)s; %(effects)s")
        % {"name": name, "kind": kind, "effects": effects},
        "playable": playable,
    }


def mm_character(key: str | None, players: int) -> dict | None:
    """A Mortadelo for the template: its secret blow as it works in this game (a few blows
    have other icons with 2 players)."""
    if key is None:
        return None
    return {
        "key": key,
        "name": mm_character_name(key),
        "blow": mm_blow_name(key),
        "sign": MM_CHARACTER_SIGNS.get(key, ""),
        "effects": mm_effects_text(blow_effects(key, players)),
    }


def mm_join(names) -> str:
    return ", ".join(n for n in names if n)


def mortadelo_context(view, ctx) -> dict:
    match, seat, names = ctx["match"], ctx["seat"], ctx["names"]
    phase = view["phase"]
    me = seat.number if seat is not None else None
    my_turn = ctx["my_turn"]
    legal = own_legal_actions(ctx)
    types = {a["type"] for a in legal}
    card_actions = {a["card"]: a["type"] for a in legal if "card" in a}
    hand_action = next((t for t in ("choose", "combo") if t in types), "")
    hand = [
        mm_card(c, hand_action != "" and c["id"] in card_actions) for c in view.get("hand") or []
    ]
    duel = view["duel"]
    chars = view["characters"]
    waiting_for = []
    if duel is not None and phase == "duel":
        waiting_for = [names.get(p, "") for p in duel["seats"] if p not in duel["chosen"]]
    focus = ""
    if my_turn:
        if hand_action:
            focus = "hand"
        elif types & {"pick", "challenge", "meddle", "upgrade"}:
            focus = "choice"
    return {
        "focus": focus,
        "me": me,
        "hand": hand,
        "hand_action": hand_action,
        "can_pick": "pick" in types,
        "can_challenge": "challenge" in types,
        "can_meddle": "meddle" in types,
        "can_upgrade": "upgrade" in types,
        "can_skip_combo": "no_combo" in types,
        "free_characters": [mm_character(k, view["players"]) for k in view["free_characters"]]
        if phase == "pick"
        else [],
        "targets": [
            {"number": a["target"], "name": names.get(a["target"], "")}
            for a in legal
            if a["type"] in ("challenge", "meddle")
        ],
        "players": mm_players(view, names, me, match.status == "active"),
        "my_character": mm_character(chars[me]["key"], view["players"])
        if me is not None and chars[me]
        else None,
        "market": [mm_card(c, "upgrade" in types) for c in view["market"]],
        "plus_deck_count": view["plus_deck_count"],
        "duel_names": [names.get(p, "") for p in duel["seats"]] if duel else [],
        "waiting_for": mm_join(waiting_for),
        "my_choice": mm_card(view["my_choice"]) if view.get("my_choice") else None,
        "table": [
            {"name": names.get(t["seat"], ""), "card": mm_card(t["card"])}
            for t in mm_table_beside_last_duel(view)
        ],
        "duel_round": duel["round"] if duel else 0,
        "last_duel": mm_last_duel(view, names),
        "task": view["task"],
        "step": mm_next_step(view, ctx, my_turn, waiting_for),
        "log": match.recent_lines(match.spec.event_line, names, 10),
        "result": mm_result_text(view, names, me),
        "ranking": mm_ranking(view, names),
        "turn_text": _("Turn %(n)s of at most %(cap)s")
        % {"n": view["turn"], "cap": view["turn_cap"]}
        if phase != "pick"
        else "",
    }


def mm_players(view, names, me, active) -> list[dict]:
    """Every seat's Mortadelo, wounds, card counts and whether it has chosen its duel card
    (never which card)."""
    phase, duel, chars = view["phase"], view["duel"], view["characters"]
    players = []
    for number in range(view["players"]):
        status = ""
        if duel is not None and phase == "duel" and number in duel["seats"]:
            status = "chosen" if number in duel["chosen"] else "choosing"
        wounds = view["wound_counts"][number]
        colour = view["colours"][number]
        discards = view["discards"][number]
        players.append(
            {
                "number": number,
                "name": names.get(number, ""),
                "character": mm_character(
                    chars[number]["key"] if chars[number] else None, view["players"]
                ),
                "colour": colour,
                "colour_name": mm_colour_name(colour),
                "colour_sign": MM_COLOUR_SIGNS.get(colour, ""),
                "wounds": wounds,
                "wound_marks": range(wounds),
                "hand": view["hand_counts"][number],
                "deck": view["deck_counts"][number],
                "discard": len(discards),
                "discard_top": mm_card(discards[-1]) if discards else None,
                "out": view["out"][number] is not None,
                "is_me": number == me,
                # Nobody is "to play" before the table is full (a family room waiting) or after.
                "acting": number in view["to_act"] and active,
                "current": number == view["current"] and phase != "pick",
                "duelling": duel is not None and number in duel["seats"],
                "status": status,
            }
        )
    return players


def mm_table_beside_last_duel(view) -> list[dict]:
    """The cards played in this duel but the two just flipped over, which the board shows
    already (a combo's cards, and an earlier round's after both played another card)."""
    table = list(view["table"])
    for c in (view["last_duel"] or {}).get("cards", []):
        shown = {"seat": c["seat"], "card": c["card"]}
        if shown in table:
            # From the end: the flipped pair was put down after the earlier rounds' cards; an
            # equal card (the same name and seat) looks the same wherever it is taken from.
            del table[len(table) - 1 - table[::-1].index(shown)]
    return table


def mm_last_duel(view, names) -> dict | None:
    """The two cards of the last duel, once both have flipped over; ``when``: "now" (this
    duel's round), "round" (this duel's earlier round, before both played another card) or
    "duel" (an earlier duel: none is on, or two others duel now)."""
    if not view["last_duel"]:
        return None
    last, duel = view["last_duel"], view["duel"]
    if duel is None or sorted(duel["seats"]) != sorted(last["seats"]):
        when = "duel"
    else:
        when = "now" if duel["round"] == last.get("round", 1) else "round"
    return {
        "when": when,
        "cards": [
            {"name": names.get(c["seat"], ""), "card": mm_card(c["card"]), "success": c["success"]}
            for c in view["last_duel"]["cards"]
        ],
    }


def mm_next_step(view, ctx, my_turn, waiting_for) -> str:
    names = ctx["names"]
    phase = view["phase"]
    if (step := common_step(view, ctx)) is not None:
        return step
    acting = view["to_act"][0] if view["to_act"] else None
    if phase == "pick":
        if my_turn:
            return _("Choose your Mortadelo. Each one has a different secret blow.")
        return _("%(name)s is choosing a Mortadelo…") % {"name": names.get(acting, "")}
    if phase == "challenge":
        if my_turn:
            return _("Your turn: choose whom you challenge to a duel.")
        return _("%(name)s is choosing whom to challenge…") % {"name": names.get(acting, "")}
    if phase == "duel":
        a, b = view["duel"]["seats"]
        if my_turn:
            other = b if ctx["me"] == a else a
            return _(
                "Duel with %(name)s! Choose a card face down. Nobody sees it until you have "
                "both chosen."
            ) % {"name": names.get(other, "")}
        return _("Waiting for %(names)s to choose…") % {"names": mm_join(waiting_for)}
    task = view["task"] or {}
    who = names.get(task.get("seat"), "")
    do = task.get("do")
    if do == "upgrade":
        if my_turn:
            if task.get("why") == "ko":
                return _("You knocked a Mortadelo out! Take one of the Mamporros Plus.")
            if task.get("of"):
                return _(
                    "Upgrade! Take one of the four Mamporros Plus into your hand (%(step)s of "
                    "%(of)s)."
                ) % {"step": task["step"], "of": task["of"]}
            return _("Upgrade! Take one of the four Mamporros Plus into your hand.")
        if task.get("of"):
            return _("%(name)s is taking a Mamporro Plus (%(step)s of %(of)s)…") % {
                "name": who,
                "step": task["step"],
                "of": task["of"],
            }
        return _("%(name)s is taking a Mamporro Plus…") % {"name": who}
    if do == "combo":
        if my_turn:
            return _(
                "Play another card! Only its effect counts, and nobody can react. Or keep "
                "your cards."
            )
        return _("%(name)s may play another card…") % {"name": who}
    if do == "meddle":
        if my_turn:
            return _(
                "From the cloning machine: choose a duellist to get your Mortadelo's secret blow."
            )
        return _("%(name)s is meddling from the cloning machine…") % {"name": who}
    return ""


def mm_result_text(view, names, me) -> str:
    outcome = view.get("outcome")
    if not outcome:
        return ""
    winners = outcome.get("winners") or []
    reason = outcome.get("reason")
    if not winners:
        if reason == "collapse":
            return _("Double KO after a double KO: the multiverse collapses! Nobody wins.")
        return _("Double KO! It's a tie: nobody wins. Time to throw in another one!")
    n = len(winners)
    if me is not None and me in winners:
        if n == 1:
            return _("You saved the multiverse: you win!")
        others = mm_join(names.get(w, "") for w in winners if w != me)
        return _("You share the win with %(names)s!") % {"names": others}
    everyone = mm_join(names.get(w, "") for w in winners)
    if reason == "double_ko_previous":
        return ngettext(
            "Double KO! %(name)s, knocked out just before, saves the multiverse and wins!",
            "Double KO! %(name)s, knocked out just before, save the multiverse and win!",
            n,
        ) % {"name": everyone}
    if reason == "time":
        return ngettext(
            "Time is up! Fewest wounds: %(names)s wins!",
            "Time is up! Fewest wounds: %(names)s win!",
            n,
        ) % {"names": everyone}
    return _("%(name)s is the last Mortadelo standing and saves the multiverse!") % {
        "name": everyone
    }


def mm_ranking(view, names) -> list[dict]:
    outcome = view.get("outcome")
    if not outcome:
        return []
    return [
        {"place": i + 1, "names": mm_join(names.get(p, "") for p in group)}
        for i, group in enumerate(outcome.get("ranking") or [])
    ]
