"""Counting the pips of one die face in a crop around that die.

The counter does not need the face outline. It looks for round blobs whose colour
differs from the face colour (sampled at the crop centre), at several thresholds so
that touching pips and a logo ring around a 1 pip come apart, then picks the group of
blobs of one size, one colour and similar contrast that sits on the 3x3 grid of a
standard face. Faint see-through pips, squashed side-face pips and blobs at the crop
border drop out of that group; a face whose group fits no standard pattern, or whose
reading is ambiguous, comes back with ``value=None`` and the reason. So does a two or three
with a pip-like mark on one of its empty pip places (a pip too smeared or faint to count):
its ``suspect`` says what the counted pips fit.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Grid nodes ``(col, row)`` in 0..2 of each face value; rotations are matched separately.
PATTERNS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
}


def _rot90(nodes: tuple[tuple[int, int], ...]) -> frozenset[tuple[int, int]]:
    return frozenset((2 - r, c) for c, r in nodes)


#: Occupied-node sets that read as each value, all four quarter turns included.
_LAYOUTS: dict[frozenset[tuple[int, int]], int] = {}
for _value, _nodes in PATTERNS.items():
    _layout = frozenset(_nodes)
    for _ in range(4):
        _LAYOUTS[_layout] = _value
        _layout = _rot90(tuple(_layout))

_WORK_SIDE = 128.0  # crops are rescaled so their shorter side has this many pixels
_LEVELS = np.linspace(0.2, 0.9, 8)  # thresholds as fractions of the strongest contrast
_MAX_RESIDUAL = 0.24  # rms distance of pips from their grid nodes, in grid steps
_MIN_SCORE = {1: 0.2, 2: 0.4}  # the weakest fit accepted for these values
_MAX_GRID_TURN_DEG = 28.0  # pip grid vs the die silhouette's sides (perspective, side faces)
#: An empty pip place of a two or three that differs from the face by this share of its
#: faintest pip's contrast may hide a pip (see :func:`_pip_may_be_missing`); at 0.5 the
#: back faces' pips seen through translucent dice set it off.
_GHOST = 0.7
#: Least hue difference (Lab a-b distance) of every pip from its face for a face read on hue
#: alone (see :func:`_read_on_hue`). A webcam's colour fringes around black pips on a white
#: die measured 11 on the shared crops, the red pips of blue and black dice 16 or more.
_HUE_LEAST = 14.0


@dataclass(frozen=True)
class FaceCount:
    """The pips read on one face.

    ``value`` is 1..6, or None when the face could not be read with confidence (then
    ``reason`` says why). ``pips`` holds ``(x, y, diameter)`` of each counted pip in
    pixels of the crop that was given. ``confidence`` is in 0..1.
    """

    value: int | None
    confidence: float
    pips: tuple[tuple[float, float, float], ...] = ()
    reason: str = ""
    #: With ``value`` None: the face the pips fit, when it was refused only because an empty
    #: pip place of that face looks like a pip (the face may be a fainter four, five or six).
    suspect: int | None = None


#: :attr:`FaceCount.reason` of a crop where no pip-like blob was seen at all.
NO_PIPS = "no pips found"
#: ... and of a face with an empty pip place that looks like a pip.
_GHOST_PLACE = "an empty pip place looks like a pip"


@dataclass(frozen=True)
class _Blob:
    x: float
    y: float
    diameter: float
    peak: float  # contrast against the face colour (Lab distance) near the blob's middle
    roundness: float  # 0..1: minor/major axis ratio of the fitted ellipse
    colour: tuple[float, float, float]  # mean Lab colour inside the blob
    lighter: bool  # lighter than the face (pips of one face share this)


@dataclass(frozen=True)
class _Fit:
    value: int
    blobs: tuple[_Blob, ...]
    residual: float  # in grid steps
    score: float
    centre: tuple[float, float]
    step: float  # grid step in working pixels (the pip diameter for a 1)


def read_face(crop_bgr: np.ndarray, *, hint_size_px: float | None = None) -> FaceCount:
    """Count the pips on the top face of the die in ``crop_bgr``.

    ``crop_bgr`` is an ``(h, w, 3)`` uint8 BGR image with the die roughly centred and
    filling 40-100 % of it. ``hint_size_px`` is the die's side in crop pixels when the
    caller knows it (it narrows the pip sizes that are searched). Never raises for a
    hard face: it returns ``value=None`` with a reason instead.
    """
    prepared = _prepared(crop_bgr)
    if prepared is None:
        return FaceCount(None, 0.0, (), "crop too small")
    lab, scale = prepared
    hint = hint_size_px * scale if hint_size_px else None

    die = _die_region(lab)
    if die is not None and hint is None:
        centre: tuple[float, float] = (die.x, die.y)
    else:
        centre = (lab.shape[1] / 2, lab.shape[0] / 2)
    fits: list[_Fit] = []
    any_blobs = blocked = False
    result = FaceCount(None, 0.0, (), NO_PIPS)
    colours = _face_colours(lab)
    # The likeliest face colour first; the others only when it gives no sure reading.
    for face in colours:
        blobs = _find_blobs(lab, face, hint, None if die is None else die.mask)
        if blobs:
            any_blobs = True
            edge = None if die is None else die.edge_angle
            found, blocked = _fit_groups(
                blobs, lab.shape[1], lab.shape[0], hint, centre, edge, on_die=die is not None
            )
            fits.extend(found)
        if any_blobs:
            result, best = _decide(fits, scale)
            if result.value is None and blocked and face is colours[0]:
                # Pips that fit a face save for one odd blob (a highlight, a smudge):
                # another face colour would only explain the odd blob away (hue alone, below,
                # may: a marbled die's white streak has none).
                result = FaceCount(
                    None, result.confidence, result.pips, "a blob on the face breaks its pattern"
                )
                break
            if result.value is not None and best is not None:
                if _glare_hides_a_pip(lab, best, float(colours[0][0])):
                    return FaceCount(None, result.confidence, result.pips, "glare spot on the face")
                if _pip_may_be_missing(lab, best, face):
                    return FaceCount(
                        None,
                        result.confidence,
                        result.pips,
                        _GHOST_PLACE,
                        suspect=result.value,
                    )
                break
    if result.value is None and die is not None:
        # The face's lightness may vary as much as its pips differ from it (a marbled or
        # glossy die); their hue then still tells them apart.
        on_hue = _read_on_hue(lab, colours[0], hint, centre, die, scale)
        if on_hue is not None:
            return on_hue
    return result


def _prepared(crop_bgr: np.ndarray) -> tuple[npt.NDArray[np.float32], float] | None:
    """``crop_bgr`` checked, rescaled so its shorter side is ``_WORK_SIDE`` pixels, smoothed
    a little and in Lab (float), with the scale it was rescaled by; None for a crop too
    small to count (under 12 pixels). Raises ValueError for anything but an (h, w, 3) uint8
    array."""
    if not isinstance(crop_bgr, np.ndarray) or crop_bgr.ndim != 3 or crop_bgr.shape[2] != 3:
        raise ValueError(
            f"crop_bgr must be an (h, w, 3) BGR array, got {getattr(crop_bgr, 'shape', None)!r}"
        )
    if crop_bgr.dtype != np.uint8:
        raise ValueError(f"crop_bgr must be uint8, got {crop_bgr.dtype}")
    h, w = crop_bgr.shape[:2]
    if min(h, w) < 12:
        return None
    scale = _WORK_SIDE / min(h, w)
    interp = cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA
    img = cv2.resize(crop_bgr, (round(w * scale), round(h * scale)), interpolation=interp)
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    return cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32), scale


def count_hue_peaks(crop_bgr: np.ndarray) -> FaceCount:
    """Count the pips of a die whose pips differ from its face in hue, as the peaks of that
    difference on the die's own region (``crop_bgr`` as for :func:`read_face`); ``value``
    None with the reason when the count is not sure.

    Small red pips on a dark marbled die run together along a six's columns and fade into
    the marbling: no threshold parts them as blobs (:func:`read_face`), but each pip is
    still a peak of redness. The pips' hue is the face's strongest departure from its own
    median colour in Lab's a and b (the mean of the ``_HUE_TOP`` share of the die's pixels
    furthest from it in hue); the face's marbling and glare lie elsewhere in hue or have
    none. The difference along that hue, smoothed to the pips' size, peaks once per pip;
    the peaks at least ``_PEAK_LEAST`` of the highest are the pips, fitted to a face as
    blobs are. A one or a four is never counted so (a lone peak is the least evidence; a
    five's centre pip or a six's middle row lost in the marbling leaves a four: of the 7
    fours it read on the dark dice nell_byler_d6's photos left asked about, 4 were a five
    or a six), nor a face with an empty pip place nearly as unlike the face in hue as its
    faintest pip.
    """
    prepared = _prepared(crop_bgr)
    if prepared is None:
        return FaceCount(None, 0.0, (), "crop too small")
    lab, scale = prepared
    seen = _pips_hue(lab)
    if seen is None:
        return FaceCount(None, 0.0, (), "no die stands out from a floor of one colour")
    die, inner = seen.die, seen.inner
    if seen.strength < _HUE_PIPS_LEAST:
        return FaceCount(None, 0.0, (), "no pips of another hue")
    along = np.asarray(
        cv2.GaussianBlur(seen.hue @ (seen.pips / seen.strength), (0, 0), _PEAK_BLUR * die.side),
        np.float64,
    )
    along[~inner] = 0.0
    pip = _PIP_OF_SIDE * die.side
    reach = 2 * max(1, round(_PEAK_APART * pip)) + 1
    highest = cv2.dilate(along, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))
    peaks = (along >= highest) & (along >= _PEAK_LEAST * float(along.max())) & inner
    n, _labels, _stats, cents = cv2.connectedComponentsWithStats(
        peaks.astype(np.uint8), connectivity=8
    )
    found = sorted(
        (float(along[round(cy), round(cx)]), float(cx), float(cy)) for cx, cy in cents[1:n]
    )[::-1][:_MOST_PEAKS]
    blobs = [
        # One hue by construction: every peak is of the pips' colour.
        _Blob(x, y, pip, peak, 1.0, (0.0, 0.0, 0.0), True)
        for peak, x, y in found
    ]
    if not blobs:
        return FaceCount(None, 0.0, (), NO_PIPS)
    fits, _blocked = _fit_groups(
        blobs, lab.shape[1], lab.shape[0], die.side, (die.x, die.y), die.edge_angle, on_die=True
    )
    result, best = _decide(fits, scale)
    if result.value is None or best is None:
        return result
    if result.value in (1, 4):
        return FaceCount(None, result.confidence, result.pips, f"only {result.value} hue peaks")
    if _pip_may_be_missing(lab, best, seen.face, hue_only=True):
        return FaceCount(None, result.confidence, result.pips, _GHOST_PLACE)
    return result


def pips_of_another_hue(crop_bgr: np.ndarray) -> bool:
    """Whether the die in ``crop_bgr`` (as for :func:`read_face`) stands out from a floor of
    one colour and holds spots of another hue than its face, as coloured pips do (the hue
    :func:`count_hue_peaks` counts the pips by), whether or not they can be counted."""
    prepared = _prepared(crop_bgr)
    seen = None if prepared is None else _pips_hue(prepared[0])
    return seen is not None and seen.strength >= _HUE_PIPS_LEAST


class _HueSeen(NamedTuple):
    """What a prepared crop shows of its die's pips' hue (:func:`_pips_hue`)."""

    die: _Die
    #: The die's region without its rim.
    inner: npt.NDArray[np.bool_]
    #: Every pixel's hue (Lab a, b) less the face's median hue.
    hue: FloatArray
    #: The pips' hue: the mean of the ``_HUE_TOP`` share of ``inner``'s pixels furthest from
    #: the face's median in hue (a, b).
    pips: FloatArray
    #: The face's median Lab colour over ``inner``.
    face: FloatArray

    @property
    def strength(self) -> float:
        """How far the pips' hue lies from the face's (Lab a-b units)."""
        return float(np.linalg.norm(self.pips))


def _pips_hue(lab: npt.NDArray[np.float32]) -> _HueSeen | None:
    """The die of a prepared crop (:func:`_prepared`) and its pips' hue (:class:`_HueSeen`),
    or None when no die stands out from a floor of one colour (or its region is all rim)."""
    die = _die_region(lab)
    if die is None:
        return None
    inner = (
        cv2.erode(
            die.mask.astype(np.uint8),
            np.ones((3, 3), np.uint8),
            iterations=max(1, int(_INNER * die.side)),
        )
        > 0
    )
    if not inner.any():
        return None
    face_hue = np.median(lab[:, :, 1:][inner], axis=0)
    hue = np.asarray(lab[:, :, 1:] - face_hue, np.float64)
    apart = np.linalg.norm(hue, axis=2)
    top = inner & (apart >= np.percentile(apart[inner], 100.0 * (1.0 - _HUE_TOP)))
    face = np.array([np.median(lab[:, :, 0][inner]), *face_hue])
    return _HueSeen(die, inner, hue, np.asarray(hue[top].mean(axis=0), np.float64), face)


#: :func:`count_hue_peaks`: the die's rim left out (a share of its side), the share of its
#: pixels that say the pips' hue, the least difference in hue (Lab a-b units) that is pips,
#: the smoothing (in die sides), a pip's diameter (in die sides), how far apart two peaks
#: are at least (in pip diameters), the least peak (a share of the highest) and the most
#: peaks fitted.
_INNER = 0.06
_HUE_TOP = 0.08
_HUE_PIPS_LEAST = 4.0
_PEAK_BLUR = 0.05
_PIP_OF_SIDE = 0.18
_PEAK_APART = 0.35
_PEAK_LEAST = 0.4
_MOST_PEAKS = 12


def _read_on_hue(
    lab: np.ndarray,
    face: FloatArray,
    hint: float | None,
    centre: tuple[float, float],
    die: _Die,
    scale: float,
) -> FaceCount | None:
    """The face read on its pips' difference from it in hue and saturation alone (Lab's a
    and b, lightness left out), on the die's own region; None without a sure reading.

    Red pips on a marbled blue-and-black die are lighter than its dark streaks and darker
    than its light ones, so on the whole colour difference they split into two kinds of
    blob, or merge with the streaks; in hue they stand apart from every streak. A white
    highlight differs from a coloured face in hue too, but is seldom round and pip-sized
    at pip places. Dice of grey, black or white faces and pips show no hue difference and
    find no blobs here.
    """
    blobs = _find_blobs(lab, face, hint, die.mask, hue_only=True)
    if not blobs:
        return None
    fits, _blocked = _fit_groups(
        blobs, lab.shape[1], lab.shape[0], hint, centre, die.edge_angle, on_die=True
    )
    result, best = _decide(fits, scale)
    if result.value is None or best is None or min(b.peak for b in best.blobs) < _HUE_LEAST:
        return None
    if result.value == 1:
        # A lone pip is the least evidence: in hue it may be the one pip of a five or a six
        # whose other pips a colour cast or the marbling hid (on nell's crops 7 faces read
        # on hue as ones were ones and 2 were not; under a tungsten cast 2 more were not).
        return None
    # An empty pip place as unlike the face in hue as the faintest pip: a pip is missing
    # there (a four's centre too: the face may be a five whose centre pip was lost).
    if _pip_may_be_missing(lab, best, face, hue_only=True):
        return None
    return result


def _glare_hides_a_pip(lab: np.ndarray, fit: _Fit, face_l: float) -> bool:
    """True when a clipped highlight lies on the face where it could hide a pip."""
    level = max(245.0, face_l + 30.0)
    if face_l > 225.0:
        return False  # a white face: a highlight on it is only as bright as the face
    bright = (lab[:, :, 0] >= level).astype(np.uint8)
    n, _, stats, cents = cv2.connectedComponentsWithStats(bright, connectivity=8)
    diam = float(np.median([b.diameter for b in fit.blobs]))
    reach = 1.8 * fit.step if fit.value > 2 else 2.5 * diam
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < 0.25 * math.pi / 4 * diam**2:
            continue
        x, y = cents[i]
        if math.hypot(x - fit.centre[0], y - fit.centre[1]) > reach:
            continue
        if all(math.hypot(x - b.x, y - b.y) > 0.6 * diam for b in fit.blobs):
            return True
    return False


def _pip_may_be_missing(
    lab: np.ndarray, fit: _Fit, face: FloatArray, *, hue_only: bool = False
) -> bool:
    """True when a two or a three has an empty pip place (the other diagonal's corners, a
    two's centre) that differs from the face nearly as much as its faintest pip does: a
    four, five or six whose other pips are fainter than the counted ones. (A four's empty
    places checked the same way cost as many right fours as wrong sixes on the shared sets.)
    With ``hue_only`` (a face read on hue, see :func:`_read_on_hue`) the difference leaves
    lightness out, and a four's centre is checked too (a five's lost centre pip)."""
    pts = np.array([(b.x, b.y) for b in fit.blobs], np.float64)
    if fit.value == 4 and hue_only:
        places = [pts.mean(axis=0)]
    elif fit.value in (2, 3):
        far = max(
            itertools.combinations(range(len(pts)), 2),
            key=lambda ij: float(np.hypot(*(pts[ij[0]] - pts[ij[1]]))),
        )
        a, b = pts[far[0]], pts[far[1]]
        mid = (a + b) / 2
        half = (b - a) / 2
        other = np.array([-half[1], half[0]])
        places = [mid + other, mid - other] + ([mid] if fit.value == 2 else [])
    else:
        return False
    diam = float(np.median([bl.diameter for bl in fit.blobs]))
    faintest = min(bl.peak for bl in fit.blobs)
    h, w = lab.shape[:2]
    r = max(1, round(0.3 * diam))
    for px, py in places:
        x, y = round(px), round(py)
        if x - r < 0 or y - r < 0 or x + r >= w or y + r >= h:
            continue
        patch = lab[y - r : y + r + 1, x - r : x + r + 1].reshape(-1, 3).astype(np.float64)
        diff = np.median(patch, axis=0) - face
        if hue_only:
            diff[0] = 0.0
        if float(np.linalg.norm(diff)) >= _GHOST * faintest:
            return True
    return False


def _decide(fits: list[_Fit], scale: float) -> tuple[FaceCount, _Fit | None]:
    """The reading from the fits found, or None with the reason when they do not agree."""
    if not fits:
        return FaceCount(None, 0.0, (), "pips fit no standard face"), None
    # Pips much smaller than those of another reading are logo letters or speckles.
    sizes = [float(np.median([b.diameter for b in f.blobs])) for f in fits]
    biggest = max(sizes)
    fits = [
        replace(f, score=f.score * min(1.0, d / (0.6 * biggest)))
        for f, d in zip(fits, sizes, strict=True)
    ]
    fits = sorted(fits, key=lambda f: f.score, reverse=True)
    best = fits[0]
    rivals = [f for f in fits[1:] if f.value != best.value]
    margin = 1.0 if not rivals else 1.0 - rivals[0].score / best.score
    fit_q = max(0.0, 1.0 - best.residual / _MAX_RESIDUAL)
    confidence = float(min(1.0, 0.5 + 0.5 * fit_q) * min(1.0, 0.4 + 1.5 * margin))
    pips = tuple(
        (b.x / scale, b.y / scale, b.diameter / scale) for b in sorted(best.blobs, key=_yx)
    )
    if best.score < _MIN_SCORE.get(best.value, 0.0):
        # A lone pip or a pair is what a face shows when most of its pips were missed,
        # so it must be clear and well placed to count.
        reason = f"too faint or off-centre for a {best.value}"
        return FaceCount(None, round(confidence, 3), pips, reason), None
    if margin < 0.2:
        reason = f"ambiguous: reads as {best.value} or {rivals[0].value}"
        return FaceCount(None, round(confidence, 3), pips, reason), None
    return FaceCount(best.value, round(confidence, 3), pips, ""), best


@dataclass(frozen=True)
class _Die:
    x: float
    y: float
    side: float
    mask: npt.NDArray[np.bool_]
    edge_angle: float  # direction of the silhouette's sides, radians in [0, pi/2)


def _die_region(lab: np.ndarray) -> _Die | None:
    """The die's silhouette: the compact region around the centre unlike the crop border.

    None when the border is not one floor colour or the region is not die-shaped
    (a white die on a white board, dice touching).
    """
    h, w = lab.shape[:2]
    m = max(2, round(0.05 * min(h, w)))
    ring = np.concatenate(
        [
            lab[:m].reshape(-1, 3),
            lab[-m:].reshape(-1, 3),
            lab[:, :m].reshape(-1, 3),
            lab[:, -m:].reshape(-1, 3),
        ]
    )
    floor = np.median(ring, axis=0)
    dist = np.sqrt(np.sum((lab - floor.astype(np.float32)) ** 2, axis=2))
    if float(np.percentile(np.linalg.norm(ring - floor, axis=1), 60)) > 20:
        return None  # the border is not one floor colour
    u8 = np.clip(dist * 2, 0, 255).astype(np.uint8)
    t, mask = cv2.threshold(u8, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if t < 30:  # under ~15 Lab units the die does not stand out from the floor
        return None
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        return None
    yy, xx = h // 2, w // 2
    ids = np.unique(labels[yy - h // 8 : yy + h // 8, xx - w // 8 : xx + w // 8])
    ids = ids[ids > 0]
    if len(ids) == 0:
        return None
    best = int(max(ids, key=lambda i: stats[i, cv2.CC_STAT_AREA]))
    region = (labels == best).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, [outline], -1, 1, -1)
    area = float(filled.sum())
    hull = cv2.convexHull(outline)
    if area < 0.12 * h * w or area > 0.92 * h * w:
        return None
    if area < 0.85 * cv2.contourArea(hull):
        return None  # not convex: dice touching, or floor texture
    _, (rw, rh), rect_deg = cv2.minAreaRect(outline)
    if max(rw, rh) > 1.45 * min(rw, rh):
        return None
    mom = cv2.moments(filled, binaryImage=True)
    return _Die(
        mom["m10"] / mom["m00"],
        mom["m01"] / mom["m00"],
        math.sqrt(area),
        filled.astype(bool),
        math.radians(rect_deg) % (math.pi / 2),
    )


def _yx(b: _Blob) -> tuple[float, float]:
    return (b.y, b.x)


def _face_colours(lab: np.ndarray) -> list[FloatArray]:
    """Candidate Lab colours of the face, likeliest first.

    The median of the crop's central disc is mostly face even on a 5 or 6; a large
    logo around a 1 pip can outweigh the face there, so the two colour clusters of
    that disc (split along their main axis of variation) are candidates too.
    """
    h, w = lab.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    r = 0.3 * min(h, w)
    inside = (xx - w / 2) ** 2 + (yy - h / 2) ** 2 <= r * r
    pix = lab[inside].astype(np.float64)
    core = (xx - w / 2) ** 2 + (yy - h / 2) ** 2 <= (0.22 * min(h, w)) ** 2
    colours = [np.median(lab[core], axis=0).astype(np.float64)]
    centred = pix - pix.mean(axis=0)
    _, _, vt = np.linalg.svd(centred[::7], full_matrices=False)
    proj = centred @ vt[0]
    lo, hi = float(proj.min()), float(proj.max())
    if hi - lo < 1e-6:
        return colours
    u8 = np.round((proj - lo) * 255 / (hi - lo)).astype(np.uint8)
    t, _ = cv2.threshold(u8.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    for part in (u8 <= t, u8 > t):
        if part.sum() < 0.15 * len(pix):
            continue
        c = np.median(pix[part], axis=0)
        if all(np.linalg.norm(c - o) > 25 for o in colours):
            colours.append(c)
    return colours


def _find_blobs(
    lab: np.ndarray,
    face: FloatArray,
    hint: float | None,
    region: npt.NDArray[np.bool_] | None = None,
    *,
    hue_only: bool = False,
) -> list[_Blob]:
    """Round blobs that differ from the ``face`` colour (Lab), one per pip, across thresholds;
    with a ``region`` (the die's silhouette) only those centred on it, and the face's
    contrast is measured on it alone.

    With ``hue_only`` the difference leaves lightness out (see :func:`_read_on_hue`), and so
    do the blobs' colours; every blob counts as of one kind (``lighter`` True): pips differ
    from their face in hue whether they are lighter or darker than the part of it beside
    them.
    """
    h, w = lab.shape[:2]
    side = float(min(h, w))
    diff = lab - face.astype(np.float32)
    if hue_only:
        diff[:, :, 0] = 0.0
    dist = np.sqrt(np.sum(diff * diff, axis=2))
    if hint:
        dmin, dmax = 0.08 * hint, 0.36 * hint
    else:
        dmin, dmax = 0.035 * side, 0.3 * side
    amin, amax = math.pi / 4 * dmin**2, math.pi / 4 * dmax**2
    yy, xx = np.mgrid[0:h, 0:w]
    central = (xx - w / 2) ** 2 + (yy - h / 2) ** 2 <= (0.45 * side) ** 2
    if region is not None:
        # The floor is not part of the face's contrast range.
        central &= cv2.erode(region.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    masks: list[npt.NDArray[np.bool_]] = []
    for plane in (dist,):
        top = float(np.percentile(plane[central], 99.5))
        if top >= 12.0:  # below that, nothing on the face stands out from it
            masks.extend(plane >= level * top for level in _LEVELS)

    found: list[_Blob] = []
    for mask_b in masks:
        mask = mask_b.astype(np.uint8)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        for i in range(1, n):
            x0, y0, bw, bh, area = (int(v) for v in stats[i])
            if area < amin or area > amax:
                continue
            if x0 <= 0 or y0 <= 0 or x0 + bw >= w or y0 + bh >= h:
                continue  # cut by the crop border: a neighbour or a side face
            sub = labels[y0 : y0 + bh, x0 : x0 + bw] == i
            m = cv2.moments(sub.astype(np.uint8), binaryImage=True)
            mu20, mu02, mu11 = m["mu20"] / area, m["mu02"] / area, m["mu11"] / area
            common = math.sqrt(max(0.0, ((mu20 - mu02) / 2) ** 2 + mu11**2))
            l1 = (mu20 + mu02) / 2 + common
            l2 = max((mu20 + mu02) / 2 - common, 1e-6)
            ratio = math.sqrt(l2 / l1)
            fill = area / (4 * math.pi * math.sqrt(l1 * l2))
            roundness = ratio
            if ratio < 0.6 or fill < 0.8:
                continue
            pix = lab[y0 : y0 + bh, x0 : x0 + bw][sub]
            dpix = dist[y0 : y0 + bh, x0 : x0 + bw][sub]
            colour = pix.mean(axis=0)
            if hue_only:
                colour[0] = 0.0  # pips are compared by their hue alone too
            found.append(
                _Blob(
                    x=float(cents[i][0]),
                    y=float(cents[i][1]),
                    diameter=2 * math.sqrt(area / math.pi),
                    peak=float(np.percentile(dpix, 90)),
                    roundness=roundness,
                    colour=tuple(float(c) for c in colour),  # type: ignore[arg-type]
                    lighter=hue_only or bool(pix[:, 0].mean() > face[0]),
                )
            )
    merged = _merge_levels(found)
    if region is None:
        return merged
    return [b for b in merged if region[int(b.y), int(b.x)]]


def _merge_levels(found: list[_Blob]) -> list[_Blob]:
    """One blob per pip: the version found nearest to half its peak contrast."""
    found.sort(key=lambda b: b.peak, reverse=True)
    groups: list[list[_Blob]] = []
    for b in found:
        for g in groups:
            ref = g[0]
            if math.hypot(b.x - ref.x, b.y - ref.y) < 0.5 * min(b.diameter, ref.diameter):
                g.append(b)
                break
        else:
            groups.append([b])
    merged = []
    for g in groups:
        peak = max(b.peak for b in g)
        # The largest version is the one thresholded lowest; prefer the round one
        # whose size is the pip's outline at half contrast, approximated by the median.
        g.sort(key=lambda b: b.diameter)
        rep = g[len(g) // 2]
        merged.append(
            _Blob(
                rep.x,
                rep.y,
                rep.diameter,
                peak,
                max(b.roundness for b in g),
                rep.colour,
                rep.lighter,
            )
        )
    return merged


def _fit_groups(
    blobs: list[_Blob],
    w: int,
    h: int,
    hint: float | None,
    centre: tuple[float, float],
    edge_angle: float | None = None,
    *,
    on_die: bool = False,
) -> tuple[list[_Fit], bool]:
    """Every consistent group of blobs that lies on a standard face, with a score.

    The flag says whether a group of two or more pips fit a face but was refused
    because another blob lies on that face. ``on_die``: the blobs all lie on the die's own
    region (see :func:`_ignores_a_pip`).
    """
    blocked = False
    side = float(min(w, h))
    cx, cy = centre
    strongest = max(b.peak for b in blobs)
    # Scores compare across face-colour hypotheses, so contrast counts in Lab units.
    unit = 100.0
    refs = sorted(blobs, key=lambda b: b.peak * b.roundness, reverse=True)[:5]
    fits: dict[tuple[int, ...], _Fit] = {}
    seen: set[tuple[int, ...]] = set()
    for ref in refs:
        if ref.peak < 0.35 * strongest:
            continue
        members = [
            b
            for b in blobs
            if 0.7 * ref.diameter <= b.diameter <= 1.45 * ref.diameter
            and 0.6 * ref.peak <= b.peak <= ref.peak / 0.6
            and _lab_dist(b.colour, ref.colour) < 0.5 * ref.peak
            and b.lighter == ref.lighter
            # Pips on a side face are squashed much more than those on the top face.
            and abs(b.roundness - ref.roundness) <= 0.2
        ]
        members.sort(key=lambda b: b.peak, reverse=True)
        members = members[:7]
        group_key = tuple(sorted(id(b) for b in members))
        if group_key in seen:
            continue
        seen.add(group_key)
        for drop in range(0, min(3, len(members))):
            for subset in itertools.combinations(members, len(members) - drop):
                key = tuple(sorted(id(b) for b in subset))
                if key in fits:
                    continue
                fit = _fit_layout(subset, cx, cy, side, hint, edge_angle)
                if fit is None:
                    continue
                if _ignores_a_pip(subset, blobs, fit, on_die=on_die):
                    blocked = blocked or (drop == 0 and len(subset) >= 2)
                    continue  # a pip as strong as the counted ones would be ignored
                mean_peak = sum(b.peak for b in subset) / len(subset)
                score = (
                    (1.0 - fit.residual / _MAX_RESIDUAL * 0.5)
                    * (mean_peak / unit)
                    * (1.0 + 0.05 * len(subset))
                )
                fits[key] = _Fit(fit.value, fit.blobs, fit.residual, score, fit.centre, fit.step)
    # A reading that is part of a larger valid reading is that larger reading's subset
    # (two pips of a 4 on one side also sit on a small 2's diagonal): keep the larger.
    kept = []
    for key, fit in fits.items():
        if not any(len(other) > len(key) and set(key) <= set(other) for other in fits):
            kept.append(fit)
    return kept, blocked


def _ignores_a_pip(
    subset: tuple[_Blob, ...], blobs: list[_Blob], fit: _Fit, *, on_die: bool = False
) -> bool:
    """True when a blob like the counted pips lies on the face ``fit`` implies, uncounted.

    With ``on_die`` (every blob lies on the die's own region) a four is also refused when
    two more blobs just like its pips (size, strength, polarity, roundness) lie on the die
    within ``_SIX_REACH`` grid steps of its centre. A six whose two columns are set closer
    together than the common layout's, and its pips further apart along them, fits no
    square grid; but two neighbouring pairs across its columns make a square of their own,
    a four with the third pair just beside it (about 2.7 steps off on the shared photos'
    one such die; the pips of a die touching a four lie outside its region).
    """
    diam = float(np.median([b.diameter for b in subset]))
    weakest = min(b.peak for b in subset)
    sparse = fit.value <= 2
    # The face reaches past the outer pips; a 1 or a 2 can sit small on a big face.
    reach = max(2.0 * fit.step, 3.2 * diam) if sparse else 2.0 * fit.step
    six_reach = _SIX_REACH * fit.step if on_die and fit.value == 4 else 0.0
    roundness = float(np.mean([b.roundness for b in subset])) if six_reach else 0.0
    strongest = max(b.peak for b in subset)
    beside = 0
    for b in blobs:
        if b in subset:
            continue
        if (
            sparse
            and on_die
            and b.peak > strongest
            and b.diameter >= 0.7 * diam
            and b.roundness >= _SPARSE_ROUND
        ):
            # A pip-shaped blob on the die starker than every counted pip: a one or a two
            # read from the die's specks beside its real, unexplained, pips.
            return True
        dist = math.hypot(b.x - fit.centre[0], b.y - fit.centre[1])
        if dist >= reach:
            # (A blob this like the pips nearer than ``reach`` is refused below anyway.)
            if (
                dist < six_reach
                and 0.7 * diam <= b.diameter <= 1.45 * diam
                and b.peak >= 0.75 * weakest
                and b.lighter == subset[0].lighter
                and abs(b.roundness - roundness) <= 0.2
            ):
                beside += 1
                if beside == 2:
                    return True
            continue
        # A larger blob may not be ignored, nor a clearly round one of the other
        # polarity (it may be the real pip). Much smaller blobs may be logo letters.
        if (
            b.diameter >= 0.7 * diam
            and b.peak >= 0.75 * weakest
            and (b.lighter == subset[0].lighter or b.roundness >= 0.75)
        ):
            return True
        # A 1 or a 2 read from the strongest pips of a blurred 4, 5 or 6: the other
        # pips are there, only fainter or smaller.
        if (
            sparse
            and b.diameter >= 0.45 * diam
            and b.peak >= 0.5 * weakest
            and b.lighter == subset[0].lighter
            and _lab_dist(b.colour, subset[0].colour) < 0.6 * weakest
        ):
            return True
    return False


#: Least roundness of a blob on a die that keeps a one or a two read from fainter blobs.
_SPARSE_ROUND = 0.6

#: How far (grid steps) from a four's centre two pips like its own on the same die tell
#: that it is part of a six set wide (see :func:`_ignores_a_pip`).
_SIX_REACH = 3.0


def _lab_dist(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    return math.sqrt(sum((p - q) ** 2 for p, q in zip(a, b, strict=True)))


def _fit_layout(
    subset: tuple[_Blob, ...],
    cx: float,
    cy: float,
    side: float,
    hint: float | None,
    edge_angle: float | None = None,
) -> _Fit | None:
    """The value whose pattern ``subset`` lies on, or None when it fits none.

    ``edge_angle`` (radians) is the direction of the die's sides when known: the pip
    grid runs along them, so a column of a 6 cannot pass for the diagonal of a 3.
    """
    n = len(subset)
    diam = float(np.median([b.diameter for b in subset]))
    pts = np.array([(b.x, b.y) for b in subset], dtype=np.float64)
    scale = hint if hint else side
    if n == 1:
        off = math.hypot(pts[0, 0] - cx, pts[0, 1] - cy)
        # A lone pip sits at the face centre and is not a speck: a die fills at least
        # 40 % of the crop and a pip is at least ~12 % of the die's side.
        if off > 0.18 * scale or diam < (0.1 * hint if hint else 0.05 * side):
            return None
        return _Fit(1, subset, off / (3 * diam), 0.0, (pts[0, 0], pts[0, 1]), diam)
    centre = pts.mean(axis=0)
    if math.hypot(centre[0] - cx, centre[1] - cy) > 0.25 * scale:
        return None
    # Grid angle candidates: every pair's direction, and that direction turned 45
    # degrees (pairs on a diagonal); all are tried at once.
    ii, jj = np.triu_indices(n, 1)
    d = pts[jj] - pts[ii]
    a = np.arctan2(d[:, 1], d[:, 0])
    angles = np.concatenate([a, a + math.pi / 4]) % (math.pi / 2)
    c, s = np.cos(angles), np.sin(angles)
    rel = pts - centre
    rx = rel[:, 0][None, :] * c[:, None] + rel[:, 1][None, :] * s[:, None]
    ry = -rel[:, 0][None, :] * s[:, None] + rel[:, 1][None, :] * c[:, None]
    lox, loy = rx.min(axis=1), ry.min(axis=1)
    ex, ey = rx.max(axis=1) - lox, ry.max(axis=1) - loy
    step = (ex + ey) / 4
    # The grid step is about a quarter of the die's side (the die fills 40-100 % of
    # the crop), and pips on a diagonal do not touch. Many dice set the two pips of a
    # 2 closer to the centre than the corners, so a 2 only needs its pips apart.
    smallest_die = hint if hint else 0.4 * side
    if n == 2:
        lower = max(0.5 * diam, 0.07 * smallest_die)
    else:
        lower = max(0.72 * diam, 0.14 * smallest_die)
    ok = (np.minimum(ex, ey) >= 0.7 * np.maximum(ex, ey)) & (step >= lower)
    ok &= (step <= 3.0 * diam) & (step <= 0.42 * (hint if hint else side))
    if edge_angle is not None:
        turn = np.abs((angles - edge_angle + math.pi / 4) % (math.pi / 2) - math.pi / 4)
        ok &= turn <= math.radians(_MAX_GRID_TURN_DEG)
    best: _Fit | None = None
    for k in np.flatnonzero(ok):
        gx = (rx[k] - lox[k]) / (ex[k] / 2)
        gy = (ry[k] - loy[k]) / (ey[k] / 2)
        nx, ny = np.round(gx), np.round(gy)
        residual = float(np.sqrt(np.mean((gx - nx) ** 2 + (gy - ny) ** 2)))
        if residual > _MAX_RESIDUAL or (best is not None and residual >= best.residual):
            continue
        occupied = frozenset((int(u), int(v)) for u, v in zip(nx, ny, strict=True))
        value = _LAYOUTS.get(occupied) if len(occupied) == n else None
        if value is None:
            continue
        best = _Fit(
            value, subset, residual, 0.0, (float(centre[0]), float(centre[1])), float(step[k])
        )
    return best
