"""Best-play advice for the score-sheet games: the value of every keep and every open box.

Every value is an *expected final score*: the points already on the sheet (boxes and bonuses)
plus the expected points still to come when the player plays on optimally for the highest
expected total (solo play; opponents are not considered).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from companion.coach.boxsolver import (
    BoxModel,
    best_keep,
    box_model,
    box_values,
    build_table,
    keep_values,
)
from companion.coach.cache import load_or_build
from companion.coach.dicesets import FloatArray
from companion.rules.dice import Dice
from companion.rules.errors import IllegalActionError, InvalidInputError
from companion.rules.evaluate import check_dice, check_filled
from companion.rules.games import BoxGame

TABLE_KIND = "box"


@dataclass(frozen=True)
class KeepChoice:
    """Keep these dice (values, sorted) and roll the others; keeping all of them is stopping."""

    keep: tuple[int, ...]
    expected_final_score: float


@dataclass(frozen=True)
class BoxChoice:
    """Fill ``category`` now: ``points`` in the box, ``bonus`` beyond it, then play on."""

    category: str
    points: int
    bonus: int
    expected_final_score: float


@dataclass(frozen=True)
class BoxAdvice:
    """The choices for dice after roll ``roll``, best first.

    ``keeps`` lists every distinct set of dice to keep (empty after the last roll); ``boxes``
    lists every open box as if the player stopped with these dice now.
    """

    game: str
    dice: Dice
    roll: int
    score_so_far: int
    keeps: tuple[KeepChoice, ...]
    boxes: tuple[BoxChoice, ...]


@dataclass(frozen=True)
class _Position:
    mask: int
    total: int
    flag: int
    score_so_far: int
    filled: dict[str, int]


def load_table(game: BoxGame, *, cache_dir: str | os.PathLike[str] | None = None) -> FloatArray:
    """The game's table of expected future points per state (built and cached on first use)."""
    table, _ = load_or_build(
        game.id, TABLE_KIND, game, lambda: build_table(game), directory=cache_dir
    )
    return table


def _position(game: BoxGame, filled: Mapping[str, object], bonus: int | None) -> _Position:
    boxes = check_filled(game, filled)
    ids = [c.id for c in game.categories]
    mask = sum(1 << ids.index(cid) for cid in boxes)
    upper_total = sum(boxes.get(c.id, 0) for c in game.categories if c.upper)
    ub, rb = game.upper_bonus, game.repeat_bonus
    total = min(upper_total, ub.threshold) if ub is not None else 0
    flag = 0
    if rb is not None and boxes.get(game.category(rb.category).id) == rb.requires_points:
        flag = 1
    if bonus is None:
        bonus = ub.points if ub is not None and upper_total >= ub.threshold else 0
    elif isinstance(bonus, bool) or not isinstance(bonus, int) or bonus < 0:
        raise InvalidInputError(f"the bonus points must be a whole number >= 0, not {bonus!r}")
    return _Position(mask, total, flag, sum(boxes.values()) + bonus, boxes)


def _flat(model: BoxModel, pos: _Position) -> int:
    total = int(model.canonical_total(np.array([pos.mask]), np.array([pos.total]))[0])
    return int(model.flat_index(pos.mask, total, pos.flag))


def expected_final_score(
    game: BoxGame,
    filled: Mapping[str, object] = {},
    *,
    bonus: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> float:
    """Expected final score of the position before the turn's first roll.

    ``filled`` maps box ids to their points; ``bonus`` is the bonus already on the sheet
    (default: the upper bonus if the filled upper boxes reach its threshold; extra Five of a
    Kind bonuses cannot be seen from the boxes and must be given).
    """
    pos = _position(game, filled, bonus)
    table = load_table(game, cache_dir=cache_dir)
    return pos.score_so_far + float(table.reshape(-1)[_flat(box_model(game), pos)])


def advise(
    game: BoxGame,
    dice: Iterable[object],
    roll: int,
    filled: Mapping[str, object] = {},
    *,
    bonus: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> BoxAdvice:
    """Every keep (after roll 1 or 2) and every open box with its expected final score.

    ``roll`` is how many rolls of the turn have been used (1..rolls_per_turn); ``filled`` and
    ``bonus`` as in :func:`expected_final_score`. Raises InvalidInputError for bad dice, boxes
    or roll number, and IllegalActionError when every box is filled.
    """
    roll_dice = tuple(sorted(check_dice(game, dice)))
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= game.rolls_per_turn:
        raise InvalidInputError(
            f"the roll is a number from 1 to {game.rolls_per_turn}, not {roll!r}"
        )
    pos = _position(game, filled, bonus)
    model = box_model(game)
    if pos.mask == (1 << model.n_categories) - 1:
        raise IllegalActionError("every box is filled: the game is over for this player")
    table = load_table(game, cache_dir=cache_dir).reshape(-1)
    ds = model.dice
    mask = np.array([pos.mask], dtype=np.intp)
    total = np.array([pos.total], dtype=np.intp)
    flag = np.array([pos.flag], dtype=np.intp)
    r = ds.index[roll_dice] - ds.roll_offset
    repeat = model.repeat_points if model.n_flags == 2 and pos.flag and model.repeat_roll[r] else 0

    boxes: list[BoxChoice] = []
    last = np.full((len(ds.rolls), 1), -np.inf)
    for c, cat in enumerate(game.categories):
        if pos.mask >> c & 1:
            continue
        values = box_values(model, table, c, mask, total, flag)
        np.maximum(last, values, out=last)
        points = int(model.scores[c, r])
        upper_bonus = 0
        if cat.upper and model.n_upper_totals > 1:
            upper_bonus = model.upper_points * int(
                pos.total < model.threshold <= pos.total + points
            )
        boxes.append(
            BoxChoice(
                cat.id,
                points,
                upper_bonus + repeat,
                pos.score_so_far + repeat + float(values[r, 0]),
            )
        )
    if model.n_flags == 2 and pos.flag:
        last[model.repeat_rows] += model.repeat_points
    order = {c.id: i for i, c in enumerate(game.categories)}
    boxes.sort(key=lambda b: (-b.expected_final_score, order[b.category]))

    keeps: list[KeepChoice] = []
    if roll < game.rolls_per_turn:
        v = last
        for _ in range(game.rolls_per_turn - 1, roll, -1):
            v = best_keep(ds, keep_values(ds, v))
        e = keep_values(ds, v)
        keeps = [
            KeepChoice(k, pos.score_so_far + float(e[ds.index[k], 0]))
            for k in ds.sub_keeps(roll_dice)
        ]
        keeps.sort(key=lambda k: (-k.expected_final_score, -len(k.keep), k.keep))
    return BoxAdvice(game.id, roll_dice, roll, pos.score_so_far, tuple(keeps), tuple(boxes))
