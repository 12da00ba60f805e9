"""Family-night rooms: joining by code, the room card, starting with computers, handing a
gone seat to a computer player and taking it back.

The world's match_a is child_a's classroom game: child_a has a seat but is not the host of a
family room, so the host's actions answer 403; every role without a seat gets 404. The
host's own answers (200, 302, 409, 422) are tested in tests/games/test_rooms_views.py.
"""

from django.urls import reverse
from expected import everyone


def play_url(name, match="match_a"):
    return lambda w: reverse(f"games:{name}", args=[getattr(w, match).public_id])


ENTRIES = [
    {
        "name": "games:join_room",
        "url": lambda w: reverse("games:join_room"),
        "expect": everyone(200),
    },
    {
        "name": "games:room",
        "url": play_url("room"),
        "expect": everyone(404) | {"child_a": 200},  # a seat: the (empty) room card
    },
    {
        "name": "games:start_room",
        "method": "post",
        "url": play_url("start_room"),
        "expect": everyone(404) | {"child_a": 403},  # seated, not the host
    },
    {
        "name": "games:take_over",
        "method": "post",
        "url": play_url("take_over"),
        "data": lambda w: {"seat": 1},
        "expect": everyone(404) | {"child_a": 403},  # seated, not the host
    },
    {
        "name": "games:take_back",
        "method": "post",
        "url": play_url("take_back"),
        "expect": everyone(404),  # nobody's seat was taken over by a computer player
    },
]
