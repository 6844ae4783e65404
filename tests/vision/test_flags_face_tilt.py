"""Top-face shape (vision.flags): a face's pip grid, carried onto the plane of the top faces,
tells how far the face is tilted, and which of two touching dice leans."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from calibration.camera import pose_from_nadir
from vision.flags import FACE_TILT_DEG, _face_tilt, _lean_of_tilted_face, _Scene
from vision.reader import read_bytes, rescaled
from vision.result import DieReading

#: A camera straight down over the middle of an 800x600 photo; dice about 40 px wide.
POSE = pose_from_nadir((399.5, 299.5), (800, 600))
UNITS = 40.0 / float(POSE.k[0, 0])  # a 40 px die's side in floor units, at height 1
SCENE = _Scene(floor=None, polygon=None, floor_lab=None, floor_tol=12.0, pose=POSE, die_units=UNITS)
STEP = 0.27 * 40.0


def _die(x: float, y: float, tilt_deg: float = 0.0, towards_deg: float = 0.0) -> DieReading:
    """A four read at (x, y) whose face is tilted ``tilt_deg`` about the axis across the
    image direction ``towards_deg``: its grid is shortened by the cosine along it."""
    a = math.radians(towards_deg)
    along = np.array([math.cos(a), math.sin(a)])
    across = np.array([-along[1], along[0]])
    first = along * STEP * math.cos(math.radians(tilt_deg))
    second = across * STEP
    axes = ((float(first[0]), float(first[1])), (float(second[0]), float(second[1])))
    return DieReading(value=4, center=(x, y), size_px=40.0, confidence=0.95, face_axes=axes)


def test_a_square_face_is_flat_and_a_shortened_one_tilted_along_its_short_axis() -> None:
    flat = _face_tilt(_die(420.0, 280.0), SCENE)
    assert flat is not None and flat[0] < 2.0
    tilted = _face_tilt(_die(420.0, 280.0, tilt_deg=35.0, towards_deg=20.0), SCENE)
    assert tilted is not None
    assert tilted[0] == pytest.approx(35.0, abs=2.0)
    direction = math.degrees(math.atan2(tilted[1][1], tilted[1][0])) % 180.0
    assert direction == pytest.approx(20.0, abs=3.0)
    # No pip grid (a face of fewer than four pips), or no camera: nothing to tell.
    plain = DieReading(value=2, center=(420.0, 280.0), size_px=40.0, confidence=0.9)
    assert _face_tilt(plain, SCENE) is None
    assert _face_tilt(_die(420.0, 280.0), _Scene(None, None, None, 12.0, None, None)) is None


def _moved(tilt_deg: float, towards_deg: float) -> list[list[tuple[str, str]]]:
    # Die 0 was flagged leaning on die 1, which touches it on its right.
    dice = [_die(380.0, 300.0), _die(420.0, 300.0, tilt_deg, towards_deg)]
    verdicts: list[list[tuple[str, str]]] = [[("leaning", "its silhouette reaches")], []]
    _lean_of_tilted_face(verdicts, dice, SCENE)
    return verdicts


def test_the_flag_moves_to_the_die_whose_face_is_tilted_towards_the_flagged_one() -> None:
    verdicts = _moved(FACE_TILT_DEG + 10.0, 0.0)
    assert verdicts[0] == []
    assert [f for f, _ in verdicts[1]] == ["leaning"]
    assert "top-face shape" in verdicts[1][0][1]


@pytest.mark.parametrize(
    ("tilt", "towards"),
    [
        (0.0, 0.0),  # the other die's face is square: the flag stays
        (FACE_TILT_DEG - 10.0, 0.0),  # tilted too little to tell from the pips' noise
        (FACE_TILT_DEG + 10.0, 90.0),  # tilted, but across the way to the flagged die
    ],
)
def test_the_flag_stays_unless_the_other_face_is_clearly_tilted_towards_it(
    tilt: float, towards: float
) -> None:
    verdicts = _moved(tilt, towards)
    assert [f for f, _ in verdicts[0]] == ["leaning"]
    assert verdicts[1] == []


def test_face_axes_follow_the_reading_to_the_full_size_photo() -> None:
    die = _die(100.0, 50.0)
    assert die.face_axes is not None
    big = rescaled(die, 4.0)
    assert big.face_axes is not None
    for small_axis, big_axis in zip(die.face_axes, big.face_axes, strict=True):
        assert big_axis == pytest.approx((4.0 * small_axis[0], 4.0 * small_axis[1]))


def test_the_reader_gives_the_grid_of_faces_of_four_pips_or_more() -> None:
    photo = Path(__file__).resolve().parents[2] / "sample_images" / "clean5_000111.jpg"
    reading = read_bytes(photo.read_bytes())
    measured = [d for d in reading.dice if d.face_axes is not None]
    assert measured, "a flat four or more is read by its pips"
    for die in measured:
        assert die.value is not None and die.value >= 4
        assert die.face_axes is not None
        # One grid step: about 0.27 of the die's side, along both axes of a flat face.
        for x, y in die.face_axes:
            assert 0.2 * die.size_px < math.hypot(x, y) < 0.35 * die.size_px
    assert all(d.face_axes is None for d in reading.dice if d.value is not None and d.value < 4)


@pytest.mark.parametrize("nadir", [(399.5, 299.5), (400.0, 900.0), (-200.0, 300.0)])
def test_a_flat_face_seen_by_a_tilted_camera_is_flat(nadir: tuple[float, float]) -> None:
    # The camera looks aslant (its nadir below or left of the photo): a flat die's face
    # shows as a parallelogram in the photo, square again on the plane of the top faces.
    pose = pose_from_nadir(nadir, (800, 600))
    scene = _Scene(None, None, None, 12.0, pose, UNITS)
    for x, y in ((150.0, 120.0), (400.0, 300.0), (650.0, 480.0)):
        top = pose.back_project(np.array([[x, y]]), z=UNITS)[0]
        step = 0.27 * UNITS
        moves = np.array([[0.0, 0.0, 0.0], [step, 0.0, 0.0], [0.0, step, 0.0]])
        seen = pose.project(top[None, :] + moves)
        axes = tuple((float(p[0]), float(p[1])) for p in seen[1:] - seen[0])
        die = DieReading(4, (x, y), 40.0, 0.95, face_axes=(axes[0], axes[1]))
        tilt = _face_tilt(die, scene)
        assert tilt is not None and tilt[0] < 3.0
