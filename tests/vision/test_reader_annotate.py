"""Annotated copies of a photo: outlines and labels, flagged dice in their own colour."""

from __future__ import annotations

import numpy as np
import pytest

from vision.annotate import FLAGGED_BGR, OK_BGR, annotate
from vision.result import DieReading, TrayOutline


def _die(value: int | None, flags: tuple[str, ...] = ()) -> DieReading:
    outline = ((40.0, 40.0), (80.0, 40.0), (80.0, 80.0), (40.0, 80.0))
    return DieReading(value, (60.0, 60.0), 40.0, 0.9, flags, outline)


def _has_colour(img: np.ndarray, bgr: tuple[int, int, int]) -> bool:
    return bool(np.any(np.all(img == np.array(bgr, np.uint8), axis=2)))


def test_annotate_returns_a_marked_copy_and_leaves_the_photo_alone() -> None:
    photo = np.full((120, 160, 3), 128, np.uint8)
    out = annotate(photo, [_die(4)])
    assert out.shape == photo.shape and out.dtype == np.uint8
    assert np.all(photo == 128)
    assert _has_colour(out, OK_BGR)
    assert not _has_colour(out, FLAGGED_BGR)


def test_flagged_and_uncertain_dice_use_the_flag_colour() -> None:
    photo = np.full((120, 160, 3), 128, np.uint8)
    out = annotate(
        photo, [_die(None, ("uncertain",))], tray=TrayOutline(((5, 5), (150, 5), (150, 110)))
    )
    assert _has_colour(out, FLAGGED_BGR)
    assert not _has_colour(out, OK_BGR)


def test_annotate_refuses_a_grey_array() -> None:
    with pytest.raises(ValueError, match="uint8"):
        annotate(np.zeros((10, 10), np.uint8), [])
