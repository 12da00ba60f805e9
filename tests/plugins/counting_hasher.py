"""A password hasher that counts how many passwords it hashes, in every thread: the tests'
fast MD5 hasher (tests/conftest.py), so the tests' users' passwords still verify. Django
hashes a password to check one, to set one, and for a name that matches no account (so that
the answer takes as long): every such hash is one ``encode``.

Use it with ``settings.PASSWORD_HASHERS = [HASHER]``; ``CountingHasher.reset()`` first."""

import threading

from django.contrib.auth.hashers import MD5PasswordHasher

HASHER = "counting_hasher.CountingHasher"


class CountingHasher(MD5PasswordHasher):
    calls = 0
    calls_lock = threading.Lock()

    @classmethod
    def reset(cls) -> None:
        with cls.calls_lock:
            cls.calls = 0

    def encode(self, password, salt):
        with CountingHasher.calls_lock:
            CountingHasher.calls += 1
        return super().encode(password, salt)
