"""The camera seen from the tray: focal length, tilt and height from a rectangular floor.

A pinhole camera with square pixels and its principal point at the image centre is assumed.
A rectangle's four corners fix the homography floor -> image; the two floor axes must map to
orthogonal, equally long directions, which gives the focal length (when the camera is tilted
enough for it to show) and the rectangle's aspect ratio (when its size is not given). Without
a usable tilt the focal length falls back to a phone-like default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Default focal length as a share of the image diagonal: a 72 degree diagonal field of
#: view, the middle of phone main cameras and webcams.
DEFAULT_FOCAL_DIAG = 0.5 / math.tan(math.radians(36.0))


@dataclass(frozen=True)
class CameraPose:
    """Camera intrinsics and pose relative to the floor plane (floor units: mm or relative).

    ``k`` (3, 3) maps camera rays to pixels; ``r`` (3, 3) and ``t`` (3,) map floor
    coordinates ``(X, Y, Z)`` (Z up, towards the camera) to the camera frame. ``height``
    is the camera's height above the floor in floor units; ``tilt_deg`` the angle between
    the optical axis and straight down; ``focal_known`` says whether the focal length was
    measured (True) or assumed.
    """

    k: FloatArray
    r: FloatArray
    t: FloatArray
    height: float
    tilt_deg: float
    focal_known: bool

    @property
    def centre(self) -> FloatArray:
        """The camera centre in floor coordinates (3,)."""
        return np.asarray(-self.r.T @ self.t, dtype=np.float64)

    def project(self, pts: FloatArray) -> FloatArray:
        """Floor-frame points (N, 3) to pixels (N, 2)."""
        cam = np.atleast_2d(pts) @ self.r.T + self.t
        uvw = cam @ self.k.T
        return np.asarray(uvw[:, :2] / uvw[:, 2:3], dtype=np.float64)

    def back_project(self, px: FloatArray, z: float = 0.0) -> FloatArray:
        """Pixels (N, 2) to the floor-frame points (N, 3) on the plane at height ``z``."""
        px = np.atleast_2d(px)
        rays = np.linalg.solve(self.k, np.vstack([px.T, np.ones(px.shape[0])]))
        dirs = (self.r.T @ rays).T
        c = self.centre
        s = (z - c[2]) / dirs[:, 2]
        return np.asarray(c[None, :] + dirs * s[:, None], dtype=np.float64)

    def nadir(self) -> tuple[float, float] | None:
        """Image point straight below the camera (vanishing point of vertical lines)."""
        v = self.k @ self.r @ np.array([0.0, 0.0, -1.0])
        if abs(v[2]) < 1e-9:
            return None
        return (float(v[0] / v[2]), float(v[1] / v[2]))


def order_quad(quad: FloatArray) -> FloatArray:
    """The four corners ordered around the quad, starting nearest the image's top-left."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0)


def pose_from_quad(
    quad: FloatArray,
    image_size: tuple[int, int],
    *,
    size: tuple[float, float] | None = None,
    focal_px: float | None = None,
) -> tuple[CameraPose, tuple[float, float]] | None:
    """Camera pose from the floor's four corners in the image; None when they are degenerate.

    ``quad`` (4, 2) pixels in any order; ``size`` the floor's ``(width, depth)`` in mm along
    its first and second edge, if known (then the floor frame is in mm). Returns the pose and
    the floor size used (from the image when not given; then in units of the floor depth).
    """
    q = order_quad(quad)
    w, h = image_size
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    g = cv2.getPerspectiveTransform(unit.astype(np.float32), q.astype(np.float32)).astype(
        np.float64
    )
    # Centre the image coordinates on the principal point.
    g = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64) @ g
    g1, g2 = g[:, 0], g[:, 1]
    diag = math.hypot(w, h)
    f_default = DEFAULT_FOCAL_DIAG * diag
    f2 = -(g1[0] * g2[0] + g1[1] * g2[1]) / (g1[2] * g2[2]) if abs(g1[2] * g2[2]) > 1e-12 else -1
    focal_known = False
    f = f_default
    if focal_px is not None:
        f, focal_known = focal_px, True
    elif f2 > 0:
        f_meas = math.sqrt(f2)
        if 0.45 * diag <= f_meas <= 1.6 * diag:
            f, focal_known = f_meas, True
    kinv = np.diag([1.0 / f, 1.0 / f, 1.0])
    a1, a2 = kinv @ g1, kinv @ g2
    if size is not None:
        width, depth = float(size[0]), float(size[1])
        # The longer measured side takes the longer of the given sizes.
        ratio_img = float(np.linalg.norm(a1) / np.linalg.norm(a2))
        if (ratio_img >= 1.0) != (width >= depth):
            width, depth = depth, width
    else:
        depth = 1.0
        width = float(np.linalg.norm(a1) / np.linalg.norm(a2))
    h1 = a1 / width
    h2 = a2 / depth
    lam = 2.0 / (np.linalg.norm(h1) + np.linalg.norm(h2))
    r1 = h1 * lam
    r2 = h2 * lam
    r3 = np.cross(r1, r2)
    t = kinv @ g[:, 2] * lam
    if t[2] < 0:  # the floor must lie in front of the camera
        r1, r2, t = -r1, -r2, -t
        r3 = np.cross(r1, r2)
    rot = np.stack([r1, r2, r3], axis=1)
    u, _s, vt = np.linalg.svd(rot)
    rot = u @ vt
    if np.linalg.det(rot) < 0:
        return None
    k = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], np.float64)
    pose = CameraPose(k=k, r=rot, t=t, height=0.0, tilt_deg=0.0, focal_known=focal_known)
    centre = pose.centre
    # Z must point towards the camera: flip the floor frame's handedness if needed.
    if centre[2] < 0:
        flip = np.diag([1.0, 1.0, -1.0])
        rot = rot @ flip
        pose = CameraPose(k=k, r=rot, t=t, height=0.0, tilt_deg=0.0, focal_known=focal_known)
        centre = pose.centre
    axis = rot[2, :]  # optical axis in floor coordinates
    tilt = math.degrees(math.acos(min(1.0, abs(float(axis[2])))))
    pose = CameraPose(
        k=k, r=rot, t=t, height=float(centre[2]), tilt_deg=tilt, focal_known=focal_known
    )
    return pose, (width, depth)


def default_pose(image_size: tuple[int, int], height: float = 1.0) -> CameraPose:
    """A camera looking straight down from ``height`` with the default focal length."""
    w, h = image_size
    f = DEFAULT_FOCAL_DIAG * math.hypot(w, h)
    k = np.array([[f, 0, (w - 1) / 2.0], [0, f, (h - 1) / 2.0], [0, 0, 1]], np.float64)
    # Camera x = floor X, camera y = -floor Y, camera z (forward) = -floor Z.
    r = np.diag([1.0, -1.0, -1.0])
    t = np.array([0.0, 0.0, height])
    return CameraPose(k=k, r=r, t=t, height=height, tilt_deg=0.0, focal_known=False)


def pose_from_nadir(
    nadir_xy: tuple[float, float], image_size: tuple[int, int], *, focal_px: float | None = None
) -> CameraPose:
    """A camera of height 1 whose straight-down point is ``nadir_xy`` (pixels).

    The floor frame's X axis follows the image's x axis as closely as the tilt allows.
    ``focal_px`` defaults to :data:`DEFAULT_FOCAL_DIAG` times the image diagonal.
    """
    w, h = image_size
    f = focal_px or DEFAULT_FOCAL_DIAG * math.hypot(w, h)
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    k = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], np.float64)
    # Floor "down" (-Z) in camera coordinates is the ray through the nadir.
    down = np.array([nadir_xy[0] - cx, nadir_xy[1] - cy, f], np.float64)
    down /= np.linalg.norm(down)
    z_cam = -down  # floor Z axis expressed in camera coordinates
    x_cam = np.array([1.0, 0.0, 0.0]) - z_cam[0] * z_cam
    x_cam /= np.linalg.norm(x_cam)
    y_cam = np.cross(z_cam, x_cam)
    r = np.stack([x_cam, y_cam, z_cam], axis=1)  # floor -> camera
    # The camera centre sits at floor (0, 0, 1): t = -R @ C.
    t = -r @ np.array([0.0, 0.0, 1.0])
    tilt = math.degrees(math.acos(min(1.0, float(down[2]))))
    return CameraPose(k=k, r=r, t=t, height=1.0, tilt_deg=tilt, focal_known=False)
