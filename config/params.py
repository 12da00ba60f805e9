"""What a request says, parsed in one place: whole numbers and the address to go back to.

``int_param`` is the only way a view turns a query parameter or a form field into a number.
Python's ``str.isdigit()`` is true for "²" and "½", and ``int()`` accepts "٣", "５", " 1",
"+1" and "1_000"; a number from a request here is ASCII digits only (no sign, no space), at
most 18 of them (below the 64-bit limit of every primary key), else ``None``: the view then
answers 404 or 422 with its own message.

``safe_next`` (and ``LocalNextMixin`` for Django's log-in and log-out views) is the only way a
view honours a ``next`` address: a path of this site ("/teacher/..."), never another host
("//evil.example", "/\\evil.example", "https://..."), and never a relative name such as
"cards", which ``redirect()`` would try as a URL name (``NoReverseMatch``, a 500 after the
action was saved).

Why not Django's own: ``forms.IntegerField`` (and a model field's lookup) takes "٣" for 3 and
" 1" for 1; ``url_has_allowed_host_and_scheme`` lets "cards" through. Both are used where they
fit (forms keep their fields; ``is_local_path`` ends with Django's check)."""

import re

from django.utils.http import url_has_allowed_host_and_scheme

DIGITS = re.compile(r"[0-9]{1,18}")
NEXT_MAX_LENGTH = 2000


def int_param(value, *, low: int | None = None, high: int | None = None) -> int | None:
    """``value`` (a string from ``request.GET`` or ``request.POST``) as an int, or ``None``
    when it is not 1 to 18 ASCII digits or lies outside ``low``..``high`` (both included)."""
    if not isinstance(value, str) or not DIGITS.fullmatch(value):
        return None
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        return None
    return number


def int_params(values, *, low: int | None = None, high: int | None = None) -> list[int] | None:
    """Every one of ``values`` (``request.POST.getlist(...)``) as an int, or ``None`` when any
    one of them is not a number ``int_param`` accepts."""
    numbers = [int_param(v, low=low, high=high) for v in values]
    return None if None in numbers else numbers


def is_local_path(value, request) -> bool:
    """True for a path of this site: one leading "/" (not "//" or "/\\", which browsers read
    as another host), no control character, and Django's own host and scheme check."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= NEXT_MAX_LENGTH
        and value.startswith("/")
        and not value.startswith(("//", "/\\"))
        and not any(ord(c) < 32 or ord(c) == 127 for c in value)
        and url_has_allowed_host_and_scheme(
            value, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    )


def safe_next(request, default: str) -> str:
    """The ``next`` address of the request (the form's field, else the query string's) when it
    is a path of this site, else ``default``."""
    value = request.POST.get("next") or request.GET.get("next") or ""
    return value if is_local_path(value, request) else default


class LocalNextMixin:
    """For Django's LoginView and LogoutView: their ``next`` through ``safe_next`` (they
    would redirect to "cards" or "./x" too; an empty answer means their default)."""

    def get_redirect_url(self, request=None):
        return safe_next(request or self.request, "")
