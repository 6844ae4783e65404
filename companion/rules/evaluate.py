"""What dice are worth: the open boxes of a sheet with points, bonus and reason; one throw of
the ten-dice game."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement

from companion.rules.dice import Dice, counts, parse_dice, show
from companion.rules.errors import IllegalActionError, InvalidInputError
from companion.rules.games import BoxGame, Category, ThrowGame


@dataclass(frozen=True)
class Option:
    """Filling ``category`` with the dice: ``points`` in the box, ``bonus`` beyond it."""

    category: str
    points: int
    bonus: int
    reason: str

    @property
    def value(self) -> int:
        return self.points + self.bonus


def check_dice(game: BoxGame | ThrowGame, values: Iterable[object]) -> Dice:
    """Parse dice and check their number for the game (a ten-dice throw may use fewer dice)."""
    dice = parse_dice(values)
    if isinstance(game, ThrowGame):
        if not 1 <= len(dice) <= game.dice_count:
            raise InvalidInputError(
                f"{game.id} throws 1 to {game.dice_count} dice, not {len(dice)}"
            )
    elif len(dice) != game.dice_count:
        raise InvalidInputError(f"{game.id} uses {game.dice_count} dice, not {len(dice)}")
    return dice


@cache
def possible_points(game: BoxGame, category_id: str) -> frozenset[int]:
    """Every score the box can hold, found by scoring every multiset of the game's dice."""
    scorer = game.category(category_id).scorer
    return frozenset(
        scorer.points(tuple(d)) for d in combinations_with_replacement(range(1, 7), game.dice_count)
    )


def check_filled(game: BoxGame, filled: Mapping[str, object]) -> dict[str, int]:
    """Canonical ids and int points for boxes already filled; impossible scores are refused."""
    out: dict[str, int] = {}
    for name, raw in filled.items():
        cat = game.category(name)
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise InvalidInputError(f"the points in {cat.id} must be a whole number, not {raw!r}")
        try:
            points = int(raw)
        except ValueError:
            raise InvalidInputError(
                f"the points in {cat.id} must be a whole number, not {raw!r}"
            ) from None
        if points not in possible_points(game, cat.id):
            raise InvalidInputError(f"{cat.id} cannot hold {points} points in {game.id}")
        if cat.id in out:
            raise InvalidInputError(f"{cat.id} is given twice")
        out[cat.id] = points
    return out


def _upper_total(game: BoxGame, filled: Mapping[str, int]) -> int:
    return sum(filled.get(c.id, 0) for c in game.categories if c.upper)


def _bonus(
    game: BoxGame, cat: Category, dice: Dice, points: int, filled: Mapping[str, int]
) -> tuple[int, list[str]]:
    bonus, why = 0, []
    ub = game.upper_bonus
    if ub is not None and cat.upper:
        before = _upper_total(game, filled)
        if before < ub.threshold <= before + points:
            bonus += ub.points
            why.append(
                f"it lifts the upper section from {before} to {before + points}, "
                f"reaching {ub.threshold} for the +{ub.points} bonus"
            )
    rb = game.repeat_bonus
    if rb is not None:
        repeat = game.category(rb.category)
        if filled.get(repeat.id) == rb.requires_points and repeat.scorer.points(dice) > 0:
            bonus += rb.points
            why.append(
                f"another {repeat.label} while that box holds {rb.requires_points} "
                f"earns {rb.points} bonus points"
            )
    return bonus, why


def score_category(
    game: BoxGame, dice: Iterable[object], category: str, filled: Mapping[str, object] = {}
) -> Option:
    """Points, bonus and reason for filling one box; IllegalActionError if it is filled."""
    roll = check_dice(game, dice)
    boxes = check_filled(game, filled)
    cat = game.category(category)
    if cat.id in boxes:
        raise IllegalActionError(
            f"{cat.label} is already filled with {boxes[cat.id]}; a filled box never reopens"
        )
    return _option(game, cat, roll, boxes)


def _option(game: BoxGame, cat: Category, dice: Dice, filled: Mapping[str, int]) -> Option:
    points = cat.scorer.points(dice)
    bonus, why = _bonus(game, cat, dice, points, filled)
    reason = f"{cat.label} scores {points} for {show(dice)}: {cat.scorer.fact(dice)}"
    if why:
        reason += ", and " + " and ".join(why)
    reason += f' (rule: "{cat.rule}")'
    return Option(cat.id, points, bonus, reason)


def options(
    game: BoxGame, dice: Iterable[object], filled: Mapping[str, object] = {}
) -> list[Option]:
    """Every open box with its points and bonus, best first (ties in sheet order)."""
    roll = check_dice(game, dice)
    boxes = check_filled(game, filled)
    opts = [_option(game, c, roll, boxes) for c in game.categories if c.id not in boxes]
    order = {c.id: i for i, c in enumerate(game.categories)}
    return sorted(opts, key=lambda o: (-o.value, order[o.category]))


@dataclass(frozen=True)
class ThrowScore:
    """One throw of the ten-dice game: the scoring groups set aside and the dice left over."""

    dice: Dice
    points: int
    scoring: tuple[tuple[int, ...], ...]
    non_scoring: Dice
    reason: str

    @property
    def bust(self) -> bool:
        return not self.scoring

    @property
    def all_scored(self) -> bool:
        return bool(self.scoring) and not self.non_scoring


def score_throw(game: ThrowGame, dice: Iterable[object]) -> ThrowScore:
    """Score one throw: triples within the throw first, then single dice outside a triple."""
    roll = check_dice(game, dice)
    have = counts(roll)
    triple_points = dict(game.triples)
    single_points = dict(game.singles)
    groups: list[tuple[int, ...]] = []
    parts: list[str] = []
    points = 0
    for value in sorted(have):
        for _ in range(have[value] // 3):
            groups.append((value,) * 3)
            points += triple_points[value]
            parts.append(f"{value}{value}{value} ({triple_points[value]})")
        have[value] %= 3
    for value in sorted(have):
        if value in single_points:
            for _ in range(have[value]):
                groups.append((value,))
                points += single_points[value]
                parts.append(f"{value} ({single_points[value]})")
            have[value] = 0
    rest = tuple(sorted(have.elements()))
    if groups:
        reason = f"{show(sorted(roll))} scores {points}: " + " + ".join(parts)
        if rest:
            reason += f"; {show(rest)} score nothing and are thrown again if you go on"
        else:
            reason += "; every die scored"
    else:
        reason = (
            f"{show(sorted(roll))} has no triple and no single five, so the throw scores nothing "
            "and the turn ends with no points"
        )
    return ThrowScore(roll, points, tuple(groups), rest, reason)
