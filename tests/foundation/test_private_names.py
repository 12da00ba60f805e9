"""The lint check that keeps the project off the libraries' private names (.ci/private_names.py,
`make lint`): what it finds and what it leaves alone."""

import ast
import importlib.util
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[2] / ".ci" / "private_names.py"


@pytest.fixture(scope="module")
def checker():
    spec = importlib.util.spec_from_file_location("private_names", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


THEIRS = {"_unsign_cookie", "_fetch_mode", "_put", "_lock", "_result_cache", "_replace", "_meta"}


def found(checker, source: str, ours=frozenset({"_mine"})) -> set[str]:
    finder = checker.Finder("x.py", THEIRS, set(ours))
    finder.visit(ast.parse(source))
    return {name for _path, name, _line in finder.found}


@pytest.mark.parametrize(
    "source, names",
    [
        ("from django.core.signing import _unsign_cookie", {"_unsign_cookie"}),
        ("from django.core import signing\nsigning._unsign_cookie('x')", {"_unsign_cookie"}),
        ("import kombu._private", {"_private"}),
        ("qs = Thing.objects.all()\nqs._fetch_mode", {"_fetch_mode"}),
        ("match._result_cache = []", {"_result_cache"}),
        (
            "from kombu.transport import filesystem\n"
            "class C(filesystem.Channel):\n"
            "    def _put(self, q, m): return super()._put(q, m)\n",
            {"_put"},
        ),
        (
            "import redis\nclass P(redis.ConnectionPool):\n    _lock = None\n"
            "    def f(self): return self._lock\n",
            {"_lock"},
        ),
    ],
)
def test_it_finds_a_private_name_of_the_libraries(checker, source, names):
    assert found(checker, source) == names


@pytest.mark.parametrize(
    "source",
    [
        "class Mine:\n    def f(self): return self._lock\n",  # our own class's attribute
        "from classroom import knowledge\nknowledge._mine()",  # our own module's name
        "obj._mine",  # a name the project defines
        "Model._meta.get_field('x')",  # documented public
        "parts._replace(path='/')",  # a namedtuple's method
        "from django.db import models\nclass M(models.Model):\n    def _helper(self): ...\n",
    ],
)
def test_it_leaves_the_projects_own_and_public_names_alone(checker, source):
    assert found(checker, source) == set()
