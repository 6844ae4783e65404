"""Leaning by analysis by synthesis: cube wireframes, flat and leaning, scored on image edges.

A die that leans on a wall or another die rests on one bottom edge, far from its support,
with its other bottom edge propped against the support: its top face tilts away from the
support and the side face towards the support turns up into view. For a die whose top
face centre the reader saw at ``t``, the camera model predicts every visible edge of a flat
cube there (its outline and the creases between the faces it shows, perspective included)
and of cubes leaning 8 to 45 degrees towards the support. The die's turn comes from its own
edges (a leaning die's top face shows its turn as a flat die's does), and it can lean only
along one of its faces' normals, so the leaning cubes keep that turn; a flat cube may show
its side faces more or less than the estimated camera predicts (another lens, a die of
another size), so a lean must show as a side face towards the support, not merely as a
missing side face on the far side; and a leaning cube must touch its support (a wall's foot
on the floor outline, a face of the die it leans on). Each hypothesis is scored by the
brightness gradient across its predicted edges (any colours: only the gradient's component
across each edge counts), so no die pixels need to be segmented first: the side face that
shows a lean is often dark and sits against its support's shadow or face, where colour
segmentation fails, but its crease with the top face and its far edge still show.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraPose

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: Tilts (degrees) tried for a leaning die.
LEAN_TILTS_DEG = (8.0, 12.0, 16.0, 20.0, 25.0, 30.0, 38.0, 45.0)
#: Radius (die sides) around a top face within which the gradients tell a die's turn: the
#: top face and its edges, little of the neighbours'.
TURN_REACH = 0.6
#: Turns (degrees) tried about the gradients' turn, fitting the top face's edges.
TURN_REFINE_DEG = tuple(float(v) for v in np.arange(-6.0, 6.01, 1.5))
#: Turns (degrees) tried about the best flat cube's turn, for the flat and the leaning
#: cubes alike: a leaning die's top face shows its turn as a flat die's does.
FINE_YAWS_DEG = (-3.75, 0.0, 3.75)
#: A face narrower than this (pixels, seen from the camera) shows no edges of its own.
MIN_FACE_PX = 1.5
#: A cube leaning on a wall reaches the floor outline's side it stands on within these
#: shares of a die side: short of it by at most WALL_GAP, past it by at most WALL_PAST.
#: The outline is measured to about a third of a die (it stops at a wall's hard shadow,
#: or runs on over a wall's face of the floor's colour), and the die's height above the
#: floor seen through an estimated camera adds to that; a flat die against a wall seen as a
#: steep lean reaches half a die or more past it.
WALL_GAP = 0.4
WALL_PAST = 0.35
#: Shares of a flat die's predicted side faces tried: the camera's focal length (taken as a
#: phone's or a webcam's when the floor cannot tell it) and the die's size are estimates,
#: and a wider or a longer lens shows more or less of a flat die's side faces.
SIDE_SHARES = (1.25, 1.0, 0.6, 0.1)
#: A prop's faces must be square to the lean within this many degrees (two dice touching
#: corner to face or corner to corner do not lean on each other).
PROP_TURN_DEG = 30.0
#: A leaning cube touches its prop's face within this many die sides (the places of both
#: top faces and of the prop's face are measured to a few pixels).
CONTACT_TOL = 0.12
#: A die leans on a wall or a die with a face nearly square to it (it rests on one bottom
#: edge, turned up towards the support): at most this far (degrees) from square.
MAX_LEAN_TURN_DEG = 30.0
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
    #: The best flat and leaning cubes' corners (8, 3), floor frame; None without them.
    flat_corners: FloatArray | None = dataclasses.field(default=None, repr=False, compare=False)
    lean_corners: FloatArray | None = dataclasses.field(default=None, repr=False, compare=False)


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

    def square_angle(self, centre: FloatArray, radius: float) -> float:
        """The image angle (radians, modulo pi / 2) of the square edges within ``radius``
        pixels of ``centre`` (x, y): the mean of four times the gradients' angles, each
        weighted by its squared size."""
        h, w = self.gx.shape
        ys, xs = np.mgrid[0:h, 0:w]
        near = np.hypot(xs + self.x0 - centre[0], ys + self.y0 - centre[1]) <= radius
        gx, gy = self.gx[near].astype(np.float64), self.gy[near].astype(np.float64)
        ang = np.arctan2(gy, gx)
        mag2 = gx * gx + gy * gy
        c = float((mag2 * np.cos(4.0 * ang)).sum())
        s = float((mag2 * np.sin(4.0 * ang)).sum())
        return 0.25 * math.atan2(s, c)

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
    """Sample points (N, 2) and length-weighted unit normals (N, 2) along the visible
    edges of a cube."""
    cam = pose.centre
    centre = corners.mean(axis=0)
    px = pose.project(corners)
    visible = set()
    for bit in (4, 2, 1):
        others = [b for b in (4, 2, 1) if b != bit]
        for side in (0, 1):
            base = bit if side else 0
            # The face's corners in order around it.
            ring = [base, base | others[1], base | others[0] | others[1], base | others[0]]
            fc = corners[ring].mean(axis=0)
            if float(np.dot(fc - centre, cam - fc)) <= 0:
                continue
            # A face seen nearly edge-on shows no edges of its own: its far edge would
            # lie on the edge it shares with the face beside it.
            q = px[ring]
            area = 0.5 * abs(
                float(np.dot(q[:, 0], np.roll(q[:, 1], -1)) - np.dot(q[:, 1], np.roll(q[:, 0], -1)))
            )
            longest = float(np.hypot(*(q - np.roll(q, -1, axis=0)).T).max())
            if area >= MIN_FACE_PX * longest:
                visible.add((bit, side))
    shown = []
    for i, j in _EDGES:
        # An edge shows when one of the two faces that meet along it faces the camera.
        faces = [(bit, int(bool(i & bit))) for bit in (4, 2, 1) if not (i ^ j) & bit]
        if any(f in visible for f in faces):
            shown.append((i, j))
    return _edge_samples(px, shown)


def _edge_samples(px: FloatArray, edges: list[tuple[int, int]]) -> tuple[FloatArray, FloatArray]:
    """Sample points (N, 2) and length-weighted unit normals (N, 2) along the ``edges``
    (corner index pairs) of the projected corners ``px`` (8, 2)."""
    p = np.array([px[i] for i, _j in edges])
    e = np.array([px[j] - px[i] for i, j in edges])
    length = np.maximum(np.hypot(e[:, 0], e[:, 1]), 1e-9)
    normals = np.stack([-e[:, 1] / length, e[:, 0] / length], axis=1)
    pts = p[:, None, :] + _FRACTIONS[None, :, None] * e[:, None, :]
    # Each sample stands for its share of the edge's length.
    weight = np.repeat(length / _SAMPLES, _SAMPLES)
    return pts.reshape(-1, 2), np.repeat(normals, _SAMPLES, axis=0) * weight[:, None]


def _top_edges(pose: CameraPose, corners: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Sample points (N, 2) and length-weighted normals (N, 2) along a cube's top face."""
    return _edge_samples(pose.project(corners), [(i, j) for i, j in _EDGES if i & j & 1])


def _score(field: EdgeField, pts: FloatArray, weighted: FloatArray, present: float) -> float:
    """Sum over the samples of edge length times (gradient across - ``present``)."""
    w = np.hypot(weighted[:, 0], weighted[:, 1])
    g = field.across(pts, weighted / np.maximum(w, 1e-12)[:, None])
    return float((w * (g - present)).sum())


def _turned(u0: FloatArray, deg: float) -> FloatArray:
    """The horizontal unit direction ``u0`` (2,) turned by ``deg`` degrees."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([c * u0[0] - s * u0[1], s * u0[0] + c * u0[1]])


def top_face_turn(
    field: EdgeField, pose: CameraPose, side: float, t_px: FloatArray, u0: FloatArray
) -> tuple[float, float]:
    """``(turn_deg, contrast)``: the turn from ``u0`` (a floor direction (2,)) of the flat
    die whose top face is seen at ``t_px``, and the mean gradient across its top face's
    edges (grey levels per pixel).

    A die's outline and creases run along two square directions, so the brightness
    gradients around it, their angles taken four times over, agree on its turn; round pips
    have gradients of every angle, which cancel. That turn is refined by its top face's four
    edges (the top face always shows, whatever the side faces do): the turn whose edges
    cross the most gradient per pixel of edge.
    """
    top = pose.back_project(t_px[None, :], z=side)[0]
    probe = pose.project(np.array([[top[0] + side, top[1], side]]))[0] - t_px
    side_px = float(np.hypot(*probe))
    image_angle = field.square_angle(t_px, TURN_REACH * side_px)
    ahead = t_px + side_px * np.array([math.cos(image_angle), math.sin(image_angle)])
    d = pose.back_project(ahead[None, :], z=side)[0][:2] - top[:2]
    start = math.degrees(math.atan2(d[1], d[0]) - math.atan2(u0[1], u0[0]))
    yaw_best, top_best = 0.0, -math.inf
    for dyaw in TURN_REFINE_DEG:
        yaw = start + dyaw
        pts, weighted = _top_edges(pose, cube_corners(pose, t_px, side, _turned(u0, yaw), 0.0))
        length = float(np.hypot(weighted[:, 0], weighted[:, 1]).sum())
        per_px = _score(field, pts, weighted, 0.0) / max(length, 1.0)
        if per_px > top_best:
            yaw_best, top_best = yaw, per_px
    return (yaw_best + 45.0) % 90.0 - 45.0, top_best


def lean_score(
    field: EdgeField,
    pose: CameraPose,
    side: float,
    t_px: FloatArray,
    w_img: FloatArray,
    side_px: float,
    *,
    prop: tuple[FloatArray, FloatArray, float] | None = None,
    wall: tuple[FloatArray, FloatArray] | None = None,
) -> LeanScore:
    """Score flat and leaning cubes at a die's top face ``t_px`` against ``field``'s edges.

    ``side`` is the die's side in floor units and ``side_px`` in pixels (the window of
    ``field`` must reach about 1.8 sides around ``t_px``); ``w_img`` the unit image
    direction (2,) from the die to its support. The flat cube's best turn is the die's own
    (its top face shows it); a die leans about one of its bottom edges, so the leaning
    cubes keep that turn and lean along the face normal nearest the support. A die whose
    faces are not nearly square to the support cannot lean on it: its gain is 0. ``prop``,
    for a die as the support, is that flat die's top face centre (floor frame, (3,)), a
    unit floor direction (3,) square to its faces and its side: a leaning cube must touch
    its face, so only the tilts that put the cube against it are tried. ``wall``, for a
    wall as the support, is a floor point at its foot and its unit normal into the tray
    (floor frame, (3,) each): a leaning cube must reach it, and not far through it.
    """
    top = pose.back_project(t_px[None, :], z=side)[0]
    ahead = pose.back_project((t_px + w_img * side_px)[None, :], z=side)[0]
    d = ahead[:2] - top[:2]
    u0 = d / max(1e-9, float(np.hypot(*d)))

    def scored(corners: FloatArray, present: float) -> float:
        return _score(field, *_visible_edges(pose, corners), present)

    def reach(corners: FloatArray) -> float:
        return float((pose.project(corners) @ w_img).max())

    yaw_best, top_best = top_face_turn(field, pose, side, t_px, u0)
    present = PRESENT_SHARE * top_best
    flat_best, flat_yaw, flat_corners = -math.inf, yaw_best, np.zeros((8, 3))
    for dyaw in FINE_YAWS_DEG:
        cube = cube_corners(pose, t_px, side, _turned(u0, yaw_best + dyaw), 0.0)
        for share in SIDE_SHARES:
            # The camera's focal length and the die's size are estimated: a flat die may
            # show its side faces more or less than predicted, as a higher or lower cube.
            corners = cube.copy()
            corners[0::2, 2] += (1.0 - share) * side
            sc = scored(corners, present)
            if sc > flat_best:
                flat_best, flat_yaw, flat_corners = sc, yaw_best + dyaw, corners
    no_lean = LeanScore(flat_best / side_px, -math.inf, 0.0, 0.0, 0.0, top_best)
    # The face normal nearest the support: the yaw folded into (-45, 45] degrees.
    lean_yaw = (flat_yaw + 45.0) % 90.0 - 45.0
    if abs(lean_yaw) > MAX_LEAN_TURN_DEG:
        return no_lean
    if prop is not None:
        # A die leans with a face on a face of its prop: the prop too is square to the lean.
        c = abs(float(np.dot(_turned(u0, lean_yaw), prop[1][:2])))
        if min(c, math.sqrt(max(0.0, 1.0 - c * c))) > math.sin(math.radians(PROP_TURN_DEG)):
            return no_lean
    lean_best, tilt_best, lean_corners = -math.inf, 0.0, flat_corners
    for tilt in LEAN_TILTS_DEG:
        for dyaw in FINE_YAWS_DEG:
            u = _turned(u0, lean_yaw + dyaw)
            corners = cube_corners(pose, t_px, side, u, tilt)
            if prop is not None and abs(_prop_gap(corners, u, prop) / side) > CONTACT_TOL:
                continue
            if wall is not None:
                past = float(((corners - wall[0][None, :]) @ -wall[1]).max()) / side
                if not -WALL_GAP <= past <= WALL_PAST:
                    continue
            sc = scored(corners, present)
            if sc > lean_best:
                lean_best, tilt_best, lean_corners = sc, tilt, corners
    if not math.isfinite(lean_best):
        return no_lean
    flat = flat_best / side_px
    lean = lean_best / side_px
    return LeanScore(
        flat=flat,
        lean=lean,
        gain=(lean - flat) / (abs(flat) + GAIN_FLOOR),
        tilt_deg=tilt_best,
        extra_px=reach(lean_corners) - reach(flat_corners),
        contrast=top_best,
        flat_corners=flat_corners,
        lean_corners=lean_corners,
    )


def _prop_gap(
    corners: FloatArray, u: FloatArray, prop: tuple[FloatArray, FloatArray, float]
) -> float:
    """Floor distance from a leaning cube (corners (8, 3), leaning along ``u`` (2,)) to
    its prop's face square to ``u``, half the prop's side from its top face centre;
    negative when the cube would reach into the prop."""
    ul = np.array([u[0], u[1], 0.0])
    reach_u = float(((corners - prop[0][None, :]) @ ul).max())
    return -0.5 * prop[2] - reach_u
