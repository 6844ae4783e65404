"""The score-sheet solver reproduces the published expected scores and a plain recursion."""

from __future__ import annotations

import dataclasses
from functools import cache
from itertools import combinations_with_replacement
from pathlib import Path

import pytest

from companion.coach.advice import expected_final_score
from companion.coach.boxsolver import box_model, build_table
from companion.coach.dicesets import dice_sets, multinomial_probability
from companion.rules import find_game, options
from companion.rules.games import (
    FIVE_DICE,
    THREE_DICE,
    BoxGame,
    Category,
    RepeatBonus,
    UpperBonus,
)
from companion.rules.scoring import face, fixed_if, n_of_a_kind, total


@pytest.mark.parametrize(
    ("game_id", "published"),
    [
        ("three-dice", 39.0252769),
        ("five-dice", 229.6384996),
        ("five-dice-bonus", 253.9702412),
    ],
)
def test_expected_score_from_the_start_matches_the_published_value(
    game_id: str, published: float, coach_cache: Path
) -> None:
    game = find_game(game_id)
    assert isinstance(game, BoxGame)
    assert expected_final_score(game, cache_dir=coach_cache) == pytest.approx(published, abs=1e-6)


def test_every_reachable_state_has_a_value_and_the_table_fits_in_ten_megabytes() -> None:
    table = build_table(FIVE_DICE)
    assert table.shape == box_model(FIVE_DICE).shape
    assert not (table != table).any()  # no NaN: without bonuses every mask is reachable
    assert table.nbytes <= 10_000_000


# A game small enough for a plain recursion over exact score sheets, with both bonuses: two
# dice, an upper bonus of 10 at 4 and +20 for each further pair while "pair" holds 50.
TINY = BoxGame(
    id="tiny",
    name="tiny",
    description="two dice, four boxes, both bonuses",
    seed="",
    dice_count=2,
    rolls_per_turn=2,
    categories=(
        Category("ones", "Ones", face(1), "", upper=True),
        Category("twos", "Twos", face(2), "", upper=True),
        Category("pair", "Pair", fixed_if(n_of_a_kind(2), 50), ""),
        Category("chance", "Chance", total(), ""),
    ),
    upper_bonus=UpperBonus(4, 10, ""),
    repeat_bonus=RepeatBonus("pair", 50, 20, ""),
)


def _plain_expected(game: BoxGame) -> float:
    """Expected final score by recursion over whole score sheets, scoring every choice with the
    rules engine's ``options`` (independent of the solver's state compression)."""
    n = game.dice_count

    def outcomes(kept: tuple[int, ...]) -> list[tuple[tuple[int, ...], float]]:
        rest = n - len(kept)
        return [
            (tuple(sorted(kept + r)), multinomial_probability(r))
            for r in combinations_with_replacement(range(1, 7), rest)
        ]

    @cache
    def start(sheet: tuple[tuple[str, int], ...]) -> float:
        if len(sheet) == len(game.categories):
            return 0.0
        return sum(p * after(sheet, r, game.rolls_per_turn - 1) for r, p in outcomes(()))

    @cache
    def after(sheet: tuple[tuple[str, int], ...], dice: tuple[int, ...], left: int) -> float:
        filled = dict(sheet)
        best = max(
            o.points + o.bonus + start(tuple(sorted({**filled, o.category: o.points}.items())))
            for o in options(game, dice, filled)
        )
        if left:
            for keep in dice_sets(n).sub_keeps(dice):
                value = sum(p * after(sheet, r, left - 1) for r, p in outcomes(keep))
                best = max(best, value)
        return best

    return start(())


def test_solver_agrees_with_a_plain_recursion_over_whole_score_sheets() -> None:
    table = build_table(TINY)
    assert float(table.reshape(-1)[0]) == pytest.approx(_plain_expected(TINY), abs=1e-9)


def test_tables_follow_the_declared_scores_not_hard_coded_formulas() -> None:
    richer_sixes = tuple(
        dataclasses.replace(c, scorer=face(6)) if c.id == "ones" else c
        for c in THREE_DICE.categories
    )
    changed = dataclasses.replace(THREE_DICE, categories=richer_sixes)
    before = float(build_table(THREE_DICE).reshape(-1)[0])
    assert float(build_table(changed).reshape(-1)[0]) > before
