"""The pip search's measures of a pip (``vision._pips``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision._pips import _roundness, roundness_apart
from vision.reader import read_array


def _measured(cands: Any, plane: npt.NDArray[np.uint8]) -> tuple[Any, npt.NDArray[np.uint8]]:
    """``cands`` with their roundness measured on ``plane`` (the grey plane), and the planes."""
    planes = np.stack([plane, plane, plane])
    inside = cands.ring_gray + cands.polarity * cands.contrast
    rnd, _minor = _roundness(
        planes, cands.channel, cands.xy, cands.diam / 2.0, inside, cands.ring_gray
    )
    fields = [rnd if f == "roundness" else getattr(cands, f) for f in cands._fields]
    return type(cands)(*fields), planes


def test_crowded_pips_are_round_measured_apart_from_each_other(art: SimpleNamespace) -> None:
    # A six on a small blurred die: each row's pips joined by blur brighter than halfway
    # between pip and face, so the rays along a row never leave the pip.
    plane = np.full((80, 80), 64, np.uint8)
    six = [(x, y) for y in (30, 44) for x in (30, 38, 46)]
    for y in (30, 44):
        cv2.line(plane, (30, y), (46, y), 140, 2)
    for p in six:
        cv2.circle(plane, p, 3, 164, -1)
    cands, planes = _measured(art.candidates(six, diam=7.0), plane)
    assert cands.roundness.min() < 0.5  # as measured alone: long along its row
    apart = roundness_apart(planes, cands, np.arange(6))
    assert apart.min() >= 0.65


def test_a_pip_long_away_from_its_siblings_stays_long(art: SimpleNamespace) -> None:
    # Streaks (glare, a side face's pips) stacked close: long where no sibling lies.
    plane = np.full((80, 80), 64, np.uint8)
    streaks = [(40, 34), (40, 41)]
    for p in streaks:
        cv2.ellipse(plane, (p, (11, 4), 0), 164, -1)
    cands, planes = _measured(art.candidates(streaks, diam=6.0), plane)
    apart = roundness_apart(planes, cands, np.arange(2))
    assert np.allclose(apart, cands.roundness)
    assert apart.max() < 0.5


def _white_six_ringed(edge: float, floor: int, sigma: float) -> npt.NDArray[np.uint8]:
    """A small white six (30 px) on a grey floor, a dark bevel around its face, its pips
    ``edge`` px from the face's edge, drawn at 8x and shrunk, then blurred by ``sigma``."""
    k, side, d = 8, 30.0, 4.5
    big = np.full((100 * k, 100 * k), floor, np.uint8)
    lo, hi = 50 - side / 2, 50 + side / 2
    cv2.rectangle(big, (int((lo - 1) * k),) * 2, (int((hi + 1) * k),) * 2, 110, -1)
    cv2.rectangle(big, (int(lo * k),) * 2, (int(hi * k),) * 2, 215, -1)
    near, far = lo + edge + d / 2, hi - edge - d / 2
    for x in (near, far):
        for y in (near, 50.0, far):
            cv2.circle(big, (round(x * k), round(y * k)), round(d / 2 * k), 25, -1)
    small = cv2.resize(big, (100, 100), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), sigma), cv2.COLOR_GRAY2BGR)


@pytest.mark.parametrize(
    ("edge", "floor", "sigma"), [(0.0, 170, 0.8), (0.5, 150, 0.8), (0.5, 150, 1.2)]
)
def test_a_white_six_whose_pips_join_the_floor_around_its_face_is_read(
    edge: float, floor: int, sigma: float
) -> None:
    # Beside the light face the block's mean rises, so the floor and the dark bevel pass
    # the dark pips' level too, and the pips by the edge join them in one sprawling blob
    # around the face (as small white sixes on nell_byler_d6's grey board did): the pips
    # are looked for in it at a stark level (vision._pips._rings_light). Before, no die.
    dice = read_array(_white_six_ringed(edge, floor, sigma))
    assert [(d.value, d.flags) for d in dice] == [(6, ())]
