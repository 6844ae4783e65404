"""Typed results of reading a tray photo: plain values only, no arrays."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Flags a die can carry. ``uncertain``: the face could not be read with confidence
#: (value is None). ``leaning``: the die does not rest flat on the floor.
#: ``off_tray``: the die's footprint lies outside the tray floor (rim, table).
FLAGS = ("uncertain", "leaning", "off_tray")

Point = tuple[float, float]


@dataclass(frozen=True)
class DieReading:
    """One die found in a photo.

    ``center`` is the centre of the face that was read, in pixels ``(x, y)`` of the
    image as displayed (EXIF orientation applied). ``size_px`` is the die's side in
    pixels. ``outline`` is the face's outline polygon ``((x, y), ...)`` for drawing.
    ``evidence`` says, per flag, why the die was flagged (one short sentence each).
    ``face_axes`` is the face's grid as its pips show it, for a face of four pips or more
    read by them: the image vectors (pixels) from one pip place to the next along the
    grid's two axes (a square face seen aslant, or tilted, shows a parallelogram).
    """

    value: int | None
    center: Point
    size_px: float
    confidence: float
    flags: tuple[str, ...] = ()
    outline: tuple[Point, ...] = ()
    evidence: tuple[str, ...] = ()
    face_axes: tuple[Point, Point] | None = None

    @property
    def needs_reroll(self) -> bool:
        return "leaning" in self.flags or "off_tray" in self.flags

    @property
    def counts(self) -> bool:
        """True when the die's value goes into the faces that score."""
        return not self.flags and self.value is not None


@dataclass(frozen=True)
class TrayOutline:
    """The tray floor found in the photo, as a polygon ``((x, y), ...)``."""

    polygon: tuple[Point, ...]


@dataclass(frozen=True)
class TrayReading:
    """Everything read from one photo. Dice are in reading order (top to bottom, left to right)."""

    width: int
    height: int
    elapsed_ms: float
    dice: tuple[DieReading, ...]
    tray: TrayOutline | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def faces(self) -> list[int]:
        return [d.value for d in self.dice if d.counts and d.value is not None]

    @property
    def reroll(self) -> list[int]:
        return [i for i, d in enumerate(self.dice) if d.needs_reroll]
