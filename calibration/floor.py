"""Find the tray floor in a photo: the large, even-coloured, convex region the dice lie on.

The search runs on a small copy of the photo (``FLOOR_WORK_SIDE`` pixels on the long side):
candidate floor colours are taken around the dice (when their positions are known) and on a
grid over the middle of the photo; each colour is grown into a region, and the region that
looks like a tray floor (convex, enclosed by something of another colour, not the whole
table) wins. The outline is then a quadrilateral (box tray) or an ellipse (round tray).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.stats import column_mean_std, column_medians, median, percentile

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: Long side, in pixels, of the copy the floor is searched on.
FLOOR_WORK_SIDE = 320
#: Weight of lightness against the two colour axes in the Lab distance: floor shading and
#: wall shadows change lightness far more than colour.
_L_WEIGHT = 0.5
#: Least share of a region's outline that its own colour fills: a floor's holes are dice
#: and their shadows; a table around a tray of its colour has the whole tray as a hole.
MIN_OWN = 0.8
#: Shares of the colour threshold tried, in turn, when the floor grown at the full one
#: reaches the photo's frame or is no floor. One share does on the dev renders what (0.7,
#: 0.5) did, at a third of the cost (each try grows a region: ~0.5 ms a candidate colour).
TIGHTER = (0.7,)
#: Least share of a thin ring around a floor grown at a tighter threshold (or split off by
#: lightness) that must be unlike the floor at the full threshold for it to count: a wall or
#: its shadow encloses a floor on most sides (0.5-0.8 on the dev renders, where a rim of the
#: table's grey meets it along the rest), while a patch of grained table or a floor's own lit
#: part is of the same surface all round (0.1-0.15).
ENCLOSED = 0.4
#: Two lightness classes count as two surfaces when their means lie this many times their
#: own spread apart.
MIN_SPLIT = 2.0
#: Bridges narrower than this share of the work copy's long side are cut between the two
#: surfaces (their lightness classes overlap in noise and shading along the rim).
SPLIT_NECK = 0.035


@dataclass(frozen=True)
class FloorFit:
    """The floor found in one photo; positions in the photo's pixels ``(x, y)``.

    ``polygon`` is (N, 2) float64, counter-clockwise in image coordinates; ``shape`` is
    ``"rect"`` (N = 4, the floor's corners) or ``"round"`` (N = 48 points of an ellipse).
    ``lab_mean`` and ``lab_std`` are the floor colour in OpenCV's 8-bit Lab (L, a, b in
    0-255). ``visible_share`` is the share of the polygon that was seen as floor colour;
    ``frame_share`` the share of the photo's edge pixels that are floor (0 for a floor
    seen whole).
    """

    polygon: FloatArray
    shape: str
    lab_mean: tuple[float, float, float]
    lab_std: tuple[float, float, float]
    visible_share: float
    image_size: tuple[int, int]
    chroma: tuple[float, float] = (1 / 3, 1 / 3)
    frame_share: float = 0.0


def work_copy(image_bgr: Image, side: int = FLOOR_WORK_SIDE) -> tuple[Image, float]:
    """A copy reduced to at most ``side`` pixels on the long side, and its scale (work/full)."""
    h, w = image_bgr.shape[:2]
    scale = min(1.0, side / max(h, w))
    if scale >= 1.0:
        return image_bgr, 1.0
    # OpenCV averages by a whole factor several times faster than by a fractional one, so
    # most of the reduction is done that way (on a view trimmed to a multiple of it, which
    # drops at most k - 1 pixels off the right and bottom edges) and only the rest is not.
    k = int(max(h, w) / side)
    src = image_bgr
    if k >= 2:
        whole = image_bgr[: h - h % k, : w - w % k]
        src = _whole_factor_area(whole, k)
    small = cv2.resize(
        src,
        (max(1, round(w * scale)), max(1, round(h * scale))),
        interpolation=cv2.INTER_AREA,
    )
    return np.asarray(small, np.uint8), small.shape[1] / w


#: Odd reduction factors at which OpenCV's box filter, sampled at each block's centre,
#: gives exactly its INTER_AREA reduction (tested over every block sum).
_BOX_FACTORS = (3, 5, 7)


def _whole_factor_area(image: Image, k: int) -> Image:
    """``image`` (H, W, 3), H and W multiples of ``k``, averaged over k x k blocks as
    ``cv2.resize(..., INTER_AREA)`` does it.

    OpenCV's area reduction by a whole factor other than 2 runs a scalar loop (0.7 ms for
    a 960 x 540 photo at k = 3); its box filter gets the same block means in 0.45 ms over
    every pixel, and the block centres are kept. Both round the mean of k * k 8-bit values
    to the nearest; for an odd k the mean never lies half way, where their rounding rules
    (and fixed-point arithmetic) could part, and for k in :data:`_BOX_FACTORS` the test
    checks every block sum. Other factors keep OpenCV's resize.
    """
    h, w = image.shape[:2]
    if k not in _BOX_FACTORS or image.ndim != 3:
        return np.asarray(cv2.resize(image, (w // k, h // k), interpolation=cv2.INTER_AREA))
    box = np.asarray(cv2.blur(image, (k, k), borderType=cv2.BORDER_REPLICATE), np.uint8)
    return _block_centres(box, k)


def _block_centres(box: Image, k: int) -> Image:
    """``box[k // 2 :: k, k // 2 :: k]`` of an (H, W, C) image, H and W multiples of ``k``,
    as a new contiguous array.

    NumPy copies that view a pixel at a time (C bytes, then a jump): 0.26 ms for a 960 x 540
    photo at k = 3, as long as the box filter itself. Seen as rows of k-pixel blocks, each a
    pixel of k * C channels, the middle pixel's channels are copied by ``cv2.mixChannels``
    in a fifth of that; the bytes are the same.
    """
    h, w, c = box.shape
    blocks = box.reshape(h, w // k, k * c)[k // 2 :: k]
    first = c * (k // 2)
    out = np.empty((h // k, w // k, c), np.uint8)
    pairs = [i for j in range(c) for i in (first + j, j)]
    cv2.mixChannels([blocks], [out], pairs)
    return out


def pixels_at(image: npt.NDArray[Any], mask: npt.NDArray[np.bool_]) -> npt.NDArray[Any]:
    """``image[mask]`` of an (H, W, C) image (or a strided view of one) and an (H, W) bool
    mask: the same (N, C) array of the pixels where the mask is set.

    NumPy's boolean indexing copies the pixels' values one by one; each pixel seen as one
    item of C values is copied whole, about five times faster, and the bytes are the same.
    """
    if image.ndim != 3 or image.strides[2] != image.itemsize:
        return image[mask]
    whole = np.dtype((np.void, image.shape[2] * image.itemsize))
    picked = image.view(whole)[..., 0][mask]
    return picked.view(image.dtype).reshape(-1, image.shape[2])


def chromaticity(image_bgr: Image) -> npt.NDArray[np.float32]:
    """(H, W, 2) float32 blue and red shares of each smoothed pixel's B + G + R.

    Dark pixels are damped towards grey (their colour is mostly noise). Brightness is
    divided out, so a shadow keeps the chromaticity of what it falls on.
    """
    return chroma_of_smoothed(smoothed_for_chroma(image_bgr))


def smoothed_for_chroma(image_bgr: Image) -> Image:
    """The photo smoothed as :func:`chromaticity` smooths it: a pixel's chromaticity is
    :func:`chroma_of_smoothed` of its pixel here, so it may be worked out for the pixels
    needed alone (:func:`pixels_at`)."""
    return np.asarray(cv2.GaussianBlur(image_bgr, (5, 5), 0), np.uint8)


def chroma_of_smoothed(blur: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """:func:`chromaticity` of pixels already smoothed (or averaged), (..., 3) uint8 BGR ->
    (..., 2) float32."""
    f = blur.astype(np.float32)
    total = f[..., 0] + f[..., 1] + f[..., 2] + np.float32(30.0)
    out = np.empty((*f.shape[:-1], 2), np.float32)
    np.divide(f[..., 0] + np.float32(10.0), total, out=out[..., 0])
    np.divide(f[..., 2] + np.float32(10.0), total, out=out[..., 1])
    return out


def lab_image(small_bgr: Image) -> npt.NDArray[np.float32]:
    """Smoothed Lab (OpenCV 8-bit scale) of a work copy, float32 (H, W, 3)."""
    # Median first: felt texture and sensor noise are speckle, the edges must stay sharp.
    blur = cv2.GaussianBlur(cv2.medianBlur(small_bgr, 5), (3, 3), 0)
    return cv2.cvtColor(blur, cv2.COLOR_BGR2LAB).astype(np.float32)


def colour_distance(
    lab: npt.NDArray[np.float32],
    mean: Sequence[float] | npt.NDArray[np.float32],
    l_weight: float = _L_WEIGHT,
) -> npt.NDArray[np.float32]:
    """Distance of every pixel of ``lab`` (H, W, 3) from the colour ``mean``.

    Lightness differences count ``l_weight`` times as much as colour differences.
    """
    m = np.asarray(mean, np.float32)
    # OpenCV's per-channel subtraction gives the same float32 numbers as numpy's
    # broadcasting, several times faster.
    diff = cv2.subtract(lab, (float(m[0]), float(m[1]), float(m[2]), 0.0))  # type: ignore[call-overload]
    sq = cv2.multiply(diff, diff)
    weights = np.array([[l_weight**2, 1.0, 1.0]], np.float32)
    return np.asarray(cv2.sqrt(cv2.transform(sq, weights)), np.float32)


def find_floor(
    image_bgr: Image,
    *,
    seeds_xy: Sequence[tuple[float, float]] = (),
    seed_radius_px: float = 0.0,
    lab_hint: Sequence[float] | None = None,
) -> FloorFit | None:
    """Find the tray floor in ``image_bgr`` (H, W, 3) uint8 BGR; None when there is no tray.

    ``seeds_xy`` are points (photo pixels) where dice lie; the floor colour is sampled on a
    ring of ``seed_radius_px`` around each (about one die side). ``lab_hint`` is a known
    floor colour (from a profile) tried first. No tray means: no region of one colour that
    is enclosed by another colour (dice on a bare table, a photo filled by the floor).
    """
    h, w = image_bgr.shape[:2]
    small, scale = work_copy(image_bgr)
    lab = lab_image(small)
    _sh, _sw = lab.shape[:2]
    # A game has at most ten dice; more seeds only cost time.
    seeds_small = [(x * scale, y * scale) for x, y in list(seeds_xy)[:24]]
    colours = _candidate_colours(lab, seeds_small, seed_radius_px * scale)
    if lab_hint is not None:
        colours.insert(0, np.asarray(lab_hint, np.float32))
    colours = colours[:8]
    best: tuple[float, npt.NDArray[np.uint8], npt.NDArray[np.float32]] | None = None
    tried: list[npt.NDArray[np.float32]] = []
    for colour in colours:
        if any(float(np.linalg.norm(colour - t)) < 6.0 for t in tried):
            continue
        tried.append(colour)
        found = _grow(lab, colour, seeds_small)
        if found is None:
            continue
        score, region, inside = found
        if best is None or score > best[0]:
            best = (score, region, colour)
        # Most dice on one convex region of one colour: that is the floor; stop early.
        if seeds_small and inside >= max(1.0, 0.6 * len(seeds_small)):
            break
    if best is None:
        return None
    _score, region, colour = best
    # Colour statistics from every other row and column: a floor has thousands of pixels,
    # a quarter of them give the same mean, spread and median at a quarter of the cost.
    sub = region[::2, ::2] > 0
    mean, std = column_mean_std(pixels_at(lab[::2, ::2], sub))
    edge = np.concatenate([region[0, :], region[-1, :], region[:, 0], region[:, -1]])
    frame_share = float(np.count_nonzero(edge)) / edge.size
    polygon, shape, share = _outline(region)
    blur = smoothed_for_chroma(small)
    # Only the floor's own pixels are needed: their chromaticity alone is computed.
    floor_bgr = pixels_at(blur[::2, ::2], sub)
    if shape == "rect":
        polygon = _extend_into_shadow(blur, polygon, region, floor_bgr)
    chroma = column_medians(chroma_of_smoothed(floor_bgr))
    polygon = polygon / scale
    # A box floor's corners may lie out of the photo (the sides go on out of sight);
    # only absurd ones are pulled in.
    polygon[:, 0] = np.clip(polygon[:, 0], -w, 2 * w)
    polygon[:, 1] = np.clip(polygon[:, 1], -h, 2 * h)
    return FloorFit(
        polygon=polygon.astype(np.float64),
        shape=shape,
        lab_mean=(float(mean[0]), float(mean[1]), float(mean[2])),
        lab_std=(float(std[0]), float(std[1]), float(std[2])),
        visible_share=share,
        image_size=(w, h),
        chroma=(float(chroma[0]), float(chroma[1])),
        frame_share=frame_share,
    )


def _candidate_colours(
    lab: npt.NDArray[np.float32], seeds: list[tuple[float, float]], radius: float
) -> list[npt.NDArray[np.float32]]:
    """Colours to try as the floor: around the dice first, then on a grid in the middle.

    All sample points are placed, read and compared at once (one distance matrix, the
    same float32 numbers a pair-by-pair comparison gives); only the short greedy choice
    runs in Python.
    """
    sh, sw = lab.shape[:2]
    r = max(2.0, radius)
    groups: list[npt.NDArray[np.float32]] = []
    ang = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    around = np.asarray(seeds, np.float64).reshape(-1, 2)
    fracs = np.array([0.2, 0.4, 0.6, 0.8])
    for xs, ys in (
        (around[:, :1] + r * np.cos(ang)[None, :], around[:, 1:] + r * np.sin(ang)[None, :]),
        (np.tile(fracs * sw, 4), np.repeat(fracs * sh, 4)),
    ):
        ix = np.rint(xs.ravel()).astype(np.intp)
        iy = np.rint(ys.ravel()).astype(np.intp)
        inside = (ix >= 2) & (ix < sw - 2) & (iy >= 2) & (iy < sh - 2)
        # ``lab`` is already median-filtered: one pixel stands for its patch.
        groups.append(lab[iy[inside], ix[inside]].astype(np.float32))
    colours = np.concatenate(groups)
    if not len(colours):
        return []
    # Distances between all sampled colours, lightness damped as everywhere.
    d = colours[:, None, :] - colours[None, :, :]
    d[..., 0] *= _L_WEIGHT
    near = np.sqrt((d * d).sum(axis=-1)) < 10.0
    out: list[int] = []
    # Whether each colour is near one already chosen: updated as each is chosen, so that
    # the test of a colour is one lookup, not a row of the matrix gathered each time.
    taken = np.zeros(len(colours), bool)
    first = 0
    for group in groups:
        idx = np.arange(first, first + len(group))
        first += len(group)
        # Most frequent colours first (the floor is usually what most samples hit); shades
        # of one surface (lightness differences) count as one colour. A stable sort on the
        # counts keeps the order of equally frequent colours.
        counts = near[np.ix_(idx, idx)].sum(axis=1)
        kept = 0
        for i in idx[np.argsort(-counts, kind="stable")].tolist():
            if kept == 4:
                break
            if not taken[i]:
                out.append(i)
                taken |= near[:, i]
                kept += 1
    return [colours[i] for i in out]


def _grow(
    lab: npt.NDArray[np.float32],
    colour: npt.NDArray[np.float32],
    seeds: Sequence[tuple[float, float]] = (),
) -> tuple[float, npt.NDArray[np.uint8], int] | None:
    """The floor-like region of ``colour``, its score (bigger is better) and seeds in it.

    A region holding more of the ``seeds`` (dice, work-copy pixels) scores higher: dice lie
    in the tray far more often than beside it.
    """
    sh, sw = lab.shape[:2]
    dist = colour_distance(lab, colour)
    # The threshold follows the spread of the colour's own pixels (felt texture, noise,
    # shading): the distance that most pixels of the colour's mode lie within.
    near = dist[dist < 14.0]
    if near.size < 0.02 * sh * sw:
        return None
    thresh = float(np.clip(2.0 * percentile(near, 75), 8.0, 18.0))
    found = _grow_within(dist, thresh, seeds)
    if found is not None and (found[3] == 0.0 or (seeds and not found[2])):
        # Clear of the frame, or holding none of the dice, which no part of it would then
        # hold either (the table around the tray): nothing tighter to look for.
        return found[:3]
    # A noisy floor (felt) widens the threshold until a table or a wall top of a colour
    # near the floor's joins it through the rim, and the region then reaches the frame (or
    # is no floor shape at all). The floor's own pixels lie nearer its colour than those:
    # a tighter threshold keeps a floor that something of another colour encloses.
    for share in TIGHTER:
        tight = _grow_within(dist, max(6.0, share * thresh), seeds)
        if tight is None or tight[3] > 0.0:
            continue
        # Something of another colour must enclose it (a patch of a grained table between
        # a cable and a die is of the table's colour all round); a tighter floor that
        # replaces a looser one must also hold a die.
        if not _enclosed(dist, tight[1], thresh) or (found is not None and not tight[2]):
            continue
        return tight[:3]
    if found is not None:
        # Two surfaces of one hue that differ in lightness (pale felt, a darker table of the
        # same grey): the region reaching the frame splits at the lightness between them,
        # and the part that is enclosed and holds dice is the floor.
        split = _lightness_split(lab, dist, found[1], thresh, seeds)
        if split is not None:
            return split[:3]
    return found[:3] if found is not None else None


def _lightness_split(
    lab: npt.NDArray[np.float32],
    dist: npt.NDArray[np.float32],
    region: npt.NDArray[np.uint8],
    thresh: float,
    seeds: Sequence[tuple[float, float]],
) -> tuple[float, npt.NDArray[np.uint8], int, float] | None:
    """The floor within ``region`` (grown at ``thresh``, reaching the frame) on one side of
    the lightness that best splits it in two (Otsu), when that side alone is a floor clear
    of the frame, holds a seed and is enclosed by something unlike it; else None."""
    light = lab[..., 0]
    values = np.clip(light[region > 0], 0, 255).astype(np.uint8)
    if values.size < 100:
        return None
    cut, _ = cv2.threshold(values.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    lo, hi = values[values <= cut], values[values > cut]
    if lo.size < 0.1 * values.size or hi.size < 0.1 * values.size:
        return None
    # Two surfaces, not one surface's spread: their lightnesses lie apart.
    spread = 0.5 * (float(lo.std()) + float(hi.std()))
    if float(hi.mean()) - float(lo.mean()) < MIN_SPLIT * max(1.0, spread):
        return None
    for side in (light > cut, light <= cut):
        part = np.where(side, dist, np.float32(1e6)).astype(np.float32)
        found = _grow_within(part, thresh, seeds, SPLIT_NECK)
        if found is None or found[3] > 0.0 or found[2] == 0:
            continue
        if _enclosed(dist, found[1], thresh):
            return found
    return None


def _enclosed(
    dist: npt.NDArray[np.float32],
    region: npt.NDArray[np.uint8],
    thresh: float,
) -> bool:
    """True when at least :data:`ENCLOSED` of a thin ring just outside ``region`` is beyond
    ``thresh`` of the floor's colour (``dist``, the work copy's distance to it): a wall or
    its shadow, not more of the same surface."""
    k = _odd_size(0.02, region.shape)
    grown = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ring = (grown > 0) & (region == 0)
    if ring.sum() < 10:
        return False
    return float((dist[ring] >= thresh).mean()) >= ENCLOSED


def _odd_size(share: float, shape: tuple[int, ...]) -> int:
    """An odd kernel size, at least 3, about ``share`` of the long side of an image of
    ``shape``."""
    return max(3, (round(share * max(shape[:2])) // 2) * 2 + 1)


def _grow_within(
    dist: npt.NDArray[np.float32],
    thresh: float,
    seeds: Sequence[tuple[float, float]],
    neck: float = 0.012,
) -> tuple[float, npt.NDArray[np.uint8], int, float] | None:
    """:func:`_grow` at one colour distance ``thresh``; also the region's share of the frame.

    Bridges narrower than ``neck`` times the copy's long side are cut.
    """
    sh, sw = dist.shape[:2]
    mask = (dist < thresh).astype(np.uint8) * 255
    k = _odd_size(0.012, dist.shape)
    # Eroding first cuts the thin bridges (a dark wall edge, a shadow on the table) through
    # which a floor colour leaks out of the tray; the kept part is grown back afterwards.
    e = _odd_size(neck, dist.shape)
    core = np.asarray(
        cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (e, e))), np.uint8
    )
    n, labels, areas = _components(core)
    if n <= 1:
        return None
    best: tuple[float, npt.NDArray[np.uint8], int, float] | None = None
    order = np.argsort(-areas[1:]) + 1
    for lab_id in order[:3]:
        area = int(areas[lab_id])
        if area < 0.03 * sh * sw:
            break
        comp = np.asarray(cv2.compare(labels, int(lab_id), cv2.CMP_EQ), np.uint8)  # type: ignore[call-overload]
        comp = (
            np.asarray(
                cv2.dilate(comp, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (e, e))), np.uint8
            )
            & mask
        )
        comp = np.asarray(cv2.morphologyEx(comp, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)))
        filled = _fill_small_holes(comp, 0.04 * sh * sw)
        border = np.concatenate([filled[0, :], filled[-1, :], filled[:, 0], filled[:, -1]])
        border_share = float(np.count_nonzero(border)) / border.size
        if border_share > 0.3:
            continue
        contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(contours, key=cv2.contourArea)
        c_area = float(cv2.contourArea(contour))
        hull = cv2.convexHull(contour)
        hull_area = float(cv2.contourArea(hull))
        if hull_area <= 0:
            continue
        solidity = c_area / hull_area
        own = float(np.count_nonzero(comp)) / max(1.0, c_area)
        if solidity < 0.85 or own < MIN_OWN:
            continue
        # Inside the hull: dice against a wall, with their shadows, notch the floor's own
        # outline rather than leave a hole in it.
        inside = sum(cv2.pointPolygonTest(hull, (float(x), float(y)), False) >= 0 for x, y in seeds)
        score = c_area * solidity * (1.0 - border_share) * (1.0 + inside)
        if best is None or score > best[0]:
            region = np.zeros_like(filled)
            cv2.drawContours(region, [contour], -1, 255, -1)
            best = (score, region, int(inside), border_share)
    return best


def _components(
    mask: npt.NDArray[np.uint8],
) -> tuple[int, npt.NDArray[np.integer[Any]], npt.NDArray[np.int32]]:
    """The 4-connected components of ``mask`` (H, W): their count (background included),
    the labels (H, W) and each label's area in pixels (int32, as OpenCV's statistics give
    them, so that a sort orders equal areas alike).

    Only the areas are needed: counting the labels is several times faster than OpenCV's
    statistics (boxes and centroids too) and gives the same numbers. A mask has at most one
    4-connected component in two pixels, so a work copy's labels (320 x 320 pixels at most)
    fit in 16 bits; ``cv2.calcHist`` counts those in a third less time than ``np.bincount``
    counts 32-bit labels (exact: whole counts below 2 ** 24 in its float32).
    """
    if mask.size > 2 * 65_534:
        n, found32 = cv2.connectedComponents(mask, connectivity=4)
        labels32 = np.asarray(found32, np.int32)
        return n, labels32, np.bincount(labels32.ravel(), minlength=n).astype(np.int32)
    n, found = cv2.connectedComponents(mask, connectivity=4, ltype=cv2.CV_16U)
    labels = np.asarray(found, np.uint16)
    counts = np.asarray(cv2.calcHist([labels], [0], None, [n], [0, n]))
    return n, labels, counts.reshape(-1).astype(np.int32)


def _fill_small_holes(mask: npt.NDArray[np.uint8], max_area: float) -> npt.NDArray[np.uint8]:
    """Fill the holes of ``mask`` smaller than ``max_area`` pixels (dice lying on the floor)."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    out = mask.copy()
    if hierarchy is None:
        return out
    holes = [
        c
        for c, hier in zip(contours, hierarchy[0], strict=True)
        if hier[3] >= 0 and cv2.contourArea(c) <= max_area
    ]
    if holes:
        cv2.drawContours(out, holes, -1, 255, -1)
    return out


def _outline(region: npt.NDArray[np.uint8]) -> tuple[FloatArray, str, float]:
    """Quadrilateral or ellipse around a floor region; ``(polygon (N, 2), shape, share)``."""
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea)
    hull = np.asarray(cv2.convexHull(contour), np.int32)
    hull_area = float(cv2.contourArea(hull))
    quad = _sharpen_quad(_quad(hull, region.shape), contour.reshape(-1, 2).astype(np.float64))
    quad_err = _area_mismatch(region, quad)
    ell_poly = None
    ell_err = np.inf
    # The ellipse is fitted to the hull, which may keep fewer points than the contour.
    if len(hull) >= 5:
        (ex, ey), (ea, eb), eang = cv2.fitEllipse(hull)
        if ea > 0 and eb > 0:
            ell_poly = ellipse_polygon((ex, ey), (ea, eb), eang)
            ell_err = _area_mismatch(region, ell_poly)
    if ell_poly is not None and ell_err < quad_err:
        poly, shape = ell_poly, "round"
    else:
        poly, shape = quad, "rect"
    poly = _ccw(poly)
    share = float(np.count_nonzero(region)) / max(1.0, hull_area)
    return poly, shape, min(1.0, share)


def ellipse_polygon(
    centre: tuple[float, float], axes: tuple[float, float], angle_deg: float, n: int = 48
) -> FloatArray:
    """(n, 2) points on the ellipse given as OpenCV's RotatedRect (full axis lengths)."""
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    a, b = 0.5 * axes[0], 0.5 * axes[1]
    ca, sa = np.cos(np.deg2rad(angle_deg)), np.sin(np.deg2rad(angle_deg))
    x, y = a * np.cos(t), b * np.sin(t)
    return np.stack([centre[0] + x * ca - y * sa, centre[1] + x * sa + y * ca], axis=1)


def _quad(hull: npt.NDArray[np.int32], frame: tuple[int, ...]) -> FloatArray:
    """Four corners approximating a convex hull: the lines of its four longest straight
    stretches, met. Dice crowding a corner cut it off the floor's hull with a short
    slanted stretch, which must not become a side; nor must a stretch along the edge of
    the photo (``frame``: its height and width), where the floor goes on out of sight."""
    peri = float(cv2.arcLength(hull, True))
    approx = cv2.approxPolyDP(hull, 0.02 * peri, True).reshape(-1, 2).astype(np.float64)
    if len(approx) > 4:
        quad = _longest_sides_quad(approx, float(cv2.contourArea(hull)), frame)
        if quad is not None:
            return quad
    best = None
    for frac in np.linspace(0.005, 0.12, 40):
        approx4 = cv2.approxPolyDP(hull, frac * peri, True)
        if len(approx4) == 4:
            best = approx4
            break
        if len(approx4) < 4:
            break
    if best is None:
        rect = cv2.minAreaRect(hull)
        return cv2.boxPoints(rect).astype(np.float64)
    return best.reshape(-1, 2).astype(np.float64)


def _longest_sides_quad(
    poly: FloatArray, hull_area: float, frame: tuple[int, ...]
) -> FloatArray | None:
    """The quadrilateral on the lines of the four longest sides of the convex ``poly``
    (N, 2) that do not run along the photo's edge, kept in order; None when it does not
    look like the same floor (not convex, smaller than the hull of ``hull_area`` pixels,
    or far larger than it where the photo shows the floor whole)."""
    n = len(poly)
    h, w = frame[0], frame[1]
    nxt = np.roll(poly, -1, axis=0)

    def on_edge(p: FloatArray, q: FloatArray) -> bool:
        lim = 1.5
        return bool(
            (p[0] <= lim and q[0] <= lim)
            or (p[1] <= lim and q[1] <= lim)
            or (p[0] >= w - 1 - lim and q[0] >= w - 1 - lim)
            or (p[1] >= h - 1 - lim and q[1] >= h - 1 - lim)
        )

    framed = np.array([on_edge(poly[i], nxt[i]) for i in range(n)])
    lengths = np.where(framed, -1.0, np.hypot(*(nxt - poly).T))
    if int((lengths > 0).sum()) < 4:
        return None
    keep = np.sort(np.argsort(-lengths)[:4])
    corners = []
    for a, b in zip(keep, np.roll(keep, -1), strict=True):
        p1, d1 = poly[a], nxt[a] - poly[a]
        p2, d2 = poly[b], nxt[b] - poly[b]
        m = np.array([[d1[0], -d2[0]], [d1[1], -d2[1]]])
        if abs(float(np.linalg.det(m))) < 1e-9:
            return None
        t = np.linalg.solve(m, p2 - p1)
        corners.append(p1 + t[0] * d1)
    quad = np.array(corners, np.float64)
    area = float(cv2.contourArea(quad.astype(np.float32)))
    # Corners out of sight may add much to the area; corners in sight little.
    most = 2.0 if framed.any() else 1.25
    if not cv2.isContourConvex(quad.astype(np.float32)) or not (
        hull_area <= area <= most * hull_area
    ):
        return None
    return quad


def _extend_into_shadow(
    blur_bgr: Image,
    quad: FloatArray,
    region: npt.NDArray[np.uint8],
    floor_bgr: Image,
) -> FloatArray:
    """Push each side of the floor quad outwards over floor that lies in a wall's shadow.

    Shadowed floor keeps the floor's chromaticity (colour with brightness divided out) and
    is darker; a wall or the table differs in chromaticity or is brighter. Each side moves
    while the strip just beyond it still looks like shadowed floor. ``floor_bgr`` (N, 3)
    are the region's pixels of every other row and column (the medians of thousands of
    floor pixels hardly move), which the caller has already gathered.
    """

    def shade(px: Image) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        # Chromaticity and brightness of (N, 3) pixels, computed only where looked at.
        f = px.astype(np.float32)
        # Whole numbers: the channels added one by one give the short-axis sum's numbers,
        # without NumPy's slow reduction over an axis of three.
        total = f[..., 0] + f[..., 1] + f[..., 2] + 9.0
        return (f[..., [0, 2]] + 3.0) / total[..., None], total

    chroma_in, total_in = shade(floor_bgr)
    c_floor = column_medians(chroma_in)
    c_spread = float(median(np.abs(chroma_in - c_floor).ravel())) * 1.48
    c_tol = max(0.02, 3.0 * c_spread)
    bright = float(median(total_in))
    sh, sw = region.shape
    centre = quad.mean(axis=0)
    size = float(np.sqrt(cv2.contourArea(quad.astype(np.float32))))
    max_steps = max(2, int(0.1 * size))
    out = quad.copy()
    for i in range(4):
        p, q = out[i].copy(), out[(i + 1) % 4].copy()
        d = q - p
        length = float(np.linalg.norm(d))
        if length < 8:
            continue
        n = np.array([-d[1], d[0]]) / length
        if float(np.dot(n, (p + q) / 2 - centre)) < 0:
            n = -n
        ts = np.linspace(0.15, 0.85, 24)
        # All strips at once (steps, samples); the side moves up to the first strip that
        # leaves the photo or does not look like shadowed floor.
        steps = np.arange(1, max_steps + 1, dtype=np.float64)
        pts = (
            p[None, None, :]
            + ts[None, :, None] * d[None, None, :]
            + n[None, None, :] * (steps[:, None, None] + 1.0)
        )
        ix = np.round(pts[..., 0]).astype(int)
        iy = np.round(pts[..., 1]).astype(int)
        ok = (ix >= 0) & (ix < sw) & (iy >= 0) & (iy < sh)
        c, total = shade(blur_bgr[np.where(ok, iy, 0), np.where(ok, ix, 0)])
        sq = (c - c_floor) ** 2
        # The two squares added in the order the short-axis sum adds them.
        dist = np.sqrt(sq[..., 0] + sq[..., 1])
        floorish = (dist < c_tol) & (total < 1.05 * bright) & ok
        n_ok = ok.sum(axis=1)
        fail = (n_ok / ts.size < 0.7) | (floorish.sum(axis=1) / np.maximum(n_ok, 1) < 0.5)
        moved = int(np.argmax(fail)) if fail.any() else max_steps
        if moved:
            out[i] = out[i] + n * moved
            out[(i + 1) % 4] = out[(i + 1) % 4] + n * moved
    return out


def _sharpen_quad(quad: FloatArray, contour: FloatArray) -> FloatArray:
    """Corners where lines fitted to the middle of each side meet.

    A floor's corners are often in shadow or cut by the simplification, so the
    simplified corners sit inside the true ones; the sides themselves are reliable.
    """
    lines = []
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        d = q - p
        length = float(np.linalg.norm(d))
        if length < 4:
            return quad
        u = d / length
        n = np.array([-u[1], u[0]])
        rel = contour - p
        along = rel @ u
        across = np.abs(rel @ n)
        sel = (along > 0.2 * length) & (along < 0.8 * length) & (across < 0.03 * length + 2)
        if sel.sum() < 5:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(contour[sel].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        lines.append(
            (np.array([float(x0[0]), float(y0[0])]), np.array([float(vx[0]), float(vy[0])]))
        )
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        a = np.array([[d1[0], -d2[0]], [d1[1], -d2[1]]])
        if abs(np.linalg.det(a)) < 1e-6:
            return quad
        t = np.linalg.solve(a, p2 - p1)
        corner = p1 + t[0] * d1
        # A corner that moves far means the lines were poor; keep the simple one then.
        if np.linalg.norm(corner - quad[i]) > 0.15 * np.linalg.norm(quad[i] - quad.mean(axis=0)):
            return quad
        out.append(corner)
    return np.array(out, np.float64)


def _area_mismatch(region: npt.NDArray[np.uint8], poly: FloatArray) -> float:
    """Pixels in the region or the polygon but not both, as a share of the region."""
    canvas = np.zeros_like(region)
    cv2.fillPoly(canvas, [np.round(poly).astype(np.int32)], 255)
    diff = np.count_nonzero(cv2.bitwise_xor(canvas, region))
    return float(diff) / max(1, int(np.count_nonzero(region)))


def _ccw(poly: FloatArray) -> FloatArray:
    """The polygon with counter-clockwise orientation in image coordinates (y down)."""
    x, y = poly[:, 0], poly[:, 1]
    signed = 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    return poly[::-1].copy() if signed > 0 else poly
