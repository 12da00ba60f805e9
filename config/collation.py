"""Names in the order of a language's alphabet (docs/languages.md), with the Unicode Collation
Algorithm (pyuca, pure Python: its default table, DUCET) and CLDR's tailoring for Spanish,
where ñ is a letter of its own after n ("Nora" before "Ñoño"). English and Italian use the
table as it is: accents and case are second-order differences ("Óscar" next to "Oliver").

``sort_key`` keeps the first level of the algorithm (letters without accents or case), as
hexadecimal: stored in a column (``Student.sort_name``), it sorts the same in every database
collation, and two names with the same key are the same name to a child reading a list."""

from functools import cache

from pyuca import Collator

# CLDR's Spanish tailoring, "&N < ñ <<< Ñ": n followed by a combining tilde (ñ once the
# text is decomposed) is one letter, just after n.
TILDE = 0x0303


@cache
def collator(language: str) -> Collator:
    collator = Collator()
    if language == "es":
        n = collator.table.find_prefix([ord("n")])[1][0][0]
        collator.table.add([ord("n"), TILDE], [(n + 1, 0x20, 0x2)])
        collator.table.add([ord("N"), TILDE], [(n + 1, 0x20, 0x8)])
    return collator


def sort_key(text: str, language: str) -> str:
    """The first-level collation key of ``text`` in ``language``, as hexadecimal digits."""
    key = collator("es" if language == "es" else "root").sort_key(text)
    primary = key[: key.index(0)] if 0 in key else key
    return "".join(f"{weight:04x}" for weight in primary)


def by_name(objects, language: str, name=lambda o: o.name) -> list:
    """``objects`` (classes, groups, schools) in the order of their names in ``language``."""
    return sorted(objects, key=lambda o: sort_key(name(o), language))
