"""config.converters: each converter matches exactly what its id's generator makes (security
issue, item 6: a NUL in ``/play/%00/`` reached PostgreSQL). Thousands of fresh ids of each kind
resolve to their view; anything else is refused by the resolver (404 before any view)."""

import random
import re

import pytest
from django.test import Client
from django.urls import NoReverseMatch
from django.urls import Resolver404
from django.urls import resolve
from django.urls import reverse

from classroom.models.roster import CODE_ALPHABET
from classroom.models.roster import CODE_LENGTHS
from classroom.models.roster import new_badge_token
from classroom.models.roster import new_class_code
from classroom.models.school import new_invite_token
from config import converters
from games.models.ids import new_public_id

MADE = 3000  # fresh ids of each kind
HOSTILE = ["\x00", "\x01", "\x7f", "\t", "\n", "٣", "３", "ñ", "..", "%00", "+"]


def resolves_to(path: str, name: str, **kwargs) -> bool:
    try:
        match = resolve(path)
    except Resolver404:
        return False
    return match.view_name == name and all(match.kwargs[k] == v for k, v in kwargs.items())


@pytest.mark.parametrize(
    ("make", "name", "argument", "template"),
    [
        (new_public_id, "games:play", "public_id", "/play/{}/"),
        (new_public_id, "games:move", "public_id", "/play/{}/move/"),
        (new_badge_token, "classroom:join_badge", "token", "/join/badge/{}/"),
        (new_invite_token, "classroom:invite_accept", "token", "/invite/{}/"),
        (new_class_code, "classroom:join_class", "code", "/join/{}/"),
    ],
)
def test_every_id_the_generator_makes_resolves(make, name, argument, template):
    for _ in range(MADE):
        value = make()
        assert resolves_to(template.format(value), name, **{argument: value}), value
        assert reverse(name, args=[value]) == template.format(value)


@pytest.mark.parametrize(
    ("make", "template"),
    [
        (new_public_id, "/play/{}/"),
        (new_badge_token, "/join/badge/{}/"),
        (new_invite_token, "/invite/{}/"),
        (new_class_code, "/join/{}/"),
    ],
)
def test_a_hostile_character_anywhere_in_an_id_is_refused(make, template):
    value = make()
    for bad in HOSTILE:
        for at in (0, len(value) // 2, len(value)):
            path = template.format(value[:at] + bad + value[at:])
            with pytest.raises(Resolver404):
                resolve(path)
        with pytest.raises(Resolver404):
            resolve(template.format(bad))
    # One character more or fewer is not an id either (a class code has two lengths:
    # test_class_codes_of_every_length_and_as_children_type_them).
    wrong = [value + value[-1], value * 20]
    if make is not new_class_code:
        wrong.append(value[:-1])
    for bad in wrong:
        with pytest.raises(Resolver404):
            resolve(template.format(bad))


def test_public_ids_are_lower_case_and_tokens_keep_their_case():
    public_id = "abcdefghjk"
    assert resolves_to(f"/play/{public_id}/", "games:play")
    with pytest.raises(Resolver404):
        resolve(f"/play/{public_id.upper()}/")
    with pytest.raises(Resolver404):
        resolve("/play/abcdefghil/")  # i and l are not in the alphabet
    assert resolves_to(f"/join/badge/{'aB-_' * 6}/", "classroom:join_badge")


def test_class_codes_of_every_length_and_as_children_type_them():
    """New codes have one length, classes made before keep theirs (CODE_LENGTHS); a child types
    the code in either case, with a dash, a dot or a space: the resolver lets the view read it
    (it redirects to the canonical spelling, tests/classroom/test_signin_flow.py)."""
    rng = random.Random(6)
    for length in CODE_LENGTHS:
        for _ in range(200):
            code = "".join(rng.choice(CODE_ALPHABET) for _ in range(length))
            assert resolves_to(f"/join/{code}/", "classroom:join_class", code=code)
            assert resolves_to(f"/join/{code}/7/", "classroom:join_pictures", code=code, pk=7)
            typed = f" {code[:3].lower()}-{code[3:]}."
            assert resolves_to(f"/join/{typed}/", "classroom:join_class", code=typed)
    code = "CDK37M"
    for typed in ("cdk37m", "CDK-37M", "c.d.k.3.7.m", "CDK 37M", "CDK·37M", "CDK_37M"):
        assert resolves_to(f"/join/{typed}/", "classroom:join_class", code=typed), typed
    short, long = min(CODE_LENGTHS) - 1, max(CODE_LENGTHS) + 1
    for bad in ("CDK370", "CDKO7M", "CDK17M", "CDKI7M", "CDKL7M", "CDK\t37M", "CDK--37M"):
        with pytest.raises(Resolver404):
            resolve(f"/join/{bad}/")
    for bad in ("C" * short, "C" * long, "badge"):
        with pytest.raises(Resolver404):
            resolve(f"/join/{bad}/")


def test_the_class_code_converter_takes_the_models_alphabet_and_lengths():
    regex = re.compile(converters.typed_code(CODE_ALPHABET, CODE_LENGTHS).regex)
    assert all(regex.fullmatch(c * min(CODE_LENGTHS)) for c in CODE_ALPHABET)
    assert not any(regex.fullmatch("O" * n) for n in CODE_LENGTHS)
    with pytest.raises(ValueError, match="follow each other"):
        converters.typed_code(CODE_ALPHABET, (6, 8))


@pytest.mark.parametrize("number", ["1", "7", "42", "100", "9" * 18])
def test_a_primary_key_is_ascii_digits(number):
    match = resolve(f"/teacher/classes/{number}/")
    assert match.kwargs == {"pk": int(number)}


@pytest.mark.parametrize(
    "number",
    ["0", "01", "007", "9" * 19, "9" * 5000, "٣", "３", "²", "+1", "-1", " 1", "1 ", "1_0"],
)
def test_anything_else_is_not_a_primary_key(number):
    for path in (f"/teacher/classes/{number}/", f"/me/play/{number}/", f"/join/CDK37M/{number}/"):
        with pytest.raises(Resolver404):
            resolve(path)


def test_reverse_refuses_what_the_resolver_would():
    with pytest.raises(NoReverseMatch):
        reverse("games:play", args=["a\x00b"])
    with pytest.raises(NoReverseMatch):
        reverse("classroom:class_detail", args=[0])
    assert reverse("classroom:class_detail", args=[12]) == "/teacher/classes/12/"


def test_a_code_typed_with_separators_is_sent_to_the_canonical_page(world):
    """What the converter lets through, the view reads (Classroom.normalize_code)."""
    code = world.class_a.code
    canonical = reverse("classroom:join_class", args=[code])
    for typed in (code.lower(), f"{code[:3]}-{code[3:]}", f" {code[:2]}.{code[2:]} "):
        response = Client().get(reverse("classroom:join_class", args=[typed]))
        assert (response.status_code, response["Location"]) == (302, canonical), typed
    assert Client().get(canonical).status_code == 200
    assert Client().get(f"/join/{code[:-1]}0/").status_code == 404  # 0 is no code's
