"""The 168 cards of Munchkin (our own family-friendly set): 94 Dungeon (door) cards and 74
Treasure cards. Names, texts and numbers are our own invention.

Every card is a plain dict with an ``id`` (``mk-d-NNN`` for doors, ``mk-t-NNN`` for treasures),
a ``deck`` ("door" or "treasure"), a ``kind`` and a ``name``; ``text`` is the sentence printed on
the card (made from its numbers so that the text and the rules can never disagree) and ``flavour``
a joke. The engine reads the numbers, never the text.
"""

from __future__ import annotations

from typing import Any

Card = dict[str, Any]

RACES = {
    "sprite": "Sprite",
    "stoutling": "Stoutling",
    "pocketkin": "Pocketkin",
}
CLASSES = {
    "brawler": "Brawler",
    "spellsinger": "Spellsinger",
    "sneak": "Sneak",
    "healer": "Healer",
}
RACE_TEXT = {
    "sprite": "+1 to Run Away. When you help someone kill monsters, you go up a level for each "
    "monster killed.",
    "stoutling": "You may carry any number of Big items. Your hand limit is 6 cards.",
    "pocketkin": "Once on each of your turns you may sell one item for double its value.",
}
CLASS_TEXT = {
    "brawler": "Pillow Fury: in combat, discard up to 3 cards, +1 for each. You win ties with "
    "monsters.",
    "spellsinger": "Flutter Spell: when you Run Away, discard up to 3 cards, +1 to the roll for "
    "each. Lullaby: discard your whole hand (3 cards or more) to sing one monster to sleep: it "
    "leaves the fight, you keep its treasure but gain no level.",
    "sneak": "Sneaky Poke: discard a card to give a player in a combat -2 (once for each player "
    "in each combat). Also +1 to Run Away: nobody notices you leave.",
    "healer": "Shoo, Spooks!: in combat, discard up to 3 cards, +3 for each against Spooky "
    "monsters.",
}

# --------------------------------------------------------------------------------------------
# Monsters: (name, level, treasures, levels won, options, bad stuff, flavour)
#   options: undead (Spooky), bonus (target, n) against a race or class, run (modifier to Run
#   Away), nochase (won't chase anyone of this level or lower)
#   bad stuff: ("levels", n) | ("slot", "head"/"armour"/"foot") | ("small",) | ("big",)
#              | ("hand",) | ("cards", n) | ("race",) | ("class",) | ("death",)
# --------------------------------------------------------------------------------------------
MONSTERS: list[tuple] = [
    ("Dust Bunny", 1, 1, 1, {}, ("slot", "head"), "It sneezes on your hat."),
    ("Grumpy Garden Gnome", 1, 1, 1, {}, ("slot", "foot"), "He wants your shoes for his boat."),
    ("Sock Puppet Goblin", 1, 1, 1, {"run": 1}, ("levels", 1), "Slow, because it has no legs."),
    ("Overdue Library Book", 2, 1, 1, {"undead": True}, ("small",), "Pay the fine!"),
    ("Lint Golem", 2, 1, 1, {}, ("levels", 1), "Made entirely of pocket fluff."),
    ("Hungry Homework", 2, 1, 1, {}, ("cards", 2), "The dog did not eat it. It ate you."),
    ("Wobbly Jelly", 2, 1, 1, {"bonus": ("sprite", 3)}, ("levels", 1), "Sprites find it rude."),
    ("Squeaky Floorboard", 3, 1, 1, {}, ("hand",), "Everybody heard you. Everybody."),
    ("Pillow Ghost", 3, 1, 1, {"undead": True}, ("slot", "head"), "Fluffy, spooky, sleepy."),
    ("Crabby Crab", 3, 1, 1, {"run": -1}, ("slot", "foot"), "Pinches toes, sideways."),
    ("Bossy Pigeon", 4, 2, 1, {}, ("levels", 1), "It wants your sandwich. Now."),
    ("Tangled Kite", 4, 2, 1, {"bonus": ("pocketkin", 2)}, ("small",), "Stuck in every tree."),
    ("Rubber Duck of Doom", 5, 2, 1, {}, ("levels", 2), "Squeak. SQUEAK."),
    ("Spaghetti Monster Junior", 5, 2, 1, {}, ("slot", "armour"), "Saucy and proud of it."),
    ("Moody Cloud", 5, 2, 1, {"nochase": 2}, ("cards", 2), "It rains only on you."),
    ("Lost Left Sock", 6, 2, 1, {"bonus": ("stoutling", 3)}, ("slot", "foot"), "Very lonely."),
    ("Snoring Troll", 6, 2, 1, {"run": 1}, ("levels", 1), "Easy to sneak past, if quiet."),
    ("Skeleton Drummer", 6, 2, 1, {"undead": True}, ("small",), "Ba-dum-TSS."),
    ("Cranky Cactus", 7, 2, 1, {}, ("slot", "armour"), "Don't hug it."),
    ("Tornado in a Teacup", 7, 2, 1, {"run": -1}, ("hand",), "Small but VERY windy."),
    ("Giant Hamster Wheel", 7, 2, 1, {"bonus": ("brawler", 3)}, ("levels", 1), "Round and round."),
    ("Mummy's Boy", 8, 2, 1, {"undead": True}, ("levels", 2), "Wrapped in his own blanket."),
    ("Haunted Vending Machine", 8, 2, 1, {}, ("big",), "It took your coin AND your item."),
    ("Tickle Octopus", 8, 2, 1, {"bonus": ("spellsinger", 3)}, ("class",), "Eight tickly arms."),
    ("Banshee Soprano", 9, 2, 1, {"undead": True}, ("cards", 3), "Hits a note that cracks cards."),
    ("Mud Wrestler Walrus", 9, 2, 1, {}, ("slot", "armour"), "Slippery and whiskery."),
    ("Bubble Gum Blob", 10, 3, 1, {"run": -1}, ("small",), "Sticks to everything you own."),
    ("Mirror Mimic", 10, 3, 1, {"bonus": ("sneak", 3)}, ("levels", 2), "It copies your dance."),
    ("Karaoke Kraken", 10, 3, 1, {}, ("race",), "Sings so badly you forget who you are."),
    ("Vampire Llama", 11, 3, 1, {"undead": True}, ("levels", 2), "Vants to spit on you."),
    ("Thunder Toad", 11, 3, 1, {"nochase": 3}, ("hand",), "Ribbit. BOOM."),
    ("Whirling Laundry Djinn", 12, 3, 1, {}, ("big",), "Your favourite item shrinks in the wash."),
    ("Sir Grumbles the Knight", 12, 3, 1, {"bonus": ("healer", 3)}, ("levels", 2), "Never happy."),
    ("Zombie Lunch Lady", 13, 3, 1, {"undead": True}, ("death",), "Today's special: you."),
    ("Marshmallow Giant", 14, 4, 1, {"run": 1}, ("levels", 3), "Soft, sweet, enormous."),
    ("Crystal Spider Queen", 14, 4, 1, {"nochase": 4}, ("death",), "Spins glittery traps."),
    ("Ghost Pirate Captain", 16, 4, 2, {"undead": True}, ("death",), "Arr-ooo-ooo!"),
    ("Clockwork Dragonfly", 16, 4, 2, {"run": -1}, ("levels", 3), "Tick, tock, zoom."),
    ("Lava Lamp Golem", 17, 4, 2, {"nochase": 5}, ("death",), "Groovy and very hot."),
    ("King of All Pigeons", 18, 4, 2, {"bonus": ("sprite", 4)}, ("death",), "Coo. Bow down."),
    ("The Homework Dragon", 20, 5, 2, {"run": -2}, ("death",), "Due tomorrow. Breathes essays."),
    ("Great Grandmother Sphinx", 20, 5, 2, {"nochase": 5}, ("death",), "Riddles until bedtime."),
]

# Curses: (name, effect, flavour). Effects: ("levels", n) | ("slot", s) | ("small",) | ("big",)
# | ("race",) | ("class",) | ("cards", n) | ("next_combat", n) (kept until your next combat)
# | ("chicken",) (kept: -1 on every Run Away roll until an Un-Curse Cookie removes it)
CURSES: list[tuple] = [
    ("Tickle Spell", ("levels", 1), "Hee hee hee... oops, there goes a level."),
    ("Silly Hat Hex", ("slot", "head"), "Your hat flies off to join a circus."),
    ("Itchy Sweater Jinx", ("slot", "armour"), "You just have to take it off."),
    ("Untied Laces", ("slot", "foot"), "Trip, slip, and off they go."),
    ("Butterfingers", ("small",), "Whoops! Something small slips away."),
    ("Heavy Backpack Curse", ("big",), "Too heavy to carry. Leave it behind."),
    ("Identity Crisis", ("race",), "Who are you again?"),
    ("Career Change", ("class",), "You decide to become a baker instead."),
    ("Paper Cut Curse", ("cards", 2), "Ouch. Two cards flutter away."),
    ("Sleepy Yawn Curse", ("next_combat", 3), "You will be a bit sleepy in your next fight."),
    ("Wet Sock Curse", ("next_combat", 2), "Squelch. Squelch. Squelch."),
    ("Hiccup Hex", ("next_combat", 2), "Hic! It is hard to fight like this. Hic!"),
    ("Chicken on Your Head", ("chicken",), "It clucks every time you try to run."),
    ("Double Tickle Spell", ("levels", 2), "Twice the giggles, twice the trouble."),
]

# Monster enhancers: (name, strength, treasure change, copies, flavour)
ENHANCERS: list[tuple] = [
    ("Grumpy Great-Grandpa", 10, 2, 2, "Older, wiser, and much, much grumpier."),
    ("Hangry", 5, 1, 3, "It skipped breakfast."),
    ("Wearing a Tiny Crown", 5, 1, 2, "It feels very important today."),
    ("Teeny-Tiny", -5, -1, 3, "Shrunk in the wash."),
]

# Treasure: go-up-a-level cards (name, flavour)
LEVEL_UPS: list[tuple] = [
    ("Won the Spelling Bee", "B-R-I-L-L-I-A-N-T."),
    ("Ate All Your Vegetables", "Even the green ones."),
    ("Tidied Your Room", "Under the bed too!"),
    ("Invented a New Sandwich", "Banana and cheese. Genius."),
    ("Beat the Boss at Tic-Tac-Toe", "X marks the level."),
    ("It's Your Birthday!", "Everybody sings. You level up."),
    ("Learned to Whistle", "Finally!"),
    ("Gold Star Sticker", "Shiny and well earned."),
    ("Found the TV Remote", "A true hero of the household."),
]

# One-shot items: (name, effect, gold, flavour). Effects: ("bonus", n): +n to either side in a
# combat | ("remove",): one monster floats out of the fight (no level; its treasure is lost)
# | ("escape",): escape one monster automatically when you run | ("uncurse",): remove a kept
# curse from yourself (any time on your turn or in a combat window)
ONE_SHOTS: list[tuple] = [
    ("Fizzy Pop Potion", ("bonus", 2), 100, "Burp!"),
    ("Fizzy Pop Potion", ("bonus", 2), 100, "Burp! Burp!"),
    ("Glitter Bomb", ("bonus", 3), 200, "Sparkly and confusing."),
    ("Water Balloon", ("bonus", 2), 100, "Splash!"),
    ("Whoopee Cushion", ("bonus", 3), 200, "Nobody can fight while laughing."),
    ("Super Sour Sweet", ("bonus", 3), 200, "Makes your face do funny things."),
    ("Thunder Clap Jar", ("bonus", 5), 300, "Open only in emergencies."),
    ("Giant Foam Finger", ("bonus", 4), 300, "We're number one!"),
    ("Rainbow Sprinkles Shaker", ("bonus", 2), 100, "Everything is better with sprinkles."),
    ("Pocket Sandstorm", ("bonus", 4), 300, "Sand everywhere. Forever."),
    ("Confetti Cannon", ("bonus", 3), 200, "Party time!"),
    ("Stinky Cheese Wedge", ("bonus", 5), 400, "Monsters faint. So do friends."),
    ("Cheerleader Pom-Poms", ("bonus", 2), 100, "Give me a W! Give me an I! Give me an N!"),
    ("Bubble Wand", ("remove",), 400, "One monster floats gently away."),
    ("Magic Eraser", ("remove",), 500, "Rub it out of the story."),
    ("Smoke Puff", ("escape",), 200, "Cough, cough, gone."),
    ("Banana Peel", ("escape",), 200, "Behind you, not in front."),
    ("Roller Skates (one trip)", ("escape",), 300, "Wheee!"),
    ("Un-Curse Cookie", ("uncurse",), 100, "Chocolate chip, anti-curse."),
    ("Un-Curse Cookie", ("uncurse",), 100, "Oatmeal raisin, anti-curse."),
]

# Items: (name, slot, bonus, gold, big, restriction, run bonus, flavour)
#   slot: head | armour | foot | hand1 | hand2 | none
#   restriction: None | ("only", race-or-class) | ("not", race-or-class)
ITEMS: list[tuple] = [
    # headgear (6)
    ("Colander Helmet", "head", 1, 200, False, None, 0, "Drains pasta and bad ideas."),
    ("Wizard Hat with Stars", "head", 2, 400, False, ("only", "spellsinger"), 0, "Twinkly."),
    ("Propeller Cap", "head", 1, 300, False, None, 1, "Whirr! Also +1 to Run Away."),
    ("Knight's Bucket", "head", 2, 400, False, ("not", "sneak"), 0, "Clanky. Sneaks hate it."),
    ("Thinking Cap", "head", 3, 600, False, None, 0, "You feel clever already."),
    ("Crown of Bossiness", "head", 3, 600, False, ("only", "brawler"), 0, "Do as I say!"),
    # armour (7)
    ("Cardboard Box Armour", "armour", 1, 100, False, None, 0, "It says FRAGILE on the back."),
    ("Puffy Jacket", "armour", 2, 400, False, None, 0, "Squishy and warm."),
    ("Bubble Wrap Suit", "armour", 2, 300, False, None, 0, "Pop pop pop."),
    ("Shiny Tinfoil Armour", "armour", 3, 600, True, None, 0, "Big: crinkles loudly."),
    ("Superhero Cape", "armour", 2, 500, False, None, 1, "Swoosh! Also +1 to Run Away."),
    ("Fluffy Dressing Gown", "armour", 3, 600, False, ("only", "healer"), 0, "Cosy healing."),
    ("Armour of Many Pockets", "armour", 2, 400, False, ("only", "pocketkin"), 0, "For snacks."),
    # footgear (5)
    ("Squeaky Trainers", "foot", 1, 200, False, None, 1, "Fast, but everybody hears you."),
    ("Bunny Slippers", "foot", 2, 400, False, None, 0, "Deadly cute."),
    ("Rocket Wellies", "foot", 0, 400, False, None, 2, "+2 to Run Away."),
    ("Tap Dancing Shoes", "foot", 2, 300, False, ("not", "stoutling"), 0, "Click-clack."),
    ("Mud-Proof Boots", "foot", 2, 400, False, None, 0, "Splash through anything."),
    # one hand (13)
    ("Wooden Spoon", "hand1", 1, 100, False, None, 0, "Grandma's favourite weapon."),
    ("Pool Noodle Sword", "hand1", 2, 300, False, None, 0, "Bonk."),
    ("Frying Pan of Justice", "hand1", 3, 400, False, None, 0, "CLANG."),
    ("Rubber Chicken", "hand1", 2, 200, False, None, 0, "Squawk of doom."),
    ("Feather Duster", "hand1", 1, 200, False, None, 0, "Tickles and tidies."),
    ("Magic Wand (Slightly Bent)", "hand1", 3, 500, False, ("only", "spellsinger"), 0, "Oops."),
    ("Slingshot of Peas", "hand1", 2, 300, False, None, 0, "Eat your greens, monster!"),
    ("Trusty Umbrella", "hand1", 2, 400, False, None, 0, "Also good against Moody Clouds."),
    ("Teddy Bear Shield", "hand1", 3, 500, False, ("only", "healer"), 0, "Hugs block hits."),
    ("Sneaky Dagger (Made of Cake)", "hand1", 3, 500, False, ("only", "sneak"), 0, "Yummy."),
    ("Pillow of Smacking", "hand1", 3, 400, False, ("only", "brawler"), 0, "Fwump!"),
    ("Toy Lightsaber", "hand1", 2, 300, False, None, 0, "Vvvvmm."),
    ("Sticky Hand", "hand1", 1, 100, False, ("only", "sprite"), 1, "Slap! Also +1 to Run."),
    # two hands (6)
    ("Giant Lollipop Mace", "hand2", 4, 600, True, None, 0, "Big and sticky."),
    ("Garden Rake", "hand2", 3, 400, True, None, 0, "Step on it at your own risk."),
    ("Bouncy Castle Hammer", "hand2", 4, 700, True, ("only", "brawler"), 0, "Boing! BOING!"),
    ("Ladder of Climbing", "hand2", 3, 500, True, None, 1, "+1 to Run Away (up it goes)."),
    ("Broomstick", "hand2", 2, 400, False, None, 1, "Sweeps and swoops."),
    ("Mega Water Pistol", "hand2", 5, 800, True, None, 0, "The super-soaker of legend."),
    # no slot (8)
    ("Lucky Rabbit Slipper", "none", 1, 300, False, None, 0, "Lucky for you, not the rabbit."),
    ("Friendship Bracelet", "none", 1, 200, False, None, 0, "Made with love and string."),
    ("Glow-in-the-Dark Yo-Yo", "none", 2, 400, False, None, 0, "Walk the dog, walk the dungeon."),
    ("Pet Rock", "none", 2, 300, True, None, 0, "Big: it is a very big rock."),
    ("Backpack of Holding", "none", 0, 500, False, None, 1, "+1 to Run Away (so organised)."),
    ("Grandpa's Hearing Horn", "none", 2, 400, True, None, 0, "WHAT? Big."),
    ("Magic Marbles", "none", 1, 300, False, ("only", "sprite"), 0, "Never lose them."),
    ("Trophy for Trying", "none", 3, 900, True, None, 0, "Big, heavy, and very shiny."),
]


def _restriction_text(restriction: tuple | None) -> str:
    if restriction is None:
        return ""
    rule, who = restriction
    name = RACES.get(who) or CLASSES.get(who)
    if rule == "only":
        return f" Usable by a {name} only."
    return f" Not usable by a {name}."


SLOT_NAMES = {
    "head": "Headgear",
    "armour": "Armour",
    "foot": "Footgear",
    "hand1": "1 Hand",
    "hand2": "2 Hands",
    "none": "No slot",
}


def _bad_text(bad: tuple) -> str:
    kind = bad[0]
    if kind == "levels":
        return "lose a level." if bad[1] == 1 else f"lose {bad[1]} levels."
    if kind == "slot":
        return {
            "head": "lose your headgear.",
            "armour": "lose your armour.",
            "foot": "lose your footgear.",
        }[bad[1]]
    if kind == "small":
        return "lose a small item."
    if kind == "big":
        return "lose a Big item."
    if kind == "hand":
        return "discard your whole hand."
    if kind == "cards":
        return f"discard {bad[1]} cards from your hand."
    if kind == "race":
        return "lose your race."
    if kind == "class":
        return "lose your class."
    return "you are knocked out cold (dead!)."


def _build() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    d = t = 0

    def door(card: Card) -> None:
        nonlocal d
        d += 1
        card["id"] = f"mk-d-{d:03d}"
        card["deck"] = "door"
        cards[card["id"]] = card

    def treasure(card: Card) -> None:
        nonlocal t
        t += 1
        card["id"] = f"mk-t-{t:03d}"
        card["deck"] = "treasure"
        cards[card["id"]] = card

    for race, name in RACES.items():
        for _ in range(3):
            door({"kind": "race", "name": name, "race": race, "text": RACE_TEXT[race]})
    for cls, name in CLASSES.items():
        for _ in range(3):
            door({"kind": "class", "name": name, "cls": cls, "text": CLASS_TEXT[cls]})
    for _ in range(2):
        door(
            {
                "kind": "mixed",
                "name": "Half-and-Half",
                "text": "Play it next to your race: you may have two races at once.",
            }
        )
    for _ in range(2):
        door(
            {
                "kind": "double",
                "name": "Double Major",
                "text": "Play it next to your class: you may have two classes at once.",
            }
        )
    for name, level, treasures, levels, opts, bad, flavour in MONSTERS:
        bits = [f"Level {level}."]
        if opts.get("undead"):
            bits.append("Spooky.")
        if "bonus" in opts:
            who, n = opts["bonus"]
            bits.append(f"+{n} against a {RACES.get(who) or CLASSES.get(who)}.")
        if opts.get("run"):
            bits.append(f"{opts['run']:+d} to Run Away from it.")
        if opts.get("nochase"):
            bits.append(f"Will not chase anyone of level {opts['nochase']} or lower.")
        bits.append("Bad Stuff: " + _bad_text(bad))
        bits.append(f"{treasures} Treasure{'s' if treasures > 1 else ''}.")
        if levels > 1:
            bits.append(f"{levels} levels.")
        door(
            {
                "kind": "monster",
                "name": name,
                "level": level,
                "treasures": treasures,
                "levels": levels,
                "undead": bool(opts.get("undead")),
                "bonus": list(opts["bonus"]) if "bonus" in opts else None,
                "run": opts.get("run", 0),
                "nochase": opts.get("nochase", 0),
                "bad": list(bad),
                "text": " ".join(bits),
                "flavour": flavour,
            }
        )
    for name, effect, flavour in CURSES:
        kind = effect[0]
        if kind == "next_combat":
            text = f"Curse! -{effect[1]} in your next combat (kept until then)."
        elif kind == "chicken":
            text = "Curse! -1 on every Run Away roll. Kept until an Un-Curse Cookie removes it."
        else:
            text = "Curse! " + _bad_text(effect)[0].upper() + _bad_text(effect)[1:]
        door(
            {
                "kind": "curse",
                "name": name,
                "effect": list(effect),
                "text": text,
                "flavour": flavour,
            }
        )
    for name, n, treasure_change, copies, flavour in ENHANCERS:
        for _ in range(copies):
            door(
                {
                    "kind": "enhancer",
                    "name": name,
                    "bonus": n,
                    "treasure": treasure_change,
                    "text": f"Play on a monster in a combat: {n:+d} to it, "
                    f"{treasure_change:+d} Treasure.",
                    "flavour": flavour,
                }
            )
    for _ in range(3):
        door(
            {
                "kind": "wander",
                "name": "Surprise Guest",
                "text": "Play with a monster from your hand: it joins any combat.",
                "flavour": "Ding dong! Who invited HIM?",
            }
        )
    for name, flavour in LEVEL_UPS:
        treasure(
            {
                "kind": "levelup",
                "name": name,
                "text": "Go up a level (never to level 10, and not during a combat).",
                "flavour": flavour,
            }
        )
    for name, effect, gold, flavour in ONE_SHOTS:
        kind = effect[0]
        if kind == "bonus":
            text = f"Use once in a combat: +{effect[1]} to either side."
        elif kind == "remove":
            text = "Use once in a combat: one monster floats away (no level, no Treasure for it)."
        elif kind == "escape":
            text = "Use once when you Run Away: you escape that monster automatically."
        else:
            text = "Use once: remove a curse you are keeping."
        treasure(
            {
                "kind": "oneshot",
                "name": name,
                "effect": list(effect),
                "gold": gold,
                "text": f"{text} {gold} Gold.",
                "flavour": flavour,
            }
        )
    for name, slot, bonus, gold, big, restriction, run, flavour in ITEMS:
        text = SLOT_NAMES[slot] + "."
        if bonus:
            text += f" +{bonus} bonus."
        if run:
            text += f" +{run} to Run Away."
        if big:
            text += " Big."
        text += _restriction_text(restriction) + f" {gold} Gold."
        treasure(
            {
                "kind": "item",
                "name": name,
                "slot": slot,
                "bonus": bonus,
                "gold": gold,
                "big": big,
                "restriction": list(restriction) if restriction else None,
                "run": run,
                "text": text,
                "flavour": flavour,
            }
        )
    return cards


CARDS: dict[str, Card] = _build()
DOORS: tuple[str, ...] = tuple(c for c in CARDS if CARDS[c]["deck"] == "door")
TREASURES: tuple[str, ...] = tuple(c for c in CARDS if CARDS[c]["deck"] == "treasure")
ALL_IDS: tuple[str, ...] = tuple(CARDS)

assert len(DOORS) == 94 and len(TREASURES) == 74 and len(ALL_IDS) == 168
