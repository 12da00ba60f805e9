"""Whole games in headless Debian chromium: two browsers against each other, and a child
against a computer player that runs in a real Celery worker."""

import pytest
from browser_kit import act
from browser_kit import capture_seen
from django.urls import reverse

from games.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def take_turn(page):
    """Place a card, capture when possible, end the turn: one turn as a careful child."""
    hand = page.locator(".hand button.slot-hand")
    if hand.count():
        act(page, lambda: hand.first.click())
    if page.locator(".result-text").count():
        return
    if capture_seen(page):
        assert page.locator(".feedback-ok").count() == 1
    if page.locator(".result-text").count():
        return
    end = page.get_by_role("button", name="End my turn")
    if not end.count():
        # A forced capture (the computer had challenged a capture Ana missed) gives the turn
        # back to the challenger: there is no turn of Ana's left to end.
        return
    act(page, lambda: end.click())


def start_game(page, live_server, opponent):
    page.goto(live_server.url + reverse("games:new"))
    page.get_by_label("Your name or nickname").fill("Ana")
    page.locator("label.choice-pill", has_text="Green").click()
    page.locator("label.choice-pill", has_text=opponent).click()
    page.locator("label.choice-pill", has_text="I go first").click()
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_selector("#board")
    return Match.objects.latest("created_at")


def assert_no_hidden_cards(page, match, seat):
    match.refresh_from_db()
    html = page.content()
    hidden = match.engine.private(match.engine.load(match.state), 1 - seat)
    assert not [card for card in hidden if card in html]


def test_two_browsers_play_a_whole_game(browser, live_server):
    contexts = [
        browser.new_context(viewport={"width": 1366, "height": 768}, has_touch=True)
        for _ in range(2)
    ]
    ana, ben = (c.new_page() for c in contexts)
    errors = []
    for p in (ana, ben):
        p.set_default_timeout(15_000)
        p.on("pageerror", lambda e: errors.append(str(e)))
    match = start_game(ana, live_server, "another device")
    ana.wait_for_selector(".invite-link")
    ben.goto(ana.locator(".invite-link a").get_attribute("href"))
    ben.get_by_label("Your name or nickname").fill("Ben")
    ben.get_by_role("button", name="Join").click()
    ben.wait_for_selector("#board")
    for turn in range(200):
        match.refresh_from_db()
        if match.is_over:
            break
        page = ana if 0 in match.to_act() else ben
        other = ben if page is ana else ana
        # The other browser sees the move without reloading.
        page.wait_for_selector(".turn-banner.mine")
        take_turn(page)
        if turn % 5 == 0:
            assert_no_hidden_cards(ana, match, 0)
            assert_no_hidden_cards(ben, match, 1)
        assert other.url.endswith(f"/play/{match.public_id}/")
    match.refresh_from_db()
    assert match.is_over and match.outcome["reason"] == "five_trophies"
    for p in (ana, ben):
        p.wait_for_selector(".result-text")
    assert errors == []
    # The replay steps through the finished game.
    ana.get_by_role("link", name="Watch the replay").click()
    ana.get_by_role("link", name="Next").click()
    ana.wait_for_selector("text=Move 1 of")
    for c in contexts:
        c.close()


def test_child_plays_a_computer_to_the_end_and_catches_up_after_going_offline(
    browser, live_server, celery_routes_to_worker
):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    match = start_game(page, live_server, "Apprentice")
    went_offline = False
    for _ in range(200):
        match.refresh_from_db()
        if match.is_over:
            break
        if page.locator(".result-text").count():
            break
        page.wait_for_selector(".turn-banner.mine, .result-text")
        if page.locator(".result-text").count():
            break
        if not went_offline and page.locator(".hand button.slot-hand").count():
            # Place, then lose the network while the computer plays in the worker.
            take_turn_offline = page.locator(".hand button.slot-hand")
            act(page, lambda b=take_turn_offline: b.first.click())
            if page.locator(".result-text").count():
                break
            context.set_offline(True)
            page.wait_for_timeout(1500)
            context.set_offline(False)
            went_offline = True
            if page.get_by_role("button", name="End my turn").count():
                act(page, lambda: page.get_by_role("button", name="End my turn").click())
            continue
        take_turn(page)
    match.refresh_from_db()
    assert match.is_over
    page.wait_for_selector(".result-text")
    assert went_offline
    assert match.moves.filter(seat=1).exists()  # the computer really played, in the worker
    context.close()


def ana_and_ben(browser, live_server):
    """Ana starts a game for a friend on another device, Ben joins it; Ana's turn."""
    contexts = [browser.new_context(viewport={"width": 1366, "height": 768}) for _ in range(2)]
    ana, ben = (c.new_page() for c in contexts)
    for p in (ana, ben):
        p.set_default_timeout(15_000)
    match = start_game(ana, live_server, "another device")
    ben.goto(ana.locator(".invite-link a").get_attribute("href"))
    ben.get_by_label("Your name or nickname").fill("Ben")
    ben.get_by_role("button", name="Join").click()
    ana.wait_for_selector(".turn-banner.mine")
    return contexts, ana, ben, match


def test_a_whole_turn_with_the_keyboard_only(browser, live_server):
    contexts, ana, ben, match = ana_and_ben(browser, live_server)
    # No swap may try an inline style (the CSP refuses it and logs an error each time).
    csp_errors = []
    ana.on(
        "console",
        lambda m: csp_errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    assert ana.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    for _ in range(60):
        ana.keyboard.press("Tab")
        if ana.evaluate("document.activeElement.matches('.slot-hand')"):
            break
    # Enter places the focused card; focus then moves to the next step's first control.
    act(ana, lambda: ana.keyboard.press("Enter"))
    # htmx settles the new board a moment after the swap; then focus moves.
    ana.wait_for_function(
        "() => document.activeElement && document.activeElement !== document.body"
    )
    focused = ana.evaluate("document.activeElement.className + ' ' + document.activeElement.name")
    assert "potions" in focused or "btn" in focused
    if "potions" in focused:
        ana.keyboard.press("Space")  # ticks the focused potion
        assert ana.locator(".area-me input:checked").count() == 1
    while not ana.evaluate("document.activeElement.textContent.includes('End my turn')"):
        ana.keyboard.press("Tab")
    act(ana, lambda: ana.keyboard.press("Enter"))
    match.refresh_from_db()
    assert match.to_act() == (1,)
    ben.wait_for_selector(".turn-banner.mine")
    assert csp_errors == []
    for c in contexts:
        c.close()


def capture_position(match):
    """Ana (seat 0) to capture: two potions of hers make the monster in Ben's area."""
    from itertools import permutations

    from games.multiplipotion import engine as mp

    state = mp.load(match.state)
    ids = list(mp.cards(state))
    for a, b, m in permutations(ids, 3):
        if mp.CARDS[a]["potion"] * mp.CARDS[b]["potion"] == mp.CARDS[m]["monster"]:
            break
    rest = [c for c in ids if c not in (a, b, m)]
    state.update(
        areas=[[a, b], [m]], hands=[[rest[0]], [rest[1]]], pile=rest[2:], trophies=[[], []]
    )
    state.update(current=0, phase="capture_or_end")
    Match.objects.filter(pk=match.pk).update(state=mp.dump(state), version=match.version + 1)
    return a, b, m


def test_ticking_two_potions_from_the_keyboard_goes_to_the_monsters(browser, live_server):
    contexts, ana, _ben, match = ana_and_ben(browser, live_server)
    match.refresh_from_db()
    a, b, monster = capture_position(match)
    ana.reload()
    ana.wait_for_selector(".area-me input[name=potions]")
    ticked = 0
    for _ in range(60):
        ana.keyboard.press("Tab")
        if ana.evaluate("document.activeElement.name === 'potions'"):
            ana.keyboard.press("Space")
            ticked += 1
            if ticked == 2:
                break
    assert ticked == 2
    checked = ana.eval_on_selector_all(
        ".area-me input[name=potions]:checked", "boxes => boxes.map(b => b.value)"
    )
    assert sorted(checked) == sorted([a, b])
    # Not on to "End my turn": up to the first monster (here the one the two potions make).
    assert ana.evaluate("document.activeElement.value") == monster
    act(ana, lambda: ana.keyboard.press("Enter"))
    match.refresh_from_db()
    assert monster in match.state["trophies"][0]  # captured
    for c in contexts:
        c.close()


def test_capturing_your_potions_come_first_and_ticked_is_not_focused(browser, live_server):
    """In the page's order (Tab, screen readers) your potions come before the opponent's
    monsters when you capture, though their side is still drawn above; a ticked potion and
    the focused one look different (a dark ring and a ✓ against the amber focus ring)."""
    contexts, ana, _ben, match = ana_and_ben(browser, live_server)
    match.refresh_from_db()
    capture_position(match)
    ana.reload()
    ana.wait_for_selector(".area-me input[name=potions]")
    order = ana.evaluate(
        """() => {
          const potion = document.querySelector('.area-me input[name=potions]');
          const monster = document.querySelector('.area-them .slot-target');
          return {
            potionFirst: !!(potion.compareDocumentPosition(monster)
                            & Node.DOCUMENT_POSITION_FOLLOWING),
            themAbove: document.querySelector('.side-them').getBoundingClientRect().top
                       < document.querySelector('.side-me').getBoundingClientRect().top,
          };
        }"""
    )
    assert order == {"potionFirst": True, "themAbove": True}
    first, second = (
        ana.locator(".area-me label.slot-pick").nth(0),
        ana.locator(".area-me label.slot-pick").nth(1),
    )
    first.click()  # ticked
    second.locator("input").focus()  # focused, not ticked
    ana.keyboard.press("Shift+Tab")
    ana.keyboard.press("Tab")  # focus-visible comes from the keyboard
    look = ana.evaluate(
        """() => [...document.querySelectorAll('.area-me label.slot-pick .mp-card')]
          .slice(0, 2).map(card => {
            const s = getComputedStyle(card), mark = getComputedStyle(card, '::after');
            return {ring: s.boxShadow, outline: s.outlineStyle, tick: mark.content};
          })"""
    )
    ticked, focused = look
    assert ticked["tick"] == '"✓"' and focused["tick"] in {"none", "normal"}
    assert focused["outline"] == "solid" and ticked["outline"] == "none"
    assert ticked["ring"] != "none"
    for c in contexts:
        c.close()
