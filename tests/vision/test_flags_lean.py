"""Leaning by analysis by synthesis (vision._lean): drawn cubes scored against their edges."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from calibration.camera import CameraPose, pose_from_nadir
from calibration.profile import die_top_side_px
from vision import flags
from vision._lean import EdgeField, cube_corners, lean_score
from vision.evaluate_scenes import oracle_dice
from vision.flags import EDGE_GAIN, lean_evidence
from vision.result import DieReading

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]
FLOOR = (70, 110, 60)
#: Face shades (BGR) by the direction the face looks: lit top, dimmer sides.
SHADES = {"top": (225, 225, 225), "side": (150, 150, 150), "dark": (95, 95, 95)}


def _pose() -> tuple[CameraPose, float]:
    """A camera looking nearly straight down at 800x600, and a die side giving ~40 px."""
    pose = pose_from_nadir((380.0, 260.0), (800, 600))
    probe = pose.project(np.array([[0.0, 0.0, 0.0], [0.01 * pose.height, 0.0, 0.0]]))
    units_per_px = 0.01 * pose.height / float(np.hypot(*(probe[1] - probe[0])))
    return pose, 40.0 * units_per_px


def _draw_cube(img: Image, pose: CameraPose, corners: FloatArray) -> None:
    """Paint a cube's faces that face the camera, each in its own flat shade."""
    cam = pose.centre
    centre = corners.mean(axis=0)
    faces = []
    for bit in (4, 2, 1):
        for side in (0, 1):
            idx = [k for k in range(8) if bool(k & bit) == bool(side)]
            fc = corners[idx].mean(axis=0)
            if float(np.dot(fc - centre, cam - fc)) <= 0:
                continue
            normal = (fc - centre) / float(np.linalg.norm(fc - centre))
            shade = "top" if normal[2] > 0.7 else ("side" if normal[0] + normal[1] > 0 else "dark")
            faces.append((float(np.linalg.norm(cam - fc)), idx, SHADES[shade]))
    px = pose.project(corners)
    for _dist, idx, colour in sorted(faces, reverse=True):
        hull = cv2.convexHull(px[idx].astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(img, np.round(hull * 16).astype(np.int32), colour, cv2.LINE_AA, 4)


def _scene(tilt_deg: float, u: FloatArray) -> tuple[Image, CameraPose, float, FloatArray]:
    pose, side = _pose()
    rng = np.random.default_rng(5)
    img = np.empty((600, 800, 3), np.uint8)
    img[:] = FLOOR
    t = np.array([470.0, 330.0])
    _draw_cube(img, pose, cube_corners(pose, t, side, u, tilt_deg))
    img = np.clip(img + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    return img, pose, side, t


def _image_direction(pose: CameraPose, t: FloatArray, side: float, u: FloatArray) -> FloatArray:
    top = pose.back_project(t[None, :], z=side)[0]
    ahead = pose.project(np.array([[top[0] + u[0] * side, top[1] + u[1] * side, side]]))[0]
    d = ahead - t
    return np.asarray(d / float(np.hypot(*d)), np.float64)


def test_a_drawn_cube_leaning_on_its_support_fits_a_leaning_cube_best() -> None:
    u = np.array([math.cos(0.3), math.sin(0.3)])
    img, pose, side, t = _scene(35.0, u)
    w = _image_direction(pose, t, side, u)
    score = lean_score(EdgeField(img, (t[0], t[1]), 72.0), pose, side, t, w, 40.0)
    assert score.gain > EDGE_GAIN
    assert score.tilt_deg in (30.0, 45.0)
    assert score.extra_px > 5.0


def test_a_drawn_flat_cube_fits_the_flat_cube_at_least_as_well() -> None:
    u = np.array([math.cos(0.3), math.sin(0.3)])
    img, pose, side, t = _scene(0.0, u)
    for turn in (0.0, math.pi / 2, math.pi):
        d = np.array([math.cos(0.3 + turn), math.sin(0.3 + turn)])
        w = _image_direction(pose, t, side, d)
        score = lean_score(EdgeField(img, (t[0], t[1]), 72.0), pose, side, t, w, 40.0)
        assert score.gain < 0.1


def test_cube_corners_keep_the_top_face_where_it_was_seen_and_rest_on_the_floor() -> None:
    pose, side = _pose()
    t = np.array([300.0, 200.0])
    for tilt in (0.0, 10.0, 30.0):
        corners = cube_corners(pose, t, side, np.array([1.0, 0.0]), tilt)
        top = corners[[k for k in range(8) if k & 1]].mean(axis=0)
        assert np.allclose(pose.project(top[None, :])[0], t, atol=1e-6)
        assert min(corners[:, 2]) == pytest.approx(0.0, abs=1e-9)
        # The lowest edge lies on the far side from the support (along -u).
        low = corners[np.argsort(corners[:, 2])[:2]]
        assert np.all(low[:, 0] <= corners[:, 0].mean() + 1e-9)


def test_lean_evidence_measures_a_sample_die_leaning_on_a_wall() -> None:
    samples = Path(__file__).resolve().parents[2] / "sample_images"
    truth = json.loads((samples / "leaning_wall3_000171.json").read_text())
    image = np.asarray(cv2.imread(str(samples / truth["image"]), cv2.IMREAD_COLOR), np.uint8)
    dice = oracle_dice(truth)
    evidence = lean_evidence(image, dice)
    assert len(evidence) == len(dice) == 3
    states = [d["state"] for d in truth["dice"]]
    leaning = evidence[states.index("leaning")]
    assert leaning.supports >= 1
    assert leaning.reach is not None and leaning.edge_gain is not None
    # Its silhouette reaches towards its support further than any flat die's does.
    flat = [e.reach for e, s in zip(evidence, states, strict=True) if s == "flat" and e.reach]
    assert flat and leaning.reach > max(flat)


def test_a_small_die_among_bigger_ones_is_predicted_at_its_own_size() -> None:
    # Dice of several sizes share a photo: the flat silhouette predicted for a die must be
    # its own cube's, not one of the photo's common side, or a small flat die's silhouette
    # seems to fall short of (and a big one's to reach beyond) where a flat die's would.
    pose, side = _pose()
    small = 0.7 * side
    t = np.array([650.0, 480.0])  # far from the nadir: its side faces show
    img = np.empty((600, 800, 3), np.uint8)
    img[:] = FLOOR
    _draw_cube(img, pose, cube_corners(pose, t, small, np.array([1.0, 0.0]), 0.0))
    mask = np.abs(img.astype(np.int16) - np.array(FLOOR, np.int16)).max(axis=2) > 30
    scene = flags._Scene(None, None, None, 12.0, pose, side)
    size_px = die_top_side_px(pose, small, (float(t[0]), float(t[1])))
    die = DieReading(value=3, center=(float(t[0]), float(t[1])), size_px=size_px, confidence=1.0)
    measured = flags._lean_shift(die, scene, mask, 0, 0, 1.0)
    assert measured is not None
    shift, overlap = measured
    assert overlap > 0.85
    assert float(np.hypot(*shift)) < 0.05


@pytest.mark.parametrize(("apart", "support"), [(1.0, False), (1.25, True)])
def test_small_dice_are_supports_by_their_own_size(apart: float, support: bool) -> None:
    # Two small dice (0.7 of the photo's common side): side by side (top faces one of their
    # sides apart) neither can lean on the other; a die whose top face is held a quarter of
    # a side further off can lean on its neighbour.
    pose, side = _pose()
    small = 0.7 * side
    scene = flags._Scene(None, None, None, 12.0, pose, side)
    dice = []
    for x in (0.0, apart * small):
        c = pose.project(np.array([[x, 0.0, small]]))[0]
        centre = (float(c[0]), float(c[1]))
        size_px = die_top_side_px(pose, small, centre)
        dice.append(DieReading(value=2, center=centre, size_px=size_px, confidence=1.0))
    t = np.array(dice[0].center)
    found = flags._supports(dice[0], [dice[1]], scene, t, np.zeros(2))
    assert [what for _w, what in found] == (["die"] if support else [])
