"""Hostile paths (security issue, item 6): found by an outside attack on the production stack
(uvicorn, PostgreSQL). A NUL byte in a path (``/play/%00/``, ``/invite/%00/``,
``/join/badge/%00/``...) reached PostgreSQL, which refuses NUL in text: 500, unauthenticated,
on 11 routes. Every id in a path now has a converter of its exact shape (config/converters.py).

Every URL pattern with a path argument (walked from ``get_resolver()`` as
tests/test_authorization_matrix.py does, Django's admin and password reset included) gets
each argument in turn replaced by a hostile value: a NUL alone, inside or after an id of the
right shape, ``a\x00b``, a control character inside an id, DEL, 5,000 characters, 5,000
digits, a number beyond any primary key, non-ASCII digits, Unicode letters, ``..``, a literal
``%00`` and an id of the right shape that does not exist. The other arguments keep a real value
(the authorization matrix's URL of that name), else one of the right shape.

- A hostile path that reaches a view (the resolver matches it) is asked for with GET and POST
  as an anonymous visitor, teacher_a and child_a; on Django's password-reset view, which takes
  every value, the roles take turns.
- A path the resolver refuses reaches no view, so its answer (Django's 404) does not depend
  on the route: every refused value of one route of each converter, GET and POST, the roles
  in turn, must answer 404.
- Django's admin reads its ids itself, for staff only. Every admin pattern was fuzzed once
  with every value, as an anonymous visitor, a teacher and the superuser, GET and POST (6,480
  requests, no 5xx on PostgreSQL); the suite keeps a NUL inside the id of every admin pattern,
  as the superuser (a model with a text primary key would send it to PostgreSQL).

Every answer must be below 500 (no pattern with an argument is a health check, so no 503
either), and no row of the database may change (test_bad_input.py's ``fingerprint``). The
paths are raw strings, every argument percent-encoded: the test client decodes the path as a
server does, so ``/play/%00/`` reaches the resolver as ``/play/\x00/`` (checked below), and the
11 reported paths are asked for again through Django's ASGI handler, as uvicorn serves them.
The file takes about 15 s on PostgreSQL, where NUL broke, and runs in both CI runs."""

import re
from dataclasses import dataclass
from urllib.parse import quote
from urllib.parse import unquote
from urllib.parse import urlsplit

import pytest
from django.db import transaction
from django.test import AsyncClient
from django.test import Client
from django.urls import Resolver404
from django.urls import URLPattern
from django.urls import URLResolver
from django.urls import get_resolver
from django.urls import resolve
from django.urls.resolvers import RegexPattern
from django.urls.resolvers import RoutePattern
from live_kit import run

from .test_bad_input import fingerprint
from .test_bad_input import matrix_entries

# Every test here needs the test database (the module's clients and world use it): the mark
# tells pytest-django so, also when a test runs alone.
pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "teacher_a", "child_a")
METHODS = ("get", "post")
# Values of the right shape for an argument: the first one its converter's regex matches.
SHAPED = ["999999", "7", "zzzzzzzzzz", "QQQQQQ", "Q" * 24, "Q" * 32, "nosuchgame", "auth"]


def hostile_values(shaped: str) -> list[tuple[str, str]]:
    """(label, value) pairs for one argument whose well-shaped value is ``shaped``."""
    half = len(shaped) // 2
    return [
        ("NUL", "\x00"),
        ("NUL inside an id", shaped[:half] + "\x00" + shaped[half:]),
        ("NUL after an id", shaped + "\x00"),
        ("a NUL b", "a\x00b"),
        ("\\x01 inside an id", shaped[:half] + "\x01" + shaped[half:]),
        ("DEL", "\x7f"),
        ("5,000 characters", (shaped * 5000)[:5000]),
        ("5,000 digits", "9" * 5000),
        ("a number beyond any id", "9" * 30),
        ("Arabic-Indic digit", "٣"),
        ("fullwidth digit", "３"),
        ("unicode letters", "ñandú"),
        ("..", ".."),
        ("a literal %00", "%00"),
        ("right shape, not there", shaped),
    ]


# --- the URL patterns ----------------------------------------------------------------------
@dataclass(frozen=True)
class Route:
    name: str  # "games:play"; "" for an unnamed pattern
    patterns: tuple  # the RoutePattern/RegexPattern of each level, outermost first

    @property
    def template(self) -> str:
        return "/" + "".join(str(p) for p in self.patterns)

    @property
    def admin(self) -> bool:
        return self.name.startswith("admin:") or self.template.startswith("/admin/")

    def arguments(self) -> dict[str, re.Pattern]:
        """Each path argument's name and the regex its value must fully match."""
        found = {}
        for pattern in self.patterns:
            if isinstance(pattern, RoutePattern):
                for name, converter in pattern.converters.items():
                    found[name] = re.compile(converter.regex)
            else:
                for name, (start, end) in regex_groups(pattern.regex.pattern).items():
                    found[name] = re.compile(pattern.regex.pattern[start:end])
        return found

    def path(self, values: dict[str, str]) -> str:
        """The raw path with these argument values, each percent-encoded (as a browser or
        an attacker sends them; the server decodes them back)."""
        encoded = {name: quote(value, safe="") for name, value in values.items()}
        return "/" + "".join(piece(pattern, encoded) for pattern in self.patterns)


ROUTE_ARGUMENT = re.compile(r"<(?:[^>:]+:)?([^>]+)>")


def regex_groups(regex: str) -> dict[str, tuple[int, int]]:
    """The named groups of a regex: name -> (start, end) of the group's own pattern."""
    groups = {}
    for match in re.finditer(r"\(\?P<(\w+)>", regex):
        depth, i = 1, match.end()
        while depth:
            if regex[i] == "\\":
                i += 1
            elif regex[i] == "(":
                depth += 1
            elif regex[i] == ")":
                depth -= 1
            i += 1
        groups[match[1]] = (match.end(), i - 1)
    return groups


def piece(pattern, values: dict[str, str]) -> str:
    text = str(pattern)
    if isinstance(pattern, RoutePattern):
        return ROUTE_ARGUMENT.sub(lambda m: values[m[1]], text)
    assert isinstance(pattern, RegexPattern), pattern
    text = text.removeprefix("^").removesuffix("$")
    groups = regex_groups(text)
    out, at = [], 0
    for name, (start, end) in sorted(groups.items(), key=lambda item: item[1]):
        out += [re.sub(r"\\(.)", r"\1", text[at : start - len(f"(?P<{name}>")]), values[name]]
        at = end + 1
    out.append(re.sub(r"\\(.)", r"\1", text[at:]))
    return "".join(out)


def routes(resolver=None, parents=(), namespace="") -> list[Route]:
    found = []
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            ns = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            found += routes(pattern, (*parents, pattern.pattern), ns)
        elif isinstance(pattern, URLPattern):
            name = namespace + pattern.name if pattern.name else ""
            found.append(Route(name, (*parents, pattern.pattern)))
    return found


ROUTES = routes()


def test_the_walk_finds_every_kind_of_pattern():
    """The reported routes, the admin's regex patterns and the unnamed ones are all here."""
    templates = {route.template for route in ROUTES}
    names = {route.name for route in ROUTES}
    assert {"games:play", "games:move", "classroom:invite_accept", "classroom:join_badge"} <= names
    assert {"classroom:join_pictures", "classroom:child_fact", "password_reset_confirm"} <= names
    assert any(not route.name for route in ROUTES)  # the admin's change views
    assert any(isinstance(route.patterns[-1], RegexPattern) for route in ROUTES)
    assert len(templates) == len(ROUTES)
    admin_list = next(route for route in ROUTES if route.name == "admin:app_list")
    assert admin_list.path({"app_label": "auth"}) == "/admin/auth/"
    play = next(route for route in ROUTES if route.name == "games:play")
    assert play.path({"public_id": "a\x00b"}) == "/play/a%00b/"
    fact = next(route for route in ROUTES if route.name == "classroom:child_fact")
    assert fact.path({"pk": "1", "a": "2", "b": "3"}) == "/teacher/children/1/report/2x3/"


def real_arguments(world) -> dict[str, dict[str, str]]:
    """Each named URL's arguments as the authorization matrix's URL for it has them."""
    real = {}
    for entry in matrix_entries():
        if entry["name"] in real:
            continue
        match = resolve(unquote(urlsplit(entry["url"](world)).path))
        if match.view_name == entry["name"]:
            real[entry["name"]] = {k: str(v) for k, v in match.kwargs.items()}
    return real


@pytest.fixture(scope="module")
def real(_module_world, django_db_blocker):
    with django_db_blocker.unblock():
        return real_arguments(_module_world)


@pytest.fixture(scope="module")
def clients(_module_world, django_db_blocker) -> dict[str, Client]:
    """A client per role for the whole module: a new client loads the middleware again, and
    WhiteNoise's scan of the static files took most of the time."""
    with django_db_blocker.unblock():
        return {role: _module_world.client(role) for role in (*ROLES, "superuser")}


def well_shaped(regex: re.Pattern, real: str | None) -> str:
    for value in SHAPED:
        if regex.fullmatch(value) and value != real:
            return value
    raise AssertionError(f"no value of the shape {regex.pattern!r}: add one to SHAPED")


def hostile_paths(route: Route, real: dict[str, str]):
    """(what, path) for every argument of ``route`` and every hostile value."""
    arguments = route.arguments()
    shaped = {name: well_shaped(regex, real.get(name)) for name, regex in arguments.items()}
    for name in arguments:
        for label, value in hostile_values(shaped[name]):
            values = {n: real.get(n, shaped[n]) for n in arguments} | {name: value}
            yield f"{name}={label}", route.path(values)


def reaches_a_view(path: str) -> bool:
    """Whether the resolver hands this (percent-encoded) path to a view."""
    try:
        resolve(unquote(path))
    except Resolver404:
        return False
    return True


def answer(client: Client, method: str, path: str) -> str | int:
    """The status of the request, or what it raised (a 500 to a browser), in a savepoint:
    a failed query must not end the test's transaction."""
    try:
        with transaction.atomic():
            return getattr(client, method)(path).status_code
    except Exception as exc:  # an exception is the 500 this test looks for
        return f"500 ({type(exc).__name__}: {str(exc)[:160]})"


def failed(status: str | int) -> bool:
    return isinstance(status, str) or status >= 500


def requested(clients, plan, expect: int | None = None) -> list[str]:
    """Every (role, what, path) of ``plan`` with GET and POST: the answers that failed (or
    were not ``expect``), and any change in the database (a rollback follows)."""
    failures = []
    with transaction.atomic():
        before = fingerprint()
        for role, what, path in plan:
            for method in METHODS:
                status = answer(clients[role], method, path)
                if failed(status) or expect not in (None, status):
                    failures.append(f"{method.upper()} {path[:120]} ({what}) as {role}: {status}")
        after = fingerprint()
        if changed := sorted(key for key in before if before[key] != after.get(key)):
            failures.append(f"these requests changed {changed}: {plan}")
        transaction.set_rollback(True)
    return failures


FUZZED = [route for route in ROUTES if route.arguments() and not route.admin]
# Django's own view, whose ``<str:...>`` arguments take every hostile value.
DJANGO_VIEWS = {"password_reset_confirm"}


@pytest.mark.parametrize("route", FUZZED, ids=[route.template for route in FUZZED])
def test_hostile_path_arguments_answer_below_500_and_change_nothing(clients, real, route):
    """A hostile path that reaches a view is asked for as every role, with GET and POST. One
    the resolver refuses reaches no view: its 404 is the same on every route, whoever asks
    (test_a_refused_path_answers_404)."""
    paths = [(w, p) for w, p in hostile_paths(route, real.get(route.name, {})) if reaches_a_view(p)]
    if route.name in DJANGO_VIEWS:  # every value reaches it: the roles in turn
        plan = [(ROLES[i % len(ROLES)], what, path) for i, (what, path) in enumerate(paths)]
    else:
        plan = [(role, what, path) for what, path in paths for role in ROLES]
    failures = requested(clients, plan)
    assert not failures, "\n".join(failures)


# One route of each converter of ours, among them a child's, a teacher's and the reported ones.
REFUSED_ON = [
    "games:play",
    "games:move",
    "classroom:invite_accept",
    "classroom:join_badge",
    "classroom:join_class",
    "classroom:class_detail",
    "classroom:child_play",
]


@pytest.mark.parametrize("name", REFUSED_ON)
def test_a_refused_path_answers_404(clients, real, name):
    """Every hostile value the converters refuse, GET and POST, the roles in turn: 404 from
    the resolver, before any view, and nothing changed."""
    route = next(route for route in ROUTES if route.name == name)
    paths = [(w, p) for w, p in hostile_paths(route, real.get(name, {})) if not reaches_a_view(p)]
    assert len(paths) >= 12, "the converter lets hostile values through"
    plan = [(ROLES[i % len(ROLES)], what, path) for i, (what, path) in enumerate(paths)]
    failures = requested(clients, plan, expect=404)
    assert not failures, "\n".join(failures)


# Django's admin reads its ids itself (``ModelAdmin.get_object``: the primary key field's
# ``to_python``, errors caught), for staff only: see the module's docstring.
ADMIN = [route for route in ROUTES if route.arguments() and route.admin]


def test_the_admin_takes_a_nul_in_an_id_of_every_model(clients):
    plan = []
    for route in ADMIN:
        arguments = route.arguments()
        shaped = {name: well_shaped(regex, None) for name, regex in arguments.items()}
        for name in arguments:
            what, value = hostile_values(shaped[name])[1]  # a NUL inside an id
            plan.append(("superuser", f"{name}={what}", route.path(shaped | {name: value})))
    assert len(plan) >= 60, len(plan)
    failures = requested(clients, plan)
    assert not failures, "\n".join(failures)


# --- the report's 11 routes, as the attacker sent them -----------------------------------------
REPORTED = [
    *(f"/play/%00/{tail}" for tail in ("", "move/", "poll/", "stream/", "join/", "room/")),
    "/play/%00/watch/",
    "/play/%00/replay/",
    "/play/a%00b/",
    "/invite/%00/",
    "/join/badge/%00/",
]


def test_a_nul_in_the_path_reaches_the_resolver_as_a_nul(clients):
    """The test client decodes the path as a server does: the resolver sees the NUL itself
    (so the fuzz above really sends NUL, not the three characters "%00")."""
    response = clients["anonymous"].get("/play/%00/")
    assert response.wsgi_request.path_info == "/play/\x00/"
    assert response.status_code == 404


@pytest.mark.parametrize("path", REPORTED)
def test_the_reported_paths_answer_404(clients, path):
    assert len(REPORTED) == 11
    for method in METHODS:
        assert answer(clients["anonymous"], method, path) == 404, (method, path)


def test_the_reported_paths_answer_404_through_the_asgi_handler(db):
    """As uvicorn serves them: through Django's ASGI handler, the NUL decoded in the scope's
    path (the requests run on other threads, with their own database connections)."""

    async def statuses():
        client = AsyncClient()
        found = {}
        for path in REPORTED:
            for method in METHODS:
                response = await getattr(client, method)(path)
                assert not response.streaming, path
                found[method, path] = (response.status_code, response.asgi_request.path)
        return found

    for (method, path), (status, seen) in run(statuses).items():
        assert "\x00" in seen, (method, path, seen)
        assert status == 404, (method, path, status)
