"""Pebbles: a game that exists only for the tests. It proves that a game is one folder and one
line: this package, and the line of tests/conftest.py that installs it as an app."""
