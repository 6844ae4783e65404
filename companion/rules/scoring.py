"""Scoring combinators: a category's score is built from a few small pieces, declared as data.

* ``face(n)``: add only the dice showing ``n``.
* ``sum_if(pattern)``: the sum of all dice when the pattern holds, else 0.
* ``fixed_if(pattern, points)``: fixed points when the pattern holds, else 0.
* ``total()``: the sum of all dice, no pattern.

Patterns: ``n_of_a_kind(n)``, ``full_house()``, ``straight(n)``.
Every scorer answers ``points(dice)`` and ``fact(dice)``, a clause saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from companion.rules.dice import PLURALS, WORDS, Dice, counts, show


class Pattern(Protocol):
    def holds(self, dice: Dice) -> bool: ...

    def describe(self) -> str: ...

    def witness(self, dice: Dice) -> str:
        """What in the dice makes the pattern hold, or what it has instead."""
        ...


def _group(n: int, value: int) -> str:
    return f"{WORDS[n]} {value}s" if n > 1 else f"one {value}"


@dataclass(frozen=True)
class NOfAKind:
    n: int

    def holds(self, dice: Dice) -> bool:
        return bool(dice) and max(counts(dice).values()) >= self.n

    def describe(self) -> str:
        if self.n == 5:
            return "all five dice matching"
        return f"at least {WORDS[self.n]} dice showing one number"

    def witness(self, dice: Dice) -> str:
        value, n = max(counts(dice).items(), key=lambda kv: (kv[1], kv[0]))
        if self.holds(dice):
            return f"it has {_group(n, value)}"
        return f"it has at most {WORDS[n]} alike"


@dataclass(frozen=True)
class FullHouse:
    def holds(self, dice: Dice) -> bool:
        return sorted(counts(dice).values()) == [2, 3]

    def describe(self) -> str:
        return "exactly three of one number and two of another"

    def witness(self, dice: Dice) -> str:
        groups = sorted(counts(dice).items(), key=lambda kv: (-kv[1], kv[0]))
        return "it has " + " and ".join(_group(n, v) for v, n in groups)


@dataclass(frozen=True)
class Straight:
    length: int

    def _longest(self, dice: Dice) -> tuple[int, int]:
        """Length and first value of the longest run of consecutive values."""
        values = set(dice)
        best = (0, 0)
        for start in sorted(values):
            if start - 1 in values:
                continue
            end = start
            while end + 1 in values:
                end += 1
            best = max(best, (end - start + 1, start))
        return best

    def holds(self, dice: Dice) -> bool:
        return self._longest(dice)[0] >= self.length

    def describe(self) -> str:
        return f"{WORDS[self.length]} consecutive numbers"

    def witness(self, dice: Dice) -> str:
        length, start = self._longest(dice)
        run = "-".join(str(v) for v in range(start, start + length))
        if self.holds(dice):
            return f"it has the run {run}"
        return f"its longest run is {run}" if length > 1 else "it has no two consecutive numbers"


def n_of_a_kind(n: int) -> NOfAKind:
    return NOfAKind(n)


def full_house() -> FullHouse:
    return FullHouse()


def straight(length: int) -> Straight:
    return Straight(length)


def _missing(pattern: NOfAKind | FullHouse | Straight, dice: Dice) -> str:
    """Why a pattern category scores zero: what it needs and what the dice have instead."""
    return f"it needs {pattern.describe()} and {pattern.witness(dice)}, so it scores zero"


def _sum_text(dice: Dice) -> str:
    return "+".join(str(d) for d in dice) + f" = {sum(dice)}"


@dataclass(frozen=True)
class Face:
    """Add only the dice showing ``value``."""

    value: int

    def points(self, dice: Dice) -> int:
        return self.value * dice.count(self.value)

    def fact(self, dice: Dice) -> str:
        n = dice.count(self.value)
        if n == 0:
            return (
                f"no die shows {WORDS[self.value]}, and only dice showing {WORDS[self.value]} count"
            )
        matching = tuple(d for d in dice if d == self.value)
        return f"only the {PLURALS[self.value]} count: {_sum_text(matching)}"


@dataclass(frozen=True)
class SumIf:
    """The sum of all dice when the pattern holds."""

    pattern: NOfAKind | FullHouse | Straight

    def points(self, dice: Dice) -> int:
        return sum(dice) if self.pattern.holds(dice) else 0

    def fact(self, dice: Dice) -> str:
        if self.pattern.holds(dice):
            return f"{self.pattern.witness(dice)}, so all the dice count: {_sum_text(dice)}"
        return _missing(self.pattern, dice)


@dataclass(frozen=True)
class FixedIf:
    """Fixed points when the pattern holds."""

    pattern: NOfAKind | FullHouse | Straight
    fixed: int

    def points(self, dice: Dice) -> int:
        return self.fixed if self.pattern.holds(dice) else 0

    def fact(self, dice: Dice) -> str:
        if self.pattern.holds(dice):
            return f"{self.pattern.witness(dice)}, worth a fixed {self.fixed}"
        return _missing(self.pattern, dice)


@dataclass(frozen=True)
class Total:
    """The sum of all dice, whatever they show."""

    def points(self, dice: Dice) -> int:
        return sum(dice)

    def fact(self, dice: Dice) -> str:
        return f"no pattern is needed, all the dice count: {_sum_text(dice)}"


Scorer = Face | SumIf | FixedIf | Total


def face(value: int) -> Face:
    return Face(value)


def sum_if(pattern: NOfAKind | FullHouse | Straight) -> SumIf:
    return SumIf(pattern)


def fixed_if(pattern: NOfAKind | FullHouse | Straight, points: int) -> FixedIf:
    return FixedIf(pattern, points)


def total() -> Total:
    return Total()


__all__ = [
    "Face",
    "FixedIf",
    "Scorer",
    "SumIf",
    "Total",
    "face",
    "fixed_if",
    "full_house",
    "n_of_a_kind",
    "show",
    "straight",
    "sum_if",
    "total",
]
