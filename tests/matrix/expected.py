"""What the matrix_*.py files share: every role (in the order of tests/conftest.py's ROLES)
and the answers most pages give them."""

from django.urls import reverse

ALL = (
    "anonymous",
    "child_a",
    "child_b",
    "teacher_a",
    "teacher_b",
    "admin_a",
    "admin_b",
    "superuser",
)
NO_USER = ("anonymous", "child_a", "child_b")  # a child's session has no user
LOGIN = dict.fromkeys(NO_USER, 302)  # sent to the log-in page


def everyone(status):
    return dict.fromkeys(ALL, status)


def teacher_a_only(status):
    """A page of teacher_a's class (3A): not logged in as a grown-up (children too), 302 to
    log in; another teacher, a school admin or a superuser who does not teach it, 404."""
    return everyone(404) | LOGIN | {"teacher_a": status}


def pk_url(name, attr):
    """The URL `name` of the world's object `attr` (by its pk)."""
    return lambda w: reverse(name, args=[getattr(w, attr).pk])


def teacher_a_post(name, attr, status):
    """A POST to `name` for the world's `attr`, an object of teacher_a's class."""
    url = pk_url(name, attr)
    return {"name": name, "method": "post", "url": url, "expect": teacher_a_only(status)}
