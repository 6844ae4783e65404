"""Draw a scene's ground truth over its image, to check the projection by eye.

`python -m tools.render_tray.overlay SCENE.json [OUT.png]`
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

COLOURS = {"flat": (0, 220, 0), "leaning": (0, 140, 255), "off_tray": (255, 0, 255)}


def draw_overlay(json_path: Path) -> np.ndarray:
    """Image (H, W, 3) BGR uint8 with floor outline, silhouettes, top-face centres and values."""
    doc = json.loads(json_path.read_text())
    img = cv2.imread(str(json_path.parent / doc["image"]), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(json_path.parent / doc["image"])
    floor = np.round(np.array(doc["tray"]["floor_polygon"]) * 4).astype(np.int32)
    cv2.polylines(img, [floor], True, (255, 255, 0), 1, cv2.LINE_AA, shift=2)
    for d in doc["dice"]:
        colour = COLOURS[d["state"]]
        sil = np.round(np.array(d["silhouette"]) * 4).astype(np.int32)
        cv2.polylines(img, [sil], True, colour, 1, cv2.LINE_AA, shift=2)
        cx, cy = d["center"]
        cv2.circle(img, (round(cx * 4), round(cy * 4)), 8, (0, 0, 255), 1, cv2.LINE_AA, shift=2)
        label = f"{d['value']}" + (
            "" if d["state"] == "flat" else f" {d['support']} {d['tilt_deg']:.0f}"
        )
        x0 = int(np.array(d["silhouette"])[:, 0].max()) + 2
        cv2.putText(
            img, label, (x0, int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA
        )
    return img


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    src = Path(args[0])
    out = Path(args[1]) if len(args) > 1 else src.with_name(src.stem + "_overlay.png")
    cv2.imwrite(str(out), draw_overlay(src))
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
