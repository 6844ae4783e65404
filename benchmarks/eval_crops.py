"""Measure the single-face pip counter (vision._count.read_face) on labelled crops.

Usage: python benchmarks/eval_crops.py [DATASETS_DIR] [--set NAME ...] [--show-wrong N]

DATASETS_DIR defaults to ../shared/datasets beside the checkout (or DICE_SHARED_DIR).
Three sets are measured when present:

- ``chase_casino_crops``: folders ``<split>/<value>/*.jpg``, one die a file;
- ``nell_byler_d6``: crops cut around each labelled die (boxes are the whole die),
  enlarged 1.3x so some floor shows around it;
- ``matteop65_white_webcam``: boxes are tight around the pips only, so enlarged 1.6x;
  a 1's box holds one pip, so every box is first grown to at least the set's median
  box of a 4, 5 or 6 (whose pips span the face).

For each set it prints right / wrong / uncertain, the confusion matrix (rows = truth,
columns = read, last column = uncertain) and the mean milliseconds per crop.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision._count import read_face

YOLO_SETS = {"nell_byler_d6": 1.3, "matteop65_white_webcam": 1.6}
PIPS_ONLY_BOXES = {"matteop65_white_webcam"}


def default_root() -> Path:
    env = os.environ.get("DICE_SHARED_DIR")
    if env:
        return Path(env) / "datasets"
    return Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets"


def folder_crops(root: Path) -> Iterator[tuple[str, int, np.ndarray]]:
    """Crops of a ``<split>/<value>/*.jpg`` set: (name, true value, BGR image)."""
    for path in sorted(root.glob("*/[1-6]/*.jpg")):
        img = cv2.imread(str(path))
        if img is not None:
            yield str(path.relative_to(root)), int(path.parent.name), img


def yolo_crops(
    root: Path, enlarge: float, min_side: float = 0.0
) -> Iterator[tuple[str, int, np.ndarray]]:
    """Square crops around each YOLO box, side ``enlarge`` times the box's longer side.

    ``min_side`` is the smallest box side in pixels before enlarging.
    """
    for label in sorted(root.glob("*/labels/*.txt")):
        image = label.parent.parent / "images" / (label.stem + ".jpg")
        img = cv2.imread(str(image))
        if img is None:
            continue
        h, w = img.shape[:2]
        for k, line in enumerate(label.read_text().split("\n")):
            parts = line.split()
            if len(parts) != 5:
                continue
            cls, cx, cy, bw, bh = int(parts[0]), *(float(p) for p in parts[1:])
            half = enlarge * max(bw * w, bh * h, min_side) / 2
            x0, x1 = round(cx * w - half), round(cx * w + half)
            y0, y1 = round(cy * h - half), round(cy * h + half)
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            yield f"{label.relative_to(root)}#{k}", cls + 1, img[y0:y1, x0:x1]


def median_face_box(root: Path) -> float:
    """Median longer side in pixels of the boxes of 4, 5 and 6 pips in a YOLO set."""
    sides = []
    for label in root.glob("*/labels/*.txt"):
        image = label.parent.parent / "images" / (label.stem + ".jpg")
        shape = cv2.imread(str(image), cv2.IMREAD_REDUCED_GRAYSCALE_8)
        if shape is None:
            continue
        h, w = shape.shape[0] * 8, shape.shape[1] * 8
        for line in label.read_text().split("\n"):
            parts = line.split()
            if len(parts) == 5 and int(parts[0]) >= 3:
                sides.append(max(float(parts[3]) * w, float(parts[4]) * h))
    return float(np.median(sides)) if sides else 0.0


def measure(
    name: str, crops: Iterator[tuple[str, int, np.ndarray]], show_wrong: int
) -> dict[str, float]:
    """Read every crop; print the table; return right/wrong/uncertain shares."""
    confusion = np.zeros((6, 7), dtype=int)
    wrong: list[str] = []
    seconds = 0.0
    total = 0
    for crop_name, truth, img in crops:
        t0 = time.perf_counter()
        result = read_face(img)
        seconds += time.perf_counter() - t0
        total += 1
        col = 6 if result.value is None else result.value - 1
        confusion[truth - 1, col] += 1
        if result.value is not None and result.value != truth:
            wrong.append(f"  wrong {crop_name}: truth {truth} read {result.value}")
        elif result.value is None:
            wrong.append(f"  uncertain {crop_name}: truth {truth} ({result.reason})")
    if total == 0:
        print(f"{name}: no crops")
        return {}
    right = int(np.trace(confusion[:, :6]))
    unsure = int(confusion[:, 6].sum())
    bad = total - right - unsure
    print(f"\n== {name}: {total} crops")
    print(
        f"right {right} ({100 * right / total:.1f}%)  wrong {bad} ({100 * bad / total:.1f}%)  "
        f"uncertain {unsure} ({100 * unsure / total:.1f}%)  "
        f"right of read {100 * right / max(1, right + bad):.2f}%  "
        f"{1000 * seconds / total:.2f} ms/crop"
    )
    print("truth\\read    1    2    3    4    5    6    ?")
    for v in range(6):
        print(f"{v + 1:>10} " + " ".join(f"{c:4d}" for c in confusion[v]))
    for line in wrong[:show_wrong]:
        print(line)
    return {"right": right / total, "wrong": bad / total, "uncertain": unsure / total}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", nargs="?", type=Path, default=default_root())
    parser.add_argument("--set", action="append", dest="sets")
    parser.add_argument("--show-wrong", type=int, default=0)
    args = parser.parse_args(argv)
    root: Path = args.root
    if not root.is_dir():
        print(f"no datasets at {root}", file=sys.stderr)
        return 2
    sets = args.sets or ["chase_casino_crops", *YOLO_SETS]
    for name in sets:
        path = root / name
        if not path.is_dir():
            print(f"{name}: not found under {root}")
            continue
        if name in YOLO_SETS:
            floor = median_face_box(path) if name in PIPS_ONLY_BOXES else 0.0
            measure(name, yolo_crops(path, YOLO_SETS[name], floor), args.show_wrong)
        else:
            measure(name, folder_crops(path), args.show_wrong)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
