"""The 168 cards of Munchkin (our own family-friendly set): 94 Dungeon (door) cards and 74
Treasure cards. Names, texts and numbers are our own invention.

Every card is a plain dict with an ``id`` (``mk-d-NNN`` for doors, ``mk-t-NNN`` for treasures),
a ``deck`` ("door" or "treasure"), a ``kind`` and a ``name``; ``text`` is the sentence printed on
the card (made from its numbers so that the text and the rules can never disagree) and ``flavour``
a joke. The engine reads the numbers, never the text.

Every word for the screen is an English literal marked for translation: names and flavours with
``gettext_noop`` (extracted by ``makemessages``), and the text by ``card_text``, which builds it
with the ``gettext``/``ngettext`` it is given (the English defaults here, Django's in a
presenter). The cards themselves keep the English.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.engine.base import english_ngettext
from games.engine.base import gettext_noop

Card = dict[str, Any]

RACES = {
    "sprite": gettext_noop("Sprite"),
    "stoutling": gettext_noop("Stoutling"),
    "pocketkin": gettext_noop("Pocketkin"),
}
CLASSES = {
    "brawler": gettext_noop("Brawler"),
    "spellsinger": gettext_noop("Spellsinger"),
    "sneak": gettext_noop("Sneak"),
    "healer": gettext_noop("Healer"),
}
RACE_TEXT = {
    "sprite": gettext_noop(
        "+1 to Run Away. When you help someone kill monsters, you go up a level for each "
        "monster killed."
    ),
    "stoutling": gettext_noop("You may carry any number of Big items. Your hand limit is 6 cards."),
    "pocketkin": gettext_noop(
        "Once on each of your turns you may sell one item for double its value."
    ),
}
CLASS_TEXT = {
    "brawler": gettext_noop(
        "Pillow Fury: in combat, discard up to 3 cards, +1 for each. You win ties with monsters."
    ),
    "spellsinger": gettext_noop(
        "Flutter Spell: when you Run Away, discard up to 3 cards, +1 to the roll for each. "
        "Lullaby: discard your whole hand (3 cards or more) to sing one monster to sleep: it "
        "leaves the fight, you keep its treasure but gain no level."
    ),
    "sneak": gettext_noop(
        "Sneaky Poke: discard a card to give a player in a combat -2 (once for each player in "
        "each combat). Also +1 to Run Away: nobody notices you leave."
    ),
    "healer": gettext_noop(
        "Shoo, Spooks!: in combat, discard up to 3 cards, +3 for each against Spooky monsters."
    ),
}

# --------------------------------------------------------------------------------------------
# Monsters: (name, level, treasures, levels won, options, bad stuff, flavour)
#   options: undead (Spooky), bonus (target, n) against a race or class, run (modifier to Run
#   Away), nochase (won't chase anyone of this level or lower)
#   bad stuff: ("levels", n) | ("slot", "head"/"armour"/"foot") | ("small",) | ("big",)
#              | ("hand",) | ("cards", n) | ("race",) | ("class",) | ("death",)
# --------------------------------------------------------------------------------------------
# fmt: off
MONSTERS: list[tuple] = [
    (gettext_noop("Dust Bunny"), 1, 1, 1, {}, ("slot", "head"),
     gettext_noop("It sneezes on your hat.")),
    (gettext_noop("Grumpy Garden Gnome"), 1, 1, 1, {}, ("slot", "foot"),
     gettext_noop("He wants your shoes for his boat.")),
    (gettext_noop("Sock Puppet Goblin"), 1, 1, 1, {"run": 1}, ("levels", 1),
     gettext_noop("Slow, because it has no legs.")),
    (gettext_noop("Overdue Library Book"), 2, 1, 1, {"undead": True}, ("small",),
     gettext_noop("Pay the fine!")),
    (gettext_noop("Lint Golem"), 2, 1, 1, {}, ("levels", 1),
     gettext_noop("Made entirely of pocket fluff.")),
    (gettext_noop("Hungry Homework"), 2, 1, 1, {}, ("cards", 2),
     gettext_noop("The dog did not eat it. It ate you.")),
    (gettext_noop("Wobbly Jelly"), 2, 1, 1, {"bonus": ("sprite", 3)}, ("levels", 1),
     gettext_noop("Sprites find it rude.")),
    (gettext_noop("Squeaky Floorboard"), 3, 1, 1, {}, ("hand",),
     gettext_noop("Everybody heard you. Everybody.")),
    (gettext_noop("Pillow Ghost"), 3, 1, 1, {"undead": True}, ("slot", "head"),
     gettext_noop("Fluffy, spooky, sleepy.")),
    (gettext_noop("Crabby Crab"), 3, 1, 1, {"run": -1}, ("slot", "foot"),
     gettext_noop("Pinches toes, sideways.")),
    (gettext_noop("Bossy Pigeon"), 4, 2, 1, {}, ("levels", 1),
     gettext_noop("It wants your sandwich. Now.")),
    (gettext_noop("Tangled Kite"), 4, 2, 1, {"bonus": ("pocketkin", 2)}, ("small",),
     gettext_noop("Stuck in every tree.")),
    (gettext_noop("Bathtub Kraken"), 5, 2, 1, {}, ("levels", 2),
     gettext_noop("Squeak. SQUEAK.")),
    (gettext_noop("Spaghetti Monster Junior"), 5, 2, 1, {}, ("slot", "armour"),
     gettext_noop("Saucy and proud of it.")),
    (gettext_noop("Moody Cloud"), 5, 2, 1, {"nochase": 2}, ("cards", 2),
     gettext_noop("It rains only on you.")),
    (gettext_noop("Lost Left Sock"), 6, 2, 1, {"bonus": ("stoutling", 3)}, ("slot", "foot"),
     gettext_noop("Very lonely.")),
    (gettext_noop("Snoring Troll"), 6, 2, 1, {"run": 1}, ("levels", 1),
     gettext_noop("Easy to sneak past, if quiet.")),
    (gettext_noop("Skeleton Drummer"), 6, 2, 1, {"undead": True}, ("small",),
     gettext_noop("Ba-dum-TSS.")),
    (gettext_noop("Cranky Cactus"), 7, 2, 1, {}, ("slot", "armour"), gettext_noop("Don't hug it.")),
    (gettext_noop("Tornado in a Teacup"), 7, 2, 1, {"run": -1}, ("hand",),
     gettext_noop("Small but VERY windy.")),
    (gettext_noop("Giant Hamster Wheel"), 7, 2, 1, {"bonus": ("brawler", 3)}, ("levels", 1),
     gettext_noop("Round and round.")),
    (gettext_noop("Mummy's Boy"), 8, 2, 1, {"undead": True}, ("levels", 2),
     gettext_noop("Wrapped in his own blanket.")),
    (gettext_noop("Haunted Vending Machine"), 8, 2, 1, {}, ("big",),
     gettext_noop("It took your coin AND your item.")),
    (gettext_noop("Tickle Octopus"), 8, 2, 1, {"bonus": ("spellsinger", 3)}, ("class",),
     gettext_noop("Eight tickly arms.")),
    (gettext_noop("Banshee Soprano"), 9, 2, 1, {"undead": True}, ("cards", 3),
     gettext_noop("Hits a note that cracks cards.")),
    (gettext_noop("Mud Wrestler Walrus"), 9, 2, 1, {}, ("slot", "armour"),
     gettext_noop("Slippery and whiskery.")),
    (gettext_noop("Bubble Gum Blob"), 10, 3, 1, {"run": -1}, ("small",),
     gettext_noop("Sticks to everything you own.")),
    (gettext_noop("Mirror Mimic"), 10, 3, 1, {"bonus": ("sneak", 3)}, ("levels", 2),
     gettext_noop("It copies your dance.")),
    (gettext_noop("Karaoke Kraken"), 10, 3, 1, {}, ("race",),
     gettext_noop("Sings so badly you forget who you are.")),
    (gettext_noop("Vampire Llama"), 11, 3, 1, {"undead": True}, ("levels", 2),
     gettext_noop("Vants to spit on you.")),
    (gettext_noop("Thunder Toad"), 11, 3, 1, {"nochase": 3}, ("hand",),
     gettext_noop("Ribbit. BOOM.")),
    (gettext_noop("Whirling Laundry Djinn"), 12, 3, 1, {}, ("big",),
     gettext_noop("Your favourite item shrinks in the wash.")),
    (gettext_noop("Sir Grumbles the Knight"), 12, 3, 1, {"bonus": ("healer", 3)}, ("levels", 2),
     gettext_noop("Never happy.")),
    (gettext_noop("Zombie Lunch Lady"), 13, 3, 1, {"undead": True}, ("death",),
     gettext_noop("Today's special: you.")),
    (gettext_noop("Marshmallow Giant"), 14, 4, 1, {"run": 1}, ("levels", 3),
     gettext_noop("Soft, sweet, enormous.")),
    (gettext_noop("Crystal Spider Queen"), 14, 4, 1, {"nochase": 4}, ("death",),
     gettext_noop("Spins glittery traps.")),
    (gettext_noop("Ghost Pirate Captain"), 16, 4, 2, {"undead": True}, ("death",),
     gettext_noop("Arr-ooo-ooo!")),
    (gettext_noop("Clockwork Dragonfly"), 16, 4, 2, {"run": -1}, ("levels", 3),
     gettext_noop("Tick, tock, zoom.")),
    (gettext_noop("Lava Lamp Golem"), 17, 4, 2, {"nochase": 5}, ("death",),
     gettext_noop("Groovy and very hot.")),
    (gettext_noop("King of All Pigeons"), 18, 4, 2, {"bonus": ("sprite", 4)}, ("death",),
     gettext_noop("Coo. Bow down.")),
    (gettext_noop("The Homework Dragon"), 20, 5, 2, {"run": -2}, ("death",),
     gettext_noop("Due tomorrow. Breathes essays.")),
    (gettext_noop("Great Grandmother Sphinx"), 20, 5, 2, {"nochase": 5}, ("death",),
     gettext_noop("Riddles until bedtime.")),
]
# fmt: on

# Curses: (name, effect, flavour). Effects: ("levels", n) | ("slot", s) | ("small",) | ("big",)
# | ("race",) | ("class",) | ("cards", n) | ("next_combat", n) (kept until your next combat)
# | ("chicken",) (kept: -1 on every Run Away roll until an Un-Curse Cookie removes it)
# fmt: off
CURSES: list[tuple] = [
    (gettext_noop("Tickle Spell"), ("levels", 1),
     gettext_noop("Hee hee hee... oops, there goes a level.")),
    (gettext_noop("Silly Hat Hex"), ("slot", "head"),
     gettext_noop("Your hat flies off to join a circus.")),
    (gettext_noop("Itchy Sweater Jinx"), ("slot", "armour"),
     gettext_noop("You just have to take it off.")),
    (gettext_noop("Untied Laces"), ("slot", "foot"), gettext_noop("Trip, slip, and off they go.")),
    (gettext_noop("Butterfingers"), ("small",),
     gettext_noop("Whoops! Something small slips away.")),
    (gettext_noop("Heavy Backpack Curse"), ("big",),
     gettext_noop("Too heavy to carry. Leave it behind.")),
    (gettext_noop("Identity Crisis"), ("race",), gettext_noop("Who are you again?")),
    (gettext_noop("Career Change"), ("class",),
     gettext_noop("You decide to become a baker instead.")),
    (gettext_noop("Paper Cut Curse"), ("cards", 2), gettext_noop("Ouch. Two cards flutter away.")),
    (gettext_noop("Sleepy Yawn Curse"), ("next_combat", 3),
     gettext_noop("You will be a bit sleepy in your next fight.")),
    (gettext_noop("Wet Sock Curse"), ("next_combat", 2),
     gettext_noop("Squelch. Squelch. Squelch.")),
    (gettext_noop("Hiccup Hex"), ("next_combat", 2),
     gettext_noop("Hic! It is hard to fight like this. Hic!")),
    (gettext_noop("Clucking Bonnet"), ("chicken",),
     gettext_noop("It clucks every time you try to run.")),
    (gettext_noop("Double Tickle Spell"), ("levels", 2),
     gettext_noop("Twice the giggles, twice the trouble.")),
]
# fmt: on

# Monster enhancers: (name, strength, treasure change, copies, flavour)
# fmt: off
ENHANCERS: list[tuple] = [
    (gettext_noop("Grumpy Great-Grandpa"), 10, 2, 2,
     gettext_noop("Older, wiser, and much, much grumpier.")),
    (gettext_noop("Hangry"), 5, 1, 3, gettext_noop("It skipped breakfast.")),
    (gettext_noop("Wearing a Tiny Crown"), 5, 1, 2, gettext_noop("It feels very important today.")),
    (gettext_noop("Teeny-Tiny"), -5, -1, 3, gettext_noop("Shrunk in the wash.")),
]
# fmt: on

# Treasure: go-up-a-level cards (name, flavour)
# fmt: off
LEVEL_UPS: list[tuple] = [
    (gettext_noop("Won the Spelling Bee"), gettext_noop("B-R-I-L-L-I-A-N-T.")),
    (gettext_noop("Ate All Your Vegetables"), gettext_noop("Even the green ones.")),
    (gettext_noop("Tidied Your Room"), gettext_noop("Under the bed too!")),
    (gettext_noop("Invented a New Sandwich"), gettext_noop("Banana and cheese. Genius.")),
    (gettext_noop("Beat the Boss at Tic-Tac-Toe"), gettext_noop("X marks the level.")),
    (gettext_noop("It's Your Birthday!"), gettext_noop("Everybody sings. You level up.")),
    (gettext_noop("Learned to Whistle"), gettext_noop("Finally!")),
    (gettext_noop("Gold Star Sticker"), gettext_noop("Shiny and well earned.")),
    (gettext_noop("Found the TV Remote"), gettext_noop("A true hero of the household.")),
]
# fmt: on

# One-shot items: (name, effect, gold, flavour). Effects: ("bonus", n): +n to either side in a
# combat | ("remove",): one monster floats out of the fight (no level; its treasure is lost)
# | ("escape",): escape one monster automatically when you run | ("uncurse",): remove a kept
# curse from yourself (any time on your turn or in a combat window)
# fmt: off
ONE_SHOTS: list[tuple] = [
    (gettext_noop("Fizzy Pop Potion"), ("bonus", 2), 100, gettext_noop("Burp!")),
    (gettext_noop("Fizzy Pop Potion"), ("bonus", 2), 100, gettext_noop("Burp! Burp!")),
    (gettext_noop("Glitter Bomb"), ("bonus", 3), 200, gettext_noop("Sparkly and confusing.")),
    (gettext_noop("Water Balloon"), ("bonus", 2), 100, gettext_noop("Splash!")),
    (gettext_noop("Whoopee Cushion"), ("bonus", 3), 200,
     gettext_noop("Nobody can fight while laughing.")),
    (gettext_noop("Super Sour Sweet"), ("bonus", 3), 200,
     gettext_noop("Makes your face do funny things.")),
    (gettext_noop("Thunder Clap Jar"), ("bonus", 5), 300,
     gettext_noop("Open only in emergencies.")),
    (gettext_noop("Giant Foam Finger"), ("bonus", 4), 300, gettext_noop("We're number one!")),
    (gettext_noop("Rainbow Sprinkles Shaker"), ("bonus", 2), 100,
     gettext_noop("Everything is better with sprinkles.")),
    (gettext_noop("Pocket Sandstorm"), ("bonus", 4), 300,
     gettext_noop("Sand everywhere. Forever.")),
    (gettext_noop("Confetti Cannon"), ("bonus", 3), 200, gettext_noop("Party time!")),
    (gettext_noop("Stinky Cheese Wedge"), ("bonus", 5), 400,
     gettext_noop("Monsters faint. So do friends.")),
    (gettext_noop("Cheerleader Pom-Poms"), ("bonus", 2), 100,
     gettext_noop("Give me a W! Give me an I! Give me an N!")),
    (gettext_noop("Bubble Wand"), ("remove",), 400,
     gettext_noop("One monster floats gently away.")),
    (gettext_noop("Magic Eraser"), ("remove",), 500, gettext_noop("Rub it out of the story.")),
    (gettext_noop("Smoke Puff"), ("escape",), 200, gettext_noop("Cough, cough, gone.")),
    (gettext_noop("Banana Peel"), ("escape",), 200, gettext_noop("Behind you, not in front.")),
    (gettext_noop("Roller Skates (one trip)"), ("escape",), 300, gettext_noop("Wheee!")),
    (gettext_noop("Un-Curse Cookie"), ("uncurse",), 100,
     gettext_noop("Chocolate chip, anti-curse.")),
    (gettext_noop("Un-Curse Cookie"), ("uncurse",), 100,
     gettext_noop("Oatmeal raisin, anti-curse.")),
]
# fmt: on

# Items: (name, slot, bonus, gold, big, restriction, run bonus, flavour)
#   slot: head | armour | foot | hand1 | hand2 | none
#   restriction: None | ("only", race-or-class) | ("not", race-or-class)
# fmt: off
ITEMS: list[tuple] = [
    # headgear (6)
    (gettext_noop("Colander Helmet"), "head", 1, 200, False, None, 0,
     gettext_noop("Drains pasta and bad ideas.")),
    (gettext_noop("Wizard Hat with Stars"), "head", 2, 400, False, ("only", "spellsinger"), 0,
     gettext_noop("Twinkly.")),
    (gettext_noop("Propeller Cap"), "head", 1, 300, False, None, 1,
     gettext_noop("Whirr! Also +1 to Run Away.")),
    (gettext_noop("Knight's Bucket"), "head", 2, 400, False, ("not", "sneak"), 0,
     gettext_noop("Clanky. Sneaks hate it.")),
    (gettext_noop("Thinking Cap"), "head", 3, 600, False, None, 0,
     gettext_noop("You feel clever already.")),
    (gettext_noop("Crown of Bossiness"), "head", 3, 600, False, ("only", "brawler"), 0,
     gettext_noop("Do as I say!")),
    # armour (7)
    (gettext_noop("Cardboard Box Armour"), "armour", 1, 100, False, None, 0,
     gettext_noop("It says FRAGILE on the back.")),
    (gettext_noop("Puffy Jacket"), "armour", 2, 400, False, None, 0,
     gettext_noop("Squishy and warm.")),
    (gettext_noop("Bubble Wrap Suit"), "armour", 2, 300, False, None, 0,
     gettext_noop("Pop pop pop.")),
    (gettext_noop("Shiny Tinfoil Armour"), "armour", 3, 600, True, None, 0,
     gettext_noop("Big: crinkles loudly.")),
    (gettext_noop("Superhero Cape"), "armour", 2, 500, False, None, 1,
     gettext_noop("Swoosh! Also +1 to Run Away.")),
    (gettext_noop("Fluffy Dressing Gown"), "armour", 3, 600, False, ("only", "healer"), 0,
     gettext_noop("Cosy healing.")),
    (gettext_noop("Armour of Many Pockets"), "armour", 2, 400, False, ("only", "pocketkin"), 0,
     gettext_noop("For snacks.")),
    # footgear (5)
    (gettext_noop("Squeaky Trainers"), "foot", 1, 200, False, None, 1,
     gettext_noop("Fast, but everybody hears you.")),
    (gettext_noop("Bunny Slippers"), "foot", 2, 400, False, None, 0, gettext_noop("Deadly cute.")),
    (gettext_noop("Rocket Wellies"), "foot", 0, 400, False, None, 2,
     gettext_noop("+2 to Run Away.")),
    (gettext_noop("Tap Dancing Shoes"), "foot", 2, 300, False, ("not", "stoutling"), 0,
     gettext_noop("Click-clack.")),
    (gettext_noop("Mud-Proof Boots"), "foot", 2, 400, False, None, 0,
     gettext_noop("Splash through anything.")),
    # one hand (13)
    (gettext_noop("Wooden Spoon"), "hand1", 1, 100, False, None, 0,
     gettext_noop("Grandma's favourite weapon.")),
    (gettext_noop("Pool Noodle Sword"), "hand1", 2, 300, False, None, 0, gettext_noop("Bonk.")),
    (gettext_noop("Frying Pan of Justice"), "hand1", 3, 400, False, None, 0,
     gettext_noop("CLANG.")),
    (gettext_noop("Rubber Chicken"), "hand1", 2, 200, False, None, 0,
     gettext_noop("Squawk of doom.")),
    (gettext_noop("Feather Duster"), "hand1", 1, 200, False, None, 0,
     gettext_noop("Tickles and tidies.")),
    (gettext_noop("Magic Wand (Slightly Bent)"), "hand1", 3, 500, False, ("only", "spellsinger"), 0,
     gettext_noop("Oops.")),
    (gettext_noop("Slingshot of Peas"), "hand1", 2, 300, False, None, 0,
     gettext_noop("Eat your greens, monster!")),
    (gettext_noop("Trusty Umbrella"), "hand1", 2, 400, False, None, 0,
     gettext_noop("Also good against Moody Clouds.")),
    (gettext_noop("Teddy Bear Shield"), "hand1", 3, 500, False, ("only", "healer"), 0,
     gettext_noop("Hugs block hits.")),
    (gettext_noop("Sneaky Dagger (Made of Cake)"), "hand1", 3, 500, False, ("only", "sneak"), 0,
     gettext_noop("Yummy.")),
    (gettext_noop("Pillow of Smacking"), "hand1", 3, 400, False, ("only", "brawler"), 0,
     gettext_noop("Fwump!")),
    (gettext_noop("Toy Lightsaber"), "hand1", 2, 300, False, None, 0, gettext_noop("Vvvvmm.")),
    (gettext_noop("Sticky Hand"), "hand1", 1, 100, False, ("only", "sprite"), 1,
     gettext_noop("Slap! Also +1 to Run.")),
    # two hands (6)
    (gettext_noop("Giant Lollipop Mace"), "hand2", 4, 600, True, None, 0,
     gettext_noop("Big and sticky.")),
    (gettext_noop("Garden Rake"), "hand2", 3, 400, True, None, 0,
     gettext_noop("Step on it at your own risk.")),
    (gettext_noop("Bouncy Castle Hammer"), "hand2", 4, 700, True, ("only", "brawler"), 0,
     gettext_noop("Boing! BOING!")),
    (gettext_noop("Ladder of Climbing"), "hand2", 3, 500, True, None, 1,
     gettext_noop("+1 to Run Away (up it goes).")),
    (gettext_noop("Broomstick"), "hand2", 2, 400, False, None, 1,
     gettext_noop("Sweeps and swoops.")),
    (gettext_noop("Mega Water Pistol"), "hand2", 5, 800, True, None, 0,
     gettext_noop("The super-soaker of legend.")),
    # no slot (8)
    (gettext_noop("Lucky Rabbit Slipper"), "none", 1, 300, False, None, 0,
     gettext_noop("Lucky for you, not the rabbit.")),
    (gettext_noop("Friendship Bracelet"), "none", 1, 200, False, None, 0,
     gettext_noop("Made with love and string.")),
    (gettext_noop("Glow-in-the-Dark Yo-Yo"), "none", 2, 400, False, None, 0,
     gettext_noop("Walk the dog, walk the dungeon.")),
    (gettext_noop("Pet Rock"), "none", 2, 300, True, None, 0,
     gettext_noop("Big: it is a very big rock.")),
    (gettext_noop("Backpack of Holding"), "none", 0, 500, False, None, 1,
     gettext_noop("+1 to Run Away (so organised).")),
    (gettext_noop("Grandpa's Hearing Horn"), "none", 2, 400, True, None, 0,
     gettext_noop("WHAT? Big.")),
    (gettext_noop("Magic Marbles"), "none", 1, 300, False, ("only", "sprite"), 0,
     gettext_noop("Never lose them.")),
    (gettext_noop("Trophy for Trying"), "none", 3, 900, True, None, 0,
     gettext_noop("Big, heavy, and very shiny.")),
]
# fmt: on


Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]

SLOT_TEXT = {
    "head": gettext_noop("Headgear."),
    "armour": gettext_noop("Armour."),
    "foot": gettext_noop("Footgear."),
    "hand1": gettext_noop("1 Hand."),
    "hand2": gettext_noop("2 Hands."),
    "none": gettext_noop("No slot."),
}

# The name of each kind of card (on the card, and in the log when a door is kicked open).
KIND_NAMES = {
    "race": gettext_noop("Race"),
    "class": gettext_noop("Class"),
    "mixed": gettext_noop("Two races"),
    "double": gettext_noop("Two classes"),
    "monster": gettext_noop("Monster"),
    "curse": gettext_noop("Curse"),
    "enhancer": gettext_noop("Monster enhancer"),
    "wander": gettext_noop("Wandering monster"),
    "levelup": gettext_noop("Go up a level"),
    "oneshot": gettext_noop("One-shot"),
    "item": gettext_noop("Item"),
}


def _who_name(who: str, gettext: Gettext) -> str:
    return gettext(RACES.get(who) or CLASSES[who])


def _restriction_text(restriction: list | tuple | None, gettext: Gettext) -> str:
    if restriction is None:
        return ""
    rule, who = restriction
    if rule == "only":
        return gettext("Usable by a %(who)s only.") % {"who": _who_name(who, gettext)}
    return gettext("Not usable by a %(who)s.") % {"who": _who_name(who, gettext)}


def _bad_text(bad: list | tuple, gettext: Gettext, ngettext: Ngettext) -> str:
    kind = bad[0]
    if kind == "levels":
        if bad[1] == 1:
            return gettext("lose a level.")
        return ngettext("lose %(n)s level.", "lose %(n)s levels.", bad[1]) % {"n": bad[1]}
    if kind == "slot":
        if bad[1] == "head":
            return gettext("lose your headgear.")
        if bad[1] == "armour":
            return gettext("lose your armour.")
        return gettext("lose your footgear.")
    if kind == "small":
        return gettext("lose a small item.")
    if kind == "big":
        return gettext("lose a Big item.")
    if kind == "hand":
        return gettext("discard your whole hand.")
    if kind == "cards":
        return ngettext(
            "discard %(n)s card from your hand.", "discard %(n)s cards from your hand.", bad[1]
        ) % {"n": bad[1]}
    if kind == "race":
        return gettext("lose your race.")
    if kind == "class":
        return gettext("lose your class.")
    return gettext("you are knocked out cold (dead!).")


def _monster_text(card: Card, gettext: Gettext, ngettext: Ngettext) -> list[str]:
    bits = [gettext("Level %(level)s.") % {"level": card["level"]}]
    if card["undead"]:
        bits.append(gettext("Spooky."))
    if card["bonus"]:
        who, n = card["bonus"]
        bits.append(gettext("+%(n)s against a %(who)s.") % {"n": n, "who": _who_name(who, gettext)})
    if card["run"]:
        bits.append(gettext("%(n)+d to Run Away from it.") % {"n": card["run"]})
    if card["nochase"]:
        bits.append(
            gettext("Will not chase anyone of level %(level)s or lower.")
            % {"level": card["nochase"]}
        )
    bits.append(gettext("Bad Stuff: %(bad)s") % {"bad": _bad_text(card["bad"], gettext, ngettext)})
    n = card["treasures"]
    bits.append(ngettext("%(n)s Treasure.", "%(n)s Treasures.", n) % {"n": n})
    if card["levels"] > 1:
        n = card["levels"]
        bits.append(ngettext("%(n)s level.", "%(n)s levels.", n) % {"n": n})
    return bits


def _curse_text(card: Card, gettext: Gettext, ngettext: Ngettext) -> list[str]:
    effect = card["effect"]
    if effect[0] == "next_combat":
        return [gettext("Curse! -%(n)s in your next combat (kept until then).") % {"n": effect[1]}]
    if effect[0] == "chicken":
        return [
            gettext("Curse! -1 on every Run Away roll. Kept until an Un-Curse Cookie removes it.")
        ]
    bad = _bad_text(effect, gettext, ngettext)
    return [gettext("Curse! %(effect)s") % {"effect": bad[:1].upper() + bad[1:]}]


def _oneshot_text(card: Card, gettext: Gettext) -> list[str]:
    effect = card["effect"]
    if effect[0] == "bonus":
        text = gettext("Use once in a combat: +%(n)s to either side.") % {"n": effect[1]}
    elif effect[0] == "remove":
        text = gettext(
            "Use once in a combat: one monster floats away (no level, no Treasure for it)."
        )
    elif effect[0] == "escape":
        text = gettext("Use once when you Run Away: you escape that monster automatically.")
    else:
        text = gettext("Use once: remove a curse you are keeping.")
    return [text, gettext("%(gold)s Gold.") % {"gold": card["gold"]}]


def _item_text(card: Card, gettext: Gettext) -> list[str]:
    bits = [gettext(SLOT_TEXT[card["slot"]])]
    if card["bonus"]:
        bits.append(gettext("+%(n)s bonus.") % {"n": card["bonus"]})
    if card["run"]:
        bits.append(gettext("+%(n)s to Run Away.") % {"n": card["run"]})
    if card["big"]:
        bits.append(gettext("Big."))
    if card["restriction"]:
        bits.append(_restriction_text(card["restriction"], gettext))
    bits.append(gettext("%(gold)s Gold.") % {"gold": card["gold"]})
    return bits


def card_text(
    card: Card, gettext: Gettext = gettext_noop, ngettext: Ngettext = english_ngettext
) -> str:
    """The sentence printed on ``card``, made from its numbers.

    With the defaults this is the English ``card["text"]`` of the engine; a presenter passes
    Django's ``gettext``/``ngettext`` to get it in the reader's language (xgettext extracts the
    literals of the ``gettext(...)``/``ngettext(...)`` calls below)."""
    kind = card["kind"]
    if kind == "race":
        return gettext(RACE_TEXT[card["race"]])
    if kind == "class":
        return gettext(CLASS_TEXT[card["cls"]])
    if kind == "mixed":
        return gettext("Play it next to your race: you may have two races at once.")
    if kind == "double":
        return gettext("Play it next to your class: you may have two classes at once.")
    if kind == "monster":
        bits = _monster_text(card, gettext, ngettext)
    elif kind == "curse":
        bits = _curse_text(card, gettext, ngettext)
    elif kind == "enhancer":
        bits = [
            gettext("Play on a monster in a combat: %(n)+d to it, %(treasure)+d Treasure.")
            % {"n": card["bonus"], "treasure": card["treasure"]}
        ]
    elif kind == "wander":
        bits = [gettext("Play with a monster from your hand: it joins any combat.")]
    elif kind == "levelup":
        bits = [gettext("Go up a level (never to level 10, and not during a combat).")]
    elif kind == "oneshot":
        bits = _oneshot_text(card, gettext)
    else:
        bits = _item_text(card, gettext)
    return " ".join(bits)


def _build() -> dict[str, Card]:
    """Every card, numbered in the order of its deck (doors: the characters' cards, then the
    dungeon's; then the treasures), with its text made from its numbers."""
    cards: dict[str, Card] = {}
    decks = (("door", "d", _character_cards() + _dungeon_cards()), ("treasure", "t", _treasures()))
    for deck, letter, made in decks:
        for number, card in enumerate(made, start=1):
            card["text"] = card_text(card)
            card["id"] = f"mk-{letter}-{number:03d}"
            card["deck"] = deck
            cards[card["id"]] = card
    return cards


# In the card makers below, "text" is a placeholder (filled in by card_text) that keeps the keys
# in their order.
def _character_cards() -> list[Card]:
    """The door cards a character is made of: races, classes, Half-and-Half, Double Major."""
    made: list[Card] = []
    for race, name in RACES.items():
        made += [{"kind": "race", "name": name, "race": race, "text": ""} for _ in range(3)]
    for cls, name in CLASSES.items():
        made += [{"kind": "class", "name": name, "cls": cls, "text": ""} for _ in range(3)]
    for _ in range(2):
        made.append({"kind": "mixed", "name": gettext_noop("Half-and-Half"), "text": ""})
    for _ in range(2):
        made.append({"kind": "double", "name": gettext_noop("Double Major"), "text": ""})
    return made


def _dungeon_cards() -> list[Card]:
    """The door cards of the dungeon: monsters, curses, monster enhancers, Surprise Guests."""
    made: list[Card] = []
    for name, level, treasures, levels, opts, bad, flavour in MONSTERS:
        made.append(
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
                "text": "",
                "flavour": flavour,
            }
        )
    for name, effect, flavour in CURSES:
        made.append(
            {"kind": "curse", "name": name, "effect": list(effect), "text": "", "flavour": flavour}
        )
    for name, n, treasure_change, copies, flavour in ENHANCERS:
        for _ in range(copies):
            made.append(
                {
                    "kind": "enhancer",
                    "name": name,
                    "bonus": n,
                    "treasure": treasure_change,
                    "text": "",
                    "flavour": flavour,
                }
            )
    for _ in range(3):
        made.append(
            {
                "kind": "wander",
                "name": gettext_noop("Surprise Guest"),
                "text": "",
                "flavour": gettext_noop("Ding dong! Who invited HIM?"),
            }
        )
    return made


def _treasures() -> list[Card]:
    """The treasure cards: Go Up a Level cards, one-shots, items."""
    made: list[Card] = []
    for name, flavour in LEVEL_UPS:
        made.append({"kind": "levelup", "name": name, "text": "", "flavour": flavour})
    for name, effect, gold, flavour in ONE_SHOTS:
        made.append(
            {
                "kind": "oneshot",
                "name": name,
                "effect": list(effect),
                "gold": gold,
                "text": "",
                "flavour": flavour,
            }
        )
    for name, slot, bonus, gold, big, restriction, run, flavour in ITEMS:
        made.append(
            {
                "kind": "item",
                "name": name,
                "slot": slot,
                "bonus": bonus,
                "gold": gold,
                "big": big,
                "restriction": list(restriction) if restriction else None,
                "run": run,
                "text": "",
                "flavour": flavour,
            }
        )
    return made


CARDS: dict[str, Card] = _build()
DOORS: tuple[str, ...] = tuple(c for c in CARDS if CARDS[c]["deck"] == "door")
TREASURES: tuple[str, ...] = tuple(c for c in CARDS if CARDS[c]["deck"] == "treasure")
ALL_IDS: tuple[str, ...] = tuple(CARDS)

assert len(DOORS) == 94 and len(TREASURES) == 74 and len(ALL_IDS) == 168
