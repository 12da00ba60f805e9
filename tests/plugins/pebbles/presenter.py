"""Pebbles' board. Its log lines are the engine's own event texts, translated
(``games.presenters.event_lines``)."""

from django.utils.translation import gettext as _


def board(view, ctx) -> dict:
    names, me = ctx["names"], ctx["me"]
    players = [
        {
            "name": names.get(n, ""),
            "count": view["hand_counts"][n],
            "table": view["table"][n],
            "total": view["totals"][n],
            "acting": n in view["to_act"],
        }
        for n in range(view["players"])
    ]
    step = ""
    if not view["outcome"] and not ctx["watching"]:
        step = _("Put one of your pebbles on the table.") if ctx["my_turn"] else _("Waiting")
    return {"players": players, "step": step, "result": result(view, names, me, ctx)}


def result(view, names, me, ctx) -> str:
    outcome = view["outcome"]
    if not outcome:
        return ""
    if not outcome["winners"]:
        return _("It is a draw!")
    winner = outcome["winners"][0]
    if ctx["seat"] is not None and winner == me:
        return _("You win!")
    return _("%(name)s wins!") % {"name": names.get(winner, "")}
