"""Home, health, log-in and the play screens."""

from django.urls import reverse
from expected import ALL
from expected import everyone


def only(status, other, **roles):
    expect = everyone(other)
    expect.update(roles)
    return {role: expect[role] for role in ALL} | {r: status for r in roles if roles[r] is True}


def play_url(name, match="match_a"):
    return lambda w: reverse(f"games:{name}", args=[getattr(w, match).public_id])


ENTRIES = [
    {"name": "classroom:home", "url": lambda w: reverse("classroom:home"), "expect": everyone(200)},
    # /healthz: 200 or 503 depending on the worker; never a 5xx other than 503, never 404.
    {
        "name": "classroom:healthz",
        "url": lambda w: reverse("classroom:healthz"),
        "expect": everyone((200, 503)),
    },
    {
        "name": "classroom:healthz_web",
        "url": lambda w: reverse("classroom:healthz_web"),
        "expect": everyone(200),
    },
    {"name": "login", "url": lambda w: reverse("login"), "expect": everyone(200)},
    # The language switcher: everybody may choose (a signed-in child's pages stay in their
    # school's language all the same); a language not offered is 422.
    {
        "name": "classroom:set_language",
        "method": "post",
        "url": lambda w: reverse("classroom:set_language"),
        "data": lambda w: {"language": "es", "next": "/"},
        "expect": everyone(302),
    },
    {
        "name": "classroom:set_language",
        "method": "post",
        "url": lambda w: reverse("classroom:set_language"),
        "data": lambda w: {"language": "fr", "next": "/"},
        "expect": everyone(422),
    },
    {
        "name": "logout",
        "method": "post",
        "url": lambda w: reverse("logout"),
        "expect": everyone(302),
    },
    {"name": "games:new", "url": lambda w: reverse("games:new"), "expect": everyone(200)},
    {"name": "games:family", "url": lambda w: reverse("games:family"), "expect": everyone(200)},
    {
        "name": "games:new_family",
        "url": lambda w: reverse("games:new_family", args=["muertoons"]),
        "expect": everyone(200),
    },
    {
        "name": "games:play",
        "url": play_url("play"),
        "expect": everyone(404) | {"child_a": 200},
    },
    {
        "name": "games:move",
        "method": "post",
        "url": play_url("move"),
        "data": lambda w: {"version": 0, "type": "end_turn"},
        # child_a's turn, but a card must be placed first: 422. Everyone else: 404.
        "expect": everyone(404) | {"child_a": 422},
    },
    {
        "name": "games:poll",
        "url": lambda w: play_url("poll")(w) + "?v=0",
        # The teacher of the seated child may watch: 204 (unchanged) like the child.
        "expect": everyone(404) | {"child_a": 204, "teacher_a": 204, "superuser": 204},
    },
    {
        "name": "games:stream",
        "url": lambda w: play_url("stream")(w) + "?v=0",
        # Whoever may GET the board may listen; the test client is a WSGI server, where there
        # is no stream (204: the board polls; tests/games/test_live_stream.py streams). Everyone
        # else 404, with or without push.
        "expect": everyone(404) | {"child_a": 204, "teacher_a": 204, "superuser": 204},
    },
    {
        "name": "games:reveal",
        "method": "post",
        "url": play_url("reveal"),
        "expect": everyone(404),  # only a device that holds two seats
    },
    {
        "name": "games:join",
        "url": play_url("join"),
        "expect": everyone(404) | {"child_a": 302},  # no open seat; the child is seated
    },
    {
        "name": "games:spectate",
        "url": play_url("spectate"),
        "expect": everyone(404) | {"teacher_a": 200, "superuser": 200},
    },
    {
        "name": "games:replay",
        "url": play_url("replay", "match_b"),
        "expect": everyone(404) | {"child_b": 200, "teacher_b": 200, "superuser": 200},
    },
]
