import json
from io import StringIO

import pytest
from django.core.management import CommandError
from django.core.management import call_command


def run(*args) -> dict:
    out = StringIO()
    call_command("simulate", *args, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_simulate_prints_one_json_line_last():
    result = run("multiplipotion", "--games", "5", "--seed", "3", "--option", "tier=purple")
    assert set(result) == {
        "games",
        "finished",
        "draws",
        "mean_plies",
        "wins_by_seat",
        "games_per_s",
    }
    assert result["games"] == result["finished"] == 5
    assert sum(result["wins_by_seat"]) + result["draws"] == 5


def test_simulate_is_reproducible_but_for_speed():
    a = run("multiplipotion", "--games", "8", "--seed", "9", "--bots", "wizard,apprentice")
    b = run("multiplipotion", "--games", "8", "--seed", "9", "--bots", "wizard,apprentice")
    a.pop("games_per_s"), b.pop("games_per_s")
    assert a == b


@pytest.mark.parametrize(
    "args, message",
    [
        (["--option", "tier=pink"], "tier must be one of"),
        (["--option", "colour=red"], "unknown option"),
        (["--bots", "wizard,genius"], "unknown bot level"),
        (["--bots", "wizard"], "2 to 2 players"),
        (["--games", "0"], "at least 1"),
    ],
)
def test_simulate_rejects_bad_arguments_clearly(args, message):
    with pytest.raises(CommandError, match=message):
        run("multiplipotion", *args)


def test_simulate_focus_measures_the_coach_against_the_wizard():
    out = StringIO()
    call_command(
        "simulate", "multiplipotion", "--games", "20", "--seed", "4", "--focus", "7x8, 6X8,9×7",
        stdout=out,
    )  # fmt: skip
    lines = out.getvalue().strip().splitlines()
    result = json.loads(lines[-1])
    focus = result["focus"]
    assert focus["focus"] == [[7, 8], [6, 8], [9, 7]]
    assert focus["child_seat"] == 0 and focus["games"] == result["games"] == 20
    assert set(focus["ratio"]) == {"focus_monsters", "focus_chances", "focus_captures"}
    coach, wizard = focus["coach"], focus["wizard"]
    assert focus["ratio"]["focus_chances"] == round(
        coach["focus_chances"] / wizard["focus_chances"], 3
    )
    # The Coach's games are the ones the command played (apprentice against coach by default).
    assert coach["coach_seat_won"] == result["wins_by_seat"][1]
    text = "\n".join(lines[:-1])
    assert "child's turns with a capture by exactly a focus fact: Coach" in text
    assert f"ratio {focus['ratio']['focus_chances']:.2f}×" in text
    plain = run("multiplipotion", "--games", "20", "--seed", "4", "--bots", "apprentice,coach")
    assert "focus" not in plain and plain["mean_plies"] != result["mean_plies"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--focus", "7x"], "facts like 7x8"),
        (["--focus", "7x10"], "facts like 7x8"),
        (["--focus", "7x8,"], "facts like 7x8"),
        (["--focus", ""], "facts like 7x8"),
        (["--focus", "seven eights"], "facts like 7x8"),
        (["--focus", "7x8", "--bots", "wizard,wizard"], "exactly one seat the coach"),
        (["--focus", "7x8", "--bots", "coach,coach"], "exactly one seat the coach"),
    ],
)
def test_simulate_rejects_bad_focus_clearly(args, message):
    with pytest.raises(CommandError, match=message):
        run("multiplipotion", "--games", "1", *args)


def test_simulate_focus_is_for_multiplipotion_only():
    with pytest.raises(CommandError, match="multiplipotion only"):
        run("trono", "--games", "1", "--focus", "7x8")
