"""A die's own shadow is floor, not die: the leaning silhouette measure leaves it out."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from vision import flags
from vision.result import DieReading

Image = npt.NDArray[np.uint8]
FLOOR = (60, 120, 150)  # BGR: a tan felt
SIDE = 30


def _photo(shadow_factor: float) -> tuple[Image, DieReading]:
    """A light die on the floor with its shadow (the floor's colour, darker) to its right."""
    rng = np.random.default_rng(3)
    img = np.empty((240, 320, 3), np.uint8)
    img[:] = FLOOR
    x, y, h = 160, 120, SIDE // 2
    shade = tuple(round(c * shadow_factor) for c in FLOOR)
    cv2.rectangle(img, (x + h, y - h + 4), (x + h + 11, y + h + 2), shade, -1)
    cv2.rectangle(img, (x - h, y - h), (x + h, y + h), (225, 225, 225), -1)
    cv2.circle(img, (x, y), 3, (20, 20, 20), -1)
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    return img, DieReading(
        value=1, center=(float(x), float(y)), size_px=float(SIDE), confidence=1.0
    )


def _mask_shares(shadow_factor: float) -> tuple[float, float]:
    """Shares of the die's square and of its shadow that the measure calls die."""
    img, die = _photo(shadow_factor)
    lab = cv2.cvtColor(np.array([[FLOOR]], np.uint8), cv2.COLOR_BGR2LAB)[0, 0]
    m = flags._measure_window(
        img,
        die,
        [],
        (float(lab[0]), float(lab[1]), float(lab[2])),
        12.0,
        0.9 * SIDE,
        die_centre=np.array(die.center, np.float64),
    )
    assert m is not None
    mask, x0, y0, scale, _share = m
    full = np.zeros(img.shape[:2], bool)
    ys, xs = np.nonzero(mask)
    full[np.round(ys / scale + y0).astype(int), np.round(xs / scale + x0).astype(int)] = True
    x, y, h = 160, 120, SIDE // 2
    die_share = float(full[y - h + 2 : y + h - 2, x - h + 2 : x + h - 2].mean())
    shadow_share = float(full[y - h + 8 : y + h, x + h + 2 : x + h + 10].mean())
    return die_share, shadow_share


def test_a_dies_shadow_is_not_part_of_its_silhouette() -> None:
    die_share, shadow_share = _mask_shares(0.45)
    assert die_share > 0.9
    assert shadow_share < 0.1


def test_a_faint_shadow_is_not_part_of_its_silhouette_either() -> None:
    die_share, shadow_share = _mask_shares(0.75)
    assert die_share > 0.9
    assert shadow_share < 0.1
