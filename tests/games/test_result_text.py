"""The end of a MultipliPotion game, as each person at it reads it."""

from games.presenters import result_text


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


def test_a_spectator_and_a_tie_get_no_cheer_of_their_own():
    watching = {"seat": None, "me": 0}
    assert result_text(view([1], [[1], [1, 2]]), NAMES, watching) == "Apprentice Pip wins!"
    assert "tie" in result_text(view([], [[1], [1]]), NAMES, {"seat": object(), "me": 0})
    assert result_text({"outcome": None}, NAMES, watching) == ""
