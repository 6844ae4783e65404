"""The coach's answers as plain JSON-ready objects, for the command and the web app.

Importing this module is cheap: numpy and the solvers are imported on the first call.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

from companion.rules import (
    BoxGame,
    ThrowGame,
    find_game,
    parse_dice_text,
    parse_filled_text,
    score_throw,
)
from companion.rules.errors import InvalidInputError
from companion.rules.evaluate import check_filled

TURN_POLICY = (
    "turn: maximise the expected points of this turn; a throw scoring every die banks and "
    "grants another turn, whose expected points are included"
)
WIN_POLICY = (
    "win: maximise the chance to win against one opponent who plays the same way (first to "
    "bank {target} wins; scores in steps of {step})"
)


def advice_json(
    game_id: str,
    *,
    dice: str | Sequence[object] | None = None,
    filled: str | Mapping[str, object] | None = None,
    roll: int = 1,
    bonus: int | None = None,
    turn_total: int = 0,
    dice_left: int | None = None,
    scores: str | Sequence[int] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Every choice with its value, best first, as one JSON-ready object.

    Score-sheet games: ``dice`` after roll ``roll`` (keeps, or boxes after the last roll), or
    without dice the expected final score before the turn. ten-dice: ``dice`` is the throw just
    made (``turn_total`` points before it), or without dice the state (``turn_total``,
    ``dice_left``); with ``scores`` (yours, the opponent's) the win policy, else the turn
    policy. Raises InvalidInputError (a ValueError) for input that does not fit the game.
    """
    game = find_game(game_id)
    if isinstance(dice, str):
        dice = parse_dice_text(dice)
    if isinstance(filled, str):
        filled = parse_filled_text(filled)
    if isinstance(scores, str):
        scores = _parse_scores(scores)
    if isinstance(game, ThrowGame):
        if filled or bonus is not None or roll != 1:
            raise InvalidInputError("ten-dice has no boxes, bonus or roll number: use --turn-total")
        return _throw_json(game, dice, turn_total, dice_left, scores, cache_dir)
    assert isinstance(game, BoxGame)
    if scores is not None or dice_left is not None or turn_total:
        raise InvalidInputError("--scores, --dice-left and --turn-total are for ten-dice")
    return _box_json(game, dice, dict(filled or {}), roll, bonus, cache_dir)


def _parse_scores(text: str) -> tuple[int, int]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise InvalidInputError(f"--scores takes two scores like 4500,6000, not {text!r}")
    return int(parts[0]), int(parts[1])


def _box_json(
    game: BoxGame,
    dice: Sequence[object] | None,
    filled: dict[str, object],
    roll: int,
    bonus: int | None,
    cache_dir: str | os.PathLike[str] | None,
) -> dict[str, Any]:
    from companion.coach.advice import advise, expected_final_score

    if dice is None:
        value = expected_final_score(game, filled, bonus=bonus, cache_dir=cache_dir)
        out: dict[str, Any] = {"game": game.id, "expected_final_score": value}
        if filled:
            out["filled"] = check_filled(game, filled)
        return out
    advice = advise(game, dice, roll, filled, bonus=bonus, cache_dir=cache_dir)
    boxes = [
        {
            "category": b.category,
            "points": b.points,
            "bonus": b.bonus,
            "expected_final_score": b.expected_final_score,
        }
        for b in advice.boxes
    ]
    out = {
        "game": game.id,
        "dice": list(advice.dice),
        "roll": advice.roll,
        "score_so_far": advice.score_so_far,
        "policy": "maximise the expected final score (solo play)",
    }
    if advice.keeps:
        out["choose"] = "keep"
        out["choices"] = [
            {"keep": list(k.keep), "expected_final_score": k.expected_final_score}
            for k in advice.keeps
        ]
        out["if_you_stop"] = boxes
    else:
        out["choose"] = "box"
        out["choices"] = boxes
    return out


def _throw_json(
    game: ThrowGame,
    dice: Sequence[object] | None,
    turn_total: int,
    given_left: int | None,
    scores: Sequence[int] | None,
    cache_dir: str | os.PathLike[str] | None,
) -> dict[str, Any]:
    from companion.coach import tendice

    if turn_total < 0:
        raise InvalidInputError(f"--turn-total must be >= 0, not {turn_total}")
    dice_left = given_left if given_left is not None else game.dice_count
    out: dict[str, Any] = {"game": game.id}
    if dice is not None:
        result = score_throw(game, dice)
        if given_left is not None and given_left != len(result.dice):
            raise InvalidInputError(
                f"--dice-left {given_left} but {len(result.dice)} dice were thrown"
            )
        out["throw"] = {
            "dice": list(result.dice),
            "points": result.points,
            "scoring": [list(g) for g in result.scoring],
            "non_scoring": list(result.non_scoring),
            "reason": result.reason,
        }
        if result.bust:
            out.update(bust=True, turn_total=0, choices=[])
            return out
        turn_total += result.points
        dice_left = len(result.non_scoring)
    if not 0 <= dice_left <= game.dice_count:
        raise InvalidInputError(f"--dice-left is 1 to {game.dice_count}, not {dice_left}")
    th = tendice.throws(game)
    if turn_total % th.step:
        raise InvalidInputError(f"a turn total is a multiple of {th.step}, not {turn_total}")
    horn = dice_left == 0
    if horn:
        # Around the horn: the turn total is banked and a fresh turn of all the dice begins.
        out["around_the_horn"] = True
        out["banked"] = turn_total
        dice_left = game.dice_count
    out["turn_total"] = 0 if horn else turn_total
    out["dice_left"] = dice_left
    start = dice_left == game.dice_count
    if start and not horn and turn_total:
        raise InvalidInputError(f"all {game.dice_count} dice are thrown only at a turn's start")
    if scores is None:
        policy = tendice.turn_policy(game)
        out["policy"] = TURN_POLICY
        bank, throw = policy.value(out["turn_total"], dice_left)
        if start:
            bank, throw = math.nan, policy.fresh_turn
        choices = [("bank", bank), ("throw", throw)]
        key = "expected_points"
        if horn:
            # The banked points count in this turn's expected points, with the fresh turn's.
            choices = [("throw", turn_total + policy.fresh_turn)]
    else:
        if len(scores) != 2:
            raise InvalidInputError(f"scores are two numbers, yours and the opponent's: {scores}")
        mine, theirs = int(scores[0]), int(scores[1])
        if horn:
            mine += turn_total
        for s in (mine, theirs):
            if s % th.step:
                raise InvalidInputError(f"a score is a multiple of {th.step}, not {s}")
        if max(mine, theirs) >= game.target:
            raise InvalidInputError(f"the game is over: {game.target} was reached")
        out["scores"] = [mine, theirs]
        out["policy"] = WIN_POLICY.format(target=game.target, step=th.step)
        choice = tendice.win_choice(
            game, mine, theirs, out["turn_total"], dice_left, cache_dir=cache_dir
        )
        choices = [("bank", choice.bank), ("throw", choice.throw)]
        key = "chance_to_win"
    ranked = sorted(((c, v) for c, v in choices if not math.isnan(v)), key=lambda cv: -cv[1])
    out["choices"] = [{"choice": c, key: v} for c, v in ranked]
    return out
