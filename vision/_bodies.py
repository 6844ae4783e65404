"""Dice the pip search missed, found by their bodies and read by the single-face counter.

The pip-first reader needs every pip of a face to stand out cleanly from the face around
it; small marbled dice with low-contrast or coloured pips often leave it a pip or two
short. Their bodies still stand out from the floor. This pass models the floor as a
heavily smoothed copy of the photo, takes compact blobs that differ from it and have the
size of the bodies of the dice already read (the dice of one photo lie at about one
distance from the camera), and counts each blob's pips with
:func:`vision._count.read_face`. A blob of dice touching a die already read (or a wall with
dice against it) is searched with the read dice cut out of it, at its peaks and then on a
grid (a die hemmed in by read dice has no peak of its own); a compact heap of dice touching
only each other is split into as many dice as its area holds. Dice near a wall, merged with
it where the smoothed floor is off, are parted from it by a floor smoothed less. Counts below
a least confidence are dropped: a blob that is a coin, a hole in the board or a shadow has
no pip layout, so it adds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from vision import _doubts as doubts
from vision._count import NO_PIPS, FaceCount, pips_of_another_hue, read_face

Image = npt.NDArray[np.uint8]


class BodyDie(NamedTuple):
    """A die read from its body (work-image pixels): value, centre, side, confidence,
    outline (4 corners) and its mean pip diameter."""

    value: int
    center: tuple[float, float]
    size: float
    confidence: float
    outline: tuple[tuple[float, float], ...]
    pip_diam: float
    #: Why it is doubted when the single-face counter refused it for an empty pip place that
    #: looks like a pip (see :func:`_doubted`), else "".
    doubt: str = ""


class LoneBody(NamedTuple):
    """A taken die's own body: the turn of its edges in degrees in [0, 90), its side and the
    centre of its least rectangle, in work-image pixels."""

    turn: float
    side: float
    center: tuple[float, float]


class UnsureBody(NamedTuple):
    """A die-sized body that is a die whose pips could not be counted (work-image pixels):
    its centre, side and outline (its least rectangle's 4 corners), and why when it is not
    the usual "its pips could not be counted" (:mod:`vision._doubts`)."""

    center: tuple[float, float]
    size: float
    outline: tuple[tuple[float, float], ...]
    doubt: str = ""


class BodyPass(NamedTuple):
    """What the body pass found: the dice it read, for each taken die its own body (None
    where that body is shared with other dice, cut by the frame or not square), the
    die-sized bodies whose pips could not be counted, ``(x, y, side)`` in work pixels, and
    those of them that are a die all the same (``unsure``: a filled square with texture in
    its middle, see :func:`_textured`, where the counter saw blobs like pips)."""

    dice: list[BodyDie]
    lone: list[LoneBody | None]
    unread: list[tuple[float, float, float]]
    unsure: list[UnsureBody]


#: The floor model is built at this many pixels per die side (coarse is enough: it must
#: only follow the light falling off across the tray).
_MODEL_PX_PER_DIE = 3.0
#: Least difference from the floor model of a die's body: the sum of the Lab channels'
#: differences, lightness halved (8-bit Lab units).
_MIN_BODY_CONTRAST = 14.0
#: Area of a body, as a share of a lone die's body already read (or of the side guessed
#: from the pips): half a die is left out, and so are two touching ones.
_AREA_RANGE = (0.5, 1.7)
#: ... but a lone blob down to this share of the smallest lone die's body read in the photo
#: is a die's too (see :func:`_least_area`).
_SMALLEST_BODY = 0.9
#: A strand leaving a body (:func:`_strands`): it touches the body grown by this share of its
#: side, reaches this many sides from its middle and is at most this share of a side wide.
_STRAND_GAP = 0.25
_STRAND_REACH = 1.6
_STRAND_WIDTH = 0.3
#: Largest blob searched all over for dice, in lone dice's areas (a bigger one only beside
#: the dice read in it).
_MAX_CLUSTER = 8.0
#: A heap of two dice that the counter cannot part is looked at as one die when its blob is
#: at most this many lone dice's areas (a die a third wider than those read, nearer the
#: camera: 1.8 times the area).
_ONE_BIG_DIE = 2.5
#: A lone die's body is square when its sides differ by at most this ratio (its shadow
#: lengthens it a little).
_SQUARE = 1.35
#: A body whose sides differ by up to this ratio may still be a die (with its shadow).
_ROUGH = 2.2
#: Bodies are looked for at about this many pixels per die side.
_BODY_PX = 18.0
#: A die read in a blob of dice is counted again in a window reaching this many of its sides
#: around its pips ...
_RECOUNT_HALF = 0.75
#: ... and when that count sees more pips but is unsure, the die keeps this confidence (a
#: coin toss: below any least confidence for a value, so it is reported uncertain).
DOUBTED = 0.5
#: Dice squeezed between dice read (see :func:`_read_cluster`): a grid of windows this many
#: dice apart, where at least this share of a die is left of the blob around, each
#: confirmed in a window reaching this share of a die around its pips.
_GRID_STEP = 0.3
_GRID_MIN_DIST = 0.15
_GRID_RECOUNT_HALF = 0.6
#: Near a wall (a blob far bigger than a few dice) the floor is modelled again by a median
#: over this many dice (see :func:`find_body_dice`).
_BAND_MODEL_DICE = 0.8
#: Dice parted from a wall by colour are cut from its thin lines (its crease, its edges) by
#: an opening this share of a die's side wide.
_WALL_CUT = 0.35
#: ... and the wall is modelled by a median reaching this many dice each way (about six
#: across; the floor's reaches 1.6).
_WALL_MODEL_DICE = 3.0
#: A die's side over the side of its pips' grid face (3.6 grid steps), when no lone die's
#: body says better: dice have a margin around their pips.
_BODY_SIDE_PER_FACE = 1.4


def find_body_dice(
    work: Image,
    die_side: float,
    taken: list[tuple[float, float, float]],
    *,
    min_confidence: float = 0.8,
) -> BodyPass:
    """Dice in ``work`` (H, W, 3 BGR uint8) that are not ``taken``, read one by one.

    ``taken`` holds ``(x, y, side)`` of the dice already read (work pixels) and
    ``die_side`` their typical side as their pips suggest; the bodies of the taken dice
    give the size a body must have (with none taken, ``die_side`` alone does). A die-sized
    blob that holds a taken die is skipped; a bigger one is searched with the taken dice cut
    out. Readings below ``min_confidence`` are dropped. The taken
    dice's own lone bodies (turn and side) come back too, to check the faces read on them.
    """
    h, w = work.shape[:2]
    if die_side < 6.0 or min(h, w) < 4 * die_side:
        return BodyPass([], [None] * len(taken), [], [])
    # Bodies are looked for at about _BODY_PX pixels per die; pips are read at full size.
    # Bilinear reduction: a third of pixel averaging's cost, and the threshold below follows
    # the noise it leaves.
    factor = max(1, int(die_side / _BODY_PX))
    bw_, bh_ = w // factor, h // factor
    body_img: Image = work[: bh_ * factor, : bw_ * factor]
    if factor > 1:
        body_img = np.asarray(
            cv2.resize(body_img, (bw_, bh_), interpolation=cv2.INTER_LINEAR), dtype=np.uint8
        )
    scale = 1.0 / factor
    lab = cv2.cvtColor(body_img, cv2.COLOR_BGR2LAB)
    model_scale = _MODEL_PX_PER_DIE / (die_side * scale)
    sw, sh = max(8, round(bw_ * model_scale)), max(8, round(bh_ * model_scale))
    lab_small = cv2.resize(lab, (sw, sh), interpolation=cv2.INTER_AREA)
    # Median over about three dice: one die (or two touching) is an outlier in it.
    k = 2 * int(1.6 * _MODEL_PX_PER_DIE) + 1
    floor_small = cv2.medianBlur(lab_small, k)
    floor = cv2.resize(floor_small, (bw_, bh_), interpolation=cv2.INTER_LINEAR)
    diff = _lab_distance(lab, floor)
    noise = float(np.median(diff[::3, ::3]))
    contrast = max(_MIN_BODY_CONTRAST, 4.0 * noise)
    # Opening with a quarter die cuts the thin bridges (shadows, reflections) between dice.
    r = max(1, int(0.12 * die_side * scale))
    unlike = diff > contrast
    mask = _closed_opened(unlike, r)
    n, labels_mat, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    labels = np.asarray(labels_mat, np.int32)
    # The taken dice's own bodies say how big a die's blob is here.
    holders: dict[int, int] = {}
    held: list[int] = []
    for tx, ty, _ts in taken:
        ix = int(np.clip(round(tx * scale), 0, bw_ - 1))
        iy = int(np.clip(round(ty * scale), 0, bh_ - 1))
        lab_id = int(labels[iy, ix])
        held.append(lab_id)
        if lab_id:
            holders[lab_id] = holders.get(lab_id, 0) + 1
    lone = [
        _lone(labels, stats[i], i, scale)
        if i and holders[i] == 1 and _inside(stats[i], bw_, bh_)
        else None
        for i in held
    ]
    single = [float(stats[i, cv2.CC_STAT_AREA]) for i, c in holders.items() if c == 1]
    guess = (_BODY_SIDE_PER_FACE * die_side * scale) ** 2
    # Lone dice's blobs say how big (and how square) a die's blob is in this photo.
    from_lone = len(single) >= 2
    if from_lone:
        expected = float(np.median(single))
    else:
        # Too few lone dice read: the die-shaped blobs of the photo measure a die better
        # than the pips read when those are a face's pips short (a five read as a two is
        # fitted smaller than its die); pips never make a die look bigger than it is, so
        # the blobs may only raise the size.
        alike = _square_areas(np.asarray(stats, np.int32), bw_, bh_, guess)
        expected = max(guess, float(np.median(alike))) if len(alike) >= 2 else guess
    least_area = _least_area(single, expected, die_side * scale)
    found: list[BodyDie] = []
    unread: list[tuple[float, float, float]] = []
    unsure: list[UnsureBody] = []
    side = float(np.sqrt(expected))
    # Places in blobs of dice where a die's room is left but its pips could not be counted.
    missed: list[tuple[float, float, float]] = []
    cluster = partial(
        _read_cluster,
        work,
        labels,
        side=side,
        scale=scale,
        taken=taken,
        min_confidence=min_confidence,
        missed=missed,
    )

    def read_lone(
        labels: npt.NDArray[np.int32],
        stat: npt.NDArray[Any],
        cent: npt.NDArray[Any],
        i: int,
        least: int = 1,
        ask: bool = True,
    ) -> None:
        """Count one lone die-sized blob ``i`` of ``labels`` (into ``found``, or ``unread``
        and, when it is a die all the same and ``ask``, ``unsure``); a count of fewer than
        ``least`` pips is no die."""
        x, y, cw, ch = (int(v) for v in stat[:4])
        area = float(stat[cv2.CC_STAT_AREA])
        if any(
            np.hypot(cent[0] / scale - tx, cent[1] / scale - ty) < 0.7 * ts
            for tx, ty, ts in _places(taken, found)
        ):
            return
        comp = (labels[y : y + ch, x : x + cw] == i).astype(np.uint8)
        outline, _hull, ((rx, ry), (ra, rb), ang) = _shape(comp)
        if not _filled_square(outline, ra, rb):
            if min(ra, rb) > 0 and max(ra, rb) <= _ROUGH * min(ra, rb):
                # A die with its shadow, say: too rough a square for the face counter, but
                # worth a closer look by the pip reader.
                unread.append((cent[0] / scale, cent[1] / scale, float(np.sqrt(area)) / scale))
            return
        # The crop for counting, from the full-size image.
        m = 0.2 * max(cw, ch) + 2
        x0, y0 = max(0, int((x - m) / scale)), max(0, int((y - m) / scale))
        x1, y1 = min(w, int((x + cw + m) / scale) + 1), min(h, int((y + ch + m) / scale) + 1)
        crop = np.ascontiguousarray(work[y0:y1, x0:x1])
        face = _doubted(read_face(crop))
        if face.value is not None and face.value < least:
            return
        centre = ((rx + x) / scale, (ry + y) / scale)
        body_side = float(np.sqrt(ra * rb)) / scale
        box = cv2.boxPoints((centre, (ra / scale, rb / scale), ang))
        corners = tuple((float(px), float(py)) for px, py in box)
        if face.value is None or face.confidence < min_confidence or not face.pips:
            unread.append((*centre, body_side))
            if not ask:
                return
            if _washed_out(work, centre, body_side):
                # A flash or a lamp mirrored in a glossy face: its pips are lost in the glare.
                unsure.append(UnsureBody(centre, body_side, corners, doubts.WASHED_OUT))
            elif (
                _textured(work, centre, body_side, noise)
                and (face.reason != NO_PIPS or pips_of_another_hue(crop))
                and _strands(unlike, comp, x, y) < 2
            ):
                # The counter saw pip-like blobs it could not fit to a face, or none at all
                # on a die with spots of another hue than its face: coloured pips too small
                # or too faint to part from a dark marbled face (a black cable clip, a
                # tray's rim or a die's side face has none). Not a body a cable or a strap
                # runs through (:func:`_strands`): a cable's black clip.
                unsure.append(UnsureBody(centre, body_side, corners))
            return
        pips = np.array(face.pips, np.float32)
        cx, cy = float(pips[:, 0].mean()) + x0, float(pips[:, 1].mean()) + y0
        if not comp[
            int(np.clip(cy * scale - y, 0, ch - 1)), int(np.clip(cx * scale - x, 0, cw - 1))
        ]:
            return  # pips off the body: a reading of something beside it
        found.append(
            BodyDie(
                face.value,
                (cx, cy),
                body_side,
                float(face.confidence),
                corners,
                float(pips[:, 2].mean()),
                "" if face.suspect is None else doubts.ghost(face.value),
            )
        )

    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        if i in holders:
            if _AREA_RANGE[1] * expected < area:
                # Dice touching a die already read: one die at each peak of the blob.
                # A blob far bigger than a few dice is a wall, a rim or a shadow with dice
                # against it: only beside the dice read there is a die likely.
                beside = area > _MAX_CLUSTER * expected
                found.extend(cluster(stats[i], i, beside_taken=beside))
            elif (
                holders[i] == 1
                and from_lone
                and area >= _PAIR_AREA * expected
                and _elongated(labels, stats[i], i, expected)
            ):
                # One read die with another beside it: a lone die's blob holds its shadow
                # and side faces, so two dice side by side, shading each other, may have
                # less than twice its area, but they never make a square. Each holds half
                # the blob. Only where lone dice's blobs say what a die's blob is here: a
                # die seen aslant has a long blob of its own.
                found.extend(cluster(stats[i], i, side=float(np.sqrt(0.5 * area))))
            continue
        x, y, cw, ch = (int(v) for v in stats[i, :4])
        if x == 0 or y == 0 or x + cw >= bw_ or y + ch >= bh_:
            continue  # cut by the frame: its face may be too
        if _AREA_RANGE[1] * expected < area <= _MAX_CLUSTER * expected:
            # Dice touching only each other: a heap, not a wall or a shadow's streak.
            if _compact(labels[y : y + ch, x : x + cw] == i, area):
                parts = cluster(stats[i], i, heap=round(area / expected))
                found.extend(parts)
                if not parts and area <= _ONE_BIG_DIE * expected:
                    # Not two dice after all: one die nearer the camera than those read
                    # (a filled square, which two dice side by side never make).
                    read_lone(labels, stats[i], cents[i], i)
            continue
        if not least_area <= area <= _AREA_RANGE[1] * expected:
            continue
        read_lone(labels, stats[i], cents[i], i)
    walls = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > _MAX_CLUSTER * expected]
    if walls:
        # Dice near a wall or a rim merge with it in the band along its edge where a median
        # over three dice is off: a floor model over fewer dice parts them from the wall.
        # Lone dice and heaps touching only each other are read there (a lone pip is too
        # little to call a die on a wall's edge, or on the rim of a close-up's big pip).
        k_band = 2 * int(_BAND_MODEL_DICE * _MODEL_PX_PER_DIE) + 1
        floor = cv2.resize(
            cv2.medianBlur(lab_small, k_band), (bw_, bh_), interpolation=cv2.INTER_LINEAR
        )
        in_walls = np.isin(labels, walls)
        mask = _closed_opened((_lab_distance(lab, floor) > contrast) & in_walls, r)
        nb, band_mat, band_stats, band_cents = cv2.connectedComponentsWithStats(
            mask, connectivity=8
        )
        band = np.asarray(band_mat, np.int32)
        for j in range(1, nb):
            if not _inside(band_stats[j], bw_, bh_):
                continue  # cut by the frame: its face may be too
            x, y, cw, ch = (int(v) for v in band_stats[j, :4])
            area = float(band_stats[j, cv2.CC_STAT_AREA])
            if _AREA_RANGE[0] * expected <= area <= _AREA_RANGE[1] * expected:
                # (read_lone leaves a blob around a die read alone.)
                read_lone(band, band_stats[j], band_cents[j], j, least=2)
            elif _AREA_RANGE[1] * expected < area <= _MAX_CLUSTER * expected and _compact(
                band[y : y + ch, x : x + cw] == j, area
            ):
                # A heap, the dice read in it cut out (as in the first pass's clusters).
                heap = round(area / expected)
                known = _places(taken, found)
                found.extend(
                    b
                    for b in _read_cluster(
                        work,
                        band,
                        band_stats[j],
                        j,
                        side,
                        scale,
                        known,
                        min_confidence,
                        heap=heap,
                        missed=missed,
                    )
                    if b.value >= 2
                )
        # A die against a wall or a rim of another colour than its own is parted from it by
        # that colour (see _parted_from_walls).
        colours = _floor_colours(floor_small, taken, scale * model_scale)
        if colours:
            r_wall = max(1, int(_WALL_CUT * die_side * scale))
            nw, parted, wall_stats, wall_cents = _parted_from_walls(
                lab, lab_small, in_walls, colours, contrast, r_wall
            )
            for j in range(1, nw):
                area = float(wall_stats[j, cv2.CC_STAT_AREA])
                if _inside(wall_stats[j], bw_, bh_) and (
                    _AREA_RANGE[0] * expected <= area <= _AREA_RANGE[1] * expected
                ):
                    # Only a face counted there is a die: a piece of the wall's own pattern
                    # may have a die's size too.
                    before = len(found)
                    read_lone(parted, wall_stats[j], wall_cents[j], j, least=2, ask=False)
                    found[before:] = [_against_wall(b) for b in found[before:]]
    if side / scale <= _MISSED_BODY_MOST * die_side:
        unsure.extend(_missed_dice(work, missed, _places(taken, found), unsure, noise))
    return BodyPass(found, lone, unread, unsure)


#: The places missed in blobs of dice (:func:`_missed_dice`) are asked about only when the
#: body size this pass takes for a die is at most this many times the side the faces read
#: give it (a body is its face with a margin and a shadow: the pass guesses 1.4 times,
#: ``_BODY_SIDE_PER_FACE``; two nell photos traced in session 39 measured 1.6 and 1.7):
#: where lone blobs hold heaps of dice, a "die-sized" piece is a heap too.
_MISSED_BODY_MOST = 2.5


def _missed_dice(
    work: Image,
    missed: list[tuple[float, float, float]],
    places: list[tuple[float, float, float]],
    unsure: list[UnsureBody],
    noise: float,
) -> list[UnsureBody]:
    """The dice in blobs of dice whose pips could not be counted (``missed``, see
    :func:`_read_cluster`): each place that no die read or asked about holds, once, when its
    middle is textured as a die's face is (:func:`_textured`). A dark marbled die with red
    pips touching dice read is asked about, as it is when it lies alone, not left out."""
    held = [*places, *((u.center[0], u.center[1], u.size) for u in unsure)]
    out: list[UnsureBody] = []
    for cx, cy, s in missed:
        if _held((cx, cy), s, held):
            continue
        if not _textured(work, (cx, cy), s, noise):
            continue
        box = cv2.boxPoints(((cx, cy), (s, s), 0.0))
        out.append(UnsureBody((cx, cy), s, tuple((float(bx), float(by)) for bx, by in box)))
        held.append((cx, cy, s))
    return out


def _textured(work: Image, centre: tuple[float, float], side: float, noise: float) -> bool:
    """Whether the middle of a body at ``centre`` with ``side`` (work pixels) holds
    texture: the spread of its Lab channels (summed standard deviations, 8-bit units) at
    least ``_TEXTURED`` and ``_TEXTURE_OVER_NOISE`` times the photo's difference from its
    floor model (``noise``).

    A die's face holds pips, marbling or glare even where no pip can be counted; a hole in
    a clipboard, a coin's flat face or a shadow is flat inside. The cut was set with a
    session diagnostic that no project command reproduces (its figures are in session 25's
    closing note): on nell_byler_d6's 250 photos the square bodies on dice whose pips no
    reading counted spread far above 10, the board's punched holes below 5;
    ``python -m vision.evaluate`` measures what the rule changes.
    """
    middle, _x0, _y0 = window(work, centre, _TEXTURE_MIDDLE * side)
    if min(middle.shape[:2]) < 3:
        return False
    _mean, deviation = cv2.meanStdDev(cv2.cvtColor(middle, cv2.COLOR_BGR2LAB))
    return float(deviation.sum()) >= max(_TEXTURED, _TEXTURE_OVER_NOISE * noise)


def _strands(unlike: npt.NDArray[np.bool_], comp: npt.NDArray[np.uint8], x: int, y: int) -> int:
    """How many thin strands leave a lone body: pieces of ``unlike`` (the body image's
    pixels unlike the floor, before the opening that parts blobs) that touch the body
    ``comp`` (0/1, its box's top-left corner at ``x, y``) grown by ``_STRAND_GAP`` of its
    side, reach ``_STRAND_REACH`` sides or more from its middle and are at most
    ``_STRAND_WIDTH`` of a side wide on average. A cable through a black clip makes two; a
    die's shadow is short and wide, and a die touching it is wide.

    On the shared photos the two black cable clips asked about as dice had two each; none of
    the 107 dice asked about as bodies had two (one had one, a thin shadow).
    """
    h, w = unlike.shape
    side = float(np.sqrt(comp.sum()))
    cx, cy = x + comp.shape[1] / 2, y + comp.shape[0] / 2
    half = int(np.ceil((_STRAND_REACH + 0.5) * side))
    x0, y0 = max(0, int(cx) - half), max(0, int(cy) - half)
    x1, y1 = min(w, int(cx) + half + 1), min(h, int(cy) + half + 1)
    body = np.zeros((y1 - y0, x1 - x0), np.uint8)
    body[y - y0 : y - y0 + comp.shape[0], x - x0 : x - x0 + comp.shape[1]] = comp
    r = max(1, round(_STRAND_GAP * side))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    grown = np.asarray(cv2.dilate(body, disc), np.uint8) > 0
    rest = unlike[y0:y1, x0:x1] & ~grown
    edge = (np.asarray(cv2.dilate(grown.astype(np.uint8), np.ones((3, 3), np.uint8))) > 0) & ~grown
    n, labels = cv2.connectedComponents(rest.astype(np.uint8), connectivity=8)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    far = np.hypot(xx - cx, yy - cy)
    strands = 0
    for i in range(1, n):
        piece = labels == i
        if not np.any(piece & edge):
            continue
        reach = float(far[piece].max())
        width = float(piece.sum()) / max(1.0, reach - 0.75 * side)
        if reach >= _STRAND_REACH * side and width <= _STRAND_WIDTH * side:
            strands += 1
    return strands


def _least_area(single: list[float], expected: float, face_side: float) -> float:
    """The least area of a lone blob that is a die's body (body-image pixels): half a lone
    die's (``_AREA_RANGE``), or a little less than the smallest lone die's body read in the
    photo when at least two are, whichever is less. ``single`` holds the areas of the blobs
    that each hold one die read; those smaller than half the face its pips were fitted to
    (``face_side`` wide) are no bodies (a pip, a key of a keyboard read as a die).

    A photo of dice of several colours on a light floor makes bodies of unlike sizes: a
    light die's blob holds its shadow, a dark die's blob is the die alone, at half the
    area or less (on nell_byler_d6's photos a dark die read by its pips made a blob 0.47
    times the median lone die's)."""
    least = _AREA_RANGE[0] * expected
    bodies = [a for a in single if a >= 0.5 * face_side**2]
    if len(bodies) >= 2:
        least = min(least, _SMALLEST_BODY * min(bodies))
    return least


def _washed_out(work: Image, centre: tuple[float, float], side: float) -> bool:
    """Whether the middle of a body at ``centre`` with ``side`` (work pixels) is blown out,
    a light mirrored in the face: its median clipped (``_BLOWN_OUT``) in its brightest
    channel and nearly white (``_WHITISH``) in its darkest (a coloured die's own tint stays
    in a mirrored flash; a bright yellow or green face clips one channel, not all)."""
    middle, _x0, _y0 = window(work, centre, _TEXTURE_MIDDLE * side)
    if min(middle.shape[:2]) < 3:
        return False
    median = np.median(middle.reshape(-1, 3), axis=0)
    return bool(median.max() >= _BLOWN_OUT and median.min() >= _WHITISH)


#: :func:`_washed_out`: the least median of a blown-out face's middle in its brightest
#: channel and in its darkest.
_BLOWN_OUT = 250.0
_WHITISH = 225.0


#: :func:`_textured`: the middle measured (half its width, in die sides), the least spread
#: and how far above the photo's own difference from its floor model it must lie.
_TEXTURE_MIDDLE = 0.3
_TEXTURED = 10.0
_TEXTURE_OVER_NOISE = 3.0


#: :func:`find_dice_anywhere` looks for bodies on a copy this many pixels on its short side
#: (a smaller photo as it is),
#: against a floor model smoothed over this share of it (dice up to a fifth of the short side
#: stay outliers in the median), and takes bodies up to this share of the short side as dice.
_ANYWHERE_PX = 320
_ANYWHERE_FLOOR = 0.3
_ANYWHERE_MAX_SIDE = 0.2


def find_dice_anywhere(work: Image, *, min_confidence: float) -> BodyPass:
    """Dice found by their bodies alone, in a photo where the pip search read none.

    Without a die read there is no size to look for, so the size comes from the bodies
    themselves: blobs unlike a floor model smoothed over about a third of the photo (a die
    is an outlier in it, a die's pips are not bodies in it) that are filled squares, their
    median side. Those dice are then looked for as :func:`find_body_dice` does, each read by
    the single-face counter at ``min_confidence`` or more.
    """
    h, w = work.shape[:2]
    # A photo already that small (a 320x240 webcam frame) is looked at as it is.
    f = min(1.0, _ANYWHERE_PX / min(h, w))
    small = work
    if f < 1.0:
        small = np.asarray(
            cv2.resize(work, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA), np.uint8
        )
    short = min(small.shape[:2])
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    # The floor model on a copy half the size: the median's cost grows with its reach.
    half = cv2.resize(lab, (lab.shape[1] // 2, lab.shape[0] // 2), interpolation=cv2.INTER_AREA)
    k = 2 * round(0.25 * _ANYWHERE_FLOOR * short) + 1
    floor = cv2.resize(
        cv2.medianBlur(half, k), (lab.shape[1], lab.shape[0]), interpolation=cv2.INTER_LINEAR
    )
    diff = _lab_distance(lab, floor)
    noise = float(np.median(diff))
    mask = (diff > max(_MIN_BODY_CONTRAST, 4.0 * noise)).astype(np.uint8)
    n, labels, stats, _cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    sh, sw = mask.shape
    sides = []
    for i in range(1, n):
        x, y, cw, ch, area = (int(v) for v in stats[i])
        if area < 9 or not _inside(stats[i], sw, sh):
            continue
        outline, _hull, (_c, (ra, rb), _a) = _shape(
            (labels[y : y + ch, x : x + cw] == i).view(np.uint8)
        )
        if max(ra, rb) <= _ANYWHERE_MAX_SIDE * short and _filled_square(outline, ra, rb):
            sides.append(float(np.sqrt(ra * rb)) / f)
    if not sides:
        return BodyPass([], [], [], [])
    return find_body_dice(
        work, float(np.median(sides)) / _BODY_SIDE_PER_FACE, [], min_confidence=min_confidence
    )


def _closed_opened(mask: npt.NDArray[np.bool_], r: int) -> npt.NDArray[np.uint8]:
    """``mask`` as 0/1 with its pinholes closed (3 px) and then opened by a disc ``r`` px
    round: thin bridges, lines and specks narrower than the disc are gone."""
    small = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    closed = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, small)
    return np.asarray(cv2.morphologyEx(closed, cv2.MORPH_OPEN, disc), np.uint8)


def _parted_from_walls(
    lab: npt.NDArray[Any],
    lab_small: npt.NDArray[Any],
    in_walls: npt.NDArray[np.bool_],
    colours: list[npt.NDArray[Any]],
    contrast: float,
    r_cut: int,
) -> tuple[int, npt.NDArray[np.int32], npt.NDArray[Any], npt.NDArray[Any]]:
    """Connected components (count, labels, stats, centroids) of the pixels of the blobs
    ``in_walls`` that differ by more than ``contrast`` both from the floor's ``colours`` and
    from the wall around them, opened by a disc ``r_cut`` pixels round (the wall's crease
    and edges are thin lines unlike both; :func:`_closed_opened`).

    The wall is modelled as the floor is (a median of ``lab_small``, the floor model's
    scale, here over about six dice), from the wall's pixels alone, those unlike every floor
    colour: the others are set to black and white in a checkerboard, half below and half
    above any wall colour, so that they leave the median where the wall's own put it.
    """
    sh, sw = lab_small.shape[:2]
    on_wall_small = _off_floor(lab_small, colours, contrast)
    board = (np.indices((sh, sw)).sum(axis=0) % 2 * 255).astype(np.uint8)
    wall_lab = np.where(on_wall_small[..., None], lab_small, board[..., None])
    # Over more dice than the floor's model: a wall's band may be narrower than a die, and
    # the dice against it must stay a minority of the wall's pixels around them.
    k_wall = 2 * int(_WALL_MODEL_DICE * _MODEL_PX_PER_DIE) + 1
    h, w = lab.shape[:2]
    wall = cv2.resize(cv2.medianBlur(wall_lab, k_wall), (w, h), interpolation=cv2.INTER_LINEAR)
    on_wall = (_lab_distance(lab, wall) > contrast) & in_walls & _off_floor(lab, colours, contrast)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(
        _closed_opened(on_wall, r_cut), connectivity=8
    )
    return n, np.asarray(labels, np.int32), stats, cents


def _against_wall(b: BodyDie) -> BodyDie:
    """A die parted from a wall by colour, asked about when it was counted a 2 or a 3: its
    face lies against the wall's shade and edge, where the corner pips of a 4, 5 or 6 are
    lost first, and a 2 or a 3 is a 4's, 5's or 6's diagonal (renders of the evaluation set:
    a 5 on a rim read as a 3; nell: a marbled 4 against a white wall read as a 2)."""
    if b.value not in (2, 3):
        return b
    return b._replace(confidence=min(b.confidence, DOUBTED), doubt=doubts.against_wall(b.value))


def _floor_colours(
    floor_small: npt.NDArray[Any], taken: list[tuple[float, float, float]], scale: float
) -> list[npt.NDArray[Any]]:
    """The floor model's colours (``floor_small``, at ``scale`` of work pixels) where the
    dice ``taken`` lie: the floor's, in light and in shade; colours within a third of the
    least body contrast of one kept (their channels' differences summed) are kept once."""
    h, w = floor_small.shape[:2]
    colours: list[npt.NDArray[Any]] = []
    for tx, ty, _ts in taken:
        x = int(np.clip(round(tx * scale), 0, w - 1))
        y = int(np.clip(round(ty * scale), 0, h - 1))
        colour = floor_small[y, x].astype(np.int16)
        if all(np.abs(colour - c).sum() > _MIN_BODY_CONTRAST / 3 for c in colours):
            colours.append(colour)
    return [c.astype(np.uint8) for c in colours]


def _off_floor(
    lab: npt.NDArray[Any], colours: list[npt.NDArray[Any]], least: float
) -> npt.NDArray[np.bool_]:
    """Pixels of ``lab`` that differ by more than ``least`` from every one of the floor's
    ``colours`` (:func:`_lab_distance`): walls, rims, the table and dice."""
    off = np.ones(lab.shape[:2], bool)
    flat = np.empty_like(lab)
    for colour in colours:
        flat[:] = colour
        off &= _lab_distance(lab, flat) > least
    return off


def _filled_square(outline: npt.NDArray[Any], ra: float, rb: float) -> bool:
    """Whether a blob with this outer ``outline`` and least rectangle ``ra`` by ``rb`` is
    shaped like a lone die's body: about square and filled (pips and glare can leave holes
    in a body without changing its outline)."""
    return (
        min(ra, rb) > 0
        and max(ra, rb) <= 1.5 * min(ra, rb)
        and float(cv2.contourArea(outline)) >= 0.7 * ra * rb
    )


def _lab_distance(lab: npt.NDArray[Any], floor: npt.NDArray[Any]) -> Image:
    """Per pixel difference of two Lab images: the sum of the channels' differences with
    lightness halved, saturated at 255 (a soft shadow darkens the floor without changing
    its hue, while a die differs in hue, or in lightness by far more than a shadow does)."""
    c0, c1, c2 = cv2.split(cv2.absdiff(lab, floor))
    return np.asarray(cv2.add(cv2.add(np.right_shift(c0, 1), c1), c2), dtype=np.uint8)


def _square_areas(
    stats: npt.NDArray[np.integer[Any]], width: int, height: int, guess: float
) -> list[float]:
    """Areas of the blobs that could be lone dice: clear of the frame, their boxes about
    square and at least half filled (a square turned 45 degrees fills half its box), and
    within a third to three times the ``guess`` (in blob pixels squared)."""
    out = []
    for stat in stats[1:]:
        cw, ch, area = int(stat[2]), int(stat[3]), float(stat[4])
        if not (_inside(stat, width, height) and guess / 3.0 <= area <= 3.0 * guess):
            continue
        if max(cw, ch) <= 1.3 * min(cw, ch) and area >= 0.5 * cw * ch:
            out.append(area)
    return out


def _inside(stat: npt.NDArray[np.integer[Any]], width: int, height: int) -> bool:
    """Whether a blob's box stays clear of the image's edges."""
    x, y, cw, ch = (int(v) for v in stat[:4])
    return x > 0 and y > 0 and x + cw < width and y + ch < height


def _shape(
    comp: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[Any], npt.NDArray[Any], tuple[Sequence[float], Sequence[float], float]]:
    """A blob's (0/1 mask) outer outline, its convex hull and the least rotated rectangle
    around it (OpenCV's ``((cx, cy), (w, h), angle)``)."""
    contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(outline)
    return outline, hull, cv2.minAreaRect(hull)


def _least_rect(
    labels: npt.NDArray[np.integer[Any]], stat: npt.NDArray[np.integer[Any]], label: int
) -> tuple[tuple[float, float], tuple[float, float], float]:
    """The least rotated rectangle around blob ``label`` (its row of stats ``stat``):
    ``((cx, cy), (w, h), angle)``, the centre in the labels' pixels."""
    x, y, cw, ch = (int(v) for v in stat[:4])
    comp = (labels[y : y + ch, x : x + cw] == label).astype(np.uint8)
    _outline, _hull, ((bx, by), (ra, rb), angle) = _shape(comp)
    return (x + float(bx), y + float(by)), (float(ra), float(rb)), float(angle)


def _lone(
    labels: npt.NDArray[np.integer[Any]],
    stat: npt.NDArray[np.integer[Any]],
    label: int,
    scale: float,
) -> LoneBody | None:
    """A lone die's body (blob pixels are ``scale`` times the work image's); None if it is
    not square."""
    (bx, by), (ra, rb), angle = _least_rect(labels, stat, label)
    if min(ra, rb) < 4.0 or max(ra, rb) > _SQUARE * min(ra, rb):
        return None
    centre = (float(bx) / scale, float(by) / scale)
    return LoneBody(float(angle) % 90.0, float(np.sqrt(ra * rb)) / scale, centre)


#: A blob holding one read die, at least this share of a lone die's blob and elongated
#: (its least rectangle this many times longer than wide, and as long as this many lone
#: dice's blobs), holds another die beside it. A die seen aslant has a blob as elongated
#: (its top and front faces), but so have the lone dice of that photo.
_PAIR_AREA = 1.2
_PAIR_RATIO = 1.5


def _elongated(
    labels: npt.NDArray[np.integer[Any]],
    stat: npt.NDArray[np.integer[Any]],
    label: int,
    lone_area: float,
) -> bool:
    """Whether a blob's least rotated rectangle is ``_PAIR_RATIO`` times longer than wide
    and than the side of a lone die's blob of ``lone_area``."""
    _centre, (ra, rb), _angle = _least_rect(labels, stat, label)
    long, short = max(ra, rb), min(ra, rb)
    return short > 0 and long >= _PAIR_RATIO * max(short, float(np.sqrt(lone_area)))


def _compact(comp: npt.NDArray[Any], area: float, *, longest: float = 3.0) -> bool:
    """Whether a blob is a heap of dice rather than a wall, a rim or a long shadow: it fills
    most of its hull and its least rectangle is at most ``longest`` times longer than wide."""
    _outline, hull, (_centre, (ra, rb), _ang) = _shape(comp.astype(np.uint8))
    return area >= 0.6 * float(cv2.contourArea(hull)) and max(ra, rb) <= longest * min(ra, rb)


def _read_cluster(
    work: Image,
    labels: npt.NDArray[np.integer[Any]],
    stat: npt.NDArray[np.integer[Any]],
    label: int,
    side: float,
    scale: float,
    taken: list[tuple[float, float, float]],
    min_confidence: float,
    *,
    beside_taken: bool = False,
    heap: int = 0,
    missed: list[tuple[float, float, float]] | None = None,
) -> list[BodyDie]:
    """Dice in one blob of touching dice: with the taken dice cut out of the blob, a die
    square around each peak of the distance to the edge of what is left. ``side`` is a
    die's side in blob pixels, which are ``scale`` times the work image's. With
    ``beside_taken`` only peaks within two dice of a taken die are read. A ``heap`` of
    that many dice touching only each other (a ridge, not peaks, in the distance) is split
    into as many dice by k-means on its pixels instead. The places ``(x, y, side)`` (work
    pixels) of the peaks (not along a wall or a rim) whose piece of the blob is a die's
    body (:func:`_dice_left`) but whose pip-like blobs the counter could not fit to a face go
    into ``missed`` when given (see :func:`find_body_dice`)."""
    x, y, cw, ch = (int(v) for v in stat[:4])
    comp = np.pad((labels[y : y + ch, x : x + cw] == label).astype(np.uint8), 1)
    # Take the dice already read out of the blob: what is left of a die's size is a die.
    for tx, ty, ts in taken:
        bx, by = tx * scale - x + 1, ty * scale - y + 1
        # By its own size: dice of many sizes may lie in one photo.
        radius = max(0.62 * side, 0.8 * ts * scale)
        if -radius <= bx < cw + 2 + radius and -radius <= by < ch + 2 + radius:
            cv2.circle(comp, (round(bx), round(by)), round(radius), 0, -1)
    dist = cv2.distanceTransform(comp, cv2.DIST_L2, 3)
    k = max(3, 2 * int(0.35 * side) + 1)
    peaks = (dist >= cv2.dilate(dist, np.ones((k, k), np.uint8))) & (dist >= 0.3 * side)
    if beside_taken:
        around = np.zeros_like(comp)
        for tx, ty, ts in taken:
            reach = max(1.7 * side, 1.7 * ts * scale)
            cv2.circle(
                around, (round(tx * scale - x + 1), round(ty * scale - y + 1)), round(reach), 1, -1
            )
        peaks &= around.astype(bool)
    out: list[BodyDie] = []
    # A heap's dice are read in tighter windows: their neighbours' pips stand all round.
    half = (0.55 if heap >= 2 else 0.75) * side / scale
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-dist[ys, xs], kind="stable")
    if heap >= 2:
        pts = np.column_stack(np.nonzero(comp)[::-1]).astype(np.float32)
        if len(pts) < 4 * heap:
            return out  # the dice read beside it took the heap's pixels
        # Started from equal slices along the heap's long axis, so that the same photo
        # always gives the same dice (OpenCV's random starts would not).
        axis = np.linalg.eigh(np.cov((pts - pts.mean(axis=0)).T))[1][:, -1]
        rank = np.argsort(np.argsort(pts @ axis, kind="stable"), kind="stable")
        start = (rank * heap // len(pts)).astype(np.int32).reshape(-1, 1)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
        _c, _l, centres = cv2.kmeans(pts, heap, start, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
        xs, ys = np.round(centres[:, 0]).astype(int), np.round(centres[:, 1]).astype(int)
        order = np.arange(heap)
    n_peaks = len(order)
    if heap < 2 and (
        not beside_taken
        or _compact(labels[y : y + ch, x : x + cw] == label, float(stat[cv2.CC_STAT_AREA]))
    ):
        # A die squeezed between dice already read has no peak of its own: windows on a grid
        # over what is left of the blob follow the peaks, each kept only when a count
        # centred on its pips agrees (below). Not along a wall or a rim (a long blob, or one
        # wrapped round the tray), whose marks a grid of windows would read as dice.
        grid = np.zeros_like(peaks)
        step = max(2, int(_GRID_STEP * side))
        grid[::step, ::step] = True
        gys, gxs = np.nonzero(grid & ~peaks & (dist >= _GRID_MIN_DIST * side))
        g = np.argsort(-dist[gys, gxs], kind="stable")
        ys, xs = np.concatenate([ys[order], gys[g]]), np.concatenate([xs[order], gxs[g]])
        order = np.arange(len(ys))
    # Peaks whose count failed though the counter saw pip-like blobs: (px, py, cx, cy).
    uncounted: list[tuple[int, int, float, float]] = []
    for i in order:
        px, py = int(xs[i]), int(ys[i])
        cx, cy = (px - 1 + x + 0.5) / scale - 0.5, (py - 1 + y + 0.5) / scale - 0.5
        if _held((cx, cy), side / scale, _places(taken, out)):
            continue
        crop, x0, y0 = window(work, (cx, cy), half)
        if min(crop.shape[:2]) < 1.2 * half:
            continue
        face = _doubted(read_face(crop, hint_size_px=side / scale))
        if face.value is None or face.confidence < min_confidence or not face.pips:
            if i < n_peaks and face.reason != NO_PIPS:
                uncounted.append((px, py, cx, cy))
            continue
        pips = np.array(face.pips, np.float32)
        fx, fy = float(pips[:, 0].mean()) + x0, float(pips[:, 1].mean()) + y0
        if np.hypot(fx - cx, fy - cy) > 0.35 * side / scale:
            continue  # the pips of a neighbour
        s = side / scale
        value, confidence = face.value, float(face.confidence)
        # The window was centred on the blob's peak, which may lie off the die's middle:
        # it can cut off a column of a four or six, and what is left is a sure two or
        # three. Counted again around the pips read, a die with pips cut off shows them.
        crop, x0, y0 = window(work, (fx, fy), _RECOUNT_HALF * s)
        again = read_face(crop)
        if again.value is not None and again.value > value:
            if again.confidence < min_confidence:
                confidence = min(confidence, DOUBTED)
            else:
                value, confidence = again.value, min(confidence, float(again.confidence))
                pips = np.array(again.pips, np.float32)
                fx, fy = float(pips[:, 0].mean()) + x0, float(pips[:, 1].mean()) + y0
        if i >= n_peaks:
            # A grid window may hold a die's corner and a neighbour's pips: its die must be
            # sure, and its count hold in a tight window centred on the pips read. A lone
            # pip or a pair found so is as likely the strong pips of a faint four, a mark
            # on a cable or a label, or two neighbours' pips.
            if value <= 2 or confidence <= DOUBTED:
                continue
            bx = round((fx + 0.5) * scale - 0.5) - x + 1
            by = round((fy + 0.5) * scale - 0.5) - y + 1
            if not (0 <= bx < cw + 2 and 0 <= by < ch + 2 and comp[by, bx]):
                continue  # pips between dice read: of two neighbours
            again = read_face(window(work, (fx, fy), _GRID_RECOUNT_HALF * s)[0], hint_size_px=s)
            if again.value != value or again.confidence < min_confidence:
                continue
        box = cv2.boxPoints(((fx, fy), (s, s), 0.0))
        out.append(
            BodyDie(
                value,
                (fx, fy),
                s,
                confidence,
                tuple((float(bx), float(by)) for bx, by in box),
                float(pips[:, 2].mean()),
            )
        )
    if missed is not None and not beside_taken and uncounted:
        # The rows and columns of ``comp`` inside the frame (a blob's pixels on the frame's
        # edge may go on beyond it).
        inside = (
            2 if x == 0 else 1,
            2 if y == 0 else 1,
            cw if x + cw >= labels.shape[1] else cw + 1,
            ch if y + ch >= labels.shape[0] else ch + 1,
        )
        left = _dice_left(comp, uncounted, side, inside)
        missed.extend((cx, cy, side / scale) for cx, cy in left)
    return out


def _dice_left(
    comp: npt.NDArray[np.uint8],
    peaks: list[tuple[int, int, float, float]],
    side: float,
    inside: tuple[int, int, int, int],
) -> list[tuple[float, float]]:
    """The work-pixel centres ``(cx, cy)`` of the ``peaks`` ``(px, py, cx, cy)`` of ``comp``
    (a blob with the dice read cut out, padded by one pixel) whose piece of it is a die's
    body, each piece judged once: die-sized (:data:`_AREA_RANGE` of ``side`` squared), not
    cut by the frame (``inside``: the rows and columns of ``comp`` that lie within the
    frame, ``(x0, y0, x1, y1)``, end exclusive), and no longer than a die with its shadow
    (:data:`_ROUGH`), as full as :func:`_compact` asks of a heap. A cable, a label or a
    keyboard touching a die read leaves a long, ragged or bigger piece."""
    _n, pieces = cv2.connectedComponents(comp, connectivity=8)
    x0, y0, x1, y1 = inside
    judged: dict[int, bool] = {}
    out = []
    for px, py, cx, cy in peaks:
        label = int(pieces[py, px])
        if label == 0:
            continue
        if label not in judged:
            piece = (pieces == label).astype(np.uint8)
            area = float(np.count_nonzero(piece))
            # Cut by the frame (its face may be too) when it reaches the frame's edge.
            judged[label] = (
                _AREA_RANGE[0] * side * side <= area <= _AREA_RANGE[1] * side * side
                and area == float(np.count_nonzero(piece[y0:y1, x0:x1]))
                and _compact(piece, area, longest=_ROUGH)
            )
        if judged[label]:
            out.append((cx, cy))
    return out


def _held(
    centre: tuple[float, float], side: float, places: list[tuple[float, float, float]]
) -> bool:
    """Whether a die of ``side`` at ``centre`` lies on one of ``places`` ``(x, y, side)``:
    within 0.7 of the bigger side of the two (work pixels)."""
    cx, cy = centre
    return any(np.hypot(cx - px, cy - py) < 0.7 * max(side, ps) for px, py, ps in places)


def _places(
    taken: list[tuple[float, float, float]], found: list[BodyDie]
) -> list[tuple[float, float, float]]:
    """``(x, y, side)`` of the dice taken and of the dice found so far (work pixels)."""
    return [*taken, *((b.center[0], b.center[1], b.size) for b in found)]


def _doubted(face: FaceCount) -> FaceCount:
    """``face``, or when it was refused only for an empty pip place that looks like a pip,
    the face its pips fit at a coin toss's confidence: the die is there, and is reported
    uncertain rather than left out."""
    if face.value is None and face.suspect is not None:
        return replace(face, value=face.suspect, confidence=min(face.confidence, DOUBTED))
    return face


def edge_turn(work: Image, centre: tuple[float, float], half: float) -> tuple[float, float]:
    """The turn of the edges around ``centre`` (a square window reaching ``half`` pixels),
    in degrees in [0, 90), and how strongly they agree on it, from 0 (no direction: round
    pips, grain) to 1 (every edge on one square's sides).

    Each pixel's gradient direction is taken four times over, so edges a quarter turn apart
    agree, and averaged weighted by the gradient's energy: a die's outline against the
    floor outweighs its round pips, whose directions cancel. Unlike the least rectangle
    around a die's blob, this does not need the blob's corners, which a small die's shadow
    and the blob's opening round off.
    """
    crop, _x0, _y0 = window(work, centre, half)
    if min(crop.shape[:2]) < 3:
        return 0.0, 0.0
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    energy = gx * gx + gy * gy
    total = float(energy.sum())
    if total <= 0.0:
        return 0.0, 0.0
    mean = complex(np.sum(energy * np.exp(4j * np.arctan2(gy, gx)))) / total
    return float(np.degrees(np.angle(mean)) / 4.0) % 90.0, float(abs(mean))


def window(work: Image, centre: tuple[float, float], half: float) -> tuple[Image, int, int]:
    """The square of ``work`` reaching ``half`` pixels around ``centre`` (cut by the frame),
    contiguous, and its top-left corner ``x0, y0``."""
    h, w = work.shape[:2]
    x0, y0 = max(0, int(centre[0] - half)), max(0, int(centre[1] - half))
    x1, y1 = min(w, int(centre[0] + half) + 1), min(h, int(centre[1] + half) + 1)
    return np.ascontiguousarray(work[y0:y1, x0:x1]), x0, y0
