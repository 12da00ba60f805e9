"""Munchkin: turn an engine view into template context.

Templates see only ``view(state, seat)`` and the viewing seat's own legal actions (which cards of
its own hand and table are buttons now). Every word goes through gettext: the engine's card names
and flavours are English literals marked with ``gettext_noop`` (translated here with ``tr``), and
a card's text is rebuilt from its numbers by ``munchkin_cards.card_text`` with Django's
``gettext``/``ngettext``. Seat names are typed by people and are never translated.
"""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.utils.translation import pgettext

from games.engine.base import render_event
from games.munchkin import engine
from games.munchkin.cards import KIND_NAMES
from games.munchkin.cards import card_text
from games.presenters import common_step
from games.presenters import own_legal_actions

WINDOW_SECONDS = 20  # the "anyone?" window of a person: then the board passes for them
# The waits with that clock; the button the board presses when it runs out (engine.timeout_action).
WAITS = {"combat": "pass", "help": "decline", "trade": "decline", "run": "roll"}

KIND_SIGNS = {
    "race": "☺",
    "class": "⚔",
    "mixed": "☺",
    "double": "⚔",
    "monster": "☠",
    "curse": "✖",
    "enhancer": "▲",
    "wander": "➜",
    "levelup": "★",
    "oneshot": "✚",
    "item": "◆",
}
SLOT_ORDER = ("head", "armour", "foot", "hand1", "hand2", "none")


def tr(text: str | None) -> str:
    """An engine text (a card name, a flavour) in the reader's language ("" stays "": gettext("")
    would be the catalogue's header)."""
    return _(text) if text else ""


def mk_card_text(card: dict) -> str:
    """The sentence printed on a card of a view, in the reader's language."""
    if not card.get("text"):
        return ""
    return card_text(card, _, ngettext)


def mk_kind_name(kind: str) -> str:
    return _(KIND_NAMES[kind]) if kind in KIND_NAMES else kind


def mk_slot_name(slot: str) -> str:
    return {
        "head": _("Headgear"),
        "armour": _("Armour"),
        "foot": _("Footgear"),
        "hand1": _("1 hand"),
        "hand2": _("2 hands"),
        "none": _("No slot"),
    }.get(slot, slot)


def mk_who_name(who: str) -> str:
    return {
        "sprite": _("Sprite"),
        "stoutling": _("Stoutling"),
        "pocketkin": _("Pocketkin"),
        "brawler": _("Brawler"),
        "spellsinger": _("Spellsinger"),
        "sneak": _("Sneak"),
        "healer": _("Healer"),
    }.get(who, who)


def mk_card(card: dict) -> dict:
    """A card of a view, ready for the template (its id only for cards the viewer may see)."""
    return {
        "id": card["id"],
        "name": tr(card["name"]),
        "kind": card["kind"],
        "kind_name": mk_kind_name(card["kind"]),
        "sign": KIND_SIGNS.get(card["kind"], "•"),
        "text": mk_card_text(card),
        "flavour": tr(card.get("flavour")),
        "slot": mk_slot_name(card["slot"]) if card.get("slot") else "",
        "used": card.get("used"),
        "valid": card.get("valid", True),
        "big": card.get("big", False),
    }


def _seat_name(names, seat) -> str:
    return names.get(seat, "")


def mk_action_label(action: dict, names: dict, view: dict, kinds: dict | None = None) -> str:
    """The words on the button of one legal action."""
    t = action["type"]
    combat = view.get("combat") or {}
    monsters = (combat.get("strengths") or {}).get("monsters") or []

    def monster_name(i):
        return tr(monsters[i]["card"]["name"]) if 0 <= i < len(monsters) else ""

    if t == "play":
        if (kinds or {}).get(action["card"]) in ("item", "oneshot"):
            return _("Put it on the table")
        return pgettext("Munchkin button: play a card", "Play")
    if t == "sell" and action.get("price") == "double":
        return _("Sell at double price (Pocketkin, once a turn)")
    if t == "sell":
        return pgettext("Munchkin button: sell an item", "Sell")
    if t == "use":
        return _("Use it")
    if t == "stow":
        return _("Stop using it")
    if t == "levelup":
        return _("Go up a level")
    if t == "curse":
        if action["target"] == view["seat"]:
            return _("Curse myself")
        return _("Curse %(name)s") % {"name": _seat_name(names, action["target"])}
    if t == "uncurse":
        return _("Remove a curse")
    if t == "drop":
        return _("Discard it")
    if t == "offer":
        return _("Offer to %(name)s in a trade") % {"name": _seat_name(names, action["to"])}
    if t == "gift":
        return _("Give it to %(name)s, for nothing") % {"name": _seat_name(names, action["to"])}
    if t == "oneshot":
        if "side" in action:
            if action["side"] == "players":
                return _("Use it for the players")
            return _("Use it for the monsters")
        return _("Make %(monster)s leave") % {"monster": monster_name(action["monster"])}
    if t == "enhance":
        return _("Play it on %(monster)s") % {"monster": monster_name(action["monster"])}
    if t == "wander":
        return _("Send it into the fight")
    if t == "fury":
        return _("Discard for Pillow Fury (+1)")
    if t == "shoo":
        return _("Discard for Shoo, Spooks! (+3)")
    if t == "poke":
        return _("Discard to poke %(name)s (-2)") % {"name": _seat_name(names, action["victim"])}
    if t == "flutter":
        return _("Discard for Flutter Spell (+1 to run)")
    if t == "escape":
        return _("Escape %(monster)s with it") % {"monster": monster_name(action["monster"])}
    if t == "give":
        return _("Give to %(name)s") % {"name": _seat_name(names, action["to"])}
    if t == "discard":
        return pgettext("Munchkin button: discard a card", "Discard")
    if t == "take":
        return _("Take it")
    if t == "swap":
        return _("Give this one in exchange")
    return t


def mk_general_label(action: dict, names: dict, view: dict) -> str:
    t = action["type"]
    if t == "ready":
        return _("I'm ready")
    if t == "kick":
        return _("Kick open the door")
    if t == "loot":
        return _("Loot the room (a card face down)")
    if t == "end_turn":
        return _("End my turn")
    if t == "pass":
        return _("Nothing from me: pass")
    if t == "accept":
        return _("Yes, I'll help")
    if t == "decline":
        return _("No, thanks")
    if t == "fight":
        return _("Look for trouble: fight it")
    if t == "roll":
        monsters = (view.get("combat") or {}).get("strengths", {}).get("monsters") or []
        i = action["monster"]
        name = tr(monsters[i]["card"]["name"]) if i < len(monsters) else ""
        left = {m["index"]: m for m in (view.get("run") or {}).get("left") or []}
        need = left.get(i, {}).get("need")
        if need is None:
            return _("Roll the die to run from %(monster)s") % {"monster": name}
        if need <= 1:
            return _("Roll the die to run from %(monster)s (any roll escapes)") % {"monster": name}
        if need >= 7:
            return _("Roll the die to run from %(monster)s (no roll can escape)") % {
                "monster": name
            }
        return _("Roll the die to run from %(monster)s (%(need)s or more escapes)") % {
            "monster": name,
            "need": need,
        }
    if t == "lullaby":
        monsters = (view.get("combat") or {}).get("strengths", {}).get("monsters") or []
        i = action["monster"]
        name = tr(monsters[i]["card"]["name"]) if i < len(monsters) else ""
        return _("Lullaby: discard your whole hand to sing %(monster)s to sleep") % {
            "monster": name
        }
    return t


def _button(action: dict, label: str, primary: bool = False) -> dict:
    return {
        "fields": [(k, v) for k, v in action.items()],
        "label": label,
        "type": action["type"],
        "primary": primary,
    }


def mk_part_label(part: dict, names: dict) -> str:
    k = part["kind"]
    if k == "level":
        if "seat" in part:
            return _("%(name)s's level") % {"name": _seat_name(names, part["seat"])}
        return _("%(monster)s's level") % {"monster": tr(part["name"])}
    if k == "item":
        return tr(part["name"])
    if k == "curse":
        return _("Curse: %(curse)s") % {"curse": tr(part["name"])}
    if k == "fury":
        return _("Pillow Fury (%(name)s)") % {"name": _seat_name(names, part["seat"])}
    if k == "shoo":
        return _("Shoo, Spooks! (%(name)s)") % {"name": _seat_name(names, part["seat"])}
    if k == "poke":
        return _("Sneaky poke by %(name)s") % {"name": _seat_name(names, part["by"])}
    if k == "enhancer":
        return tr(part["name"])
    if k == "against":
        return _("Against a %(who)s") % {"who": mk_who_name(part["who"])}
    if k == "oneshot":
        return tr(part["name"])
    return k


def _parts(parts, names):
    return [{"label": mk_part_label(p, names), "value": p["value"]} for p in parts]


def mk_character(ch: dict, names: dict, view: dict, live: bool = True) -> dict:
    items = [mk_card(i) for i in ch["items"]]
    items.sort(key=lambda i: (not i["used"], i["slot"]))
    return {
        "seat": ch["seat"],
        "name": _seat_name(names, ch["seat"]),
        "level": ch["level"],
        "races": ", ".join(tr(r["name"]) for r in ch["races"])
        or pgettext("Munchkin: the race of a character with no race card", "Human"),
        "classes": ", ".join(tr(c["name"]) for c in ch["classes"])
        or pgettext("Munchkin: a character with no class card", "No class"),
        "extras": [tr(x["name"]) for x in (ch["mixed"], ch["double"]) if x],
        "used": [i for i in items if i["used"]],
        "carried": [i for i in items if not i["used"]],
        "curses": [mk_card(c) for c in ch["curses"]],
        "hand_count": ch["hand_count"],
        "hand_limit": ch["hand_limit"],
        "dead": ch["dead"],
        "strength": ch["strength"],
        "run_bonus": ch["run_bonus"],
        # Nobody is "to play" before the table is full (a family room waiting) or after.
        "acting": live and ch["seat"] in view["to_act"],
        "current": ch["seat"] == view["current"],
    }


def munchkin_context(view, ctx) -> dict:
    match, seat, names = ctx["match"], ctx["seat"], ctx["names"]
    me = seat.number if seat is not None else None
    my_turn = ctx["my_turn"]
    legal = own_legal_actions(ctx)
    live = match.status == "active"
    chars = [mk_character(ch, names, view, live) for ch in view["characters"]]
    mine = chars[me] if me is not None else None
    hand = [mk_card(c) for c in view.get("hand") or []]
    by_card, general, asks = _sort_actions(
        legal, _my_cards(view, me, hand, mine), hand, names, view
    )
    for card in hand + (mine["used"] + mine["carried"] if mine is not None else []):
        card["actions"] = by_card.get(card["id"], [])
    return {
        "mk_chars": chars,
        "mine": mine,
        "hand": hand,
        "my_powers": _my_powers(view, me, by_card),
        "general": general,
        "ask": _ask(asks, mine, names),
        "combat": mk_combat(view, names),
        "loot": _loot(view, names, by_card),
        "trade": _trade(view, names),
        # A clock runs while this person is waited for (the "anyone?" window, a help request,
        # a trade offer, a run away): then the board answers for them, as the table would.
        "window": view["phase"] in WAITS and my_turn,
        "wait": view["phase"] if my_turn else "",
        "wait_button": WAITS.get(view["phase"], "") if my_turn else "",
        "window_seconds": WINDOW_SECONDS,
        "acting_name": ", ".join(_seat_name(names, s) for s in view["to_act"]) if live else "",
        "step": mk_next_step(view, ctx, names, me),
        "log": [line for e in view["log"] if (line := match.spec.event_line(e, names))][-10:],
        "result": mk_result_text(view, names, me),
        "ranking": mk_ranking(view, names),
        "door": dict(view["door"], name=tr(view["door"]["name"])) if view["door"] else None,
        "last_roll": mk_roll_text(view, names),
        "charity": view["charity"],
        "focus": "actions" if my_turn else "",
    }


def _my_cards(view, me, hand, mine) -> set[str]:
    """The ids of the viewer's own cards: its hand, its items, its races and classes."""
    ids = {c["id"] for c in hand}
    if mine is not None:
        ids |= {i["id"] for i in mine["used"] + mine["carried"]}
        ids |= {c["id"] for c in view["characters"][me]["races"]}
        ids |= {c["id"] for c in view["characters"][me]["classes"]}
    return ids


def _sort_actions(legal, my_cards, hand, names, view):
    """The legal actions as buttons: on the card they play (by card id), the general ones, and
    the calls for help (asked for with treasures, or with an item), for the "ask" form."""
    kinds = {c["id"]: c["kind"] for c in hand}
    by_card: dict[str, list] = {}
    general: list[dict] = []
    asks: dict[str, list] = {"treasures": [], "items": []}
    for a in legal:
        t = a["type"]
        if t == "ask_help":
            asks["items" if "item" in a else "treasures"].append(a)
        elif t in ("take", "swap") or (a.get("card") in my_cards and t != "fight"):
            label = mk_action_label(a, names, view, kinds)
            by_card.setdefault(a["card"], []).append(_button(a, label))
        elif t == "fight":
            by_card.setdefault(a["card"], []).append(
                _button(a, mk_general_label(a, names, view), True)
            )
        else:
            primary = t in ("kick", "end_turn", "ready", "roll", "accept")
            general.append(_button(a, mk_general_label(a, names, view), primary))
    return by_card, general, asks


def _my_powers(view, me, by_card) -> list[dict]:
    """The viewer's races and classes as cards, with their buttons."""
    if me is None:
        return []
    ch = view["characters"][me]
    return [dict(mk_card(c), actions=by_card.get(c["id"], [])) for c in ch["races"] + ch["classes"]]


def _loot(view, names, by_card) -> dict | None:
    if view["loot"] is None:
        return None
    return {
        "dead": _seat_name(names, view["loot"]["dead"]),
        "cards": [
            dict(mk_card(c), actions=by_card.get(c["id"], [])) for c in view["loot"]["cards"]
        ],
    }


def _trade(view, names) -> dict | None:
    t = view["trade"]
    if t is None:
        return None
    return {
        "from": _seat_name(names, t["from"]),
        "to": _seat_name(names, t["to"]),
        "card": mk_card(t["card"]),
    }


def _ask(asks, mine, names) -> dict | None:
    """The "ask for help" form: whom, for how many treasures, or for which of the viewer's items."""
    by_treasures, by_item = asks["treasures"], asks["items"]
    if not by_treasures and not by_item:
        return None
    seats = sorted({a["to"] for a in by_treasures + by_item})
    items = []
    if mine:
        own = mine["used"] + mine["carried"]
        items = [
            (cid, next((i["name"] for i in own if i["id"] == cid), ""))
            for cid in sorted({a["item"] for a in by_item})
        ]
    return {
        "people": [(s, _seat_name(names, s)) for s in seats],
        "treasures": sorted({a["treasures"] for a in by_treasures}),
        "items": items,
    }


def mk_verdict(st) -> dict:
    """The fight's standing in a sign and a sentence (a tie is the players' with a Brawler)."""
    players, monsters = st["players_total"], st["monsters_total"]
    sign = ">" if players > monsters else "=" if players == monsters else "<"
    if st["winning"]:
        text = _("The players are winning.")
    elif st["ties_win"]:
        text = _("The monsters are winning.")
    else:
        text = _("The monsters are winning (ties go to the monster).")
    if st["ties_win"]:
        brawler = _("A Brawler fights: the players win ties.")
        text = f"{text} {brawler}"
    return {"sign": sign, "text": text}


def mk_combat(view, names) -> dict | None:
    c = view["combat"]
    if c is None:
        return None
    st = c["strengths"]
    monsters = [
        {
            "card": mk_card(m["card"]),
            "parts": _parts(m["parts"], names),
            "total": m["total"],
            "treasures": m["treasures"],
        }
        for m in st["monsters"]
    ]
    bribe = c["bribe"] or c["deal"]
    return {
        "fighter": _seat_name(names, c["fighter"]),
        "helper": _seat_name(names, c["helper"]) if c["helper"] is not None else "",
        "asking": _seat_name(names, c["asking"]) if c["asking"] is not None else "",
        "bribe": mk_bribe_text(bribe),
        "players": _parts(st["players"], names),
        "players_total": st["players_total"],
        "monsters": monsters,
        "monster_extra": _parts(st["monster_extra"], names),
        "monsters_total": st["monsters_total"],
        "winning": st["winning"],
        "ties_win": st["ties_win"],
        "verdict": mk_verdict(st),
        "treasures": c["treasures"],
        "removed": [tr(name) for name in c["removed"]],
        "turn": _seat_name(names, c["turn"]),
        "passes": c["passes"],
        "players_count": view["players"],
    }


def mk_bribe_text(bribe) -> str:
    """What a call for help offers (a view's bribe or deal), in the reader's language."""
    if not bribe:
        return ""
    item = bribe.get("item")
    phrase = engine.bribe_phrase(bribe.get("treasures", 0), item["name"] if item else None)
    return render_event(*phrase, _, ngettext)


def mk_roll_text(view, names) -> str:
    """The last Run Away roll, while its player's turn lasts (the log keeps it after: on the
    next player's fight it read as if it were about that one)."""
    r = view.get("last_roll")
    if not r or r["seat"] != view["current"]:
        return ""
    if r["escaped"]:
        return _("%(name)s rolled %(die)s (%(bonus)+d): escaped from %(monster)s!") % {
            "name": _seat_name(names, r["seat"]),
            "die": r["die"],
            "bonus": r["bonus"],
            "monster": tr(r["name"]),
        }
    return _("%(name)s rolled %(die)s (%(bonus)+d): caught by %(monster)s.") % {
        "name": _seat_name(names, r["seat"]),
        "die": r["die"],
        "bonus": r["bonus"],
        "monster": tr(r["name"]),
    }


def mk_next_step(view, ctx, names, me) -> str:
    if (step := common_step(view, ctx)) is not None:
        return step
    phase = view["phase"]
    acting = view["to_act"][0] if view["to_act"] else None
    who = _seat_name(names, acting)
    if not ctx["my_turn"]:
        if phase == "combat":
            return _("Anyone? %(name)s may play a card or pass…") % {"name": who}
        if phase == "help":
            return _("%(name)s was asked for help…") % {"name": who}
        return _("%(name)s is playing…") % {"name": who}
    if phase == "create":
        return _("Make your character: play a race, a class and items if you like, then say ready.")
    if phase == "prep":
        return _("Your turn: get ready (items, sales, curses), then kick open the door.")
    if phase == "trouble":
        return _(
            "No monster behind the door. Fight a monster from your hand, loot the room, or just "
            "end your turn."
        )
    if phase == "charity":
        return _("You may still play cards. Then end your turn.")
    if phase == "give":
        ch = view["charity"]
        if ch["targets"]:
            return ngettext(
                "Too many cards: give %(n)s card to the lowest level.",
                "Too many cards: give %(n)s cards to the lowest level.",
                ch["excess"],
            ) % {"n": ch["excess"]}
        return ngettext(
            "Too many cards: you are the lowest level, so discard %(n)s card.",
            "Too many cards: you are the lowest level, so discard %(n)s cards.",
            ch["excess"],
        ) % {"n": ch["excess"]}
    if phase == "combat":
        c = view["combat"]
        if me == c["fighter"]:
            return _("Your fight! Play cards, ask for help, or pass.")
        return _("Anyone? It's your chance: play a card, or pass.")
    if phase == "help":
        return _("%(name)s asks you for help. Will you help?") % {
            "name": _seat_name(names, view["combat"]["fighter"])
        }
    if phase == "run":
        return _("You lost the fight: run away! Roll the die once for each monster.")
    if phase == "loot_body":
        return _("Take one card from %(name)s's things.") % {
            "name": _seat_name(names, view["loot"]["dead"])
        }
    if phase == "trade":
        return _("%(name)s offers you a trade. Give an item for it, or say no.") % {
            "name": _seat_name(names, view["trade"]["from"])
        }
    return ""


def mk_result_text(view, names, me) -> str:
    outcome = view.get("outcome")
    if not outcome:
        return ""
    from games.presenters import names_and

    winners = outcome.get("winners") or []
    level10 = outcome["reason"] == "level10"
    if me is not None and winners == [me]:
        if level10:
            return _("You reached level 10: you win!")
        return _("The dungeon closes and you have the highest level: you win!")
    if me is not None and me in winners:
        others = names_and([_seat_name(names, w) for w in winners if w != me])
        if level10:
            return _("You and %(names)s reached level 10 together: you win!") % {"names": others}
        return _("The dungeon closes. You and %(names)s share the highest level: you win!") % {
            "names": others
        }
    who = names_and([_seat_name(names, w) for w in winners])
    if level10:
        return ngettext(
            "%(names)s reached level 10 and won!",
            "%(names)s reached level 10 together and won!",
            len(winners),
        ) % {"names": who}
    return _("The dungeon closes. Highest level: %(names)s.") % {"names": who}


def mk_ranking(view, names) -> list[dict]:
    outcome = view.get("outcome")
    if not outcome:
        return []
    levels = {ch["seat"]: ch["level"] for ch in view["characters"]}
    return [
        {
            "names": ", ".join(_seat_name(names, p) for p in group),
            "level": levels[group[0]],
        }
        for group in outcome.get("ranking") or []
        if group
    ]
