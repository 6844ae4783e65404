"""The ``coach`` sub-command, called through its own parser (the lead wires it into the CLI)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.coach.command import register, run
from companion.rules import InvalidInputError


def _coach(capsys: pytest.CaptureFixture[str], cache: Path, *argv: str) -> Any:
    parser = argparse.ArgumentParser(prog="dice-companion")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["coach", "--cache-dir", str(cache), *argv])
    assert args.func is run
    assert args.func(args) == 0
    out = capsys.readouterr().out
    return json.loads(out) if "--json" in argv else out


def test_without_dice_it_gives_the_expected_final_score(
    capsys: pytest.CaptureFixture[str], coach_cache: Path
) -> None:
    result = _coach(capsys, coach_cache, "--game", "five-dice", "--json")
    assert result == {"game": "five-dice", "expected_final_score": pytest.approx(229.6384996)}
    assert abs(result["expected_final_score"] - 229.6384996) < 1e-6


def test_keeps_are_listed_best_first_with_the_stopping_boxes(
    capsys: pytest.CaptureFixture[str], coach_cache: Path
) -> None:
    result = _coach(capsys, coach_cache, "--game", "five-dice", "--dice", "6,6,6,6,6", "--json")
    assert result["choose"] == "keep"
    assert result["choices"][0]["keep"] == [6, 6, 6, 6, 6]
    values = [c["expected_final_score"] for c in result["choices"]]
    assert values == sorted(values, reverse=True)
    assert result["if_you_stop"][0]["category"] == "five_of_a_kind"


def test_after_the_last_roll_it_ranks_the_open_boxes(
    capsys: pytest.CaptureFixture[str], coach_cache: Path
) -> None:
    result = _coach(
        capsys,
        coach_cache,
        *("--game", "five-dice", "--dice", "1,2,3,4,5", "--roll", "3"),
        *("--filled", "large_straight=40", "--json"),
    )
    assert result["choose"] == "box"
    assert result["score_so_far"] == 40
    assert result["choices"][0]["category"] == "small_straight"
    assert all(c["category"] != "large_straight" for c in result["choices"])


def test_the_text_output_names_the_best_keep(
    capsys: pytest.CaptureFixture[str], coach_cache: Path
) -> None:
    out = _coach(capsys, coach_cache, "--game", "three-dice", "--dice", "6,6,6")
    lines = out.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("keep"))) + 1].split()[0] == (
        "6,6,6"
    )


def test_ten_dice_shows_the_turn_policy_by_default(
    capsys: pytest.CaptureFixture[str], coach_cache: Path
) -> None:
    result = _coach(
        capsys, coach_cache, "--game", "ten-dice", "--dice", "1,1,2,2,2,3,3,5,5,6", "--json"
    )
    assert result["throw"]["points"] == 300
    assert (result["turn_total"], result["dice_left"]) == (300, 5)
    assert result["policy"].startswith("turn:")
    assert {c["choice"] for c in result["choices"]} == {"bank", "throw"}
    assert "expected_points" in result["choices"][0]


def test_ten_dice_bust_and_horn(capsys: pytest.CaptureFixture[str], coach_cache: Path) -> None:
    bust = _coach(capsys, coach_cache, "--game", "ten-dice", "--dice", "1,4,6,6", "--json")
    assert bust["bust"] is True and bust["choices"] == []
    horn = _coach(
        capsys,
        coach_cache,
        *("--game", "ten-dice", "--dice", "4,4,4,5", "--turn-total", "1300", "--json"),
    )
    assert horn["around_the_horn"] is True and horn["banked"] == 1750
    assert horn["dice_left"] == 10


def test_with_scores_it_shows_the_chance_to_win(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A short game keeps the table quick; the command reads the target from the rules.
    import dataclasses

    from companion.rules import games

    short = dataclasses.replace(games.TEN_DICE, target=1000)
    monkeypatch.setitem(games.GAMES, "ten-dice", short)
    result = _coach(
        capsys,
        tmp_path,
        *("--game", "ten-dice", "--scores", "0,900", "--turn-total", "300", "--dice-left", "3"),
        "--json",
    )
    assert result["policy"].startswith("win:") and "1000" in result["policy"]
    assert result["scores"] == [0, 900]
    chances = [c["chance_to_win"] for c in result["choices"]]
    assert chances == sorted(chances, reverse=True)
    assert all(0 <= c <= 1 for c in chances)


@pytest.mark.parametrize(
    "argv",
    [
        ("--game", "five-dice", "--dice", "1,2,3"),
        ("--game", "five-dice", "--dice", "1,2,3,4,5", "--roll", "4"),
        ("--game", "five-dice", "--filled", "ones=7"),
        ("--game", "five-dice", "--scores", "0,0"),
        ("--game", "ten-dice", "--turn-total", "75", "--dice-left", "3"),
        ("--game", "ten-dice", "--filled", "ones=1"),
        ("--game", "chess"),
    ],
)
def test_bad_input_raises_a_rules_error(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str], coach_cache: Path
) -> None:
    with pytest.raises(InvalidInputError):
        _coach(capsys, coach_cache, *argv)


def test_registering_the_command_does_not_import_numpy() -> None:
    code = (
        "import sys, argparse; from companion.coach.command import register; "
        "register(argparse.ArgumentParser().add_subparsers()); print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_web_app_can_ask_with_plain_values(coach_cache: Path) -> None:
    from companion.coach.api import advice_json

    result = advice_json(
        "five-dice-bonus",
        dice=[6, 6, 6, 6, 6],
        roll=3,
        filled={"five_of_a_kind": 50},
        cache_dir=coach_cache,
    )
    assert result["choices"][0]["category"] == "sixes"
    assert result["choices"][0]["bonus"] == 100
    assert result["score_so_far"] == 50
