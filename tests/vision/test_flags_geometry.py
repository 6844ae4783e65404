"""The tray flags' geometry on drawn trays: the floor outline refit, supports and leaning."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision import flags
from vision._tray import refine_quad
from vision.flags import apply_flags
from vision.result import DieReading

Image = npt.NDArray[np.uint8]
TABLE = (150, 150, 150)
WALL = (40, 40, 160)
FLOOR = (60, 120, 40)
SIDE = 30.0


def _tray(shadow_px: int = 0) -> Image:
    """A box tray seen from straight above; ``shadow_px`` of floor along the top wall is
    in deep shade (the floor's colour at a third of its brightness)."""
    rng = np.random.default_rng(3)
    img = np.empty((600, 800, 3), np.uint8)
    img[:] = TABLE
    cv2.rectangle(img, (150, 100), (650, 500), WALL, -1)
    cv2.rectangle(img, (180, 130), (620, 470), FLOOR, -1)
    if shadow_px:
        shade = tuple(c // 3 for c in FLOOR)
        cv2.rectangle(img, (180, 130), (620, 130 + shadow_px), shade, -1)
    return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def _square(img: Image, x: float, y: float, side: float, colour: tuple[int, int, int]) -> None:
    h = side / 2
    cv2.rectangle(img, (round(x - h), round(y - h)), (round(x + h), round(y + h)), colour, -1)


def _die(img: Image, x: float, y: float) -> DieReading:
    """A white five seen from straight above, and its reading (no outline: turn unknown)."""
    _square(img, x, y, SIDE, (235, 235, 235))
    step = 0.27 * SIDE
    for gx, gy in ((-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)):
        cv2.circle(img, (round(x + gx * step), round(y + gy * step)), 3, (20, 20, 20), -1)
    return DieReading(value=5, center=(x, y), size_px=SIDE, confidence=1.0)


def _floor_lab() -> tuple[float, float, float]:
    px = np.array([[FLOOR]], np.uint8)
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0]
    return (float(lab[0]), float(lab[1]), float(lab[2]))


def test_a_floor_side_is_moved_out_over_the_floor_in_shade() -> None:
    img = _tray(shadow_px=30)
    found = np.array([[180, 160], [620, 160], [620, 470], [180, 470]], np.float64)
    refined = refine_quad(img, found, SIDE, _floor_lab())
    top = min(refined[:, 1])
    assert abs(top - 130) <= 4
    # The other sides were right and stay within a few pixels.
    assert abs(max(refined[:, 1]) - 470) <= 4
    assert abs(min(refined[:, 0]) - 180) <= 4
    assert abs(max(refined[:, 0]) - 620) <= 4


def test_a_slanted_floor_side_is_straightened() -> None:
    img = _tray()
    # The top-right corner found a die side too low: the right side is drawn slanted.
    found = np.array([[180, 130], [620, 160], [620, 470], [180, 470]], np.float64)
    refined = refine_quad(img, found, SIDE, _floor_lab())
    assert np.abs(refined - [[180, 130], [620, 130], [620, 470], [180, 470]]).max() <= 4


def test_tiny_dice_leave_the_outline_alone() -> None:
    img = _tray()
    found = np.array([[180, 160], [620, 160], [620, 470], [180, 470]], np.float64)
    assert np.array_equal(refine_quad(img, found, 1.0, _floor_lab()), found)


def test_a_flat_die_in_the_shaded_strip_is_on_the_tray() -> None:
    img = _tray(shadow_px=30)
    dice = [_die(img, 400, 300), _die(img, 300, 400), _die(img, 500, 145)]
    result = apply_flags(img, dice)
    assert all(d.flags == () for d in result.dice)


def test_a_die_showing_a_side_face_towards_the_wall_is_leaning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The drawn flat dice have no perspective side faces, which leaves a small common
    # offset; the shipped threshold is set for the reader's noise, this tests the geometry.
    monkeypatch.setattr(flags, "LEAN_SHIFT", 0.18)
    img = _tray()
    flat = [_die(img, x, y) for x, y in ((400, 200), (400, 400), (300, 300), (500, 300))]
    # A die leaning by ~17 degrees on the left wall: its side face, in the die's colour but
    # shaded, fills the 0.3 die between its top face and the wall.
    band = round(0.3 * SIDE)
    cv2.rectangle(
        img, (180, round(300 - SIDE / 2)), (180 + band - 1, round(300 + SIDE / 2)), (150,) * 3, -1
    )
    leaning = _die(img, 180 + band + SIDE / 2, 300)
    result = apply_flags(img, [*flat, leaning])
    assert "leaning" in result.dice[-1].flags
    assert any("side face" in e and "wall" in e for e in result.dice[-1].evidence)
    assert all(d.flags == () for d in result.dice[:-1])


def test_flat_dice_side_by_side_and_against_a_wall_are_not_leaning() -> None:
    img = _tray()
    pair = [_die(img, 380, 300), _die(img, 380 + SIDE + 1, 300)]
    wall = [_die(img, 180 + SIDE / 2 + 1, 300), _die(img, 400, 130 + SIDE / 2 + 1)]
    corner = [_die(img, 620 - SIDE / 2 - 1, 470 - SIDE / 2 - 1)]
    result = apply_flags(img, [*pair, *wall, *corner])
    assert all(d.flags == () for d in result.dice)
