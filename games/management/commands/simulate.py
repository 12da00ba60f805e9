"""Play bot games in process (no database) and print one JSON line last.

With ``--focus 7x8,6x8`` (MultipliPotion only) the bots get these focus facts, as a Coach gets
a child's, and the command first prints how the Coach puts them in front of the other seat
compared with the Grand Wizard on the same seeds (games/multiplipotion/coach_measure.py); the
JSON line then has a ``focus`` part with the counts and ratios.
"""

import json
import re

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from games import registry
from games.engine import simulate
from games.multiplipotion import coach_measure

FACT = re.compile(r"\s*([2-9])\s*[x×*]\s*([2-9])\s*", re.IGNORECASE)


def parse_value(text: str):
    try:
        return int(text)
    except ValueError:
        return {"true": True, "false": False}.get(text.lower(), text)


def parse_focus(text: str) -> list[tuple[int, int]]:
    """'7x8,6x8,9x7' -> [(7, 8), (6, 8), (9, 7)]; CommandError for anything else."""
    facts = []
    for item in text.split(","):
        match = FACT.fullmatch(item)
        if match is None:
            raise CommandError(
                _("--focus takes facts like 7x8,6x8,9x7 (two numbers from 2 to 9), not %(item)r")
                % {"item": item.strip()}
            )
        facts.append((int(match[1]), int(match[2])))
    return facts


class Command(BaseCommand):
    help = "Play bot-versus-bot games of GAME and print their statistics as JSON."

    def add_arguments(self, parser):
        parser.add_argument("game", choices=sorted(registry.games()))
        parser.add_argument("--games", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
        parser.add_argument("--bots", default="", help="comma-separated levels, one per seat")
        parser.add_argument(
            "--focus",
            default=None,
            metavar="AxB,...",
            help="MultipliPotion: focus facts for the Coach, e.g. 7x8,6x8,9x7; measures the "
            "Coach against the Wizard on the same seeds (default bots: apprentice,coach)",
        )

    def handle(self, *args, game, games, seed, option, bots, focus, **kwargs):
        module = registry.get(game).rules
        options = {}
        for item in option:
            key, sep, value = item.partition("=")
            if not sep or key not in module.OPTIONS:
                raise CommandError(
                    _("unknown option %(item)r; known: %(known)s")
                    % {"item": item, "known": ", ".join(module.OPTIONS)}
                )
            options[key] = parse_value(value)
        facts = None
        if focus is not None:
            if game != "multiplipotion":
                raise CommandError(_("--focus is for multiplipotion only (its Coach)"))
            facts = parse_focus(focus)
        best = getattr(module, "BEST_LEVEL", module.LEVELS[-1])
        default = ["apprentice", "coach"] if facts else [best] * module.MIN_PLAYERS
        levels = [b.strip() for b in bots.split(",") if b.strip()] or default
        unknown = [level for level in levels if level not in module.LEVELS]
        if unknown:
            raise CommandError(
                _("unknown bot level %(level)r; known: %(known)s")
                % {"level": unknown[0], "known": ", ".join(module.LEVELS)}
            )
        if not module.MIN_PLAYERS <= len(levels) <= module.MAX_PLAYERS:
            raise CommandError(
                _("%(name)s takes %(min)s to %(max)s players")
                % {"name": module.NAME, "min": module.MIN_PLAYERS, "max": module.MAX_PLAYERS}
            )
        if facts and levels.count("coach") != 1:
            raise CommandError(
                _("--focus measures the Coach: give exactly one seat the coach, e.g. --bots %(e)s")
                % {"e": "apprentice,coach"}
            )
        if games < 1:
            raise CommandError(_("--games must be at least 1"))
        try:
            result = simulate.run(module, games, seed, options, levels, facts)
            if facts:
                result["focus"] = coach_measure.measure(games, seed, options, levels, facts)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if facts:
            self.write_focus(result["focus"], levels, seed)
        self.stdout.write(json.dumps(result))

    def write_focus(self, m: dict, levels: list[str], seed: int) -> None:
        child = m["child_seat"]
        self.stdout.write(
            _(
                "Focus facts %(facts)s; the child is seat %(seat)s (%(level)s); "
                "%(games)s games from seed %(seed)s, the Coach and then the Wizard in seat "
                "%(other)s."
            )
            % {
                "facts": ", ".join(f"{a}×{b}" for a, b in m["focus"]),
                "seat": child,
                "level": levels[child],
                "games": m["games"],
                "seed": seed,
                "other": 1 - child,
            }
        )
        lines = [
            ("focus_monsters", _("focus-fact monsters placed in front of the child")),
            ("focus_chances", _("child's turns with a capture by exactly a focus fact")),
            ("focus_captures", _("captures the child made with a focus fact")),
            ("coach_seat_won", _("games won by the Coach's seat")),
        ]
        for key, label in lines:
            ratio = m["ratio"].get(key)
            self.stdout.write(
                _("%(label)s: Coach %(coach)s, Wizard %(wizard)s%(ratio)s")
                % {
                    "label": label,
                    "coach": m["coach"][key],
                    "wizard": m["wizard"][key],
                    "ratio": _(", ratio %(r).2f×") % {"r": ratio} if ratio is not None else "",
                }
            )
