"""Family night on a phone (390×844, touch) in chromium (issue 24, item 9): the brand is whole
on every page, Munchkin's answer to the "anyone?" countdown sits next to it (not below the
whole hand), and Mortadelo's card titles break between words only."""

import random

import pytest
from django.urls import reverse

from games import registry
from games.models import Match

from ..classroom.test_long_names_browser import BROKEN_WORDS
from .conftest import bot_step
from .conftest import seat_specs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
# A phone as Chromium emulates one: a mobile viewport at two device pixels a CSS pixel, where
# glyphs are measured finer than at one ("Boomeran|g Block" broke there and not at one).
MOBILE = {"is_mobile": True, "device_scale_factor": 2}
LAPTOP = {"width": 1366, "height": 768}  # its root font is larger (18 px against 16 px)


def phone(browser, live_server):
    context = browser.new_context(viewport=PHONE, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def seated(browser, live_server, match, viewport=PHONE, **device):
    """A phone (or ``viewport``, ``device``: new_context's options) whose session owns seat 0
    (Ana's): it sets the game up, as the host does."""
    from .conftest import guest_client

    client = guest_client("ana")
    context = browser.new_context(viewport=viewport, has_touch=True, **device)
    host = live_server.url.split("//", 1)[1].split(":")[0]
    context.add_cookies(
        [
            {
                "name": "sessionid",
                "value": client.cookies["sessionid"].value,
                "domain": host,
                "path": "/",
            }
        ]
    )
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(live_server.url + reverse("games:play", args=[match.public_id]))
    page.wait_for_selector("#board")
    return context, page


def game_until(slug, predicate, seeds=range(1, 40), plies=800):
    rules = registry.get(slug).rules
    for seed in seeds:
        match = Match.create(slug, seat_specs(["ana", "bot1", "bot2"], bots=(1, 2)), seed=seed)
        rng = random.Random(seed)
        for _ in range(plies):
            if match.is_over:
                break
            state = rules.load(match.state)
            if predicate(rules, state):
                return match
            bot_step(rules, match, rng, rules.BEST_LEVEL)
        match.delete()
    pytest.fail(f"no {slug} game reached the wanted situation")


@pytest.mark.parametrize("path", ["/", "/family/", "/join/", "/family/munchkin/new/"])
def test_the_brand_is_whole_on_a_phone(browser, live_server, path):
    context, page = phone(browser, live_server)
    page.goto(live_server.url + path)
    brand = page.locator(".brand span")
    assert brand.inner_text() == "MultipliPotion"
    assert brand.evaluate("e => e.scrollWidth <= e.clientWidth")
    box = brand.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    context.close()


def test_munchkins_answer_is_next_to_the_countdown_on_a_phone(browser, live_server):
    def anyone_for_ana(rules, state):
        return state["phase"] == "combat" and rules.to_act(state) == (0,)

    match = game_until("munchkin", anyone_for_ana)
    context, page = seated(browser, live_server, match)
    clock = page.locator(".board-side [data-countdown]")
    answer = page.locator(".mk-general button").first
    hand = page.locator(".mk-hand, .mk-sheet").first
    clock_box, answer_box, hand_box = (
        clock.bounding_box(),
        answer.bounding_box(),
        hand.bounding_box(),
    )
    assert answer_box["y"] < hand_box["y"], "the answer must come before the hand"
    assert 0 <= answer_box["y"] - (clock_box["y"] + clock_box["height"]) < 250
    page.screenshot(path="/tmp/phone_munchkin_window.png", full_page=True)
    context.close()


@pytest.mark.parametrize(
    "viewport, device",
    [(PHONE, {}), (PHONE, MOBILE), (LAPTOP, {})],
    ids=["phone", "mobile", "laptop"],
)
def test_mortadelo_card_titles_break_between_words_on_a_phone(
    browser, live_server, viewport, device
):
    """Every card's name, in English, Spanish and Italian ("Boomerang Block", "Acchiappapugni"),
    written into a card of the board as the template writes it (its name_size class), in a
    card of the hand and in a small one (the table's and the discard piles'): no word broken
    in two, nothing wider than the card. On a phone and on a laptop, whose root font is larger
    ("Cartwhee|l" broke there while the phone's test passed)."""
    from django.utils import translation

    from games.mortadelo import cards
    from games.templatetags.names import name_size

    def ana_holds_cards(rules, state):
        return bool(state["hands"][0]) and state["phase"] != "pick"

    match = game_until("mortadelo", ana_holds_cards)
    context, page = seated(browser, live_server, match, viewport, **device)
    assert page.locator(".mm-card .mm-name").count() > 0
    names = set()
    for lang in ("en", "es", "it"):
        with translation.override(lang):
            names |= {translation.gettext(c["name"]) for c in cards.CARDS.values()}
    measure = (
        "(first, names) => ['', 'mm-small'].flatMap(small => {"
        " const card = first.closest('.mm-card').cloneNode(true);"
        " if (small) card.classList.add(small);"
        # 4 px narrower than the card, so that no name fits by a pixel only: 'Boomerang' took
        # 98 of 99 px and broke on a phone whose glyphs came out a little wider.
        " first.closest('.mm-card').after(card);"
        " card.style.width = (card.getBoundingClientRect().width - 4) + 'px';"
        " const el = card.querySelector('.mm-name');"
        " return names.flatMap(([name, size]) => {"
        " el.className = 'mm-name ' + size; el.textContent = name;"
        " const wide = card.scrollWidth > card.clientWidth + 1 ? [name + ' (too wide)'] : [];"
        " return [...(" + BROKEN_WORDS + ")(el), ...wide].map(w => w + ' ' + small); }); })"
    )
    found = page.locator(".mm-card .mm-name").first.evaluate(
        measure, sorted([name, name_size(name)] for name in names)
    )
    assert found == [], found
    page.screenshot(path=f"/tmp/mortadelo_cards_{viewport['width']}.png", full_page=True)
    context.close()


@pytest.mark.parametrize(
    "slug, move, button",
    [
        ("mortadelo", "no_combo", ".mm-skip"),
        ("muertoons", "pass", ".mu-pass"),
        ("trono", None, None),
    ],
)
def test_the_turn_prompt_comes_before_your_own_hand_on_a_phone(
    browser, live_server, slug, move, button
):
    """In one column the family games' status column, with the turn prompt and its buttons
    ("Keep my cards", "Pass"), sits above your own hand or role, not below the whole board
    (Mortadelo's prompt was at y = 3,100 of a 3,300 px page); on a laptop it stays beside the
    board."""

    def ana_to_move(rules, state):
        if 0 not in rules.to_act(state) or state["phase"] in ("pick", "pick_start"):
            return False
        return move is None or any(a["type"] == move for a in rules.legal_actions(state, 0))

    match = game_until(slug, ana_to_move)
    context, page = seated(browser, live_server, match)
    prompt = page.locator(".board-side .turn-banner.mine").bounding_box()
    mine = page.locator(".side-me").bounding_box()
    assert prompt["y"] + prompt["height"] <= mine["y"], "the prompt must come before your hand"
    if button:
        assert page.locator(f".board-side {button}").bounding_box()["y"] < mine["y"]
    page.screenshot(path=f"/tmp/phone_{slug}_prompt.png", full_page=True)
    context.close()
    context, page = seated(browser, live_server, match, LAPTOP)
    side = page.locator(".board-side").bounding_box()
    main = page.locator(".board-main").bounding_box()
    assert side["x"] >= main["x"] + main["width"], "on a laptop the status column is beside"
    context.close()


def test_a_game_on_a_phone_says_whose_turn_it_is_on_the_first_screen(browser, live_server):
    """The site's menu and language switcher (238 px, four rows in Italian) are left out of a
    game's header on a phone, so MultipliPotion's "Your turn" is on the first screen (it was at
    y = 999 of 1,207; found in a family's browser walk); on a laptop the header is whole."""
    from .conftest import seat_specs

    match = Match.create("multiplipotion", seat_specs(["ana", "bot1"], bots=(1,)), seed=5)
    assert match.to_act() == (0,)
    context, page = seated(browser, live_server, match)
    banner = page.locator(".turn-banner.mine").bounding_box()
    assert banner["y"] + banner["height"] <= PHONE["height"]
    assert page.locator(".topbar .brand").is_visible()
    assert not page.locator(".topbar nav").is_visible()
    # A tapped card shows its own state, not the browser's grey tap flash (a picked potion
    # looked disabled under it).
    flash = page.locator(".slot").first.evaluate("e => getComputedStyle(e).webkitTapHighlightColor")
    assert flash == "rgba(0, 0, 0, 0)"
    context.close()
    context, page = seated(browser, live_server, match, LAPTOP)
    assert page.locator(".topbar nav").is_visible()
    assert page.locator("#language-choice").is_visible()
    context.close()
