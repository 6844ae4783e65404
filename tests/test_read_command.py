"""``dice-companion read``: plain lines, JSON lines, annotated copies, errors that go on."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from tests.browser.trays import draw_tray
from tests.vision.conftest import background, draw_die
from vision import _doubts as doubts


def test_read_prints_one_json_line_per_image_and_goes_on_after_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "tray.jpg"
    draw_tray([4, 4, 2], good)
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    code = main(["read", "--json", str(good), str(bad), str(tmp_path / "missing.jpg")])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    first = lines[0]
    assert first["faces"] == [4, 4, 2] and first["reroll"] == []
    assert (first["width"], first["height"]) == (960, 720)
    assert first["speech"] == "Four, four, two."
    assert abs(first["dice"][0]["center"][0] - 155) < 10
    assert abs(first["dice"][0]["size"] - 90) < 20
    assert lines[1]["image"] == str(bad) and "error" in lines[1]
    assert lines[2]["image"].endswith("missing.jpg") and "error" in lines[2]


def test_a_die_asked_about_says_why_in_the_json_and_the_plain_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An orange two with a flash's highlight in its middle, where a three's pip would be.
    img = background(320, 240)
    draw_die(img, (160, 120), 80, 2, body=(200, 120, 40), pip=(20, 20, 20))
    cv2.circle(img, (160, 120), 6, (255, 255, 255), -1, cv2.LINE_AA)
    photo = tmp_path / "glare.png"
    cv2.imwrite(str(photo), img)
    assert main(["read", "--json", str(photo)]) == 0
    (die,) = json.loads(capsys.readouterr().out)["dice"]
    assert die["value"] is None and die["flags"] == ["uncertain"]
    assert die["evidence"] == [doubts.GLARE]
    assert main(["read", str(photo)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "no face — reroll none — unread #1 (glare)"


def test_read_plain_line_and_annotated_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = tmp_path / "tray.jpg"
    draw_tray([6, 1, 3], photo)
    assert main(["read", str(photo), "--annotate", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "6 1 3 — reroll none"
    copy = cv2.imread(str(tmp_path / "out" / "tray.annotated.jpg"))
    assert copy is not None and copy.shape == (720, 960, 3)
    assert np.abs(copy.astype(int) - cv2.imread(str(photo)).astype(int)).sum() > 0


SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"


def test_read_with_a_calibration_profile_reports_the_tray(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = str(SAMPLES / "clean5_000111.jpg")
    profile = str(tmp_path / "tray.json")
    assert main(["calibrate", photo, "--out", profile]) == 0
    capsys.readouterr()
    assert main(["read", "--json", "--calibration", profile, photo]) == 0
    result = json.loads(capsys.readouterr().out)
    polygon = result["tray"]["polygon"]
    assert len(polygon) >= 4
    xs = [p[0] for p in polygon]
    assert 0 <= min(xs) < max(xs) <= result["width"]


def test_a_missing_calibration_profile_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["read", "--calibration", str(tmp_path / "none.json"), "x.jpg"])
    err = capsys.readouterr().err
    assert code == 2 and "no such tray profile" in err
