"""Tests of the tray-scene renderer: die geometry, camera model, placements, ground truth."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tools.render_tray.camera import Camera
from tools.render_tray.geometry import (
    FACE_NORMALS,
    PIP_LAYOUT,
    PIP_RADIUS,
    face_up_rotation,
    pip_centres,
    polygons_overlap,
    rot_axis,
    rot_x,
    rot_y,
    rot_z,
    rounded_cube_mesh,
    support,
    support_point,
    tilt_deg,
    top_face,
)
from tools.render_tray.scene import CASES, sample_scene
from tools.render_tray.truth import build_truth, validate_truth

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_images"


def test_opposite_faces_sum_to_seven() -> None:
    for a, b in itertools.combinations(FACE_NORMALS, 2):
        if np.dot(FACE_NORMALS[a], FACE_NORMALS[b]) < -0.5:
            assert a + b == 7


def test_one_two_three_run_counter_clockwise_around_their_corner() -> None:
    n1, n2, n3 = (np.array(FACE_NORMALS[v]) for v in (1, 2, 3))
    assert np.dot(np.cross(n1, n2), n3) == pytest.approx(1.0)


@pytest.mark.parametrize("value", range(1, 7))
def test_every_face_has_its_pip_count_inside_the_flat_part(value: int) -> None:
    size = 16.0
    pips = pip_centres(value, size)
    assert len(pips) == value == len(PIP_LAYOUT[value])
    normal = np.array(FACE_NORMALS[value])
    assert np.allclose(pips @ normal, size / 2)
    tangential = pips - np.outer(pips @ normal, normal)
    # Pips stay on the flat part of the face even with the roundest edges used (14 %).
    assert np.abs(tangential).max() + PIP_RADIUS * size <= size / 2 - 0.14 * size + 1e-9
    for a, b in itertools.combinations(pips, 2):
        assert np.linalg.norm(a - b) > 2 * PIP_RADIUS * size


def test_top_face_for_known_rotations() -> None:
    assert top_face(np.eye(3)) == 1
    assert top_face(rot_x(180)) == 6
    assert top_face(rot_x(90)) == 3  # +y turns to +z
    assert top_face(rot_x(-90)) == 4
    assert top_face(rot_y(90)) == 5  # -x turns to +z
    assert top_face(rot_y(-90)) == 2


@pytest.mark.parametrize("value", range(1, 7))
def test_face_up_rotation_puts_that_face_on_top_whatever_the_yaw(value: int) -> None:
    for yaw in (0.0, 33.0, 90.0, 271.0):
        rot = rot_z(yaw) @ face_up_rotation(value)
        assert top_face(rot) == value
        assert tilt_deg(rot) == pytest.approx(0.0, abs=1e-6)


def test_tilt_is_the_angle_of_the_top_face_from_up() -> None:
    for deg in (8.0, 15.0, 30.0, 44.0):
        rot = rot_axis(np.array([1.0, 1.0, 0.0]), deg) @ rot_z(20)
        assert tilt_deg(rot) == pytest.approx(deg, abs=1e-6)
        assert top_face(rot) == 1


def test_support_of_a_flat_rounded_cube_is_half_its_size() -> None:
    rot = rot_z(37.0)
    assert support(rot, 8.0, 1.5, np.array([0.0, 0.0, -1.0])) == pytest.approx(8.0)
    # Diagonally the rounded corner is nearer than the sharp corner would be.
    d = np.array([1.0, 1.0, 0.0])
    assert support(np.eye(3), 8.0, 1.5, d) < 8.0 * math.sqrt(2)
    p = support_point(np.eye(3), 8.0, 1.5, np.array([0.0, 0.0, -1.0]))
    assert p[2] == pytest.approx(-8.0)


def test_rounded_cube_mesh_matches_its_support_function() -> None:
    verts, normals, faces = rounded_cube_mesh(16.0, 2.0)
    assert np.allclose(np.linalg.norm(normals, axis=1), 1.0)
    assert faces.max() < len(verts)
    for d in (np.array([1.0, 0, 0]), np.array([1.0, 1, 1]) / math.sqrt(3), np.array([0, 1.0, 1])):
        d = d / np.linalg.norm(d)
        assert (verts @ d).max() == pytest.approx(support(np.eye(3), 8.0, 2.0, d), abs=0.05)


def _down_camera() -> Camera:
    return Camera((0.0, 0.0, 500.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 60.0, 640, 480)


def test_projection_of_known_points() -> None:
    cam = _down_camera()
    f = 320 / math.tan(math.radians(30))
    assert cam.focal_px == pytest.approx(f)
    centre = cam.project(np.array([[0.0, 0.0, 0.0]]))[0]
    assert centre == pytest.approx([319.5, 239.5])
    # Looking down with world +y as image up: world +x is image right, +y is image up.
    px = cam.project(np.array([[10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 100.0]]))
    assert px[0] == pytest.approx([319.5 + f * 10 / 500, 239.5])
    assert px[1] == pytest.approx([319.5, 239.5 - f * 10 / 500])
    assert px[2] == pytest.approx([319.5, 239.5])
    assert cam.tilt_deg == pytest.approx(0.0)


def test_projection_matches_mitsuba_perspective_sensor() -> None:
    pytest.importorskip("mitsuba")
    from tools.render_tray.render import mitsuba

    mi = mitsuba()
    cam = Camera((30.0, -40.0, 450.0), (10.0, 5.0, 0.0), (0.3, 1.0, 0.0), 60.0, 160, 120)
    point = np.array([60.0, -40.0, 10.0])
    scene = mi.load_dict(
        {
            "type": "scene",
            "integrator": {"type": "path"},
            "sensor": {
                "type": "perspective",
                "fov": cam.fov_x_deg,
                "fov_axis": "x",
                "to_world": mi.ScalarTransform4f().look_at(
                    origin=list(cam.origin), target=list(cam.target), up=list(cam.up)
                ),
                "film": {
                    "type": "hdrfilm",
                    "width": 160,
                    "height": 120,
                    "rfilter": {"type": "box"},
                },
                "sampler": {"type": "independent", "sample_count": 16},
            },
            "ball": {
                "type": "sphere",
                "center": point.tolist(),
                "radius": 2.0,
                "emitter": {"type": "area", "radiance": {"type": "rgb", "value": [1, 1, 1]}},
            },
        }
    )
    lum = np.array(mi.render(scene)).mean(axis=2)
    ys, xs = np.nonzero(lum > 0.01)
    w = lum[ys, xs]
    seen = np.array([(xs * w).sum() / w.sum(), (ys * w).sum() / w.sum()])
    assert cam.project(point[None, :])[0] == pytest.approx(seen, abs=0.6)


@pytest.mark.parametrize("case", CASES)
def test_sampled_dice_never_overlap_and_rest_where_their_label_says(case: str) -> None:
    for seed in range(3):
        spec = sample_scene(5000 + seed, case=case, dice=5, width=640, height=480)
        assert len(spec.dice) == 5
        prints = [d.footprint() for d in spec.dice]
        for a, b in itertools.combinations(prints, 2):
            assert not polygons_overlap(a, b, -0.01)
        for d in spec.dice:
            bottom = d.centre[2] - support(d.rotation, d.half, d.radius_mm, np.array([0, 0, -1.0]))
            if d.support in ("floor", "wall", "die"):
                assert bottom == pytest.approx(0.0, abs=1e-6)
                assert spec.tray.inside_floor(d.footprint(), margin=-0.05)
            elif d.support == "table":
                assert bottom == pytest.approx(-spec.tray.base_mm, abs=1e-6)
                assert spec.tray.outside_tray(d.footprint())
            else:
                assert bottom == pytest.approx(spec.tray.wall_height_mm, abs=1e-6)
            if d.state == "leaning":
                assert 8.0 <= tilt_deg(d.rotation) <= 40.0
            else:
                assert tilt_deg(d.rotation) < 1e-6


def test_the_flash_case_lights_the_tray_from_the_camera() -> None:
    spec = sample_scene(881000, case="flash", dice=3, width=640, height=480)
    assert spec.light.area_centre == pytest.approx(spec.camera.origin)
    assert max(spec.light.area_size_mm) <= 20.0 and spec.light.window_level == 0.0
    # Its dice lie flat on the floor, apart, as the clean case's do.
    assert all(d.support == "floor" and d.state == "flat" for d in spec.dice)


def test_special_cases_contain_their_special_dice() -> None:
    want = {
        "leaning_wall": ("leaning", "wall"),
        "leaning_die": ("leaning", "die"),
        "table": ("off_tray", "table"),
        "rim": ("off_tray", "rim"),
    }
    for case, (state, sup) in want.items():
        spec = sample_scene(77, case=case, dice=3, width=640, height=480)
        assert any(d.state == state and d.support == sup for d in spec.dice), case


def test_scenes_are_deterministic_from_the_seed() -> None:
    a = sample_scene(123, case="mixed", width=320, height=240)
    b = sample_scene(123, case="mixed", width=320, height=240)
    assert [d.value for d in a.dice] == [d.value for d in b.dice]
    assert all(np.allclose(x.centre, y.centre) for x, y in zip(a.dice, b.dice, strict=True))


def test_ground_truth_of_a_sampled_scene_validates() -> None:
    spec = sample_scene(9, case="mixed", dice=10, width=800, height=600)
    doc = build_truth(spec, "x.png")
    assert validate_truth(doc) == []
    assert len(doc["dice"]) == 10
    for die in doc["dice"]:
        xs = [p[0] for p in die["silhouette"]]
        assert min(xs) <= die["center"][0] <= max(xs)


def test_validator_names_the_broken_field() -> None:
    doc = build_truth(sample_scene(9, case="flat", dice=3, width=320, height=240), "x.png")
    doc["dice"][1]["value"] = 7
    assert any("dice[1].value" in e for e in validate_truth(doc))


def test_smoke_render_writes_image_and_valid_json(tmp_path: Path) -> None:
    pytest.importorskip("mitsuba")
    from tools.render_tray.cli import render_one

    path = render_one(3, tmp_path, case="leaning", dice=3, width=160, height=120, spp=4, fmt="jpg")
    doc = json.loads(path.read_text())
    assert validate_truth(doc) == []
    with Image.open(tmp_path / doc["image"]) as im:
        assert im.size == (160, 120)
        pixels = np.asarray(im)
    assert pixels.std() > 5  # something was rendered, not a blank frame
    assert all("top_visible" in d for d in doc["dice"])


def _sample_jsons() -> list[Path]:
    return sorted(SAMPLES.glob("*.json"))


@pytest.mark.parametrize("path", _sample_jsons(), ids=lambda p: p.name)
def test_sample_image_truth_is_well_formed_and_its_image_exists(path: Path) -> None:
    doc = json.loads(path.read_text())
    assert validate_truth(doc) == []
    assert doc["image"].rsplit(".", 1)[0] == path.stem
    with Image.open(SAMPLES / doc["image"]) as im:
        assert im.size == (doc["width"], doc["height"])


def test_sample_images_stay_small() -> None:
    total = sum(p.stat().st_size for p in SAMPLES.iterdir() if p.is_file())
    assert total <= 10 * 1024 * 1024


def test_scene_does_not_depend_on_resolution_of_one_aspect() -> None:
    small = sample_scene(31, case="table", dice=5, width=320, height=240)
    large = sample_scene(31, case="table", dice=5, width=1024, height=768)
    for a, b in zip(small.dice, large.dice, strict=True):
        assert np.allclose(a.centre, b.centre)


def test_a_die_leaning_on_a_wall_touches_it_and_falls_towards_it() -> None:
    checked = 0
    for seed in range(40, 60):
        spec = sample_scene(seed, case="leaning_wall", dice=1, width=640, height=480)
        tray = spec.tray
        for d in spec.dice:
            if d.support != "wall" or tray.shape != "rect":
                continue
            fp = d.footprint()
            gaps = {
                (1.0, 0.0): tray.width_mm / 2 - fp[:, 0].max(),
                (-1.0, 0.0): tray.width_mm / 2 + fp[:, 0].min(),
                (0.0, 1.0): tray.depth_mm / 2 - fp[:, 1].max(),
                (0.0, -1.0): tray.depth_mm / 2 + fp[:, 1].min(),
            }
            towards, gap = min(gaps.items(), key=lambda kv: kv[1])
            assert 0.0 <= gap < 0.5
            contact = support_point(d.rotation, d.half, d.radius_mm, np.array([0.0, 0.0, -1.0]))
            # The floor contact lies on the far side of the centre, so gravity tips it to the wall.
            assert float(contact[:2] @ np.array(towards)) < 0
            checked += 1
    assert checked >= 3


def test_sampled_pip_styles_keep_every_pip_on_the_flat_face() -> None:
    for seed in range(30):
        for die in sample_scene(seed, case="flat", dice=5, width=320, height=240).dice:
            flat_half = 0.5 - die.radius_mm / die.size_mm
            assert die.pip_spacing + die.pip_radius <= flat_half
            assert die.pip_radius * die.one_scale <= flat_half
            assert 2 * die.pip_radius < die.pip_spacing  # the 6 face's pips stay apart
