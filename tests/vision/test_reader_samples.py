"""The reader on the project's rendered tray photos (sample_images/*.jpg with their JSON).

Every flat die whose top face is fully in view must be read with its value, and nothing may
be reported away from the dice (wood grain, speckled tables, render noise, the tray rim).
The limits below are what the reader reaches today; lower them as it improves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vision.reader import read_path
from vision.result import DieReading

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"

#: Per photo: (flat, fully visible dice missed or misread, dice reported far from any die).
KNOWN_LIMITS: dict[str, tuple[int, int]] = {
    "clean10_000121": (0, 0),
    "clean10_000123": (0, 0),
    "clean3_000101": (0, 0),
    "clean3_000102": (0, 0),
    "clean5_000111": (0, 0),
    "clean5_000112": (0, 0),
    # 0 since session 36: a three of felt specks beside the tray was read until the photo's
    # texture level (vision._faces.texture_level) left the felt's specks out.
    "corner5_000151": (0, 0),
    "flat10_000131": (0, 0),
    "frame_edge5_000161": (0, 0),
    "leaning_die5_000181": (2, 0),
    "leaning_wall2_000231": (0, 0),
    "leaning_wall3_000171": (0, 0),
    # 2: the four read as a two, and a two beside the tray's corner missed. Session 16's
    # 237c0af had made it 4 (a three read as a two across two dice, two dice beside it
    # missed); a three's pip measured 1.6 times its siblings' size is tried with them since
    # session 18, which reads those three dice right.
    "mixed10_000211": (2, 0),
    "off_tray5_000221": (0, 0),
    "rim3_000201": (2, 0),
    "table5_000191": (2, 0),
    "touching5_000141": (0, 0),
}


def _die_size(die: dict[str, Any]) -> float:
    pts = np.array(die["silhouette"], np.float32)
    return float((pts.max(axis=0) - pts.min(axis=0)).max())


def _score(truth: dict[str, Any], dice: tuple[DieReading, ...]) -> tuple[list[str], list[str]]:
    """Problems with a reading: (flat dice missed or misread, readings far from any die)."""
    gt = truth["dice"]
    size = max(_die_size(d) for d in gt)
    bad: list[str] = []
    for d in gt:
        if d["state"] != "flat" or float(d.get("top_visible", 1.0)) < 0.99:
            continue
        cx, cy = d["center"]
        near = [r for r in dice if np.hypot(r.center[0] - cx, r.center[1] - cy) <= 0.5 * size]
        values = [r.value for r in near]
        if d["value"] not in values:
            bad.append(f"{d['value']} at ({cx:.0f}, {cy:.0f}) read as {values}")
    far = [
        f"{r.value} at ({r.center[0]:.0f}, {r.center[1]:.0f})"
        for r in dice
        if min(np.hypot(r.center[0] - d["center"][0], r.center[1] - d["center"][1]) for d in gt)
        > size
    ]
    return bad, far


def _cases() -> list[Any]:
    out = []
    for name in sorted(KNOWN_LIMITS):
        marks = () if name.startswith("clean") else (pytest.mark.slow,)
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("name", _cases())
def test_sample_photo_is_read_within_known_limits(name: str) -> None:
    truth = json.loads((SAMPLES / f"{name}.json").read_text())
    bad, far = _score(truth, read_path(SAMPLES / f"{name}.jpg").dice)
    max_bad, max_far = KNOWN_LIMITS[name]
    assert len(bad) <= max_bad, bad
    assert len(far) <= max_far, far


def test_every_sample_photo_has_known_limits() -> None:
    assert {p.stem for p in SAMPLES.glob("*.jpg")} == set(KNOWN_LIMITS)
