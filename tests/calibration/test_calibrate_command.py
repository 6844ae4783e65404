"""``dice-companion calibrate`` writes a profile file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from tray_drawing import rect_tray

from companion import calibrate_command


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="dice-companion")
    calibrate_command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def test_calibrate_writes_the_profile(
    tmp_path: Path, tilted_quad: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), rect_tray(tilted_quad))
    out = tmp_path / "tray.json"
    assert _run(["calibrate", str(photo), "--out", str(out), "--tray-mm", "300x200"]) == 0
    doc = json.loads(out.read_text())
    assert doc["shape"] == "rect"
    assert doc["tray_mm"] == [300.0, 200.0]
    assert len(doc["polygon"]) == 4
    assert doc["camera"]["tilt_deg"] == pytest.approx(15.0, abs=2.5)
    assert "box tray floor" in capsys.readouterr().out


def test_calibrate_says_when_there_is_no_tray(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), np.full((300, 400, 3), 120, np.uint8))
    out = tmp_path / "tray.json"
    assert _run(["calibrate", str(photo), "--out", str(out)]) == 1
    assert "no tray floor found" in capsys.readouterr().err
    assert not out.exists()


def test_tray_size_must_be_width_x_height(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        _run(["calibrate", "x.png", "--out", str(tmp_path / "t.json"), "--tray-mm", "300"])
