"""Dice whose coloured pips no threshold parts from a dark marbled face, counted by the peaks
of the pips' hue (vision._count.count_hue_peaks); the body pass's test for spots of another
hue (pips_of_another_hue), the least area of a die's body (vision._bodies._least_area) and
the strands that tell a cable's clip from a die (vision._bodies._strands); and the reader
counting a body asked about by its pips' hue (vision.reader._own_pixels_opinion)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from test_count import draw_face

from vision import _doubts as doubts
from vision._bodies import _AREA_RANGE, _SMALLEST_BODY, _least_area, _strands
from vision._count import count_hue_peaks, pips_of_another_hue, read_face
from vision.reader import _Die, _own_pixels_opinion

LIGHT_FLOOR = (200, 200, 200)
NAVY_STREAK = (150, 70, 20)


def marbled(
    value: int, seed: int, *, side: int = 32, pip: tuple[int, int, int] = (30, 30, 120)
) -> np.ndarray:
    """A crop ``side`` px wide of a small black die with dark red pips and navy streaks on a
    light floor, blurred as a phone's small die is: its pips lie closer together along a
    six's columns than across them (as some makes set them) and run together there."""
    rng = np.random.default_rng(seed)
    body = (45, 35, 30)
    img = draw_face(
        value,
        body=body,
        pip=pip,
        floor=LIGHT_FLOOR,
        side=64,
        crop=96,
        angle_deg=10.0 + 20.0 * seed,
        spread=(1.0, 0.75),
    )
    on_body = np.all(np.abs(img.astype(np.int32) - np.array(body)) < 25, axis=2)
    streaks = np.zeros(img.shape[:2], np.uint8)
    for _ in range(4):
        start = rng.uniform(20, 76, 2)
        end = start + rng.normal(0, 25, 2)
        cv2.line(
            streaks,
            (round(start[0]), round(start[1])),
            (round(end[0]), round(end[1])),
            255,
            int(rng.integers(2, 5)),
        )
    img[(streaks > 0) & on_body] = NAVY_STREAK
    img = cv2.GaussianBlur(img, (0, 0), 1.6)
    return cv2.resize(img, (side, side), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("value", [3, 5, 6])
def test_red_pips_on_a_dark_marbled_die_are_counted_by_their_hue(value: int) -> None:
    faces = [count_hue_peaks(marbled(value, seed)) for seed in range(6)]
    # Never a wrong value; a streak across an empty pip place leaves the face asked about.
    assert all(f.value in (value, None) for f in faces), faces
    read = [f for f in faces if f.value == value]
    assert len(read) >= 5, faces
    assert all(len(f.pips) == value and f.confidence >= 0.8 for f in read)
    assert all(pips_of_another_hue(marbled(value, seed)) for seed in range(6))


@pytest.mark.parametrize("value", [5, 6])
def test_pips_no_blob_threshold_parts_are_peaks_of_their_hue(value: int) -> None:
    crop = marbled(value, seed=2)
    # The single-face counter sees a blob breaking the pattern (two pips run together).
    assert read_face(crop).value is None
    assert count_hue_peaks(crop).value == value


@pytest.mark.parametrize("value", [1, 4])
def test_a_one_or_a_four_is_never_counted_by_hue(value: int) -> None:
    # A lone peak is the least evidence, and a five or a six whose centre or middle row the
    # marbling hid leaves a four.
    for seed in range(3):
        face = count_hue_peaks(marbled(value, seed))
        assert face.value is None, face


def test_a_face_without_pips_of_another_hue_is_not_counted() -> None:
    # White pips on a black die differ from it in lightness alone.
    crop = draw_face(5, body=(30, 30, 30), pip=(235, 235, 235), floor=LIGHT_FLOOR)
    assert count_hue_peaks(crop).value is None
    assert not pips_of_another_hue(crop)


def test_a_black_clip_with_a_highlight_shows_no_pips_of_another_hue() -> None:
    # A cable's black clip: a die-sized dark square whose middle varies in lightness only.
    img = np.full((96, 96, 3), LIGHT_FLOOR, np.uint8)
    cv2.rectangle(img, (24, 24), (72, 72), (28, 28, 28), -1)
    cv2.line(img, (30, 40), (66, 44), (150, 150, 150), 3)
    cv2.circle(img, (48, 58), 4, (120, 120, 120), -1)
    assert not pips_of_another_hue(cv2.GaussianBlur(img, (0, 0), 1.2))


def test_a_tray_rim_against_a_table_shows_no_die() -> None:
    # A window straddling a red rim and the wooden table: the two colours part along a line,
    # no die stands out from a floor of one colour.
    img = np.full((96, 96, 3), (90, 140, 190), np.uint8)
    img[40:, :] = (40, 40, 190)
    img[70:, 20:] = (120, 120, 120)
    assert not pips_of_another_hue(img)
    assert count_hue_peaks(img).value is None


def test_a_die_sized_body_may_be_as_small_as_the_smallest_lone_die_read() -> None:
    # Light dice's blobs hold their shadows, a dark die's is the die alone.
    single = [700.0, 1300.0, 1450.0, 1500.0]
    expected = float(np.median(single))
    assert _least_area(single, expected, 22.0) == pytest.approx(_SMALLEST_BODY * 700.0)
    # One lone die alone says nothing of the others' sizes.
    assert _least_area([700.0], 1400.0, 22.0) == pytest.approx(_AREA_RANGE[0] * 1400.0)
    # A blob smaller than half the face read on it is no die's body (a pip, a key).
    assert _least_area([17.0, 727.0], 372.0, 20.7) == pytest.approx(_AREA_RANGE[0] * 372.0)


def _photo_with(crop: np.ndarray) -> np.ndarray:
    """A 320x240 light photo with ``crop`` (a die 32 px wide in its middle) pasted at
    (80, 120), and a die read beside it at (240, 120)."""
    img = np.full((240, 320, 3), LIGHT_FLOOR, np.uint8)
    h, w = crop.shape[:2]
    img[120 - h // 2 : 120 - h // 2 + h, 80 - w // 2 : 80 - w // 2 + w] = crop
    other = draw_face(2, floor=LIGHT_FLOOR, side=64, crop=96)
    other = cv2.resize(other, (48, 48), interpolation=cv2.INTER_AREA)
    img[96:144, 216:264] = other
    return img


@pytest.mark.parametrize(("value", "read"), [(6, 6), (5, 5), (4, None)])
def test_a_body_asked_about_is_read_by_its_pips_hue(value: int, read: int | None) -> None:
    photo = _photo_with(marbled(value, seed=2, side=48))
    side = 32.0  # the die's side in the photo: 64 px of 96 drawn, shrunk to 48
    body = _Die(None, (80.0, 120.0), side, 0.5, (), doubt=doubts.BODY_ONLY)
    other = _Die(2, (240.0, 120.0), side, 0.95, ())
    dice = _own_pixels_opinion(photo, [(0.18 * side, body), (0.18 * side, other)], 1.0, 1.0, None)
    assert dice[0][1].value == read
    assert dice[1][1] == other
    if read is not None:
        assert dice[0][1].doubt == ""
        assert dice[0][1].confidence <= 0.75
    else:
        assert dice[0][1].doubt == doubts.BODY_ONLY
    assert math.isfinite(dice[0][1].confidence)


def _lone_body(extra: str) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The body image's pixels unlike the floor (160x160): a die-sized body 20 px wide in the
    middle with ``extra`` beside it, and the body itself (0/1) with its box's corner."""
    unlike = np.zeros((160, 160), np.uint8)
    unlike[70:90, 70:90] = 1
    if "cable" in extra:  # a cable through a clip: thin on both sides, far along
        cv2.line(unlike, (0, 60), (70, 78), 1, 3)
        cv2.line(unlike, (90, 82), (159, 110), 1, 3)
    if "lead" in extra:  # one thin line only
        cv2.line(unlike, (90, 80), (159, 80), 1, 3)
    if "shadow" in extra:  # a die's shadow below it: short and wide
        unlike[90:100, 74:96] = 1
    if "wall" in extra:  # a wall or a row of dice beside it: far along, but wide
        unlike[62:98, 93:160] = 1
    comp = unlike[70:90, 70:90].copy()
    comp[:] = 1
    return unlike.astype(bool), comp, 70, 70


@pytest.mark.parametrize(
    ("extra", "strands"),
    [("", 0), ("shadow", 0), ("wall", 0), ("lead", 1), ("cable", 2), ("cable shadow", 2)],
)
def test_a_body_a_cable_runs_through_is_told_by_its_strands(extra: str, strands: int) -> None:
    unlike, comp, x, y = _lone_body(extra)
    assert _strands(unlike, comp, x, y) == strands
