"""Engine texts that reach the screen go through gettext (every engine's refusals; Munchkin,
Muertoons and MultipliPotion card texts).

The engines are pure Python: they mark their English literals with ``base.gettext_noop`` (so
``makemessages`` extracts them) and keep English in the state; the presenters translate at
display time. Here a tiny in-memory catalogue maps a few of those texts to markers, and the board
must show the markers; static checks make sure every card text is marked for extraction."""

import ast
import re
import shutil
from pathlib import Path

import pytest
from catalogue_kit import fake_catalogue
from catalogue_kit import pot_msgids
from catalogue_kit import xgettext_pot
from django.urls import reverse
from django.utils import translation

from games import registry
from games.engine import base
from games.models import Match
from games.models import Seat
from games.mortadelo import engine as mortadelo
from games.muertoons import engine as muertoons
from games.multiplipotion import engine as multiplipotion
from games.munchkin import cards as munchkin_cards
from games.munchkin import engine as munchkin
from games.munchkin.cards import CARDS
from games.munchkin.cards import card_text
from games.trono import engine as trono

from .conftest import guest_client

HTMX = {"HTTP_HX_REQUEST": "true"}
ENGINE = Path(munchkin_cards.__file__).parent
TABLES = ("MONSTERS", "CURSES", "ENHANCERS", "LEVEL_UPS", "ONE_SHOTS", "ITEMS")
# The keywords Django's makemessages gives xgettext for Python files (plus xgettext's own).
XGETTEXT_KEYWORDS = (
    "gettext_noop",
    "gettext_lazy",
    "ngettext_lazy:1,2",
    "pgettext:1c,2",
    "npgettext:1c,2,3",
    "pgettext_lazy:1c,2",
    "npgettext_lazy:1c,2,3",
    "ngettext_noop:1,2",  # the engines' event texts (games/management/commands/makemessages.py)
)


def url(name, match):
    return reverse(f"games:{name}", args=[match.public_id])


def post_move(client, match, **fields):
    match.refresh_from_db()
    data = {"version": match.version, "move_id": "", **fields}
    return client.post(url("move", match), data, **HTMX)


def make(game, n, **extra):
    specs = [
        {"kind": Seat.Kind.GUEST, "name": key.title(), "owner_key": key}
        for key in ("ana", "ben", "cleo")[:n]
    ]
    return Match.create(game, specs, seed=3, **extra)


@pytest.fixture
def catalogue(monkeypatch):
    """Activate "en" with an in-memory catalogue: fill the dict it returns (msgid -> text)."""
    entries: dict[str, str] = {}
    yield entries, fake_catalogue(monkeypatch)  # a fresh object: the cached one stays untouched
    translation.deactivate()


def fill(fake, entries):
    for msgid, text in entries.items():
        fake[msgid] = text


def recorded_msgids(card):
    """The gettext msgids (not the plural ones) ``card_text`` uses for this card."""
    seen = []

    def gettext(s):
        seen.append(s)
        return s

    card_text(card, gettext, base.english_ngettext)
    return seen


# --- the board shows translated engine texts --------------------------------------------------


@pytest.mark.django_db
def test_munchkin_card_name_text_and_refusal_are_translated(catalogue):
    entries, fake = catalogue
    match = make("munchkin", 3)
    match.refresh_from_db()
    card = CARDS[munchkin.load(match.state)["hands"][0][0]]
    text_msgid = recorded_msgids(card)[0]
    entries[card["name"]] = "ZZ-CARD-NAME"
    entries[text_msgid] = "ZZ-CARD-TEXT " + text_msgid
    entries["You already opened the door this turn."] = "ZZ-ENGINE-REFUSAL"
    fill(fake, entries)
    ana = guest_client("ana")
    body = ana.get(url("play", match)).content.decode()
    assert "ZZ-CARD-NAME" in body
    assert "ZZ-CARD-TEXT" in body
    # kicking the door while making characters: the engine's own sentence, translated
    response = post_move(ana, match, type="kick")
    assert response.status_code == 422
    assert "ZZ-ENGINE-REFUSAL" in response.content.decode()


@pytest.mark.django_db
def test_without_a_translation_the_english_text_is_unchanged():
    match = make("munchkin", 3)
    match.refresh_from_db()
    card = CARDS[munchkin.load(match.state)["hands"][0][0]]
    body = guest_client("ana").get(url("play", match)).content.decode()
    assert card["name"].replace("'", "&#x27;") in body
    assert card["text"].replace("'", "&#x27;") in body


@pytest.mark.django_db
def test_muertoons_card_name_is_translated(catalogue):
    entries, fake = catalogue
    entries["Rosita"] = "ZZ-ROSITA"  # Rosita 1 starts the pile: always on the board
    fill(fake, entries)
    match = make("muertoons", 3)
    body = guest_client("ana").get(url("play", match)).content.decode()
    assert "ZZ-ROSITA" in body


@pytest.mark.django_db
def test_multiplipotion_engine_refusal_is_translated(catalogue):
    entries, fake = catalogue
    match = Match.create(
        "multiplipotion",
        [
            {"kind": Seat.Kind.GUEST, "name": "Ana", "owner_key": "ana"},
            {"kind": Seat.Kind.GUEST, "name": "Ben", "owner_key": "ben"},
        ],
        options={"tier": "green"},
        seed=7,
    )
    match.refresh_from_db()
    state = multiplipotion.load(match.state)
    with pytest.raises(base.IllegalAction) as refused:
        multiplipotion.apply(state, 0, {"type": "place", "card": "mp-p99"})
    entries[str(refused.value)] = "ZZ-MP-REFUSAL"
    fill(fake, entries)
    response = post_move(guest_client("ana"), match, type="place", card="mp-p99")
    assert response.status_code == 422
    assert "ZZ-MP-REFUSAL" in response.content.decode()


# --- the engine marks every text for extraction -----------------------------------------------


def _module_tree(module):
    return ast.parse(Path(module.__file__).read_text())


def _is_noop_call(node):
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "gettext_noop"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


def _marked_literals(tree):
    return {n.args[0].value for n in ast.walk(tree) if _is_noop_call(n)}


def test_card_tables_wrap_name_and_flavour_in_gettext_noop():
    tree = _module_tree(munchkin_cards)
    found = set()
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") in TABLES:
            found.add(node.target.id)
            for row in node.value.elts:
                assert _is_noop_call(row.elts[0]), ast.unparse(row)
                assert _is_noop_call(row.elts[-1]), ast.unparse(row)
                # every other string of a row is a code, never a word for the screen
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in (
            "RACES",
            "CLASSES",
            "RACE_TEXT",
            "CLASS_TEXT",
            "SLOT_TEXT",
        ):
            for value in node.value.values:
                assert _is_noop_call(value), ast.unparse(value)
    assert found == set(TABLES)


def test_every_card_name_flavour_and_text_is_marked():
    marked = _marked_literals(_module_tree(munchkin_cards))
    assert len(CARDS) == 168
    for card in CARDS.values():
        assert card["name"] in marked, card["id"]
        if "flavour" in card:
            assert card["flavour"] in marked, card["id"]
        # the text the engine keeps is exactly what card_text builds
        assert card_text(card) == card["text"], card["id"]
        # and every word of it passes through gettext/ngettext
        shown = card_text(card, lambda s: "@", lambda s, p, n: "@")
        assert set(shown) <= {"@", " "}, (card["id"], shown)


def test_translated_card_text_uses_the_translated_pieces():
    card = next(c for c in CARDS.values() if c["kind"] == "monster" and c["bonus"])
    who = munchkin_cards.RACES.get(card["bonus"][0]) or munchkin_cards.CLASSES[card["bonus"][0]]
    words = {"Level %(level)s.": "Nivel %(level)s.", who: "QUIEN"}
    text = card_text(card, lambda s: words.get(s, s), base.english_ngettext)
    assert text.startswith(f"Nivel {card['level']}.")
    assert "QUIEN" in text and who not in text


@pytest.mark.parametrize("module", [munchkin, muertoons, multiplipotion, trono, mortadelo])
def test_engine_refusals_are_marked(module):
    tree = _module_tree(module)
    messages = 0
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "").startswith("MSG_"):
            assert _is_noop_call(node.value), ast.unparse(node)
            messages += 1
    assert messages >= 3
    if module is munchkin:
        why_not = next(
            n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_why_not"
        )
        for ret in (n for n in ast.walk(why_not) if isinstance(n, ast.Return)):
            assert _is_noop_call(ret.value) or isinstance(ret.value, ast.Name), ast.unparse(ret)


def test_gettext_noop_is_the_identity():
    assert base.gettext_noop("Dust Bunny") == "Dust Bunny"
    assert base.english_ngettext("a", "b", 1) == "a" and base.english_ngettext("a", "b", 2) == "b"


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="xgettext is not installed")
def test_xgettext_extracts_every_munchkin_text(tmp_path):
    """What makemessages would extract from the engine: every name, flavour and text piece."""
    out = tmp_path / "engine.pot"
    files = [str(ENGINE / f) for f in ("cards.py", "engine.py")]
    pot = xgettext_pot(out, files, XGETTEXT_KEYWORDS)
    msgids = pot_msgids(pot)
    for card in CARDS.values():
        wanted = [card["name"], *recorded_msgids(card)]
        if "flavour" in card:
            wanted.append(card["flavour"])
        missing = [w for w in wanted if w not in msgids]
        assert not missing, (card["id"], missing)
    assert "You already opened the door this turn." in msgids
    assert "%(n)s Treasure." in msgids  # an ngettext piece
    plural = re.search(r'msgid "%\(n\)s Treasure\."\nmsgid_plural "%\(n\)s Treasures\."', pot)
    assert plural is not None


# --- event texts: one template in the engine, for describe and the board's log ----------------


@pytest.mark.parametrize("module", [muertoons, multiplipotion])
def test_event_texts_are_marked(module):
    tree = _module_tree(module)
    marked = _marked_literals(tree)
    plurals = {
        (n.args[0].value, n.args[1].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "ngettext_noop"
    }
    texts = list(module.EVENT_TEXTS.values())
    if module is muertoons:
        texts += [*muertoons.GIRL_WORDS.values(), muertoons.CARD_NAME]
        texts += [muertoons.CHOICE_TEXT]
        # The list joiner is marked once for every engine, where it is defined.
        assert muertoons.LIST_TEXT in _marked_literals(_module_tree(base))
    for text in texts:
        assert tuple(text) in plurals if isinstance(text, base.Plural) else text in marked, text


def test_a_muertoons_log_line_translates_the_cards_it_names(catalogue):
    """A card's name (a Phrase: the girl's name, a Word, and the number) is translated inside
    the event's sentence, one card or a list of them; describe reads the same in English."""
    entries, fake = catalogue
    entries["Rosita"] = "ZZ-ROSITA"
    entries["the Spirit"] = "ZZ-SPIRIT"
    entries["%(who)s put down a straight: %(cards)s."] = "ZZ %(who)s: %(cards)s"
    fill(fake, entries)
    line = registry.get("muertoons").event_line
    names = {0: "Ana", 1: "Ben"}
    rosita, bibi = muertoons.CARDS["mu-rosita-03"], muertoons.CARDS["mu-bibi-04"]
    played = {"kind": "played", "seat": 1, "card": rosita}
    assert muertoons.describe(played) == "Player 2 played Rosita 3."
    assert line(played, names) == "Ben played ZZ-ROSITA 3."
    straight = {"kind": "straight", "seat": 0, "cards": [rosita, bibi]}
    assert muertoons.describe(straight) == "Player 1 put down a straight: Rosita 3, Bibi 4."
    assert line(straight, names) == "ZZ Ana: ZZ-ROSITA 3, Bibi 4"
    choices = [{"seat": 0, "card": bibi}, {"seat": 1, "card": muertoons.CARDS[muertoons.SPIRIT]}]
    reveal = {"kind": "contest_reveal", "seat": 0, "winner": 1, "choices": choices}
    assert line(reveal, names) == (
        "The contest cards are turned over (Ana: Bibi 4, Ben: ZZ-SPIRIT). Ben wins!"
    )
    assert muertoons.describe(reveal) == (
        "The contest cards are turned over (Player 1: Bibi 4, Player 2: the Spirit). Player 2 wins!"
    )


def test_the_multiplipotion_log_tells_a_wrong_claim_but_never_a_missed_fact(catalogue):
    entries, fake = catalogue
    entries["%(who)s tried %(a)s × %(b)s = %(n)s. It is %(p)s."] = "ZZ %(who)s %(a)s%(b)s%(n)s%(p)s"
    fill(fake, entries)
    line = registry.get("multiplipotion").event_line
    fact = {"kind": "fact", "seat": 0, "a": 7, "b": 8, "correct": False}
    wrong = {**fact, "answer": 54, "context": "capture"}
    assert multiplipotion.describe(wrong) == "Player 1 tried 7 × 8 = 54. It is 56."
    assert line(wrong, {0: "Ana"}) == "ZZ Ana 785456"
    missed = {**fact, "answer": None, "context": "missed"}
    assert multiplipotion.describe(missed) == "" and line(missed, {0: "Ana"}) is None
