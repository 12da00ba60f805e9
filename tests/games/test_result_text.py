"""The end of a MultipliPotion game, as each person at it reads it."""

from games.multiplipotion.presenter import result_text


def view(winners, trophies):
    return {"outcome": {"winners": winners}, "trophies": trophies}


NAMES = {0: "Ada", 1: "Apprentice Pip"}


def test_the_winner_is_cheered_and_the_loser_hears_what_they_won():
    me = {"seat": object(), "me": 0}
    assert result_text(view([0], [[1, 2, 3, 4, 5], [1]]), NAMES, me).startswith("You win!")
    lost = result_text(view([1], [[1, 2, 3], [1, 2, 3, 4, 5]]), NAMES, me)
    assert lost == "Apprentice Pip wins! You won 3 trophies. Well played: have another go!"
    one = result_text(view([1], [[1], [1, 2, 3, 4, 5]]), NAMES, me)
    assert "You won 1 trophy." in one
    # No "You won 0 trophies" for a child who won none.
    none = result_text(view([1], [[], [1, 2, 3, 4, 5]]), NAMES, me)
    assert none == "Apprentice Pip wins! Well played: have another go!"


def test_a_spectator_and_a_tie_get_no_cheer_of_their_own():
    watching = {"seat": None, "me": 0}
    assert result_text(view([1], [[1], [1, 2]]), NAMES, watching) == "Apprentice Pip wins!"
    assert "tie" in result_text(view([], [[1], [1]]), NAMES, {"seat": object(), "me": 0})
    assert result_text({"outcome": None}, NAMES, watching) == ""


def test_a_shared_muertoons_win_tells_each_winner():
    from games.muertoons.presenter import mu_result_text
    from games.presenters import names_and

    names = {0: "Ana", 1: "Ben", 2: "Cleo"}
    shared = {"outcome": {"winners": [0, 2]}}
    assert mu_result_text(shared, names, 0) == "You and Cleo reached the party together: you win!"
    assert mu_result_text(shared, names, 1) == "Ana and Cleo reached the party together and win!"
    assert names_and(["Ana", "Ben", "Cleo"]) == "Ana, Ben and Cleo"
    assert names_and(["Ana"]) == "Ana" and names_and([]) == ""


def test_the_gabi_gift_speaks_to_its_receiver():
    from types import SimpleNamespace

    from games.muertoons.presenter import mu_next_step

    view = {"outcome": None, "phase": "give", "give": {"giver": 0, "receiver": 1}}
    names = {0: "Ana", 1: "Ben", 2: "Cleo"}

    def ctx(number):
        return {"names": names, "handoff": None, "seat": SimpleNamespace(number=number)}

    assert mu_next_step(view, ctx(1), False, "") == "Ana is giving you a card."
    assert mu_next_step(view, ctx(2), False, "") == "Ana is giving Ben a card."
