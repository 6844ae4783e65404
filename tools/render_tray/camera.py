"""Pinhole camera that matches Mitsuba 3's `perspective` sensor with `fov_axis="x"`.

Mitsuba's `look_at` camera frame has +x pointing to the image's left, +y up and +z forward,
and a pixel index i covers the continuous range [i, i + 1). Projections here are returned in
the OpenCV convention instead: x to the right, y down, the centre of pixel (0, 0) at (0, 0);
that is Mitsuba's continuous film coordinate minus 0.5.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Camera:
    """A pinhole camera in world mm (z up): origin, look-at target, up hint, horizontal FOV."""

    origin: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float]
    fov_x_deg: float
    width: int
    height: int

    def axes(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """OpenCV camera axes in world coordinates: (right, down, forward) unit vectors."""
        o, t, u = (np.array(a, dtype=float) for a in (self.origin, self.target, self.up))
        fwd = t - o
        fwd /= np.linalg.norm(fwd)
        left = np.cross(u, fwd)
        left /= np.linalg.norm(left)
        cam_up = np.cross(fwd, left)
        return -left, -cam_up, fwd

    @property
    def focal_px(self) -> float:
        """Focal length in pixels (square pixels, so fx = fy)."""
        return (self.width / 2) / math.tan(math.radians(self.fov_x_deg) / 2)

    def intrinsics(self) -> FloatArray:
        """3x3 OpenCV camera matrix K (pixel centres at integer coordinates)."""
        f = self.focal_px
        return np.array(
            [[f, 0.0, self.width / 2 - 0.5], [0.0, f, self.height / 2 - 0.5], [0.0, 0.0, 1.0]]
        )

    def world_to_camera(self) -> tuple[FloatArray, FloatArray]:
        """(R, t) with x_cam = R @ x_world + t in the OpenCV camera frame (x right, y down)."""
        right, down, fwd = self.axes()
        rot = np.stack([right, down, fwd])
        return rot, -rot @ np.array(self.origin, dtype=float)

    def project(self, points: FloatArray) -> FloatArray:
        """Project world points (N, 3) mm to pixel coordinates (N, 2), OpenCV convention."""
        pts = np.atleast_2d(np.asarray(points, dtype=float))
        rot, t = self.world_to_camera()
        cam = pts @ rot.T + t
        uvw = cam @ self.intrinsics().T
        return uvw[:, :2] / uvw[:, 2:3]

    def depth(self, points: FloatArray) -> FloatArray:
        """Depth (mm along the optical axis) of world points (N, 3)."""
        pts = np.atleast_2d(np.asarray(points, dtype=float))
        rot, t = self.world_to_camera()
        return (pts @ rot.T + t)[:, 2]

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down."""
        fwd = self.axes()[2]
        return math.degrees(math.acos(max(-1.0, min(1.0, -float(fwd[2])))))

    def height_above(self, z: float = 0.0) -> float:
        """Height of the camera centre above the plane z (mm)."""
        return self.origin[2] - z
