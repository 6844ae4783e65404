"""Refine a tray floor outline found on a small copy: fit it to the photo at full resolution.

The floor finder grows the floor from its lit colour on a small copy of the photo, so a
strip of floor in a wall's shadow is often left out, a wall of a colour near the floor's
may be taken in, and the outline drawn around that region can be off (a side drawn at a
slant, an ellipse pulled towards a leak). A flat die standing in a left-out strip would
count as off the tray, a die on a taken-in rim as on it.

Here the outline is fitted again at full resolution. At many places along it, the photo is
sampled across the outline on short segments parallel to it (the median over a segment
ignores noise; samples on the dice are left out, so a die does not end the floor).
Walking outwards from well inside the floor, the floor ends at the first segment whose
chromaticity (each of B, G, R as a share of their sum) is not the floor's: a shadow scales
B, G and R together, which leaves their shares alone, while a wall or the table has its own
colour. A wall's face of a colour near the floor's still ends it: the brightness falls
sharply at the crease and stays down. A shadow too deep for its colour to be told
continues the floor when the floor darkens into it gradually (a wall's shadow); the floor
then ends at the darkest line of the shade, the crease. A box tray's side is then the
straight line through those edge points that most of them lie near; a round tray's floor
is the ellipse most of them lie near. A die or a glare at one place cannot move either.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
import numpy.typing as npt

from calibration.floor import ellipse_polygon
from calibration.stats import median, row_medians

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

#: Furthest the outline is searched inwards, in die sides.
REACH = 2.5
#: How far beyond the old outline the profiles reach (die sides): past a wall's shadow.
REACH_OUT = 5.0
#: Widest penumbra of a wall's shadow (die sides) from where the floor's colour is lost.
PENUMBRA = 2.0
#: Narrowest penumbra (die sides): a fall into deep shade quicker than this is a crease.
MIN_PENUMBRA = 0.3
#: Places along each box side where the edge is looked for.
PLACES = 13
#: Places around a round floor where the edge is looked for.
ROUND_PLACES = 40
#: Smallest chromaticity difference that ends the floor; the floor's own spread can raise it.
MIN_CHROMA_STEP = 0.03
#: Segments darker than this (B + G + R) carry no usable colour.
MIN_BRIGHTNESS = 24.0
#: A segment darker than this share of the lit floor is deep shade: its colour is not
#: trusted (sensor noise, light bounced off a coloured wall).
DEEP_SHADE = 0.3
#: A refit side may move at most this far (die sides) anywhere along it; beyond, the fit
#: is not believed and the side stays.
MAX_MOVE = 2.5
#: A fall in brightness to this share within 0.3 die sides, staying down, ends the floor;
#: so does a rise by this factor, staying up.
STEP_DROP = 0.8
STEP_RISE = 1.25
#: ...but not below this share: a sharp fall to a third or less is a shadow's edge (a wall's
#: face, lit from the same lights at another angle, is only moderately darker).
STEP_FLOOR = 0.35
#: Samples within this many die sides of a die's centre are left out (die and its shadow).
DIE_CLEARANCE = 0.85
#: Edge points within this many die sides of the fitted line or ellipse count as on it.
INLIER_TOL = 0.2


def refine_outline(
    image_bgr: Image,
    polygon: FloatArray,
    shape: str,
    die_px: float,
    floor_lab: tuple[float, float, float],
    *,
    dice_xy: FloatArray | None = None,
) -> FloatArray:
    """A floor outline (N, 2) pixels fitted to the photo: :func:`refine_quad` for a box
    floor (``shape`` "rect"), :func:`refine_round` for a round one."""
    if shape == "rect":
        return refine_quad(image_bgr, polygon, die_px, floor_lab, dice_xy=dice_xy)
    return refine_round(image_bgr, polygon, die_px, floor_lab, dice_xy=dice_xy)


def refine_quad(
    image_bgr: Image,
    quad: FloatArray,
    die_px: float,
    floor_lab: tuple[float, float, float],
    *,
    near_xy: FloatArray | None = None,
    dice_xy: FloatArray | None = None,
) -> FloatArray:
    """The floor quadrilateral ``quad`` (4, 2) pixels with each side fitted to the photo.

    ``image_bgr`` (H, W, 3) uint8 BGR; ``die_px`` the typical die side in pixels, which
    sets how far a side is searched; ``floor_lab`` the lit floor's colour (OpenCV 8-bit
    Lab). With ``near_xy`` (N, 2) pixels, only the sides within reach of one of those
    points are fitted (elsewhere the outline decides nothing). ``dice_xy`` (M, 3) rows
    ``x, y, side`` in pixels (or (M, 2) without the side: ``die_px`` then) are the dice:
    samples on them are left out. Sides that cannot be fitted stay as they are.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    if die_px <= 2:
        return q
    floor_bgr = _lab_to_bgr(floor_lab)
    blockers = _blockers(dice_xy)
    centre = q.mean(axis=0)
    lines: list[tuple[FloatArray, FloatArray]] = [(q[i], q[(i + 1) % 4] - q[i]) for i in range(4)]
    # The sides to fit, their places sampled together (one call, each side's floor spread
    # measured on its own places).
    to_fit: list[tuple[int, FloatArray]] = []
    for i, (p, d) in enumerate(lines):
        length = float(np.hypot(*d))
        if length < 4 * die_px:
            continue
        n = np.array([-d[1], d[0]]) / length
        if float(np.dot(n, centre - p)) > 0:
            n = -n
        if near_xy is not None and not _any_near(near_xy, p, n, MAX_MOVE * die_px):
            continue
        to_fit.append((i, n))
    if to_fit:
        places = [_side_places(lines[i][0], lines[i][1], n) for i, n in to_fit]
        base, normal, tang, half = (np.concatenate(parts) for parts in zip(*places, strict=True))
        groups = np.repeat(np.arange(len(to_fit)), PLACES)
        offs = _edge_offsets(
            image_bgr, base, normal, tang, half, die_px, floor_bgr, blockers, groups=groups
        )
        for g, (i, _n) in enumerate(to_fit):
            at = slice(g * PLACES, (g + 1) * PLACES)
            p, d = lines[i]
            fitted = _side_line(p, d, base[at], normal[at], offs[at], die_px)
            if fitted is not None:
                lines[i] = fitted
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


def refine_round(
    image_bgr: Image,
    polygon: FloatArray,
    die_px: float,
    floor_lab: tuple[float, float, float],
    *,
    dice_xy: FloatArray | None = None,
    n_points: int = 48,
) -> FloatArray:
    """A round floor's outline ``polygon`` (N, 2) pixels fitted again as an ellipse.

    Arguments as for :func:`refine_quad`; returns ``n_points`` points of the new ellipse,
    or the polygon unchanged when too few edge points agree.
    """
    poly = np.asarray(polygon, np.float64).reshape(-1, 2)
    if die_px <= 2 or len(poly) < 8:
        return poly
    floor_bgr = _lab_to_bgr(floor_lab)
    blockers = _blockers(dice_xy)
    centre = poly.mean(axis=0)
    # Places evenly along the outline, each with the outline's own normal there.
    seg = np.roll(poly, -1, axis=0) - poly
    cum = np.concatenate([[0.0], np.cumsum(np.hypot(seg[:, 0], seg[:, 1]))])
    perimeter = float(cum[-1])
    if perimeter < 8 * die_px:
        return poly
    at = (np.arange(ROUND_PLACES) + 0.5) / ROUND_PLACES * perimeter
    idx = np.clip(np.searchsorted(cum, at, side="right") - 1, 0, len(poly) - 1)
    frac = (at - cum[idx]) / np.maximum(np.hypot(seg[idx, 0], seg[idx, 1]), 1e-9)
    base = poly[idx] + frac[:, None] * seg[idx]
    tang = seg[idx] / np.maximum(np.hypot(seg[idx, 0], seg[idx, 1]), 1e-9)[:, None]
    normal = np.stack([-tang[:, 1], tang[:, 0]], axis=1)
    flip = ((base - centre) * normal).sum(axis=1) < 0
    normal[flip] = -normal[flip]
    half = 0.35 * perimeter / ROUND_PLACES
    offs = _edge_offsets(image_bgr, base, normal, tang, half, die_px, floor_bgr, blockers)
    ok = np.isfinite(offs)
    if ok.sum() < max(8, ROUND_PLACES // 3):
        return poly
    pts = base[ok] + offs[ok, None] * normal[ok]
    ellipse = _robust_ellipse(pts.astype(np.float32), INLIER_TOL * die_px)
    if ellipse is None:
        return poly
    (ex, ey), (ea, eb), ang = ellipse
    new = ellipse_polygon((ex, ey), (ea, eb), ang, n_points)
    # Not believed when it moved far from the old outline anywhere.
    old = poly.astype(np.float32).reshape(-1, 1, 2)
    worst = max(abs(cv2.pointPolygonTest(old, (float(x), float(y)), True)) for x, y in new)
    if worst > MAX_MOVE * die_px:
        return poly
    return new if _signed_area(new) * _signed_area(poly) > 0 else new[::-1].copy()


def _lab_to_bgr(floor_lab: tuple[float, float, float]) -> FloatArray:
    ref = cv2.cvtColor(
        np.array([[floor_lab]], np.float32).clip(0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR
    )
    return np.asarray(ref.astype(np.float64)[0, 0], np.float64)


def _blockers(dice_xy: FloatArray | None) -> FloatArray:
    """Dice as (N, 3) rows ``x, y, side``; side 0 means the typical die side."""
    if dice_xy is None or len(dice_xy) == 0:
        return np.zeros((0, 3), np.float64)
    arr = np.asarray(dice_xy, np.float64)
    if arr.shape[1] == 2:
        arr = np.concatenate([arr, np.zeros((len(arr), 1))], axis=1)
    return arr[:, :3]


def _side_places(
    p: FloatArray, d: FloatArray, n: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The :data:`PLACES` places sampled across the side through ``p`` along ``d`` (outward
    unit normal ``n``): their points, normals, tangents (each (PLACES, 2)) and the half
    length of the segment sampled at each (PLACES,)."""
    length = float(np.hypot(*d))
    u = d / length
    centres = (np.arange(PLACES) + 0.5) / PLACES
    base = p[None, :] + centres[:, None] * d[None, :]
    tang = np.repeat(u[None, :], PLACES, axis=0)
    normal = np.repeat(n[None, :], PLACES, axis=0)
    half = np.full(PLACES, 0.4 * length / PLACES)
    return base, normal, tang, half


def _side_line(
    p: FloatArray,
    d: FloatArray,
    base: FloatArray,
    normal: FloatArray,
    offs: FloatArray,
    die_px: float,
) -> tuple[FloatArray, FloatArray] | None:
    """The side through ``p`` along ``d`` fitted to the floor's edge found at its places
    (``base``, ``normal`` and the edge's offsets ``offs`` from :func:`_edge_offsets`); None
    when too few places found it or the fitted line strays from the side."""
    length = float(np.hypot(*d))
    ok = np.isfinite(offs)
    if ok.sum() < 4:
        return None
    pts_arr = base[ok] + offs[ok, None] * normal[ok]
    line = _robust_line(pts_arr, INLIER_TOL * die_px)
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


def _edge_offsets(
    bgr: Image,
    base: FloatArray,
    normal: FloatArray,
    tang: FloatArray,
    half: float | FloatArray,
    die_px: float,
    floor_bgr: FloatArray,
    blockers: FloatArray,
    *,
    groups: npt.NDArray[np.int_] | None = None,
) -> FloatArray:
    """Where the floor ends across the outline at each place; NaN where it cannot be told.

    ``base`` (P, 2) points on the outline, ``normal`` (P, 2) unit outward normals,
    ``tang`` (P, 2) unit tangents, ``half`` the half length (pixels) of the segment
    sampled at each offset, one for all places or (P,). ``groups`` (P,) numbers the
    places whose floor is alike (a box's side): the floor's colour spread is measured over
    each group's places (default: all places one group). Returns (P,) offsets in pixels
    along the normal.
    """
    h, w = bgr.shape[:2]
    n_places = len(base)
    step = max(0.5, 0.1 * die_px)
    offs = np.arange(-REACH * die_px, REACH_OUT * die_px + step, step)
    halves = np.broadcast_to(np.asarray(half, np.float64), (n_places,))
    along = np.empty((n_places, 11))
    for value in np.unique(halves):
        along[halves == value] = np.linspace(-value, value, 11)
    # The sample points (samples, places, offsets), x and y: one row per sample of a
    # segment, which holds every place and offset, so that the median below works on
    # whole rows.
    mx, my = (
        (
            base[None, :, None, c]
            + offs[None, None, :] * normal[None, :, None, c]
            + along.T[:, :, None] * tang[None, :, None, c]
        ).astype(np.float32)
        for c in (0, 1)
    )
    usable = (mx >= 0) & (mx <= w - 1) & (my >= 0) & (my <= h - 1)
    # Each place's box of sample points: a die clear of a place's box is clear of all its
    # samples, which need not be looked at one by one. (The least of the samples' rows
    # first, then of the offsets: the same numbers, a quarter of the time of NumPy's
    # reduction over the two axes at once.)
    lo_x, hi_x = mx.min(axis=0).min(axis=1), mx.max(axis=0).max(axis=1)
    lo_y, hi_y = my.min(axis=0).min(axis=1), my.max(axis=0).max(axis=1)
    for bx, by, bs in blockers:
        r = DIE_CLEARANCE * (bs if bs > 0 else die_px)
        gap_x = np.maximum(np.maximum(lo_x - bx, bx - hi_x), 0.0)
        gap_y = np.maximum(np.maximum(lo_y - by, by - hi_y), 0.0)
        near = np.flatnonzero(gap_x**2 + gap_y**2 <= r * r)
        if near.size:
            usable[:, near] &= (mx[:, near] - bx) ** 2 + (my[:, near] - by) ** 2 > r * r
    n_seg = len(mx)
    rows = usable.reshape(n_seg, -1)
    samples = cv2.remap(bgr, mx.reshape(n_seg, -1), my.reshape(n_seg, -1), cv2.INTER_LINEAR)
    count = rows.view(np.uint8).sum(axis=0, dtype=np.int32)
    ok_off = (count / n_seg >= 0.4).reshape(n_places, -1)
    prof = _masked_median(np.asarray(samples, np.uint8), rows, count)
    prof = prof.reshape(n_places, -1, 3)  # (places, offsets, 3) B, G, R
    prof = np.where(ok_off[..., None], prof, 0.0)
    # Sums over the three channels added channel by channel, in the order NumPy's
    # reduction over that short axis adds them (the same numbers, several times faster).
    total = prof[..., 0] + prof[..., 1] + prof[..., 2]
    shares = prof / np.maximum(total, 1.0)[..., None]
    ref = floor_bgr / max(1.0, float(floor_bgr.sum()))
    sq = (shares - ref) ** 2
    diff = np.sqrt(sq[..., 0] + sq[..., 1] + sq[..., 2])
    inner = offs < -0.5 * REACH * die_px
    group_of = np.zeros(n_places, np.int_) if groups is None else np.asarray(groups)
    spread = np.zeros(n_places)
    for g in np.unique(group_of):
        sel = group_of == g
        usable_inner = ok_off[sel][:, inner]
        if usable_inner.any():
            spread[sel] = float(median(diff[sel][:, inner][usable_inner]))
    bright = float(floor_bgr.sum())
    # Shares of a dark pixel are noisier (the same sensor noise on smaller values).
    darker = np.sqrt(np.clip(bright / np.maximum(total, 1.0), 1.0, 9.0))
    tol = np.maximum(MIN_CHROMA_STEP, 2.5 * spread)[:, None] * darker
    not_brighter = total < 1.3 * bright + 30.0
    floor_like = (diff < tol) & (total >= MIN_BRIGHTNESS) & not_brighter
    deep_level = DEEP_SHADE * bright
    deep = total < deep_level
    out = np.full(n_places, np.nan)
    n_off = len(offs)
    n_inner = max(1, int(inner.sum()) // 2)
    run = floor_like & ok_off
    # The floor's run at each place: from its first offset of floor on, through floor and
    # gaps in the samples (a die), to the last usable offset before anything else. A gap
    # the floor does not continue beyond ends the run before it: the edge lies somewhere
    # under the die, so such a place says nothing.
    start = np.argmax(run, axis=1)
    index = np.arange(n_off)
    after = index[None, :] > start[:, None]
    ends = after & ~(run | ~ok_off)
    stop = np.where(ends.any(axis=1), np.argmax(ends, axis=1) - 1, n_off - 1)
    in_run = ok_off & (index[None, :] >= start[:, None]) & (index[None, :] <= stop[:, None])
    stop = n_off - 1 - np.argmax(in_run[:, ::-1], axis=1)
    span = max(2, round(0.3 * die_px / step))
    # The cheap test of _first_step at every place and offset at once (the same ratios):
    # most places show no step, and then need not be walked one by one.
    width = max(0, n_off - span)
    ratios = total[:, span : span + width] / np.maximum(total[:, :width], 1.0)
    steps = ok_off[:, :width] & ok_off[:, span : span + width]
    steps &= (ratios < STEP_DROP) | (ratios > STEP_RISE)

    def first_step(k: int, start: int, stop: int) -> int:
        if not steps[k, start + span : stop - span + 1].any():
            return stop
        return _first_step(total[k], ok_off[k], start, stop, span, deep_level)

    for k in np.flatnonzero(run[:, :n_inner].any(axis=1)).tolist():
        # (No floor where it should be, a die or a glare, leaves a place out.)
        first, last_floor = int(start[k]), int(stop[k])
        if last_floor + 1 >= n_off:
            # The floor's colour runs past the search (a grey floor, a grey wall, a grey
            # table: chromaticity cannot end it); a step in brightness still can.
            stepped = first_step(k, first, last_floor)
            if stepped >= last_floor:
                continue  # no edge found
            out[k] = 0.5 * (offs[stepped] + offs[stepped + 1])
            continue
        if not ok_off[k, last_floor + 1]:
            continue
        last_floor = first_step(k, first, last_floor)
        last = _through_deep_shade(
            k, last_floor, total, deep, ok_off, floor_like, bright, step, die_px
        )
        if last is None or last + 1 >= n_off:
            continue
        out[k] = 0.5 * (offs[last] + offs[last + 1])
    return out


def _masked_median(
    samples: npt.NDArray[np.uint8], usable: npt.NDArray[np.bool_], count: npt.NDArray[np.int32]
) -> FloatArray:
    """Median over the first axis of ``samples`` (S, N, 3) uint8 of the usable ones (S, N),
    ``count`` (N,) of them: (N, 3); the lower middle one for an even count, 0 where none is
    usable.

    The S rows are put in order by a sorting network (element-wise minimum and maximum of
    whole rows): a few dozen passes over N x 3 bytes instead of N x 3 sorts of S values.
    Unusable samples are set to 255 first; as large as any usable one, they end up above
    the usable ones, and the middle of the usable ones is picked, so the median is theirs.
    """
    unusable = (~usable).view(np.uint8) * np.uint8(255)
    rows = np.asarray(cv2.bitwise_or(samples, cv2.merge([unusable] * 3)), np.uint8)
    ordered = list(rows)
    for a, b in _sorting_network(len(ordered)):
        low = np.minimum(ordered[a], ordered[b])
        np.maximum(ordered[a], ordered[b], out=ordered[b])
        ordered[a] = low
    mid = np.maximum(count - 1, 0) // 2
    full = (len(ordered) - 1) // 2
    picked = ordered[full].copy()
    for k in np.unique(mid).tolist():
        if k != full:
            at = mid == k
            picked[at] = ordered[k][at]
    return np.asarray(np.where(count[:, None] > 0, picked, 0.0), np.float64)


@functools.cache
def _sorting_network(n: int) -> tuple[tuple[int, int], ...]:
    """Batcher's odd-even merge sort for ``n`` values: the pairs ``(i, j)``, ``i < j``, to
    put in order (smaller at ``i``) one after the other."""
    pairs: list[tuple[int, int]] = []
    t = max(1, (n - 1).bit_length())
    p = 1 << (t - 1)
    while p > 0:
        q, r, d = 1 << (t - 1), 0, p
        while d > 0:
            pairs.extend((i, i + d) for i in range(n - d) if i & p == r)
            d, q, r = q - p, q >> 1, p
        p >>= 1
    return tuple(pairs)


def _first_step(
    total: FloatArray,
    ok: npt.NDArray[np.bool_],
    start: int,
    stop: int,
    span: int,
    deep_level: float,
) -> int:
    """The last offset of floor when a sharp step in brightness ends it before ``stop``.

    ``total`` (offsets,) is the brightness (B + G + R) across the outline at one place.
    A wall's face of a colour near the floor's (a white or grey wall over a pale floor,
    felt on the walls as on the floor) passes the colour test; it still meets the floor
    in a crease, where the brightness falls or rises within a fraction of a die and stays
    so: the wall's face is lit from the same lights at another angle. A shadow thrown on
    the floor darkens it more gradually, over its penumbra, and deeper; walking outwards
    from the lit floor nothing brightens it sharply but a wall.
    """
    first, end = start + span, stop - span + 1
    if end <= first:
        return stop
    # The cheap test first, on every offset at once: most offsets show no step at all.
    ratios = total[first + span : end + span] / np.maximum(total[first:end], 1.0)
    steps = ok[first:end] & ok[first + span : end + span]
    steps &= (ratios < STEP_DROP) | (ratios > STEP_RISE)
    for o in (np.flatnonzero(steps) + first).tolist():
        ratio = float(ratios[o - first])
        before = total[start:o][ok[start:o]]
        after = total[o + span : stop + 1][ok[o + span : stop + 1]]
        if before.size < span or after.size < span:
            continue
        hi = _median(before[-3 * span :])
        lo = _median(after)
        # A fall into deep shade is left to :func:`_through_deep_shade`.
        fell = ratio < STEP_DROP and max(deep_level, STEP_FLOOR * hi) <= lo < STEP_DROP * hi
        rose = ratio > STEP_RISE and lo > STEP_RISE * hi
        if fell or rose:
            # The edge where the brightness crosses the middle of the step.
            mid = 0.5 * (hi + lo)
            for j in range(o, o + span + 1):
                if (total[j] < mid) if fell else (total[j] > mid):
                    return max(start, j - 1)
            return o
    return stop


def _median(values: FloatArray) -> float:
    """``np.median`` of a short 1-D array, without its general machinery."""
    ordered = np.sort(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[mid])
    return float((ordered[mid - 1] + ordered[mid]) / 2.0)


def _through_deep_shade(
    k: int,
    stop: int,
    total: FloatArray,
    deep: npt.NDArray[np.bool_],
    ok_off: npt.NDArray[np.bool_],
    floor_like: npt.NDArray[np.bool_],
    bright: float,
    step: float,
    die_px: float,
) -> int | None:
    """The last offset of floor at place ``k`` when the floor's run ending at ``stop`` goes
    on into deep shade; ``stop`` itself when it does not; None when it cannot be told.

    A wall's shadow darkens the floor gradually (its penumbra), down to where its colour
    is lost; that deep shade is floor up to the wall. It counts only when the fall into it
    takes a share of a die (a dark wall's face meets lit floor at once) and when the shade
    ends within the search in something that is not lit floor. The floor ends at the
    darkest line of the shade: the crease, which gets the least light; a wall's face
    beyond it is lit a little.
    """
    n_off = total.shape[1]
    # The penumbra: darker and darker (its colour lost on the way, light bounced off a
    # wall tints it), for at most PENUMBRA die sides, down to deep shade.
    j = stop + 1
    limit = stop + 1 + round(PENUMBRA * die_px / step)
    while j < min(n_off, limit) and ok_off[k, j] and not deep[k, j]:
        if total[k, j] > 1.1 * total[k, j - 1] + 10.0:
            return stop
        j += 1
    if j >= n_off or not (deep[k, j] and ok_off[k, j]):
        return stop
    # A penumbra, not a crease: the fall from three quarters of the lit floor's
    # brightness down to deep shade takes a share of a die (a wall's dark face meets the
    # lit floor at once).
    lit = np.nonzero(total[k, :j] >= 0.75 * bright)[0]
    last_lit = int(lit[-1]) if lit.size else 0
    if (j - last_lit) * step < MIN_PENUMBRA * die_px:
        return stop
    end = deep_start = j
    # Shade goes on while deep, or floor-coloured and still dim (the floor's colour
    # showing again in the shadow's noise).
    while (
        end + 1 < n_off
        and ok_off[k, end + 1]
        and (deep[k, end + 1] or (floor_like[k, end + 1] and total[k, end + 1] < 0.6 * bright))
    ):
        end += 1
    if end + 1 >= n_off or not ok_off[k, end + 1]:
        return None
    if floor_like[k, end + 1]:
        # Lit floor again beyond the shade (a die's shadow, a dark speck): go on from there.
        return stop
    # The crease is the darkest line of the shade (the floor's corner with the wall gets
    # the least light); a wall's face beyond it, lit a little, is brighter again.
    shade = total[k, deep_start : end + 1]
    padded = np.concatenate([shade[:1], shade, shade[-1:]])
    smooth = (padded[:-2] + padded[1:-1] + padded[2:]) / 3.0
    return deep_start + int(np.argmin(smooth))


def _robust_line(pts: FloatArray, tol: float) -> tuple[FloatArray, FloatArray] | None:
    """A line (point, unit direction) through most of ``pts`` (N, 2): of the lines through
    two of the points, the one with the most points within ``tol`` pixels (ties: the least
    median distance), then refitted by least squares to those points."""
    i, j = _pairs(len(pts))
    e = pts[j] - pts[i]  # (pairs, 2)
    norm = np.hypot(e[:, 0], e[:, 1])
    keep = norm > 1e-6
    if not keep.any():
        return None
    i, e = i[keep], e[keep] / norm[keep, None]
    rel = pts[None, :, :] - pts[i][:, None, :]  # (pairs, points, 2)
    dist = np.abs(e[:, None, 0] * rel[..., 1] - e[:, None, 1] * rel[..., 0])
    lim = max(1.0, tol)
    count = (dist <= lim).sum(axis=1)
    med = row_medians(dist)
    best = int(np.lexsort((med, -count))[0])
    q0, e0 = pts[i[best]], e[best]
    near = pts[dist[best] <= lim]
    if len(near) < 2:
        return np.asarray(q0, np.float64), np.asarray(e0, np.float64)
    c = near.mean(axis=0)
    _u, _s, vt = np.linalg.svd(near - c)
    e2 = vt[0] if float(np.dot(vt[0], e0)) >= 0 else -vt[0]
    return np.asarray(c, np.float64), np.asarray(e2, np.float64)


@functools.cache
def _pairs(n: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """``np.triu_indices(n, k=1)``, read-only and made once per ``n`` (it costs more than
    the line fit that uses it)."""
    i, j = np.triu_indices(n, k=1)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


def _robust_ellipse(
    pts: npt.NDArray[np.float32], tol: float
) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """OpenCV's RotatedRect of the ellipse most of ``pts`` (N, 2) lie within ``tol`` of.

    Ellipses through random fives of the points are scored by how many points lie near
    them; the best is refitted to its near points.
    """
    n = len(pts)
    if n < 6:
        return None
    rng = np.random.default_rng(0)
    lim = max(1.5, tol)
    best: tuple[int, float, npt.NDArray[np.bool_]] | None = None
    # The fit to all points first: usually right, and the rest only has to beat it.
    trials = [np.arange(n)] + [rng.choice(n, 6, replace=False) for _ in range(60)]
    for sel in trials:
        try:
            box = cv2.fitEllipse(pts[sel])
        except cv2.error:
            continue
        if min(box[1]) <= 1:
            continue
        d = _ellipse_distance(pts, box)
        near = d <= lim
        score = (int(near.sum()), -float(median(d)))
        if best is None or score > (best[0], best[1]):
            best = (score[0], score[1], near)
    if best is None or best[0] < max(6, n // 2):
        return None
    inl = pts[best[2]]
    box = cv2.fitEllipse(inl)
    (cx, cy), (a, b), ang = box
    return (float(cx), float(cy)), (float(a), float(b)), float(ang)


def _ellipse_distance(pts: npt.NDArray[np.float32], box: cv2.typing.RotatedRect) -> FloatArray:
    """Distance (pixels) of each point to the ellipse ``box``, along the ray from its
    centre (close to the true distance for the near-round floors looked at here)."""
    (cx, cy), (a, b), ang = box
    ca, sa = np.cos(np.deg2rad(ang)), np.sin(np.deg2rad(ang))
    dx = pts[:, 0].astype(np.float64) - cx
    dy = pts[:, 1].astype(np.float64) - cy
    u = (dx * ca + dy * sa) / max(1e-9, 0.5 * a)
    v = (-dx * sa + dy * ca) / max(1e-9, 0.5 * b)
    r = np.maximum(np.hypot(u, v), 1e-9)
    return np.asarray(np.hypot(dx, dy) * np.abs(1.0 - 1.0 / r), np.float64)


def _signed_area(poly: FloatArray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


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
