"""Leaning by analysis by synthesis: cube wireframes, flat and leaning, scored on image edges.

A die that leans on a wall or another die rests on one bottom edge, far from its support,
with its other bottom edge propped against the support: its top face tilts away from the
support and the side face towards the support turns up into view. For a die whose top
face centre the reader saw at ``t``, the camera model predicts every visible edge of a flat
cube there (its outline and the creases between the faces it shows, perspective included)
and of cubes leaning 10 to 45 degrees towards the support. Each hypothesis is scored by the
brightness gradient across its predicted edges (any colours: only the gradient's component
across each edge counts), so no die pixels need to be segmented first: the side face that
shows a lean is often dark and sits against its support's shadow or face, where colour
segmentation fails, but its crease with the top face and its far edge still show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraPose

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: Tilts (degrees) tried for a leaning die.
LEAN_TILTS_DEG = (10.0, 20.0, 30.0, 45.0)
#: Turns (degrees) of a flat die tried (a cube repeats every 90 degrees).
FLAT_YAWS_DEG = tuple(float(a) for a in np.arange(0.0, 90.0, 7.5))
#: Turns tried about the support's direction for a leaning die: it leans on an edge or a
#: face of its support, so its faces stay nearly square to the support.
LEAN_YAWS_DEG = (-12.0, -6.0, 0.0, 6.0, 12.0)
#: A predicted edge counts as present when the gradient across it reaches this share of
#: the mean gradient across the best flat cube's edges (the die's own contrast); a
#: predicted edge below it costs, so a hypothesis gains nothing from edges the photo lacks.
PRESENT_SHARE = 0.5
#: Added to the flat score's size when the gain is taken relative to it, so a die with
#: hardly any contrast (a flat score near zero) does not make any difference look large.
GAIN_FLOOR = 20.0
#: Smoothing (pixels) before the gradient: sensor noise at the pixel scale would swamp a
#: thin side face's edges.
_BLUR_SIGMA = 1.0
#: Share of each edge sampled (a real die's corners are rounded) and samples per edge.
_EDGE_SPAN = (0.15, 0.85)
_SAMPLES = 9
#: Cube edges as corner index pairs (corner bits: 4 along the support, 2 sideways, 1 up).
_EDGES = tuple((i, j) for i in range(8) for j in range(i + 1, 8) if bin(i ^ j).count("1") == 1)
_FRACTIONS = np.linspace(_EDGE_SPAN[0], _EDGE_SPAN[1], _SAMPLES)


@dataclass(frozen=True)
class LeanScore:
    """Edge evidence for one die and one support direction.

    ``flat`` and ``lean`` are the scores of the best flat and best leaning cube (per die
    side in pixels: gradient beyond the present level, summed along the predicted edges);
    ``gain`` is their difference relative to the flat score; ``tilt_deg`` is the tilt of
    the best leaning cube and ``extra_px`` how much further (pixels) its outline reaches
    towards the support than the best flat cube's.
    """

    flat: float
    lean: float
    gain: float
    tilt_deg: float
    extra_px: float
    contrast: float = 0.0


class EdgeField:
    """Brightness gradient of a window of the photo, sampled at photo coordinates."""

    def __init__(self, image_bgr: Image, centre: tuple[float, float], radius: float) -> None:
        h, w = image_bgr.shape[:2]
        r = math.ceil(radius) + 3
        cx, cy = round(centre[0]), round(centre[1])
        self.x0, self.y0 = max(0, cx - r), max(0, cy - r)
        x1, y1 = min(w, cx + r + 1), min(h, cy + r + 1)
        crop = image_bgr[self.y0 : y1, self.x0 : x1]
        grey = np.asarray(
            cv2.GaussianBlur(
                cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), _BLUR_SIGMA
            ),
            np.float32,
        )
        # Sobel's 3x3 kernel sums 8 pixel differences: divided, grey levels per pixel.
        self.gx = np.asarray(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), np.float32) / 8.0
        self.gy = np.asarray(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3), np.float32) / 8.0

    def across(self, pts: FloatArray, normals: FloatArray) -> FloatArray:
        """|gradient . normal| (N,) at photo points (N, 2) with unit normals (N, 2),
        interpolated; 0 outside the window."""
        mx = (pts[:, 0] - self.x0).astype(np.float32).reshape(1, -1)
        my = (pts[:, 1] - self.y0).astype(np.float32).reshape(1, -1)
        gx = cv2.remap(self.gx, mx, my, cv2.INTER_LINEAR, borderValue=0.0)[0]
        gy = cv2.remap(self.gy, mx, my, cv2.INTER_LINEAR, borderValue=0.0)[0]
        return np.asarray(np.abs(gx * normals[:, 0] + gy * normals[:, 1]), np.float64)


def cube_corners(
    pose: CameraPose, t_px: FloatArray, side: float, u: FloatArray, tilt_deg: float
) -> FloatArray:
    """Corners (8, 3) of a cube resting on the floor whose top face centre is seen at ``t_px``.

    ``side`` in floor units; ``u`` a horizontal unit direction (2,): the cube's faces are
    square to it and it leans ``tilt_deg`` towards it (top face tilted away from ``u``,
    lowest edge on the floor on the far side, the face towards ``u`` turned up); 0 is a
    flat cube. Corner ``k``'s bits say its side: 4 along ``u``, 2 across it, 1 up.
    """
    th = math.radians(tilt_deg)
    eu = np.array([u[0], u[1], 0.0])
    ev = np.array([-u[1], u[0], 0.0])
    ez = np.array([0.0, 0.0, 1.0])
    nu = math.cos(th) * eu + math.sin(th) * ez
    nz = math.cos(th) * ez - math.sin(th) * eu
    h = 0.5 * side
    # The lowest edge on the floor puts the cube's centre this high.
    centre_z = h * (math.cos(th) + math.sin(th))
    top = pose.back_project(t_px[None, :], z=centre_z + h * math.cos(th))[0]
    centre = top - h * nz
    pts = [
        centre + h * (a * nu + b * ev + c * nz) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)
    ]
    return np.array(pts, np.float64)


def _visible_edges(pose: CameraPose, corners: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Sample points (N, 2) and unit normals (N, 2) along the visible edges of a cube."""
    cam = pose.centre
    centre = corners.mean(axis=0)
    visible = set()
    for bit in (4, 2, 1):
        for side in (0, 1):
            fc = corners[[k for k in range(8) if bool(k & bit) == bool(side)]].mean(axis=0)
            if float(np.dot(fc - centre, cam - fc)) > 0:
                visible.add((bit, side))
    px = pose.project(corners)
    starts, vecs = [], []
    for i, j in _EDGES:
        # An edge shows when one of the two faces that meet along it faces the camera.
        faces = [(bit, int(bool(i & bit))) for bit in (4, 2, 1) if not (i ^ j) & bit]
        if not any(f in visible for f in faces):
            continue
        starts.append(px[i])
        vecs.append(px[j] - px[i])
    p = np.array(starts)
    e = np.array(vecs)
    length = np.maximum(np.hypot(e[:, 0], e[:, 1]), 1e-9)
    normals = np.stack([-e[:, 1] / length, e[:, 0] / length], axis=1)
    pts = p[:, None, :] + _FRACTIONS[None, :, None] * e[:, None, :]
    # Each sample stands for its share of the edge's length.
    weight = np.repeat(length / _SAMPLES, _SAMPLES)
    return pts.reshape(-1, 2), np.repeat(normals, _SAMPLES, axis=0) * weight[:, None]


def _score(field: EdgeField, pts: FloatArray, weighted: FloatArray, present: float) -> float:
    """Sum over the samples of edge length times (gradient across - ``present``)."""
    w = np.hypot(weighted[:, 0], weighted[:, 1])
    g = field.across(pts, weighted / np.maximum(w, 1e-12)[:, None])
    return float((w * (g - present)).sum())


def lean_score(
    field: EdgeField,
    pose: CameraPose,
    side: float,
    t_px: FloatArray,
    w_img: FloatArray,
    side_px: float,
) -> LeanScore:
    """Score flat and leaning cubes at a die's top face ``t_px`` against ``field``'s edges.

    ``side`` is the die's side in floor units and ``side_px`` in pixels (the window of
    ``field`` must reach about 1.8 sides around ``t_px``); ``w_img`` the unit image
    direction (2,) from the die to its support.
    """
    top = pose.back_project(t_px[None, :], z=side)[0]
    ahead = pose.back_project((t_px + w_img * side_px)[None, :], z=side)[0]
    d = ahead[:2] - top[:2]
    u0 = d / max(1e-9, float(np.hypot(*d)))

    def turned(deg: float) -> FloatArray:
        a = math.radians(deg)
        c, s = math.cos(a), math.sin(a)
        return np.array([c * u0[0] - s * u0[1], s * u0[0] + c * u0[1]])

    flats = []
    for yaw in FLAT_YAWS_DEG:
        corners = cube_corners(pose, t_px, side, turned(yaw), 0.0)
        pts, weighted = _visible_edges(pose, corners)
        raw = _score(field, pts, weighted, 0.0)
        length = float(np.hypot(weighted[:, 0], weighted[:, 1]).sum())
        flats.append((raw, length, pts, weighted, corners))
    raw, length, *_ = max(flats, key=lambda f: f[0])
    present = PRESENT_SHARE * raw / max(length, 1.0)
    flat_best, flat_far = -math.inf, 0.0
    for _raw, _len, pts, weighted, corners in flats:
        sc = _score(field, pts, weighted, present)
        if sc > flat_best:
            flat_best = sc
            flat_far = float((pose.project(corners) @ w_img).max())
    lean_best, tilt_best, lean_far = -math.inf, 0.0, 0.0
    for tilt in LEAN_TILTS_DEG:
        for yaw in LEAN_YAWS_DEG:
            corners = cube_corners(pose, t_px, side, turned(yaw), tilt)
            sc = _score(field, *_visible_edges(pose, corners), present)
            if sc > lean_best:
                lean_best, tilt_best = sc, tilt
                lean_far = float((pose.project(corners) @ w_img).max())
    flat = flat_best / side_px
    lean = lean_best / side_px
    return LeanScore(
        flat=flat,
        lean=lean,
        gain=(lean - flat) / (abs(flat) + GAIN_FLOOR),
        tilt_deg=tilt_best,
        extra_px=lean_far - flat_far,
        contrast=present / PRESENT_SHARE,
    )
