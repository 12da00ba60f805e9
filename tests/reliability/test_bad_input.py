"""Bad input: every POST endpoint fuzzed with hypothesis (random and malformed form
payloads: wrong types, huge strings, unicode, NUL bytes, missing fields, lists where one value
is expected, bad versions and move ids, numbers that are not ASCII digits), and every query
parameter a page reads.

For every answer: never a 5xx; a 4xx carries a clear message (visible text) and changes no row
of the database. The endpoints come from the authorization matrix, which has a row for every
named URL (tests/test_authorization_matrix.py fails on a URL without one), so a new POST
endpoint is fuzzed without touching this file. The move endpoint is also fuzzed on a match of
every game in the registry (games/registry.py), from that game's own legal moves, mutated.

FUZZ_EXAMPLES (default 25) examples per endpoint (a page that reads no query parameter: a
fifth of them, at least 2); ``make soak`` runs more."""

import ast
import functools
import hashlib
import importlib.util
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.db import transaction
from django.urls import reverse
from django.utils.http import urlencode
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from games.models import Match

from .conftest import body
from .conftest import count
from .conftest import game_params
from .conftest import guest_seats
from .conftest import move_data
from .conftest import seat_client
from .conftest import visible_text

EXAMPLES = count("FUZZ_EXAMPLES", 25)
MATRIX_DIR = Path(__file__).parent.parent / "matrix"
ROLES = (
    "teacher_a",
    "child_a",
    "admin_a",
    "superuser",
    "anonymous",
    "teacher_b",
    "child_b",
    "admin_b",
)
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Rows a refused request may change by design: a wrong picture answer counts towards the
# child's lockout (classroom.models.signin), that is its whole point; so does every log-in
# attempt towards its network's limit (RateLimit, classroom/views/accounts.py).
MAY_CHANGE_WHEN_REFUSED = {("classroom", "studentsignin"), ("classroom", "ratelimit")}
# Columns that record a visit, not state: a seat's presence is refreshed by any request of
# its browser (games.views.mark_seen), refused or not.
PRESENCE_FIELDS = {("games", "seat"): {"last_seen_at"}}


def matrix_entries() -> list[dict]:
    entries = []
    for path in sorted(MATRIX_DIR.glob("matrix_*.py")):
        spec = importlib.util.spec_from_file_location(f"reliability_matrix.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        entries.extend(module.ENTRIES)
    return entries


def url_targets() -> dict[str, dict]:
    """One entry per named URL: a POST row of the matrix when it has one (its URL and data)."""
    targets = {}
    for entry in matrix_entries():
        name = entry["name"]
        if name not in targets or (
            entry.get("method") == "post" and targets[name].get("method") != "post"
        ):
            targets[name] = entry
    return targets


TARGETS = url_targets()


# --- what must hold for every answer ----------------------------------------------------------
def fingerprint() -> dict[tuple[str, str], str]:
    """A digest of every row of the project's tables (and users), per model: every table's
    rows as text, in primary-key order, in one statement (a query per model, twice per
    example, was two fifths of this file's time on PostgreSQL)."""
    from django.db import connection

    quote = connection.ops.quote_name
    keys, columns = [], []
    for label in ("games", "classroom", "auth"):
        for model in apps.get_app_config(label).get_models():
            key = (model._meta.app_label, model._meta.model_name)
            skip = PRESENCE_FIELDS.get(key, set())
            names = [quote(f.column) for f in model._meta.concrete_fields if f.name not in skip]
            table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
            if connection.vendor == "postgresql":
                row = f"ROW({', '.join(names)})::text"
                rows = f"SELECT string_agg({row}, '|' ORDER BY {pk}) FROM {table}"  # noqa: S608
            else:
                row = " || ',' || ".join(f"quote({n})" for n in names)
                ordered = f"SELECT {row} AS r FROM {table} ORDER BY {pk}"  # noqa: S608
                rows = f"SELECT group_concat(r, '|') FROM ({ordered})"  # noqa: S608
            keys.append(key)
            columns.append(f"({rows})")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(columns)}")
        texts = cursor.fetchone()
    return {
        key: hashlib.sha256((text or "").encode()).hexdigest()
        for key, text in zip(keys, texts, strict=True)
    }


def test_the_fingerprint_sees_a_changed_row_and_ignores_presence(world):
    from django.utils import timezone

    from games.models import Seat

    before = fingerprint()
    assert len(before) == sum(
        len(list(apps.get_app_config(label).get_models()))
        for label in ("games", "classroom", "auth")
    )
    Seat.objects.filter(match=world.match_a).update(last_seen_at=timezone.now())
    assert fingerprint() == before  # a visit is not a change
    world.child_a2.name = "Alina"
    world.child_a2.save(update_fields=["name"])
    changed = {k for k, v in fingerprint().items() if before[k] != v}
    assert changed == {("classroom", "student")}
    Seat.objects.filter(match=world.match_a, number=1).update(name="Pip 2")
    changed = {k for k, v in fingerprint().items() if before[k] != v}
    assert changed == {("classroom", "student"), ("games", "seat")}


def check_answer(response, before: dict, what: str, allowed=()):
    status = response.status_code
    assert status < 500 or status in allowed, f"{what}: {status}\n{body(response)[:2000]}"
    if 400 <= status < 500:
        assert visible_text(body(response)), f"{what}: {status} with no message"
        after = fingerprint()
        changed = {k for k in before if before[k] != after.get(k)} - MAY_CHANGE_WHEN_REFUSED
        assert not changed, f"{what}: refused with {status} but changed {sorted(changed)}"


# --- payloads -----------------------------------------------------------------------------------
NASTY = [
    "",
    " ",
    "0",
    "-1",
    "1.5",
    "1e309",
    "NaN",
    "99999999999999999999999999",
    "null",
    "true",
    "[]",
    '{"type": "pass"}',
    "<script>alert(1)</script>",
    "'; DROP TABLE games_match; --",
    "\x00",
    "a\x00b",
    "\u202eevil",
    "Ω≈ç√∫˜µ≤≥÷",
    "🧪" * 40,
    "x" * 100_000,
    "../../etc/passwd",
    "%00",
    "\r\n\r\n",
]
# Numbers a view must not read as a number (issue 18): str.isdigit() is true for "²", "½" and
# "①" (int() then raises), and int() itself takes "٣", "５", " 1", "+1" and "1_000".
UNICODE_DIGITS = ["²", "¹²", "٣", "۳", "५", "５", "１２", "½", "①", "𝟗", "߃", "٣٤"]
NUMBERS = [
    *UNICODE_DIGITS,
    "+1",
    "-1",
    "+0",
    " 1",
    "1 ",
    " 1 ",
    "\t1",
    "1\n",
    "1_000",
    "0x1",
    "1.0",
    "1e3",
    "9" * 19,
    "9" * 30,
    "9" * 5000,
    "0" * 40 + "1",
]
NASTY += NUMBERS
# ``next`` addresses that are not a path of this site (issue 18): "cards" passed the host check,
# then redirect() took it for a URL name (NoReverseMatch: 500).
NASTY += [
    "cards",
    "cards/",
    "./cards",
    "//evil.example/",
    "/\\evil.example/",
    "https://evil.example/",
]
# Digits of other scripts (category Nd: int() reads them) and of category No (isdigit() is
# true for some, int() reads none), to write a real id in.
DIGIT_SETS = [
    "٠١٢٣٤٥٦٧٨٩",  # Arabic-Indic
    "۰۱۲۳۴۵۶۷۸۹",  # Extended Arabic-Indic
    "०१२३४५६७८९",  # Devanagari
    "０１２３４５６７８９",  # fullwidth
    "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗",  # mathematical bold
    "⁰¹²³⁴⁵⁶⁷⁸⁹",  # superscripts (No)
    "₀₁₂₃₄₅₆₇₈₉",  # subscripts (No)
]
unicode_numbers = st.text(alphabet=st.characters(categories=("Nd", "No")), min_size=1, max_size=6)
values = st.one_of(
    st.sampled_from(NASTY),
    st.text(max_size=40),
    st.integers().map(str),
    unicode_numbers,
    st.lists(st.one_of(st.sampled_from(NASTY), st.text(max_size=10)), min_size=0, max_size=4),
)


def payloads(names: list[str], valid: dict):
    known = st.sampled_from(names) if names else st.text(min_size=1, max_size=12)
    random_form = st.dictionaries(
        st.one_of(known, st.text(min_size=1, max_size=12)), values, max_size=8
    )
    if not valid:
        return random_form

    @st.composite
    def mutated(draw):
        data = dict(valid)
        for _ in range(draw(st.integers(1, 3))):
            key = draw(st.sampled_from(sorted(data) or names or ["x"]))
            if draw(st.booleans()):
                data.pop(key, None)
            else:
                data[key] = draw(values)
        return data

    return st.one_of(random_form, mutated())


def form_names(html: str) -> list[str]:
    """The names of a page's form controls."""
    names = re.findall(r'<(?:input|select|textarea|button)\b[^>]*?\bname="([^"]+)"', html)
    return sorted(set(names) - {"csrfmiddlewaretoken"})


# --- every POST endpoint of the matrix ------------------------------------------------------
GATES = ("/accounts/login/", "/join/")


def rank(response) -> int:
    """How far a role's POST got: a form (200/204/422) is best, a gate is worst."""
    status = response.status_code
    if status in (200, 201, 204, 422):
        return 0
    if status in (301, 302, 303):
        return 3 if response.headers.get("Location", "").startswith(GATES) else 1
    return {400: 2, 409: 2, 429: 2, 403: 4, 405: 9}.get(status, 5)


def choose_role(world, url, data):
    """The role whose POST gets furthest (in a savepoint that is rolled back). A URL that
    answers 405 to a role let through its gate, and nothing better to anyone, is GET-only
    (score 9)."""
    best, refused_method = None, False
    for role in ROLES:
        with transaction.atomic():
            response = world.client(role).post(url, data)
            transaction.set_rollback(True)
        assert response.status_code < 500, (url, role, response.status_code)
        score = rank(response)
        refused_method |= score == 9
        if best is None or score < best[0]:
            best = (score, role)
    if refused_method and best[0] >= 3:
        return 9, None
    return best


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_post_endpoint_survives_bad_input(world, name):
    entry = TARGETS[name]
    url = entry["url"](world)
    valid = {k: v for k, v in (entry["data"](world) if "data" in entry else {}).items()}
    score, role = choose_role(world, url, valid)
    if score == 9:
        print(f"\nPOST {url}: GET only (405)")
        return
    page = world.client(role).get(url)
    # The page's own fields, and every field any view reads by name (``next``, ``version``,
    # ``seat``...: a view may read one its page has no control for).
    names = sorted(set(form_names(body(page)) + list(valid)) | names_read_in_code("POST"))
    valid = {k: [str(x) for x in v] if isinstance(v, list) else str(v) for k, v in valid.items()}

    @FUZZ_SETTINGS
    @given(data=payloads(names, valid), htmx=st.booleans())
    def fuzz(data, htmx):
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        with transaction.atomic():
            client = world.client(role)
            before = fingerprint()
            response = client.post(url, data, **headers)
            check_answer(response, before, f"POST {url} as {role} with {data!r:.300}")
            transaction.set_rollback(True)

    fuzz()
    print(f"\nPOST {url} fuzzed as {role} ({EXAMPLES} examples, fields {names})")


# --- the move endpoint of every game -----------------------------------------------------
def post_unchanged(client, url, data, slug, check=None, **headers):
    """POST a move in a transaction rolled back afterwards: check_answer (a refusal changed
    nothing), then ``check(response)`` before the rollback."""
    with transaction.atomic():
        before = fingerprint()
        response = client.post(url, data, **headers)
        check_answer(response, before, f"{slug}: POST move {data!r:.300}")
        if check is not None:
            check(response)
        transaction.set_rollback(True)
    return response


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("slug", game_params())
def test_every_game_refuses_malformed_moves_cleanly(slug):
    from games import registry

    module = registry.get(slug).rules
    seats = guest_seats(max(module.MIN_PLAYERS, 2), prefix=f"fz-{slug}")[: module.MAX_PLAYERS]
    match = Match.create(slug, seats, seed=5)
    state = module.load(match.state)
    acting = module.to_act(state)[0]
    client = seat_client(seats[acting]["owner_key"])
    url = reverse("games:move", args=[match.public_id])
    legal = module.legal_actions(state, acting)
    names = sorted({k for action in legal for k in action} | {"version", "move_id"})
    valid_forms = [move_data(action, match.version) for action in legal]
    refused = 0

    def unmoved(response):
        nonlocal refused
        if response.status_code >= 400:
            refused += 1
            match.refresh_from_db()
            assert match.version == 0 and match.moves.count() == 0

    @FUZZ_SETTINGS
    @given(
        base=st.sampled_from(valid_forms),
        data=payloads(names, {}),
        mix=st.sampled_from(["random", "mutated", "wrong-version", "bad-id"]),
        htmx=st.booleans(),
    )
    def fuzz(base, data, mix, htmx):
        if mix == "mutated":
            data = {**base, **data}
        elif mix == "wrong-version":
            data = {**base, "version": data.get("version", "-1")}
        elif mix == "bad-id":
            data = {**base, "move_id": data.get("move_id", "x" * 5000)}
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        post_unchanged(client, url, data, slug, check=unmoved, **headers)

    fuzz()
    assert refused > 0, "not one malformed move was refused: the fuzzing did not reach the engine"
    # Cases found by the fuzzing once (500s on PostgreSQL), kept as fixed examples: a NUL in
    # a move's field, in a field's name, in the move id; the version as a huge number.
    base = valid_forms[0]
    for data in (
        {**base, "extra": "\x00"},
        {**base, "\x00": "x"},
        {**base, "move_id": "\x00"},
        {**base, "move_id": "a\x00b", "version": "-1"},
        {**base, "version": "9" * 40},
    ):
        post_unchanged(client, url, data, slug)
    # Issue 18: every field of the game's moves as a Unicode digit, a sign or a space (the
    # engines read numbers from the form's strings; str.isdigit() is true for "²").
    fields = {k for action in legal for k in action} | set(getattr(module, "INT_KEYS", ()))
    fields = sorted(fields - {"type"})
    for key in fields:
        for value in ("²", "①", "½", "٣", "-²", "--1", " 1", "+1", "9" * 30, "9" * 5000):
            for form in valid_forms:
                if key in form:
                    data = {**form, key: value}
                    break
            else:
                data = {**base, key: value}
            post_unchanged(client, url, data, slug)
    # Issue 18: the version 0 in other digits, signed or spaced is not version 0 (int() read
    # "٠", "０", " 0", "+0" and "0_0" as 0 and played the move).
    for version in ("²", "٠", "０", "𝟎", " 0", "0 ", "+0", "0_0"):
        data = {**base, "version": version}
        response = post_unchanged(client, url, data, slug)
        assert response.status_code == 422, (slug, version, response.status_code)


# --- every query parameter of every page (issue 18) ---------------------------------------
def number_variants(number: str):
    """``number`` written in another script's digits, with a sign, a space or a tail: the
    same id to ``int()``, not a number to the site."""
    return st.one_of(
        st.sampled_from(DIGIT_SETS).map(lambda d: number.translate(str.maketrans("0123456789", d))),
        st.sampled_from(["+{}", "-{}", " {}", "{} ", "\t{}", "{}\n", "{}_0", "{}.0", "{}²"]).map(
            lambda form: form.format(number)
        ),
    )


# Every query parameter a page reads, with a valid value where one matters (None: any string
# will do). test_every_query_parameter_is_listed fails on a parameter the code reads that is
# not listed here, so a new one is fuzzed.
GET_PARAMS = {
    "login": {"next": lambda w: reverse("classroom:teacher_home")},  # config.params.safe_next
    "games:poll": {"v": None},
    "games:replay": {"ply": lambda w: "1"},
    "classroom:wall_board": {"v": None},
    "classroom:assignment_new": {"again": lambda w: str(w.assignment_a.pk)},
    "classroom:invite_list": {"new": lambda w: str(w.invite_a.pk)},
    "classroom:login_cards": {"student": lambda w: str(w.child_a.pk), "show": lambda w: "code"},
    "classroom:class_report": {"job": lambda w: "1", "range": lambda w: "4w"},
    "classroom:class_fact": {"job": lambda w: "1", "range": lambda w: "4w"},
    "classroom:class_hardest": {"job": lambda w: "1", "range": lambda w: "4w"},
    "classroom:school_report": {"range": lambda w: "4w"},
    "classroom:school_hardest": {"range": lambda w: "4w"},
    "classroom:child_report": {"view": lambda w: "together"},
    "classroom:child_fact": {"view": lambda w: "together"},
    "classroom:child_report_print": {"view": lambda w: "together"},
    "classroom:warm_up_round": {"paused": lambda w: "1"},
}
ALL_GET_NAMES = sorted({name for params in GET_PARAMS.values() for name in params})
# A page that reads no parameter is fuzzed with every name above, in fewer examples.
OTHER_EXAMPLES = max(2, EXAMPLES // 5)
ROOT = Path(__file__).parent.parent.parent


@functools.cache
def names_read_in_code(source: str = "GET") -> frozenset[str]:
    """The query parameters (``source="GET"``) or form fields (``"POST"``) the project's code
    reads by name (``request.GET.get("x")``, ``.getlist("x")``, ``request.GET["x"]``), and for
    GET its templates too (``request.GET.x``)."""
    names = set()
    for folder in ("games", "classroom", "config"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in {"get", "getlist"}
                    and isinstance(node.func.value, ast.Attribute)
                    and node.func.value.attr == source
                    and node.args
                ) or (
                    isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Attribute)
                    and node.value.attr == source
                ):
                    arg = node.args[0] if isinstance(node, ast.Call) else node.slice
                    assert isinstance(arg, ast.Constant), f"{path}: {source} read by name"
                    names.add(arg.value)
    if source == "GET":
        for path in (ROOT / "templates").rglob("*.html"):
            names.update(re.findall(r"request\.GET\.(\w+)", path.read_text()))
    return frozenset(names)


def test_every_query_parameter_is_listed():
    read = names_read_in_code()
    assert {"student", "again", "new", "job", "ply"} <= read  # the scan finds them
    missing = read - set(ALL_GET_NAMES)
    assert not missing, f"add {sorted(missing)} to GET_PARAMS (the pages that read them)"
    assert set(ALL_GET_NAMES) <= read, "GET_PARAMS lists a name nobody reads"


def get_targets() -> dict[str, dict]:
    """One GET row of the matrix per named URL: one where some role gets a page if any."""
    targets = {}
    for entry in matrix_entries():
        if entry.get("method", "get") != "get":
            continue
        name = entry["name"]
        if name not in targets or (best_expected(entry)[0] < best_expected(targets[name])[0]):
            targets[name] = entry
    return targets


def best_expected(entry) -> tuple[int, str]:
    """The role the matrix lets furthest on this URL (a page beats a redirect beats a gate)."""
    order = {200: 0, 204: 1, 302: 2, 403: 3, 404: 4, 405: 9}
    scored = []
    for rank_of_role, role in enumerate(ROLES):
        expected = entry["expect"].get(role, 404)
        status = min(expected) if isinstance(expected, tuple) else expected
        scored.append((order.get(status, 5), rank_of_role, role))
    score, _rank, role = min(scored)
    return score, role


def expected_5xx(entry, role) -> set[int]:
    """A 5xx the matrix expects (/healthz answers 503 while no worker runs), allowed as is."""
    expected = entry["expect"].get(role, ())
    return {s for s in (expected if isinstance(expected, tuple) else (expected,)) if s >= 500}


GET_TARGETS = get_targets()


def queries(params: dict[str, str | None]):
    """Query strings over the page's own parameters (or every known one) and random names:
    the nasty values, Unicode digits and numbers, and the valid value mutated."""
    names = sorted(params) or ALL_GET_NAMES
    value = st.one_of(
        st.sampled_from(NASTY),
        unicode_numbers,
        st.text(max_size=20),
        st.integers().map(str),
    )
    per_name = {}
    for name in names:
        valid = params.get(name)
        options = [value, st.lists(value, min_size=2, max_size=3)]
        if valid is not None:
            options += [st.just(valid), number_variants(valid) if valid.isdigit() else value]
        per_name[name] = st.one_of(*options)

    @st.composite
    def query(draw):
        chosen = draw(
            st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True)
        )
        data = {name: draw(per_name[name]) for name in chosen}
        if draw(st.integers(0, 4)) == 0:
            data[draw(st.text(min_size=1, max_size=8))] = draw(value)
        return data

    return query()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GET_TARGETS))
def test_get_parameters_survive_bad_input(world, name):
    entry = GET_TARGETS[name]
    score, role = best_expected(entry)
    if score == 9:
        print(f"\nGET {name}: POST only (405)")
        return
    url = entry["url"](world).split("?")[0]
    params = {k: (f(world) if f else None) for k, f in GET_PARAMS.get(name, {}).items()}
    examples = EXAMPLES if name in GET_PARAMS else OTHER_EXAMPLES
    tried = 0

    @settings(FUZZ_SETTINGS, max_examples=examples)
    @given(data=queries(params), htmx=st.booleans())
    def fuzz(data, htmx):
        nonlocal tried
        tried += 1
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        with transaction.atomic():
            client = world.client(role)
            before = fingerprint()
            response = client.get(f"{url}?{urlencode(data, doseq=True)}", **headers)
            what = f"GET {url} as {role} with {data!r:.300}"
            check_answer(response, before, what, allowed=expected_5xx(entry, role))
            transaction.set_rollback(True)

    fuzz()
    print(f"\nGET {url} fuzzed as {role}: {tried} queries over {sorted(params) or 'all'}")


# The answers of issue 18, kept as fixed examples: "²" passed str.isdigit() and then int()
# (or the database lookup) raised: 500. And "٣" (int() reads it) found record 3.
ISSUE_18_GETS = [
    (
        "classroom:login_cards",
        "student",
        lambda w: reverse("classroom:login_cards", args=[w.class_a.pk]),
        404,
    ),
    (
        "classroom:assignment_new",
        "again",
        lambda w: reverse("classroom:assignment_new", args=[w.class_a.pk]),
        404,
    ),
    ("classroom:invite_list", "new", lambda w: reverse("classroom:invite_list"), 200),
    (
        "classroom:class_report",
        "job",
        lambda w: reverse("classroom:class_report", args=[w.class_a.pk]),
        200,
    ),
    ("games:replay", "ply", lambda w: reverse("games:replay", args=[w.match_b.public_id]), 200),
]
ISSUE_18_ROLES = {"classroom:invite_list": "admin_a", "games:replay": "child_b"}


@pytest.mark.parametrize(
    ("name", "param", "url", "status"),
    ISSUE_18_GETS,
    ids=[f"{n}?{p}" for n, p, *_ in ISSUE_18_GETS],
)
def test_issue_18_numbers_in_query(world, name, param, url, status):
    client = world.client(ISSUE_18_ROLES.get(name, "teacher_a"))
    for value in ("²", "½", "①", "٣", "+1", " 1", "1 ", "9" * 30):
        response = client.get(url(world), {param: value})
        assert response.status_code == status, (name, param, value, response.status_code)


@pytest.mark.parametrize("name", ["classroom:login_cards", "classroom:assignment_new"])
def test_issue_18_unicode_digits_are_not_an_id(world, name):
    """The real id written in Arabic-Indic or fullwidth digits is not found (int() read it)."""
    param, pk = {
        "classroom:login_cards": ("student", world.child_a.pk),
        "classroom:assignment_new": ("again", world.assignment_a.pk),
    }[name]
    url = reverse(name, args=[world.class_a.pk])
    client = world.client("teacher_a")
    assert client.get(url, {param: str(pk)}).status_code == 200
    for digits in DIGIT_SETS[:4]:
        value = str(pk).translate(str.maketrans("0123456789", digits))
        assert client.get(url, {param: value}).status_code == 404, value


def test_issue_18_pictures_superscript(world):
    url = reverse("classroom:join_pictures", args=[world.class_a.code, world.child_a.pk])
    for pictures in (["²", "1", "2"], ["٠", "1", "2"], ["½"]):
        with transaction.atomic():
            before = fingerprint()
            response = world.client("anonymous").post(url, {"pictures": pictures})
            check_answer(response, before, f"POST {url} pictures={pictures}")
            assert response.status_code == 422
            transaction.set_rollback(True)
