import pytest

from games.munchkin import engine as mk


@pytest.fixture
def dice(monkeypatch):
    """Every Munchkin die roll from this list, in order."""
    rolls: list[int] = []

    def fake(s):
        s["rng_n"] += 1
        return rolls.pop(0)

    monkeypatch.setattr(mk, "_roll", fake)
    return rolls
