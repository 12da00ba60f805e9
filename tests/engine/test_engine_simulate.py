import pytest

from games.engine import GAMES, simulate


def _stable(result):
    return {k: v for k, v in result.items() if k != "games_per_s"}


@pytest.mark.parametrize("slug", sorted(GAMES))
def test_simulate_runs_and_is_reproducible(slug):
    mod = GAMES[slug]
    bots = ["wizard" if "wizard" in mod.LEVELS else "random"] + ["random"] * (mod.MIN_PLAYERS - 1)
    a = simulate.run(slug, 12, 1000, {}, bots)
    b = simulate.run(slug, 12, 1000, {}, bots)
    assert _stable(a) == _stable(b)
    keys = {"games", "finished", "draws", "mean_plies", "wins_by_seat", "games_per_s"}
    assert set(a) == keys | ({"wins_by_label"} if hasattr(mod, "win_labels") else set())
    assert a["games"] == 12 and a["finished"] == 12
    assert sum(a["wins_by_seat"]) + a["draws"] >= a["finished"]
    assert len(a["wins_by_seat"]) == len(bots)
    assert a["mean_plies"] > 0 and a["games_per_s"] > 0


def test_simulate_game_i_uses_seed_plus_i():
    whole = simulate.run("multiplipotion", 4, 50, {"tier": "green"}, ["apprentice", "wizard"])
    parts = [
        simulate.run("multiplipotion", 1, 50 + i, {"tier": "green"}, ["apprentice", "wizard"])
        for i in range(4)
    ]
    assert [sum(p["wins_by_seat"][i] for p in parts) for i in (0, 1)] == whole["wins_by_seat"]
    assert sum(p["mean_plies"] for p in parts) / 4 == whole["mean_plies"]


def test_simulate_wizard_beats_random():
    r = simulate.run("multiplipotion", 60, 7, {}, ["wizard", "random"])
    assert r["wins_by_seat"][0] > r["wins_by_seat"][1]


@pytest.mark.parametrize("slug", ["trono", "mortadelo"])
def test_simulate_reports_wins_by_role_or_character(slug):
    mod = GAMES[slug]
    r = simulate.run(slug, 20, 3, {}, [mod.BEST_LEVEL] * 3)
    labels = r["wins_by_label"]
    assert sum(t["games"] for t in labels.values()) == 20 * 3
    assert sum(t["wins"] for t in labels.values()) == sum(r["wins_by_seat"])
    assert all(t["rate"] == round(t["wins"] / t["games"], 3) for t in labels.values())
    if slug == "trono":
        assert {"prince", "cardinal", "innkeeper"} <= set(labels)
