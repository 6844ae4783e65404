"""Refine a box tray's floor outline found on a small copy: fit each side to the photo.

The floor finder grows the floor from its lit colour on a small copy of the photo, so a
strip of floor in a wall's shadow is often left out, and the four corners taken from the
region's hull can be off (a side drawn at a slant). A flat die standing in such a strip
would count as off the tray. Here every side is fitted again at full resolution: across
the side, at several places along it, the photo is sampled on a short segment parallel to
the side (the median over a segment ignores dice and noise). Walking outwards from well
inside the floor, the floor ends at the first segment whose chromaticity (each of B, G, R
as a share of their sum) is not the floor's: a shadow scales B, G and R together, which
leaves their shares alone, while the wall's face has its own colour. The new side is the
straight line through those edge points that most of them lie near (a line through a pair
of them, with the least median distance to all, then refitted to those near it), so a die
or a glare at one place cannot tilt it.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

#: Furthest a side is searched, outwards and inwards, in die sides.
REACH = 2.5
#: Places along each side where the edge is looked for.
PLACES = 9
#: Smallest chromaticity difference that ends the floor; the floor's own spread can raise it.
MIN_CHROMA_STEP = 0.03
#: Segments darker than this (B + G + R) carry no usable colour: the floor ends there.
MIN_BRIGHTNESS = 24.0
#: A refit side may move at most this far (die sides) anywhere along it; beyond, the fit
#: is not believed and the side stays.
MAX_MOVE = 2.5


def refine_quad(
    image_bgr: Image,
    quad: FloatArray,
    die_px: float,
    floor_lab: tuple[float, float, float],
    *,
    near_xy: FloatArray | None = None,
) -> FloatArray:
    """The floor quadrilateral ``quad`` (4, 2) pixels with each side fitted to the photo.

    ``image_bgr`` (H, W, 3) uint8 BGR; ``die_px`` the typical die side in pixels, which
    sets how far a side is searched; ``floor_lab`` the lit floor's colour (OpenCV 8-bit
    Lab). With ``near_xy`` (N, 2) pixels (the dice), only the sides within reach of one of
    them are fitted: elsewhere the outline decides nothing. Sides that cannot be fitted
    stay as they are.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    if die_px <= 2:
        return q
    # No smoothing of the whole photo: the median over each segment's samples does that.
    bgr = image_bgr
    ref = cv2.cvtColor(
        np.array([[floor_lab]], np.float32).clip(0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR
    )
    floor_bgr = ref.astype(np.float64)[0, 0]
    centre = q.mean(axis=0)
    lines: list[tuple[FloatArray, FloatArray]] = []
    for i in range(4):
        p, r = q[i], q[(i + 1) % 4]
        d = r - p
        length = float(np.hypot(*d))
        if length < 4 * die_px:
            lines.append((p, d))
            continue
        n = np.array([-d[1], d[0]]) / length
        if float(np.dot(n, centre - p)) > 0:
            n = -n
        if near_xy is not None and not _any_near(near_xy, p, n, MAX_MOVE * die_px):
            lines.append((p, d))
            continue
        fitted = _fit_side(bgr, p, d, n, die_px, floor_bgr)
        lines.append(fitted if fitted is not None else (p, d))
    out = []
    for i in range(4):
        pt = _intersect(lines[i - 1], lines[i])
        if pt is None:
            return q
        out.append(pt)
    res = np.array(out, np.float64)
    if float(np.abs(res - q).max()) > 3.0 * MAX_MOVE * die_px:
        return q
    return res


def _fit_side(
    bgr: Image,
    p: FloatArray,
    d: FloatArray,
    n: FloatArray,
    die_px: float,
    floor_bgr: FloatArray,
) -> tuple[FloatArray, FloatArray] | None:
    """The side through ``p`` along ``d`` (outward normal ``n``) fitted to the floor's edge."""
    h, w = bgr.shape[:2]
    length = float(np.hypot(*d))
    step = max(0.5, 0.1 * die_px)
    offs = np.arange(-REACH * die_px, REACH * die_px + step, step)
    half = 0.5 / PLACES
    centres = (np.arange(PLACES) + 0.5) / PLACES
    # Each place: a segment of a ninth of the side, 9 samples along it.
    along = centres[:, None] + np.linspace(-0.8 * half, 0.8 * half, 9)[None, :]
    pts = (
        p[None, None, None, :] + along[:, None, :, None] * d + offs[None, :, None, None] * n
    )  # (places, offsets, samples, 2)
    mx = pts[..., 0].astype(np.float32)
    my = pts[..., 1].astype(np.float32)
    inside = (mx >= 0) & (mx <= w - 1) & (my >= 0) & (my <= h - 1)
    flat_x = mx.reshape(-1, mx.shape[-1])
    flat_y = my.reshape(-1, my.shape[-1])
    samples = np.asarray(cv2.remap(bgr, flat_x, flat_y, cv2.INTER_LINEAR), np.float32)
    samples = samples.reshape(*mx.shape, 3)
    prof = np.median(samples, axis=2)  # (places, offsets, 3) B, G, R
    ok_off = inside.mean(axis=2) > 0.9
    total = prof.sum(axis=2)
    shares = prof / np.maximum(total, 1.0)[..., None]
    ref = floor_bgr / max(1.0, float(floor_bgr.sum()))
    diff = np.sqrt(((shares - ref) ** 2).sum(axis=2))
    # The floor's own spread, from the inner half of the profiles.
    inner = offs < -0.5 * REACH * die_px
    spread = float(np.median(diff[:, inner])) if inner.any() else 0.0
    # Shares of a dark pixel are noisier (the same sensor noise on smaller values).
    bright = float(floor_bgr.sum())
    darker = np.sqrt(np.clip(bright / np.maximum(total, 1.0), 1.0, 9.0))
    tol = max(MIN_CHROMA_STEP, 2.5 * spread) * darker
    # Floor left out by the finder is floor in shade: its colour, not brighter than lit.
    floor_like = (diff < tol) & (total >= MIN_BRIGHTNESS) & (total < 1.3 * bright + 30.0)
    edge_pts = []
    for k in range(PLACES):
        run = floor_like[k] & ok_off[k]
        if not run[: max(1, int(inner.sum()) // 2)].any():
            continue  # no floor where it should be (a die or a glare): no edge here
        # The first floor-like offset from the inside, then the end of that run.
        start = int(np.argmax(run))
        stop = start
        while stop + 1 < len(offs) and run[stop + 1]:
            stop += 1
        if stop + 1 >= len(offs) or not ok_off[k, stop + 1]:
            continue  # the floor runs past the search: no edge found
        off = 0.5 * (offs[stop] + offs[stop + 1])
        edge_pts.append(p + centres[k] * d + off * n)
    if len(edge_pts) < 4:
        return None
    pts_arr = np.array(edge_pts)
    line = _robust_line(pts_arr)
    if line is None:
        return None
    q0, e = line
    # The new side must stay near the old one along its whole length.
    for t in (0.0, 1.0):
        x = p + t * d
        dist = abs(float(_cross(e, (x - q0)[None, :])[0]))
        if dist > MAX_MOVE * die_px:
            return None
    # Keep the side's direction sense.
    if float(np.dot(e, d)) < 0:
        e = -e
    return q0, e * length


def _robust_line(pts: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """A line (point, unit direction) through most of ``pts`` (N, 2): of the lines through
    two of the points, the one with the least median distance to all, then refitted by
    least squares to the points near it."""
    i, j = np.triu_indices(len(pts), k=1)
    e = pts[j] - pts[i]  # (pairs, 2)
    norm = np.hypot(e[:, 0], e[:, 1])
    keep = norm > 1e-6
    if not keep.any():
        return None
    i, e = i[keep], e[keep] / norm[keep, None]
    rel = pts[None, :, :] - pts[i][:, None, :]  # (pairs, points, 2)
    dist = np.abs(e[:, None, 0] * rel[..., 1] - e[:, None, 1] * rel[..., 0])
    best = int(np.argmin(np.median(dist, axis=1)))
    q0, e0 = pts[i[best]], e[best]
    d0 = dist[best]
    near = pts[d0 <= max(1.0, 2.0 * float(np.median(d0)) + 0.5)]
    if len(near) < 2:
        return np.asarray(q0, np.float64), np.asarray(e0, np.float64)
    c = near.mean(axis=0)
    _u, _s, vt = np.linalg.svd(near - c)
    e2 = vt[0] if float(np.dot(vt[0], e0)) >= 0 else -vt[0]
    return np.asarray(c, np.float64), np.asarray(e2, np.float64)


def _any_near(pts: FloatArray, p: FloatArray, n: FloatArray, reach: float) -> bool:
    """True when a point of ``pts`` (N, 2) lies within ``reach`` of the line through ``p``
    with unit normal ``n``."""
    if len(pts) == 0:
        return False
    return bool((np.abs((pts - p) @ n) <= reach).any())


def _cross(e: FloatArray, v: FloatArray) -> FloatArray:
    """The 2-D cross product of the vector ``e`` (2,) with each row of ``v`` (N, 2)."""
    return np.asarray(e[0] * v[:, 1] - e[1] * v[:, 0], np.float64)


def _intersect(
    a: tuple[FloatArray, FloatArray], b: tuple[FloatArray, FloatArray]
) -> FloatArray | None:
    """Intersection of two lines given as (point, direction)."""
    (p, d), (q, e) = a, b
    m = np.array([[d[0], -e[0]], [d[1], -e[1]]], np.float64)
    if abs(float(np.linalg.det(m))) < 1e-9:
        return None
    s, _t = np.linalg.solve(m, q - p)
    return np.asarray(p + s * d, np.float64)
