"""``dice-companion read``: plain lines, JSON lines, annotated copies, errors that go on."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main

PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def draw_tray(path: Path, faces: list[int], *, side: int = 90) -> None:
    """A green felt photo with white dice in a row, black pips, saved as JPEG."""
    img = np.full((480, 640, 3), (40, 110, 30), np.uint8)
    for i, value in enumerate(faces):
        cx, cy = 120 + i * 150, 240
        cv2.rectangle(
            img,
            (cx - side // 2, cy - side // 2),
            (cx + side // 2, cy + side // 2),
            (235, 235, 235),
            -1,
        )
        for gx, gy in PIPS[value]:
            centre = (cx + gx * side * 27 // 100, cy + gy * side * 27 // 100)
            cv2.circle(img, centre, side // 10, (20, 20, 20), -1, cv2.LINE_AA)
    cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 95])


def test_read_prints_one_json_line_per_image_and_goes_on_after_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "tray.jpg"
    draw_tray(good, [4, 4, 2])
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    code = main(["read", "--json", str(good), str(bad), str(tmp_path / "missing.jpg")])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    first = lines[0]
    assert first["faces"] == [4, 4, 2] and first["reroll"] == []
    assert (first["width"], first["height"]) == (640, 480)
    assert first["speech"] == "Four, four, two."
    assert abs(first["dice"][0]["center"][0] - 120) < 10
    assert abs(first["dice"][0]["size"] - 90) < 20
    assert lines[1]["image"] == str(bad) and "error" in lines[1]
    assert lines[2]["image"].endswith("missing.jpg") and "error" in lines[2]


def test_read_plain_line_and_annotated_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = tmp_path / "tray.jpg"
    draw_tray(photo, [6, 1, 3])
    assert main(["read", str(photo), "--annotate", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "6 1 3 — reroll none"
    copy = cv2.imread(str(tmp_path / "out" / "tray.annotated.jpg"))
    assert copy is not None and copy.shape == (480, 640, 3)
    assert np.abs(copy.astype(int) - cv2.imread(str(photo)).astype(int)).sum() > 0
