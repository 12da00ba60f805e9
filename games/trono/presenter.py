"""Il Trono di Mortadella: turn an engine view into template context.

Templates see only ``view(state, seat)`` and the viewing seat's own legal actions. A role is shown
only in its owner's view (``my_role``); other players' roles appear at the end of the game (or the
Brigand's, which is played face up)."""

from django.utils.translation import gettext as _

from games.presenters import common_step
from games.presenters import own_legal_actions

from .engine import FACE_NAMES
from .engine import ROLES

# Each symbol has a sign and a name as well as a colour (colour is never the only cue).
TR_SIGNS = {
    "people": "☺",
    "tower": "♜",
    "book": "▤",
    "mortadella": "◉",
    "wine": "♒",
    "rat": "☣",
}
TOKEN_SYMS = ("people", "tower", "book", "mortadella")
AFTER_CHOICE = ("resolve", "cancel", "plague")


def tr_face_name(face: str) -> str:
    """A die face's name, translated (the engine marks the names once: FACE_NAMES)."""
    return _(FACE_NAMES[face]) if face in FACE_NAMES else face


def tr_role_name(role: str) -> str:
    """A role's name, translated (the engine marks the names once: ROLES)."""
    return _(ROLES[role]["name"]) if role in ROLES else role


def tr_effect_name(kind: str) -> str:
    return {
        "people": _("1 People: take 1 People"),
        "people2": _("2 People: take 2 People, or start a Revolution"),
        "tower": _("1 Tower: take 1 Tower"),
        "book": _("1 Book: take 1 Book, or use it as a Joker"),
        "mortadella": _("1 Mortadella: take 1 Mortadella"),
        "wine": _("Drunkenness: a player gives back 1 People"),
        "wine2": _("Inebriation: a player misses the next turn"),
        "rat": _("Plague: everybody gives back 1 People (or 1 Tower)"),
        "rat2": _("Black Death: everybody gives back 1 People (or 1 Tower) and 1 Mortadella"),
    }.get(kind, kind)


def tr_die(face: str) -> dict:
    return {"face": face, "sign": TR_SIGNS.get(face, ""), "name": tr_face_name(face)}


def tr_condition(role: str, need: list) -> list[str]:
    """The victory condition of a role, one line per symbol, in words."""
    if role == "brigand":
        return [
            _("At least 8 tokens of one of People, Book or Mortadella, and none of the other two.")
        ]
    lines = []
    for sym, op, n in need:
        if op == "min":
            lines.append(_("%(sym)s: at least %(n)s") % {"sym": tr_face_name(sym), "n": n})
        else:
            lines.append(_("%(sym)s: exactly %(n)s") % {"sym": tr_face_name(sym), "n": n})
    if role == "innkeeper":
        lines.append(_("Then guess another player's role at the start of your turn."))
    return lines


def tr_tokens_text(tokens: dict) -> str:
    return ", ".join(f"{tr_face_name(s)} {tokens[s]}" for s in TOKEN_SYMS)


def _fields(action: dict) -> list[tuple[str, str]]:
    return [(k, str(v)) for k, v in action.items()]


def tr_option_label(action: dict, kind: str, names: dict, tokens: list, steal: bool) -> str:
    target = action.get("target")
    who = names.get(target, "") if target is not None else ""
    has = tr_tokens_text(tokens[target]) if target is not None else ""
    sym = action.get("symbol")
    if kind in ("wine", "wine2"):
        if kind == "wine":
            return _("Make %(who)s give back 1 People (%(has)s)") % {"who": who, "has": has}
        return _("Make %(who)s miss the next turn (%(has)s)") % {"who": who, "has": has}
    if kind in ("rat", "rat2"):
        return _("Let it happen to everybody")
    if action.get("mode") == "revolution":
        return _("Revolution: %(who)s gives back 1 %(sym)s (%(has)s)") % {
            "who": who,
            "sym": tr_face_name(sym),
            "has": has,
        }
    n = 2 if kind == "people2" else 1
    what = tr_face_name(sym or ("people" if kind == "people2" else kind))
    if kind == "book" and sym and sym != "book":
        what = _("%(sym)s (Joker)") % {"sym": what}
    if target is not None:
        return _("Steal %(n)s %(what)s from %(who)s (%(has)s)") % {
            "n": n,
            "what": what,
            "who": who,
            "has": has,
        }
    if steal:
        return _("Nobody has %(what)s to steal: nothing happens") % {"what": what}
    return _("Take %(n)s %(what)s") % {"n": n, "what": what}


def trono_context(view, ctx) -> dict:
    match, seat, names = ctx["match"], ctx["seat"], ctx["names"]
    me = seat.number if seat is not None else None
    my_turn = ctx["my_turn"]
    phase = view["phase"]
    legal = own_legal_actions(ctx)
    types = {a["type"] for a in legal}
    rolling = phase in ("choose", "lombard")
    guess_targets, guess_roles = tr_guesses(legal)
    return {
        "me": me,
        "players": tr_players(view, names, me, match.status == "active"),
        "my_role": tr_my_role(view, me),
        "reserve": [{**tr_die(s), "count": view["reserve"][s]} for s in TOKEN_SYMS],
        "passed": [tr_die(d) for d in view["passed"]],
        "kept": [tr_die(d) for d in view["kept"]] if rolling else [],
        "rolled": [{**tr_die(d), "index": i} for i, d in enumerate(view["rolled"])]
        if rolling
        else [],
        "outgoing": [tr_die(d) for d in view["passed"]] if phase in AFTER_CHOICE else [],
        "pick_count": 1 if view["kept"] else 3,
        "can_roll": "roll" in types,
        "can_keep": "keep" in types,
        "can_reroll": "reroll" in types,
        "lombard_question": phase == "lombard" and my_turn,
        "choosing": phase == "choose" and my_turn,
        "picking": phase == "pick_start" and my_turn,
        "effects": tr_effects(view, legal if my_turn and phase == "resolve" else [], names),
        "guess_targets": [{"number": t, "name": names.get(t, "")} for t in guess_targets],
        "guess_roles": [{"key": r, "name": tr_role_name(r)} for r in guess_roles],
        **tr_pending(view, names),
        "start": [
            {"name": names.get(r["seat"], ""), "dice": [tr_die(d) for d in r["dice"]]}
            for r in (view["start_rolls"][-1] if view["start_rolls"] else [])
        ],
        "first_name": names.get(view["first"], ""),
        "lombard_holder": names.get(view["lombard"], "") if view["lombard"] is not None else "",
        "current_name": names.get(view["current"], ""),
        "step": tr_next_step(view, ctx, my_turn),
        "log": match.recent_lines(match.spec.event_line, names, 10),
        "result": tr_result_text(view, names, me),
    }


def tr_players(view, names, me, active) -> list[dict]:
    """Every seat's tokens and marks; a role only once it is revealed (the Brigand's, or all
    of them at the end)."""
    tokens, revealed, phase = view["tokens"], view["revealed"], view["phase"]
    players = []
    for number in range(view["players"]):
        role = revealed[number]
        players.append(
            {
                "number": number,
                "name": names.get(number, ""),
                "tokens": [{**tr_die(s), "count": tokens[number][s]} for s in TOKEN_SYMS],
                "is_me": number == me,
                # Nobody is "to play" before the table is full (a family room waiting) or after.
                "acting": number in view["to_act"] and active,
                "current": number == view["current"] and phase != "over",
                "skip": view["skip"][number],
                "out": view["out"][number],
                "lombard": view["lombard"] == number,
                "role": tr_role_name(role) if role else "",
                "winner": bool(view["outcome"] and number in view["outcome"]["winners"]),
            }
        )
    return players


def tr_my_role(view, me) -> dict | None:
    """The viewing seat's own secret role and how far it is from its victory condition."""
    if not view.get("my_role"):
        return None
    r = view["my_role"]
    mine = view["tokens"][me]
    return {
        "key": r["key"],
        "card": r["card"],
        "name": tr_role_name(r["key"]),
        "condition": tr_condition(r["key"], r["need"]),
        "progress": [
            {
                **tr_die(sym),
                "have": mine[sym],
                "want": (_("at least %(n)s") if op == "min" else _("exactly %(n)s")) % {"n": n},
                "ok": mine[sym] >= n if op == "min" else mine[sym] == n,
            }
            for sym, op, n in r["need"]
        ],
        "removed": [tr_role_name(k) for k in view.get("my_removed") or []],
    }


def tr_effects(view, legal, names) -> list[dict]:
    """The effects still to resolve, with the choices of each among ``legal`` (in the order
    they are listed)."""
    tokens, steal = view["tokens"], view["steal"]
    kinds = {e["id"]: e["kind"] for e in view["effects"]}
    effects = []
    for e in view["effects"]:
        options = [
            {
                "label": tr_option_label(a, kinds[e["id"]], names, tokens, steal),
                "fields": _fields(a),
            }
            for a in legal
            if a.get("effect") == e["id"]
        ]
        effects.append(
            {
                "id": e["id"],
                "kind": e["kind"],
                "name": tr_effect_name(e["kind"]),
                "sign": TR_SIGNS.get(e["kind"].rstrip("2"), ""),
                "options": options,
            }
        )
    return effects


def tr_guesses(legal) -> tuple[list[int], list[str]]:
    """The seats a guess may name (in seat order) and the roles it may name (in the order of
    the legal actions)."""
    guesses = [a for a in legal if a["type"] == "guess"]
    roles: list[str] = []
    for a in guesses:
        if a["role"] not in roles:
            roles.append(a["role"])
    return sorted({a["target"] for a in guesses}), roles


def tr_pending(view, names) -> dict:
    """A question waiting for another player: a cancel offer, or who still gives back to the
    Plague."""
    pending = view["pending"]
    cancel = None
    if pending and pending["kind"] == "cancel":
        cancel = {
            "target": names.get(pending["target"], ""),
            "by": names.get(view["current"], ""),
            "effect": pending["effect"],
            "cost": pending["cost"],
        }
    plague_waiting = []
    if pending and pending["kind"] == "plague":
        plague_waiting = [names.get(p, "") for p in pending["queue"]]
    return {"cancel": cancel, "plague_waiting": plague_waiting}


def tr_next_step(view, ctx, my_turn) -> str:
    names = ctx["names"]
    phase = view["phase"]
    if (step := common_step(view, ctx)) is not None:
        return step
    acting = names.get(view["to_act"][0], "") if view["to_act"] else ""
    current = names.get(view["current"], "")
    if not my_turn:
        if phase == "cancel":
            return _("%(name)s decides whether to cancel it…") % {"name": acting}
        if phase == "plague":
            return _("%(name)s chooses what to give back…") % {"name": acting}
        if phase == "lombard":
            if ctx["seat"] is not None and ctx["seat"].number == view["current"]:
                return _("%(name)s may re-roll your dice…") % {"name": acting}
            return _("%(name)s may re-roll %(cur)s's dice…") % {"name": acting, "cur": current}
        return _("%(name)s is playing…") % {"name": acting}
    if phase == "pick_start":
        return _("Choose one token to start with.")
    if phase == "roll":
        if view["passed"]:
            return _(
                "Keep the two dice passed to you and roll three, or refuse them and roll five."
            )
        return _("Your turn: roll the five dice.")
    if phase == "lombard":
        return _(
            "You hold the Lombard Company token: re-roll %(name)s's dice? The token then goes "
            "to %(name)s."
        ) % {"name": current}
    if phase == "choose":
        if view["kept"]:
            return _("Tap the one die to add to the two you kept.")
        return _("Tap the three dice you want to use. The other two go to the next player.")
    if phase == "resolve":
        return _("Use your effects one at a time, in the order you like.")
    if phase == "cancel":
        return _("Cancel it by giving back Mortadella, or let it happen.")
    if phase == "plague":
        return _("Give back a People token, or a Tower token instead.")
    return ""


def tr_result_text(view, names, me) -> str:
    outcome = view.get("outcome")
    if not outcome:
        return ""
    winners = outcome.get("winners") or []
    if not winners:
        return _("The game is over: nobody took the throne.")
    if me is not None and me in winners:
        return _("You take the throne of Mortadella: you win!")
    return _("%(name)s takes the throne of Mortadella and wins!") % {
        "name": names.get(winners[0], "")
    }
