"""Read every pip die in a tray photo: find pips, group them into faces, count them.

Pipeline (each stage in its own module): pip candidates (``vision._pips``: round blobs
darker or brighter than the face around them, at every scale) -> faces (``vision._faces``:
pips that share a face colour and fit a standard 1-6 layout) -> checks (here: the face
region around a lone pip, an empty grid place that looks like a pip, a blob like the pips off
the grid's nodes, glare, a row of marks)
-> a second reading at the scale the dice's own pips ask for (reduced for a close-up,
enlarged for tiny pips) -> dice the pips missed, found by their bodies and counted one by
one (``vision._bodies``), or read again enlarged around their bodies; twos and threes
turned against their bodies made uncertain -> readings in reading order, mapped back to
the photo's pixels.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Final, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import TrayProfile
from vision import _doubts as doubts
from vision._bodies import (
    DOUBTED,
    BodyDie,
    LoneBody,
    UnsureBody,
    edge_turn,
    find_body_dice,
    find_dice_anywhere,
    window,
)
from vision._count import FaceCount, count_hue_peaks, read_face
from vision._faces import (
    AROUND_CENTRE,
    LIKE_SIZES,
    FaceFit,
    fit_cluster,
    fit_layout,
    grid_places,
    link_pips,
    mean_rows,
    single_pip,
    texture_level,
    without_texture,
)
from vision._pips import (
    PLANE_TRANSFORM,
    PipCandidates,
    PipSearch,
    find_pip_candidates,
    make_planes,
    roundness_apart,
)
from vision.errors import VisionError
from vision.flags import FlagResult, apply_flags
from vision.io import DecodedImage, decode, reduction_factor
from vision.params import DEFAULTS, ReaderParams
from vision.result import DieReading, TrayOutline, TrayReading

__all__ = ["DEFAULTS", "ReaderParams", "read_array", "read_bytes", "read_flagged", "read_path"]

Image = npt.NDArray[np.uint8]


#: A photo resized by less than this factor (either way) is interpolated between neighbouring
#: pixels, not averaged over areas (a reduction) or fitted by cubics (an enlargement): a
#: 12-megapixel photo decoded at a quarter, 1008 or 1000 px, is reduced to 960 that way in a
#: sixth of the time (1 ms, not 6: OpenCV averages by a fractional ratio on its slow path).
#: At 1.1 the 1024x768 sample scenes, reduced so too, read one die fewer and two readings
#: of no die more (one of them a phantom "two" off the tray, asked to be rolled again).
_NEAR_WORK = 1.06
#: A "pip" at least this share of the other dice's median side is a die, not a pip.
_GIANT_PIP = 0.7
#: A face smaller than this share of the median side of the dice read is not read (see
#: ``_doubt_small``).
_SPECK_SIZE = 0.6
#: ... and one whose pips are also smaller than this share of the dice's median pip is no
#: part of a die (see ``_doubt_small``). On the shared photos (session 33) the faces read
#: that small whose pips were under 0.46 of the photo's were all no die (6: a laptop's keys
#: and ports); those part of a die the reader read nothing else of had pips of 0.53 or more
#: (7; 6 more with pips of 0.5-0.9 were no die either, and stay asked about).
_SPECK_PIP = 0.5
#: :func:`_stands_out`: the band-pass's finer scale, as a share of a die's side (a pip is
#: about a fifth of it), and its width in pixels on the reduced copy it is measured on; the
#: face's middle (as a Chebyshev radius, in die sides); the ring of texture around it (die
#: sides from its centre), its sectors and the least pixels a sector is judged by; the
#: quietest texture assumed (grey levels: a flat render, a clipped sky); and how much starker
#: than the quietest sector the pips must be. Measured (diagnostic) on every reading of the
#: 207 dev and held-out rendered scenes and of all shared real photos, at 5 it dropped 51 of
#: the renders' 83 readings of no die, 2 of their 720 dice found and 1 uncertain die of
#: nell_byler_d6's 1,795 (the median of the whole ring instead of the quietest sector lost 10
#: of nell's dice read right, by the tray's busy rim).
_DETAIL = 0.06
_BAND_PX = 1.0
_FACE_MIDDLE = 0.4
_TEXTURE_RING = (0.9, 1.8)
_SECTORS = 8
_LEAST_SECTOR = 5
_QUIETEST = 0.3
_SALIENT = 5.0
#: Only unread faces and faces of up to this many pips are measured (:func:`_salient`).
_FEW_PIPS = 2
#: A two or three whose face is turned more than this (degrees) from its body is not read.
_TURN_OFF = 30.0
#: The window the edges' turn of a two or three is measured in, as a share of its face's
#: side either way of its centre, and the least agreement of those edges on one turn
#: (:func:`vision._bodies.edge_turn`; drawn round pips and grain alone give under 0.05,
#: a drawn die's outline about 0.9; 30 of nell's 279 right lone twos and threes gave less).
_TURN_WINDOW = 0.9
_LEAST_EDGE_ORDER = 0.1
#: Faces of this many pips or more have their pips' roundness measured apart from each
#: other when it falls short (:func:`vision._pips.roundness_apart`): blurred pips of a
#: crowded face run into each other.
_CROWDED = 4
#: Pip width (px) the windows around uncounted bodies are enlarged to.
_BLOB_PIP_PX = 12.0
#: A lone die's body this many times the side of the face fitted to its pips is read again
#: by the single-face counter (right faces of two to five pips measure 1.0-2.3 times, half
#: of them over 1.6; their shadow and edges add to the body).
_BODY_OVER_FACE = 1.5
#: ... but not a body more than this many times that side: no die's body, but a tray floor
#: or a table standing out around the one die read on it (on the shared photos and the
#: renders the bodies the counter read again measured at most 2.8 times their faces).
_BODY_OVER_FACE_MOST = 4.0
#: ... and when the counter reads the same face there, the face is the die's whole face if
#: its centre is within this share of the body's side of the body's centre (a lone die's
#: blob holds its shadow and the side faces the camera sees: on nell's photos the faces the
#: counter confirmed lay up to 0.15 of the body's side off its middle; at 0.12, five of
#: them were left uncertain).
_MIDDLE_OF_BODY = 0.2
#: A die read on its body is taken to be this share of the body's side (its shadow and
#: side faces make up the rest).
_BODY_SHARE = 0.8
#: A photo is read again stretched when its stark pips are flattened below this at the
#: median (shorter over longer width), with at least this many of them and their flattening
#: directions this much in agreement (mean resultant length of doubled angles).
_ASLANT = 0.8
_ASLANT_PIPS = 6
_ASLANT_AGREE = 0.7
#: ... and that reading is kept when it reads this many times as many dice, and two more.
_ASLANT_GAIN = 2.0
#: Least roundness of a lone pip read as a one, however flattened the photo's pips are.
_ONE_ROUNDNESS_FLOOR = 0.55
#: Side faces of a die lie within this many of its sides from its top face.
_SIDE_REACH = 1.3
#: A photo's pips flattened along a direction this close to its vertical (radians) say it
#: was taken looking across the table.
_UPRIGHT = np.pi / 6
#: A pip fainter than this share of its face's starkest pip is no pip of that face.
_FAINT = 0.4
#: A photo that reads hardly a face is read again halved when its shorter side is at
#: least twice this (px).
_HALVED_SIDE = 240
#: Stark round pip candidates needed for their size to tell a close-up.
_STARK_PIPS = 3
#: An unread face whose centre is this share of its side from the frame's edge is dropped.
_FRAME_CUT = 0.25
#: A photo whose brightest half-percent is darker than this grey level is underexposed ...
_DIM = 128
#: ... and is brought up to put it at this level, by a gain of at most _MAX_GAIN.
_EXPOSED = 220.0
_MAX_GAIN = 4.0
#: ... and never so far that more than this share of its pixels passes white in a channel
#: (see :func:`_exposed`): the face of a small light die alone covers a few thousandths of
#: a photo, a lone pip of one about a ten-thousandth.
_CLIPPED = 1e-4
#: Fine noise (grey levels) of a quiet photo; a grainier one is smoothed first.
_QUIET = 2.0
#: Least pip contrast of a grainy photo, in deviations of its measured grain.
_NOISE_CONTRAST = 2.5
#: Grain beyond this (grey levels) is taken for texture: it raises the contrast no further.
_GRAIN_CAP = 15.0
_NOISE_KERNEL = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
_NOISE_WINDOW = 200
#: The confidence of a face two counters agree on after the pip reader was unsure, and the
#: least die side (work pixels) for asking the second counter.
_AGREED = 0.75
#: A second opinion on a face when no other die tells the photo's size is asked again on a
#: window reaching this many of the face's sides around it (see :func:`_second_opinion`):
#: a six's row fitted as a three spans about two thirds of its die, off its centre by a
#: third, so its die reaches about 1.2 of the row's side from the row's centre.
_PART_REACH = 1.3
_SECOND_LEAST_SIDE = 24.0
#: The single-face counter's least confidence for its reading to replace the pips' one.
_SURE_COUNT = 0.8
#: A two or three fitted smaller than this share of the photo's median face is counted
#: again (:func:`_recount`), when the photo's dice are at least ``_RECOUNT_LEAST_SIDE``
#: work pixels wide (a window 1.5 sides wide then holds 24 px or more; on nell_byler_d6's
#: 640 px photos a bar of 24 px left seven sixes and fives read as threes and twos, and no
#: bar at all mended none more than 16 did).
_SHORT_FACE = 0.8
_RECOUNT_LEAST_SIDE = 16.0


#: Two image vectors ``((x, y), (x, y))``: a face's grid axes.
Axes = tuple[tuple[float, float], tuple[float, float]]


def _scaled_axes(axes: Axes | None, fx: float, fy: float) -> Axes | None:
    """``axes`` in an image stretched by ``fx`` along x and ``fy`` along y."""
    if axes is None:
        return None
    (ax, ay), (bx, by) = axes
    return ((ax * fx, ay * fy), (bx * fx, by * fy))


def _mapped_axes(axes: Axes | None, affine: npt.NDArray[np.float64]) -> Axes | None:
    """``axes`` through the linear part of a 2x3 ``affine`` map of the image."""
    if axes is None:
        return None
    (ax, ay), (bx, by) = (affine[:, :2] @ np.array(axes, np.float64).T).T.tolist()
    return ((float(ax), float(ay)), (float(bx), float(by)))


class _Die(NamedTuple):
    """A die found on the work image, before mapping back to the photo."""

    value: int | None
    center: tuple[float, float]
    size: float
    confidence: float
    outline: tuple[tuple[float, float], ...]
    squash: float = 1.0
    face_bgr: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: The value of the layout its pips were fitted to, even when ``value`` is None (0 for
    #: a die not read by its pips).
    layout: int = 0
    #: The side of its own body when the single-face counter read the same face in the
    #: body's middle (:func:`_more_pips`), else 0: the die is that big, whatever its pips'
    #: spread says.
    body_side: float = 0.0
    #: The face's grid as its pips show it (four pips or more): the image vectors of one
    #: grid step along its two axes (see :attr:`DieReading.face_axes`).
    axes: Axes | None = None
    #: A four left uncertain as a six's corners (:func:`_six_corners`): still a face of the
    #: photo's dice for their size in the body pass, and counted again on its body.
    six_corners: bool = False
    #: A two or three whose pips are faint amid starker ones of its die
    #: (:func:`_starker_beside`): part of a bigger face, asked about unless counted again
    #: (:func:`_asked_amid`). Until then it counts as read, as a size for the body pass.
    amid: bool = False
    #: The centres of the pips its layout was fitted to (work pixels); () for a die not read
    #: by its pips.
    pips: tuple[tuple[float, float], ...] = ()
    #: Why it is left uncertain (:mod:`vision._doubts`), set by the rule that made it so;
    #: the evidence of its ``uncertain`` flag.
    doubt: str = ""


class _Scaled(NamedTuple):
    """A reading at one scale (see ``_read_scaled``)."""

    #: (mean pip diameter, die) pairs, in the resized image's pixels.
    dice: list[tuple[float, _Die]]
    #: The number of pip candidates they came from.
    n_candidates: int
    #: The x and y scales of the resized image, and the image.
    scale_x: float
    scale_y: float
    work: Image
    #: The diameter of the biggest stark, round pip candidates (0 when there are none).
    stark_diam: float
    #: The faces the dice were chosen from (:func:`_select`), so that they can be chosen
    #: again once a "giant face" is dropped; None when the reading was stretched back from
    #: an aslant view.
    faces: _Checked | None = None


#: ``finer(factor)``: the photo being read decoded at about ``factor`` times the size of the
#: image first decoded (a JPEG's smaller DCT reduction, up to its full size), or None when
#: the photo has no more detail than that image.
Finer = Callable[[float], "Image | None"]


def read_array(
    image_bgr: npt.NDArray[np.uint8],
    *,
    params: ReaderParams = DEFAULTS,
    finer: Finer | None = None,
) -> tuple[DieReading, ...]:
    """Read every die in a decoded photo; dice in reading order (rows top to bottom, then x).

    ``image_bgr`` is (H, W, 3) uint8 in OpenCV's BGR order (a (H, W) grey image is accepted
    too). Centres, sizes and outlines are in the pixels of ``image_bgr``. A photo without
    dice gives an empty tuple. ``finer``, when ``image_bgr`` is a reduced decode of a larger
    photo, gives the photo's own pixels to the windows around die-sized bodies whose pips
    are too small to count at this size (see :data:`Finer`, :func:`_read_blobs`); without
    it those windows are read from ``image_bgr`` enlarged.
    """
    image = _validate(image_bgr)
    h, w = image.shape[:2]
    scale = min(params.max_upscale, params.work_max_side / max(h, w))
    image = _exposed(image)
    image, params = _quieted(image, scale, params)
    reading = _read_scaled(image, scale, params)
    close_up = _close_up(image, reading, scale, params)
    if close_up is not None:
        scale, reading = close_up
    n_candidates, scale_x, scale_y = reading.n_candidates, reading.scale_x, reading.scale_y
    work = reading.work
    dice = _without_giants(reading)
    # A photo whose first reading left far more pip candidates than dice is grainy or
    # textured: enlarging all of it multiplies the candidates and the time (seconds), not
    # the dice; only the windows around the dice found are read again enlarged.
    noisy = n_candidates > params.small_pip_max_candidates_per_die * len(dice)
    if dice and params.small_pip_px > 0.0:
        # Pips only a few pixels wide are too coarse to measure (roundness, contrast, the
        # ring around them): when the dice found say the photo's pips are that small, read
        # it again enlarged. Decided per photo from the pips themselves, because enlarging
        # big blurry pips merges them with the bright edges of their dice.
        median_diam = float(np.median([diam for diam, _die in dice])) * 2.0 / (scale_x + scale_y)
        if median_diam * scale < params.small_pip_px:
            # Capped: a large photo with tiny dice must not become a huge one.
            big = min(
                params.small_pip_px_target / median_diam,
                2.0 * params.work_max_side / max(h, w),
            )
            if big > 1.2 * scale:
                # The photo's own grain (at its full size, which the enlarged reading
                # resolves) counts too: a few dice more found in a grainy photo do not
                # make its grain fewer pips. (Read from the reduced image enlarged, not
                # from the photo's own pixels as the bodies' windows are: on 60 renders at
                # 2016x1512 the finer, grainier pixels read 3 faces fewer right and
                # misread one more, docs/reader.md.)
                if noisy or noise_sigma(image, big) > _QUIET:
                    more = _read_windows(image, dice, scale_x, scale_y, big, params)
                else:
                    whole = _read_scaled(image, big, params)
                    fx, fy = scale_x / whole.scale_x, scale_y / whole.scale_y
                    more = [(diam * fx, _scaled_die(d, fx, fy)) for diam, d in whole.dice]
                dice = _merge_enlarged(dice, more, median_diam * scale, params)
    dice = _drop_giants(dice, work)
    if dice and params.body_dice:
        dice, unread, unsure = _body_dice(work, dice, params, upright=_upright(reading))
        dice = _unread_bodies(image, dice, unread, unsure, reading, params, finer)
    dice = [(diam, _second_opinion(work, d, dice)) for diam, d in dice]
    dice = _doubt_small(_recounted(work, dice))
    if params.body_dice and not any(d.value is not None for _diam, d in dice):
        # Not one face read by its pips (pips too faint or too small for the pip search all
        # over the photo): the dice may still stand out by their bodies.
        dice, unread, unsure = _anywhere(work, dice, params)
        dice = _unread_bodies(image, dice, unread, unsure, reading, params, finer)
        # The faces read there are measured against each other as the pips' faces were.
        dice = _doubt_small(dice)
    dice = _with_colour_faces(work, dice, reading.faces)
    dice = _salient(work, dice)
    dice = _own_pixels_opinion(image, dice, scale_x, scale_y, finer)
    dice = [(diam, _past_frame(_asked_amid(d), work.shape[1], work.shape[0])) for diam, d in dice]
    readings = [
        DieReading(
            value=d.value,
            center=(d.center[0] / scale_x, d.center[1] / scale_y),
            size_px=d.size / (0.5 * (scale_x + scale_y)),
            confidence=round(d.confidence, 3),
            flags=() if d.value is not None else ("uncertain",),
            evidence=() if d.value is not None else (d.doubt or doubts.UNCOUNTED,),
            outline=tuple((x / scale_x, y / scale_y) for x, y in d.outline),
            face_axes=_scaled_axes(d.axes, 1.0 / scale_x, 1.0 / scale_y),
        )
        for _diam, d in dice
        if d.value is not None or not _cut_by_frame(d, work.shape[1], work.shape[0])
    ]
    return reading_order(readings)


def _finer_source(
    image: Image, finer: Finer | None, big: float, params: ReaderParams
) -> tuple[Image, float, float, ReaderParams]:
    """``(source, sx, sy, params)``: the image a reading enlarged ``big`` times ``image``'s
    size reads its windows from, its size over ``image``'s along x and y, and the
    parameters its grain allows.

    That is the photo decoded finer when ``finer`` has more of it (brought to the same
    exposure and smoothed for its own grain as ``image`` was), else ``image`` itself with
    ``params``.
    """
    more = _finer_pixels(image, finer, big)
    if more is None:
        return image, 1.0, 1.0, params
    sx = more.shape[1] / image.shape[1]
    sy = more.shape[0] / image.shape[0]
    source, src_params = _quieted(_exposed(more), min(1.0, big / sx), params)
    return source, sx, sy, src_params


def _finer_pixels(image: Image, finer: Finer | None, factor: float) -> Image | None:
    """The photo decoded about ``factor`` times finer than ``image`` (:data:`Finer`), or None
    when it has no more pixels than ``image``."""
    more = finer(factor) if finer is not None else None
    return more if more is not None and more.shape[1] > image.shape[1] else None


def noise_sigma(image: Image, scale: float = 1.0) -> float:
    """Standard deviation (grey levels) of a photo's fine noise once it is resized by
    ``scale``, from a central window of about 200 px (of the resized photo).

    Immerkaer's Laplacian difference of two second derivatives cancels any smooth shading
    and leaves pixel noise with 6 times its deviation; the median of its magnitude, unlike
    its mean, is not raised by the edges of dice and pips.
    """
    h, w = image.shape[:2]
    half = max(8, int(_NOISE_WINDOW / 2 / scale))
    cy, cx = h // 2, w // 2
    window = image[max(0, cy - half) : cy + half, max(0, cx - half) : cx + half]
    grey = cv2.cvtColor(window, cv2.COLOR_BGR2GRAY)
    if scale < 0.99:
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    lap = np.abs(cv2.filter2D(grey, cv2.CV_16S, _NOISE_KERNEL)[1:-1, 1:-1]).ravel()
    if lap.size == 0:
        return 0.0
    middle = lap.size // 2
    return float(np.partition(lap, middle)[middle]) / (0.6745 * 6.0)


def _exposed(image: Image) -> Image:
    """An underexposed photo (its brightest half-percent below half the grey scale) brought
    up to a normal exposure; any other photo as it is.

    The pip search's contrast thresholds are grey levels, which a dim photo does not reach.
    A photo of a die or two on a dark floor has its brightest half-percent on the floor too,
    and is exposed for its dice: the gain never takes more than ``_CLIPPED`` of the pixels
    past white in any channel (a light die brought up four times would be white all over,
    its pips gone with its face).
    """
    h, w = image.shape[:2]
    step = max(1, max(h, w) // 160)
    grey = cv2.cvtColor(np.ascontiguousarray(image[::step, ::step]), cv2.COLOR_BGR2GRAY)
    counts = np.bincount(grey.ravel(), minlength=256)
    bright = int(np.searchsorted(np.cumsum(counts), 0.995 * grey.size))
    if bright >= _DIM:
        return image
    # Every pixel, not the sample: a small die's pips may fall between the sample's rows.
    b, g, r = cv2.split(image)
    top_counts = cv2.calcHist([cv2.max(cv2.max(b, g), r)], [0], None, [256], [0, 256]).ravel()
    top = int(np.searchsorted(np.cumsum(top_counts), (1.0 - _CLIPPED) * h * w))
    gain = min(_MAX_GAIN, _EXPOSED / max(bright, 1), 255.0 / max(top, 1))
    if gain <= 1.0:
        return image
    return np.asarray(cv2.convertScaleAbs(image, alpha=gain), np.uint8)


def _quieted(image: Image, scale: float, params: ReaderParams) -> tuple[Image, ReaderParams]:
    """A grainy photo smoothed by an edge-keeping filter, and the least pip contrast its
    grain allows; a quiet photo (nearly all of them) as it is, with the default contrast.

    ``scale`` is the work image's size over ``image``'s: the grain is measured, and
    smoothed, at the size the pips are searched at.
    """
    sigma = noise_sigma(image, scale)
    if sigma <= _QUIET:
        return image, params
    # Beyond a few grey levels the "grain" may be a speckled table's texture, which does
    # not hide the pips of the dice on it: the threshold stops rising there.
    contrast = max(params.min_pip_contrast, _NOISE_CONTRAST * min(sigma, _GRAIN_CAP))
    # Neighbours within 3 sigma of a pixel's grey are averaged with it, across a 5 px
    # window of the work image: grain goes, a pip's edge (a bigger step) stays.
    if scale >= 0.99:
        smooth = cv2.bilateralFilter(image, 5, 3.0 * sigma, 2.5)
    else:
        h, w = image.shape[:2]
        small = cv2.resize(
            image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
        )
        smooth = cv2.resize(
            cv2.bilateralFilter(small, 5, 3.0 * sigma, 2.5), (w, h), interpolation=cv2.INTER_LINEAR
        )
    return np.asarray(smooth, np.uint8), params._replace(min_pip_contrast=contrast)


def _asked_amid(d: _Die) -> _Die:
    """``d`` made uncertain when it is still the two or three of faint pips amid starker
    ones of its die that it was fitted as (:attr:`_Die.amid`)."""
    if d.amid and d.value is not None and d.value == d.layout:
        return d._replace(value=None, confidence=min(d.confidence, DOUBTED), doubt=doubts.AMID)
    return d


def _past_frame(d: _Die, width: int, height: int) -> _Die:
    """``d`` made uncertain when it is a two or three whose face the frame cuts (a corner of
    its outline outside the photo): the rest of a five or six may lie beyond the frame, and
    blocky compression along an edge makes rows of specks."""
    if d.value not in (2, 3) or not d.outline:
        return d
    if all(0.0 <= x < width and 0.0 <= y < height for x, y in d.outline):
        return d
    return d._replace(value=None, doubt=doubts.PAST_FRAME)


def _cut_by_frame(d: _Die, width: int, height: int) -> bool:
    """Whether the frame cuts through the middle of ``d``'s face (its centre within a
    quarter of its side of an edge): an unread face seen only in part is no evidence of a
    die (blocky compression at an edge makes such patterns)."""
    x, y = d.center
    return min(x, y, width - x, height - y) < _FRAME_CUT * d.size


def _close_up(
    image: Image, reading: _Scaled, scale: float, params: ReaderParams
) -> tuple[float, _Scaled] | None:
    """The photo read again reduced when the dice read at ``scale`` show pips wider than
    ``params.big_pip_px``: ``(smaller scale, its reading)``, or None to keep the first.

    The pip search is tuned for pips of 3-15 px; a close-up's pips are read at the size that
    brings them there, estimated from the dice themselves: from the dice with the biggest
    pips, as a close-up's pips hold specks that read as tiny dice (the dice of one photo
    differ in size by far less than twofold). When the faces read do not ask for it, the
    stark round pip candidates may (``reading.stark_diam``), and a photo that read at most
    one face is tried halved; those readings are kept only when they read more dice. The
    one the faces asked for is kept too when the first reading's other dice were specks on
    its dice (:func:`_specks_on`).
    """
    if params.big_pip_px <= 0.0:
        return None
    dice = reading.dice
    first = sum(d.value is not None for _diam, d in dice)
    # Uncertain faces speak for the pip size when none was read (a close-up's big pips may
    # hold specks that spoil every face).
    valued = [diam for diam, d in dice if d.value is not None] or [diam for diam, _d in dice]
    big_diam = 0.0
    needed: int | None = None
    if valued:
        biggest = [diam for diam in valued if diam >= 0.5 * max(valued)]
        big_diam = float(np.median(biggest))
        # Kept when it reads at least the dice that asked for it and half as many as the
        # first reading: a lone "die" of huge pips among small ones (a pattern, a giant
        # face) does not make a photo a close-up.
        least = max(len(biggest), 0.5 * len(valued))
        needed = len(biggest)
    if big_diam <= params.big_pip_px:
        # The faces read may be specks in the pips of a close-up, or none at all: pips
        # that stand out, round and wide, still tell the photo's scale. Hardly a face read
        # and no such pip: blurred big pips may pass the search only at half the size (its
        # levels look for pips up to about 13 px finely). Either reading is kept only when
        # it reads more dice.
        big_diam, least, needed = reading.stark_diam, first + 1, None
        if big_diam <= params.big_pip_px:
            if first > 1 or min(reading.work.shape[:2]) < 2 * _HALVED_SIDE:
                return None
            big_diam = 2.0 * params.big_pip_px_target
    smaller = scale * params.big_pip_px_target / big_diam
    reduced = _read_scaled(image, smaller, params)
    if needed is None:
        # Asked for by stark blobs or tried halved: dice blurred round are stark blobs too,
        # and reduced they line up as the pips of a giant face whose "face" is the floor.
        reduced = reduced._replace(dice=_without_dice_as_pips(reading, reduced))
    read = sum(d.value is not None for _diam, d in reduced.dice)
    # It is kept too when faces read asked for it, it reads as many, and every other die
    # the first reading read was a speck on its dice (:func:`_specks_on`). Not when its
    # faces did not ask (stark blobs, a halved photo): dice blurred round are stark blobs
    # too, and reduced they read as the pips of giant faces (tried: 6 of nell_byler_d6's
    # photos lost their dice so, and 75 of matteop65's were read from a halved copy).
    if read < least and not (
        needed is not None and read >= needed and _specks_on(reading, reduced)
    ):
        return None
    return smaller, reduced


#: A face of two pips or more read in a reduced copy its faces did not ask for, or whose
#: pips are as wide as the one other die read, must differ from what lies just outside it
#: on at least this share of its four sides (:func:`_bounded`; the checks of every face
#: ask for one side, ``min_face_distinct``).
_BOUNDED_SIDES = 0.5


def _without_dice_as_pips(first: _Scaled, reduced: _Scaled) -> list[tuple[float, _Die]]:
    """The dice of ``reduced`` (the photo read smaller than ``first``) without the faces
    whose pips are whole dice: faces not bounded (:func:`_bounded`), and faces whose pips,
    seen at ``first``'s scale, hold faces of their own (:func:`_dice_as_pips`)."""
    f = (first.scale_x + first.scale_y) / (reduced.scale_x + reduced.scale_y)
    return [
        (diam, d)
        for diam, d in reduced.dice
        if _bounded(reduced.work, diam, d)
        and not _pips_are_dice(first.work, diam * f, _scaled_die(d, f, f))
    ]


def _pips_are_dice(work: Image, diam: float, d: _Die) -> bool:
    """Whether ``d``, a face of two pips or more ``diam`` wide read on ``work``, has whole
    dice for pips (:func:`_dice_as_pips`)."""
    if d.layout < 2 or len(d.pips) < 2:
        return False
    return _dice_as_pips(work, np.array(d.pips, np.float32), diam)


def _bounded(work: Image, diam: float, d: _Die) -> bool:
    """False for a face of two pips or more (``diam`` wide) that stands out from its
    surround on fewer than ``_BOUNDED_SIDES`` of its sides (:func:`_face_evidence`).

    A die's face is bounded by its edges all round, save where it touches another die or a
    wall. The "pips" of a giant face are whole dice lying apart on the floor, and the floor
    is its "face": it runs on past the face's outline everywhere but where another die
    happens to lie.
    """
    if d.layout < 2 or len(d.pips) < 2 or len(d.outline) != 4:
        return True
    # The surround is sampled out to 1.08 face sides from the centre (:data:`_OUTER`).
    crop, x0, y0 = window(work, d.center, int(1.2 * d.size) + 4)
    blur: Image = np.asarray(cv2.GaussianBlur(crop, (3, 3), 0), dtype=np.uint8)
    (ax, ay), (bx, by) = d.outline[0], d.outline[1]
    pips = np.array(d.pips, np.float32) - np.array([x0, y0], np.float32)
    centre = (d.center[0] - x0, d.center[1] - y0)
    angle = float(np.arctan2(by - ay, bx - ax))
    return _face_evidence(blur, centre, d.size, angle, pips, diam)[1] >= _BOUNDED_SIDES


#: A die read on another one's face or side faces and smaller than this share of its pips
#: is a speck of it (:func:`_specks_on`).
_SPECK_OF_PIP = 0.6


def _specks_on(first: _Scaled, reduced: _Scaled) -> bool:
    """True when every die ``first`` read (or left uncertain) is read by ``reduced`` (the
    same photo read smaller) too, or is a speck on a die it read: within ``_SIDE_REACH`` of
    its sides of its centre, and smaller than ``_SPECK_OF_PIP`` of its pips (the specks of
    a close-up's mottled pips, the rims of its side faces' pips). Dice that are the pips of
    a "giant face" are as big as its pips, and a die it did not read stays."""
    f = (first.scale_x + first.scale_y) / (reduced.scale_x + reduced.scale_y)
    big = [
        (d.value, np.array(d.center) * f, d.size * f, diam * f)
        for diam, d in reduced.dice
        if d.value is not None
    ]
    for _diam, d in first.dice:
        c = np.array(d.center)
        if not any(
            (d.value in (None, value) and float(np.hypot(*(c - bc))) < 0.5 * bs)
            or (d.size < _SPECK_OF_PIP * bd and float(np.hypot(*(c - bc))) < _SIDE_REACH * bs)
            for value, bc, bs, bd in big
        ):
            return False
    return True


def _drop_giants(dice: list[tuple[float, _Die]], work: Image) -> list[tuple[float, _Die]]:
    """The dice without "faces" whose pips are whole dice: small dark dice on a light
    table (or light dice on a dark one) line up like the pips of one giant die.

    A face is dropped when its pips are at least 0.7 times as wide as the other dice in the
    photo (a pip spans about a fifth of its die's side): dice in one photo differ in size
    by perspective and make, never so much. Of two dice, either may be the odd one (a giant
    face beside a die, or a speck beside a close-up's face): the one whose pips are that
    wide is dropped only when its face is no more bounded than a giant's
    (:func:`_bounded`, ``work`` being the image the dice were read on).
    """
    if len(dice) < 2:
        return dice
    out = []
    for k, (diam, d) in enumerate(dice):
        others = [o.size for j, (_od, o) in enumerate(dice) if j != k]
        if diam > _GIANT_PIP * float(np.median(others)) and (
            len(dice) > 2 or not _bounded(work, diam, d)
        ):
            continue
        out.append((diam, d))
    return out


def _doubt_small(
    dice: list[tuple[float, _Die]], among: list[tuple[float, _Die]] | None = None
) -> list[tuple[float, _Die]]:
    """The dice with faces far smaller than the dice read (below ``_SPECK_SIZE`` of their
    median side; of the dice ``among``, when given, else of ``dice``) made uncertain, or
    dropped when they were unread already or their pips are far smaller too.

    The dice of one photo differ in size by perspective and make by less than that; a face
    read that small is part of a die (one row of a six, two pips of a four whose others
    were lost: on the shared photos half of such faces were misread) or a pattern of
    specks and grain on a table or a tray's wood (an unread one nearly always is). Part of
    a die shows pips as big as the other dice's; a pattern need not: with pips under
    ``_SPECK_PIP`` of the dice's median pip it is dropped, not asked about. A face
    the single-face counter read alike in the middle of a die-sized body of its own
    (``body_side``) is a die whose pips sit close together: it keeps its value and takes
    the body's size.
    """
    read = [(diam, d.size) for diam, d in (dice if among is None else among) if d.value is not None]
    if len(read) < 2:
        return dice
    least = _SPECK_SIZE * float(np.median([size for _diam, size in read]))
    least_pip = _SPECK_PIP * float(np.median([diam for diam, _size in read]))
    out = []
    for diam, d in dice:
        if d.size < least and _BODY_SHARE * d.body_side >= least:
            # Two counters read this face in the middle of a die-sized body: a die whose
            # pips sit closer together than the common layout's.
            f = _BODY_SHARE * d.body_side / d.size
            cx, cy = d.center
            outline = tuple((cx + f * (x - cx), cy + f * (y - cy)) for x, y in d.outline)
            d = d._replace(size=f * d.size, outline=outline)
        if d.size >= least:
            out.append((diam, d))
        elif d.value is not None and diam >= least_pip:
            out.append((diam, d._replace(value=None, doubt=doubts.SMALL)))
    return out


def _salient(work: Image, dice: list[tuple[float, _Die]]) -> list[tuple[float, _Die]]:
    """The dice without the unread faces and the faces of one or two pips whose pips do not
    stand out from their surroundings' texture (:func:`_stands_out`): grain or a pattern on
    the table or the tray taken for pips. Those are nearly all the readings of no die (of
    83 on the dev and held-out renders, 75); faces of more pips are seldom a pattern, and
    are not measured (the test costs about a millisecond a die on a loaded machine). On the
    held-out renders this cut their readings of no die from 67 to 31 (27 measuring every
    face), and no shared real photo lost a die read right."""
    doubtful = [d.value is None or d.value <= _FEW_PIPS for _diam, d in dice]
    if not any(doubtful):
        return dice
    grey: Image = np.asarray(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    return [
        (diam, d)
        for (diam, d), doubt in zip(dice, doubtful, strict=True)
        if not doubt or _stands_out(grey, d.center, d.size)
    ]


def _stands_out(grey: Image, centre: tuple[float, float], side: float) -> bool:
    """Whether the detail inside a die's face (its pips; the die of ``side`` pixels at
    ``centre`` in ``grey``) stands out from the texture around it.

    A band-pass of the grey level at about a pip's scale (a difference of Gaussians of
    ``_DETAIL`` and three times that share of the die's side) is taken, inside the face's
    middle, at its 95th percentile; around the face, on a square ring of ``_TEXTURE_RING``
    die sides cut into ``_SECTORS`` sectors, at the median of the quietest sector. A die's
    pips stand out from the floor beside it by far more than the floor varies, while specks
    of wood grain, felt or a stone pattern that line up like pips are no starker than the
    rest of their surface. The quietest sector, because a die against a wall, a busy rim or
    other dice has a busy ring on most sides but rarely on all.
    """
    sigma = max(0.8, _DETAIL * side)
    reach = _TEXTURE_RING[1] * side
    margin = 9.0 * sigma  # the wider Gaussian's reach
    h, w = grey.shape
    cx, cy = centre
    x0, y0 = max(0, int(cx - reach - margin)), max(0, int(cy - reach - margin))
    x1, y1 = min(w, int(cx + reach + margin) + 1), min(h, int(cy + reach + margin) + 1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return True
    win = np.asarray(grey[y0:y1, x0:x1], np.float32)
    # Measured on a copy where the finer Gaussian is about a pixel wide: the same band, at
    # a fraction of the cost for big dice.
    f = min(1.0, _BAND_PX / sigma)
    if f < 1.0:
        win = np.asarray(cv2.resize(win, None, fx=f, fy=f, interpolation=cv2.INTER_AREA))
    small = float(np.float32(sigma * f))
    band = np.abs(cv2.GaussianBlur(win, (0, 0), small) - cv2.GaussianBlur(win, (0, 0), 3 * small))
    wh, ww = band.shape
    sx, sy = (x1 - x0) / ww, (y1 - y0) / wh
    dx = (np.arange(ww, dtype=np.float32) + 0.5) * sx + (x0 - 0.5 - cx)
    dy = (np.arange(wh, dtype=np.float32) + 0.5) * sy + (y0 - 0.5 - cy)
    ax, ay = np.meshgrid(dx, dy)
    r = np.maximum(np.abs(ax), np.abs(ay))
    inner = band[r <= _FACE_MIDDLE * side]
    in_ring = (r >= _TEXTURE_RING[0] * side) & (r <= reach)
    sector = ((np.arctan2(ay[in_ring], ax[in_ring]) + np.pi) * (_SECTORS / (2 * np.pi))).astype(
        np.intp
    ) % _SECTORS
    ring = band[in_ring]
    counts = np.bincount(sector, minlength=_SECTORS)
    judged = counts >= _LEAST_SECTOR
    if inner.size == 0 or int(judged.sum()) < _SECTORS // 2:
        return True  # too little around it (the frame's edge) to judge
    # Each sector's median from one sort by sector, then level (the upper middle value of
    # an even count).
    ordered = ring[np.lexsort((ring, sector))]
    starts = np.cumsum(counts) - counts
    quiet = ordered[(starts + counts // 2)[judged]]
    return float(np.percentile(inner, 95)) >= _SALIENT * max(float(quiet.min()), _QUIETEST)


def _merge_enlarged(
    dice: list[tuple[float, _Die]],
    more: list[tuple[float, _Die]],
    median_diam: float,
    params: ReaderParams,
) -> list[tuple[float, _Die]]:
    """Dice of a first reading with those of an enlarged one (mapped to the same pixels).

    The first reading's dice stand, except where the enlarged reading reads, with confidence,
    a face with more pips (or an uncertain one's, unless it is part of it: :func:`_part_of`)
    that spans the first reading's faces there, or that lies on a face asked about whose
    pips were fitted as fewer (a wide face fitted across a top face's pip and a side
    face's, with the top face's own pips read enlarged inside it);
    the enlarged reading adds the dice it alone finds. ``median_diam`` is the first
    reading's median pip diameter.
    """
    merged = list(dice)
    for diam, d in more:
        # Dice in one photo lie at about one distance from the camera: pips much smaller
        # than the others found are specks, not a die missed before.
        if (
            d.confidence < params.small_pip_min_confidence
            or d.value is None
            or diam < params.small_pip_min_ratio * median_diam
        ):
            continue
        hits = [k for k, (od, o) in enumerate(merged) if _shadowed(d, diam, o, od)]
        if not hits:
            merged.append((diam, d))
            continue
        # Pips that run together at the first size (two rows of a six read as a three, a
        # five's middle pip lost) come apart enlarged: a face there with more pips, spanning
        # the faces it covers, is the better reading of that die.
        covered = [merged[k] for k in hits]
        # A face asked about that was fitted with fewer pips need not lie inside it.
        if all(
            (_shadowed(o, od, d, diam) or (o.value is None and 0 < o.layout < d.value))
            and (o.value is None or (o.value < d.value and o.size < d.size))
            and not _part_of(d, o)
            and not _one_elsewhere(o, d)
            for od, o in covered
        ):
            for k in sorted(hits, reverse=True):
                del merged[k]
            merged.append((diam, d))
    return merged


def _one_elsewhere(o: _Die, d: _Die) -> bool:
    """Whether ``o``, a one read, and ``d``, a face read enlarged over it, are centred apart
    (by ``_ONE_APART`` of the one's side): a one is read only with its pip in its face's
    middle, so a face there with more pips, centred elsewhere, takes in a pip of another
    die (a die touching it) rather than pips the first size ran together."""
    apart = float(np.hypot(d.center[0] - o.center[0], d.center[1] - o.center[1]))
    return o.value == 1 and apart > _ONE_APART * o.size


#: See :func:`_one_elsewhere`.
_ONE_APART = 0.3


def _part_of(d: _Die, o: _Die) -> bool:
    """Whether ``d`` reads fewer pips than ``o``'s layout fitted, on a smaller face: part of
    the die ``o`` asked about (pips merged with a glare streak enlarged, a row lost), not a
    better reading of it."""
    return d.value is not None and d.value < o.layout and d.size < o.size


def _read_windows(
    image: Image,
    dice: list[tuple[float, _Die]],
    scale_x: float,
    scale_y: float,
    big: float,
    params: ReaderParams,
) -> list[tuple[float, _Die]]:
    """Read the window around each die found again, enlarged ``big`` times from ``image``.

    ``dice`` are in work pixels (``scale_x``, ``scale_y`` times ``image``'s); so are the
    dice returned (a die seen in two windows comes back twice; the merge keeps one).
    """
    out: list[tuple[float, _Die]] = []
    for _diam, d in dice:
        centre = (d.center[0] / scale_x, d.center[1] / scale_y)
        crop, x0, y0 = window(image, centre, 1.5 * d.size / (0.5 * (scale_x + scale_y)))
        if min(crop.shape[:2]) < 8:
            continue
        found = _read_scaled(crop, big, params)
        fx, fy = scale_x / found.scale_x, scale_y / found.scale_y
        dx, dy = x0 * scale_x, y0 * scale_y
        for diam, e in found.dice:
            e = _scaled_die(e, fx, fy)
            out.append(
                (
                    diam * fx,
                    e._replace(
                        center=(e.center[0] + dx, e.center[1] + dy),
                        outline=tuple((x + dx, y + dy) for x, y in e.outline),
                        pips=tuple((x + dx, y + dy) for x, y in e.pips),
                    ),
                )
            )
    return out


def _body_dice(
    work: Image, dice: list[tuple[float, _Die]], params: ReaderParams, *, upright: bool = False
) -> tuple[list[tuple[float, _Die]], list[tuple[float, float, float]], list[UnsureBody]]:
    """The dice with those found by their bodies added (work-image pixels), twos and
    threes whose face is turned against their body made uncertain; the die-sized bodies
    whose pips could not be counted, ``(x, y, side)`` in work pixels; and those of them
    that are dice all the same (:attr:`vision._bodies.BodyPass.unsure`). In a photo taken
    across the table (``upright``) a body asked about right below a face read is that die's
    front face with its top (:func:`_above`), as for the bodies nothing counted
    (:func:`_with_unsure_bodies`)."""
    sides = [d.size for _diam, d in dice if d.value is not None or d.six_corners]
    if not sides:
        return dice, [], []
    taken = [(d.center[0], d.center[1], d.size) for _diam, d in dice]
    found = find_body_dice(
        work, float(np.median(sides)), taken, min_confidence=params.body_min_confidence
    )
    checked = []
    for (diam, d), body in zip(dice, found.lone, strict=True):
        if body is not None:
            again = _more_pips(work, d, body)
            if again.value == d.value and _turned_against(d, _edges_turn(work, d)):
                again = _as_turned(d)
            d = again
        elif _apart(d, dice):
            # No lone body (the pass could not part it from its shadow or a wall), but no
            # die read beside it either: the edges around it are still its own.
            d = _not_turned(work, d)
        checked.append((diam, d))
    bodies = [_body_die(b, params) for b in found.dice]
    if upright:
        bodies = [
            (diam, b)
            for diam, b in bodies
            if b.value is not None or not _below_a_face_read(b, checked)
        ]
    return checked + bodies, found.unread, found.unsure


def _unread_bodies(
    image: Image,
    dice: list[tuple[float, _Die]],
    unread: list[tuple[float, float, float]],
    unsure: list[UnsureBody],
    reading: _Scaled,
    params: ReaderParams,
    finer: Finer | None = None,
) -> list[tuple[float, _Die]]:
    """The dice with those the body pass could not count: read again enlarged
    (:func:`_read_blobs`, from ``finer``'s pixels where the photo has them), and those still
    unread that are dice all the same asked about (:func:`_with_unsure_bodies`)."""
    if unread:
        dice = _read_blobs(image, dice, unread, reading, params, finer)
    return _with_unsure_bodies(dice, unsure, _upright(reading))


def _with_unsure_bodies(
    dice: list[tuple[float, _Die]], bodies: list[UnsureBody], upright: bool
) -> list[tuple[float, _Die]]:
    """The dice with an uncertain die for each body in ``bodies`` (work pixels: die-sized,
    square and textured, see :func:`vision._bodies.find_body_dice`) that no reading lies
    on: a die whose pips no reading could count is asked about, not left out (red pips on a
    dark marbled body, a blurred die). In a photo taken across the table (``upright``) a
    body right below a face read is that die's front face (:func:`_above`)."""
    out = list(dice)
    for body in bodies:
        doubt = body.doubt or doubts.BODY_ONLY
        die = _Die(None, body.center, body.size, DOUBTED, body.outline, doubt=doubt)
        if _on_a_reading(die, out) or (upright and _below_a_face_read(die, out)):
            continue
        out.append((_PIP_OF_SIDE * body.size, die))
    return out


#: A die found this near another reading (in the bigger one's sides) is that die
#: (:func:`_on_a_reading`); a die's pip is about this share of its side.
_BODY_TAKEN = 0.7
_PIP_OF_SIDE = 0.18


def _below_a_face_read(die: _Die, dice: list[tuple[float, _Die]]) -> bool:
    """Whether ``die`` lies right below a face read among ``dice`` as a die's front face
    below its top face (:func:`_above`; in a photo taken across the table)."""
    return any(o.value is not None and _above(o, die) for _od, o in dice)


def _on_a_reading(die: _Die, dice: list[tuple[float, _Die]], reach: float = _BODY_TAKEN) -> bool:
    """Whether ``die`` lies within ``reach`` of the bigger one's side of a die of ``dice``
    (by default ``_BODY_TAKEN``: a reading of that die)."""
    return any(
        np.hypot(die.center[0] - o.center[0], die.center[1] - o.center[1])
        < reach * max(o.size, die.size)
        for _od, o in dice
    )


def _upright(reading: _Scaled) -> bool:
    """Whether the photo of ``reading`` looks across the table, upright, as its faces say
    (:attr:`_Checked.upright`); False for a reading stretched back from an aslant view,
    whose faces are not kept."""
    return reading.faces is not None and reading.faces.upright


def _more_pips(work: Image, d: _Die, body: LoneBody) -> _Die:
    """``d`` read again by the single-face counter on its own lone ``body`` (work pixels)
    when that body is much bigger than the face its pips were fitted to; the counter's
    reading stands when it is sure and counts more pips there. When it surely counts the
    same pips and the face lies in the body's middle, ``d`` keeps its reading and learns
    its body's side (``body_side``, see :func:`_doubt_small`). A face left uncertain is
    read by a sure count of its body, whatever their sizes, up to a body
    ``_BODY_OVER_FACE_MOST`` times the face's side (beyond that it is no die's body).

    A face fitted far smaller than its die is often a face with pips missed (a six's row
    read as a three, a five's corner and centre as a two), and pips are missed far more
    often than invented: measured on the shared photos, when the two readings differed
    the one with more pips was right 14 times in 16, the one with fewer 6 in 7.
    """
    body_side = body.side
    # A four left uncertain as a six's corners is counted as a four. Any other face left
    # uncertain is counted whatever its size: the counter sees the whole die where the pip
    # reader doubted its grid (a glint beside the pips, pips of unlike sizes); on the shared
    # photos such counts read 19 of nell's uncertain dice and 3 of matteop65's, all right.
    seen = 4 if d.six_corners else d.value
    if seen is not None and (seen == 6 or body_side < _BODY_OVER_FACE * d.size):
        return d
    if body_side > _BODY_OVER_FACE_MOST * d.size:
        return d
    crop, x0, y0 = window(work, d.center, 0.7 * body_side)
    face = read_face(crop)
    if face.value is None or face.confidence < _SURE_COUNT:
        return d
    if seen is not None and face.value < seen:
        return d
    if face.value == seen:
        if d.value is None:
            return d
        # Both counters see the same face, in the middle of its body: a die whose pips sit
        # closer together than the common layout's, its side the body's.
        off = np.hypot(d.center[0] - body.center[0], d.center[1] - body.center[1])
        if off > _MIDDLE_OF_BODY * body_side:
            return d
        return d._replace(body_side=body_side)
    counted = _counted(d, face, x0, y0, body_side, float(np.deg2rad(body.turn)))
    if counted is None:
        return d
    if seen is None:
        # Read by its body's count alone: as sure as two counters that agree, at most.
        return counted._replace(confidence=min(face.confidence, _AGREED))
    return counted


def _counted(d: _Die, face: FaceCount, x0: int, y0: int, side: float, turn: float) -> _Die | None:
    """``d`` with the value the single-face counter read on a window (top-left corner
    ``x0, y0``) of a die ``side`` work pixels wide turned ``turn`` radians, or None when the
    pips it counted lie off ``d``'s face (the pips of a die beside it)."""
    pips = np.array(face.pips, np.float32)
    centre = (float(pips[:, 0].mean()) + x0, float(pips[:, 1].mean()) + y0)
    if np.hypot(centre[0] - d.center[0], centre[1] - d.center[1]) > 0.35 * side:
        return None
    size = max(d.size, _BODY_SHARE * side)
    return d._replace(
        value=face.value,
        center=centre,
        size=size,
        confidence=min(d.confidence, face.confidence),
        outline=_square(centre, size, turn),
        axes=None,
    )


def _body_die(b: BodyDie, params: ReaderParams) -> tuple[float, _Die]:
    """A die read by its body as a (mean pip diameter, die) pair; uncertain below
    ``params.min_confidence``."""
    value = b.value if b.confidence >= params.min_confidence else None
    doubt = "" if value is not None else b.doubt or doubts.loose(b.value)
    return b.pip_diam, _Die(
        value, b.center, b.size, b.confidence, b.outline, layout=b.value, doubt=doubt
    )


def _second_opinion(work: Image, d: _Die, dice: list[tuple[float, _Die]]) -> _Die:
    """``d`` read when it was left uncertain but the single-face counter, on a window as big
    as the photo's dice around it, surely counts the layout its pips were fitted to.

    Two counters that share nothing but the pixels agree: a one whose face could not be told
    apart from a touching die of its colour, say, or a face with a glint beside its pips.
    """
    if d.value is not None or d.layout == 0 or d.doubt == doubts.GLARE:
        # (Glare hides a pip from both counters alike.)
        return d
    sides = [o.size for _diam, o in dice if o.value is not None]
    side = float(np.median(sides)) if sides else d.size
    if side < _SECOND_LEAST_SIDE:
        return d  # too few pixels for two counters to see more than the same blur
    # With no die read to tell the photo's size, the face's own may be a part of its die
    # (a row of a six fits a three): the counter must count the same on a window that
    # would hold that whole die too.
    halves = (0.75 * side,) if sides else (0.75 * side, _PART_REACH * side)
    for half in halves:
        crop, _x0, _y0 = window(work, d.center, half)
        if min(crop.shape[:2]) < 0.75 * side:
            return d
        # No size hint: the counter then centres on the die's own silhouette, so a lone
        # pip off its die's centre (a two with a pip lost) is no one.
        face = read_face(crop)
        if face.value != d.layout or face.confidence < _SURE_COUNT:
            return d
    return d._replace(value=d.layout, confidence=min(face.confidence, _AGREED))


#: How much finer than the decoded photo the window of a die asked about is read from the
#: photo's own pixels (:func:`_own_pixels_opinion`): a phone's photo is decoded at a
#: quarter of its size, where its dice's pips are 3-5 px; twice that shows them 6-10 px wide.
_OPINION_ZOOM = 2.0
#: The fewest pips that counter's count of a die asked about is taken with.
_OPINION_LEAST = 3


def _own_pixels_opinion(
    image: Image,
    dice: list[tuple[float, _Die]],
    scale_x: float,
    scale_y: float,
    finer: Finer | None,
) -> list[tuple[float, _Die]]:
    """The dice asked about read when a counter surely counts three pips or more on a window
    around them :data:`_OPINION_ZOOM` times finer than the decoded photo ``image``: from the
    photo's own pixels where it was decoded reduced (``finer``), else enlarged. The counter
    is the single-face counter, else the peaks of the pips' hue (:func:`_opinion`).

    The pips of a phone photo's dice are 3-5 px at the size it is read at: a face whose pips
    ran together or faded there (a six's rows taken for a three's, a four with a speck on an
    empty pip place) shows them apart at twice that, and the counter, which looks at one
    die's window alone, sees them. It is told the dice's size (the median side of the dice
    read), so a part of a die does not pass for a face. A one or a two is not taken from
    it (a speck or a shadow makes a pip as often as not): on the labelled photos, read from
    the photo enlarged (their own size is all they have), ones and twos taken from it read
    16 more dice right and misread 8 more. A four asked about as "a 4 or a 6"
    (:data:`doubts.SIX_CORNERS`) is only taken as a six: a count of four is the question
    itself. Some doubts are not asked again (:data:`_NOT_ASKED_AGAIN`).
    """
    asked = [d.value is None and d.doubt not in _NOT_ASKED_AGAIN for _diam, d in dice]
    sides = [d.size for _diam, d in dice if d.value is not None]
    if not any(asked) or not sides:
        return dice
    # The photo's own pixels as they are, else the decoded photo's windows enlarged.
    more = _finer_pixels(image, finer, _OPINION_ZOOM)
    source, zoom = (image, _OPINION_ZOOM) if more is None else (more, 1.0)
    fx = source.shape[1] / image.shape[1] / scale_x  # work pixels to the source's
    fy = source.shape[0] / image.shape[0] / scale_y
    side = float(np.median(sides)) * 0.5 * (fx + fy)
    seen = zoom * side
    out = []
    for (diam, d), ask in zip(dice, asked, strict=True):
        if ask:
            crop, _x0, _y0 = window(source, (d.center[0] * fx, d.center[1] * fy), 0.75 * side)
            if zoom != 1.0:
                crop = np.asarray(
                    cv2.resize(crop, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC),
                    np.uint8,
                )
            if min(crop.shape[:2]) >= 1.4 * seen:
                d = _opinion(d, crop, seen)
        out.append((diam, d))
    return out


def _opinion(d: _Die, crop: Image, seen: float) -> _Die:
    """``d``, asked about, read from ``crop`` (a die ``seen`` pixels wide in its middle) when
    a counter is sure of three pips or more there (see :func:`_own_pixels_opinion`): the
    single-face counter (sure at ``_SURE_COUNT``), else the peaks of its pips' hue
    (:func:`vision._count.count_hue_peaks`, sure at ``_HUE_PEAKS_SURE``). A body whose pips
    could not be counted was counted by the single-face counter already
    (:func:`_read_blobs`): only its pips' hue is looked at."""
    least = 6 if d.doubt == doubts.SIX_CORNERS else _OPINION_LEAST
    counters: list[tuple[Callable[[], FaceCount], float]] = [
        (lambda: count_hue_peaks(crop), _HUE_PEAKS_SURE)
    ]
    if d.doubt != doubts.BODY_ONLY:
        counters.insert(0, (lambda: read_face(crop, hint_size_px=seen), _SURE_COUNT))
    for count, sure in counters:
        face = count()
        if face.value is not None and face.value >= least and face.confidence >= sure:
            return d._replace(value=face.value, confidence=min(face.confidence, _AGREED), doubt="")
    return d


#: Dice asked about that :func:`_own_pixels_opinion` leaves asked: glare hides a pip from
#: any pixels; a face cut by the photo's edge or crowded by another is no question of
#: pixels. (A body whose pips could not be counted is asked only about its pips' hue: the
#: single-face counter counted it on its own window already, :func:`_read_blobs`, and asked
#: again on the labelled photos it read 5 more right and a black six with run-together red
#: pips as a three.)
_NOT_ASKED_AGAIN = (
    doubts.GLARE,
    doubts.WASHED_OUT,
    doubts.PAST_FRAME,
    doubts.CROWDED,
)
#: How sure a count of a die's pips by their hue's peaks must be to be taken
#: (:func:`_opinion`): on the labelled photos every count taken at 0.4 was right.
_HUE_PEAKS_SURE = 0.5


def _recounted(work: Image, dice: list[tuple[float, _Die]]) -> list[tuple[float, _Die]]:
    """The dice with their small twos and threes counted again (:func:`_recount`). Two
    faces read on one die (a six's two rows, each fitted as a three) are both counted again
    as that die: a die counted again onto a die already kept (:func:`_overlaps`) is left out."""
    sides = [d.size for _diam, d in dice if d.value is not None]
    if not sides:
        return dice
    side = float(np.median(sides))
    out: list[tuple[float, _Die]] = []
    for diam, d in dice:
        again = _recount(work, d, side)
        if again is not d and any(_overlaps(again, o) for _od, o in out):
            continue
        out.append((diam, again))
    return out


def _recount(work: Image, d: _Die, side: float) -> _Die:
    """``d``, a two or a three, counted again by the single-face counter on a window as big
    as the photo's dice (``side``, their median side) around it. When the counter sees more
    pips about the same place, its reading is taken if it is sure, and ``d`` is made
    uncertain if it is not.

    A two or three is what the pip search leaves of a four, five or six whose other pips it
    missed (faint, or run into a touching die's edge or its own side face). :func:`_more_pips`
    asks the same of a die whose own body was found; this asks every two and three, so dice
    touching others (which have no body of their own) are asked too.
    Only faces fitted smaller than ``_SHORT_FACE`` of the photo's dice are asked: the pips of
    a six's column or a five's corner and centre span less than the die (10 of the 11 faces
    this mended on the held-out renders did), and the counter costs about 9 ms a die. A one
    is not asked: around a lone pip, a camera looking aslant shows the pips of its side faces
    (on matteop65's photos five ones were read as twos so).
    """
    # A two or three asked about for its turn against its die's edges (:func:`_as_turned`)
    # is a six's row or diagonal as often as a two beside a wall: it is counted again too.
    value = d.layout if d.value is None and d.doubt == doubts.TURNED else d.value
    if value not in (2, 3):
        return d
    if d.size >= _SHORT_FACE * side or side < _RECOUNT_LEAST_SIDE:
        return d
    crop, x0, y0 = window(work, d.center, 0.75 * side)
    face = read_face(crop)
    if face.value is None or face.value <= value:
        return d
    edge = np.subtract(d.outline[1], d.outline[0]) if len(d.outline) > 1 else (1.0, 0.0)
    counted = _counted(d, face, x0, y0, side, float(np.arctan2(edge[1], edge[0])))
    if counted is None:
        return d
    if face.confidence < _SURE_COUNT:
        return d._replace(value=None, confidence=min(d.confidence, DOUBTED), doubt=doubts.MORE_PIPS)
    return counted


def _anywhere(
    work: Image, dice: list[tuple[float, _Die]], params: ReaderParams
) -> tuple[list[tuple[float, _Die]], list[tuple[float, float, float]], list[UnsureBody]]:
    """The uncertain ``dice`` of a photo where no face was read, with the dice its bodies
    read (work-image pixels; a die read there replaces the uncertain one it lies on, and an
    uncertain one ``_NOT_A_DIE`` times their side or more is dropped), the die-sized bodies
    whose pips could not be counted, ``(x, y, side)`` in work pixels, and
    those of them that are dice all the same (:attr:`vision._bodies.BodyPass.unsure`)."""
    found = find_dice_anywhere(work, min_confidence=params.min_confidence)
    bodies = [_body_die(b, params) for b in found.dice]
    kept = [
        (diam, d)
        for diam, d in dice
        if not any(_shadowed(d, diam, b, b_diam) for b_diam, b in bodies)
    ]
    if bodies:
        # A face asked about many times the size of the dice read by their bodies is none of
        # them (a "one" grown over the floor around a face washed out by a flash): it would
        # hide the dice asked about where it lies (:func:`_with_unsure_bodies`).
        side = float(np.median([b.size for _b_diam, b in bodies]))
        kept = [(diam, d) for diam, d in kept if d.value is not None or d.size < _NOT_A_DIE * side]
    return kept + bodies, found.unread, found.unsure


#: The most a window of a photo decoded reduced is read enlarged from the photo's own
#: pixels (:func:`_read_blobs`): a phone's photo is first decoded at a quarter of its size.
_FINEST = 4.0

#: A face asked about this many times the side of the dice read by their bodies is no die.
_NOT_A_DIE = 3.0


def _read_blobs(
    image: Image,
    dice: list[tuple[float, _Die]],
    blobs: list[tuple[float, float, float]],
    reading: _Scaled,
    params: ReaderParams,
    finer: Finer | None = None,
) -> list[tuple[float, _Die]]:
    """The dice with those read, enlarged, in windows around die-sized ``blobs`` (work
    pixels ``(x, y, side)``) whose pips neither reading could count at the work size; read
    from the photo's own pixels when ``finer`` has more of them (:func:`_finer_source`).

    A face read there is checked against the edges around it as a face read on a lone body
    is (:func:`_body_dice`): a six whose pips no count could read may be fitted there,
    enlarged, as a two across two of its pips (:func:`_not_turned`)."""
    scale_x, scale_y = reading.scale_x, reading.scale_y
    scale = 0.5 * (scale_x + scale_y)
    out = list(dice)
    # Pips about _BLOB_PIP_PX wide: a die's pip spans about a fifth of its side. A window
    # is small: from the photo's own pixels it may be read as finely as they go.
    wanted = [_BLOB_PIP_PX / (_PIP_OF_SIDE * side) * scale for _x, _y, side in blobs]
    zooms = [min(z, 2.0 * scale, 2.0) if finer is None else min(z, _FINEST) for z in wanted]
    if not any(zoom >= 1.2 * scale for zoom in zooms):
        return out
    # One source for every window, as fine as the finest of them asks.
    source, sx, sy, src_params = _finer_source(image, finer, max(zooms), params)
    for (x, y, side), zoom in zip(blobs, zooms, strict=True):
        if zoom < 1.2 * scale:
            continue
        blob = _Die(None, (x, y), side, 0.0, ())
        windows = _read_windows(
            source, [(0.0, blob)], scale_x / sx, scale_y / sy, zoom / sx, src_params
        )
        for diam, d in windows:
            if d.value is None or d.confidence < params.small_pip_min_confidence:
                continue
            if np.hypot(d.center[0] - x, d.center[1] - y) > 0.8 * side:
                continue
            if _on_a_reading(d, out):
                continue
            out.append((diam, _not_turned(reading.work, d)))
    return out


def _edges_turn(work: Image, d: _Die) -> float | None:
    """The turn of the edges around a two or three ``d`` (:func:`edge_turn`), or None for
    other faces and where the edges agree on no turn."""
    if d.value not in (2, 3):
        return None
    turn, order = edge_turn(work, d.center, _TURN_WINDOW * d.size)
    return turn if order >= _LEAST_EDGE_ORDER else None


def _turned_against(d: _Die, edges_turn: float | None) -> bool:
    """Whether a two or a three was fitted about 45 degrees off its die's body.

    Their pips lie on the face's diagonal, so the face square is set by that line alone:
    a row of a six whose other row was lost fits a three turned 45 degrees, and the ends
    of it a two. The body's edges show the true turn (:func:`_edges_turn`).

    Measured on nell_byler_d6's lone twos and threes (session 23): the turn of the least
    rectangle around the body's blob was off right faces by over 30 degrees for 15 of 279
    (a small die's blob, its corners rounded by its shadow and the opening, comes out
    upright), and caught 4 of the 6 misread; the edges' own turn, where they agree on one
    (0.1 or more; 30 right faces had less), is off no right face by over 20 degrees and
    catches 5 of the 6. (A session diagnostic that logged both turns; its figures are in
    that session's closing note, and no project command reproduces them.)
    """
    if edges_turn is None or d.value not in (2, 3) or len(d.outline) < 2:
        return False
    (x0, y0), (x1, y1) = d.outline[0], d.outline[1]
    face_turn = float(np.degrees(np.arctan2(y1 - y0, x1 - x0))) % 90.0
    return abs((face_turn - edges_turn + 45.0) % 90.0 - 45.0) > _TURN_OFF


def _apart(d: _Die, dice: list[tuple[float, _Die]]) -> bool:
    """Whether no other die of ``dice`` lies within ``_APART`` sides (the larger of the two)
    of ``d``: then the edges around ``d`` are its own, not a neighbour's.

    Measured on the shared sets and 48 fresh renders (session 42): the turn of the edges
    around twos and threes without a lone body, checked for every one of them, left 11 of
    nell's right twos and threes asked about (their neighbours' edges measured as theirs);
    checked only for those apart, it left no right die asked about there and caught two of
    the renders' eight misread (a red six and a green four read as twos across their pips,
    their bodies merged with a shadow or a wall); counted again (:func:`_recount`), the four
    is then read right."""
    return not _on_a_reading(d, [(od, o) for od, o in dice if o is not d], _APART)


#: Dice closer than this many sides (centre to centre) may touch (1.41 corner to corner),
#: with a little room for the sides read short.
_APART = 1.6


def _not_turned(work: Image, d: _Die) -> _Die:
    """``d``, made uncertain when it is a two or a three turned against the edges around it
    in ``work`` (:func:`_turned_against`)."""
    return _as_turned(d) if _turned_against(d, _edges_turn(work, d)) else d


def _as_turned(d: _Die) -> _Die:
    """``d`` asked about for a face turned against its body."""
    return d._replace(value=None, confidence=min(d.confidence, DOUBTED), doubt=doubts.TURNED)


def _scaled_die(d: _Die, fx: float, fy: float) -> _Die:
    """``d`` with its positions and size multiplied by ``fx`` (x) and ``fy`` (y)."""
    return d._replace(
        center=(d.center[0] * fx, d.center[1] * fy),
        size=d.size * 0.5 * (fx + fy),
        outline=tuple((x * fx, y * fy) for x, y in d.outline),
        axes=_scaled_axes(d.axes, fx, fy),
        pips=tuple((x * fx, y * fy) for x, y in d.pips),
    )


def _read_scaled(image: Image, scale: float, params: ReaderParams) -> _Scaled:
    """Read ``image`` resized by ``scale``: (mean pip diameter, die) pairs, the number of pip
    candidates, the x and y scales and the resized image."""
    h, w = image.shape[:2]
    if scale < 0.99 or scale > 1.01:
        interpolation = cv2.INTER_CUBIC
        if scale < _NEAR_WORK:
            interpolation = cv2.INTER_LINEAR
        if scale < 1.0 / _NEAR_WORK:
            interpolation = cv2.INTER_AREA
        work: Image = np.asarray(
            cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=interpolation),
            dtype=np.uint8,
        )
        scale_x, scale_y = work.shape[1] / w, work.shape[0] / h
    else:
        work, scale_x, scale_y = image, 1.0, 1.0
    dice, n_candidates, stark_diam, faces = _read_work(work, params)
    return _Scaled(dice, n_candidates, scale_x, scale_y, work, stark_diam, faces)


def read_bytes(
    data: bytes,
    *,
    params: ReaderParams = DEFAULTS,
    profile: TrayProfile | None = None,
    tray_flags: bool = True,
) -> TrayReading:
    """Decode an encoded photo (JPEG, PNG, WebP, HEIC, ...) and read it; timing covers decoding.

    Large JPEGs are decoded directly at a reduced size (never below ``params.work_max_side``).
    Positions are in the pixels of the photo as displayed at full size (EXIF orientation
    applied). With ``tray_flags`` the tray floor is found (from ``profile`` when given, else
    in the photo) and dice off the floor or leaning are flagged. Raises
    :class:`~vision.errors.ImageDecodeError` for bytes that are not an image.
    """
    start = time.perf_counter()
    decoded = decode(data, max_side=params.work_max_side)
    image = decoded.image_bgr
    finer = _finer_decoder(data, decoded)
    tray: TrayOutline | None = None
    notes: tuple[str, ...] = ()
    if tray_flags:
        flagged = read_flagged(image, params=params, profile=profile, finer=finer)
        dice, tray, notes = flagged.dice, flagged.tray, flagged.notes
    else:
        dice = read_array(image, params=params, finer=finer)
    if decoded.scale != 1.0:
        dice = tuple(rescaled(d, 1.0 / decoded.scale) for d in dice)
        if tray is not None:
            tray = rescaled_tray(tray, 1.0 / decoded.scale)
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    return TrayReading(
        width=decoded.width,
        height=decoded.height,
        elapsed_ms=elapsed_ms,
        dice=dice,
        tray=tray,
        notes=notes,
    )


def _finer_decoder(data: bytes, decoded: DecodedImage) -> Finer | None:
    """:data:`Finer` for a photo decoded reduced (None for one decoded at full size): the
    bytes decoded again at the smallest reduction that is at least ``factor`` times the
    first decode's size (the full size at most)."""
    if decoded.scale >= 1.0:
        return None
    long_side = max(decoded.image_bgr.shape[:2])
    full_side = max(decoded.width, decoded.height)
    # Decoded once per reduction: the windows of several dice ask for the same.
    done: dict[int, Image | None] = {}

    def finer(factor: float) -> Image | None:
        if factor <= 1.0:
            return None
        k = reduction_factor(full_side, math.ceil(factor * long_side))
        if k not in done:
            try:
                done[k] = decode(data, max_side=math.ceil(full_side / k)).image_bgr
            except VisionError:
                done[k] = None
        return done[k]

    return finer


def read_flagged(
    image_bgr: npt.NDArray[np.uint8],
    *,
    params: ReaderParams = DEFAULTS,
    profile: TrayProfile | None = None,
    finer: Finer | None = None,
) -> FlagResult:
    """Read a decoded photo and flag its dice (:func:`read_array`, then
    :func:`vision.flags.apply_flags`), in its pixels.

    A die found off the tray must show pips that stand out from the table around it
    (:func:`_stands_out`; the reader measures only faces of one or two pips and unread
    ones itself): a "die" of more pips on a wooden table, its pips the grain's knots, would
    otherwise be called off the tray and asked to be rolled again.
    """
    flagged = apply_flags(
        image_bgr, read_array(image_bgr, params=params, finer=finer), profile=profile
    )
    off = [
        "off_tray" in d.flags and d.value is not None and d.value > _FEW_PIPS for d in flagged.dice
    ]
    if not any(off):
        return flagged
    grey: Image = np.asarray(cv2.cvtColor(_validate(image_bgr), cv2.COLOR_BGR2GRAY), np.uint8)
    kept = tuple(
        d
        for d, measured in zip(flagged.dice, off, strict=True)
        if not measured or _stands_out(grey, d.center, d.size_px)
    )
    return FlagResult(dice=kept, tray=flagged.tray, notes=flagged.notes)


def read_path(
    path: str | Path, *, params: ReaderParams = DEFAULTS, profile: TrayProfile | None = None
) -> TrayReading:
    """Read the photo stored at ``path`` (any format ``read_bytes`` accepts)."""
    return read_bytes(Path(path).read_bytes(), params=params, profile=profile)


def reading_order(dice: list[DieReading] | tuple[DieReading, ...]) -> tuple[DieReading, ...]:
    """Sort dice into rows (top to bottom) and each row left to right.

    A die joins a row when its centre is within half a die of the row's mean height, so a
    row of dice slightly out of line still reads left to right.
    """
    if not dice:
        return ()
    size = float(np.median([d.size_px for d in dice])) or 1.0
    rows: list[list[DieReading]] = []
    for d in sorted(dice, key=lambda d: d.center[1]):
        if rows:
            row_y = float(np.mean([e.center[1] for e in rows[-1]]))
            if abs(d.center[1] - row_y) <= 0.6 * size:
                rows[-1].append(d)
                continue
        rows.append([d])
    return tuple(d for row in rows for d in sorted(row, key=lambda d: d.center[0]))


def _scaled_point(p: tuple[float, float], factor: float) -> tuple[float, float]:
    """A pixel position in an image ``factor`` times as large (pixel centres kept aligned)."""
    return ((p[0] + 0.5) * factor - 0.5, (p[1] + 0.5) * factor - 0.5)


def rescaled(d: DieReading, factor: float) -> DieReading:
    """The reading in the pixels of the same photo ``factor`` times as large."""
    return replace(
        d,
        center=_scaled_point(d.center, factor),
        size_px=d.size_px * factor,
        outline=tuple(_scaled_point(p, factor) for p in d.outline),
        face_axes=_scaled_axes(d.face_axes, factor, factor),
    )


def rescaled_tray(tray: TrayOutline, factor: float) -> TrayOutline:
    """The tray outline in the pixels of the same photo ``factor`` times as large."""
    return TrayOutline(tuple(_scaled_point(p, factor) for p in tray.polygon))


def _validate(image_bgr: npt.NDArray[np.uint8]) -> Image:
    if not isinstance(image_bgr, np.ndarray):
        raise TypeError(f"image_bgr must be a numpy array, got {type(image_bgr).__name__}")
    if image_bgr.dtype != np.uint8:
        raise ValueError(f"image_bgr must have dtype uint8, got {image_bgr.dtype}")
    if image_bgr.ndim == 2:
        return np.asarray(cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError(f"image_bgr must have shape (H, W, 3), got {image_bgr.shape}")
    if min(image_bgr.shape[:2]) < 8:
        raise ValueError(f"image_bgr is too small to hold a die: {image_bgr.shape[:2]}")
    return np.ascontiguousarray(image_bgr)


def _read_work(
    work: Image, params: ReaderParams
) -> tuple[list[tuple[float, _Die]], int, float, _Checked | None]:
    """Find and read dice on the work image: (mean pip diameter, die) pairs, both in its
    pixels, the number of pip candidates they came from, the stark pips' diameter and the
    faces the dice were chosen from (:func:`_select`; none for a stretched reading).

    A photo taken aslant flattens every top face, and its pips, along the direction the
    camera looks; the grid fits want square faces. When the photo's stark pips say so (all
    flattened alike, in one direction), the photo is read again stretched back along that
    direction, and that reading is kept when it reads far more dice, or better where the
    first reading read (:func:`_more_pips_in_place`).
    """
    dice, n_candidates, stark, faces = _read_plain(work, params)
    if stark.aslant is None:
        return dice, n_candidates, stark.diam, faces
    squash, minor = stark.aslant
    h, w = work.shape[:2]
    stretch, back, size = _stretch(w, h, 1.0 / squash, minor)
    stretched: Image = np.asarray(
        cv2.warpAffine(
            work, stretch, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        ),
        dtype=np.uint8,
    )
    again, n_again, _again_stark, _again_faces = _read_plain(stretched, params)
    # Kept when it reads far more, or reads better where the first reading read and nothing
    # beside it: stretched back, the side faces a camera looking aslant sees are as square
    # as the top faces, and some read as dice.
    first = sum(d.value is not None for _diam, d in dice)
    far_more = sum(d.value is not None for _diam, d in again) >= _ASLANT_GAIN * first + 2
    shrink = float(np.sqrt(squash))
    mapped = []
    for diam, d in again:
        n_outline = len(d.outline)
        pts = np.array([d.center, *d.outline, *d.pips], np.float64)
        pts = np.column_stack([pts, np.ones(len(pts))]) @ back.T
        mapped.append(
            (
                diam * shrink,
                d._replace(
                    center=(float(pts[0, 0]), float(pts[0, 1])),
                    size=d.size * shrink,
                    outline=tuple((float(x), float(y)) for x, y in pts[1 : 1 + n_outline]),
                    axes=_mapped_axes(d.axes, back),
                    pips=tuple((float(x), float(y)) for x, y in pts[1 + n_outline :]),
                ),
            )
        )
    if not far_more and not _more_pips_in_place(dice, mapped):
        return dice, n_candidates, stark.diam, faces
    return mapped, n_again, stark.diam, None


def _more_pips_in_place(first: list[tuple[float, _Die]], again: list[tuple[float, _Die]]) -> bool:
    """Whether the stretched reading ``again`` (mapped back) reads better where the first
    reading read, and nothing beside it: every die of the first lies on a read die of
    ``again``; every other die of ``again`` lies ``_APART`` die sides or more from the
    first's dice; the faces ``again`` reads are alike in size (``_ALIKE_SIZES``); and
    ``again`` reads more pips in all, or as many on fewer dice (a six seen aslant whose two
    columns were read as two threes, a lone six not read at all, a five read as a three
    among dice that were missed)."""
    read = [d for _diam, d in again if d.value is not None]
    if not read:
        return False
    sizes = [d.size for d in read]
    if max(sizes) > _ALIKE_SIZES * min(sizes):
        # A face fitted across a top face and its side face is bigger than the dice beside it.
        return False
    for _diam, d in first:
        if not any(
            np.hypot(d.center[0] - o.center[0], d.center[1] - o.center[1]) < 0.5 * o.size
            for o in read
        ):
            return False
    # A die the first reading did not read must lie apart from every die it read: the side
    # face of a die read, stretched back about as square as its top, lies right beside it.
    for _diam, o in again:
        beside = [
            np.hypot(d.center[0] - o.center[0], d.center[1] - o.center[1]) / max(d.size, o.size)
            for _diam, d in first
        ]
        if beside and min(beside) >= 0.5 and min(beside) < _APART:
            return False
    pips, pips_again = sum(d.value or 0 for _diam, d in first), sum(d.value or 0 for d in read)
    # As many pips on fewer dice: a face's pips read as parts of two faces.
    return pips_again > pips or (pips_again == pips and len(read) < len(first))


#: A die read only stretched back lies this many die sides or more from every die the first
#: reading read (:func:`_more_pips_in_place`).
_APART = 1.6
#: ... and its read dice are alike in size to this ratio (within a photo perspective makes
#: them differ by less).
_ALIKE_SIZES = 1.5


class _Stark(NamedTuple):
    """What a photo's stark pip candidates (thrice the least contrast, on a ring of one face
    colour: they stand out as only pips do, whether or not a face was read around them)
    say of how it was taken."""

    #: Their median roundness, or None with fewer than ``_ASLANT_PIPS`` of them: how much a
    #: camera looking aslant flattens the pips.
    squash: float | None
    #: ``(squash, direction)`` when they are flattened, at the median, below ``_ASLANT`` in
    #: one direction (radians in [0, pi)), else None.
    aslant: tuple[float, float] | None
    #: Median diameter of the bigger half of the round ones (0 with fewer than
    #: ``_STARK_PIPS``): the pips' size in a close-up whose faces were all spoiled.
    diam: float


def _stark(
    cands: PipCandidates,
    params: ReaderParams,
    speckled: PipCandidates | None = None,
    planes: npt.NDArray[np.uint8] | None = None,
) -> _Stark:
    """Measure the stark candidates of ``cands`` once (see :class:`_Stark`).

    The round blobs left out for the specks in them (``speckled``, see
    :class:`vision._pips.PipSearch`) count towards the pips' size too: in a close-up whose
    mottled pips all hold specks, they are the pips. With ``planes``, blobs that are
    squares (:func:`_square_blob`: whole dice, light on a dark floor) do not count.
    """

    def is_stark(c: PipCandidates) -> npt.NDArray[np.bool_]:
        return (c.contrast >= 3.0 * params.min_pip_contrast) & (c.uniformity >= 0.8)

    stark = is_stark(cands)
    sized = stark & (cands.roundness >= _ROUND_ONE)
    if planes is not None:
        for k in np.flatnonzero(sized & (cands.diam >= _SHAPED_BLOB)).tolist():
            sized[k] = not _square_blob(planes, cands, k)
    d = cands.diam[sized]
    if speckled is not None and len(speckled):
        d = np.concatenate(
            [d, speckled.diam[is_stark(speckled) & (speckled.roundness >= _ROUND_ONE)]]
        )
    diam = 0.0
    if d.shape[0] >= _STARK_PIPS:
        diam = float(np.median(d[d >= np.median(d)]))
    if int(stark.sum()) < _ASLANT_PIPS:
        return _Stark(None, None, diam)
    squash, aslant = _flattened(cands.roundness[stark], cands.minor[stark])
    return _Stark(squash, aslant, diam)


def _flattened(
    roundness: npt.NDArray[np.float32], minor: npt.NDArray[np.float32]
) -> tuple[float, tuple[float, float] | None]:
    """The median ``roundness`` of some pips, and ``(squash, direction)`` when they are
    flattened below ``_ASLANT`` at the median and their shortest widths (``minor``) agree
    in direction (see :class:`_Stark`), else None."""
    squash = float(np.median(roundness))
    if squash >= _ASLANT:
        return squash, None
    # A round pip's shortest width points anywhere: only the flattened ones say which way.
    direction = _agreed_direction(minor[roundness < _ASLANT])
    if direction is None:
        return squash, None
    return squash, (max(squash, 0.4), direction)


def _agreed_direction(minor: npt.NDArray[np.float32]) -> float | None:
    """The direction (radians in [0, pi)) that pips' shortest widths ``minor`` agree on, or
    None when they do not agree to ``_ASLANT_AGREE`` (the length of their mean doubled-angle
    vector)."""
    doubled = 2.0 * minor.astype(np.float64)
    c, s = float(np.cos(doubled).mean()), float(np.sin(doubled).mean())
    if np.hypot(c, s) < _ASLANT_AGREE:
        return None
    return 0.5 * float(np.arctan2(s, c)) % np.pi


def _stretch(
    width: int, height: int, factor: float, direction: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], tuple[int, int]]:
    """Affine maps (2x3) that stretch an image ``factor`` times along ``direction``
    (radians) and shift it to start at (0, 0), and back; and the stretched image's
    ``(width, height)``."""
    m = np.array([np.cos(direction), np.sin(direction)])
    lin = np.eye(2) + (factor - 1.0) * np.outer(m, m)
    corners = np.array([[0, 0], [width, 0], [0, height], [width, height]], np.float64) @ lin.T
    shift = -corners.min(axis=0)
    forward = np.column_stack([lin, shift])
    inv = np.linalg.inv(lin)
    backward = np.column_stack([inv, -inv @ shift])
    extent = corners.max(axis=0) + shift
    return forward, backward, (int(np.ceil(extent[0])), int(np.ceil(extent[1])))


def _read_plain(
    work: Image, params: ReaderParams
) -> tuple[list[tuple[float, _Die]], int, _Stark, _Checked]:
    """:func:`_read_work` without the second look at a photo taken aslant; with what the
    stark pip candidates say (:class:`_Stark`)."""
    planes = make_planes(work)
    search = find_pip_candidates(work, planes, params)
    cands, speckled = search.cands, search.speckled
    if len(cands) == 0:
        return [], 0, _Stark(None, None, 0.0), _Checked((), False)
    stark = _stark(cands, params, speckled, planes)
    blur: Image = np.asarray(cv2.GaussianBlur(work, (3, 3), 0), dtype=np.uint8)
    face_params = _seen_aslant(stark.squash, params)
    fits: list[FaceFit] = []
    # The cluster each face of three pips or more came from, when it shared its cluster.
    clusters: dict[tuple[int, ...], npt.NDArray[np.intp]] = {}
    clusters_linked = link_pips(cands, planes, params)
    texture = texture_level(cands, clusters_linked, params)
    for linked in clusters_linked:
        members = without_texture(cands, linked, texture)
        if members.shape[0] == 0:
            continue
        if members.shape[0] == 1:
            fits.append(single_pip(cands, int(members[0])))
            continue
        found = fit_cluster(cands, members, params)
        if len(found) > 1 and members.shape[0] <= _REFIT_MOST:
            clusters.update((f.members, members) for f in found if f.value >= 3)
        fits.extend(found)
    checked = []
    face_pips: set[int] = set()
    # The twos kept, for _stranded.
    pairs: list[tuple[FaceFit, _Die]] = []

    def keep(fit: FaceFit, die: _Die) -> None:
        diam = float(np.mean(cands.diam[list(fit.members)]))
        colour_only = int(cands.channel[fit.members[0]]) > 0
        checked.append((colour_only, -diam * float(np.sqrt(die.squash)), diam, die))
        face_pips.update(fit.members)
        if fit.value == 2:
            pairs.append((fit, die))

    refused_ones: list[FaceFit] = []
    # Each fit with whether only a sure reading of it counts.
    pending = [(fit, False) for fit in fits]
    while pending:
        fit, sure_only = pending.pop()
        die = _check_face(fit, cands, planes, blur, face_params)
        if (
            die is None
            and fit.value == 1
            and _only_face_test_refuses(fit, cands, face_params)
            and _flattened_as_photo(fit, cands, stark.aslant)
        ):
            # Only a sure one so (a side face's pip seen as aslant is as flattened).
            one = _check_face(fit, cands, planes, blur, _one_aslant(face_params))
            die = one if one is not None and one.value is not None else None
        if die is None:
            if fit.value == 1 and not sure_only:
                refused_ones.append(fit)
            if fit.value == 2:
                # A rejected pair may be a one with a stray blob beside its pip.
                pending.extend((single_pip(cands, k), False) for k in fit.members)
            else:
                refit = _stark_face(fit, cands, params)
                if refit is not None:
                    pending.append((refit, False))
                cluster = clusters.pop(fit.members, None)
                if cluster is not None:
                    # Only a sure reading of such a face counts.
                    pending.extend((f, True) for f in _other_faces(cands, cluster, fit, params))
            continue
        if sure_only and die.value is None:
            continue
        pips = list(fit.members)
        if fit.value == 2 and _doubtful_two(die, cands.roundness[pips], cands.diam[pips]):
            # A doubtful pair (its pips unlike) may be a one's pip paired with a pip of a
            # side face or of the die beside it: a sure one there is chosen first when its
            # pip is the bigger (a top face's pip is seen face-on).
            pending.extend((single_pip(cands, k), True) for k in pips)
        keep(fit, die)
    stranded = _stranded(
        pairs, refused_ones, face_pips, cands, planes, blur, face_params, aslant=stark.aslant
    )
    for pair, parted in stranded:
        checked[:] = [t for t in checked if t[3] is not pair]
        for fit, die in parted:
            keep(fit, die)
    read_faces = [t[3] for t in checked]
    beside = _beside_faces(refused_ones, read_faces, cands, params)
    bounded = _bounded_by(blur, read_faces) if beside else blur
    for fit, alike in beside:
        die = _check_face(fit, cands, planes, bounded, face_params)
        # Touching dice of one set are one size: a one parted from them must be as big.
        if die is not None and die.size >= _BESIDE_SIZE * float(np.median([d.size for d in alike])):
            keep(fit, die)
    # Faces with bigger pips first: a top face is seen face-on, the side faces of the same
    # die beside it are foreshortened, so their pips look smaller.
    # Faces found on the grey plane before colour-only ones.
    checked.sort(key=lambda t: (t[0], t[1], -t[2]))
    aslant = stark.aslant
    if aslant is None and len(face_pips) >= _ASLANT_PIPS:
        # The photo's stark blobs may be mostly other things (a keyboard's keys, a
        # laptop's ports); the pips of the faces read say how the camera looks too.
        on_faces = np.fromiter(face_pips, np.intp)
        aslant = _flattened(cands.roundness[on_faces], cands.minor[on_faces])[1]
    upright = _looks_down_aslant(aslant)
    chosen = tuple((diam, die) for _colour, _key, diam, die in checked)
    read = [die for _diam, die in chosen]

    def colour() -> tuple[tuple[float, _Die], ...]:
        return _colour_faces(search, planes, blur, face_params, read)

    faces = _Checked(chosen, upright, colour)
    dice = _select(faces)
    # A face chosen whose pips are whole dice (:func:`_dice_as_pips`) is no face: the faces
    # it overlapped are chosen again without it. The counter is slow: only a reading of one
    # or two faces is looked into (among three or more, :func:`_drop_giants` measures each
    # face's pips against the other dice), and a face chosen in its place in turn.
    looked: set[int] = set()
    while len(dice) <= _FEW_FACES:
        hollow = [d for diam, d in dice if id(d) not in looked and _pips_are_dice(blur, diam, d)]
        looked.update(id(d) for _diam, d in dice)
        if not hollow:
            break
        chosen = tuple(f for f in chosen if all(f[1] is not g for g in hollow))
        faces = faces._replace(faces=chosen)
        dice = _select(faces)
    return dice, len(cands), stark, faces


def _partitions(items: list[int], most: int) -> Iterator[list[tuple[int, ...]]]:
    """Every way to part ``items`` into groups of at most ``most``."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for size in range(min(most, len(items))):
        for others in itertools.combinations(rest, size):
            left = [k for k in rest if k not in others]
            for tail in _partitions(left, most):
                yield [(first, *others), *tail]


def _stranded(
    pairs: list[tuple[FaceFit, _Die]],
    refused_ones: list[FaceFit],
    face_pips: set[int],
    cands: PipCandidates,
    planes: npt.NDArray[np.uint8],
    blur: Image,
    params: ReaderParams,
    *,
    aslant: tuple[float, float] | None = None,
) -> list[tuple[_Die, list[tuple[FaceFit, _Die]]]]:
    """Twos read beside pips read as nothing, read again as the faces those pips make with
    theirs: ``(two, faces)`` for each two whose pips and stranded neighbours make more sure
    faces' pips when parted otherwise.

    Any two pips fit a two. A one touching a one or a two, or two touching twos, of one
    colour: a pip of each die, paired across the crease, fits a two as well as a die's own
    pair, and the pip left over is read as nothing (not centred on its die, it is no one).
    Parted as the dice are, every pip is on a face read. In a photo taken aslant
    (``aslant``, :class:`_Stark`) a top face's one paired with a pip of the front face below
    it is parted so too, the front face's other pips left over."""
    out: list[tuple[_Die, list[tuple[FaceFit, _Die]]]] = []
    # Seen aslant, round pips are as flattened as the photo's stark pips, in proportion, and
    # a front face may leave three pips over.
    round_one = _in_proportion(_ROUND_ONE, aslant[0]) if aslant else _ROUND_ONE
    most = _STRANDED_MOST_ASLANT if aslant else _STRANDED_MOST
    taken = set(face_pips)
    lone = {fit.members[0] for fit in refused_ones} - taken
    for fit, die in pairs:
        p = np.array(fit.members, np.intp)
        diam = float(cands.diam[p].mean())
        near = [
            k
            for k in sorted(lone)
            if float(np.linalg.norm(cands.xy[p] - cands.xy[k], axis=1).min())
            <= _STRANDED_REACH * die.size
            and max(float(cands.diam[k]), diam) <= LIKE_SIZES * min(float(cands.diam[k]), diam)
            # Round pips, not the smallest specks searched.
            and float(cands.roundness[k]) >= round_one
            and float(cands.diam[k]) >= _STRANDED_LEAST * params.min_pip_px
            and float(np.linalg.norm(cands.ring_bgr[k] - np.asarray(die.face_bgr, np.float32)))
            <= params.max_face_color_dist
        ]
        if len(near) > most:
            continue
        # A two kept is a sure reading (a doubtful two is no die): two pips on one face.
        best, best_pips = None, (2, 1)
        for parts in _partitions([*fit.members, *near], 3):
            if sorted(parts) == sorted([tuple(fit.members), *((k,) for k in near)]):
                continue
            faces: list[tuple[FaceFit, _Die]] = []
            # Faces of two pips or more first; a one's face, grown from its pip, then stops
            # at theirs (touching dice of one colour are one patch of it).
            for group in sorted(parts, key=len, reverse=True):
                if len(group) == 1:
                    trial: FaceFit | None = single_pip(cands, group[0])
                    ground = _bounded_by(blur, [d for _f, d in faces]) if faces else blur
                else:
                    g = np.array(group, np.intp)
                    trial = fit_layout(cands.xy[g], group, float(cands.diam[g].mean()))
                    if trial is not None and trial.residual > params.max_grid_residual:
                        trial = None
                    ground = blur
                read = None if trial is None else _check_face(trial, cands, planes, ground, params)
                if trial is not None and read is not None and read.value is not None:
                    faces.append((trial, read))
            # Faces of dice beside each other, not two readings of one die.
            if any(_too_close(a, b) for (_f, a), (_g, b) in itertools.combinations(faces, 2)):
                continue
            pips = (sum(len(f.members) for f, _d in faces), len(faces))
            if pips > best_pips:
                best, best_pips = faces, pips
        if best is not None and (len(near) <= _STRANDED_MOST or best_pips[0] == 2 + len(near)):
            # (With more pips left over than a photo taken square on allows, only a parting
            # that puts every pip on a sure face.)
            out.append((die, best))
            for f, _d in best:
                taken.update(f.members)
            lone -= taken
    return out


#: Pips read as nothing within this many of a read two's sides of its pips are parted with
#: them again (:func:`_stranded`): a touching die's pips lie within 1.3 sides.
_STRANDED_REACH = 1.3
#: ... when they are this many times the smallest pip searched or wider (render or sensor
#: noise makes specks of that size: one of nell's dark fives, its red pips unseen, gained a
#: three of specks).
_STRANDED_LEAST = 1.4
#: ... and at most this many of them; in a photo taken aslant one more (a top face's one and
#: its front face's four, fitted as a two of a pip of each and three lone pips).
_STRANDED_MOST = 2
_STRANDED_MOST_ASLANT = 3


def _beside_faces(
    ones: list[FaceFit], faces: list[_Die], cands: PipCandidates, params: ReaderParams
) -> list[tuple[FaceFit, list[_Die]]]:
    """The refused ones whose pip lies off every face read but within ``_BESIDE_SIDES`` of
    the side of a face of its colour from that face's centre, each with the read faces of
    its colour (each pip once)."""
    if not ones or not faces:
        return []
    centres = np.array([d.center for d in faces], np.float64)
    sides = np.array([d.size for d in faces], np.float64)
    colours = np.array([d.face_bgr for d in faces], np.float32)
    pips = sorted({fit.members[0]: fit for fit in ones}.items())
    xy = np.array([fit.center for _k, fit in pips], np.float64)
    ring = cands.ring_bgr[np.array([k for k, _fit in pips], np.intp)]
    gap = np.linalg.norm(xy[:, None, :] - centres[None, :, :], axis=2)
    alike = (gap <= _BESIDE_SIDES * sides) & (
        np.linalg.norm(ring[:, None, :] - colours[None, :, :], axis=2) <= params.max_face_color_dist
    )
    # Off every face read, beside one of its colour.
    wanted = alike.any(axis=1) & ~(gap < 0.6 * sides).any(axis=1)
    return [
        (pips[i][1], [faces[j] for j in np.flatnonzero(alike[i])])
        for i in np.flatnonzero(wanted).tolist()
    ]


def _bounded_by(blur: Image, faces: list[_Die]) -> Image:
    """``blur`` with each face read painted over in a colour far from its own: a one's face
    grown from its pip (:func:`_face_region`) stops at the faces read beside it.

    Touching dice of one colour are one patch of that colour; a one among them, its face
    grown across its neighbours, was no die-sized square and was refused, though the dice
    beside it were read. Their outlines part it from them."""
    out = blur.copy()
    for d in faces:
        far = tuple(0 if c > 127 else 255 for c in d.face_bgr)
        poly = np.asarray(d.outline, np.float32)
        centre = poly.mean(axis=0)
        poly = centre + (poly - centre) * _BOUND_GROWTH
        cv2.fillConvexPoly(out, np.rint(poly).astype(np.int32), far)
    return out


#: A refused one is tried again, bounded by the faces read (:func:`_bounded_by`, each grown
#: by ``_BOUND_GROWTH`` about its centre), when its pip lies within this many of a read
#: face's sides from its centre (a die touching it lies one side away, 1.4 across corners).
_BESIDE_SIDES = 1.6
#: ... and kept when its face is at least this share of theirs (touching dice of one set are
#: one size; one of nell's fives, its corner pips unseen, became a one 12 px wide beside a
#: one of 25).
_BESIDE_SIZE = 0.75
_BOUND_GROWTH = 1.04


def _other_faces(
    cands: PipCandidates, cluster: npt.NDArray[np.intp], refused: FaceFit, params: ReaderParams
) -> list[FaceFit]:
    """The faces each pip of a refused face makes with the rest of its cluster, the refused
    face's other pips left out: touching dice of one colour link into one cluster, and a
    three fitted across three of them in a row (an end pip of each outer die on one line
    with the middle die's pip) takes a pip from each die's own face, so none of them was
    read. Only faces of round pips (``_REFIT_ROUND``) no smaller than the refused face's
    (``_REFIT_SIZE``): a die's side face seen aslant, whose flattened pips were refused as
    a face before, is not fitted again."""
    out: list[FaceFit] = []
    least = float(np.min(cands.diam[list(refused.members)]))
    for k in refused.members:
        if not float(cands.roundness[k]) >= _REFIT_ROUND:
            # No face of its would count.
            continue
        rest = np.array(
            [m for m in cluster.tolist() if m == k or m not in refused.members], np.intp
        )
        if rest.shape[0] < 2:
            continue
        for f in fit_cluster(cands, rest, params):
            pips = list(f.members)
            if (
                len(pips) >= 2
                and k in pips
                and float(cands.roundness[pips].min()) >= _REFIT_ROUND
                and float(cands.diam[pips].min()) >= _REFIT_SIZE * least
            ):
                out.append(f)
    return out


#: Clusters of at most this many pips are fitted again when a face of three pips or more
#: fitted from them is refused (:func:`_other_faces`), for faces whose pips are all this
#: round and this share of the refused face's smallest pip or bigger (without these two
#: bounds matteop65's photos, taken aslant, gained 12 readings of no die: side faces).
_REFIT_MOST = 12
_REFIT_ROUND = 0.85
_REFIT_SIZE = 0.9


def _colour_faces(
    search: PipSearch, planes: Image, blur: Image, params: ReaderParams, faces: list[_Die]
) -> tuple[tuple[float, _Die], ...]:
    """Faces of two pips or more read from the colour planes' candidates alone
    (``search.colour``), where no face in ``faces`` (the faces read) lies: (mean pip
    diameter, die) pairs, for :func:`_with_colour_faces` to add where the reading found no
    die.

    The pip search keeps one candidate per blob, the grey plane's first. On a marbled die
    with coloured pips (red on a black and blue swirl) some pips differ from the face in grey
    level and some only in colour, so the grey plane takes some of a face's places and the
    colour planes the rest, and neither plane's candidates make the face whole; the colour
    planes, searched again on their own, often do. They are coarser (a JPEG keeps colour at
    half the resolution), so their pips merge more: a face of two (the merged pips of a four
    or six) and a face with a main search's candidate on one of its empty places (a pip
    the colour planes lost) are asked about, unless the single-face counter surely counts
    the same layout there (:func:`_second_opinion`, in :func:`_with_colour_faces`).
    """
    others = search.cands
    found: list[tuple[int, float, float, _Die]] = []
    read = np.array([o.center for o in faces], np.float64).reshape(-1, 2)
    reach = _OVERLAP * np.array([o.size for o in faces], np.float64)

    def on_a_face(points: npt.NDArray[np.float64]) -> bool:
        # Whether every point lies on one face read (:func:`_overlaps`): a face fitted to
        # such pips has its centre among them, so it would be dropped as that face again.
        dist = np.hypot(
            points[:, None, 0] - read[None, :, 0], points[:, None, 1] - read[None, :, 1]
        )
        return bool((dist < reach[None, :]).all(axis=0).any())

    for cc in search.colour:
        for members in link_pips(cc, planes, params):
            # Most colour finds are pips the grey plane read too: left out before they are
            # fitted and checked, they cost next to nothing.
            if members.shape[0] < 2 or on_a_face(cc.xy[members].astype(np.float64)):
                continue
            for fit in fit_cluster(cc, members, params):
                if len(fit.members) < 2 or on_a_face(np.array([fit.center], np.float64)):
                    continue
                die = _check_face(fit, cc, planes, blur, params)
                if die is None or die.value is None:
                    continue
                empty = np.asarray(fit.empty_places, np.float32).reshape(-1, 2)
                marked = bool(
                    empty.shape[0]
                    and len(others)
                    and (
                        np.hypot(
                            empty[:, None, 0] - others.xy[None, :, 0],
                            empty[:, None, 1] - others.xy[None, :, 1],
                        )
                        < _COLOUR_MARK * fit.step
                    ).any()
                )
                if marked:
                    die = die._replace(value=None, doubt=doubts.ghost(fit.value))
                elif fit.value == 2:
                    die = die._replace(value=None, doubt=doubts.colour_only(2))
                diam = float(np.mean(cc.diam[list(fit.members)]))
                found.append((len(fit.members), die.confidence, diam, die))
    # The face with more pips first: where one plane lost pips the other may hold them all.
    found.sort(key=lambda t: (-t[0], -t[1]))
    taken = list(faces)
    out: list[tuple[float, _Die]] = []
    for _n, _conf, diam, die in found:
        if any(_too_close(die, o) or _overlaps(die, o) or _overlaps(o, die) for o in taken):
            continue
        out.append((diam, die))
        taken.append(die)
    return tuple(out)


#: A candidate this near (grid steps) to an empty place of a colour face is a pip that the
#: colour planes lost (see :func:`_colour_faces`).
_COLOUR_MARK = 0.35


def _with_colour_faces(
    work: Image, dice: list[tuple[float, _Die]], checked: _Checked | None
) -> list[tuple[float, _Die]]:
    """``dice`` with the colour planes' faces of ``checked`` (:func:`_colour_faces`) that
    lie on none of them and are no side face beside one (:func:`_shadowed`): a die that
    every other way of reading missed. A face asked about is read when the single-face
    counter surely counts its layout (:func:`_second_opinion`). A colour face read (not
    asked about) that lies only on dice asked about replaces them: the colour planes saw
    the pips of a die whose body no count could read (session 25: 4 more of nell's dice
    read right, none misread); so does a colour face asked about there when the counter
    surely counts its layout (session 39). A one with a colour face on it is made uncertain
    (:func:`_one_against_colour`). Faces far smaller than the dice read are doubted as
    theirs were (:func:`_doubt_small`, measured against the dice kept alone, so that the
    faces added change nothing of the dice read before)."""
    if checked is None or checked.colour is None:
        return dice
    colour = checked.colour()
    dice = [(diam, _one_against_colour(d, colour)) for diam, d in dice]
    out: list[tuple[float, _Die] | None] = list(dice)
    for diam, d in colour:
        blocking = [
            k
            for k, pair in enumerate(out)
            if pair is not None
            and (
                _too_close(d, pair[1])
                or _overlaps(pair[1], d)
                or _shadowed(d, diam, pair[1], pair[0])
            )
        ]
        if not blocking:
            out.append((diam, _second_opinion(work, d, dice)))
            continue
        if not all(_asked_about_there(out[k], d) for k in blocking):
            continue
        # Read where the other readings only asked (a body whose pips no reading counted):
        # the colour planes saw its pips, and the counter counts them as they were fitted
        # when the face itself is asked about.
        read = _second_opinion(work, d, dice)
        if read.value is not None:
            for k in blocking:
                out[k] = None
            out.append((diam, read))
    kept = [pair for pair in out[: len(dice)] if pair is not None]
    added = [pair for pair in out[len(dice) :] if pair is not None]
    return kept + _doubt_small(added, among=kept)


def _asked_about_there(pair: tuple[float, _Die] | None, face: _Die) -> bool:
    """Whether ``pair``'s die is asked about and it and ``face`` are one die (either's
    centre on the other's face: a small piece of a die asked about lies on the face)."""
    return (
        pair is not None
        and pair[1].value is None
        and (_overlaps(face, pair[1]) or _overlaps(pair[1], face))
    )


def _one_against_colour(d: _Die, colour: tuple[tuple[float, _Die], ...]) -> _Die:
    """``d``, made uncertain when it was read as a one and the colour planes fitted a face
    of two pips or more on it (:func:`_colour_faces`).

    A one is a single blob centred on its face, and a marbled or translucent die shows such
    blobs of its own: a light swirl in a blue body passes for a one's pip where the body's
    red pips hardly differ from it in grey level. The colour planes see those pips; a face
    of theirs on the one says its lone blob may not be the face's only pip. (Colour faces
    are fitted only where the photo's first pip reading read no face, so the ones doubted
    are those read another way: by their body, or enlarged. Fitting them on the first
    reading's ones too doubted one misread one of nell_byler_d6 and six it read right.)
    """
    if d.value != 1:
        return d
    for _diam, c in colour:
        if c.layout >= 2 and (_overlaps(c, d) or _overlaps(d, c)):
            return d._replace(
                value=None, confidence=min(d.confidence, _DOUBTED_ONE), doubt=doubts.COLOUR_MORE
            )
    return d


#: A one doubted by a colour face keeps at most this confidence (a coin toss).
_DOUBTED_ONE = 0.5


class _Checked(NamedTuple):
    """The faces of one reading that passed their checks (:func:`_check_face`)."""

    #: (mean pip diameter, die) pairs in the order faces are chosen.
    faces: tuple[tuple[float, _Die], ...]
    #: The photo looks across the table upright (:func:`_looks_down_aslant`).
    upright: bool
    #: Gives the faces read from the colour planes alone where no face above lies
    #: (:func:`_colour_faces`), when called: only the reading whose faces are used calls it,
    #: once (:func:`_with_colour_faces`, last, where the reading found no die).
    colour: Callable[[], tuple[tuple[float, _Die], ...]] | None = None


def _select(checked: _Checked) -> list[tuple[float, _Die]]:
    """The dice among checked faces: each face in turn, unless it overlaps a face chosen
    before or is a side face beside it (:func:`_shadowed`); in a photo taken across the
    table, of two faces one right above the other (:func:`_above`) the upper is chosen."""
    upright = checked.upright
    dice: list[tuple[float, _Die]] = []
    for diam, die in checked.faces:
        if die.layout == 1 and any(_holds_face(diam, die, o) for _od, o in checked.faces):
            # A lone "pip" holding a face read: that face's die, not a one (a dark die on
            # a light floor, round in its shadow).
            continue
        if upright and any(_one_read(o, die) and _above(o, die) for _od, o in dice):
            # Seen from the side of the table, a die shows its top face above the side
            # face that looks at the camera, however the two are foreshortened: a face
            # right below one chosen before is that die's side face ...
            continue
        below = []
        if upright:
            below = [k for k, (_od, o) in enumerate(dice) if _one_read(die, o) and _above(die, o)]
        if below:
            # ... and a face chosen before right below this one was.
            dice = [pair for k, pair in enumerate(dice) if k not in below]
        elif any(_shadowed(die, diam, other, other_diam) for other_diam, other in dice):
            continue
        crowded = [k for k, (_od, o) in enumerate(dice) if _too_close(die, o)]
        if crowded:
            # Two top faces lie a side apart at least: two faces read nearer than that (a
            # four seen aslant read as two twos) cannot both be dice, and neither is sure.
            for k in crowded:
                dice[k] = (dice[k][0], dice[k][1]._replace(value=None, doubt=doubts.CROWDED))
            continue
        dice.append((diam, die))
    return dice


def _holds_face(diam: float, one: _Die, other: _Die) -> bool:
    """Whether the lone pip of ``one`` (``diam`` wide) holds a face of two pips or more
    read (``other``) whole: then the "pip" is that die's body, a dark die round in its
    shadow on a light floor, and its "face" the floor around it."""
    if one.layout != 1 or other.layout < 2 or other.value is None:
        return False
    apart = float(np.hypot(one.center[0] - other.center[0], one.center[1] - other.center[1]))
    return apart < 0.5 * diam and other.size < _HELD_FACE * diam


#: A face read inside a lone pip is that pip's die when the face is at most this many times
#: the pip's width (a die's face fills its body; its shadow widens the blob).
_HELD_FACE = 1.3


def _too_close(die: _Die, other: _Die) -> bool:
    """Whether two faces read are nearer than two dice's top faces can be."""
    dist = float(np.hypot(die.center[0] - other.center[0], die.center[1] - other.center[1]))
    return dist < _TOO_CLOSE * min(die.size, other.size)


#: Two top faces' centres lie at least a side apart (dice touching face to face), a side of
#: the smaller (a one's face grown from its pip may take in more than its die); the faces'
#: sides as fitted vary by a tenth or so.
_TOO_CLOSE = 0.9


def _without_giants(reading: _Scaled) -> list[tuple[float, _Die]]:
    """The dice of ``reading`` without "giant faces" (:func:`_drop_giants`), with the faces
    a giant had overlapped chosen again: a giant face's pips are whole dice, so the dice
    around and between them were left out as parts of it."""
    kept = _drop_giants(reading.dice, reading.work)
    if len(kept) == len(reading.dice) or reading.faces is None:
        return kept
    giants = [d for _diam, d in reading.dice if all(d is not k for _kd, k in kept)]
    faces = tuple(f for f in reading.faces.faces if all(f[1] is not g for g in giants))
    return _drop_giants(_select(reading.faces._replace(faces=faces)), reading.work)


def _one_read(die: _Die, other: _Die) -> bool:
    """Whether at least one of two faces was read: two faces asked about, one above the
    other, say nothing of which is a top face (a one's face grown from its pip may take
    in the floor and look as big as two dice)."""
    return die.value is not None or other.value is not None


def _looks_down_aslant(aslant: tuple[float, float] | None) -> bool:
    """True when the photo's stark pips are flattened alike (``aslant``, see :class:`_Stark`)
    along the photo's vertical: a camera looking across the table, the photo upright (EXIF
    orientation applied)."""
    return aslant is not None and abs(aslant[1] - 0.5 * np.pi) < _UPRIGHT


def _above(die: _Die, other: _Die) -> bool:
    """True when ``die`` sits right above ``other`` as a die's top face above its front
    face: beside it (not over it), within ``_SIDE_REACH`` of ``die``'s side, mostly
    upwards; never when both are ones (:func:`_two_ones`)."""
    dx, dy = die.center[0] - other.center[0], die.center[1] - other.center[1]
    dist = float(np.hypot(dx, dy))
    side = min(die.size, other.size)
    # A side face hangs from its top face's edge: how far it reaches is told by the top
    # face's side (the lower face may be a partial layout fitted smaller).
    return (
        0.55 * side <= dist < _SIDE_REACH * die.size
        and -dy > 0.8 * dist
        and not _two_ones(die, other)
    )


def _two_ones(die: _Die, other: _Die) -> bool:
    """Whether two faces are both read as ones: then they are two dice, never a top face
    and a side face of one (a die has a single one). Only ones are told apart so: a side
    face seen in part is often read as fewer pips than it has (a three as a two), but a
    one is read only with its face grown round its pip."""
    return die.value == 1 and other.value == 1


def _foreshortened_as_pips(fit: FaceFit, cands: PipCandidates) -> bool:
    """True when a face of four pips or more is flattened as its own pips are: no more than
    they are (give or take :data:`_FACE_SQUASH`), along about the direction their shortest
    widths agree on. A camera looking aslant sees a square face as a parallelogram and its
    round pips as ellipses flattened the same way; such a face's pips are judged against
    its grid as seen, not a square one."""
    if len(fit.members) < 4 or fit.squash >= 1.0:
        return False
    members = np.array(fit.members, np.intp)
    direction = _agreed_direction(cands.minor[members])
    if direction is None:
        return False
    turn = abs((fit.short_axis - direction + 0.5 * np.pi) % np.pi - 0.5 * np.pi)
    squash = float(np.median(cands.roundness[members]))
    return _FACE_SQUASH * squash <= fit.squash and turn <= _FACE_TURN


def _seen_aslant(squash: float | None, params: ReaderParams) -> ReaderParams:
    """``params`` for a photo whose stark pips are flattened to ``squash`` (a camera looking
    aslant, see :class:`_Stark`): a lone pip may be as flattened as they are, in
    proportion, and still be a one."""
    if squash is None or squash >= _ASLANT:
        return params
    least = max(_ONE_ROUNDNESS_FLOOR, _in_proportion(params.min_one_roundness, squash))
    return params._replace(min_one_roundness=min(params.min_one_roundness, least))


def _in_proportion(roundness: float, squash: float) -> float:
    """A round pip's least ``roundness`` in a photo whose stark pips are flattened to
    ``squash`` (:class:`_Stark`): lowered in proportion below ``_ASLANT``."""
    return roundness * min(1.0, squash / _ASLANT)


def _flattened_as_photo(
    fit: FaceFit, cands: PipCandidates, aslant: tuple[float, float] | None
) -> bool:
    """Whether a lone pip's shortest width lies along the direction a camera looking aslant
    flattens the photo's pips (``aslant``, :class:`_Stark`), within ``_ASLANT_TURN``."""
    if aslant is None:
        return False
    minor = float(cands.minor[fit.members[0]])
    return abs((minor - aslant[1] + 0.5 * np.pi) % np.pi - 0.5 * np.pi) <= _ASLANT_TURN


def _only_face_test_refuses(fit: FaceFit, cands: PipCandidates, params: ReaderParams) -> bool:
    """Whether a lone pip's roundness passes the one's own test but not the face test
    (``min_one_roundness`` <= it < ``min_face_roundness``): the one refusal
    :func:`_one_aslant` lifts. A pip outside that band is judged alike by both, so it is
    not checked a second time."""
    roundness = float(cands.roundness[fit.members[0]])
    return params.min_one_roundness <= roundness < params.min_face_roundness


def _one_aslant(params: ReaderParams) -> ReaderParams:
    """``params`` (:func:`_seen_aslant`'s) for a lone pip flattened as the photo's pips are
    (:func:`_flattened_as_photo`): judged by the one's own roundness test alone
    (``min_one_roundness``, lowered in proportion to the photo's flattening), not also by
    the face test (``min_face_roundness``), which the faces of several pips beside it pass
    on their pips' average."""
    return params._replace(
        min_face_roundness=min(params.min_face_roundness, params.min_one_roundness)
    )


#: A lone pip flattened along the photo's direction give or take this much (radians; the
#: direction is measured in eighths of a turn).
_ASLANT_TURN = np.pi / 8


def _stark_face(fit: FaceFit, cands: PipCandidates, params: ReaderParams) -> FaceFit | None:
    """The layout of a rejected face's stark pips alone, when some of its pips are faint
    (below ``_FAINT`` of its starkest) and the stark ones fit a layout; else None.

    Pips of one face are of one material and depth, so they stand out alike; blobs far
    fainter than the rest are the die's edge, its shadow or a speck that joined the fit.
    """
    if len(fit.members) < 3:
        return None  # two stark pips and a faint one at least
    members = np.array(fit.members, np.intp)
    contrast = cands.contrast[members]
    stark = members[contrast >= _FAINT * float(contrast.max())]
    if not 2 <= stark.shape[0] < members.shape[0]:
        return None
    refit = fit_layout(cands.xy[stark], tuple(stark.tolist()), float(np.mean(cands.diam[stark])))
    if refit is None or refit.residual > params.max_grid_residual:
        return None
    return refit


def _doubtful_two(
    die: _Die, roundness: npt.NDArray[np.float32], diam: npt.NDArray[np.float32]
) -> bool:
    """True when a two read as ``die`` from pips of ``roundness`` and ``diam`` is doubtful,
    or its pips are flattened unlike each other: the pips of one face are seen at one
    angle, so a round pip beside a flattened one is more likely a one's pip beside a side
    face's (told only of pips wide enough for their shape to be measured)."""
    measurable = float(diam.max()) >= _SHAPED_PIP
    unlike = measurable and float(roundness.min()) < _UNLIKE_PIPS * float(roundness.max())
    return unlike or die.confidence < _DOUBTFUL_TWO


def _overlaps(die: _Die, other: _Die) -> bool:
    """True when ``die``'s centre lies on ``other``'s face: the two are readings of one die."""
    dist = float(np.hypot(die.center[0] - other.center[0], die.center[1] - other.center[1]))
    return dist < _OVERLAP * other.size


def _shadowed(die: _Die, diam: float, other: _Die, other_diam: float) -> bool:
    """True when ``die`` overlaps ``other`` or is a side face beside it (smaller pips, near;
    never when both are ones, :func:`_two_ones`)."""
    if _overlaps(die, other):
        return True
    if _two_ones(die, other):
        return False
    dist = float(np.hypot(die.center[0] - other.center[0], die.center[1] - other.center[1]))
    if dist < 0.95 * other.size and diam < 0.85 * other_diam:
        return True
    # Side faces of that die lie within 1.3 of its sides, and their pips are no bigger.
    if dist >= _SIDE_REACH * other.size or diam > 1.05 * other_diam:
        return False
    # A face seen at a much more glancing angle than a face right beside it is a side face
    # of that die (in a tilted camera's view the side faces are also shaded, so their colour
    # may differ from the top's).
    if die.squash < 0.6 and die.squash < 0.75 * other.squash:
        return True
    # A side face shares an edge with the top face it hangs from and is foreshortened
    # across that edge, towards the top face (blur rounds its pips, so their shape cannot
    # tell it).
    return (
        die.size <= other.size
        and die.squash < _SIDE_SQUASH * other.squash
        and _foreshortened_towards(die, other.center)
    )


def _foreshortened_towards(die: _Die, point: tuple[float, float]) -> bool:
    """Whether the shorter sides of ``die``'s outline (four corners) point at ``point``."""
    if len(die.outline) != 4:
        return False
    p = np.asarray(die.outline, np.float64)
    a, b = p[1] - p[0], p[2] - p[1]
    short = a if np.hypot(*a) < np.hypot(*b) else b
    toward = np.asarray(point, np.float64) - np.asarray(die.center, np.float64)
    norm = float(np.hypot(*short) * np.hypot(*toward))
    return norm > 0 and abs(float(short @ toward)) > _SIDE_AIM * norm


#: A die whose centre lies within this share of another's side from its centre is on it.
_OVERLAP = 0.55
#: A face next to a bigger one, more foreshortened (its squash below this share of the
#: other's) and towards it (within acos(_SIDE_AIM)), is a side face.
_SIDE_SQUASH = 0.85
_SIDE_AIM = 0.85

#: A face of four pips or more is judged against its grid as seen (a parallelogram) when
#: the grid is flattened no more than this share of its pips' roundness, along a direction
#: within this angle (radians) of the one their shortest widths agree on.
_FACE_SQUASH = 0.8
_FACE_TURN = float(np.deg2rad(25.0))

#: Roundness of a lone pip seen straight on or nearly so.
_ROUND_ONE = 0.75
#: A two read with less confidence than ``_DOUBTFUL_TWO``, or whose less round pip is below
#: ``_UNLIKE_PIPS`` of the other's roundness, may be a one's pip paired with a side face's
#: (see :func:`_doubtful_two`).
_DOUBTFUL_TWO = 0.75
_UNLIKE_PIPS = 0.75
#: Least diameter (work pixels) of a pip whose roundness tells its shape: a blob a few
#: pixels wide is as round as its pixels fall.
_SHAPED_PIP = 8.0


def _in_a_row(
    cands: PipCandidates, members: npt.NDArray[np.intp], max_colour: float, blur: Image
) -> bool:
    """True when the pips of a two or three go on in a row beyond the face: a like blob
    one more step along their line (a ruler's marks, a keyboard's edge, a perforated
    strip), which a die's diagonal never has; a side face's pips beyond a top face do
    not count, nor does a pip of another die: one whose face around it is of another colour
    (farther than ``max_colour``, as pips are linked) than the pips' face, or one that
    something else parts from them (the way there, in ``blur``, is not mostly of the
    face's colour: a floor between two dice of one colour; a ruler's marks lie on one
    surface)."""
    pts = cands.xy[members]
    axis = pts[-1] - pts[0]
    order = np.argsort(pts @ axis)
    first, last = pts[order[0]], pts[order[-1]]
    step = (last - first) / (len(members) - 1)
    reach = 0.35 * float(np.hypot(*step))
    # As round: a side face's pips seen aslant beyond a top face are flattened.
    face = cands.ring_bgr[members].mean(axis=0)
    like = (
        _alike(cands, members, least_diam=0.7, least_roundness=0.85)
        & (cands.diam <= 1.4 * cands.diam[members].max())
        & (np.linalg.norm(cands.ring_bgr - face, axis=1) <= max_colour)
    )
    h, w = blur.shape[:2]
    for end, pip in ((first - step, first), (last + step, last)):
        d = np.hypot(cands.xy[:, 0] - end[0], cands.xy[:, 1] - end[1])
        for m in np.flatnonzero(like & (d < reach)).tolist():
            # The way from the pip to it, clear of both blobs.
            way = cands.xy[m] - pip
            length = float(np.hypot(*way))
            lo = 0.6 * float(cands.diam[members].max()) / max(length, 1e-6)
            hi = 1.0 - 0.6 * float(cands.diam[m]) / max(length, 1e-6)
            if hi <= lo:
                return True
            pts = pip + np.outer(lo + (hi - lo) * _ROW_STEPS, way)
            xs = np.clip(np.rint(pts[:, 0]), 0, w - 1).astype(np.intp)
            ys = np.clip(np.rint(pts[:, 1]), 0, h - 1).astype(np.intp)
            on_face = np.linalg.norm(blur[ys, xs].astype(np.float32) - face, axis=1) <= max_colour
            if float(on_face.mean()) >= _ROW_ON_FACE:
                return True
    return False


#: Where the way from a two's or three's end pip to a like blob beyond it is sampled (12
#: places, as shares of the way clear of both blobs), and the share of them in the face's
#: colour that puts that blob on the same surface.
_ROW_STEPS = np.linspace(0.0, 1.0, 12)
_ROW_ON_FACE = 0.75


def _pips_beside(
    cands: PipCandidates,
    k: int,
    centre: tuple[float, float],
    reach: float,
    *,
    least_diam: float = 0.5,
    least_roundness: float = 0.8,
    within: float = float("inf"),
) -> bool:
    """True when a candidate like pip ``k`` (:func:`_alike`: same polarity and plane, at
    least half its contrast, ``least_diam`` of its size and ``least_roundness`` of its
    roundness; by default about as round: not a side face's pip seen aslant), apart from it,
    lies within ``reach`` of ``centre``, and no further than ``within`` times pip ``k``'s
    width from it."""
    like = _alike(cands, np.array([k]), least_diam=least_diam, least_roundness=least_roundness)
    farthest = within * float(cands.diam[k])
    return bool(np.any(like & _beside(cands, k, centre, reach, farthest)))


def _beside(
    cands: PipCandidates,
    k: int,
    centre: tuple[float, float],
    reach: float,
    farthest: float = float("inf"),
) -> npt.NDArray[np.bool_]:
    """The candidates apart from pip ``k`` that lie within ``reach`` of ``centre`` (and no
    further than ``farthest`` from the pip). A blob that holds the pip (the die's whole
    body, darker than the floor) is none beside it."""
    d = np.hypot(cands.xy[:, 0] - centre[0], cands.xy[:, 1] - centre[1])
    apart = np.hypot(cands.xy[:, 0] - cands.xy[k, 0], cands.xy[:, 1] - cands.xy[k, 1])
    clear = apart > np.maximum(0.8 * cands.diam[k], 0.5 * (cands.diam - cands.diam[k]))
    return np.asarray(clear & (d < reach) & (apart <= farthest), bool)


def _alike(
    cands: PipCandidates,
    members: npt.NDArray[np.intp],
    *,
    least_diam: float,
    least_roundness: float,
) -> npt.NDArray[np.bool_]:
    """Candidates like the pips ``members``: same polarity and plane, at least half the
    faintest one's contrast, and at least ``least_diam`` of the smallest one's diameter and
    ``least_roundness`` of the least round one's roundness."""
    k = int(members[0])
    return np.asarray(
        (cands.polarity == cands.polarity[k])
        & (cands.channel == cands.channel[k])
        & (cands.diam >= least_diam * cands.diam[members].min())
        & (cands.contrast >= 0.5 * cands.contrast[members].min())
        & (cands.roundness >= least_roundness * cands.roundness[members].min()),
        dtype=bool,
    )


#: Directions (cosines, sines; 8 around the circle, as a row) in which a face is seeded
#: beside each of its pips.
_SEED_COS = np.cos(np.linspace(0, 2 * np.pi, 8, endpoint=False)[None, :])
_SEED_SIN = np.sin(np.linspace(0, 2 * np.pi, 8, endpoint=False)[None, :])


def _median(a: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``np.median(a, axis=0)`` of a small float array, bit for bit, in a fraction of its
    time (its overhead, not the sorting, is what costs on a few values): the middle of the
    sorted values, or the mean of the two middle ones as ``np.mean`` takes it."""
    ranked = np.sort(a, axis=0)
    n = ranked.shape[0]
    if n == 0 or bool(np.isnan(ranked[-1]).any()):
        return np.asarray(np.median(a, axis=0))  # np.median's own NaN and empty handling
    half = n // 2
    middle: npt.NDArray[np.float32] = (
        ranked[half] if n % 2 else (ranked[half - 1] + ranked[half]) / 2
    )
    return middle


def _face_region(
    fit: FaceFit, cands: PipCandidates, blur: Image, size_guess: float
) -> tuple[tuple[float, float], float, float, tuple[tuple[float, float], ...]] | None:
    """Grow the face's colour from beside its pips; ``(centre, side, angle_deg, outline)``.

    None when the colour spills far beyond a die (the face is the colour of the floor).
    """
    h, w = blur.shape[:2]
    cx, cy = fit.center
    half = int(1.3 * size_guess) + 3
    x0, y0 = max(0, int(cx) - half), max(0, int(cy) - half)
    x1, y1 = min(w, int(cx) + half + 1), min(h, int(cy) + half + 1)
    roi = blur[y0:y1, x0:x1]
    rh, rw = roi.shape[:2]
    members = np.array(fit.members, np.intp)
    face = _median(cands.ring_bgr[members])
    contrast = float(_median(cands.contrast[members]))
    # Seed beside the pip whose ring is nearest the face colour (between pips there may be
    # no face at all on tiny dice).
    r = 0.5 * cands.diam[members]
    reach = np.maximum(1.7 * r, r + 2)[:, None]
    sx = np.rint(cands.xy[members, 0][:, None] + _SEED_COS * reach - x0).astype(np.intp).ravel()
    sy = np.rint(cands.xy[members, 1][:, None] + _SEED_SIN * reach - y0).astype(np.intp).ravel()
    inside = (sx >= 0) & (sx < rw) & (sy >= 0) & (sy < rh)
    if not np.any(inside):
        return None
    sx, sy = sx[inside], sy[inside]
    dist = np.linalg.norm(roi[sy, sx].astype(np.float32) - face, axis=1)
    k = int(np.argmin(dist))
    best = (float(dist[k]), int(sx[k]), int(sy[k]))
    found = None
    for tol in (8.0, 14.0, 22.0, 32.0, 45.0):
        if tol > max(14.0, 0.6 * contrast):
            break
        shape = _grow(roi, (best[1], best[2]), tol, fit, cands, x0, y0, (x0, y0, x1, y1), (w, h))
        if shape is _SPILLED:
            # A wider tolerance floods a superset of the region (the range is fixed to the
            # seed's colour), which spills too.
            break
        if shape is None:
            if found is not None:
                break
            continue
        found = shape
    return found


#: What :func:`_grow` returns for a region that spills out of its window.
_SPILLED: Final = ((0.0, 0.0), 0.0, 0.0, ())


def _grow(
    roi: Image,
    seed: tuple[int, int],
    tol: float,
    fit: FaceFit,
    cands: PipCandidates,
    x0: int,
    y0: int,
    window: tuple[int, int, int, int],
    size: tuple[int, int],
) -> tuple[tuple[float, float], float, float, tuple[tuple[float, float], ...]] | None:
    """Flood the face colour within ``tol`` from ``seed``; the region's square, None when it
    is no square, or ``_SPILLED`` when it runs out of its window."""
    rh, rw = roi.shape[:2]
    _x0, _y0, x1, y1 = window
    w, h = size
    mask = np.zeros((rh + 2, rw + 2), np.uint8)
    cv2.floodFill(
        roi,
        mask,
        seed,
        (0, 0, 0),
        (tol,) * 3,
        (tol,) * 3,
        4 | cv2.FLOODFILL_FIXED_RANGE | cv2.FLOODFILL_MASK_ONLY | (255 << 8),
    )
    region = mask[1:-1, 1:-1]
    for k in fit.members:
        cv2.circle(
            region,
            (round(float(cands.xy[k, 0]) - x0), round(float(cands.xy[k, 1]) - y0)),
            int(np.ceil(0.6 * cands.diam[k])),
            255,
            -1,
        )
    bx, by, bw, bh = cv2.boundingRect(region)
    if bw == 0:
        return None
    spill = (
        (x0 > 0 and bx == 0)
        or (y0 > 0 and by == 0)
        or (x1 < w and bx + bw == rw)
        or (y1 < h and by + bh == rh)
    )
    if spill:
        return _SPILLED
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contour = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(contour)
    (rx, ry), (a, b), ang = cv2.minAreaRect(hull)
    if min(a, b) <= 0:
        return None
    area = float(cv2.contourArea(hull))
    if area < 0.6 * a * b or max(a, b) > 1.6 * min(a, b):
        return None
    box = cv2.boxPoints(((rx, ry), (a, b), ang))
    outline = tuple((float(px + x0), float(py + y0)) for px, py in box)
    return (float(rx + x0), float(ry + y0)), float(np.sqrt(a * b)), float(ang), outline


_GLARE_GRID = (
    np.stack(np.meshgrid(np.linspace(-0.42, 0.42, 9), np.linspace(-0.42, 0.42, 9)), axis=-1)
    .reshape(-1, 2)
    .astype(np.float32)
)


def _glare_share(
    blur: Image,
    fit: FaceFit,
    size: float,
    face_gray: float,
    pips: npt.NDArray[np.float32],
    diam: float,
) -> float:
    """Share of the face that is blown out white while the face itself is not white.

    A glare spot can hide pips, so a face with much of it cannot be counted with confidence.
    Points on the pips found (``pips`` (K, 2) centres, ``diam`` their size) do not count:
    white pips are as bright as glare.
    """
    if face_gray >= _WHITE_FACE:
        return 0.0
    h, w = blur.shape[:2]
    ca, sa = float(np.cos(fit.angle)), float(np.sin(fit.angle))
    g = _GLARE_GRID * size
    xs = np.clip(np.rint(fit.center[0] + g[:, 0] * ca - g[:, 1] * sa), 0, w - 1).astype(np.intp)
    ys = np.clip(np.rint(fit.center[1] + g[:, 0] * sa + g[:, 1] * ca), 0, h - 1).astype(np.intp)
    px = blur[ys, xs]
    pts = np.stack([xs, ys], axis=1).astype(np.float32)
    near = np.linalg.norm(pts[:, None, :] - pips[None, :, :], axis=2).min(axis=1) < 0.8 * diam
    white = (px.min(axis=1) >= _BLOWN) & ~near
    return float(white.sum() / max(1, int((~near).sum())))


_STRIP = np.array(
    [(gx, gy) for gx in (-1.45, 0.0, 1.45) for gy in (-1.45, 0.0, 1.45) if gx or gy], np.float32
)


def _face_support(
    blur: Image,
    fit: FaceFit,
    rings_bgr: npt.NDArray[np.float32],
    contrast: float,
    polarity: float,
    channel: int,
) -> float:
    """Share of points on the fitted face, off its pips, that have the face's colour."""
    h, w = blur.shape[:2]
    ca, sa = float(np.cos(fit.angle)), float(np.sin(fit.angle))
    g = _STRIP * fit.step
    pts = np.concatenate(
        [
            np.stack(
                [
                    fit.center[0] + g[:, 0] * ca - g[:, 1] * sa,
                    fit.center[1] + g[:, 0] * sa + g[:, 1] * ca,
                ],
                axis=1,
            ),
            fit.empty_places,
        ]
    )
    xs = np.clip(np.rint(pts[:, 0]), 0, w - 1).astype(np.intp)
    ys = np.clip(np.rint(pts[:, 1]), 0, h - 1).astype(np.intp)
    px = blur[ys, xs].astype(np.float32)
    face = _median(rings_bgr)
    tol = max(25.0, 0.4 * contrast)
    like_face = np.linalg.norm(px - face, axis=1) <= tol
    # On small dice the strip is narrow and a point may touch a pip's blurred rim: a point
    # shaded towards the pips' grey is no evidence against the face.
    weights, offset = PLANE_TRANSFORM[channel, :3], float(PLANE_TRANSFORM[channel, 3])
    grey = px @ weights + offset
    face_grey = float(face @ weights) + offset
    like_pip = polarity * (grey - face_grey) > 0.4 * contrast
    return float((like_face | like_pip).mean())


#: Points inside a face (square coordinates, side 1) where its colour is sampled, and on a
#: square ring just outside it (per side, 5 points along it) where the surroundings are.
_INNER = (
    np.stack(np.meshgrid(np.linspace(-0.34, 0.34, 7), np.linspace(-0.34, 0.34, 7)), axis=-1)
    .reshape(-1, 2)
    .astype(np.float32)
)
_ALONG = np.linspace(-0.4, 0.4, 5, dtype=np.float32)
_OUTER = np.concatenate(
    [
        np.stack([np.full(5, sx * out, np.float32), _ALONG], axis=1)
        if axis == 0
        else np.stack([_ALONG, np.full(5, sx * out, np.float32)], axis=1)
        for out in (0.7, 0.85, 1.0)
        for axis in (0, 1)
        for sx in (-1.0, 1.0)
    ]
)
_JITTER = np.array([[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]], np.float32)


def _sample_around(
    blur: Image, pts: npt.NDArray[np.float32], radius: float
) -> npt.NDArray[np.float32]:
    """Mean colour around each point of ``pts`` (K, 2): the point and four at ``radius`` px.

    ``blur`` may be (H, W, 3) (gives (K, 3)) or one plane (H, W) (gives (K,)).
    """
    h, w = blur.shape[:2]
    p = pts[:, None, :] + _JITTER[None] * radius
    # np.minimum/np.maximum, the sum and the division are what np.clip and np.mean do, bit
    # for bit, without their Python overhead (most of the time on a few points).
    ix = np.minimum(np.maximum(np.rint(p[..., 0]), 0), w - 1).astype(np.intp)
    iy = np.minimum(np.maximum(np.rint(p[..., 1]), 0), h - 1).astype(np.intp)
    out: npt.NDArray[np.float32] = blur[iy, ix].astype(np.float32).sum(axis=1) / _JITTER.shape[0]
    return out


def _on_face(
    center: tuple[float, float], side: float, angle: float, uv: npt.NDArray[np.float32]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Image ``(x, y)`` of points ``uv`` (K, 2) given in a face's own axes, in face sides
    from its centre (the face ``side`` pixels wide, turned ``angle`` radians)."""
    g = uv * side
    ca, sa = float(np.cos(angle)), float(np.sin(angle))
    return center[0] + g[:, 0] * ca - g[:, 1] * sa, center[1] + g[:, 0] * sa + g[:, 1] * ca


def _face_evidence(
    blur: Image,
    center: tuple[float, float],
    side: float,
    angle: float,
    pips: npt.NDArray[np.float32],
    diam: float,
) -> tuple[float, float, npt.NDArray[np.float32], float]:
    """How much the fitted square looks like a die face: ``(uniform, distinct)`` shares,
    with the face's colour and the least colour distance that tells a surround from it.

    ``uniform`` is the share of points inside the square (off the ``pips`` (K, 2), of
    diameter ``diam``) that have the face's colour; ``distinct`` the share of the square's
    four sides whose ring just outside differs from it. Pips on a wood grain or a speckled
    table have no face: what surrounds them is the same colour as between them.
    """

    def place(uv: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        return np.stack(_on_face(center, side, angle, uv), axis=1).astype(np.float32)

    inner = place(_INNER)
    off_pip = np.linalg.norm(inner[:, None, :] - pips[None, :, :], axis=2).min(axis=1) > (
        0.8 * diam
    )
    if int(off_pip.sum()) < 6:
        return 0.0, 0.0, np.zeros(3, np.float32), 28.0
    radius = max(1.0, 0.06 * side)
    inside = _sample_around(blur, inner[off_pip], radius)
    face = _median(inside)
    dev = np.linalg.norm(inside - face, axis=1)
    noise = float(_median(dev))
    tol = max(18.0, 2.5 * noise)
    uniform = float((dev <= tol).mean())
    # The die may be wider than its pips' grid suggests (broad margins, a bevel): look for
    # the surroundings at three distances out from the centre.
    outside = _sample_around(blur, place(_OUTER), radius)
    # A busy face (translucent, marbled) is no reason to ask for a starker surround.
    apart = max(28.0, min(3.0 * noise, 55.0))
    differs = np.linalg.norm(outside - face, axis=1) > apart
    sides = differs.reshape(3, 4, 5).sum(axis=2) >= 3
    distinct = float(sides.any(axis=0).mean())
    return uniform, distinct, face, apart


#: Least side (work pixels) of a face judged by its outline alone: the band where its edge
#: lies is then five pixels wide or more.
_OUTLINE_SIDE = 24.0
#: Where a face's outline is looked for (:func:`_outlined`): out along each side's normal
#: from the face's centre, in face sides, the band where a die's edge lies; the width within
#: which each place along the side must cross it; the places along the side.
_EDGE_BAND = (0.44, 0.64)
_EDGE_WIDTH = 0.08
_EDGE_ALONG = np.linspace(-0.2, 0.2, 5, dtype=np.float32)
#: The four sides' outward normals and directions along them, in the face's own axes.
_EDGE_SIDES = np.array(
    [[[-1, 0], [0, 1]], [[1, 0], [0, 1]], [[0, -1], [1, 0]], [[0, 1], [1, 0]]], np.float32
)


def _outlined(
    blur: Image,
    center: tuple[float, float],
    side: float,
    angle: float,
    face: npt.NDArray[np.float32],
    tol: float,
) -> bool:
    """Whether a fitted face is outlined all round: on each of its four sides a line parallel
    to the side (the die's edge, its bevel or its shadow) unlike the face's colour, which
    each of five places along the side crosses within the same band, 0.08 sides wide.

    A die the colour of its floor (white on a white table, green on green felt) stands out
    by its outline alone; specks on a plain floor have none, and a floor's texture seldom
    draws unbroken lines parallel to a fitted face on all four sides. Sampled a pixel apart
    across the band, so a line one pixel wide is not stepped over.
    """
    steps = max(6, int(np.ceil((_EDGE_BAND[1] - _EDGE_BAND[0]) * side)) + 1)
    out = np.linspace(_EDGE_BAND[0], _EDGE_BAND[1], steps, dtype=np.float32)
    width = max(3, round(_EDGE_WIDTH / float(out[1] - out[0])) + 1)
    # (4 sides, 5 places along, steps out, 2): face-axis coordinates, in face sides.
    uv = (
        _EDGE_SIDES[:, None, None, 0, :] * out[None, None, :, None]
        + _EDGE_SIDES[:, None, None, 1, :] * _EDGE_ALONG[None, :, None, None]
    )
    px, py = _on_face(center, side, angle, uv.reshape(-1, 2))
    h, w = blur.shape[:2]
    xs, ys = np.rint(px).astype(np.intp), np.rint(py).astype(np.intp)
    if xs.min() < 0 or ys.min() < 0 or xs.max() >= w or ys.max() >= h:
        return False
    diff = np.linalg.norm(blur[ys, xs].astype(np.float32) - face, axis=1)
    hit = (diff > tol).reshape(4, _EDGE_ALONG.shape[0], steps)
    # Running "any" over ``width`` steps out: whether each place crosses the line there.
    cum = np.concatenate([np.zeros((4, _EDGE_ALONG.shape[0], 1), np.intp), hit.cumsum(axis=2)], 2)
    within = (cum[..., width:] - cum[..., :-width]) > 0
    return bool(within.all(axis=1).any(axis=1).all())


def _six_corners(fit: FaceFit, roundness: float) -> bool:
    """Whether a four's grid is flatter (:attr:`FaceFit.squash`) than its pips' median
    ``roundness`` explains.

    A camera looking aslant flattens a face's grid and its pips alike, so a four's grid is
    about as flat as its pips are round (the test :func:`_foreshortened_as_pips` makes the
    other way round). A grid much flatter than its pips lies on a face seen squarely and is
    no four's square: it is a six's four corners (many makes set a six's columns closer
    than its rows are long), its middle row lost.
    """
    return fit.value == 4 and fit.squash < _SIX_CORNERS * roundness


#: A four's grid flatter than this share of its pips' median roundness is a six's corners.
#: On the labelled real photos (nell, matteop65, mac785's valid and test splits) the four
#: sixes whose corners were fitted as a four measure 0.81-0.87 (three had been read as
#: fours) and the 505 fours read right 0.95 or more.
_SIX_CORNERS = 0.9


def _uncounted_pip(
    cands: PipCandidates,
    members: npt.NDArray[np.intp],
    center: tuple[float, float],
    step: float,
    angle: float,
) -> bool:
    """True when a candidate just like the counted pips (polarity, plane, size, contrast)
    lies within the fitted pip grid but off its nodes, where no face has a pip: the pips
    fitted are not one face's (dice far smaller than the pip search expects, taken for the
    pips of one giant face with another die between them). On a node it may be a pip
    missed, which the empty places' check weighs. A blob overlapping a counted pip is that
    pip again (found at another scale, or two crowded pips' blur taken for one between them),
    not a pip of its own."""
    diam = cands.diam[members]
    lo, hi = float(diam.min()) / 1.45, float(diam.max()) * 1.45
    weakest = float(cands.contrast[members].min())
    ca, sa = float(np.cos(angle)), float(np.sin(angle))
    rel = cands.xy - np.array(center, np.float32)
    u = (rel[:, 0] * ca + rel[:, 1] * sa) / step
    v = (-rel[:, 0] * sa + rel[:, 1] * ca) / step
    off_node = np.hypot(u - np.clip(np.rint(u), -1, 1), v - np.clip(np.rint(v), -1, 1))
    like = (
        (np.maximum(np.abs(u), np.abs(v)) <= _UNCOUNTED_REACH)
        & (off_node >= _OFF_NODE)
        & (cands.polarity == cands.polarity[members[0]])
        & (cands.channel == cands.channel[members[0]])
        & (cands.diam >= lo)
        & (cands.diam <= hi)
        & (cands.contrast >= 0.6 * weakest)
    )
    if not like.any():
        return False
    like_k = np.flatnonzero(like)
    gap = cands.xy[like_k, None, :] - cands.xy[None, members, :]
    touching = 0.5 * (cands.diam[like_k, None] + diam[None, :])
    apart = (np.hypot(gap[..., 0], gap[..., 1]) >= touching).all(axis=1)
    return bool(apart.any())


#: A blob like a face's pips lies on the face up to this many grid steps from its centre
#: along the grid's lines (the face's edge is about 1.8 steps out), and off the grid's nodes
#: when this many steps from the nearest (:func:`_uncounted_pip`).
_UNCOUNTED_REACH = 1.6
_OFF_NODE = 0.45


def _pips_unlike(blur: Image, pts: npt.NDArray[np.float32]) -> bool:
    """True when the pips of a two or three (centres ``pts``) are of unlike colours: the pips
    of one die are painted alike and seen on one face, so a white pip and a yellow "pip" (a
    corner of a yellow die touching it) are no one face, whatever their shapes.

    Colour is taken in the a-b plane of OpenCV's Lab, at each pip's middle pixel and its
    four neighbours in ``blur`` (:func:`_sample_around`), for pips of ``_PIP_LIT``
    lightness or more. Pips unlike: one colourful (chroma over ``_PIP_CHROMA``) beside one
    far greyer (under ``_PIP_GREYER`` of its chroma), or two colourful ones whose hues lie
    over ``_PIP_HUE_APART`` degrees apart. A paint seen lighter or darker (a marbled die's
    swirls under its pips, a glint) keeps its hue."""
    bgr = _sample_around(blur, pts, 1.0)
    lab = cv2.cvtColor(bgr[:, None, :] / 255.0, cv2.COLOR_BGR2Lab)[:, 0]
    # Dark pips show no reliable hue (a colour cast tints them at random).
    ab = lab[lab[:, 0] >= _PIP_LIT, 1:]
    if ab.shape[0] < 2:
        return False
    chroma = np.hypot(ab[:, 0], ab[:, 1])
    most = float(chroma.max())
    if most <= _PIP_CHROMA:
        return False
    if float(chroma.min()) < _PIP_GREYER * most:
        return True
    hue = np.degrees(np.arctan2(ab[:, 1], ab[:, 0]))
    apart = np.abs((hue[:, None] - hue[None, :] + 180.0) % 360.0 - 180.0)
    return float(apart.max()) > _PIP_HUE_APART


#: See :func:`_pips_unlike` (lightness 0..100 and chroma in the a-b units of OpenCV's float
#: Lab, hue in degrees). Under a tungsten cast (``vision.evaluate --perturb warm=0.35``)
#: nell_byler_d6's dark pips measured chromas of 10 to 35 at random, and a green die's two
#: yellow pips, each blended with the green, hues 47 degrees apart.
_PIP_LIT = 30.0
_PIP_CHROMA = 25.0
_PIP_GREYER = 0.4
_PIP_HUE_APART = 60.0


def _starker_beside(
    cands: PipCandidates, members: npt.NDArray[np.intp], center: tuple[float, float], size: float
) -> bool:
    """True when two or more blobs like a two's or three's pips (polarity, plane, about their
    size) but far starker lie on its die, nearer its centre than any pip of a die touching it
    can: the faint pips are the middle row of a six, or part of a bigger face, whose stark
    pips the fit left out (:func:`_check_face` asks about such a face)."""
    rel = np.hypot(cands.xy[:, 0] - center[0], cands.xy[:, 1] - center[1])
    like = (
        _alike(cands, members, least_diam=0.7, least_roundness=0.0)
        & (rel <= _STARKER_REACH * size)
        & (cands.diam <= 1.6 * float(cands.diam[members].max()))
        & (cands.contrast >= _STARKER * float(cands.contrast[members].max()))
    )
    like[members] = False
    return int(like.sum()) >= 2


#: See :func:`_starker_beside`: blobs this many face sides from a two's or three's centre
#: (a touching die's nearest pip lies about 0.72 out) and this many times starker.
_STARKER_REACH = 0.62
_STARKER = 1.5


def _square(
    center: tuple[float, float], side: float, angle: float
) -> tuple[tuple[float, float], ...]:
    box = cv2.boxPoints((center, (side, side), np.rad2deg(angle)))
    return tuple((float(x), float(y)) for x, y in box)


def _axes_of(fit: FaceFit) -> Axes | None:
    """A fit's grid axes (:attr:`_Die.axes`), for four pips or more."""
    if fit.axes is None or fit.value < 4:
        return None
    (ax, ay), (bx, by) = fit.axes.tolist()
    return ((float(ax), float(ay)), (float(bx), float(by)))


#: Least side of a one's face, as its colour grows around the pip, in pip diameters; for a
#: big stark pip (:func:`_big_one_pip`), ``_BIG_ONE_SIDE``.
_ONE_SIDE = 2.8
_BIG_ONE_SIDE = 2.2
#: Pips like a one's lie on its face only this many of its widths from it or nearer.
_ONE_BESIDE = 3.0


def _square_blob(planes: npt.NDArray[np.uint8], cands: PipCandidates, k: int) -> bool:
    """Whether candidate ``k`` is a square rather than a disc: its blob (cut at half its
    contrast, on its plane) fills its least rectangle as a square does (a disc fills
    pi/4 of its box, 0.79; a die with rounded corners 0.9 or more). A dark die round in
    its shadow, or a plain one on a light floor, measures nearly as round as a pip by the
    widths across it, not by its corners."""
    plane = planes[int(cands.channel[k])]
    h, w = plane.shape
    x, y = (float(v) for v in cands.xy[k])
    half = int(np.ceil(1.2 * float(cands.diam[k])))
    x0, y0 = max(0, int(x) - half), max(0, int(y) - half)
    x1, y1 = min(w, int(x) + half + 1), min(h, int(y) + half + 1)
    pol = float(cands.polarity[k])
    level = float(cands.ring_gray[k]) + 0.5 * pol * float(cands.contrast[k])
    window = plane[y0:y1, x0:x1].astype(np.float32)
    mask = (pol * (window - level) > 0).astype(np.uint8)
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    at = labels[min(int(y) - y0, labels.shape[0] - 1), min(int(x) - x0, labels.shape[1] - 1)]
    if n <= 1 or at == 0:
        return False
    blob = (labels == at).astype(np.uint8)
    if blob[0].any() or blob[-1].any() or blob[:, 0].any() or blob[:, -1].any():
        return False  # it runs on beyond the window (or the photo): no shape to judge
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return False
    contour = max(contours, key=cv2.contourArea)
    (_cx, _cy), (rw, rh), _angle = cv2.minAreaRect(contour)
    box = float(rw * rh)
    fill = float(cv2.contourArea(contour)) / box if box > 0 else 0.0
    return fill >= _SQUARE_FILL


#: Least diameter (work pixels) of pips that may be whole dice with pips of their own
#: (:func:`_dice_as_pips`): the counter reads a face's pips from about 2 px up.
_DIE_AS_PIP = 12.0
#: ... and the single-face counter's least confidence in the face it reads on each ...
_DIE_AS_PIP_SURE = 0.6
#: ... in a reading of at most this many faces.
_FEW_FACES = 2


def _dice_as_pips(image: Image, pts: npt.NDArray[np.float32], diam: float) -> bool:
    """Whether every one of a face's pips (centres ``pts`` (K, 2), ``diam`` wide) is a
    whole die: the single-face counter, on a window one and a half pips wide around it,
    reads a face of two pips or more there.

    Small dice lying apart on a plain floor make the pips of a "giant" face: three white
    dice in a row on red felt read as a three 150 px wide. A pip holds no pips: a window
    round a real pip reads as a one (the pip on its face) or nothing, and at most one pip
    of a real face (beside a six's close-set column) read as a two on the shared photos
    and the renders, where every pip of the two giant faces read as a face of two or more.
    Pips narrower than ``_DIE_AS_PIP`` are not looked into: dice that small show no pips
    the counter can count.
    """
    if pts.shape[0] < 2 or diam < _DIE_AS_PIP:
        return False
    for x, y in pts.tolist():
        if not _holds_marks(image, (x, y), diam):
            return False
        crop, _x0, _y0 = window(image, (x, y), 0.75 * diam)
        if min(crop.shape[:2]) < 8:
            return False
        face = read_face(crop)
        if face.value is None or face.value < 2 or face.confidence < _DIE_AS_PIP_SURE:
            return False
    return True


def _holds_marks(image: Image, centre: tuple[float, float], diam: float) -> bool:
    """Whether the blob of diameter ``diam`` at ``centre`` holds marks unlike it the other
    way: in its middle (eight tenths of its radius) a pixel set off from the blob's own level,
    away from the level around it, by ``_MARK_STEP`` of the blob's contrast (a die's pips
    on the die; a pip is one level, save a glint). A cheap look before the counter's."""
    r = 0.5 * diam
    crop, x0, y0 = window(image, centre, int(np.ceil(1.3 * r)))
    grey = (crop.astype(np.float32) @ PLANE_TRANSFORM[0, :3]) if crop.ndim == 3 else crop
    yy, xx = np.mgrid[y0 : y0 + crop.shape[0], x0 : x0 + crop.shape[1]]
    dist = np.hypot(xx - centre[0], yy - centre[1])
    core, ring = grey[dist <= 0.8 * r], grey[(dist >= 1.1 * r) & (dist <= 1.3 * r)]
    if core.size == 0 or ring.size == 0:
        return False
    level, around = float(np.median(core)), float(np.median(ring))
    away = np.sign(around - level)  # from the blob's level towards the floor's
    return bool(float(np.max(away * (core - level))) > _MARK_STEP * abs(around - level))


#: A mark in a blob's middle is set off from its level by this share of the blob's contrast
#: (:func:`_holds_marks`).
_MARK_STEP = 0.5


#: Least diameter (work pixels) of a lone blob whose corners tell a square from a disc ...
_SHAPED_BLOB = 16.0
#: ... and the share of its least rectangle a square blob fills (a disc 0.79; drawn dark
#: dice on a light floor 0.96-0.98, 0.955 with a drop shadow rounding a corner). At 0.9 or
#: 0.93 every photo of the shared sets reads as without the test (``python -m
#: vision.evaluate``).
_SQUARE_FILL = 0.93


def _big_one_pip(cands: PipCandidates, k: int, params: ReaderParams) -> bool:
    """Whether candidate ``k`` may be a one's big pip on a face that shows little of its
    colour around it (many dice make the one's pip much wider than the others', and the
    face's lit colour may not reach its bevelled edges): stark (six times the least pip
    contrast), round and ringed by one colour all around, with no candidate nearly its size
    within three of its diameters (a four's or a five's pips are all alike, while on such
    dice the pips of the dice touching a one are smaller than its pip)."""
    if (
        float(cands.uniformity[k]) < 0.95
        or float(cands.roundness[k]) < 0.8
        or float(cands.contrast[k]) < 6.0 * params.min_pip_contrast
    ):
        return False
    x, y = (float(v) for v in cands.xy[k])
    reach = 3.0 * float(cands.diam[k])
    return not _pips_beside(cands, k, (x, y), reach, least_diam=0.8, least_roundness=0.0)


def _round_enough(roundness: npt.NDArray[np.float32], params: ReaderParams) -> bool:
    """Whether a face's pips (their roundness) look like pips seen from above."""
    return (
        float(mean_rows(roundness)) >= params.min_face_roundness and float(roundness.min()) >= 0.5
    )


def _check_face(
    fit: FaceFit,
    cands: PipCandidates,
    planes: npt.NDArray[np.uint8],
    blur: Image,
    params: ReaderParams,
) -> _Die | None:
    """Turn a fitted layout into a die with a confidence, or None when it is not a die."""
    members = np.array(fit.members, np.intp)
    quality_support = 1.0  # the face around a two's or three's pips (below)
    glared = False  # a one's "pip" is glare on a face of pips of the other shade
    # A lone blob must look like a pip seen from above: round (a glare spot is not).
    if fit.value == 1:
        k = members[0]
        roundness_k = float(cands.roundness[k])
        if roundness_k < params.min_one_roundness:
            return None
        # A flattened lone blob (a camera looking aslant) must be as stark as a pip to be
        # worth growing a face around: faint ones are grain and felt, many and costly.
        if roundness_k < _ROUND_ONE and float(cands.contrast[k]) < 4.0 * params.min_pip_contrast:
            return None
    # A blob as wide as a die's pip may be a whole die, square: two or three dice in a row
    # on a darker floor fit a two or a three as well as they fit ones.
    for k in members.tolist():
        if float(cands.diam[k]) >= _SHAPED_BLOB and _square_blob(planes, cands, k):
            return None
    roundness = cands.roundness[members]
    if not _round_enough(roundness, params) and fit.value >= _CROWDED:
        # Four pips or more may crowd their face: measured apart from each other.
        roundness = roundness_apart(planes, cands, members)
    if not _round_enough(roundness, params):
        return None
    mean_round = float(mean_rows(roundness))
    diam = float(mean_rows(cands.diam[members]))
    contrast = cands.contrast[members]
    mean_contrast = float(mean_rows(contrast))
    pol = float(cands.polarity[members[0]])
    # The pips' plane (grey or a colour plane) and the face's level on it.
    channel = int(cands.channel[members[0]])
    plane = planes[channel]
    face_gray = float(mean_rows(cands.ring_gray[members]))
    traits = (pol, channel, diam, mean_contrast)
    quality_pips = _pips_alike(contrast, roundness)
    if fit.value == 1:
        region = _face_region(fit, cands, blur, 6.0 * diam)
        if region is None:
            return None
        centre, side, angle_deg, outline = region
        if side > 10.0 * diam:
            return None
        if side < _ONE_SIDE * diam and not (
            side >= _BIG_ONE_SIDE * diam and _big_one_pip(cands, k, params)
        ):
            return None
        if np.hypot(centre[0] - fit.center[0], centre[1] - fit.center[1]) > 0.25 * side:
            return None
        step, angle = 0.27 * side, float(np.deg2rad(angle_deg))
        empty = grid_places(fit.center, step, angle, AROUND_CENTRE)
        fit = fit._replace(step=step, angle=angle, empty_places=empty)
        size = side
        quality_ghost, glint = _empty_places(fit, plane, traits, face_gray, params)
        # A one shows one pip: another pip like it on the same face means the face is not
        # a one (the centre pip of a five whose other pips were not fitted, for one).
        # (A pip further than _ONE_BESIDE of its widths is not its face's: the corner pips
        # of a three or a five whose middle pip this is lie nearer, and the empty grid
        # places above look for them too; a camera looking aslant shows the front face's
        # pips beyond, inside the colour grown from the one's pip.)
        beside = _pips_beside(cands, int(members[0]), centre, 0.4 * side, within=_ONE_BESIDE)
        quality_fit = 0.5 if beside else 1.0
        # A face's pips are all of one shade: a light "pip" amid dark ones is glare on a
        # face whose pips it may hide.
        glared = _other_shade_beside(cands, int(members[0]), centre, side, params)
        if channel > 0 and _grey_pips_beside(cands, int(members[0]), centre, side, params):
            quality_fit = min(quality_fit, 0.5)
        if pol > 0 and channel == 0 and not glared:
            glared = _dark_pips_around(plane, empty, face_gray, side, 0.165 * diam, params)
    else:
        size = 3.6 * fit.step
        outline = _square(fit.center, size, fit.angle)
        residual = fit.residual
        if _foreshortened_as_pips(fit, cands):
            residual = min(residual, fit.affine_residual)
        quality_fit = 1.0 - 0.5 * residual / params.max_grid_residual
        quality_ghost, glint = _empty_places(fit, plane, traits, face_gray, params)
        if min(quality_fit, quality_ghost, quality_pips) < params.min_die_confidence:
            # The confidence below (their least) would refuse the face: the costlier
            # measures of its surroundings are not taken.
            return None
        # The face around the grid must be one colour: the strip between the outer pips and
        # the face's edge, and the empty grid places. Pips that are really on two dice, or
        # on a die and the floor, leave part of this "face" on something else.
        # Four pips or more in a die's layout are evidence enough; two or three may be
        # specks or pips of two dice.
        if fit.value <= 3:
            if _in_a_row(cands, members, params.max_face_color_dist, blur):
                return None
            if _pips_unlike(blur, cands.xy[members]):
                return None
            support = _face_support(blur, fit, cands.ring_bgr[members], mean_contrast, pol, channel)
            if support < 0.35:
                return None
            uniform, distinct, face_colour, apart = _face_evidence(
                blur, fit.center, size, fit.angle, cands.xy[members], diam
            )
            # Pips at the smallest size searched are the weakest evidence (render or sensor
            # noise makes such specks): their face must stand out on two sides.
            least = params.min_face_distinct * (2.0 if diam < 1.4 * params.min_pip_px else 1.0)
            if uniform < params.min_face_uniformity:
                return None
            # A face the colour of its floor may stand out by its outline alone, when it is
            # big enough for its edge to be told from specks beside it.
            if distinct < least and not (
                diam >= 1.4 * params.min_pip_px
                and size >= _OUTLINE_SIDE
                and _outlined(blur, fit.center, size, fit.angle, face_colour, apart)
            ):
                return None
            quality_support = 0.5 + (support - 0.5) / 0.6
    if fit.value >= 3 and _uncounted_pip(cands, members, fit.center, fit.step, fit.angle):
        return None
    face_bgr = mean_rows(cands.ring_bgr[members])
    face_bright = float(face_bgr @ PLANE_TRANSFORM[0, :3])
    quality_glare = (
        1.0
        - 0.5
        * _glare_share(blur, fit, size, face_bright, cands.xy[members], diam)
        / params.max_glare_share
    )
    if glared or glint:
        quality_glare = min(quality_glare, DOUBTED)
    if (
        fit.value >= _GLARED_LAYOUT
        and min(quality_fit, quality_ghost, quality_pips, quality_support) >= params.min_confidence
    ):
        # Three pips or more that fit their layout well, on a face that a highlight covers
        # in good part: a die under glare, asked about, never taken for no die (it was not
        # found at all before session 43).
        quality_glare = max(quality_glare, params.min_die_confidence)
    qualities = (quality_fit, quality_ghost, quality_pips, quality_glare, quality_support)
    confidence = float(np.clip(min(qualities), 0.0, 1.0))
    if confidence < params.min_die_confidence:
        # Far from any die layout: a pattern on a wall or a tray rim, not an unreadable die.
        return None
    value: int | None = fit.value if confidence >= params.min_confidence else None
    six_corners = value == 4 and _six_corners(fit, float(np.median(roundness)))
    doubt = "" if value is not None else _doubt(fit.value, int(np.argmin(qualities)))
    if six_corners:
        value, doubt = None, doubts.SIX_CORNERS
    if value is None and fit.value == 2:
        # Two doubtful blobs are far more often specks or a side face than a die.
        return None
    squash = min(fit.squash, mean_round)
    return _Die(
        value,
        fit.center,
        float(size),
        confidence,
        outline,
        squash,
        (float(face_bgr[0]), float(face_bgr[1]), float(face_bgr[2])),
        fit.value,
        axes=_axes_of(fit),
        six_corners=six_corners,
        amid=value in (2, 3) and _starker_beside(cands, members, fit.center, size),
        pips=tuple((float(x), float(y)) for x, y in cands.xy[members]),
        doubt=doubt,
    )


def _empty_places(
    fit: FaceFit,
    plane: Image,
    traits: tuple[float, int, float, float],
    face_gray: float,
    params: ReaderParams,
) -> tuple[float, bool]:
    """How far a fitted face's empty grid places are from holding a missed pip (1.0: not
    at all; lower as the darkest, or brightest, place nears its pips' contrast), and whether
    a blown-out place may hide a pip under glare. ``plane`` is the pips' plane and ``traits``
    their polarity, plane (0 grey), mean diameter and mean contrast; ``face_gray`` the
    face's level on that plane."""
    if not fit.empty_places.shape[0]:
        return 1.0, False
    pol, channel, diam, mean_contrast = traits
    # The grid place and four points a sixth of a pip across from it.
    vals = _sample_around(plane, fit.empty_places, 0.165 * diam)
    ghost = float(np.max(pol * (vals - face_gray))) / mean_contrast
    glint = False
    if pol < 0 and channel == 0 and fit.value <= _HIDES_A_PIP:
        # Glare over an empty place of a face of dark pips may hide a pip there (of a
        # face with more pips: a five or a six has no place a hidden pip would turn
        # into another face); the ghost test above sees only marks of the pips' shade.
        brightest = float(np.max(vals))
        glint = (
            face_gray < _WHITE_FACE
            and brightest >= _BLOWN
            and brightest - face_gray > _GLINT * mean_contrast
        )
    return 1.0 - 0.5 * max(0.0, ghost) / params.max_ghost_pip_ratio, glint


def _pips_alike(contrast: npt.NDArray[np.float32], roundness: npt.NDArray[np.float32]) -> float:
    """How alike a face's pips are (1.0 for one pip): pips much fainter than their siblings
    are back-face pips showing through, or noise, and pips of one face are foreshortened
    alike (a round top-face pip with a flattened side-face pip beside it is not one face)."""
    if contrast.shape[0] < 2:
        return 1.0
    alike = float(contrast.min() / contrast.max())
    alike *= float(np.sqrt(roundness.min() / max(float(roundness.max()), 1e-6)))
    return min(1.0, 0.15 + alike)


#: The most pips a face shows that a pip hidden on one of its empty places turns into
#: another face (a four into a five or a six).
_HIDES_A_PIP = 4
#: The widest and the narrowest pip, as a share of its face's side (a highlight on a
#: die's rounded edge or the shade of a translucent die's corner is narrower).
_PIP_OF_FACE = 0.4
_LEAST_PIP_OF_FACE = 0.12
#: An empty pip place of a face of dark pips, blown out (``_BLOWN``) and brighter than the
#: face by this share of the pips' contrast, is glare that may hide a pip
#: (:func:`_check_face`); a motion-blurred white die's face is brighter away from its pips
#: by more than their faint contrast, but not blown out.
_GLINT = 0.8
#: Grey level of a blown-out point, and of a face too white for glare to show on it.
_BLOWN = 240
_WHITE_FACE = 215.0


def _other_shade_beside(
    cands: PipCandidates, k: int, centre: tuple[float, float], side: float, params: ReaderParams
) -> bool:
    """Whether two stark round grey-plane candidates of the shade opposite pip ``k``'s,
    beside it (:func:`_beside`) and as wide as pips of a face ``side`` wide, lie on that
    face (centred at ``centre``): pips of a face whose pips are of the other shade, ``k``
    being glare on it."""
    other = _stark_grey(
        cands, -cands.polarity[k], _LEAST_PIP_OF_FACE * side, _PIP_OF_FACE * side, params
    ) & (cands.roundness >= _ROUND_ONE)
    return int(np.count_nonzero(other & _beside(cands, k, centre, 0.45 * side))) >= 2


def _stark_grey(
    cands: PipCandidates, polarity: float, least: float, most: float, params: ReaderParams
) -> npt.NDArray[np.bool_]:
    """The grey-plane candidates of ``polarity``, ``least`` to ``most`` px wide, at least
    twice the least pip contrast: pips a glance would call pips."""
    return np.asarray(
        (cands.polarity == polarity)
        & (cands.channel == 0)
        & (cands.contrast >= 2.0 * params.min_pip_contrast)
        & (cands.diam >= least)
        & (cands.diam <= most),
        bool,
    )


def _grey_pips_beside(
    cands: PipCandidates, k: int, centre: tuple[float, float], side: float, params: ReaderParams
) -> bool:
    """Whether a one whose pip ``k`` was found on a colour plane alone has two stark pips of
    its shade on the grey plane beside it, half to twice its size, on its die: within 0.45
    of the larger of its face's ``side`` and ``_DIE_OF_PIP`` times its pip's diameter (the
    face grown from a colour-plane pip on a marbled die may stop far short of the die's
    edge). The colour plane found one pip of a bigger face whose others the grey plane
    shows (nell_byler_d6 train `IMG_20191208_111411`: a yellow marbled four read as a one
    from its corner pip, session 43)."""
    d = float(cands.diam[k])
    grey = _stark_grey(cands, cands.polarity[k], 0.5 * d, 2.0 * d, params)
    reach = 0.45 * max(side, _DIE_OF_PIP * d)
    return int(np.count_nonzero(grey & _beside(cands, k, centre, reach))) >= 2


#: A die's side in diameters of a pip found on a colour plane, at most (see
#: :func:`_grey_pips_beside`): pips are a fifth or a sixth of their die, and a colour plane
#: may measure one smaller than the grey plane does.
_DIE_OF_PIP = 7.0


def _dark_pips_around(
    grey: Image,
    places: npt.NDArray[np.float32],
    face_gray: float,
    side: float,
    spread: float,
    params: ReaderParams,
) -> bool:
    """Whether two or more of a light one's empty pip places (``places``, on the grey plane
    ``grey`` of a face ``side`` wide and ``face_gray`` grey; each sampled as
    :func:`_sample_around` does, ``spread`` px across) hold a dark pip: a spot darker
    than the face by twice the least pip contrast and by ``_DARK_PIP`` of the face's grey,
    with the face around it (the median of eight points ``_DARK_RING`` of a side away comes
    back within ``_DARK_BACK`` of the way from the spot to the face; a broad dark stretch
    of a translucent or marbled body runs on over most of the ring instead).

    The "one" is then glare on a face of dark pips the pip search did not find, as
    :func:`_other_shade_beside` says of pips it found: on a die darker than its floor, dark
    pips a fifth of the face wide join the body's dark edge in the search's blocks and are
    never candidates. Measured (session 43): `benchmarks/glare.py` misreads 48 dice of 600
    instead of 57 (its red dice's highlights read as ones), and no die of the 1,801 shared
    and sample photos reads otherwise."""
    vals = _sample_around(grey, places, spread)
    darker = face_gray - vals
    spots = darker >= max(2.0 * params.min_pip_contrast, _DARK_PIP * face_gray)
    if int(np.count_nonzero(spots)) < 2:
        return False
    # Eight points around each spot (the directions faces are seeded in), sampled at once.
    at = places[spots].astype(np.float64)
    around = np.stack(
        [at[:, :1] + _SEED_COS * (_DARK_RING * side), at[:, 1:] + _SEED_SIN * (_DARK_RING * side)],
        axis=2,
    ).astype(np.float32)
    ring = _sample_around(grey, around.reshape(-1, 2), 0.0).reshape(-1, 8)
    back = np.median(ring, axis=1) >= face_gray - _DARK_BACK * darker[spots]
    return int(np.count_nonzero(back)) >= 2


#: The fewest pips of a face kept, asked about, when only glare lowers its confidence
#: below the floor (:func:`_check_face`).
_GLARED_LAYOUT = 3
#: See :func:`_dark_pips_around`.
_DARK_PIP = 0.3
_DARK_RING = 0.16
_DARK_BACK = 0.35


def _doubt(value: int, weakest: int) -> str:
    """Why a face fitted as ``value`` is uncertain, from its weakest quality in
    :func:`_check_face` (0 fit, 1 an empty pip place, 2 its pips alike, 3 glare, 4 the face
    around a two's or three's pips)."""
    if weakest == 0:
        return doubts.ONE_BESIDE if value == 1 else doubts.off_grid(value)
    if weakest == 1:
        return doubts.ghost(value)
    if weakest == 2:
        return doubts.unlike(value)
    if weakest == 3:
        return doubts.GLARE
    return doubts.unsupported(value)
