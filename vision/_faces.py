"""Grouping pip candidates into die faces and fitting the standard pip layouts."""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from vision._pips import PipCandidates
from vision.params import ReaderParams

IntArray = npt.NDArray[np.intp]

#: Grid places (gx, gy) in {-1, 0, 1}^2 of each standard layout, indexed by place number
#: (gx + 1) * 3 + (gy + 1). Two and three run along either diagonal; six along either axis.
_LAYOUTS: dict[int, tuple[tuple[tuple[int, int], ...], ...]] = {
    1: (((0, 0),),),
    2: (((-1, -1), (1, 1)), ((-1, 1), (1, -1))),
    3: (((-1, -1), (0, 0), (1, 1)), ((-1, 1), (0, 0), (1, -1))),
    4: (((-1, -1), (-1, 1), (1, -1), (1, 1)),),
    5: (((-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)),),
    6: (
        ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
        ((-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)),
    ),
}


def _mask(places: tuple[tuple[int, int], ...]) -> int:
    return sum(1 << ((gx + 1) * 3 + (gy + 1)) for gx, gy in places)


_MASKS: dict[int, tuple[int, ...]] = {n: tuple(_mask(p) for p in ls) for n, ls in _LAYOUTS.items()}
_MASK_ARRAYS = {n: np.array(m) for n, m in _MASKS.items()}
#: Mean distance of a layout's pips from its centre, in grid steps.
_MEAN_RADIUS = {
    n: float(np.mean([np.hypot(gx, gy) for gx, gy in ls[0]])) for n, ls in _LAYOUTS.items()
}
_ALL_PLACES = np.array([(gx, gy) for gx in (-1, 0, 1) for gy in (-1, 0, 1)], np.float32)
#: The eight places around the centre, in the order of ``_ALL_PLACES``.
AROUND_CENTRE = np.arange(9) != 4


def grid_places(
    center: tuple[float, float], step: float, angle: float, places: npt.NDArray[np.bool_ | np.intp]
) -> npt.NDArray[np.float32]:
    """Image positions (n, 2) ``(x, y)`` of the chosen 3x3 grid places of a face turned by
    ``angle`` (radians) with grid ``step`` (pixels) about ``center``."""
    g = _ALL_PLACES[places] * step
    if angle == 0.0 and math.copysign(1.0, angle) > 0.0:
        ca, sa = 1.0, 0.0  # np.cos and np.sin of +0.0, exactly
    else:
        ca, sa = float(np.cos(angle)), float(np.sin(angle))
    cx, cy = center
    if type(cx) is float and type(cy) is float and type(step) is float:
        if sa == 0.0 and ca == 1.0 and step > 0.0:
            # Unturned (a lone pip's grid): the products by 1 and the added zeros below
            # change no bit, which leaves the centre plus the grid.
            plain: npt.NDArray[np.float32] = np.array([cx, cy], np.float32) + g
            return plain
        # The same float32 sums and products as below, both coordinates at once (a third
        # of the numpy calls): x = (cx + gx cos) - gy sin, y = (cy + gx sin) + gy cos.
        turned = np.array([cx, cy], np.float32) + g[:, :1] * np.array([ca, sa], np.float32)
        both: npt.NDArray[np.float32] = turned + g[:, 1:] * np.array([-sa, ca], np.float32)
        return both
    x = cx + g[:, 0] * ca - g[:, 1] * sa
    y = cy + g[:, 0] * sa + g[:, 1] * ca
    out: npt.NDArray[np.float32] = np.stack([x, y], axis=1).astype(np.float32)
    return out


#: Index pairs (i < j) of n points, for n = 2..6.
_PAIRS = {n: np.triu_indices(n, 1) for n in range(2, 7)}
_TURNS = np.deg2rad(np.array([0.0, -4.0, 4.0, 45.0, 41.0, 49.0]))


class FaceFit(NamedTuple):
    """A standard layout fitted to some pips (work-image pixels).

    ``step`` is the distance between neighbouring grid places; ``angle`` the grid's rotation
    in radians; ``residual`` the largest pip offset from its place, in grid steps;
    ``members`` indices into the candidates; ``empty_places`` (K, 2) positions ``(x, y)`` of
    the grid places without a pip.
    """

    value: int
    center: tuple[float, float]
    step: float
    angle: float
    residual: float
    members: tuple[int, ...]
    empty_places: npt.NDArray[np.float32]
    #: Shorter over longer axis of the grid as seen (affine fit, four pips or more): near 1
    #: for a face seen straight on, small for a side face seen at a glancing angle.
    squash: float = 1.0
    #: The largest pip offset from that affine grid (a square face seen aslant is a
    #: parallelogram), in steps of its shorter axis; inf for fewer than four pips.
    affine_residual: float = math.inf
    #: That grid's two axes (2, 2): rows are the image vectors (pixels) of one grid step
    #: along each; None for fewer than four pips.
    axes: npt.NDArray[np.float64] | None = None

    @property
    def short_axis(self) -> float:
        """The direction (radians, modulo pi) of the grid's shorter axis in the image (0
        without a grid)."""
        if self.axes is None:
            return 0.0
        vt = np.linalg.svd(self.axes)[2]
        return float(np.arctan2(vt[-1, 1], vt[-1, 0]) % np.pi)


def fit_layout(
    points: npt.NDArray[np.float32],
    members: tuple[int, ...],
    diam: float = 0.0,
) -> FaceFit | None:
    """Fit the standard layout with as many pips as ``points`` (N, 2); None when none fits.

    With ``diam`` (the pips' diameter) a layout whose grid is far too wide or too tight for
    pips of that size does not fit: on dice the grid step is 1-3 pip diameters. Many
    subsets at once are tried by ``_trial_fits`` (same rules, residuals only).
    """
    n = points.shape[0]
    if n < 2 or n > 6:
        return None
    centre = points.sum(axis=0) / n
    q = points - centre
    radius = float(np.sqrt((q * q).sum(axis=1)).sum()) / n
    step = radius / _MEAN_RADIUS[n]
    if step <= 0 or (diam > 0 and not 0.7 * diam <= step <= 4.0 * diam):
        return None
    # Pips of every layout are spaced along the grid's axes and diagonals (multiples of 45
    # degrees): the pairwise directions give the grid's turn modulo 45 degrees; the turn is
    # then that or 45 degrees more, give or take a few for a face seen aslant.
    i, j = _PAIRS[n]
    diff = q[j] - q[i]
    phi = np.arctan2(diff[:, 1], diff[:, 0])
    # Only the closest pairs: on every layout they run along the grid's axes or diagonals,
    # while longer pairs of a six (whose columns are often set closer than its rows are
    # long) do not.
    length2 = (diff**2).sum(axis=1)
    weight = (length2 <= 2.6 * length2.min()).astype(np.float64)
    base = float(np.arctan2((weight * np.sin(8 * phi)).sum(), (weight * np.cos(8 * phi)).sum()))
    angles = (base / 8 + _TURNS) % (np.pi / 2)
    cos, sin = np.cos(angles), np.sin(angles)
    # Rotate the pips by -angle for every angle tried: (A, N, 2) grid coordinates.
    gx = (q[None, :, 0] * cos[:, None] + q[None, :, 1] * sin[:, None]) / step
    gy = (-q[None, :, 0] * sin[:, None] + q[None, :, 1] * cos[:, None]) / step
    # np.minimum(np.maximum(...)) is np.clip, bit for bit (NaN too), without its overhead.
    rx = np.minimum(np.maximum(np.rint(gx), -1), 1)
    ry = np.minimum(np.maximum(np.rint(gy), -1), 1)
    res = np.hypot(gx - rx, gy - ry).max(axis=1)
    place = ((rx + 1) * 3 + (ry + 1)).astype(np.int64)
    masks = np.bitwise_or.reduce(np.left_shift(1, place), axis=1)
    valid = (masks[:, None] == _MASK_ARRAYS[n][None, :]).any(axis=1)
    res = np.where(valid, res, np.inf)
    six = None
    if n == 6 and not float(res.min()) <= _SIX_STANDARD:
        # Only when the standard layout does not fit snugly.
        six = _six_columns(gx * step, gy * step, diam)
        if float(six[0].min()) < float(res.min()):
            res = six[0]
    if not np.isfinite(res).any():
        return None
    best = int(np.argmin(res))
    angle = float(angles[best])
    centre_xy = (float(centre[0]), float(centre[1]))
    grid: npt.NDArray[np.float64] | None
    if six is not None and six[0][best] == res[best] and np.isfinite(six[0][best]):
        # A six whose columns are set closer (or wider) than its rows are long.
        value, step = 6, float(six[1][best])
        empty = _SIX_MIDDLE[int(six[2][best])]
        grid = _six_grid(gx[best], gy[best], int(six[2][best]))
    else:
        value = n
        used = set(place[best].tolist())
        empty = np.array([i for i in range(9) if i not in used], np.intp)
        grid = np.stack([rx[best], ry[best]], axis=1) if n >= 4 else None
    return FaceFit(
        value,
        centre_xy,
        step,
        angle,
        float(res[best]),
        members,
        grid_places(centre_xy, step, angle, empty),
        *(_affine(grid, q) if grid is not None else (1.0, math.inf, None)),
    )


#: The empty middle column of a six: places with gx == 0 (columns across x) or gy == 0.
_SIX_MIDDLE = (np.array([3, 4, 5], np.intp), np.array([1, 4, 7], np.intp))
#: Rows of the two columns of a six in the order ``_six_columns`` sorts its pips.
_SIX_ROWS = np.array([-1.0, 0.0, 1.0, -1.0, 0.0, 1.0])
#: Column spacing of a six, as a share of the spacing within a column, that still reads as a
#: six: the standard layout has 1.0 (columns two grid steps apart); many dice set them closer.
_SIX_COLUMNS = (0.62, 1.25)
#: Largest pip offset of such a six, in grid steps: its extra freedom asks for a tighter fit.
_SIX_MAX_RESIDUAL = 0.25
#: A six whose standard layout fits this snugly (largest pip offset, grid steps) is not
#: fitted again with its own column spacing.
_SIX_STANDARD = 0.1


def _six_columns(
    u: npt.NDArray[np.float64],
    v: npt.NDArray[np.float64],
    diam: float | npt.NDArray[np.floating[Any]],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.intp]]:
    """Fit six pips as two columns of three with their own spacing across the columns.

    ``u``, ``v`` (..., 6) are the pips' offsets from their centre along the grid's two axes
    (pixels); ``diam`` the pips' diameter (broadcast against ``u[..., 0]``). Returns the
    residual in grid steps (inf where the pips are not two columns of three), the grid step
    (spacing within a column) and which axis the columns run across (0: u, 1: v).
    """
    best_res = np.full(u.shape[:-1], np.inf)
    best_step = np.ones(u.shape[:-1])
    best_axis = np.zeros(u.shape[:-1], np.intp)
    for axis, (a, b) in enumerate(((u, v), (v, u))):
        right = a > 0
        ok = right.sum(axis=-1) == 3
        big = 1e6
        ordered = np.sort(b + big * right, axis=-1)
        left_col, right_col = ordered[..., :3], ordered[..., 3:] - big
        step = 0.25 * (
            (left_col[..., 2] - left_col[..., 0]) + (right_col[..., 2] - right_col[..., 0])
        )
        safe = np.where(step > 0, step, 1.0)
        half = np.abs(a).mean(axis=-1)
        rows = ordered - big * (np.arange(6) >= 3) - _SIX_ROWS * safe[..., None]
        across = np.abs(a) - half[..., None]
        # The larger offset across and the larger along: an upper bound of the worst pip's.
        res = np.sqrt((across**2).max(axis=-1) + (rows**2).max(axis=-1)) / safe
        ratio = half / safe
        ok &= (step > 0) & (ratio >= _SIX_COLUMNS[0]) & (ratio <= _SIX_COLUMNS[1])
        ok &= (diam <= 0) | ((step >= 0.7 * diam) & (step <= 4.0 * diam))
        ok &= res <= _SIX_MAX_RESIDUAL
        res = np.where(ok, res, np.inf)
        better = res < best_res
        best_res = np.where(better, res, best_res)
        best_step = np.where(better, step, best_step)
        best_axis = np.where(better, axis, best_axis)
    return best_res, best_step, best_axis


def _six_grid(
    gx: npt.NDArray[np.float64], gy: npt.NDArray[np.float64], axis: int
) -> npt.NDArray[np.float64]:
    """Grid places (6, 2) of a six fitted by ``_six_columns`` from its pips' grid coordinates,
    the columns at their own measured spacing (so that a six with close columns is not taken
    for a face seen aslant)."""
    across, along = (gx, gy) if axis == 0 else (gy, gx)
    row_step = max(float(np.abs(along).max()), 1e-6)
    cols = np.sign(across) * float(np.abs(across).mean()) / row_step
    rows = np.clip(np.rint(along / row_step), -1, 1)
    pair = (cols, rows) if axis == 0 else (rows, cols)
    return np.stack(pair, axis=1)


def _affine(
    grid: npt.NDArray[np.float64], q: npt.NDArray[np.float64]
) -> tuple[float, float, npt.NDArray[np.float64]]:
    """The affine map from grid places ``grid`` (N, 2) to the pips ``q`` (N, 2), both
    centred: its shorter over longer axis (near 1 for a face seen straight on), the largest
    pip offset from it in steps of its shorter axis (inf when it is degenerate) and the map
    itself (2, 2), rows the image vectors of the grid's two axes."""
    solved, *_ = np.linalg.lstsq(grid, q, rcond=None)
    affine: npt.NDArray[np.float64] = np.asarray(solved, np.float64)
    sv = np.linalg.svd(affine)[1]
    if not sv[-1] > 0:
        return (float(sv[-1] / sv[0]) if sv[0] > 0 else 0.0), math.inf, affine
    offset = float(np.sqrt(((grid @ affine - q) ** 2).sum(axis=1)).max())
    return float(sv[-1] / sv[0]), offset / float(sv[-1]), affine


def _trial_fits(
    points: npt.NDArray[np.float32], diam: npt.NDArray[np.float32]
) -> npt.NDArray[np.float64]:
    """Residuals of the best layout for S subsets of k pips at once (inf where none fits).

    ``points`` (S, k, 2), ``diam`` (S,) mean pip diameters. Same rules as ``fit_layout``.
    """
    _s_count, n, _ = points.shape
    centre = points.mean(axis=1, keepdims=True)
    q = (points - centre).astype(np.float64)
    radius = np.sqrt((q * q).sum(axis=2)).mean(axis=1)
    step = radius / _MEAN_RADIUS[n]
    ok = (step > 0) & (step >= 0.7 * diam) & (step <= 4.0 * diam)
    i, j = _PAIRS[n]
    diff = q[:, j] - q[:, i]
    phi = np.arctan2(diff[..., 1], diff[..., 0])
    length2 = (diff**2).sum(axis=2)
    weight = (length2 <= 2.6 * length2.min(axis=1, keepdims=True)).astype(np.float64)
    base = np.arctan2(
        (weight * np.sin(8 * phi)).sum(axis=1), (weight * np.cos(8 * phi)).sum(axis=1)
    )
    angles = (base[:, None] / 8 + _TURNS[None, :]) % (np.pi / 2)  # (S, A)
    cos, sin = np.cos(angles)[..., None], np.sin(angles)[..., None]
    safe = np.where(step > 0, step, 1.0)[:, None, None]
    qx, qy = q[:, None, :, 0], q[:, None, :, 1]
    gx = (qx * cos + qy * sin) / safe
    gy = (-qx * sin + qy * cos) / safe
    rx = np.minimum(np.maximum(np.rint(gx), -1), 1)
    ry = np.minimum(np.maximum(np.rint(gy), -1), 1)
    res = np.hypot(gx - rx, gy - ry).max(axis=2)  # (S, A)
    place = ((rx + 1) * 3 + (ry + 1)).astype(np.int64)
    masks = np.bitwise_or.reduce(np.left_shift(1, place), axis=2)
    valid = (masks[..., None] == _MASK_ARRAYS[n][None, None, :]).any(axis=2)
    best = np.where(valid, res, np.inf).min(axis=1)
    out: npt.NDArray[np.float64] = np.where(ok, best, np.inf)
    if n == 6:
        loose = np.flatnonzero(~(out <= _SIX_STANDARD))
        if loose.shape[0]:
            six_res, _step, _axis = _six_columns(
                gx[loose] * safe[loose], gy[loose] * safe[loose], diam[loose, None]
            )
            out[loose] = np.minimum(out[loose], six_res.min(axis=1))
    return out


def single_pip(cands: PipCandidates, k: int) -> FaceFit:
    """The layout of a one: a lone pip at the centre, grid step guessed from its size."""
    x, y = float(cands.xy[k, 0]), float(cands.xy[k, 1])
    step = 1.5 * float(cands.diam[k])
    return FaceFit(1, (x, y), step, 0.0, 0.0, (k,), grid_places((x, y), step, 0.0, AROUND_CENTRE))


#: Where the path between two pips is sampled (shares of the way, as a row).
_PATH_STEPS = np.linspace(0.0, 1.0, 11, dtype=np.float32)[None, :]


def link_pips(
    cands: PipCandidates, planes: npt.NDArray[np.uint8], params: ReaderParams
) -> list[IntArray]:
    """Group candidates that can lie on one face: near, alike, same face colour between them.

    Returns clusters as arrays of candidate indices (singletons included).
    """
    n = len(cands)
    if n == 0:
        return []
    from scipy.spatial import cKDTree

    h, w = planes.shape[1:]
    # Two pips link within max_link_diameters of their mean size, the bigger at most
    # max_pip_size_ratio times the smaller: the smaller's reach holds every link of its
    # (one big blob's reach over a textured table held millions of pairs).
    reach = params.max_link_diameters * 0.5 * (1.0 + params.max_pip_size_ratio) * cands.diam
    within = cKDTree(cands.xy).query_ball_point(cands.xy, r=reach * 1.001 + 1e-3)
    counts = np.fromiter(map(len, within), np.intp, n)
    near = np.fromiter(itertools.chain.from_iterable(within), np.intp, int(counts.sum()))
    start = np.repeat(np.arange(n), counts)
    pairs = np.unique(
        np.minimum(start, near) * n + np.maximum(start, near)
    )  # each pair once, i < j
    pairs = pairs[pairs // n != pairs % n]
    linked_i: IntArray = np.empty(0, np.intp)
    linked_j: IntArray = np.empty(0, np.intp)
    if pairs.shape[0]:
        i, j = pairs // n, pairs % n
        di, dj = cands.diam[i], cands.diam[j]
        dist = np.linalg.norm(cands.xy[i] - cands.xy[j], axis=1)
        mean_d = 0.5 * (di + dj)
        colour = np.linalg.norm(cands.ring_bgr[i] - cands.ring_bgr[j], axis=1)
        ok = (
            (cands.polarity[i] == cands.polarity[j])
            & (cands.channel[i] == cands.channel[j])
            & (np.maximum(di, dj) <= params.max_pip_size_ratio * np.minimum(di, dj))
            & (dist <= params.max_link_diameters * mean_d)
            & (dist >= 0.8 * mean_d)
            & (colour <= params.max_face_color_dist)
        )
        i, j, dist, mean_d = i[ok], j[ok], dist[ok], mean_d[ok]
        if i.shape[0]:
            # Between two pips of one face lies face (or another pip), never a gap or an edge:
            # sample the segment outside the two pips.
            t = _PATH_STEPS
            lo = (0.5 * cands.diam[i] * 1.3 / dist)[:, None]
            hi = 1.0 - (0.5 * cands.diam[j] * 1.3 / dist)[:, None]
            tt = lo + (hi - lo) * t
            px = cands.xy[i, 0][:, None] + (cands.xy[j, 0] - cands.xy[i, 0])[:, None] * tt
            py = cands.xy[i, 1][:, None] + (cands.xy[j, 1] - cands.xy[i, 1])[:, None] * tt
            ix = np.clip(np.rint(px), 0, w - 1).astype(np.intp)
            iy = np.clip(np.rint(py), 0, h - 1).astype(np.intp)
            vals = planes[cands.channel[i][:, None], iy, ix].astype(np.float32)
            face = 0.5 * (cands.ring_gray[i] + cands.ring_gray[j])
            contrast = np.minimum(cands.contrast[i], cands.contrast[j])
            pol = cands.polarity[i]
            # Pixels "towards the pip" are fine (another pip on the way); pixels far to the
            # other side of the face's grey are an edge or the floor.
            dev = (vals - face[:, None]) * -pol[:, None]
            tol = np.maximum(12.0, 0.5 * contrast)[:, None]
            path_ok = (dev <= tol).mean(axis=1) >= 0.85
            linked_i, linked_j = i[path_ok], j[path_ok]
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    graph = coo_array((np.ones(linked_i.shape[0], np.int8), (linked_i, linked_j)), shape=(n, n))
    _count, label = connected_components(graph, directed=False)
    # Each cluster's pips in ascending order, the clusters in the order of their first pip.
    by_label = np.argsort(label, kind="stable")
    bounds = np.flatnonzero(np.diff(label[by_label])) + 1
    clusters = np.split(by_label, bounds)
    clusters.sort(key=lambda c: int(c[0]))
    return clusters


#: A linked cluster of more candidates than six dice showing six hold (``_LEAVE_CLUSTER``)
#: whose typical candidate is barely a pip (the median contrast below this many times
#: ``params.min_pip_contrast``) is a texture: felt, wood grain or leather, whose specks link
#: all over a plain surface into clusters of hundreds or thousands ...
_TEXTURE_LEVEL = 2.0
#: ... and only candidates this many times starker than its median can be pips.
_STARK_OVER_TEXTURE = 1.5


def texture_level(cands: PipCandidates, clusters: list[IntArray], params: ReaderParams) -> float:
    """The contrast of the photo's texture: the highest median contrast of its linked
    ``clusters`` that are textures (see ``_TEXTURE_LEVEL``), or 0.0 when none is.

    A cluster of real pips (touching dice of one colour in a clump) is no texture: its typical
    candidate is a pip, far starker than the least contrast searched for.
    """
    level = 0.0
    for members in clusters:
        if members.shape[0] <= _LEAVE_CLUSTER:
            continue
        median = float(np.median(cands.contrast[members]))
        if median < _TEXTURE_LEVEL * params.min_pip_contrast:
            level = max(level, median)
    return level


def without_texture(cands: PipCandidates, members: IntArray, level: float) -> IntArray:
    """``members`` of a linked cluster less the candidates no starker than the photo's
    texture (:func:`texture_level`), which are its specks: a die's pips on that surface stand
    out from it.

    Fitted and checked, the specks of one render's felt made thousands of trial ones and
    twos that the checks all refused (and now and then a three of specks, a reading of no
    die), most of a second a photo; on drawn speckled floors (``benchmarks/drawn_trays.py
    --specks 3000``) the specks were read as seven dice a photo.
    """
    if level <= 0.0:
        return members
    stark: IntArray = members[cands.contrast[members] >= _STARK_OVER_TEXTURE * level]
    return stark


def mean_rows(a: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``np.mean(a, axis=0)`` of a small float array, bit for bit (the same sum, divided
    by the count), without its Python overhead."""
    out: npt.NDArray[np.float32] = a.sum(axis=0) / a.shape[0]
    return out


#: Pips at most this ratio apart in measured size are alike: :func:`fit_cluster` makes its
#: trial faces of a pip and its alike neighbours.
LIKE_SIZES = 1.45
#: :func:`fit_cluster` also tries, for a round anchor pip, its round siblings up to this
#: ratio apart in measured size (instead of ``LIKE_SIZES``) when at least this share as stark
#: as it.
_WIDE_SIZES = 1.7
_WIDE_STARK = 0.8
_WIDE_ROUND = 0.7

#: The anchor's nearest pips (after the anchor itself, at index 0) that may be left out of a
#: trial face, one or two at a time (or whose halfway lines cut one, ``_cut_faces``), and how
#: many of its nearest pips are looked at.
_LEAVE_FROM = 4
_LEAVE_MOST = 11
#: Clusters of this many pips are fitted so: two dice at least, up to six dice showing six
#: (bigger clusters are mostly specks of a textured floor, and cost the most).
_LEAVE_LEAST = 8
_LEAVE_CLUSTER = 36
#: How far (in grid steps from a face's centre) a left-out pip must lie: a face's edge is
#: 1.8 steps from its centre on the common layout.
_BEYOND_FACE = 1.9
#: ... and fit its layout within this share of the residual allowed, its pips alike in
#: roundness (a top face's pips beside a side face's, seen aslant, are not).
_LEFT_OUT_RESIDUAL = 0.5
_LEFT_OUT_ALIKE = 0.85
#: Only pips this round (a top face's, seen from above) are tried so.
_LEFT_OUT_ROUND = 0.85
#: ... and such a face yields to a face as good made of a pip's nearest pips (a six across
#: the facing rows of two touching sixes, 0.89 of a six's own column spacing apart, fits as
#: well as each die's six).
_LEFT_OUT_HANDICAP = 0.5


@functools.cache
def _leave_out_tables(n: int) -> dict[int, tuple[IntArray, IntArray]]:
    """For an anchor with ``n`` pips in order of distance (itself first): per face size (4-6),
    the places kept in each trial face with one or two of places 1.._LEAVE_FROM left out
    ``(trials, size)``, and the places left out ``(trials, 2)`` (one repeated when alone)."""
    outs = [(i, i) for i in range(1, _LEAVE_FROM + 1)] + [
        (i, j) for i in range(1, _LEAVE_FROM + 1) for j in range(i + 1, _LEAVE_FROM + 1)
    ]
    tables: dict[int, tuple[IntArray, IntArray]] = {}
    for size in range(4, 7):
        keep, left = [], []
        for out in outs:
            if out[1] >= n:
                continue
            rest = [i for i in range(n) if i not in out]
            if len(rest) >= size:
                keep.append(rest[:size])
                left.append(out)
        if keep:
            tables[size] = (np.array(keep, np.intp), np.array(left, np.intp))
    return tables


def _faces_apart(
    pts: npt.NDArray[np.float32],
    dist: npt.NDArray[np.floating[Any]],
    near: npt.NDArray[np.bool_],
    anchors: npt.NDArray[np.bool_],
) -> dict[int, list[tuple[int, ...]]]:
    """Trial faces of 4-6 pips (cluster indices, sorted tuples, by size) made of each pip of
    ``anchors`` and its nearest like pips (``near``, row by pip) but some of those: one or
    two left out (:func:`_left_out_faces`), or all beyond a line halfway to one of them
    (:func:`_cut_faces`).

    Touching dice: a pip's nearest neighbour may be a pip of the die beside it (a four's
    corner pip lies 0.48 of a side from the next die's, 0.54 from its own siblings), so the
    nearest pips alone never make that face."""
    n = pts.shape[0]
    if not _LEAVE_LEAST <= n <= _LEAVE_CLUSTER or not anchors.any():
        return {}
    # Row by anchor: distances to its like pips (inf to the others), and their order.
    masked = np.where(near, dist, np.inf)[anchors]
    order = np.argsort(masked, axis=1, kind="stable")
    width = min(n, _LEAVE_MOST)
    rows: dict[int, set[tuple[int, ...]]] = {}
    for found in (
        _left_out_faces(pts, masked, order[:, :width]),
        _cut_faces(pts, pts[anchors], masked, order, width),
    ):
        for size, chosen in found.items():
            rows.setdefault(size, set()).update(tuple(r) for r in np.sort(chosen, axis=1).tolist())
    return {size: sorted(r) for size, r in rows.items()}


def _left_out_faces(
    pts: npt.NDArray[np.float32], masked: npt.NDArray[np.float64], order: IntArray
) -> dict[int, IntArray]:
    """Per face size, the trial faces (rows of pip indices) of each anchor (a row of
    ``masked`` and of ``order``, its like pips nearest first) with one or two of its nearest
    left out, where those lie beyond the face's edge (``_BEYOND_FACE`` grid steps from its
    centre)."""
    valid = np.isfinite(np.take_along_axis(masked, order, axis=1))
    out: dict[int, IntArray] = {}
    for size, (keep_at, left_at) in _leave_out_tables(order.shape[1]).items():
        idx = order[:, keep_at]
        ok = valid[:, keep_at].all(axis=2) & valid[:, left_at].all(axis=2)
        q = pts[idx]
        centre = q.mean(axis=2)
        step = np.linalg.norm(q - centre[:, :, None], axis=3).mean(axis=2) / _MEAN_RADIUS[size]
        left = pts[order[:, left_at]]
        gap = np.linalg.norm(left - centre[:, :, None], axis=3).min(axis=2)
        out[size] = idx[ok & (gap >= _BEYOND_FACE * step)]
    return out


def _cut_faces(
    pts: npt.NDArray[np.float32],
    a_pts: npt.NDArray[np.float32],
    masked: npt.NDArray[np.float64],
    order: IntArray,
    width: int,
) -> dict[int, IntArray]:
    """Per face size, the trial faces of each anchor (at ``a_pts``; rows of ``masked`` and
    ``order`` as for :func:`_left_out_faces`) made of its nearest like pips on its own side of
    the line halfway to one of its ``_LEAVE_FROM`` nearest.

    When the pip beside an anchor is the next die's, that line is the crease between the two
    dice, and every pip of that die lies beyond it; leaving one or two pips out does not clear
    a die whose whole row is nearer the anchor than its own face's far row (the column of a
    six facing the next die's)."""
    # The anchor's nearest (index 0 is the anchor itself) whose halfway lines cut.
    beside = order[:, 1 : _LEAVE_FROM + 1]
    beside_ok = np.isfinite(np.take_along_axis(masked, beside, axis=1))
    a_xy = a_pts[:, None, :]
    towards = pts[beside] - a_xy  # (m, k, 2)
    reach = np.linalg.norm(towards, axis=2)
    unit = towards / np.maximum(reach, 1e-6)[:, :, None]
    # Projection of every pip on each anchor-to-neighbour direction: (m, k, n).
    proj = np.einsum("mkd,mnd->mkn", unit, pts[None, :, :] - a_xy)
    kept = (proj < 0.5 * reach[:, :, None]) & np.isfinite(masked)[:, None, :]
    # The anchor's nearest pips among those kept, in order of distance.
    cut = np.where(kept, masked[:, None, :], np.inf)
    near_order = np.argsort(cut, axis=2, kind="stable")[:, :, :width]
    near_ok = np.isfinite(np.take_along_axis(cut, near_order, axis=2)) & beside_ok[:, :, None]
    return {
        size: near_order[:, :, :size][near_ok[:, :, :size].all(axis=2)]
        for size in range(4, min(6, width) + 1)
    }


#: Clusters of up to this many pips are fitted from all their pairs; a bigger one (the
#: specks of a textured table or felt, thousands linked into one cluster) from each pip's
#: neighbours within reach, found with a k-d tree: the same trial faces without arrays of
#: every pair (a wooden table's 3,800 linked specks took 0.7 s so).
_ALL_PAIRS_MOST = 64


def _neighbours(
    pts: npt.NDArray[np.float32], reach: npt.NDArray[np.float32]
) -> tuple[IntArray, npt.NDArray[np.floating[Any]]]:
    """Each pip's neighbours (rows (n, K) of pip indices in ascending order, -1 after the
    last) with their distances (inf after the last): every pip within ``reach`` (n,) of it,
    itself included, or every pip of a cluster of up to ``_ALL_PAIRS_MOST``."""
    n = pts.shape[0]
    if n <= _ALL_PAIRS_MOST:
        every: IntArray = np.broadcast_to(np.arange(n), (n, n))
        return every, np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
    from scipy.spatial import cKDTree

    # A hair beyond the reach: the tree measures in double precision, the rules in the
    # pips' single precision.
    within = cKDTree(pts).query_ball_point(pts, r=reach * 1.001 + 1e-3, return_sorted=True)
    counts = np.fromiter(map(len, within), np.intp, n)
    nb = np.full((n, int(counts.max())), -1, np.intp)
    nb[np.arange(nb.shape[1])[None, :] < counts[:, None]] = np.fromiter(
        itertools.chain.from_iterable(within), np.intp, int(counts.sum())
    )
    dist = np.linalg.norm(pts[:, None, :] - pts[np.maximum(nb, 0)], axis=2)
    return nb, np.where(nb >= 0, dist, np.inf)


def _unique_rows(rows: IntArray, n: int) -> IntArray:
    """``np.unique(rows, axis=0)`` for rows of indices below ``n``: each row read as one
    number in base ``n`` (the same order), a tenth of the time for a small cluster."""
    size = rows.shape[1]
    if float(n) ** size >= 2.0**62:
        unique: IntArray = np.unique(rows, axis=0)
        return unique
    powers = n ** np.arange(size - 1, -1, -1, dtype=np.int64)
    _codes, first = np.unique(rows.astype(np.int64) @ powers, return_index=True)
    ordered: IntArray = rows[first]
    return ordered


def fit_cluster(cands: PipCandidates, members: IntArray, params: ReaderParams) -> list[FaceFit]:
    """Explain a cluster of linked pips as faces; pips left over are returned as ones.

    A clean cluster is one face. Otherwise (a die with its side faces in view, touching dice
    of one colour, a stray blob) every anchor pip with its nearest like-sized neighbours is
    tried as a face of 2-6 pips, and the best faces are taken greedily: more pips, a tighter
    fit and bigger pips (the top face's pips are seen face-on, side faces' foreshortened) win.
    """
    n = members.shape[0]
    if n == 1:
        return [single_pip(cands, int(members[0]))]
    if n <= 6:
        fit = fit_layout(
            cands.xy[members], tuple(members.tolist()), float(mean_rows(cands.diam[members]))
        )
        if fit is not None and fit.residual <= params.max_grid_residual:
            return [fit]
        if n == 2:
            # The pair was its only trial face (the same rules as the trials below).
            return [single_pip(cands, int(k)) for k in members.tolist()]
    pts = cands.xy[members]
    diam = cands.diam[members]
    contrast = cands.contrast[members]
    roundness = cands.roundness[members]
    dmax = float(diam.max())
    link = params.max_link_diameters
    nb, dist = _neighbours(pts, link * 0.5 * (1.0 + LIKE_SIZES) * diam)
    real = nb >= 0
    at = np.where(real, nb, 0)
    diam_nb, contrast_nb = diam[at], contrast[at]
    diam_a, contrast_a = diam[:, None], contrast[:, None]
    # Each pip's like-sized neighbours within linking reach (row a: anchor a's).
    near_all = (
        real
        & (np.maximum(diam_a, diam_nb) <= LIKE_SIZES * np.minimum(diam_a, diam_nb))
        & (dist <= link * 0.5 * (diam_a + diam_nb))
    )
    # The nearest pips, and the nearest as stark as the anchor's half: a faint speck nearer
    # than a stark pip's own sibling would otherwise be in every trial of it.
    stark = near_all & (contrast_nb >= 0.5 * contrast_a)
    # And a round stark pip with its round siblings as stark as it, up to _WIDE_SIZES apart
    # in measured size (one pip of a black three on the renders measured 1.6 times its
    # siblings), within reach of the smaller (a blob measured big reaches no further):
    # faces of three pips or more only, since a pair alike in nothing but contrast is no
    # evidence.
    smaller = np.minimum(diam_nb, diam_a)
    wide = (
        real
        & (roundness >= _WIDE_ROUND)[:, None]
        & (np.maximum(diam_nb, diam_a) <= _WIDE_SIZES * smaller)
        & (dist <= link * smaller)
        & (contrast_nb >= _WIDE_STARK * contrast_a)
        & (roundness[at] >= _WIDE_ROUND)
    )
    trials = (
        (near_all, np.ones(n, bool), 2),
        (stark, stark.sum(axis=1) < near_all.sum(axis=1), 2),
        (wide, (wide & ~near_all).any(axis=1), 3),
    )
    found: dict[int, list[IntArray]] = {k: [] for k in range(2, 7)}
    for like, rows, least in trials:
        # Each anchor's like pips nearest first (ties in the order of the cluster).
        nearest = np.argsort(np.where(like, dist, np.inf), axis=1, kind="stable")[:, :6]
        chosen_nb = np.take_along_axis(nb, nearest, axis=1)
        count = like.sum(axis=1)
        for size in range(least, nearest.shape[1] + 1):
            take = rows & (count >= size)
            if take.any():
                found[size].append(np.sort(chosen_nb[take, :size], axis=1))
    subsets = {
        size: _unique_rows(np.concatenate(parts), n) for size, parts in found.items() if parts
    }
    # Options: (scores, trial faces as rows of cluster indices), best first once sorted.
    scores: list[npt.NDArray[np.float64]] = []
    faces: list[IntArray] = []

    def add_options(
        idx: IntArray, res: npt.NDArray[np.float64], size: int, handicap: float = 0.0
    ) -> None:
        # Expected confidence of the face (as the reader will judge it): a tight grid of
        # equally contrasted pips. A stray speck or a side-face pip added to a good face
        # makes a worse face with one pip more. Pips of one face are foreshortened alike: a
        # round top-face pip paired with flattened side-face pips makes a worse face than
        # the side face's own pips.
        c, r = contrast[idx], roundness[idx]
        conf = np.minimum(
            np.minimum(
                1.0 - 0.5 * res / params.max_grid_residual,
                0.25 + (c.min(axis=1) / c.max(axis=1)).astype(np.float64),
            ),
            0.25 + (r.min(axis=1) / np.maximum(r.max(axis=1), 1e-6)).astype(np.float64),
        )
        mean_diam = diam[idx].mean(axis=1).astype(np.float64)
        scores.append(size + 3.0 * conf + 1.0 * mean_diam / dmax - handicap)
        faces.append(idx)

    # Trial fits of all subsets of one size in a single batch.
    in_a_face = np.zeros(n, bool)
    for size, idx in subsets.items():
        res = _trial_fits(pts[idx], diam[idx].mean(axis=1))
        good = res <= params.max_grid_residual
        if size >= 4:
            in_a_face[idx[good].ravel()] = True
        add_options(idx[good], res[good], size)
    # Round pips in no face of four or more so far: faces found only by leaving pips out
    # (one or two, or all beyond a crease), which must fit their layout tightly, their pips
    # alike.
    anchors = ~in_a_face & (roundness >= _LEFT_OUT_ROUND)
    if _LEAVE_LEAST <= n <= _LEAVE_CLUSTER and anchors.any():
        for size, rows_apart in _faces_apart(pts, dist, near_all, anchors).items():
            tried = set(map(tuple, subsets[size].tolist())) if size in subsets else set()
            rows_apart = [t for t in rows_apart if t not in tried]
            if not rows_apart:
                continue
            idx = np.array(rows_apart, np.intp)
            res = _trial_fits(pts[idx], diam[idx].mean(axis=1))
            round_rows = roundness[idx]
            good = (res <= _LEFT_OUT_RESIDUAL * params.max_grid_residual) & (
                round_rows.min(axis=1) >= _LEFT_OUT_ALIKE * round_rows.max(axis=1)
            )
            add_options(idx[good], res[good], size, _LEFT_OUT_HANDICAP)
    chosen: list[FaceFit] = []
    used: set[int] = set()
    options = [tuple(row) for idx in faces for row in members[idx].tolist()]
    # Best first; equal scores in the order tried (each size's faces in turn).
    best_first: list[int] = (
        np.argsort(-np.concatenate(scores), kind="stable").tolist() if scores else []
    )
    for k in best_first:
        subset = options[k]
        if used.isdisjoint(subset):
            sel_idx = np.array(subset, np.intp)
            full = fit_layout(cands.xy[sel_idx], subset, float(mean_rows(cands.diam[sel_idx])))
            if full is None:
                continue
            chosen.append(full)
            used.update(subset)
    chosen.extend(single_pip(cands, int(k)) for k in members.tolist() if int(k) not in used)
    return chosen
