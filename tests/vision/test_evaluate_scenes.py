"""The scene evaluation reads the renderer's ground truth and counts the flags right."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.evaluate_scenes import (
    evaluate_scene_dir,
    evidence_rows,
    evidence_table,
    is_scene_dir,
    main,
    match,
    table,
    truth_profile,
)
from vision.result import DieReading


def _scene(folder: Path) -> None:
    """One drawn tray with two flat dice on the floor and one on the table."""
    rng = np.random.default_rng(3)
    img = np.empty((600, 800, 3), np.uint8)
    img[:] = (60, 100, 150)
    cv2.rectangle(img, (150, 100), (650, 500), (40, 40, 45), -1)
    cv2.rectangle(img, (180, 130), (620, 470), (60, 120, 40), -1)
    dice = []
    for x, y, state in ((300, 250, "flat"), (450, 350, "flat"), (720, 300, "off_tray")):
        cv2.rectangle(img, (x - 15, y - 15), (x + 15, y + 15), (235, 235, 235), -1)
        for gx, gy in ((-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)):
            cv2.circle(img, (x + 8 * gx, y + 8 * gy), 3, (20, 20, 20), -1)
        dice.append(
            {
                "value": 5,
                "center": [x, y],
                "state": state,
                "tilt_deg": 0.0,
                "support": "floor" if state == "flat" else "table",
                "size_mm": 16.0,
                "silhouette": [
                    [x - 16, y - 16],
                    [x + 16, y - 16],
                    [x + 16, y + 16],
                    [x - 16, y + 16],
                ],
            }
        )
    img = np.clip(img + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    cv2.imwrite(str(folder / "scene_000001.png"), img)
    truth = {
        "image": "scene_000001.png",
        "width": 800,
        "height": 600,
        "seed": 1,
        "tray": {
            "shape": "rect",
            "floor_polygon": [[180, 130], [620, 130], [620, 470], [180, 470]],
        },
        "dice": dice,
    }
    (folder / "scene_000001.json").write_text(json.dumps(truth))


def test_oracle_evaluation_counts_flags(tmp_path: Path) -> None:
    _scene(tmp_path)
    assert is_scene_dir(tmp_path)
    result = evaluate_scene_dir(tmp_path, oracle=True)
    assert result["scenes"] == 1
    assert result["dice"] == 3
    assert result["off_tray_recall"] == {"value": 1.0, "hit": 1, "n": 1}
    assert result["false_off_tray_floor"]["n"] == 2
    assert result["false_off_tray_floor"]["hit"] == 0
    assert result["false_leaning_flat"]["hit"] == 0
    assert result["leaning_recall_15_plus"]["value"] is None  # no leaning die here
    assert result["detection_recall"]["value"] == 1.0
    assert "off_tray_recall" in table(result)


def test_a_flat_die_read_with_another_value_counts_as_misread(tmp_path: Path) -> None:
    _scene(tmp_path)
    truth_file = tmp_path / "scene_000001.json"
    truth = json.loads(truth_file.read_text())
    truth["dice"][0]["value"] = 4  # the drawn five is now a misread of a four
    truth_file.write_text(json.dumps(truth))
    result = evaluate_scene_dir(tmp_path)
    assert result["face_misread_flat"] == {"value": 0.5, "hit": 1, "n": 2}
    assert result["face_accuracy_flat"]["hit"] == 1
    # The misread face is listed among the failures, with what was read.
    fails: list[dict[str, object]] = []
    evaluate_scene_dir(tmp_path, failures=fails)
    faces = [f for f in fails if str(f["what"]).startswith("face")]
    assert [(f["die"], f["what"], f["value"], f["read"]) for f in faces] == [
        (0, "face misread", 4, 5)
    ]
    # The ground truth's own values are never misread.
    assert evaluate_scene_dir(tmp_path, oracle=True)["face_misread_flat"]["hit"] == 0


def test_an_unreadable_photo_is_skipped_and_the_others_measured(tmp_path: Path) -> None:
    _scene(tmp_path)
    truth = json.loads((tmp_path / "scene_000001.json").read_text())
    truth["image"] = "scene_000002.jpg"
    (tmp_path / "scene_000002.json").write_text(json.dumps(truth))
    (tmp_path / "scene_000002.jpg").write_bytes(b"not a photo")
    result = evaluate_scene_dir(tmp_path)
    assert result["scenes"] == 2
    assert result["dice"] == 3  # the readable scene's dice only


def test_matching_is_one_to_one_by_silhouette() -> None:
    truth = [
        {"center": [10, 10], "silhouette": [[0, 0], [20, 0], [20, 20], [0, 20]]},
        {"center": [50, 10], "silhouette": [[40, 0], [60, 0], [60, 20], [40, 20]]},
    ]
    reads = [
        DieReading(value=1, center=(14, 14), size_px=20, confidence=1),
        DieReading(value=1, center=(10, 11), size_px=20, confidence=1),
        DieReading(value=1, center=(90, 90), size_px=20, confidence=1),
    ]
    assert match(truth, reads) == [(0, 1)]


def test_command_refuses_a_folder_without_scenes(tmp_path: Path) -> None:
    assert main([str(tmp_path)]) == 2


def test_vision_evaluate_reads_the_renderers_ground_truth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from vision.evaluate import main as evaluate_main

    samples = Path(__file__).resolve().parents[2] / "sample_images"
    for stem in ("clean3_000101", "leaning_wall3_000171"):
        for ext in (".jpg", ".json"):
            shutil.copy(samples / f"{stem}{ext}", tmp_path)
    assert evaluate_main([str(tmp_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert "leaning_recall_15_plus" in json.dumps(result)


def test_evidence_rows_give_each_in_tray_die_the_leaning_rules_measures(tmp_path: Path) -> None:
    _scene(tmp_path)
    rows = evidence_rows(tmp_path, oracle=True)
    # The die on the table is left out: the leaning rule is for dice in the tray.
    assert [(r["die"], r["state"]) for r in rows] == [(0, "flat"), (1, "flat")]
    for r in rows:
        assert {"supports", "overlap", "reach", "edge_gain", "face_tilt_deg"} <= set(r)
        # Dice far apart and far from the walls have nothing to lean on.
        assert r["supports"] == 0 and r["reach"] is None and r["edge_gain"] is None


def test_the_evidence_cut_lets_at_most_half_a_percent_of_the_flat_dice_pass() -> None:
    flat = [{"state": "flat", "tilt_deg": 0.0, "reach": i / 1000} for i in range(200)]
    flat.append({"state": "flat", "tilt_deg": 0.0, "reach": None})  # not measured: not passing
    leaning = [
        {"state": "leaning", "tilt_deg": 30.0, "reach": 0.5},
        {"state": "leaning", "tilt_deg": 20.0, "reach": 0.1},
        {"state": "leaning", "tilt_deg": 20.0, "reach": None},
        {"state": "leaning", "tilt_deg": 10.0, "reach": 0.3},
    ]
    rows = [{**r, "edge_gain": None, "face_tilt_deg": None} for r in flat + leaning]
    text = evidence_table(rows)
    # 201 flat dice: one may pass, so the cut is the second largest flat value.
    assert "| reach | 200/201 | 0.100 | 0.198 (1/201) | 1/3 | 1/1 | 0.300 |" in text
    # A measure no die has gives no row.
    assert "edge_gain" not in text


def test_command_prints_the_evidence_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _scene(tmp_path)
    assert main([str(tmp_path), "--oracle", "--evidence"]) == 0
    out = capsys.readouterr().out
    assert "2 flat and 0 leaning dice found in the tray" in out


SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


def test_a_true_profile_carries_the_scenes_own_floor_and_camera() -> None:
    truth = json.loads((SAMPLES / "clean5_000111.json").read_text())
    image = cv2.imread(str(SAMPLES / truth["image"]), cv2.IMREAD_COLOR)
    assert image is not None
    for scale in (1.0, 0.5):  # the photo as decoded at full size, or reduced
        shown = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        profile = truth_profile(truth, np.asarray(shown, np.uint8))
        assert profile is not None
        assert profile.image_size == (shown.shape[1], shown.shape[0])
        floor = np.array(truth["tray"]["floor_polygon"], np.float64) * scale
        assert np.allclose(profile.polygon_array(), floor, atol=1e-6)
        pose = profile.pose()
        assert pose is not None and profile.die_units is not None
        # Each flat die's top face centre, from its true position, projects where the
        # truth says it shows: the camera is the renderer's.
        for die in truth["dice"]:
            if die["state"] != "flat":
                continue
            x, y, z = die["position_mm"]
            top = pose.project(np.array([[x, y, z + die["size_mm"] / 2.0]]))[0]
            assert np.hypot(*(top - np.array(die["center"]) * scale)) < 2.0
    # A scene without a floor outline or camera has no true profile.
    assert truth_profile({**truth, "camera": {}}, np.asarray(image, np.uint8)) is None


def test_command_reads_each_scene_with_its_true_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("clean5_000111.json", "clean5_000111.jpg"):
        (tmp_path / name).write_bytes((SAMPLES / name).read_bytes())
    assert main([str(tmp_path), "--true-profile", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["scenes"] == 1
    assert result["detection_recall"]["n"] > 0
