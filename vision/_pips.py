"""Pip candidates: small round blobs darker or brighter than the face around them."""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from vision.params import ReaderParams

FloatArray = npt.NDArray[np.float32]

#: Offsets of the points sampled on the ring around a pip (unit circle, 16 directions).
_RING = np.stack(
    [
        np.cos(np.linspace(0, 2 * np.pi, 16, endpoint=False)),
        np.sin(np.linspace(0, 2 * np.pi, 16, endpoint=False)),
    ],
    axis=1,
).astype(np.float32)


class PipCandidates(NamedTuple):
    """Pip candidates as parallel arrays (N rows each), in work-image pixels.

    ``xy`` (N, 2) centres ``(x, y)``; ``diam`` (N,) diameters; ``polarity`` (N,) +1 for a
    bright pip on a darker face, -1 for a dark pip; ``contrast`` (N,) grey-level difference
    between pip and face (positive); ``ring_bgr`` (N, 3) median face colour around the pip
    (BGR); ``ring_gray`` (N,) its level on the candidate's plane; ``channel`` (N,) that plane
    (0 grey, 1 red-green, 2 yellow-blue, see ``make_planes``); ``uniformity`` (N,) share of
    the ring that has the face's grey level; ``roundness`` (N,) its shortest over longest
    width; ``minor`` (N,) the direction of its shortest width, radians in [0, pi) (a pip
    seen aslant is squashed along the direction the camera looks).
    """

    xy: FloatArray
    diam: FloatArray
    polarity: FloatArray
    contrast: FloatArray
    ring_bgr: FloatArray
    ring_gray: FloatArray
    uniformity: FloatArray
    roundness: FloatArray
    channel: npt.NDArray[np.intp]
    minor: FloatArray

    def take(self, index: npt.NDArray[np.intp] | npt.NDArray[np.bool_]) -> PipCandidates:
        """The candidates selected by ``index`` (integer or boolean array)."""
        return PipCandidates(*(a[index] for a in self))  # type: ignore[arg-type]

    def __len__(self) -> int:
        return int(self.xy.shape[0])


class PipSearch(NamedTuple):
    """What :func:`find_pip_candidates` found."""

    #: The pip candidates.
    cands: PipCandidates
    #: Very round blobs left out only for the specks inside them (see
    #: :func:`_drop_containers`): a close-up's pips holding specks of their own texture, or
    #: dice blurred round. Not pips to read, but they tell a close-up's scale.
    speckled: PipCandidates
    #: Each colour plane's candidates alone (red-green, then yellow-blue), deduplicated
    #: within the plane only: where a grey find or the other plane's took some of a face's
    #: places (pips whose grey level differs from their face's on one part of a marbled die
    #: and not on another), one plane may still hold the whole face (see
    #: :func:`vision.reader._colour_faces`).
    colour: tuple[PipCandidates, ...] = ()


def _empty() -> PipCandidates:
    z = np.zeros((0,), np.float32)
    return PipCandidates(
        np.zeros((0, 2), np.float32),
        z,
        z,
        z,
        np.zeros((0, 3), np.float32),
        z,
        z,
        z,
        np.zeros((0,), np.intp),
        z,
    )


#: Rows of ``make_planes``' colour transform (B, G, R weights and offset): grey, then two
#: opponent colours at half scale around 128, so that red pips on a blue die or yellow pips
#: on a green one stand out even where their grey levels match.
PLANE_TRANSFORM = np.array(
    [
        [0.114, 0.587, 0.299, 0.0],
        [0.0, -0.5, 0.5, 128.0],
        [-0.5, 0.25, 0.25, 128.0],
    ],
    np.float32,
)


def make_planes(bgr: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Grey, red-green and yellow-blue planes of a BGR image: (3, H, W) uint8."""
    mixed = cv2.transform(bgr, PLANE_TRANSFORM)
    h, w = bgr.shape[:2]
    out: npt.NDArray[np.uint8] = np.empty((3, h, w), np.uint8)
    # cv2.split writes the planes straight into ``out`` (half the time of numpy's strided
    # copy); should a build hand back new arrays instead, they are copied in.
    for plane, part in zip(out, cv2.split(mixed, [out[0], out[1], out[2]]), strict=True):
        if part.ctypes.data != plane.ctypes.data:
            plane[...] = part
    return out


#: The widest blob the pip search keeps, as a share of its block (the neighbourhood a blob is
#: compared with) ...
_WIDEST = 1 / 1.7
#: ... and for the biggest block on the full work image (see find_pip_candidates), for blobs
#: whose box is at most this many times longer than wide.
_WIDEST_FULL = 1 / 1.5
_ROUND_BOX = 1.15


def _blobs_at_scale(
    gray: npt.NDArray[np.uint8],
    block: int,
    params: ReaderParams,
    swallow: bool = False,
    widest: float = _WIDEST,
) -> list[tuple[FloatArray, FloatArray, float, bool]]:
    """Round components darker (-1) or brighter (+1) than their block-sized neighbourhood.

    Returns per polarity ``(centres (K, 2), diameters (K,), polarity, cut)`` in ``gray``'s
    pixels, ``cut`` True for pips cut loose from the lines they were joined to. With
    ``swallow``, light pips are also looked for inside face-sized light blobs, and inside
    sprawling light blobs of no pip's shape. Blobs whose box is nearly square may be up to
    ``widest`` of the block wide; other pips, and what is split or looked into, are sized by
    the usual ``_WIDEST``.
    """
    h, w = gray.shape
    mean = cv2.blur(gray, (block, block), borderType=cv2.BORDER_REPLICATE)
    base = round(params.min_pip_contrast * 0.7)
    out = []
    dmin = max(params.min_pip_px * 0.8, block / 5.5)
    dmax = block * _WIDEST
    for polarity in (-1.0, 1.0):
        # The mean minus and plus the level saturate to 0..255 without leaving uint8 (the
        # level as a scalar: no image of it to fill).
        if polarity < 0:
            level = cv2.subtract(mean, base)  # type: ignore[call-overload, unused-ignore]
            mask = np.asarray(cv2.compare(gray, level, cv2.CMP_LT), np.uint8)
        else:
            level = cv2.add(mean, base)  # type: ignore[call-overload, unused-ignore]
            mask = np.asarray(cv2.compare(gray, level, cv2.CMP_GT), np.uint8)
        n, labels, st, cents, origin = _components(mask)
        if n <= 1:
            continue
        x, y, bw, bh, area = st[:, 0], st[:, 1], st[:, 2], st[:, 3], st[:, 4]
        shaped, sizes = _pip_shaped(np.asarray(st, np.int32), dmin, dmax)
        if widest > _WIDEST:
            # Only a round blob reaches further: a side face's flattened pips are looked for
            # where they were.
            wide, _ = _pip_shaped(np.asarray(st, np.int32), dmin, block * widest)
            shaped |= wide & (np.maximum(bw, bh) <= _ROUND_BOX * np.minimum(bw, bh))
        inner = (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
        keep = shaped & inner
        fill = area / (bw * bh)
        # Two or three pips close together blur into one elongated blob: split it.
        merged = np.flatnonzero(
            ~keep
            & inner
            & (area >= 1.5 * np.pi / 4 * dmin**2)
            & (area <= 3.0 * np.pi / 4 * dmax**2)
            & (fill >= 0.3)
        )
        split_xy, split_d, split = _split_merged(
            np.asarray(labels), origin, np.asarray(st, np.int32), merged, dmin, dmax
        )
        if split_xy.shape[0]:
            out.append((split_xy, split_d, polarity, False))

        # Blobs looked into again for the pips in them, at a level (see _cores), and
        # whether what is cut out there is marked as cut loose.
        looks: list[tuple[npt.NDArray[np.intp], int, bool]] = []
        if swallow:
            # Blobs of no pip's shape (and no row of pips) that may hold pips, for below.
            looked = ~keep & inner & (area <= _SWALLOW_AREA * np.pi / 4 * dmax**2)
            sprawling = looked & (area >= 1.5 * np.pi / 4 * dmin**2) & (fill < _SPRAWL_FILL)
            sprawling[split] = False
        if polarity < 0 and swallow:
            # A dark pip joined to the floor around a light face: near the face's edge the
            # block's mean rises, so the floor beside the die passes the level too, and the
            # pips next to the edge (or set less than a pixel apart, as a small six's are)
            # join it in one sprawling blob. Where that blob rings a light face (most of
            # what its outline holds besides it is lighter than its neighbourhood), the
            # pips are looked for in it at a level they clear and the floor does not. Not
            # every sprawling dark blob: a dark die's swirls or a textured floor would cut
            # up into pip-sized specks.
            index = np.array(
                [
                    k
                    for k in np.flatnonzero(
                        sprawling & (np.maximum(bw, bh) <= _RING_SPAN * dmax)
                    ).tolist()
                    if _rings_light(
                        gray, np.asarray(mean, np.uint8), np.asarray(labels), origin, st[k], k, base
                    )
                ],
                np.intp,
            )
            looks.append((index, _RING_CORE_LEVEL * base, True))
        if polarity > 0 and swallow:
            # Blobs of no pip's shape looked into again, at a level a pip clears and what
            # joins it does not:
            # - sprawling ones: a light pip joined by thin lines (the bright bevel along its
            #   face's edges), no row of pips either; the pips cut loose there are marked,
            #   for a piece cut inside a round pip is its glare (see _without_glare);
            # - compact face-sized ones: near a die's dark edge the block's mean falls, so a
            #   light pip's face passes the level too and swallows the pip.
            # A compact blob smaller than that is a pip too big for this block, whose stark
            # core is glare: it is left alone.
            swallowed = looked & (area > 3.0 * np.pi / 4 * dmax**2) & (fill >= _SPRAWL_FILL)
            looks.append((np.flatnonzero(sprawling), _SWALLOW_LEVEL * base, True))
            looks.append((np.flatnonzero(swallowed), _SWALLOW_LEVEL * base, False))
        for index, level, cut in looks:
            if not index.size:
                continue
            cores_xy, cores_d = _cores(
                gray,
                np.asarray(mean, np.uint8),
                np.asarray(labels),
                origin,
                np.asarray(st, np.int32),
                index,
                level,
                dmin,
                dmax,
                polarity,
            )
            if cores_xy.shape[0]:
                out.append((cores_xy, cores_d, polarity, cut))
        if not np.any(keep):
            continue
        out.append(
            (cents[keep].astype(np.float32), sizes[keep].astype(np.float32), polarity, False)
        )
    return out


def _components(
    mask: npt.NDArray[np.uint8],
) -> tuple[
    int,
    npt.NDArray[np.integer[Any]],
    npt.NDArray[np.int32],
    npt.NDArray[np.float64],
    tuple[int, int],
]:
    """The 8-connected components of ``mask``, exactly as
    ``cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, ..., cv2.CCL_SPAGHETTI)``
    numbers and measures them: ``(n, labels, stats, centroids, (x0, y0))`` with the
    background's row left out of ``stats`` and ``centroids`` (in ``mask``'s pixels) and
    ``labels`` covering only the window from ``(x0, y0)`` that holds every component.

    The labelling runs on that window (the bounding box of the mask's pixels, its corner
    moved to even coordinates): its cost goes with the pixels it scans, and the mask's
    pixels often fill well under that of the frame. On the same 2x2 blocks, scanned in the
    same order, the components get the same numbers. OpenCV's centroids are whole sums of
    coordinates over areas: the window's sums are recovered exactly from its centroids and
    shifted back before the same division.
    """
    bx, by, bw, bh = cv2.boundingRect(mask)
    if bw == 0:
        return 1, np.zeros((0, 0), np.uint16), np.zeros((0, 5), np.int32), np.zeros((0, 2)), (0, 0)
    x0, y0 = bx - bx % 2, by - by % 2
    window = mask[y0 : by + bh, x0 : bx + bw]
    # 16-bit labels are much faster to write; a mask with more pixels than 16 bits can
    # number could hold more components, so it falls back to 32 bits.
    ltype = cv2.CV_16U if cv2.countNonZero(window) < 65000 else cv2.CV_32S
    n, labels, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(
        window, 8, ltype, cv2.CCL_SPAGHETTI
    )
    st = np.array(stats[1:], np.int32)
    st[:, 0] += x0
    st[:, 1] += y0
    area = st[:, 4:5].astype(np.float64)
    sums = np.rint(cents[1:] * area) + np.array([x0, y0], np.float64) * area
    return int(n), np.asarray(labels), st, sums / area, (x0, y0)


def _pip_shaped(
    stats: npt.NDArray[np.int32], dmin: float, dmax: float
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """Which components (rows of connectedComponentsWithStats' stats, without the
    background's) are shaped like a pip: as wide as one, not elongated, filling their box;
    and each one's diameter.

    A pip's extent is better measured by its box than by its thresholded area, which
    shrinks with blur: the diameter averages the two.
    """
    bw, bh, area = stats[:, 2], stats[:, 3], stats[:, 4]
    diam = np.sqrt(4.0 * area / np.pi)
    shaped = (
        (diam >= dmin)
        & (diam <= dmax)
        & (np.maximum(bw, bh) <= 2.0 * np.minimum(bw, bh) + 1)
        & (area >= 0.45 * bw * bh)
    )
    return shaped, 0.5 * (diam + 0.5 * (bw + bh))


#: Face-sized blobs (up to this many pip areas) that may hold a swallowed pip, looked into
#: at this many times the search's level (at 3 instead of 4, 100 dev renders gave as many
#: dice found, one fewer read right and 14 more readings of no die, and nell's real photos
#: lost 0.5% of recall).
_SWALLOW_AREA = 40.0
_SWALLOW_LEVEL = 4
#: A blob of no pip's shape filling less of its box than this sprawls (a pip with lines
#: joined to it); a disc fills 0.79 of its box, a square face all of it.
_SPRAWL_FILL = 0.5


#: A sprawling dark blob rings a light face when at least this share of the pixels its
#: outline (convex hull) holds besides it are lighter than their neighbourhood (white sixes
#: on nell_byler_d6's grey board: 0.5 to 0.8; at 0.4 dark marbled dice, whose bodies ring
#: light pips and swirls at about 0.45, lost readings; a textured floor's blobs: 0 to 0.2) ...
_RING_LIGHT = 0.5
#: ... only a ring at most this many of the block's widest pips across: a face spans about
#: 5.6 of its pips (a pip is about 0.18 of its side), and a ring wider than that holds pips
#: found on the halved image (the benchmark's 90 px dice: their shadows, rings of no pips,
#: cost 2-3 ms at 1080p looked into).
_RING_SPAN = 6.0
#: ... and its pips are looked for in it at this many times the search's level (tried on
#: every sprawling dark blob, before the ring test: nell's train split read 1,274 dice right
#: at 3, 1,269 at 4).
_RING_CORE_LEVEL = 3


def _rings_light(
    gray: npt.NDArray[np.uint8],
    mean: npt.NDArray[np.uint8],
    labels: npt.NDArray[np.integer[Any]],
    origin: tuple[int, int],
    stats: npt.NDArray[np.int32],
    k: int,
    level: int,
) -> bool:
    """Whether the blob ``k`` (label - 1; ``stats`` its row) rings a light face: the
    pixels inside its convex hull that are not its own are mostly lighter than ``mean`` by
    ``level`` (see ``_RING_LIGHT``). ``labels`` start at ``origin`` (x, y) of ``gray``."""
    x, y, bw, bh = (int(v) for v in stats[:4])
    lx, ly = x - origin[0], y - origin[1]
    own = (labels[ly : ly + bh, lx : lx + bw] == k + 1).view(np.uint8)
    held = np.zeros_like(own)
    cv2.fillConvexPoly(held, cv2.convexHull(cv2.findNonZero(own)), 1)
    rest = held > own
    n_rest = int(np.count_nonzero(rest))
    if n_rest == 0:
        return False
    lighter = gray[y : y + bh, x : x + bw].astype(np.int16) - mean[y : y + bh, x : x + bw] > level
    return int(np.count_nonzero(lighter & rest)) >= _RING_LIGHT * n_rest


def _cores(
    gray: npt.NDArray[np.uint8],
    mean: npt.NDArray[np.uint8],
    labels: npt.NDArray[np.integer[Any]],
    origin: tuple[int, int],
    stats: npt.NDArray[np.int32],
    index: npt.NDArray[np.intp],
    level: int,
    dmin: float,
    dmax: float,
    polarity: float = 1.0,
) -> tuple[FloatArray, FloatArray]:
    """Centres and diameters of the pip-shaped (:func:`_pip_shaped`) parts of the blobs
    ``index`` (label - 1) brighter (``polarity`` +1) or darker (-1) than their
    neighbourhood's ``mean`` by ``level``. ``labels`` start at ``origin`` (x, y) of
    ``gray``."""
    centres: list[FloatArray] = []
    diams: list[FloatArray] = []
    for k in index.tolist():
        x, y, bw, bh = (int(v) for v in stats[k, :4])
        lx, ly = x - origin[0], y - origin[1]
        inside = labels[ly : ly + bh, lx : lx + bw] == k + 1
        apart = gray[y : y + bh, x : x + bw].astype(np.int16) - mean[y : y + bh, x : x + bw]
        core = (apart * int(polarity) > level) & inside
        if not core.any():
            continue
        mask = core.astype(np.uint8)
        _n, _lab, st, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        shaped, sizes = _pip_shaped(np.asarray(st[1:], np.int32), dmin, dmax)
        centres.append((cents[1:][shaped] + (x, y)).astype(np.float32))
        diams.append(sizes[shaped].astype(np.float32))
    if not centres:
        return np.empty((0, 2), np.float32), np.empty(0, np.float32)
    return np.concatenate(centres), np.concatenate(diams)


def _split_merged(
    labels: npt.NDArray[np.integer[Any]],
    origin: tuple[int, int],
    stats: npt.NDArray[np.int32],
    index: npt.NDArray[np.intp],
    dmin: float,
    dmax: float,
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.intp]]:
    """Centres and diameters of the pips in blobs that are two or three pips in a row, and
    the blobs (of ``index``) that were split.

    ``stats`` are the components' rows (label - 1) from connectedComponentsWithStats;
    ``labels`` start at ``origin`` (x, y) of the image the stats are in.
    """
    ox, oy = origin
    centres: list[tuple[float, float]] = []
    diams: list[float] = []
    done: list[int] = []
    # Plain floats below: a photo can have dozens of such blobs, and numpy's per-call cost on
    # scalars would be most of the time spent here.
    for k, (x, y, bw, bh) in zip(index.tolist(), stats[index, :4].tolist(), strict=True):
        lx, ly = x - ox, y - oy
        m = cv2.moments((labels[ly : ly + bh, lx : lx + bw] == k + 1).view(np.uint8), True)
        count = m["m00"]
        if count < 6:
            continue
        sxx, syy, sxy = m["mu20"] / count, m["mu02"] / count, m["mu11"] / count
        half_tr = 0.5 * (sxx + syy)
        root = math.sqrt(max(half_tr**2 - (sxx * syy - sxy**2), 0.0))
        width = 4.0 * math.sqrt(max(half_tr - root, 1e-6))
        length = 4.0 * math.sqrt(max(half_tr + root, 1e-6))
        pieces = round(length / width)
        if pieces not in (2, 3) or not dmin <= width <= 1.3 * dmax:
            continue
        # Blob pixels should fill the row of discs: roughly pieces * disc area.
        if not 0.6 <= count / (pieces * math.pi / 4 * width**2) <= 1.5:
            continue
        # Along the major axis of the second-moment ellipse.
        theta = 0.5 * math.atan2(2 * sxy, sxx - syy)
        step = length / (pieces + 0.25)
        ax, ay = math.cos(theta) * step, math.sin(theta) * step
        mx, my = m["m10"] / count + x, m["m01"] / count + y
        for i in range(pieces):
            off = i - (pieces - 1) / 2
            centres.append((mx + ax * off, my + ay * off))
            diams.append(width)
        done.append(k)
    split = np.array(done, np.intp)
    if not centres:
        return np.zeros((0, 2), np.float32), np.zeros((0,), np.float32), split
    return np.array(centres, np.float32), np.array(diams, np.float32), split


#: Unit directions of 16 rays (opposite rays 8 apart) and the radii sampled along them, in
#: pip radii, for measuring a blob's roundness.
_RAY_ANGLES = np.arange(16) * np.pi / 8
_RAYS = np.stack([np.cos(_RAY_ANGLES), np.sin(_RAY_ANGLES)], axis=1).astype(np.float32)
_RADII = np.linspace(0.2, 1.9, 18, dtype=np.float32)


def _ray_radii(
    planes: npt.NDArray[np.uint8],
    chan: npt.NDArray[np.intp],
    xy: FloatArray,
    r: FloatArray,
    inside: FloatArray,
    ring: FloatArray,
) -> FloatArray:
    """Each blob's radius along the 16 rays, in its own radii (N, 16).

    A ray's edge is where the grey level first crosses halfway from the blob's inside to its
    ring (the last radius sampled when it never does).
    """
    h, w = planes.shape[1:]
    # x and y apart (the same float32 products and sums as one (N, 16, R, 2) array gives,
    # without its strided halves): (N, 16, R) each.
    reach = _RADII[None, None, :] * r[:, None, None]
    px = xy[:, 0, None, None] + _RAYS[None, :, 0, None] * reach
    py = xy[:, 1, None, None] + _RAYS[None, :, 1, None] * reach
    ix = np.minimum(np.maximum(np.rint(px), 0), w - 1).astype(np.intp)
    iy = np.minimum(np.maximum(np.rint(py), 0), h - 1).astype(np.intp)
    vals = planes[chan[:, None, None], iy, ix].astype(np.float32)  # (N, 16, R)
    half = (0.5 * (inside + ring))[:, None, None]
    sign = np.sign(ring - inside)[:, None, None]
    out_of_blob = (vals - half) * sign > 0
    # First radius index outside the blob on each ray (the last one if never).
    first = np.where(out_of_blob.any(axis=2), out_of_blob.argmax(axis=2), _RADII.shape[0] - 1)
    radius: FloatArray = _RADII[first]  # (N, 16)
    return radius


def _roundness(
    planes: npt.NDArray[np.uint8],
    chan: npt.NDArray[np.intp],
    xy: FloatArray,
    r: FloatArray,
    inside: FloatArray,
    ring: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Shortest over longest width of each blob, measured along 8 directions, and the
    direction of the shortest (radians in [0, pi), from the three widths around it).

    1 for a disc, lower for an ellipse (a pip on a side face seen aslant).
    """
    radius = _ray_radii(planes, chan, xy, r, inside, ring)
    widths = radius[:, :8] + radius[:, 8:]
    out: FloatArray = (widths.min(axis=1) / np.maximum(widths.max(axis=1), 1e-6)).astype(np.float32)
    # The shortest width's direction, refined by a parabola through it and its neighbours
    # (the widths repeat every 8 directions, pi).
    k = widths.argmin(axis=1)
    rows = np.arange(widths.shape[0])
    left, mid, right = widths[rows, (k - 1) % 8], widths[rows, k], widths[rows, (k + 1) % 8]
    curve = left - 2.0 * mid + right
    shift = np.where(curve > 1e-6, 0.5 * (left - right) / np.maximum(curve, 1e-6), 0.0)
    minor: FloatArray = (((k + shift) * (np.pi / 8)) % np.pi).astype(np.float32)
    return out, minor


#: Two pips of a face crowd each other when their centres lie less than this many times
#: their summed radii apart (a gap narrower than a pip: a crowded six on a small die).
_CROWDING = 2.0


def roundness_apart(
    planes: npt.NDArray[np.uint8], cands: PipCandidates, members: npt.NDArray[np.intp]
) -> FloatArray:
    """The roundness of a face's pips measured away from each other (one per member).

    Blurred pips of a crowded face (a six on a small die) run into each other: the grey
    between two of them never climbs halfway back to the face's, so a ray towards a sibling
    runs on into it and the pip measures long that way, however round it is. Here a ray
    that points at a sibling (within the sibling's angular radius and half the rays'
    spacing) takes its opposite ray's radius; a direction blocked both ways is left out.
    A direction free of siblings is measured as :func:`_roundness` measures it, so a glare
    streak or a side face's squashed pip stays as long as it was.
    """
    xy = cands.xy[members]
    r = cands.diam[members] / 2.0
    chan = cands.channel[members]
    ring = cands.ring_gray[members]
    inside = ring + cands.polarity[members] * cands.contrast[members]
    radius = _ray_radii(planes, chan, xy, r, inside, ring)
    d = xy[None, :, :] - xy[:, None, :]  # (N, N, 2): from pip i to pip j
    dist = np.hypot(d[..., 0], d[..., 1])
    bearing = np.arctan2(d[..., 1], d[..., 0])
    reach = np.arctan2(r[None, :], np.maximum(dist, 1e-6)) + np.pi / 16
    off = np.abs((_RAY_ANGLES[None, None, :] - bearing[..., None] + np.pi) % (2 * np.pi) - np.pi)
    n = xy.shape[0]
    # A sibling less than a pip's width away, edge to edge: the blur that joins pips
    # spreads about a radius beyond each one's edge (the rays run out to 1.9 radii).
    sibling = ~np.eye(n, dtype=bool) & (dist < _CROWDING * (r[:, None] + r[None, :]))
    blocked = (sibling[..., None] & (off <= reach[..., None])).any(axis=1)  # (N, 16)
    # Only a pip that measures longest towards a sibling is measured again: one squashed
    # along a free direction (a side face's pips, seen aslant) keeps its measure.
    widths = radius[:, :8] + radius[:, 8:]
    rows = np.arange(n)
    long_way = widths.argmax(axis=1)
    towards = blocked[rows, long_way] | blocked[rows, long_way + 8]
    opposite = np.roll(radius, 8, axis=1)
    opposite_blocked = np.roll(blocked, 8, axis=1)
    radius = np.where(blocked & ~opposite_blocked, opposite, radius)
    apart = radius[:, :8] + radius[:, 8:]
    free = ~(blocked[:, :8] & blocked[:, 8:])
    longest = np.where(free, apart, 0.0).max(axis=1)
    shortest = np.where(free, apart, np.inf).min(axis=1)
    again = np.where(free.any(axis=1), shortest / np.maximum(longest, 1e-6), 0.0)
    out: FloatArray = np.where(towards, again, cands.roundness[members]).astype(np.float32)
    return out


def find_pip_candidates(
    bgr: npt.NDArray[np.uint8], planes: npt.NDArray[np.uint8], params: ReaderParams
) -> PipSearch:
    """Find round blobs of any size in the pip range, both polarities, with their face colour.

    ``bgr`` (H, W, 3) uint8 is the work image and ``planes`` its ``make_planes``.
    """
    h, w = planes.shape[1:]
    max_d = params.max_pip_frac * min(h, w)
    centres: list[FloatArray] = []
    diams: list[FloatArray] = []
    pols: list[FloatArray] = []
    chans: list[npt.NDArray[np.intp]] = []
    cuts: list[npt.NDArray[np.bool_]] = []

    def search(channel: int, first_blocks: tuple[int, ...], levels: int = 99) -> None:
        level_img = planes[channel]
        factor = 1.0
        # Blocks of 13 and 23 px on the full work image cover pip diameters ~2.5-13 px;
        # each halving of the image then reaches twice bigger pips with the 23 px block at
        # a quarter of the cost. Halving first would merge the close-set pips of a small six.
        blocks = first_blocks
        while True:
            for block in blocks:
                # Pips swallowed by their face: on the grey plane at full size only (on the
                # colour planes and the smaller levels too it found no more dice on the dev
                # renders, at twice the time).
                swallow = channel == 0 and factor == 1.0
                # The biggest block on the full work image reaches further: a pip just too big
                # for it is otherwise looked for only on the half-size level, where pips set
                # less than a pixel apart there merge into a row, and a row of three that are
                # a little apart no longer reads as three pips (see _split_merged).
                widest = _WIDEST_FULL if factor == 1.0 and block == 23 else _WIDEST
                for cxy, d, pol, cut in _blobs_at_scale(level_img, block, params, swallow, widest):
                    centres.append((cxy + 0.5) * factor - 0.5)
                    diams.append(d * factor)
                    pols.append(np.full(d.shape, pol, np.float32))
                    chans.append(np.full(d.shape, channel, np.intp))
                    cuts.append(np.full(d.shape, cut, bool))
            blocks = (23,)
            levels -= 1
            if levels <= 0 or 23 * _WIDEST * factor >= max_d or min(level_img.shape) < 4 * 23:
                break
            level_img = np.asarray(cv2.pyrDown(level_img), dtype=np.uint8)
            factor *= 2.0

    search(0, (13, 23))
    if params.colour_pips:
        # Colour-only pips are rarer: one block on the full work image is enough (bigger
        # pips on a die big in the frame usually differ in grey level too).
        search(1, (13,), levels=1)
        search(2, (13,), levels=1)
    if not centres:
        return PipSearch(_empty(), _empty())
    xy = np.concatenate(centres)
    diam = np.concatenate(diams)
    pols_all = np.concatenate(pols)
    chan = np.concatenate(chans)
    cut = np.concatenate(cuts)
    keep = (diam >= params.min_pip_px) & (diam <= max_d)
    xy, diam, pol, chan, cut = xy[keep], diam[keep], pols_all[keep], chan[keep], cut[keep]
    if xy.shape[0] == 0:
        return PipSearch(_empty(), _empty())
    return _measure(bgr, planes, xy, diam, pol, chan, cut, params)


def _measure(
    bgr: npt.NDArray[np.uint8],
    planes: npt.NDArray[np.uint8],
    xy: FloatArray,
    diam: FloatArray,
    pol: FloatArray,
    chan: npt.NDArray[np.intp],
    cut: npt.NDArray[np.bool_],
    params: ReaderParams,
) -> PipSearch:
    """Measure contrast and face colour around each blob, keep real-looking ones, dedupe.

    ``cut`` (N,) marks the blobs cut loose from lines (see :func:`_blobs_at_scale`)."""
    h, w = planes.shape[1:]
    r = diam / 2.0
    # Inside: the centre and four points at a third of the radius (robust to a 1 px offset).
    inner_off = np.array([[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]], np.float32) * 0.33
    pts = xy[:, None, :] + inner_off[None, :, :] * r[:, None, None]
    ix = np.clip(np.rint(pts[..., 0]), 0, w - 1).astype(np.intp)
    iy = np.clip(np.rint(pts[..., 1]), 0, h - 1).astype(np.intp)
    inside = planes[chan[:, None], iy, ix].astype(np.float32).mean(axis=1)
    ring_r = np.maximum(1.7 * r, r + 2.0)
    pts = xy[:, None, :] + _RING[None, :, :] * ring_r[:, None, None]
    ix = np.clip(np.rint(pts[..., 0]), 0, w - 1).astype(np.intp)
    iy = np.clip(np.rint(pts[..., 1]), 0, h - 1).astype(np.intp)
    ring_g = planes[chan[:, None], iy, ix].astype(np.float32)
    ring_c = bgr[iy, ix].astype(np.float32)
    # Part of the ring may fall on a neighbouring pip (close-set pips of a six): take the
    # face's grey from the side away from the pip's own polarity, and let samples that look
    # like another pip count as face-compatible; only the opposite (an edge, the floor) hurts.
    # The 30th and 70th percentiles of the 16 samples (linear interpolation: halfway between
    # the 5th and 6th, the 11th and 12th smallest): the samples are whole grey levels, so
    # the halves are exact, as np.percentile gives them, at a fraction of its time.
    ranked = np.sort(ring_g, axis=1)
    lo = 0.5 * (ranked[:, 4] + ranked[:, 5])
    hi = 0.5 * (ranked[:, 10] + ranked[:, 11])
    ring_gray = np.where(pol > 0, lo, hi).astype(np.float32)
    contrast = pol * (inside - ring_gray)
    tol = np.maximum(10.0, 0.35 * np.abs(contrast))
    dev = (ring_g - ring_gray[:, None]) * pol[:, None]
    uniform = (np.abs(dev) <= tol[:, None]).mean(axis=1) + 0.5 * (
        dev > 0.5 * contrast[:, None]
    ).mean(axis=1)
    face_like = np.abs(dev) <= tol[:, None]
    weights = face_like[..., None].astype(np.float32)
    ring_bgr = (ring_c * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
    ok = (contrast >= params.min_pip_contrast) & (uniform >= params.min_ring_uniformity)
    rnd, minor = _roundness(planes, chan[ok], xy[ok], r[ok], inside[ok], ring_gray[ok])
    cands = PipCandidates(
        xy[ok],
        diam[ok],
        pol[ok],
        contrast[ok].astype(np.float32),
        ring_bgr[ok].astype(np.float32),
        ring_gray[ok].astype(np.float32),
        uniform[ok].astype(np.float32),
        rnd,
        chan[ok],
        minor,
    )
    found = _drop_containers(_dedupe(_without_glare(cands, cut[ok])))
    planes_alone = []
    for channel in (1, 2):
        on = cands.channel == channel
        if on.any():
            alone = _drop_containers(_dedupe(_without_glare(cands.take(on), cut[ok][on])))
            planes_alone.append(alone.cands)
    return found._replace(colour=tuple(planes_alone))


def _without_glare(c: PipCandidates, cut: npt.NDArray[np.bool_]) -> PipCandidates:
    """``c`` without its blobs cut loose from lines (``cut``) that lie inside a round blob
    at least half as wide again, of the same plane and polarity: that blob is a pip, and
    what was cut inside it is its glare (it would pass for a pip's speck and hide the pip,
    see :func:`_drop_containers`)."""
    pieces = np.flatnonzero(cut)
    pips = np.flatnonzero(~cut & (c.roundness >= _ROUND_PIP))
    if pieces.size == 0 or pips.size == 0:
        return c
    # Every piece against every round pip at once, (pieces, pips): both are few.
    apart = np.hypot(
        c.xy[pieces, 0, None] - c.xy[None, pips, 0], c.xy[pieces, 1, None] - c.xy[None, pips, 1]
    )
    inside = (
        (c.polarity[pieces, None] == c.polarity[None, pips])
        & (c.channel[pieces, None] == c.channel[None, pips])
        & (c.diam[None, pips] >= 1.5 * c.diam[pieces, None])
        & (apart < 0.5 * c.diam[None, pips])
    )
    keep = np.ones(len(c), bool)
    keep[pieces[inside.any(axis=1)]] = False
    return c.take(keep)


#: A blob this round is taken for a pip with specks in it rather than a die with pips.
_ROUND_PIP = 0.85
#: ... unless a blob in it is at least this share as stark as it (at 0.3, mac785's frames
#: enlarged 1.2 to 1.7 times lost a pip in four or five on their darkest video).
_SPECK_STARK = 0.6


def _drop_containers(c: PipCandidates) -> PipSearch:
    """Drop blobs with pips inside: a whole die seen as a blob, not a pip.

    A very round container is a pip seen close up, which holds specks of its own (the
    dimple's shading, dust, compression noise): for it, a blob inside counts only when it
    is at least an eighth as wide, round, and ``_SPECK_STARK`` as stark (a webcam's pips
    seen a little closer hold a dimple or a glint a third to half as stark as the pip).
    Such round blobs, dropped, are kept aside (``PipSearch.speckled``): a close-up's pips,
    mottled, may hold specks as stark as that, and a die blurred round holds pips no starker.
    """
    n = len(c)
    if n <= 1:
        return PipSearch(c, _empty())
    from scipy.spatial import cKDTree

    tree = cKDTree(c.xy)
    big = np.flatnonzero(c.diam >= 2.5 * float(c.diam.min()))
    keep = np.ones(n, bool)
    if big.shape[0] == 0:
        return PipSearch(c, _empty())
    # One query for all of them (the same balls: the order of each one's indices, which
    # differs, does not matter to any()). The tests below are the float32 ones of numpy's
    # scalars, on plain floats: the thresholds are float32 products, the constants float32.
    balls = tree.query_ball_point(c.xy[big], r=0.45 * c.diam[big].astype(np.float64))
    diam, chan = c.diam.tolist(), c.channel.tolist()
    contrast, roundness = c.contrast.tolist(), c.roundness.tolist()
    smaller, wide_enough = (0.6 * c.diam).tolist(), (0.12 * c.diam).tolist()
    stark_enough = (_SPECK_STARK * c.contrast).tolist()
    round_pip, half = float(np.float32(_ROUND_PIP)), float(np.float32(0.5))
    for k, inside in zip(big.tolist(), balls, strict=True):
        if any(
            diam[m] < smaller[k]
            and chan[m] == chan[k]
            and (
                roundness[k] < round_pip
                or (
                    diam[m] >= wide_enough[k]
                    and contrast[m] >= stark_enough[k]
                    and roundness[m] >= half
                )
            )
            for m in inside
            if m != k
        ):
            keep[k] = False
    speckled = ~keep & (c.roundness >= _ROUND_PIP)
    return PipSearch(c.take(keep), c.take(speckled))


#: Two finds closer than this share of the bigger one's diameter may be one blob
#: (:func:`_dedupe`).
_SAME_BLOB = 0.7


def _dedupe(c: PipCandidates) -> PipCandidates:
    """Keep one candidate per blob found at several scales (the most contrasted, roundest)."""
    n = len(c)
    if n <= 1:
        return c
    from scipy.spatial import cKDTree

    # Grey finds come first: a pip that also shows in a colour plane is the same pip. But a
    # grey blob far from round (a pip's rim, a marbled streak) does not hide a round pip.
    order = np.lexsort((-(c.contrast * c.uniformity), c.channel, c.roundness < 0.4))
    tree = cKDTree(c.xy)
    # Every pair below lies within 0.7 of the bigger one's diameter: each candidate looks
    # only that far (one radius for all, the biggest blob's, made every pair of a textured
    # photo's thousands of specks a pair to test).
    near = tree.query_ball_point(c.xy, r=_SAME_BLOB * c.diam)
    counts = np.fromiter((len(m) for m in near), np.intp, n)
    a = np.repeat(np.arange(n), counts)
    b = np.fromiter(itertools.chain.from_iterable(near), np.intp, int(counts.sum()))
    other = a != b
    # A pair found from both ends (each within the other's reach) is tested once.
    pair_ids = np.unique(np.minimum(a, b)[other] * n + np.maximum(a, b)[other])
    if pair_ids.size == 0:
        return c
    i, j = pair_ids // n, pair_ids % n
    dist = np.linalg.norm(c.xy[i] - c.xy[j], axis=1)
    big = np.maximum(c.diam[i], c.diam[j])
    # Only the same blob seen at two scales; a die-sized blob around pips is left for
    # _drop_containers, so it cannot hide the pips.
    same_kind = (c.polarity[i] == c.polarity[j]) & (c.channel[i] == c.channel[j])
    close = ((dist < 0.6 * big) & same_kind & (big <= 2.0 * np.minimum(c.diam[i], c.diam[j]))) | (
        # Anything found on a colour plane inside or right beside a grey find is the same pip
        # (or its rim).
        (c.channel[i] != c.channel[j]) & (dist < _SAME_BLOB * big)
    )
    i, j = i[close], j[close]
    rank = np.empty(n, np.intp)
    rank[order] = np.arange(n)
    neighbours: dict[int, list[int]] = {}
    for a, b in zip(i.tolist(), j.tolist(), strict=True):
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    alive = np.ones(n, bool)
    for k in order.tolist():
        if not alive[k]:
            continue
        for m in neighbours.get(k, ()):
            if rank[m] > rank[k]:
                alive[m] = False
    return c.take(alive)
