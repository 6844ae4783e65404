"""The evaluation command: matching, tallies, folder layouts, and (shared) real-photo accuracy."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.evaluate import Tally, Truth, find_splits, main, match_image, parse_perturbation


def test_a_reading_matches_the_box_its_centre_lies_in() -> None:
    truth = [Truth(3, box=(0, 0, 10, 10)), Truth(5, box=(20, 0, 30, 10))]
    result = match_image(truth, [((25, 5), 5), ((5, 5), 2), ((50, 50), 1)])
    assert sorted(result.matched) == [(3, 2), (5, 5)]
    assert result.missed == ()
    assert result.extra == 1
    assert not result.exact


def test_matching_is_one_to_one_nearest_first() -> None:
    truth = [Truth(4, box=(0, 0, 20, 20))]
    result = match_image(truth, [((3, 3), 1), ((10, 10), 4)])
    assert result.matched == ((4, 4),)
    assert result.extra == 1


def test_a_labelled_centre_with_radius_also_matches() -> None:
    truth = [Truth(6, center=(100, 100), radius=10)]
    assert match_image(truth, [((105, 103), 6)]).exact
    assert match_image(truth, [((120, 100), 6)]).missed == (6,)


def test_uncertain_reading_is_not_exact() -> None:
    assert not match_image([Truth(2, box=(0, 0, 9, 9))], [((4, 4), None)]).exact


def test_uncertain_and_misread_dice_are_counted_apart() -> None:
    tally = Tally()
    truth = [Truth(v, box=(10 * v, 0, 10 * v + 9, 9)) for v in (1, 2, 3, 4)]
    read = [((14, 4), None), ((24, 4), 5), ((34, 4), 3), ((44, 4), 4)]
    tally.add(match_image(truth, read))
    s = tally.summary()
    assert (s["value_accuracy"], s["uncertain"], s["misread"]) == (0.5, 0.25, 0.25)


def _yolo_set(root: Path, art: SimpleNamespace) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    img = art.background(320, 240)
    art.draw_die(img, (100, 120), 60, 5)
    art.draw_die(img, (220, 120), 60, 2, angle_deg=30)
    cv2.imwrite(str(root / "images" / "a.png"), img)
    (root / "labels" / "a.txt").write_text("4 0.3125 0.5 0.2 0.27\n1 0.6875 0.5 0.2 0.27\n")


def test_evaluate_reads_a_yolo_folder_and_prints_json(
    tmp_path: Path, art: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    _yolo_set(tmp_path / "set" / "test", art)
    crops = tmp_path / "set" / "crops" / "3"
    crops.mkdir(parents=True)
    img = art.background(80, 80)
    art.draw_die(img, (40, 40), 56, 3, shadow=False)
    cv2.imwrite(str(crops / "c.png"), img)
    assert {s.kind for s in find_splits(tmp_path / "set")} == {"yolo", "crops"}
    assert main([str(tmp_path / "set"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    test = out["splits"]["test"]
    assert test["recall"] == 1.0
    assert test["precision"] == 1.0
    assert test["value_accuracy"] == 1.0
    assert test["exact_photos"] == 1.0
    assert out["overall"]["images"] == 2
    assert len(out["overall"]["confusion"]) == 6


def test_evaluate_prints_a_table(
    tmp_path: Path, art: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    _yolo_set(tmp_path / "test", art)
    assert main([str(tmp_path / "test")]) == 0
    text = capsys.readouterr().out
    assert "recall" in text and "confusion" in text


#: Accuracy reached on the shared real photo sets (recall, precision, value accuracy and the
#: most misread), as measured when this test was written; the test guards against falling
#: back. Value accuracy counts the dice asked about among those found as not read right, so
#: it falls when a die that was missed is found and asked about (nell_byler_d6: 0.90 until
#: session 39, whose dice asked about in blobs of dice took it to 0.894 with recall up from
#: 0.952 to 0.961 and the same misread dice); the misread share guards the silent errors.
REACHED = {
    "nell_byler_d6": (0.84, 0.97, 0.89, 0.01),
    "matteop65_white_webcam": (0.95, 0.96, 0.98, 0.005),
    "mac785_red_webcam_frames": (0.99, 0.99, 0.98, 0.002),
    "chase_casino_crops": (0.99, 0.99, 0.96, 0.015),
}


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REACHED))
def test_accuracy_on_shared_real_photos(
    datasets_dir: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = datasets_dir / name
    if not folder.is_dir():
        pytest.skip(f"{name} is not in the shared datasets")
    assert main([str(folder), "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    recall, precision, value, misread = REACHED[name]
    assert overall["recall"] >= recall
    assert overall["precision"] >= precision
    assert overall["value_accuracy"] >= value
    assert overall["misread"] <= misread


def test_a_switch_parameter_takes_words_and_refuses_others(
    tmp_path: Path, art: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    _yolo_set(tmp_path / "test", art)
    assert main([str(tmp_path / "test"), "--param", "body_dice=false", "--json"]) == 0
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "test"), "--param", "body_dice=maybe"])
    assert exc.value.code == 2
    assert "bad value for body_dice" in capsys.readouterr().err


@pytest.mark.shared
@pytest.mark.slow
def test_close_ups_of_real_photos_are_read_too(
    datasets_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same real frames enlarged 2.5 times (dice 130 px, pips 30 px wide: a close-up)
    are read about as well as at their own size: the reader takes its scale from the dice."""
    folder = datasets_dir / "mac785_red_webcam_frames"
    if not folder.is_dir():
        pytest.skip("mac785_red_webcam_frames is not in the shared datasets")
    assert main([str(folder), "--split", "valid", "--zoom", "2.5", "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    # Measured 87.5% recall and 92.9% value accuracy (24% and 8% before the reader chose
    # its scale from the dice and kept pips with specks in them).
    assert overall["recall"] >= 0.8
    assert overall["value_accuracy"] >= 0.88


def test_zoom_resizes_each_photo_before_it_is_read(
    tmp_path: Path, art: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    _yolo_set(tmp_path, art)
    assert main([str(tmp_path), "--zoom", "2", "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    assert overall["recall"] == 1.0 and overall["value_accuracy"] == 1.0
    # A tenth of the size: dice 6 px wide, pips 1 px, too small to count.
    assert main([str(tmp_path), "--zoom", "0.1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["recall"] < 1.0
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--zoom", "0"])


def test_a_perturbation_degrades_each_photo_before_it_is_read(
    tmp_path: Path, art: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    _yolo_set(tmp_path, art)
    assert main([str(tmp_path), "--perturb", "noise=4", "--perturb", "warm=0.2", "--json"]) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    assert overall["recall"] == 1.0 and overall["value_accuracy"] == 1.0
    # Blurred over a whole pip's width, the pips run into the face: nothing left to count.
    assert main([str(tmp_path), "--perturb", "blur=12", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["recall"] < 1.0
    for bad in ("shake=2", "gain=0", "jpeg=101", "blur=x"):
        with pytest.raises(SystemExit) as exc:
            main([str(tmp_path), "--perturb", bad])
        assert exc.value.code == 2


def test_a_perturbation_is_repeatable_and_keeps_the_shape() -> None:
    image = np.full((40, 60, 3), 128, np.uint8)
    noisy = parse_perturbation(["noise=8", "gain=0.5", "gamma=1.2"])
    a, b = noisy.apply(image, seed=7), noisy.apply(image, seed=7)
    assert a.shape == image.shape and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert float(a.mean()) < 80  # underexposed
    assert parse_perturbation([]).is_identity()
    warm = parse_perturbation(["warm=0.3"]).apply(image, seed=0)
    assert warm[0, 0, 2] > 128 > warm[0, 0, 0]


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize(
    ("perturb", "recall", "value"),
    # Measured on these splits: 99.8% / 99.6% underexposed (the valid split alone: 89.1% /
    # 97.9% before a dim photo was brought up to a normal exposure) and 98.1% / 98.2% with
    # grain.
    [(("gain=0.45",), 0.97, 0.98), (("noise=10",), 0.95, 0.96)],
)
def test_real_photos_are_read_in_dim_light_and_with_grain(
    datasets_dir: Path,
    capsys: pytest.CaptureFixture[str],
    perturb: tuple[str, ...],
    recall: float,
    value: float,
) -> None:
    folder = datasets_dir / "mac785_red_webcam_frames"
    if not folder.is_dir():
        pytest.skip("mac785_red_webcam_frames is not in the shared datasets")
    argv = [str(folder), "--split", "valid", "--split", "test", "--json"]
    for item in perturb:
        argv += ["--perturb", item]
    assert main(argv) == 0
    overall = json.loads(capsys.readouterr().out)["overall"]
    assert overall["recall"] >= recall
    assert overall["value_accuracy"] >= value
    assert overall["misread"] <= 0.01
