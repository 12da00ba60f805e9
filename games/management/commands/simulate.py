"""Play bot games in process (no database) and print one JSON line last."""

import json

from django.core.management.base import BaseCommand, CommandError

from games import engine
from games.engine import simulate


def parse_value(text: str):
    try:
        return int(text)
    except ValueError:
        return {"true": True, "false": False}.get(text.lower(), text)


class Command(BaseCommand):
    help = "Play bot-versus-bot games of GAME and print their statistics as JSON."

    def add_arguments(self, parser):
        parser.add_argument("game", choices=sorted(engine.GAMES))
        parser.add_argument("--games", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
        parser.add_argument("--bots", default="", help="comma-separated levels, one per seat")

    def handle(self, *args, game, games, seed, option, bots, **kwargs):
        module = engine.get(game)
        options = {}
        for item in option:
            key, sep, value = item.partition("=")
            if not sep or key not in module.OPTIONS:
                raise CommandError(f"unknown option {item!r}; known: {', '.join(module.OPTIONS)}")
            options[key] = parse_value(value)
        best = getattr(module, "BEST_LEVEL", module.LEVELS[-1])
        levels = [b.strip() for b in bots.split(",") if b.strip()] or [best] * module.MIN_PLAYERS
        unknown = [level for level in levels if level not in module.LEVELS]
        if unknown:
            raise CommandError(
                f"unknown bot level {unknown[0]!r}; known: {', '.join(module.LEVELS)}"
            )
        if not module.MIN_PLAYERS <= len(levels) <= module.MAX_PLAYERS:
            raise CommandError(
                f"{module.NAME} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players"
            )
        if games < 1:
            raise CommandError("--games must be at least 1")
        try:
            result = simulate.run(game, games, seed, options, levels)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(result))
