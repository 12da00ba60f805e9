"""Path converters: the shape of every id in a URL, checked before any view runs.

Django's resolver matches a path only when each of its arguments matches its converter's
regex; any other path answers 404 before a view, a query or the database sees it. Django's
``<str:...>`` takes anything but "/", NUL and control characters included, and PostgreSQL
refuses NUL in text: ``/play/%00/``, ``/invite/%00/`` and ``/join/badge/%00/`` reached a
lookup and answered 500 (security issue, item 6). So every id has a converter that matches
exactly what its generator makes (tests/foundation/test_converters.py makes thousands of each
and checks; tests/reliability/test_path_fuzz.py sends hostile values to every URL):

- ``id``: a primary key, 1 to 18 ASCII digits with no leading zero (below the 64-bit limit,
  as ``config.params.int_param``); the view gets an ``int``. (Django's ``<int:...>`` takes
  any number of digits: 4,000 of them reached the views.)
- ``public_id``: a match, 10 characters of ``PUBLIC_ID_ALPHABET``
  (``games.models.ids.new_public_id``).
- ``class_code``: a class code as a child may type it (``typed_code``): the characters of
  the code alphabet in either case, as many as a code has, each with at most one separator
  ("-", "_", ".", "·" or a space) before and after it. ``Classroom.normalize_code`` reads
  it so and the view redirects to the canonical spelling; a tab, a newline or any other
  control character is not a separator here.
- ``badge_token``: a child's QR badge, 24 characters of base64url
  (``classroom.models.roster.new_badge_token``: ``token_urlsafe(18)``).
- ``invite_token``: a grown-up's invite link, 32 characters of base64url
  (``classroom.models.school.new_invite_token``: ``token_urlsafe(24)``).

Each URL module registers the converters it uses (``register_converter``: classroom/urls.py,
games/urls.py). This module imports nothing of the classroom (the games' URLs import it, and
the games platform imports nothing of the classroom: the import-linter contract), so the
class-code converter is made by classroom/urls.py from the model's alphabet and lengths.

Django's own password-reset URL (config/urls.py) keeps Django's converters: its view decodes
and checks both arguments itself (the user id as a number), and the fuzz test covers it."""

import re
from collections.abc import Iterable

from games.models.ids import PUBLIC_ID_ALPHABET

PUBLIC_ID_LENGTH = 10  # games.models.ids.new_public_id
BASE64URL = "[A-Za-z0-9_-]"  # secrets.token_urlsafe: base64url, no "=" padding
BADGE_TOKEN_LENGTH = 24  # token_urlsafe(18): 18 bytes in 24 characters
INVITE_TOKEN_LENGTH = 32  # token_urlsafe(24): 24 bytes in 32 characters
# What Classroom.normalize_code drops from a typed code, less "/" (it ends a path segment)
# and every whitespace character but the plain space (tabs, newlines: control characters).
CODE_SEPARATORS = "-_.· "


class Text:
    """A converter whose value reaches the view as the text of the path."""

    regex: str

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value) -> str:
        return str(value)


class PrimaryKey:
    regex = "[1-9][0-9]{0,17}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(value)


class PublicId(Text):
    regex = f"[{re.escape(PUBLIC_ID_ALPHABET)}]{{{PUBLIC_ID_LENGTH}}}"


class BadgeToken(Text):
    regex = f"{BASE64URL}{{{BADGE_TOKEN_LENGTH}}}"


class InviteToken(Text):
    regex = f"{BASE64URL}{{{INVITE_TOKEN_LENGTH}}}"


def typed_code(alphabet: str, lengths: Iterable[int]) -> type[Text]:
    """The converter of a code people type: ``alphabet``'s characters in either case, as many
    as one of ``lengths``, each with at most one separator (``CODE_SEPARATORS``) before and
    after it."""
    letters = "".join(sorted(set(alphabet.upper() + alphabet.lower())))
    separator = f"[{re.escape(CODE_SEPARATORS)}]?"
    counts = sorted(set(lengths))
    if counts != list(range(counts[0], counts[-1] + 1)):
        raise ValueError(f"code lengths must follow each other: {counts}")
    repeat = f"{{{counts[0]},{counts[-1]}}}"

    class TypedCode(Text):
        regex = f"{separator}(?:[{re.escape(letters)}]{separator}){repeat}"

    return TypedCode
