"""Properties of scoring that hold for every roll."""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.rules import GAMES, BoxGame, find_game, options, score_throw
from companion.rules.games import ThrowGame

BOX_GAMES = [g for g in GAMES.values() if isinstance(g, BoxGame)]
FIVE = [g for g in BOX_GAMES if g.dice_count == 5]


def reference(category: str, dice: tuple[int, ...]) -> int:
    """The categories written out longhand from the seeds, independently of the combinators."""
    c = Counter(dice)
    faces = ["ones", "twos", "threes", "fours", "fives", "sixes"]
    if category in faces:
        v = faces.index(category) + 1
        return v * c[v]
    most = max(c.values())
    values = set(dice)
    if category == "three_of_a_kind":
        return sum(dice) if most >= 3 else 0
    if category == "four_of_a_kind":
        return sum(dice) if most >= 4 else 0
    if category == "full_house":
        return 25 if sorted(c.values()) == [2, 3] else 0
    if category == "small_straight":
        runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
        return 30 if any(r <= values for r in runs) else 0
    if category == "large_straight":
        return 40 if values in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
    if category == "five_of_a_kind":
        return 50 if most == 5 else 0
    if category in ("choice", "chance"):
        return sum(dice)
    raise AssertionError(category)


@pytest.mark.parametrize("game", BOX_GAMES, ids=lambda g: g.id)
def test_every_category_matches_its_definition_on_every_multiset(game: BoxGame) -> None:
    rolls = list(combinations_with_replacement(range(1, 7), game.dice_count))
    assert len(rolls) == {3: 56, 5: 252}[game.dice_count]
    for dice in rolls:
        got = {o.category: o.points for o in options(game, dice)}
        assert got == {c.id: reference(c.id, dice) for c in game.categories}, dice


dice5 = st.lists(st.integers(1, 6), min_size=5, max_size=5)


@given(dice5, st.randoms(use_true_random=False))
def test_order_of_dice_never_matters(dice: list[int], rnd: object) -> None:
    shuffled = list(dice)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    for game in FIVE:
        a = [(o.category, o.points, o.bonus) for o in options(game, dice)]
        b = [(o.category, o.points, o.bonus) for o in options(game, shuffled)]
        assert a == b


@given(dice5)
def test_points_are_never_negative_and_choice_is_the_sum(dice: list[int]) -> None:
    for game in FIVE:
        opts = options(game, dice)
        assert all(o.points >= 0 and o.bonus >= 0 for o in opts)
        total = next(o for o in opts if o.category in ("choice", "chance"))
        assert total.points == sum(dice)


@given(dice5)
def test_options_are_listed_best_first(dice: list[int]) -> None:
    for game in FIVE:
        values = [o.points + o.bonus for o in options(game, dice)]
        assert values == sorted(values, reverse=True)


@given(st.lists(st.integers(1, 6), min_size=1, max_size=10), st.randoms(use_true_random=False))
def test_ten_dice_throw_is_order_free_and_accounts_for_every_die(
    dice: list[int], rnd: object
) -> None:
    game = find_game("ten-dice")
    assert isinstance(game, ThrowGame)
    t = score_throw(game, dice)
    shuffled = list(dice)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    u = score_throw(game, shuffled)
    assert (t.points, t.scoring, t.non_scoring) == (u.points, u.scoring, u.non_scoring)
    used = sorted([d for g in t.scoring for d in g] + list(t.non_scoring))
    assert used == sorted(dice)
    assert t.points >= 0 and t.bust == (t.points == 0)
    # single ones score nothing: the ones left over are those outside a triple
    assert t.non_scoring.count(1) == Counter(dice)[1] % 3
