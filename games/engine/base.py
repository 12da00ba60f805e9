"""Shared pieces of the game-engine protocol (no Django, no global randomness)."""


class IllegalAction(Exception):
    """An action the rules do not allow.

    The message is a short sentence a 7-year-old understands, e.g. "It is not your turn yet.".
    """
