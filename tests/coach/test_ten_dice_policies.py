"""ten-dice: transitions from the rules, the turn policy and the two-player win table."""

from __future__ import annotations

import dataclasses
from functools import cache
from math import factorial
from pathlib import Path

import numpy as np
import pytest

from companion.coach import tendice
from companion.rules.games import TEN_DICE, ThrowGame


def test_throw_outcomes_come_from_the_rules_and_sum_to_one() -> None:
    th = tendice.throws(TEN_DICE)
    assert th.step == 50
    for n in range(1, 11):
        assert sum(p for _, _, p in th.outcomes[n]) + th.bust[n] == pytest.approx(1.0)
        assert all(1 <= k <= n for k, _, _ in th.outcomes[n])
    assert th.bust[1] == pytest.approx(5 / 6)  # only a five scores alone
    ((k, d, p),) = th.outcomes[1]
    assert (k, d) == (1, 1)
    assert p == pytest.approx(1 / 6)
    # Ten dice bust only as two each of 1, 2, 3, 4 and 6.
    assert th.bust[10] == pytest.approx(factorial(10) / 2**5 / 6**10)


def test_one_die_is_worth_throwing_while_the_horn_pays_more_than_the_risk() -> None:
    policy = tendice.turn_policy(TEN_DICE)
    for total in (0, 50, 150, 200, 1000):
        bank, throw = policy.value(total, 1)
        # A five (1 in 6) scores 50 and goes around the horn: banked plus a fresh turn.
        assert throw == pytest.approx((total + 50 + policy.fresh_turn) / 6)
        assert bank == total


def test_a_fresh_turn_is_worth_its_own_first_throw() -> None:
    policy = tendice.turn_policy(TEN_DICE)
    assert policy.fresh_turn == pytest.approx(float(policy.throw_value[10, 0]), abs=1e-9)
    assert 500 < policy.fresh_turn < 1500


def test_with_many_points_at_stake_and_few_dice_the_turn_policy_banks() -> None:
    policy = tendice.turn_policy(TEN_DICE)
    bank, throw = policy.value(3000, 3)
    assert bank > throw
    bank, throw = policy.value(300, 5)
    assert throw > bank


SMALL = dataclasses.replace(TEN_DICE, target=400)


def _plain_win(game: ThrowGame) -> dict[tuple[int, int], float]:
    """Value iteration over whole states (scores, turn total, dice left) in plain Python."""
    th = tendice.throws(game)
    size = game.target // th.step
    n_all = game.dice_count
    win = {(i, j): 0.5 for i in range(size) for j in range(size)}
    for _ in range(500):

        def pair(i: int, j: int, win: dict[tuple[int, int], float] = win) -> float:
            busted = 1.0 - win[(j, i)]

            @cache
            def held(u: int, n: int) -> float:
                if u >= size:
                    return 1.0
                if n == 0:
                    return win[(u, j)]
                return max(1.0 - win[(j, u)], throw(u, n))

            def throw(u: int, n: int) -> float:
                return th.bust[n] * busted + sum(
                    p * held(u + d, n - k) for k, d, p in th.outcomes[n]
                )

            return throw(i, n_all)

        new = {key: pair(*key) for key in win}
        change = max(abs(new[k] - win[k]) for k in win)
        win = new
        if change < 1e-14:
            break
    return win


def test_the_win_table_matches_plain_value_iteration_on_a_short_game() -> None:
    table = tendice.build_win_table(SMALL)
    plain = _plain_win(SMALL)
    for (i, j), value in plain.items():
        assert table[i, j] == pytest.approx(value, abs=1e-10)


def test_win_chances_grow_with_the_own_score_and_favour_the_player_to_move() -> None:
    table = tendice.build_win_table(dataclasses.replace(TEN_DICE, target=1500))
    assert ((table >= 0) & (table <= 1)).all()
    assert (np.diff(table, axis=0) >= -1e-12).all()
    assert (np.diff(table, axis=1) <= 1e-12).all()
    assert table[0, 0] > 0.5


def test_win_choice_compares_banking_and_throwing(tmp_path: Path) -> None:
    game = dataclasses.replace(TEN_DICE, target=1500)
    # Far behind, a small turn total is not worth banking; close to the target it is.
    behind = tendice.win_choice(game, 0, 1400, 300, 4, cache_dir=tmp_path)
    assert behind.throw > behind.bank
    winning = tendice.win_choice(game, 1000, 0, 500, 2, cache_dir=tmp_path)
    assert winning.bank == 1.0
    assert np.isnan(winning.throw)
    start = tendice.win_choice(game, 0, 0, 0, 10, cache_dir=tmp_path)
    assert start.throw == pytest.approx(float(tendice.win_table(game, cache_dir=tmp_path)[0, 0]))


@pytest.mark.slow
def test_the_full_game_to_ten_thousand_favours_the_first_player(tmp_path: Path) -> None:
    table = tendice.win_table(TEN_DICE, cache_dir=tmp_path)
    assert table.shape == (200, 200)
    assert 0.5 < table[0, 0] < 0.65
