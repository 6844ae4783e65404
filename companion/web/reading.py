"""A tray reading as JSON, and which dice of a photo were thrown.

``reading_json`` is the one place that turns a ``vision.result.TrayReading`` into the JSON
object of ``dice-companion read --json`` (and of ``POST /api/read``). ``thrown_dice`` decides,
for a roll, which dice of a photo are the ones just thrown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from companion.rules import InvalidInputError

if TYPE_CHECKING:
    from vision.result import TrayReading

#: Flags that send a die back for a free reroll.
REROLL_FLAGS = ("leaning", "off_tray")


def _round_point(p: Sequence[float]) -> list[float]:
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def _speech(reading: TrayReading) -> str:
    from vision.speech import speech_text

    return speech_text(reading)


def reading_json(reading: TrayReading, image_name: str) -> dict[str, Any]:
    """The JSON object of ``dice-companion read --json`` for one photo.

    Positions are pixels ``[x, y]`` of the photo as displayed (EXIF orientation applied);
    ``size`` is the die's side in pixels; ``tray`` is ``{"polygon": [[x, y], ...]}`` (the
    floor outline) or null;
    ``faces`` the values that count, ``reroll`` the indices of dice to roll again.
    """
    return {
        "image": image_name,
        "width": reading.width,
        "height": reading.height,
        "elapsed_ms": round(reading.elapsed_ms, 1),
        "tray": None
        if reading.tray is None
        else {"polygon": [_round_point(p) for p in reading.tray.polygon]},
        "dice": [
            {
                "value": d.value,
                "center": _round_point(d.center),
                "size": round(d.size_px, 1),
                "confidence": round(d.confidence, 3),
                "flags": list(d.flags),
                "evidence": list(d.evidence),
            }
            for d in reading.dice
        ],
        "faces": list(reading.faces),
        "reroll": list(reading.reroll),
        "speech": _speech(reading),
    }


def web_reading(reading: TrayReading, image_name: str) -> dict[str, Any]:
    """``reading_json`` plus, per die, its ``outline`` polygon (drawn over the photo) and
    ``where`` it lies in the photo ("top left", "middle", ...: the words the speech uses)."""
    from vision.speech import position_words

    out = reading_json(reading, image_name)
    for die_json, die in zip(out["dice"], reading.dice, strict=True):
        die_json["outline"] = [_round_point(p) for p in die.outline]
        die_json["where"] = position_words(die.center, reading.width, reading.height)
    return out


def needs_reroll(die: dict[str, Any]) -> bool:
    return any(f in REROLL_FLAGS for f in die.get("flags", ()))


def thrown_dice(
    dice: Sequence[dict[str, Any]], kept_values: Sequence[int], thrown: int
) -> tuple[list[int | None], list[int], list[int | None]]:
    """Which dice of a photo were thrown: ``(values, flagged, roles)``.

    ``dice`` are the reading's dice (dicts with ``value``, ``flags``, ``confidence``) in
    reading order; ``kept_values`` the values of the dice that stayed on the table (kept, set
    aside, or not flagged); ``thrown`` how many dice were thrown.

    The rule: a photo with exactly ``thrown`` dice shows only the thrown dice, in reading
    order. A photo with ``thrown + len(kept_values)`` dice shows every die: for each kept
    value, one die showing it is taken as the kept die (a die that is not flagged first, then
    the most confident, then the first in reading order); the others were thrown. Any other
    count is an error a player can act on.

    ``values`` are the thrown dice's values (None when unread), ``flagged`` the indices among
    them of leaning or fallen dice, ``roles[k]`` the index among the thrown dice of photo die
    ``k``, or None for a die taken as kept.
    """
    found = len(dice)
    total = thrown + len(kept_values)
    if found == 0:
        raise InvalidInputError("no dice were found in the photo: retake it or type the dice")
    roles: list[int | None]
    if found == thrown:
        roles = list(range(found))
    elif found == total:
        taken: set[int] = set()
        for value in kept_values:
            candidates = [
                k for k, d in enumerate(dice) if k not in taken and d.get("value") == value
            ]
            if not candidates:
                raise InvalidInputError(
                    f"the photo shows all {total} dice, but none of them reads {value}, the "
                    "value of a kept die: retake the photo, or type the dice thrown"
                )
            best = min(
                candidates,
                key=lambda k: (needs_reroll(dice[k]), -float(dice[k].get("confidence", 0)), k),
            )
            taken.add(best)
        roles, n = [], 0
        for k in range(found):
            if k in taken:
                roles.append(None)
            else:
                roles.append(n)
                n += 1
    else:
        expected = f"{thrown}" if thrown == total else f"{thrown} (the dice thrown) or {total}"
        shows = "1 die" if found == 1 else f"{found} dice"
        raise InvalidInputError(
            f"the photo shows {shows}, but {expected} were expected: retake the photo "
            "with every thrown die in view, or type the dice"
        )
    values: list[int | None] = [None] * thrown
    flagged: list[int] = []
    for k, role in enumerate(roles):
        if role is None:
            continue
        values[role] = dice[k].get("value")
        if needs_reroll(dice[k]):
            flagged.append(role)
    return values, flagged, roles
