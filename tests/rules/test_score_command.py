"""The ``dice-companion score`` and ``games`` commands."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from companion.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_games_lists_every_game_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "games")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "three-dice",
        "five-dice",
        "five-dice-bonus",
        "ten-dice",
    ]


def test_score_json_lists_open_categories_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "score", "--game", "five-dice-bonus", "--dice", "2,2,2,5,5", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["game"] == "five-dice-bonus" and data["dice"] == [2, 2, 2, 5, 5]
    first = data["options"][0]
    assert first == {**first, "category": "full_house", "points": 25, "bonus": 0}
    assert len(data["options"]) == 13
    assert set(first) == {"category", "points", "bonus", "reason"}


def test_score_json_for_one_category_with_filled_boxes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "--game",
        "five-dice-bonus",
        "--dice",
        "3 3 3 3 3",
        "--filled",
        "five_of_a_kind=50,ones=3",
        "--category",
        "threes",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    assert (data["category"], data["points"], data["bonus"]) == ("threes", 15, 100)


def test_filled_boxes_are_not_offered(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        capsys,
        "score",
        "--game",
        "five-dice",
        "--dice",
        "1,2,3,4,5",
        "--filled",
        "large_straight=40",
        "--json",
    )
    cats = [o["category"] for o in json.loads(out)["options"]]
    assert "large_straight" not in cats and cats[0] == "small_straight"


def test_ten_dice_scores_one_throw(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        capsys, "score", "--game", "ten-dice", "--dice", "1,1,2,2,2,3,3,5,5,6", "--json"
    )
    data = json.loads(out)
    assert {k: data[k] for k in ("points", "scoring", "non_scoring", "bust", "all_scored")} == {
        "points": 300,
        "scoring": [[2, 2, 2], [5], [5]],
        "non_scoring": [1, 1, 3, 3, 6],
        "bust": False,
        "all_scored": False,
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "five-dice", "--dice", "1,2,3,4,7"], "1 to 6"),
        (["--game", "five-dice", "--dice", "1,2,3,4"], "uses 5 dice"),
        (["--game", "ten-dice", "--dice", "1,2,3,4,5,6,1,2,3,4,5"], "1 to 10 dice"),
        (["--game", "yatzy", "--dice", "1,2,3,4,5"], "unknown game"),
        (["--game", "three-dice", "--dice", "1,2,3", "--category", "full_house"], "no category"),
        (
            [
                "--game",
                "five-dice",
                "--dice",
                "1,2,3,4,5",
                "--filled",
                "ones=1",
                "--category",
                "ones",
            ],
            "already filled",
        ),
        (["--game", "five-dice", "--dice", "1,2,3,4,5", "--filled", "ones=7"], "cannot hold"),
        (["--game", "five-dice", "--dice", "1,2,x,4,5"], "1 to 6"),
        (["--game", "five-dice", "--dice", "1,2,3,4,5", "--filled", "ones"], "CATEGORY=POINTS"),
    ],
)
def test_bad_input_is_one_line_on_stderr_with_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "score", *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_console_script_is_installed() -> None:
    exe = shutil.which("dice-companion") or str(
        __import__("pathlib").Path(sys.executable).with_name("dice-companion")
    )
    proc = subprocess.run(
        [exe, "score", "--game", "three-dice", "--dice", "4,4,4", "--category", "fours"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("fours: 12.")
