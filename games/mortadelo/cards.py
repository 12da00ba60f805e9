"""The cards of Mortadelo Multiverso: our own names and designs, built only from the icons and
effects of the rulebook (docs/rules/mortadelo-multiverso.md lists them all).

A card's ``kind`` is the icon in its top-left corner: ``punch`` and ``kick`` (attacks),
``block_punch`` and ``block_kick`` (defences) and ``total`` (Total Defence). Its ``effects`` are
the icons at the bottom, in printed order: ``["tortazo", stars]``, ``["upgrade", 1]``,
``["combo", 1]`` (Play Another Card), ``["recover", wounds]`` and ``["special", 1]``.

Ids are tokens the leak tests search for in text: no id is part of another id, of a name or of
any other word the engine writes (``mmb-`` basic, ``mmp-`` plus, both with two digits).
"""

from __future__ import annotations

from typing import Any

KINDS = ("punch", "kick", "block_punch", "block_kick", "total")
ATTACKS = ("punch", "kick")
DEFENCES = ("block_punch", "block_kick", "total")
KIND_NAMES = {
    "punch": "Punch attack",
    "kick": "Kick attack",
    "block_punch": "Punch defence",
    "block_kick": "Kick defence",
    "total": "Total Defence",
}
EFFECTS = ("tortazo", "upgrade", "combo", "recover", "special")

# Six colour marks: one basic deck each (seat n plays COLOURS[n]).
COLOURS = ("red", "blue", "green", "yellow", "purple", "orange")

# The 12 Mamporros Basicos of every colour: (name, kind, effects).
BASIC_DESIGN: list[tuple[str, str, list[list[Any]]]] = [
    ("Jab", "punch", [["tortazo", 1]]),
    ("Jab", "punch", [["tortazo", 1]]),
    ("Haymaker", "punch", [["tortazo", 2]]),
    ("Mystery Fist", "punch", [["special", 1]]),
    ("Stomp", "kick", [["tortazo", 1]]),
    ("Stomp", "kick", [["tortazo", 1]]),
    ("Cartwheel", "kick", [["tortazo", 1], ["combo", 1]]),
    ("Mystery Boot", "kick", [["special", 1]]),
    ("Fist Catcher", "block_punch", [["recover", 1], ["combo", 1]]),
    ("Shin Guard", "block_kick", [["recover", 1], ["combo", 1]]),
    ("Clever Dodge", "total", [["upgrade", 1]]),
    ("Not Today!", "total", []),
]

# The 24 Mamporros Plus: (name, kind, effects, copies).
PLUS_DESIGN: list[tuple[str, str, list[list[Any]], int]] = [
    ("Mega Wallop", "punch", [["tortazo", 3]], 2),
    ("Thunder Stomp", "kick", [["tortazo", 3]], 2),
    ("Windmill Fists", "punch", [["tortazo", 2], ["combo", 1]], 2),
    ("Scissor Kick", "kick", [["tortazo", 2], ["combo", 1]], 2),
    ("Cosmic Knuckles", "punch", [["tortazo", 1], ["special", 1]], 2),
    ("Rocket Boots", "kick", [["tortazo", 1], ["special", 1]], 2),
    ("Boomerang Block", "block_punch", [["tortazo", 2]], 2),
    ("Trampoline Block", "block_kick", [["tortazo", 2]], 2),
    ("Pillow Fort", "total", [["recover", 1], ["combo", 1]], 2),
    ("Cloning Shield", "total", [["special", 1]], 2),
    ("Healing Hook", "punch", [["tortazo", 2], ["recover", 1]], 1),
    ("Treasure Kick", "kick", [["tortazo", 2], ["upgrade", 1]], 1),
    ("Lucky Parry", "block_punch", [["recover", 2], ["upgrade", 1]], 1),
    ("Sidestep Surprise", "block_kick", [["upgrade", 1], ["combo", 1]], 1),
]

# The 12 Mortadelos and their secret blows (Special Mamporro): effects in the same format,
# balanced per player count with bot games (docs: "Balance: win rates per Mortadelo"); two
# Play Another Card icons give two extra cards, one after the other. A Tortazo hits the
# opponent of the player who activates it; Recover, Upgrade and Play Another Card are for
# that player. (Meddling from the cloning machine: see the rules doc.) These are the blows of a
# game of 3 to 6 players; TWO_PLAYER_EFFECTS below has those that differ with 2.
CHARACTERS: dict[str, dict[str, Any]] = {}
_CHARACTER_LIST: list[tuple[str, str, str, list[list[Any]]]] = [
    ("pirate", "Captain Mortadelo", "Cannonball Clout", [["tortazo", 4]]),
    (
        "caveman",
        "Caveman Mortadelo",
        "Big Club Bonk",
        [["tortazo", 2], ["recover", 1], ["upgrade", 1]],
    ),
    ("ninja", "Ninja Mortadelo", "Shadow Flurry", [["recover", 2], ["combo", 1], ["combo", 1]]),
    ("vampire", "Vampire Mortadelo", "Midnight Nibble", [["tortazo", 3], ["recover", 1]]),
    ("wizard", "Wizard Mortadelo", "Hat Trick", [["tortazo", 1], ["recover", 2], ["combo", 1]]),
    ("robot", "Robot Mortadelo", "Oil Change", [["tortazo", 2], ["combo", 1], ["upgrade", 1]]),
    ("doctor", "Doctor Mortadelo", "Magic Plaster", [["tortazo", 2], ["recover", 2]]),
    ("chef", "Chef Mortadelo", "Hot Soup Splash", [["tortazo", 3], ["upgrade", 3]]),
    ("astronaut", "Astro Mortadelo", "Moon Jump", [["recover", 2], ["combo", 1], ["upgrade", 2]]),
    ("mummy", "Mummy Mortadelo", "Bandage Whip", [["recover", 2], ["tortazo", 2], ["upgrade", 1]]),
    ("king", "King Mortadelo", "Royal Treasury", [["tortazo", 2], ["recover", 1], ["upgrade", 2]]),
    (
        "cowboy",
        "Cowboy Mortadelo",
        "Lasso Yank",
        [["tortazo", 1], ["recover", 1], ["combo", 1], ["upgrade", 1]],
    ),
]
# With 2 players a star and Play Another Card are worth more than with 3 or more, a Recover
# less; these blows have other icons there (the same name; the board shows the game's icons).
TWO_PLAYER_EFFECTS: dict[str, list[list[Any]]] = {
    "caveman": [["tortazo", 3], ["upgrade", 1]],
    "ninja": [["recover", 3], ["combo", 1], ["combo", 1]],
    "vampire": [["tortazo", 3], ["recover", 2]],
    "wizard": [["tortazo", 1], ["recover", 3], ["combo", 1]],
    "robot": [["tortazo", 2], ["combo", 1]],
    "doctor": [["tortazo", 2], ["recover", 1], ["upgrade", 3]],
    "chef": [["tortazo", 3], ["upgrade", 2]],
    "astronaut": [["recover", 1], ["combo", 1], ["upgrade", 2]],
    "mummy": [["recover", 3], ["tortazo", 2], ["upgrade", 1]],
    "king": [["tortazo", 2], ["recover", 1], ["upgrade", 4]],
    "cowboy": [["tortazo", 1], ["recover", 2], ["combo", 1]],
}
for _key, _name, _blow, _effects in _CHARACTER_LIST:
    CHARACTERS[_key] = {
        "key": _key,
        "name": _name,
        "blow": _blow,
        "effects": _effects,
        "effects_two": TWO_PLAYER_EFFECTS.get(_key, _effects),
    }


def blow_effects(key: str, players: int) -> list[list[Any]]:
    """The icons of a Mortadelo's secret blow in a game of ``players`` players."""
    character = CHARACTERS[key]
    return character["effects_two"] if players == 2 else character["effects"]


def character_card(key: str, players: int) -> dict[str, Any]:
    """A Mortadelo as a game of ``players`` players shows it: its blow's icons for that game."""
    character = CHARACTERS[key]
    return {
        "key": key,
        "name": character["name"],
        "blow": character["blow"],
        "effects": blow_effects(key, players),
    }


BASIC: dict[str, dict[str, Any]] = {}
for _colour in COLOURS:
    for _i, (_name, _kind, _effects) in enumerate(BASIC_DESIGN, start=1):
        _cid = f"mmb-{_colour}-{_i:02d}"
        BASIC[_cid] = {
            "id": _cid,
            "name": _name,
            "kind": _kind,
            "effects": _effects,
            "plus": False,
            "colour": _colour,
        }

PLUS: dict[str, dict[str, Any]] = {}
_n = 0
for _name, _kind, _effects, _copies in PLUS_DESIGN:
    for _ in range(_copies):
        _n += 1
        _cid = f"mmp-{_n:02d}"
        PLUS[_cid] = {
            "id": _cid,
            "name": _name,
            "kind": _kind,
            "effects": _effects,
            "plus": True,
            "colour": None,
        }

CARDS: dict[str, dict[str, Any]] = {**BASIC, **PLUS}
