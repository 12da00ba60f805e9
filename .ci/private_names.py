"""No module of the project imports, reads or overrides a private name of the servers and
frameworks it runs on (Django, asgiref, uvicorn, kombu, Celery, redis-py): those change
without notice between releases.

    python .ci/private_names.py        # `make lint` runs it; exit 1 with the places found

A private name is one starting with a single underscore. Found by reading the project's
source (every ``*.py`` outside ``.venv``, ``var`` and ``node_modules``) with ``ast``:

- ``from django.x import _name`` and ``import``s of a private module (``kombu._x``);
- ``module._name`` where ``module`` (or the object it starts from) was imported from one of
  those packages (``signing._unsign_cookie``, ``filesystem.Channel._delete``);
- in a class with a base imported from them, a method named ``_name`` (an override) and any
  ``self._name`` or ``super()._name`` that is also a name of those packages;
- ``anything._name`` where ``_name`` is a name of those packages' source and the project
  defines no such name itself (``queryset._fetch_mode``, ``match._prefetched_objects_cache``),
  except names their documentation makes public (``PUBLIC``).

``KNOWN`` lists the places that still do it, each with the issue that removes it: a place
found and not listed fails, and so does a listed place no longer found (the list only
shrinks). Why a checker of our own: ruff's SLF001 (private member access) flags every
``obj._x``, the project's own included, and knows nothing of the libraries' names.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIBRARIES = ("django", "asgiref", "uvicorn", "kombu", "celery", "redis")
SKIP_DIRS = {".venv", "var", "node_modules", ".git", "build", "dist"}
# Underscore names the libraries document as public (Django's Model._meta API and managers;
# a namedtuple's methods, which the standard library starts with an underscore on purpose).
PUBLIC = {
    "_meta",
    "_default_manager",
    "_base_manager",
    "_replace",
    "_asdict",
    "_fields",
    "_make",
    "_field_defaults",
}
# What still reaches into them, by file and name: issue 40 ("Stock servers, no patched
# framework") removes each of them.
KNOWN = {
    # the embedded broker's transport (kombu's filesystem Channel, subclassed)
    ("config/broker.py", "_delete"),
    ("config/broker.py", "_exchange_file"),
    ("config/broker.py", "_get"),
    ("config/broker.py", "_put"),
    ("config/broker.py", "_queue_bind"),
    # tests that read translation catalogues and the admin's registry
    ("tests/classroom/test_pages_in_languages.py", "_catalog"),
    ("tests/classroom/test_pages_in_languages.py", "_registry"),
    ("tests/classroom/test_school_admin_site.py", "_registry"),
    ("tests/games/test_munchkin_views.py", "_trans"),
    ("tests/plugins/catalogue_kit.py", "_catalog"),
    ("tests/plugins/catalogue_kit.py", "_translations"),
}

PRIVATE = re.compile(r"^_[A-Za-z0-9]\w*$")


def private(name: str) -> bool:
    return bool(PRIVATE.match(name)) and not name.endswith("__")


def library_names() -> set[str]:
    """Every private identifier in the libraries' source."""
    names: set[str] = set()
    word = re.compile(r"\b_[A-Za-z0-9]\w*")
    for package in LIBRARIES:
        loaded = sys.modules.get(package)  # (one imported already may have no __spec__)
        if loaded is not None:
            folders = list(getattr(loaded, "__path__", []))
        else:
            spec = importlib.util.find_spec(package)
            folders = list(spec.submodule_search_locations or []) if spec else []
        for folder in folders:
            for path in Path(folder).rglob("*.py"):
                found = word.findall(path.read_text(errors="replace"))
                names.update(n for n in found if private(n))
    return names


def project_files() -> list[Path]:
    return sorted(
        p for p in REPO.rglob("*.py") if not SKIP_DIRS.intersection(p.relative_to(REPO).parts[:-1])
    )


def own_names(trees: dict[Path, ast.Module]) -> set[str]:
    """The private names the project defines: functions, classes, module and class
    attributes, ``self._x`` of its own classes, parameters."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in {"self", "cls"}
            ):
                names.add(node.attr)
    return {n for n in names if private(n)}


def root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class Finder(ast.NodeVisitor):
    def __init__(self, path: str, theirs: set[str], ours: set[str]):
        self.path, self.theirs, self.ours = path, theirs, ours
        self.imported: set[str] = set()  # local names bound to the libraries
        self.found: set[tuple[str, str, int]] = set()
        self.library_class = False

    def add(self, name: str, node: ast.AST) -> None:
        self.found.add((self.path, name, node.lineno))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] in LIBRARIES:
                self.imported.add(alias.asname or parts[0])
                for part in parts:
                    if private(part):
                        self.add(part, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        parts = module.split(".")
        if node.level == 0 and parts[0] in LIBRARIES:
            for part in parts:
                if private(part):
                    self.add(part, node)
            for alias in node.names:
                self.imported.add(alias.asname or alias.name)
                if private(alias.name):
                    self.add(alias.name, node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer = self.library_class
        self.library_class = any(root_name(base) in self.imported for base in node.bases)
        if self.library_class:
            for item in node.body:
                method = isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                if method and private(item.name) and item.name in self.theirs:
                    self.add(item.name, item)  # overrides one of theirs
        self.generic_visit(node)
        self.library_class = outer

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = node.attr
        if private(name) and name not in PUBLIC:
            root = root_name(node.value)
            on_super = isinstance(node.value, ast.Call) and root == "super"
            if root in self.imported:
                self.add(name, node)
            elif root in {"self", "cls"} or on_super:
                if self.library_class and name in self.theirs:
                    self.add(name, node)
            elif name in self.theirs and name not in self.ours:
                self.add(name, node)
        self.generic_visit(node)


def main() -> int:
    files = project_files()
    trees = {p: ast.parse(p.read_text(), filename=str(p)) for p in files}
    theirs, ours = library_names(), own_names(trees)
    found: set[tuple[str, str, int]] = set()
    for path, tree in trees.items():
        finder = Finder(path.relative_to(REPO).as_posix(), theirs, ours)
        finder.visit(tree)
        found |= finder.found
    places = {(path, name) for path, name, _line in found}
    new = sorted((p, n, line) for p, n, line in found if (p, n) not in KNOWN)
    gone = sorted(KNOWN - places)
    for path, name, line in new:
        print(f"{path}:{line}: uses {name}, a private name of the libraries (or of Python's)")
    for path, name in gone:
        print(f"{path}: no longer uses {name}: take it out of KNOWN in .ci/private_names.py")
    if new or gone:
        return 1
    print(f"private names: {len(KNOWN)} known places (issue 40), nothing new")
    return 0


if __name__ == "__main__":
    sys.exit(main())
