"""Every named URL, requested as every role: the answer each role must get.

The entries live in tests/matrix/matrix_*.py, one file per area. A named URL with no entry
fails `test_every_url_has_an_entry`, so a new view cannot ship without its row.
"""

import importlib.util
from pathlib import Path

import pytest
from django.urls import URLPattern
from django.urls import URLResolver
from django.urls import get_resolver

from .conftest import ROLES

MATRIX_DIR = Path(__file__).parent / "matrix"
IGNORED_NAMESPACES = {"admin"}  # Django's admin has its own checks; see test_admin_is_staff_only


def load_entries() -> list[dict]:
    entries = []
    for path in sorted(MATRIX_DIR.glob("matrix_*.py")):
        spec = importlib.util.spec_from_file_location(f"matrix.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        entries.extend(module.ENTRIES)
    return entries


ENTRIES = load_entries()


def named_urls(resolver=None, namespace="") -> set[str]:
    names = set()
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            ns = pattern.namespace or ""
            if ns in IGNORED_NAMESPACES:
                continue
            prefix = f"{namespace}{ns}:" if ns else namespace
            names |= named_urls(pattern, prefix)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(namespace + pattern.name)
    return names


def test_every_url_has_an_entry():
    covered = {entry["name"] for entry in ENTRIES}
    missing = named_urls() - covered
    assert not missing, f"add these URLs to a tests/matrix/matrix_*.py file: {sorted(missing)}"


def test_every_entry_names_every_role():
    for entry in ENTRIES:
        assert set(entry["expect"]) == set(ROLES), entry["name"]


CASES = [(entry, role) for entry in ENTRIES for role in ROLES]


@pytest.mark.parametrize("entry, role", CASES, ids=[f"{e['name']}-{r}" for e, r in CASES])
def test_matrix(world, entry, role):
    client = world.client(role)
    url = entry["url"](world)
    method = entry.get("method", "get")
    data = entry["data"](world) if "data" in entry else {}
    response = getattr(client, method)(url, data)
    expected = entry["expect"][role]
    allowed = expected if isinstance(expected, tuple) else (expected,)
    assert response.status_code in allowed, (
        f"{method.upper()} {url} as {role}: {response.status_code}, expected {expected}"
    )


@pytest.mark.parametrize("role", ROLES)
def test_admin_is_staff_only(world, role):
    response = world.client(role).get("/admin/")
    assert response.status_code == (200 if role == "superuser" else 302)


def head_role(entry) -> str:
    """The role a page is meant for (the first that gets a 200), else the first role."""
    for role in ROLES:
        expected = entry["expect"][role]
        if 200 in (expected if isinstance(expected, tuple) else (expected,)):
            return role
    return ROLES[0]


HEAD_CASES = [(entry, head_role(entry)) for entry in ENTRIES if entry.get("method", "get") == "get"]


@pytest.mark.parametrize("entry, role", HEAD_CASES, ids=[f"{e['name']}-{r}" for e, r in HEAD_CASES])
def test_head_is_answered_wherever_get_is(world, entry, role):
    """Monitors and link checkers send HEAD: the status GET gets, and no body."""
    client = world.client(role)
    url = entry["url"](world)
    get = client.get(url)
    head = client.head(url)
    assert head.status_code == get.status_code, f"HEAD {url} as {role}: {head.status_code}"
    assert head.content == b""
    # HEAD changed nothing (a HEAD that took a form's POST path once deleted a child).
    assert client.get(url).status_code == get.status_code
