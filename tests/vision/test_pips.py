"""The pip search's measures of a pip (``vision._pips``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision._pips import _roundness, roundness_apart


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
