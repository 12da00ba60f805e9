"""Family-night rooms across devices: a room code, QR code and link for the host, joining by
code with a nickname, waiting until every seat is taken (or starting with computer players),
rejoining through the signed cookie, and handing a quiet seat to a computer player."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from config.names import isolate
from games.models import ROOM_CODE_ALPHABET
from games.models import Match
from games.models import Seat
from games.views import PLAYER_COOKIE

from .conftest import family_form

HTMX = {"HTTP_HX_REQUEST": "true"}
pytestmark = pytest.mark.django_db


def url(name, match):
    return reverse(f"games:{name}", args=[match.public_id])


def room_data(**extra):
    """Muertoons for three: Ana here, a person on another device, a computer player."""
    return family_form(**extra)


def host_room(**extra):
    host = Client()
    response = host.post(reverse("games:new_family", args=["muertoons"]), room_data(**extra))
    match = Match.objects.latest("created_at")
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    return host, match


def join(match, name="Ben"):
    guest = Client()
    response = guest.post(reverse("games:join_room"), {"code": match.room_code.lower()})
    assert response.status_code == 302 and response["Location"] == url("join", match)
    response = guest.post(url("join", match), {"name": name})
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    return guest


def hidden_cards(match, seats):
    match.refresh_from_db()
    state = match.engine.load(match.state)
    return {c for s in seats for c in match.engine.private(state, s)}


# --- setting up a room ----------------------------------------------------------------------


def test_a_remote_seat_makes_a_waiting_room_with_a_code_qr_and_link():
    host, match = host_room()
    assert match.family and match.status == Match.Status.WAITING
    assert len(match.room_code) == 6 and set(match.room_code) <= set(ROOM_CODE_ALPHABET)
    assert not set(match.room_code) & set("ILOQ01BSZ")
    seats = list(match.seats.order_by("number"))
    assert [s.kind for s in seats] == [Seat.Kind.GUEST, Seat.Kind.OPEN, Seat.Kind.BOT]
    assert match.host_key and seats[0].owner_key == match.host_key
    body = host.get(match.get_absolute_url()).content.decode()
    assert f"{match.room_code[:3]} {match.room_code[3:]}" in body  # the code, easy to read
    assert "<svg" in body and "QR code to join this game" in body
    assert "http://testserver" + url("join", match) in body
    assert "Waiting for 1 more player." in body
    assert "Start now: computer players take the empty seats" in body
    assert ">to play<" not in body and "is-acting" not in body  # nobody's turn before the start


@pytest.mark.parametrize("game", ["trono", "mortadelo", "munchkin"])
def test_nobody_is_to_play_in_a_room_still_waiting_for_its_people(game):
    from games import registry
    from games.forms import FamilyGameForm

    spec = registry.get(game)
    form = FamilyGameForm(spec)
    # The game's own options at their defaults, then Ana here, one remote seat, one computer.
    data = {name: form[name].initial for name in form.fields if form[name].initial is not None}
    data.update(room_data(seat3_level=spec.bot_levels()[0][0]))
    host = Client()
    response = host.post(reverse("games:new_family", args=[game]), data)
    match = Match.objects.latest("created_at")
    assert response.status_code == 302 and match.status == Match.Status.WAITING
    body = host.get(match.get_absolute_url()).content.decode()
    assert "Waiting for 1 more player." in body
    assert "is-acting" not in body and "Waiting for Ana" not in body


def test_a_game_without_remote_seats_has_no_code_and_starts_at_once():
    _host, match = host_room(seat2_kind="computer", seat2_level="heuristic")
    assert match.status == Match.Status.ACTIVE and match.room_code is None


def test_family_page_has_a_join_entry_and_a_bad_code_is_422():
    body = Client().get(reverse("games:family")).content.decode()
    assert "Join a family game" in body and reverse("games:join_room") in body
    response = Client().post(reverse("games:join_room"), {"code": "AAAAAA"}, **HTMX)
    assert (
        response.status_code == 422 and "No family game has this code" in response.content.decode()
    )
    assert Client().post(reverse("games:join_room"), {"code": ""}).status_code == 422


def test_a_code_is_read_with_spaces_dashes_and_lower_case():
    _host, match = host_room()
    typed = f" {match.room_code[:3].lower()}-{match.room_code[3:]} "
    response = Client().post(reverse("games:join_room"), {"code": typed}, **HTMX)
    assert response.status_code == 200 and response["HX-Redirect"] == url("join", match)


# --- joining and waiting ----------------------------------------------------------------------


def test_bots_wait_until_the_room_is_full_then_the_game_starts():
    # The computer player sits first, so it would act first.
    host, match = host_room(
        seat1_kind="computer",
        seat1_level="heuristic",
        seat2_kind="here",
        seat2_name="Ana",
        seat3_kind="remote",
    )
    assert 0 in match.to_act()
    assert match.play_bot_turns() == 0 and match.version == 0  # waiting: no bot acts
    assert match.status == Match.Status.WAITING
    token = match.poll_token
    join(match, "Ben")
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert match.seats.get(number=2).name == "Ben"
    # The host's polling board learns of it although no move was made.
    assert match.poll_token != token
    assert host.get(url("poll", match) + f"?v={token}", **HTMX).status_code == 200
    assert match.play_bot_turns() >= 1


def test_joining_takes_the_next_open_seat_and_a_full_room_turns_people_away():
    data = room_data(players="4", seat3_kind="remote", seat4_kind="computer")
    data["seat4_level"] = "heuristic"
    _host, match = host_room(**data)
    assert match.seats.filter(kind=Seat.Kind.OPEN).count() == 2
    ben = join(match, "Ben")
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    assert match.seats.get(number=1).name == "Ben"
    body = ben.get(match.get_absolute_url()).content.decode()
    assert "Waiting for 1 more player." in body
    assert "The game starts as soon as everybody has joined." in body
    assert "Start now" not in body  # only the host may start
    # A guest cannot move while the room waits.
    response = ben.post(url("move", match), {"type": "pass", "version": 0}, **HTMX)
    assert response.status_code == 403
    # Two people may not share a name at one table.
    late = Client()
    response = late.post(url("join", match), {"name": "ana"})
    assert response.status_code == 422 and "already has this name" in response.content.decode()
    join(match, "Cleo")
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    response = Client().post(reverse("games:join_room"), {"code": match.room_code})
    assert response.status_code == 422 and "every seat is taken" in response.content.decode()
    # A seated guest typing the code again goes back to the game.
    response = ben.post(reverse("games:join_room"), {"code": match.room_code})
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()


def test_only_the_host_may_start_and_only_once():
    host, match = host_room(players="4", seat4_kind="remote")
    ben = join(match, "Ben")
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    assert Client().post(url("start_room", match)).status_code == 404  # nobody at the table
    response = ben.post(url("start_room", match), **HTMX)  # seated, not the host
    assert response.status_code == 403 and "Only the person who set up" in response.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    response = host.post(url("start_room", match))
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert match.seats.get(number=1).name == "Ben"  # Ben keeps his seat
    assert host.post(url("start_room", match), **HTMX).status_code == 409


def test_start_anyway_fills_open_seats_with_computers_and_bots_play():
    host, match = host_room(players="4", seat4_kind="remote")
    assert match.status == Match.Status.WAITING
    assert host.post(url("start_room", match), {"level": "clever!"}, **HTMX).status_code == 422
    response = host.post(url("start_room", match), {"level": "heuristic"}, **HTMX)
    assert response.status_code == 200
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    seats = list(match.seats.order_by("number"))
    assert [s.kind for s in seats] == [Seat.Kind.GUEST, Seat.Kind.BOT, Seat.Kind.BOT, Seat.Kind.BOT]
    assert len({s.name for s in seats}) == 4 and all("(computer)" in s.name for s in seats[1:])
    assert all(s.bot_level == "heuristic" for s in seats[1:])
    # Nobody can join any more.
    assert Client().get(url("join", match)).status_code == 404


def test_no_response_to_either_device_holds_the_other_seats_cards():
    host, match = host_room(seat3_kind="remote", players="3")
    ben = join(match, "Ben")
    cleo = join(match, "Cleo")
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    for client, seat in ((host, 0), (ben, 1), (cleo, 2)):
        others = hidden_cards(match, [s for s in range(3) if s != seat])
        for path in (match.get_absolute_url(), url("poll", match) + "?v=x", url("room", match)):
            body = client.get(path).content.decode()
            assert not [c for c in others if c in body], path
        own = hidden_cards(match, [seat])
        assert all(c in client.get(match.get_absolute_url()).content.decode() for c in own)


# --- rejoining ------------------------------------------------------------------------------


def test_a_lost_session_finds_the_seat_again_through_the_signed_cookie():
    _host, match = host_room()
    ben = join(match, "Ben")
    cookie = ben.cookies[PLAYER_COOKIE]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert int(cookie["max-age"]) == 12 * 3600
    # The session is lost (flushed, expired): a new browser session with only the cookie.
    again = Client()
    again.cookies[PLAYER_COOKIE] = cookie.value
    response = again.get(match.get_absolute_url())
    assert response.status_code == 200
    body = response.content.decode()
    assert all(c in body for c in hidden_cards(match, [1]))
    assert again.session["player_key"] == match.seats.get(number=1).owner_key
    # Polls and moves work again too.
    assert again.get(url("poll", match) + f"?v={match.poll_token}", **HTMX).status_code == 204


def test_a_forged_or_foreign_cookie_finds_nothing():
    _host, match = host_room()
    join(match, "Ben")
    key = match.seats.get(number=1).owner_key
    forged = Client()
    forged.cookies[PLAYER_COOKIE] = key  # the bare key, unsigned
    assert forged.get(match.get_absolute_url()).status_code == 404
    assert forged.get(url("poll", match) + "?v=0").status_code == 404


def test_a_reload_keeps_the_seat_and_refreshes_the_cookie():
    _host, match = host_room()
    ben = join(match, "Ben")
    ben.cookies.pop(PLAYER_COOKIE)
    response = ben.get(match.get_absolute_url())
    assert response.status_code == 200 and PLAYER_COOKIE in response.cookies


# --- last seen, quiet seats, a computer taking over -----------------------------------------


def test_polls_record_last_seen_at_most_every_15_seconds(django_assert_max_num_queries):
    _host, match = host_room()
    ben = join(match, "Ben")
    seat = match.seats.get(number=1)
    long_ago = timezone.now() - timedelta(minutes=5)
    Seat.objects.filter(pk=seat.pk).update(last_seen_at=long_ago)
    match.refresh_from_db()
    ben.get(url("poll", match) + f"?v={match.poll_token}", **HTMX)
    seat.refresh_from_db()
    assert seat.last_seen_at > long_ago
    seen = seat.last_seen_at
    with django_assert_max_num_queries(2):  # the session and the one lookup: no UPDATE
        response = ben.get(url("poll", match) + f"?v={match.poll_token}", **HTMX)
    assert response.status_code == 204
    seat.refresh_from_db()
    assert seat.last_seen_at == seen


def make_quiet(match, number, minutes=3):
    """Seat ``number``'s device has not been seen for ``minutes``, and nothing has happened at
    the table for as long."""
    past = timezone.now() - timedelta(minutes=minutes)
    Seat.objects.filter(match=match, number=number).update(last_seen_at=past)
    Match.objects.filter(pk=match.pk).update(changed_at=past)


def play_until_turn_of(match, number):
    """Play the host's seat (0) and the computers until seat ``number`` must act."""
    for _ in range(60):
        match.refresh_from_db()
        acting = match.to_act()
        if number in acting:
            return
        if 0 in acting:
            legal = match.engine.legal_actions(match.load_state(), 0)
            match.play(0, legal[0], version=match.version)
        match.play_bot_turns()
    raise AssertionError(f"seat {number} never came to act")


def play_until_not_turn_of(match, number):
    """Play every seat (the person at ``number`` too) until ``number`` is not to act."""
    for _ in range(60):
        match.refresh_from_db()
        acting = match.to_act()
        if number not in acting:
            return
        seat = acting[0]
        legal = match.engine.legal_actions(match.load_state(), seat)
        match.play(seat, legal[0], version=match.version)
    raise AssertionError(f"seat {number} never stopped acting")


def test_the_host_sees_a_gone_person_and_a_computer_takes_over():
    host, match = host_room()
    ben = join(match, "Ben")
    play_until_turn_of(match, 1)
    assert "has been gone" not in host.get(url("room", match)).content.decode()
    make_quiet(match, 1, minutes=3)
    body = host.get(url("room", match)).content.decode()
    gone = "has been gone for 3 minutes, and the game is waiting for them."
    assert f"{isolate('Ben')} {gone}" in body
    assert "Let a computer player take over from <bdi>Ben</bdi>" in body
    assert 'hx-swap-oob="true"' in body
    # The host's board carries the card too; Ben's own board never does.
    assert "has been gone" in host.get(match.get_absolute_url()).content.decode()
    make_quiet(match, 1, minutes=3)
    assert "has been gone" not in ben.get(url("room", match)).content.decode()
    make_quiet(match, 1, minutes=3)
    # Only the host: Ben gets 403, a stranger 404.
    assert ben.post(url("take_over", match), {"seat": 1}, **HTMX).status_code == 403
    assert Client().post(url("take_over", match), {"seat": 1}).status_code == 404
    assert host.post(url("take_over", match), {"seat": 0}, **HTMX).status_code == 422
    assert host.post(url("take_over", match), {"seat": "x"}, **HTMX).status_code == 422
    assert host.post(url("take_over", match), {"seat": 2}, **HTMX).status_code == 422  # a bot
    response = host.post(url("take_over", match), {"seat": 1, "level": "heuristic"}, **HTMX)
    assert response.status_code == 200
    assert "A computer player now plays for \u2068Ben\u2069." in response.content.decode()
    seat = match.seats.get(number=1)
    assert seat.kind == Seat.Kind.BOT and seat.bot_level == "heuristic"
    assert seat.name == "Ben (computer)" and seat.owner_key == ""
    # The computer plays Ben's seat through the usual bot path (the host plays seat 0).
    match.refresh_from_db()
    for _ in range(30):
        if match.moves.filter(seat=1).exists() or match.is_over:
            break
        if 0 in match.to_act():
            legal = match.engine.legal_actions(match.load_state(), 0)
            match.play(0, legal[0], version=match.version)
        match.play_bot_turns()
    assert match.moves.filter(seat=1).exists()
    # Ben comes back: a clear message, on the page, on the poll and on a move.
    body = ben.get(match.get_absolute_url()).content.decode()
    assert "A computer player is playing for you" in body and "Ben" in body
    assert "Take my seat back" in body
    assert "take your seat" in ben.get(url("poll", match) + "?v=0", **HTMX).content.decode()
    response = ben.post(url("move", match), {"type": "pass", "version": match.version}, **HTMX)
    assert response.status_code == 403 and "computer player" in response.content.decode()


def test_quiet_is_not_gone_a_sleeping_phone_is_not_offered_to_a_computer():
    """A phone that locked its screen during the others' turns holds nobody up: the host is
    told it is asleep, and no computer player is offered, until the game waits for it."""
    host, match = host_room()
    join(match, "Ben")
    play_until_turn_of(match, 0)
    match.refresh_from_db()
    if 1 in match.to_act():  # a moment when all act at once: let Ben act first
        play_until_not_turn_of(match, 1)
    make_quiet(match, 1, minutes=4)
    match = Match.objects.get_with_seats(match.public_id)
    assert [(s.name, m, gone) for s, m, gone in match.quiet_seats()] == [("Ben", 4, False)]
    body = host.get(url("room", match)).content.decode()
    assert "screen has been off for 4 minutes: it is not their turn" in body
    assert "Let a computer player take over" not in body
    response = host.post(url("take_over", match), {"seat": 1}, **HTMX)
    assert response.status_code == 409
    assert "The game is not waiting for \u2068Ben\u2069" in response.content.decode()
    assert match.seats.get(number=1).kind == Seat.Kind.GUEST
    # Ben's turn comes while the phone sleeps: only after FAMILY_QUIET_MINUTES of waiting
    # (counted from the move that made it Ben's turn) is Ben gone.
    play_until_turn_of(match, 1)
    match = Match.objects.get_with_seats(match.public_id)
    assert [gone for _s, _m, gone in match.quiet_seats()] == [False]
    make_quiet(match, 1, minutes=3)
    match = Match.objects.get_with_seats(match.public_id)
    assert [(s.name, m) for s, m in match.gone_seats()] == [("Ben", 3)]


def test_a_person_who_is_back_keeps_the_seat():
    host, match = host_room()
    # A waiting room: nothing to take over yet.
    assert host.post(url("take_over", match), {"seat": 1}, **HTMX).status_code == 409
    ben = join(match, "Ben")
    play_until_turn_of(match, 1)
    # Not gone yet: nothing to take over.
    response = host.post(url("take_over", match), {"seat": 1}, **HTMX)
    assert response.status_code == 409 and "the seat stays theirs" in response.content.decode()
    make_quiet(match, 1)
    match.refresh_from_db()
    ben.get(url("poll", match) + "?v=0", **HTMX)  # Ben's tab wakes up
    assert host.post(url("take_over", match), {"seat": 1}, **HTMX).status_code == 409
    assert match.seats.get(number=1).kind == Seat.Kind.GUEST


def test_the_person_takes_the_seat_back_and_the_host_is_told():
    host, match = host_room()
    ben = join(match, "Ben")
    play_until_turn_of(match, 1)
    make_quiet(match, 1)
    response = host.post(url("take_over", match), {"seat": 1, "level": "heuristic"}, **HTMX)
    assert response.status_code == 200
    match.play_bot_turns()
    # Only Ben's browser may take it back: another seat, a stranger, a GET.
    assert host.post(url("take_back", match)).status_code == 404
    assert Client().post(url("take_back", match)).status_code == 404
    assert ben.get(url("take_back", match)).status_code == 405
    response = ben.post(url("take_back", match))
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    seat = match.seats.get(number=1)
    assert (seat.kind, seat.name, seat.bot_level, seat.former_owner_key) == ("guest", "Ben", "", "")
    assert seat.owner_key and seat.handed_over == {} and seat.back_at is not None
    body = ben.get(match.get_absolute_url()).content.decode()
    assert "Welcome back! Your seat is yours again." in body
    assert "A computer player is playing for you" not in body
    # The host is told, on the room card (which the host's board also carries).
    back = f"{isolate('Ben')} is back and plays their own seat again."
    assert back in host.get(url("room", match)).content.decode()
    assert back in host.get(match.get_absolute_url()).content.decode()
    assert back not in ben.get(url("room", match)).content.decode()
    # No computer plays for Ben any more: at Ben's turn the game waits for Ben, who plays.
    play_until_turn_of(match, 1)
    assert match.play_bot_turns() == 0
    match.refresh_from_db()
    legal = match.engine.legal_actions(match.load_state(), 1)
    before = match.version
    match.play(1, legal[0], version=match.version)
    assert match.version == before + 1
    # Taking it back twice: nothing left to take back.
    assert ben.post(url("take_back", match)).status_code == 404


def test_a_seat_cannot_be_taken_back_once_the_game_is_over():
    host, match = host_room()
    ben = join(match, "Ben")
    play_until_turn_of(match, 1)
    make_quiet(match, 1)
    host.post(url("take_over", match), {"seat": 1, "level": "heuristic"}, **HTMX)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    body = ben.get(match.get_absolute_url()).content.decode()
    assert "The game is over." in body and "Take my seat back" not in body
    assert ben.post(url("take_back", match)).status_code == 409
    assert match.seats.get(number=1).kind == Seat.Kind.BOT


def test_the_host_seats_are_never_called_quiet():
    _host, match = host_room(seat2_kind="here", seat2_name="Ben", seat3_kind="remote")
    join(match, "Cleo")
    match.refresh_from_db()
    for number in (0, 1, 2):
        make_quiet(match, number)
    match = Match.objects.get_with_seats(match.public_id)
    assert [(s.name, m) for s, m, _gone in match.quiet_seats()] == [("Cleo", 3)]


@pytest.mark.parametrize("htmx", [False, True])
def test_the_code_of_a_game_that_ended_says_so_and_offers_a_new_game(htmx):
    """A room code typed after its game ended: "over", not "every seat is taken", and a link to
    set up a new game of the same kind; its open seat is not offered any more."""
    host, match = host_room()
    join(match, "Ben")
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = Client().post(reverse("games:join_room"), {"code": match.room_code}, **headers)
    page = response.content.decode()
    assert response.status_code == 422
    assert "That game is over" in page and "every seat is taken" not in page
    assert f'href="{reverse("games:new_family", args=["muertoons"])}"' in page
    # A seat of the game still goes back to it (its end screen).
    back = host.post(reverse("games:join_room"), {"code": match.room_code})
    assert back.status_code == 302 and back["Location"] == match.get_absolute_url()
