"""Drawing tray scenes for the calibration tests: a table, a tray with walls, a floor, dice."""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]

W, H = 800, 600
TABLE = (60, 100, 150)  # light wood, BGR
WALL = (40, 40, 45)
FLOOR = (60, 120, 40)  # green felt


def noisy(img: Image, seed: int = 0, sigma: float = 4.0) -> Image:
    rng = np.random.default_rng(seed)
    return np.clip(img.astype(np.float32) + rng.normal(0, sigma, img.shape), 0, 255).astype(
        np.uint8
    )


def rect_tray(floor_quad: npt.NDArray[np.float64], wall_px: float = 30.0, seed: int = 0) -> Image:
    """A box tray: the floor quad (4, 2) with a wall band around it, on a table."""
    img = np.empty((H, W, 3), np.uint8)
    img[:] = TABLE
    c = floor_quad.mean(axis=0)
    outer = c + (floor_quad - c) * (1 + wall_px / np.linalg.norm(floor_quad - c, axis=1).mean())
    cv2.fillPoly(img, [np.round(outer).astype(np.int32)], WALL)
    cv2.fillPoly(img, [np.round(floor_quad).astype(np.int32)], FLOOR)
    return noisy(img, seed)


def round_tray(
    centre: tuple[float, float], axes: tuple[float, float], wall_px: float = 28.0, seed: int = 0
) -> Image:
    img = np.empty((H, W, 3), np.uint8)
    img[:] = TABLE
    cx, cy = round(centre[0]), round(centre[1])
    a, b = round(axes[0]), round(axes[1])
    cv2.ellipse(img, (cx, cy), (a + round(wall_px), b + round(wall_px)), 0, 0, 360, WALL, -1)
    cv2.ellipse(img, (cx, cy), (a, b), 0, 0, 360, FLOOR, -1)
    return noisy(img, seed)


def draw_die(img: Image, centre: tuple[float, float], side: float, value: int = 5) -> None:
    """A white die seen from above with black pips (drawn in place)."""
    x, y = centre
    h = side / 2
    cv2.rectangle(
        img, (round(x - h), round(y - h)), (round(x + h), round(y + h)), (235, 235, 235), -1
    )
    step = side * 0.27
    places = {1: [(0, 0)], 5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)]}[value]
    for gx, gy in places:
        cv2.circle(
            img,
            (round(x + gx * step), round(y + gy * step)),
            max(1, round(side * 0.09)),
            (20, 20, 20),
            -1,
        )


def poly_iou(p1: npt.NDArray[np.float64], p2: npt.NDArray[np.float64]) -> float:
    a = np.zeros((H, W), np.uint8)
    b = np.zeros((H, W), np.uint8)
    cv2.fillPoly(a, [np.round(p1).astype(np.int32)], 1)
    cv2.fillPoly(b, [np.round(p2).astype(np.int32)], 1)
    return float((a & b).sum() / max(1, (a | b).sum()))


def project_rect(
    width_mm: float,
    depth_mm: float,
    tilt_deg: float,
    height_mm: float = 450.0,
    focal: float = 700.0,
    yaw_deg: float = 25.0,
) -> npt.NDArray[np.float64]:
    """Image corners of a floor rectangle, turned by ``yaw_deg``, seen by a tilted camera.

    The camera tilts about the image x axis; a turned rectangle keeps both of its vanishing
    points finite, so the focal length can be measured from it.
    """
    t = math.radians(tilt_deg)
    # Camera looks down, rotated about x by the tilt; floor frame Z up, centred under target.
    r = np.array(
        [[1, 0, 0], [0, -math.cos(t), -math.sin(t)], [0, math.sin(t), -math.cos(t)]], float
    )
    centre = np.array([0.0, -height_mm * math.tan(t), height_mm])
    tvec = -r @ centre
    k = np.array([[focal, 0, (W - 1) / 2], [0, focal, (H - 1) / 2], [0, 0, 1]])
    w, d = width_mm / 2, depth_mm / 2
    pts = np.array([[-w, -d, 0], [w, -d, 0], [w, d, 0], [-w, d, 0]], float)
    y = math.radians(yaw_deg)
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    pts = pts @ rz.T
    cam = pts @ r.T + tvec
    uv = cam @ k.T
    return np.asarray(uv[:, :2] / uv[:, 2:3])
