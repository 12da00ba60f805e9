import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


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
