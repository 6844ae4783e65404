"""``python -m tools.compare_readings``: dumps of every die read, compared die by die."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tools.compare_readings import main, outcomes

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


def _yolo_split(root: Path, photo: str) -> Path:
    """A labelled set of one rendered sample photo in the YOLO layout (a box of the die's
    silhouette, class = face - 1), from its ground truth."""
    truth = json.loads((SAMPLES / f"{photo}.json").read_text())
    images, labels = root / "set" / "valid" / "images", root / "set" / "valid" / "labels"
    images.mkdir(parents=True)
    labels.mkdir(parents=True)
    shutil.copy(SAMPLES / f"{photo}.jpg", images / f"{photo}.jpg")
    w, h = truth["width"], truth["height"]
    lines = []
    for die in truth["dice"]:
        pts = np.array(die["silhouette"], float)
        (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
        cx, cy, bw, bh = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h
        lines.append(f"{die['value'] - 1} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
    (labels / f"{photo}.txt").write_text("\n".join(lines) + "\n")
    return root / "set"


def test_a_dump_holds_every_die_and_two_dumps_compare_die_by_die(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = _yolo_split(tmp_path, "clean3_000101")
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["dump", str(first), str(dataset), "--jobs", "1"]) == 0
    photos = json.loads(first.read_text())
    assert list(photos) == ["set/valid/images/clean3_000101.jpg"]
    photo = photos["set/valid/images/clean3_000101.jpg"]
    assert len(photo["truth"]) == 3
    # The sample's three flat dice are read right.
    assert outcomes(photo)["right"] == 3
    capsys.readouterr()
    # The same code reads the same: nothing differs.
    assert main(["diff", str(first), str(first)]) == 0
    assert "0 of 1 photos read differently" in capsys.readouterr().out
    # A die read otherwise shows, with how the photo's outcomes moved.
    photo["dice"][0][0] = 7 - photo["dice"][0][0]
    second.write_text(json.dumps(photos))
    assert main(["diff", str(first), str(second), "--dice"]) == 0
    out = capsys.readouterr().out
    assert "1 of 1 photos read differently" in out
    assert "right 3->2  misread 0->1" in out
    assert out.count("\n    - ") == 1 and out.count("\n    + ") == 1


def test_a_dump_that_cannot_be_read_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["diff", str(broken), str(broken)]) == 2
    assert "cannot read a dump" in capsys.readouterr().err
    assert main(["dump", str(tmp_path / "out.json"), str(tmp_path)]) == 2
    assert "no labelled photos" in capsys.readouterr().err
