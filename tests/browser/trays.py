"""Drawn tray photos for the browser tests (when no sample photo fits)."""

from __future__ import annotations

from pathlib import Path


def draw_tray(values: list[int], path: Path) -> Path:
    """A plain drawn tray photo: white dice with black pips on green felt, in a row or two."""
    import cv2
    import numpy as np

    rng = np.random.default_rng(sum(values) * 31 + len(values))
    h, w = 720, 960
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (60, 110, 45)
    img = cv2.add(img, rng.integers(0, 12, img.shape, dtype=np.uint8))
    side = 90
    layout = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    }
    per_row = 5
    for k, v in enumerate(values):
        row, col = divmod(k, per_row)
        x0 = 110 + col * 160 + (row % 2) * 40
        y0 = 160 + row * 200
        cv2.rectangle(img, (x0, y0), (x0 + side, y0 + side), (245, 245, 245), -1, cv2.LINE_AA)
        cv2.rectangle(img, (x0, y0), (x0 + side, y0 + side), (120, 120, 120), 2, cv2.LINE_AA)
        cx, cy = x0 + side // 2, y0 + side // 2
        for gx, gy in layout[v]:
            cv2.circle(img, (cx + gx * 24, cy + gy * 24), 9, (20, 20, 20), -1, cv2.LINE_AA)
    cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return path
