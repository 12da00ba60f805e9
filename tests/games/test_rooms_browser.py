"""Family night in headless Debian chromium: pass-and-play on one device (the hand-off screen
hides the previous hand; the page never holds another seat's cards), and a room on two
devices joined by its code, played for a few turns, then a gone seat handed to a computer and
taken back by its person."""

import tempfile
from pathlib import Path

import pytest
from browser_kit import record_errors
from django.urls import reverse

from games.models import Match

from .test_browser_play import take_turn

SHOTS = Path(tempfile.gettempdir())
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def new_page(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.errors = []
    record_errors(page, page.errors)
    return context, page


def hidden(match, seats) -> set[str]:
    match.refresh_from_db()
    state = match.engine.load(match.state)
    return {card for seat in seats for card in match.engine.private(state, seat)}


def assert_holds_none_of(page, cards):
    html = page.content()
    assert not [card for card in cards if card in html]


def set_up_multiplipotion(page, live_server, seat2_kind, seat2_name=""):
    page.goto(live_server.url + reverse("games:new_family", args=["multiplipotion"]))
    page.locator("label.choice-pill", has_text="Green").click()
    page.get_by_label("Name of player 1").fill("Ana")
    page.locator(".seat-2 label.choice-pill", has_text=seat2_kind).click()
    if seat2_name:
        page.get_by_label("Name of player 2").fill(seat2_name)
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_selector("#board")
    return Match.objects.latest("created_at")


def test_pass_and_play_hides_the_previous_hand(browser, live_server):
    context, page = new_page(browser)
    match = set_up_multiplipotion(page, live_server, "A person on this device", "Ben")
    assert match.seats.filter(kind="guest").count() == 2
    for turn in range(4):
        seat, name = turn % 2, ("Ana", "Ben")[turn % 2]
        # The hand-off screen: no hand at all, neither the previous nor the next one.
        button = page.get_by_role("button", name=f"I'm {name} — show my cards")
        button.wait_for()
        assert page.locator(".hand button.slot-hand, .hand .slot-hand").count() == 0
        assert_holds_none_of(page, hidden(match, [0, 1]))
        button.click()
        page.wait_for_selector(".turn-banner.mine")
        # Now only this person's cards are on the page.
        html = page.content()
        assert all(card in html for card in hidden(match, [seat]))
        assert_holds_none_of(page, hidden(match, [1 - seat]))
        take_turn(page)
        if page.locator(".result-text").count():
            break
        assert_holds_none_of(page, hidden(match, [seat]))  # the hand just played is gone
    assert page.errors == []
    context.close()


def test_two_devices_join_a_room_by_code_play_and_hand_a_quiet_seat_on(
    browser, live_server, settings
):
    host_context, host = new_page(browser)
    match = set_up_multiplipotion(host, live_server, "A person on their own device")
    assert match.status == Match.Status.WAITING
    code = host.locator(".room-code").inner_text().replace(" ", "")
    assert code == match.room_code
    assert host.locator(".room-invite svg").count() == 1  # the QR code, made on the server

    guest_context, guest = new_page(browser)
    guest.goto(live_server.url + reverse("games:family"))
    guest.get_by_label("Room code").fill(code.lower())
    guest.locator(".room-join-entry").get_by_role("button", name="Join").click()
    guest.get_by_label("Your name or nickname").fill("Ben")
    guest.get_by_role("button", name="Join").click()
    guest.wait_for_selector("#board")
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    # The host's polling page notices: the room card goes, the game starts, Ben is there.
    host.wait_for_selector(".room-card", state="detached")
    host.wait_for_selector(".turn-banner.mine")
    assert "Ben" in host.locator("#board").inner_text()

    for _turn in range(2):
        for page, seat in ((host, 0), (guest, 1)):
            page.wait_for_selector(".turn-banner.mine, .result-text")
            if page.locator(".result-text").count():
                break
            assert_holds_none_of(page, hidden(match, [1 - seat]))
            take_turn(page)
            assert_holds_none_of(page, hidden(match, [1 - seat]))
    match.refresh_from_db()
    assert match.version >= 4

    # Ana plays once more, so that the game waits for Ben; then Ben's phone goes (any silence
    # counts now): the host's card offers a computer player.
    host.wait_for_selector(".turn-banner.mine")
    take_turn(host)
    guest.wait_for_selector(".turn-banner.mine")
    settings.FAMILY_QUIET_MINUTES = 0
    guest_context.set_offline(True)
    host.get_by_role("button", name="Let a computer player take over from Ben").click(
        timeout=30_000
    )
    # Ben's name comes between Unicode isolates (FSI … PDI), which a text selector keeps.
    host.wait_for_selector("text=/A computer player now plays for \u2068?Ben\u2069?\\./")
    seat = match.seats.get(number=1)
    assert seat.kind == "bot" and seat.name == "Ben (computer)"
    settings.FAMILY_QUIET_MINUTES = 2
    guest_context.set_offline(False)
    guest.wait_for_selector("text=A computer player is playing for you", timeout=30_000)
    guest.screenshot(path=str(SHOTS / "family-seat-taken.png"))
    # Ben takes the seat back; the host is told.
    guest.get_by_role("button", name="Take my seat back").click()
    guest.wait_for_selector("text=Welcome back! Your seat is yours again.")
    guest.wait_for_selector("#board")
    seat.refresh_from_db()
    assert seat.kind == "guest" and seat.name == "Ben"
    host.wait_for_selector("text=/is back and plays their own seat again/", timeout=30_000)
    assert "Ben (computer)" not in host.locator("#board").inner_text()
    assert host.locator(".room-takeover").count() == 0
    guest.screenshot(path=str(SHOTS / "family-taken-back-guest.png"))
    host.screenshot(path=str(SHOTS / "family-taken-back-host.png"))
    assert host.errors == []
    host_context.close()
    guest_context.close()
