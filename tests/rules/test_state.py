"""The game state machine: turns, rolls, keeps, free rerolls, boxes, ten-dice turns, the end."""

from __future__ import annotations

import pytest

from companion.rules import (
    BoxState,
    IllegalActionError,
    InvalidInputError,
    ThrowState,
    new_game,
)


def box(game: str, players: tuple[str, ...] = ("Ann", "Bo"), **kw: bool) -> BoxState:
    state = new_game(game, players, **kw)
    assert isinstance(state, BoxState)
    return state


def ten(players: tuple[str, ...] = ("Ann", "Bo")) -> ThrowState:
    state = new_game("ten-dice", players)
    assert isinstance(state, ThrowState)
    return state


def test_seed_000_example_keep_both_fours_and_fill_fours_with_12() -> None:
    s = box("three-dice").roll([4, 3, 2]).roll([4, 2], keep=[0])
    assert s.dice == (4, 4, 2)
    s = s.roll([4], keep=[0, 1])
    assert s.dice == (4, 4, 4)
    s = s.score("fours")
    assert s.sheets[0].filled == {"fours": 12}
    assert s.player == "Bo" and s.rolls_used == 0 and s.dice == ()


def test_a_fourth_roll_is_not_allowed() -> None:
    s = box("three-dice").roll([1, 2, 3]).roll([1, 2, 3]).roll([1, 2, 3])
    with pytest.raises(IllegalActionError, match="all 3 rolls"):
        s.roll([1, 2, 3])


def test_scoring_before_rolling_is_not_allowed() -> None:
    with pytest.raises(IllegalActionError, match="must roll"):
        box("five-dice").score("choice")


def test_a_filled_box_never_reopens() -> None:
    s = box("three-dice", ("Ann",)).roll([4, 4, 4]).score("fours").roll([4, 4, 4])
    with pytest.raises(IllegalActionError, match="already filled"):
        s.score("fours")


def test_a_kept_die_may_be_returned_and_rerolled() -> None:
    s = box("three-dice").roll([6, 6, 1]).roll([2], keep=[0, 1])
    s = s.roll([3, 3, 3], keep=[])
    assert s.dice == (3, 3, 3) and s.rolls_used == 3


def test_wrong_number_of_thrown_values_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="3 are rolled"):
        box("three-dice").roll([1, 2])
    with pytest.raises(InvalidInputError, match="1 to 6"):
        box("three-dice").roll([1, 2, 7])


def test_leaning_die_is_rerolled_without_using_a_roll() -> None:
    s = box("three-dice").roll([4, 4, 2], flagged=[2])
    assert s.pending == (2,) and s.rolls_used == 1
    with pytest.raises(IllegalActionError, match="leaning or fallen"):
        s.score("fours")
    with pytest.raises(IllegalActionError):
        s.roll([1, 2, 3])
    s = s.reroll_flagged([5], flagged=[2])
    assert s.pending == (2,)
    s = s.reroll_flagged([4])
    assert s.dice == (4, 4, 4) and s.rolls_used == 1 and not s.pending
    assert s.can_roll() and s.can_score()


def test_correction_fixes_a_misread_die_before_scoring() -> None:
    s = box("three-dice").roll([4, 4, 2]).correct(2, 4)
    assert s.dice == (4, 4, 4)
    assert "corrected from 2 to 4" in s.last_event
    with pytest.raises(InvalidInputError):
        s.correct(3, 4)
    with pytest.raises(InvalidInputError):
        s.correct(0, 0)


def test_player_order_is_fixed_and_the_game_ends_after_six_circuits() -> None:
    s = box("three-dice", ("Ann", "Bo", "Cy"))
    order = []
    for face in ("ones", "twos", "threes", "fours", "fives", "sixes"):
        for _ in range(3):
            order.append(s.player)
            s = s.roll([1, 2, 3]).score(face)
    assert order == ["Ann", "Bo", "Cy"] * 6
    assert s.finished and s.totals() == (6, 6, 6)
    assert s.winners() == ("Ann", "Bo", "Cy")  # equal scores tie
    with pytest.raises(IllegalActionError, match="over"):
        s.roll([1, 2, 3])


def test_highest_total_wins() -> None:
    s = box("three-dice")
    for face, value in zip(
        ("ones", "twos", "threes", "fours", "fives", "sixes"), range(1, 7), strict=True
    ):
        s = s.roll([value] * 3).score(face)  # Ann scores everything
        s = s.roll([1, 1, 1] if value != 1 else [2, 2, 2]).score(face)
    assert s.finished and s.winners() == ("Ann",)
    assert s.totals() == (63, 0)


def _play_all_choice_into(s: BoxState, dice: list[int]) -> BoxState:
    cats = [c.id for c in s.game.categories]
    for cat in cats:
        for _ in s.players:
            s = s.roll(dice).score(cat)
    return s


def test_five_dice_tie_is_shared_without_the_tie_break_option() -> None:
    s = _play_all_choice_into(box("five-dice"), [1, 2, 3, 4, 5])
    assert s.finished and s.winners() == ("Ann", "Bo")


def test_five_dice_tie_break_is_one_extra_turn_comparing_the_dice_sum() -> None:
    s = _play_all_choice_into(box("five-dice", tiebreak=True), [1, 2, 3, 4, 5])
    assert s.phase == "tiebreak" and s.player == "Ann"
    with pytest.raises(IllegalActionError):
        s.score("choice")
    s = s.roll([6, 6, 6, 1, 1]).roll([6, 6], keep=[0, 1, 2]).stand()
    assert s.player == "Bo"
    s = s.roll([5, 5, 5, 5, 5]).stand()
    assert s.finished and s.winners() == ("Ann",)
    assert s.to_dict()["tiebreak_sums"] == {"Ann": 30, "Bo": 25}


def test_tie_break_option_exists_only_where_the_seed_allows_it() -> None:
    with pytest.raises(InvalidInputError, match="tie-break"):
        new_game("three-dice", ["Ann", "Bo"], tiebreak=True)


def test_player_counts_follow_the_seeds() -> None:
    new_game("three-dice", ["Ann"])
    with pytest.raises(InvalidInputError, match="2 to 8"):
        new_game("ten-dice", ["Ann"])
    with pytest.raises(InvalidInputError, match="1 to 8"):
        new_game("five-dice", [f"P{i}" for i in range(9)])
    with pytest.raises(InvalidInputError, match="same name"):
        new_game("five-dice", ["Ann", "ann"])


def test_upper_bonus_and_extra_five_of_a_kind_enter_the_sheet() -> None:
    s = box("five-dice-bonus", ("Ann",))
    s = s.roll([6, 6, 6, 6, 6]).score("five_of_a_kind")
    s = s.roll([6, 6, 6, 6, 6]).score("sixes")
    sheet = s.sheets[0]
    assert sheet.filled == {"five_of_a_kind": 50, "sixes": 30}
    assert sheet.bonus == 100 and sheet.total == 180
    for face, v in (("fives", 5), ("fours", 4)):
        s = s.roll([v, v, v, v, 1]).score(face)
    assert s.sheets[0].bonus == 135  # 30 + 20 + 16 = 66 reached 63


# -- ten-dice ------------------------------------------------------------------------------


def test_ten_dice_example_1_scoring_then_stopping_keeps_900() -> None:
    s = ten().roll([1, 1, 2, 2, 2, 3, 3, 5, 5, 6])
    assert s.turn_total == 300 and s.dice_left == 5
    s = s.roll([1, 4, 6, 6, 6])
    assert s.turn_total == 900 and s.dice_left == 2
    s = s.bank()
    assert s.scores == (900, 0) and s.player == "Bo" and s.dice_left == 10


def test_ten_dice_example_2_a_throw_without_points_loses_the_turn() -> None:
    s = ten().roll([1, 1, 1, 2, 2, 3, 4, 4, 4, 6])
    assert s.turn_total == 1400 and s.dice_left == 4
    s = s.roll([1, 1, 4, 6])
    assert s.scores == (0, 0) and s.player == "Bo" and s.turn_total == 0
    assert s.last_throw is not None and s.last_throw.bust
    assert "1400 points lost" in s.last_event


def test_ten_dice_example_3_fives_from_separate_throws_are_not_a_triple() -> None:
    s = ten().roll([1, 1, 2, 2, 2, 3, 3, 5, 5, 6]).roll([1, 4, 5, 6, 6])
    assert s.turn_total == 350 and s.dice_left == 4
    s = s.roll([3, 5, 5, 5])
    assert s.turn_total == 850 and s.dice_left == 1
    assert s.bank().scores == (850, 0)


def test_ten_dice_example_4_going_around_the_horn_banks_and_gives_another_turn() -> None:
    s = ten().roll([1, 1, 1, 2, 2, 3, 3, 3, 6, 6]).roll([4, 4, 4, 5])
    assert s.scores == (1750, 0)
    assert s.player == "Ann" and s.dice_left == 10 and s.turn_total == 0
    assert "around the horn" in s.last_event


def test_ten_dice_must_throw_exactly_the_dice_left_and_cannot_keep() -> None:
    s = ten().roll([1, 1, 2, 2, 2, 3, 3, 5, 5, 6])
    with pytest.raises(InvalidInputError, match="throws 5 dice"):
        s.roll([1, 2, 3])
    with pytest.raises(IllegalActionError, match="no die can be kept"):
        s.roll([1, 2, 3, 4, 6], keep=[0])


def test_ten_dice_banking_nothing_is_not_allowed() -> None:
    with pytest.raises(IllegalActionError, match="no points"):
        ten().bank()


def test_ten_dice_game_ends_as_soon_as_a_banked_score_reaches_10000() -> None:
    s = ten()
    s = ThrowState(s.game, s.players, (9_800, 9_950), current=0)
    s = s.roll([5, 5, 5, 2, 2, 3, 3, 4, 4, 6]).bank()
    assert s.finished and s.winners() == ("Ann",) and s.scores == (10_300, 9_950)
    with pytest.raises(IllegalActionError, match="over"):
        s.roll([1] * 10)


def test_ten_dice_flagged_die_is_thrown_again_before_the_throw_counts() -> None:
    s = ten().roll([1, 1, 2, 2, 2, 3, 3, 5, 5, 6], flagged=[9])
    assert s.pending == (9,) and s.turn_total == 0
    with pytest.raises(IllegalActionError):
        s.bank()
    s = s.reroll_flagged([5])  # 5,5 and the rethrown 5 make a triple of one throw
    assert s.turn_total == 700 and s.dice_left == 4


def test_ten_dice_correcting_the_latest_throw_scores_it_again() -> None:
    s = ten().roll([1, 1, 2, 2, 2, 3, 3, 5, 5, 6]).roll([1, 1, 4, 6, 6])
    assert s.player == "Bo"  # read as a bust
    s = s.correct(2, 5)  # the 4 was a 5
    assert s.player == "Ann" and s.turn_total == 350 and s.dice_left == 4
