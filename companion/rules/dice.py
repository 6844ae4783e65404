"""Validating and describing dice values."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from companion.rules.errors import InvalidInputError

Dice = tuple[int, ...]

WORDS = ("zero", "one", "two", "three", "four", "five", "six")
PLURALS = ("zeros", "ones", "twos", "threes", "fours", "fives", "sixes")


def parse_dice(values: Iterable[object]) -> Dice:
    """Return the values as a tuple of ints 1..6, or raise InvalidInputError naming the bad one."""
    out: list[int] = []
    for raw in values:
        if isinstance(raw, bool):
            raise InvalidInputError(f"a die shows a number from 1 to 6, not {raw!r}")
        if isinstance(raw, str):
            text = raw.strip()
            if not text.lstrip("-").isdigit():
                raise InvalidInputError(f"a die shows a number from 1 to 6, not {raw!r}")
            value = int(text)
        elif isinstance(raw, int):
            value = raw
        else:
            raise InvalidInputError(f"a die shows a number from 1 to 6, not {raw!r}")
        if not 1 <= value <= 6:
            raise InvalidInputError(f"a die shows a number from 1 to 6, not {value}")
        out.append(value)
    return tuple(out)


def parse_dice_text(text: str) -> Dice:
    """Parse ``"2,2,2,5,5"`` (commas or spaces) into dice."""
    parts = [p for p in text.replace(",", " ").split() if p]
    if not parts:
        raise InvalidInputError("no dice given: write the faces like 2,2,2,5,5")
    return parse_dice(parts)


def counts(dice: Dice) -> Counter[int]:
    return Counter(dice)


def show(dice: Iterable[int]) -> str:
    """``2,2,2,5,5`` as written in the rules."""
    return ",".join(str(d) for d in dice)


def parse_filled_text(text: str | None) -> dict[str, str]:
    """Parse ``"ones=3,five_of_a_kind=50"`` into box names and points, checked later."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        name, sep, points = part.partition("=")
        if not sep or not name.strip() or not points.strip():
            raise InvalidInputError(f"--filled takes CATEGORY=POINTS pairs, not {part.strip()!r}")
        out[name.strip()] = points.strip()
    return out
