"""Camera from the floor's corners, the profile file, and the moved-camera check."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from tray_drawing import project_rect, rect_tray

from calibration.camera import pose_from_nadir, pose_from_quad
from calibration.errors import CalibrationError
from calibration.profile import TrayProfile, calibrate, has_moved


@pytest.mark.parametrize("tilt", [8.0, 15.0, 20.0])
def test_pose_from_quad_recovers_tilt_and_focal(tilt: float) -> None:
    quad = project_rect(300, 200, tilt, focal=700.0)
    solved = pose_from_quad(quad, (800, 600), size=(300, 200))
    assert solved is not None
    pose, size = solved
    assert pose.focal_known
    assert pose.k[0, 0] == pytest.approx(700.0, rel=0.02)
    assert pose.tilt_deg == pytest.approx(tilt, abs=0.5)
    assert pose.height == pytest.approx(450.0, rel=0.03)
    # The floor's corners project back onto the drawn ones.
    w, d = size
    corners = np.array([[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0]], float)
    back = pose.project(corners)
    for c in quad:
        assert np.min(np.linalg.norm(back - c, axis=1)) < 1.0


def test_a_given_focal_length_is_used_instead_of_the_corners_one() -> None:
    # Corners a few pixels off move the measured focal length a lot; a caller may trust a
    # lens guess more. With the true focal given, the tilt follows even from shifted corners.
    quad = project_rect(300, 200, 12.0, focal=700.0)
    nudged = quad + np.array([[3.0, -2.0], [0.0, 0.0], [-3.0, 2.0], [0.0, 0.0]])
    measured = pose_from_quad(nudged, (800, 600), size=(300, 200))
    given = pose_from_quad(nudged, (800, 600), size=(300, 200), focal_px=700.0)
    assert measured is not None and given is not None
    assert given[0].k[0, 0] == 700.0
    assert given[0].focal_known
    assert abs(given[0].tilt_deg - 12.0) < abs(measured[0].tilt_deg - 12.0)
    assert given[0].tilt_deg == pytest.approx(12.0, abs=1.0)


def test_aspect_ratio_is_measured_without_a_size() -> None:
    quad = project_rect(300, 200, 15.0)
    solved = pose_from_quad(quad, (800, 600))
    assert solved is not None
    w, d = solved[1]
    assert max(w, d) / min(w, d) == pytest.approx(1.5, rel=0.03)


def test_homography_maps_the_floor_corners_to_the_tray_size(tilted_quad: np.ndarray) -> None:
    profile = calibrate(rect_tray(tilted_quad), tray_mm=(300, 200))
    assert profile.homography is not None
    hm = np.array(profile.homography)
    pts = cv2.perspectiveTransform(tilted_quad.reshape(-1, 1, 2).astype(np.float64), hm)
    pts = pts.reshape(-1, 2)
    xs, ys = sorted(pts[:, 0]), sorted(pts[:, 1])
    assert xs[0] == pytest.approx(0, abs=10) and xs[-1] == pytest.approx(300, abs=10)
    assert ys[0] == pytest.approx(0, abs=10) and ys[-1] == pytest.approx(200, abs=10)
    assert profile.tilt_deg == pytest.approx(15.0, abs=2.5)


def test_expected_die_size_shrinks_with_distance(tilted_quad: np.ndarray) -> None:
    profile = calibrate(rect_tray(tilted_quad), tray_mm=(300, 200), die_mm=16)
    ys = tilted_quad[:, 1]
    near = profile.expected_die_px(400, float(ys.max()) - 20)
    far = profile.expected_die_px(400, float(ys.min()) + 20)
    assert near is not None and far is not None
    assert near > far
    # A 16 mm die 450 mm below a 700 px focal length is about 25 px.
    assert 18 < far < near < 32


def test_profile_json_round_trip(tmp_path: Path, tilted_quad: np.ndarray) -> None:
    profile = calibrate(rect_tray(tilted_quad), tray_mm=(300, 200))
    path = tmp_path / "tray.json"
    profile.save(path)
    again = TrayProfile.load(path)
    assert again.to_json() == json.loads(path.read_text())
    assert np.allclose(again.polygon, profile.polygon, atol=0.01)
    assert again.shape == profile.shape


def test_a_file_that_is_not_a_profile_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tray.json"
    path.write_text('{"hello": 1}')
    with pytest.raises(CalibrationError, match="tray profile"):
        TrayProfile.load(path)
    with pytest.raises(CalibrationError, match="no such"):
        TrayProfile.load(tmp_path / "missing.json")


def test_moved_camera_is_noticed(tilted_quad: np.ndarray) -> None:
    img = rect_tray(tilted_quad)
    profile = calibrate(img, tray_mm=(300, 200))
    assert not has_moved(profile, img)
    assert not has_moved(profile, cv2.resize(img, (400, 300)))  # a reduced decode
    shift = np.float32([[1, 0, 120], [0, 1, 70]])
    moved = cv2.warpAffine(img, shift, (800, 600), borderMode=cv2.BORDER_REFLECT)
    assert has_moved(profile, moved)


def test_profile_scales_to_a_reduced_photo(tilted_quad: np.ndarray) -> None:
    profile = calibrate(rect_tray(tilted_quad), tray_mm=(300, 200))
    half = profile.scaled_to(400, 300)
    assert half.polygon[0][0] == pytest.approx(profile.polygon[0][0] / 2)
    assert half.polygon[0][1] == pytest.approx(profile.polygon[0][1] / 2)
    full = profile.expected_die_px(400, 300)
    small = half.expected_die_px(200, 150)
    assert full is not None and small is not None
    assert small == pytest.approx(full / 2, rel=0.02)


def test_calibration_without_a_tray_fails_clearly() -> None:
    img = np.full((600, 800, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="no tray floor"):
        calibrate(img)


def test_pose_from_nadir_looks_at_the_nadir() -> None:
    pose = pose_from_nadir((400.0, 700.0), (800, 600))
    nadir = pose.nadir()
    assert nadir is not None
    assert nadir == pytest.approx((400.0, 700.0), abs=1e-6)
    assert pose.tilt_deg == pytest.approx(
        math.degrees(math.atan2(700 - 299.5, float(pose.k[0, 0]))), abs=1e-3
    )


def test_a_tray_whose_rim_has_the_floors_colour_is_not_taken_for_a_move(tmp_path: Path) -> None:
    # A rendered red bowl on a red-rimmed ring: floor-coloured pixels lie just outside the
    # floor outline already in the calibration photo, which is no sign of a move.
    from companion.cli import main

    samples = Path(__file__).resolve().parents[2] / "sample_images"
    photo = samples / "clean3_000101.jpg"
    assert main(["calibrate", str(photo), "--out", str(tmp_path / "tray.json")]) == 0
    profile = TrayProfile.load(tmp_path / "tray.json")
    assert not has_moved(profile, cv2.imread(str(photo)))
    assert has_moved(profile, cv2.imread(str(samples / "clean5_000111.jpg")))


def test_a_refiner_given_to_calibrate_sets_the_outline(tilted_quad: np.ndarray) -> None:
    seen: list[tuple[str, float]] = []

    def refine(
        image: np.ndarray,
        polygon: np.ndarray,
        shape: str,
        die_px: float,
        lab: tuple[float, float, float],
    ) -> np.ndarray:
        seen.append((shape, die_px))
        return np.asarray(polygon, np.float64) + 1.0

    plain = calibrate(rect_tray(tilted_quad))
    refined = calibrate(rect_tray(tilted_quad), refine=refine)
    assert seen and seen[0][0] == "rect" and seen[0][1] > 5
    assert np.allclose(np.array(refined.polygon), np.array(plain.polygon) + 1.0)
