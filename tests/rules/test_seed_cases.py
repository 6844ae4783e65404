"""Every worked example of the seeds, as a case table (cases.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.rules import find_game, score_category, score_throw
from companion.rules.games import BoxGame, ThrowGame

CASES = json.loads((Path(__file__).parent / "cases.json").read_text())


def _id(case: dict[str, Any]) -> str:
    return f"{case.get('game', 'ten-dice')}-{case['dice']}-{case.get('category', '')}"


@pytest.mark.parametrize("case", CASES["box"], ids=_id)
def test_box_category_scores_as_the_seed_says(case: dict[str, Any]) -> None:
    game = find_game(case["game"])
    assert isinstance(game, BoxGame)
    opt = score_category(game, case["dice"], case["category"], case.get("filled", {}))
    assert (opt.points, opt.bonus) == (case["points"], case.get("bonus", 0)), case.get("note")
    assert opt.reason.startswith(game.category(case["category"]).label)


@pytest.mark.parametrize("case", CASES["throw"], ids=_id)
def test_ten_dice_throw_scores_as_the_seed_says(case: dict[str, Any]) -> None:
    game = find_game("ten-dice")
    assert isinstance(game, ThrowGame)
    t = score_throw(game, case["dice"])
    assert t.points == case["points"]
    assert [list(g) for g in t.scoring] == case["scoring"]
    assert list(t.non_scoring) == case["non_scoring"]
    assert (t.bust, t.all_scored) == (case["bust"], case["all_scored"])
