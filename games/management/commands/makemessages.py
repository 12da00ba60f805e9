"""Django's makemessages, and the plural marker of the engines' event texts.

The engines cannot import Django, so they mark a text with a number with their own
``ngettext_noop(singular, plural)`` (games/engine/base.py); xgettext extracts both forms as one
plural entry when it is told the keyword, the way Django's documentation shows for extending
``xgettext_options``."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=ngettext_noop:1,2"]
