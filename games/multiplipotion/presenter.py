"""MultipliPotion's board and replay from the engine's view (its log lines are the engine's
EVENT_TEXTS: game.py)."""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.presenters import common_step


def multiplipotion_context(view, ctx) -> dict:
    me, them = ctx["me"], ctx["them"]
    names = ctx["names"]
    phase = view["phase"]
    my_turn = ctx["my_turn"]
    area_mode = ""
    if my_turn and phase in {"capture_or_end", "forced_capture"} and view["areas"][them]:
        area_mode = "capture"
    elif my_turn and view["can_challenge"] and phase in {"place", "last_call"}:
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
    elif my_turn and phase in {"capture_or_end", "end", "last_call"}:
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
    if (step := common_step(view, ctx)) is not None:
        return step
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
    if phase == "last_call":
        return _(
            "Every card is played. Did %(name)s miss a capture on the last turn? If so, tap "
            "two of their potions, then your monster they make. If not, end the game."
        ) % {"name": names[them]}
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


def multiplipotion_replay(view, ctx) -> dict:
    names = ctx["names"]
    return {
        "replay_board": "games/multiplipotion/replay.html",
        "their_area": view["areas"][1],
        "my_area": view["areas"][0],
        "their_trophies": view["trophies"][1],
        "my_trophies": view["trophies"][0],
        "them_name": names.get(1, ""),
        "me_name": names.get(0, ""),
    }
