"""Flag dice that do not lie flat on the tray floor: ``leaning`` and ``off_tray``.

Both flags rest on the camera geometry, not on how a die looks:

- The camera is modelled as a pinhole above the floor plane (from the calibration profile,
  from the tray's corners, or voted for by the dice themselves). For a flat die whose top
  face centre is seen at T, the model predicts where its bottom face lies in the image
  (towards the point straight below the camera, by a share of the die that grows towards
  the frame edges) and so the whole silhouette a flat die must have at that place.
- ``leaning``: a die can only lean on something, a wall (the floor's edge) or another die
  whose top face stands clear of its own. Leaning shows its side face towards that support,
  so its silhouette (the pixels unlike the background filled in behind the die from its
  surroundings) reaches further towards the support than a flat die's would. The shift
  every die of the photo shares (an error of the camera model, the light's direction) is
  taken out first. Perspective alone (side faces showing near the frame edge) is
  predicted, so it does not count.
- ``off_tray``: the die's footprint (the predicted bottom face centre, not the top face)
  lies outside the floor outline, or the die stands on something that is not floor
  (rim or wall top: hardly any floor colour around it at the edge of the floor). A box
  tray's outline is fitted again at full resolution (see :mod:`vision._tray`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraPose, pose_from_nadir, pose_from_quad
from calibration.floor import (
    FloorFit,
    chroma_of_smoothed,
    colour_distance,
    find_floor,
    pixels_at,
    smoothed_for_chroma,
    work_copy,
)
from calibration.profile import TrayProfile, die_top_side_px, die_units_from_sizes, has_moved
from calibration.stats import column_medians, median, percentile
from vision._lean import EdgeField, LeanScore, lean_score
from vision._tray import refine_outline
from vision.result import DieReading, TrayOutline

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: A die leaning by ``theta`` on a wall or a die shows its side face towards that support,
#: which moves its silhouette's centre towards the support by about ``sin(theta) / 2`` die
#: sides beyond where a flat die's would be (0.07 at 8 degrees, 0.13 at 15). After the
#: photo's common offset is taken out, flat dice measured on noisy 20-30 pixel renders still
#: scatter up to ~0.18 towards a neighbour or wall, and real flat dice in a tray (the
#: nell_byler_d6 photos) up to ~0.28, so only a clear lean counts: 0.22 keeps the real
#: photos at 5 of 1795 flat dice (0.18: 9) and flags 12 of 55 15+ degree leans of the
#: renders' dev sets placed from the truth (0.18: 14), none of their 541 flat dice.
LEAN_SHIFT = 0.22
#: Edge evidence (see :mod:`vision._lean`): a die also leans when the leaning cube's edges
#: fit the photo better than the flat cube's by this share of the flat fit and its
#: silhouette reaches at least EDGE_SHIFT die sides towards the same support. Neither is
#: enough alone (flat dice's shadows and neighbours fool each now and then). On the
#: renders' dev and eval sets placed from the truth (1798 flat dice, 145 leans of 15+
#: degrees), with two dice flagged leaning on each other judged as a pair: EDGE_SHIFT 0.12
#: flags 46 leans and 6 flat dice, 0.16 38 and 3; read by the reader (dev sets, 456 flat
#: dice) 0.12 flags 6 flat dice, 0.16 4, so the reader's slips (a die missed beside
#: another, a wrong outline) keep it at 0.16.
EDGE_GAIN = 0.4
EDGE_SHIFT = 0.16
#: A die's top face tilted this much (degrees, as its pips' grid shows it) towards a die
#: flagged leaning on it, within FACE_AIM_DEG, takes the flag over (see
#: :func:`_lean_of_tilted_face`).
FACE_TILT_DEG = 25.0
FACE_AIM_DEG = 30.0
#: Below this overlap (IoU) between the measured and predicted flat silhouettes the
#: measurement is not trusted at all (the die's pixels were not separated from their
#: surroundings). A die leaning 30 degrees overlaps a flat die's silhouette by only about
#: 0.5-0.7 even when measured exactly, so the bar must stay below that.
LEAN_OVERLAP = 0.5
#: Least gap between the top faces of a die and a die it leans on (die sides).
MIN_LEAN_GAP = 0.06
#: Dice measured at least (when there are as many) to learn the shift all dice share. The
#: median of 5 rather than 3 steadies it (the renders' dev sets: 14 of 55 15+ degree leans
#: flagged instead of 12, no flat die flagged) for about two more silhouettes per photo.
COMMON_DICE = 5
#: A support (wall or die) counts when the shift points at it within this angle (degrees).
SUPPORT_ANGLE_DEG = 45.0
#: The footprint may lie this share of a die side outside the found floor outline before
#: the die counts as off the tray. A flat die's footprint lies at least half a die inside
#: the floor's edge; a die on the rim or the table at least a wall's thickness outside it
#: (a third of a die or more): the cut lies between, with room for the outline's error.
OFF_TRAY_MARGIN = 0.4
#: ...unless at least this share of a ring around it has the floor's colour.
FLOOR_AROUND = 0.6
#: ...or its footprint lies this many die sides outside the outline and something unlike
#: the floor (a wall) lies between it and the floor: a rim or a table of the floor's
#: colour shows that colour all round a die, but a die on floor that the outline missed
#: has floor all the way to the outline.
CLEAR_OUTSIDE = 0.9
#: A path from a footprint into the outline crosses no floor for at most this share of a
#: die side when the floor reaches the die (a wall's top or face is wider; a pip of felt
#: noise narrower).
FLOOR_GAP = 0.1
#: Floor in a wall's shadow keeps at least this share of the lit floor's lightness.
SHADE_DEPTH = 0.45
#: Turns (degrees) of the paths tried from the way straight to the outline: one of them
#: passes beside any neighbour.
FLOOR_PATH_TURNS_DEG = (0.0, -30.0, 30.0, -55.0, 55.0)
#: A tray floor is at least this many die sides wide and this many die areas large; a
#: smaller "floor" is something else (a cable, a patch of table between dice).
MIN_FLOOR_WIDTH = 5.0
MIN_FLOOR_AREA = 30.0
#: A footprint this many die sides outside the outline is off the tray whatever the colours.
FAR_OUTSIDE = 2.2
#: Width (die sides) of the disc that opens a die's silhouette: a leak into a shadow or a
#: neighbour joined by a neck narrower than this is cut off.
MASK_OPEN = 0.3
#: Another die owns the pixels within this share of its side from its centre...
OWN_CORE = 0.6
#: ...and those this many times nearer to it than to the measured die (in die sides).
OWN_FACTOR = 2.0
#: Around another die, this share of its side is its own body (top face and side faces),
#: never background to fill in behind the measured die.
OTHER_COVER = 0.8
#: The background behind a die is filled in from its surroundings over a disc this much
#: (die sides) wider than a flat die's half diagonal around its predicted silhouette centre.
BACKGROUND_MARGIN = 0.3
#: A pixel is the die's when it differs from the filled-in background by this many times
#: the background's own difference on the ring outside the disc, and by at least MIN_CONTRAST
#: (weighted 8-bit Lab units: noise and JPEG blocks stay below it).
BACKGROUND_CONTRAST = 6.0
MIN_CONTRAST = 16.0
#: A pixel on the floor colour's shading line within this many times the floor's own
#: spread off it counts as shaded floor.
SHADE_NOISE = 1.0
#: Largest camera tilt believed from a floor outline (degrees); the supported range is 0-20.
MAX_TILT_DEG = 25.0
#: Two dice whose centres lie within this share of their two sides' sum touch, or nearly:
#: a die can lean on the other.
_TOUCH = 0.8
#: Above this many dice in one photo, dice are judged by position only (speed guard).
MAX_MEASURED_DICE = 30
#: Largest die side (pixels) measured at full resolution; larger dice are measured on a
#: reduced crop (precision is a share of the die, so nothing is lost).
_MEASURE_SIDE = 30.0
#: Lightness weight when telling die from floor: a die's side faces differ from the floor
#: mostly in lightness (they are in the die's own shade).
_DIE_L_WEIGHT = 0.35


@dataclass(frozen=True)
class FlagResult:
    """Dice with their flags, the tray floor used (None without a tray) and notes."""

    dice: tuple[DieReading, ...]
    tray: TrayOutline | None
    notes: tuple[str, ...] = ()


@dataclass
class _Scene:
    floor: FloorFit | None
    polygon: FloatArray | None
    floor_lab: tuple[float, float, float] | None
    floor_tol: float
    pose: CameraPose | None
    die_units: float | None
    floor_chroma: npt.NDArray[np.float32] | None = None
    #: A flat die's top-face side in pixels at each die's centre (see :func:`_own_side`)
    #: and each die's top-face centre in the floor frame (see :func:`_top_centre`), worked
    #: out once per photo: a die's are asked for again as each neighbour's.
    top_side_px: dict[tuple[float, float], float] = field(default_factory=dict)
    top_centres: dict[tuple[tuple[float, float], float], FloatArray] = field(default_factory=dict)


def apply_flags(
    image_bgr: Image,
    dice: Sequence[DieReading],
    *,
    profile: TrayProfile | None = None,
) -> FlagResult:
    """Add ``leaning`` / ``off_tray`` flags with evidence to the dice read in ``image_bgr``.

    ``image_bgr`` (H, W, 3) uint8 BGR is the photo as decoded (it may be a reduced copy);
    the dice's centres, sizes and outlines must be in its pixels, and so are the returned
    dice and tray polygon. ``profile`` (any image size of the same view) gives the floor,
    the camera and the die scale; when the photo no longer matches it the tray is found
    again and a note says so. Without a profile the tray is found in the photo itself; with
    no tray there are no ``off_tray`` flags.
    """
    _h, _w = image_bgr.shape[:2]
    notes: list[str] = []
    scene, looks, common = _measured(image_bgr, dice, profile, notes)
    out = []
    verdicts = []
    for i, die in enumerate(dice):
        look = looks[i]
        if look is not None:
            _add_lean_scores(image_bgr, look, scene, common)
        verdicts.append(_judge(look, common) if look is not None else _far_outside(die, scene))
    _one_of_each_pair(verdicts, looks, common)
    _lean_of_tilted_face(verdicts, dice, scene)
    for die, judged in zip(dice, verdicts, strict=True):
        flags = list(die.flags)
        evidence = list(die.evidence)
        for flag, why in judged:
            if flag not in flags:
                flags.append(flag)
                evidence.append(why)
        out.append(replace(die, flags=tuple(flags), evidence=tuple(evidence)))
    tray = None
    if scene.polygon is not None:
        tray = TrayOutline(polygon=tuple((float(x), float(y)) for x, y in scene.polygon))
    return FlagResult(dice=tuple(out), tray=tray, notes=tuple(notes))


def _measured(
    image: Image,
    dice: Sequence[DieReading],
    profile: TrayProfile | None,
    notes: list[str],
) -> tuple[_Scene, list[_Look | None], FloatArray]:
    """The scene, each die's look (None for every die when there are more than
    :data:`MAX_MEASURED_DICE`) and the shift all dice share."""
    scene = _scene(image, dice, profile, notes)
    # With more dice than any game uses, most are false finds: judge them by position
    # only, which costs nothing per die.
    measure = len(dice) <= MAX_MEASURED_DICE
    looks: list[_Look | None] = list(_looks(image, dice, scene)) if measure else [None] * len(dice)
    return scene, looks, _common_shift(looks)


# -- the scene: floor, camera, scale ------------------------------------------------------


def _scene(
    image: Image, dice: Sequence[DieReading], profile: TrayProfile | None, notes: list[str]
) -> _Scene:
    h, w = image.shape[:2]
    centres = [d.center for d in dice]
    sizes = [d.size_px for d in dice]
    median_size = float(median(np.array(sizes, np.float64))) if sizes else 0.0
    if profile is not None:
        prof = profile.scaled_to(w, h)
        if not has_moved(prof, image):
            pose = prof.pose()
            units = prof.die_units
            if pose is not None and units is None and dice:
                units = die_units_from_sizes(pose, centres, sizes)
            if pose is None:
                pose, units = _pose_from_dice(image, dice, None)
            return _Scene(
                floor=None,
                polygon=prof.polygon_array(),
                floor_lab=prof.floor_lab,
                floor_tol=_tol(prof.floor_lab_std),
                pose=pose,
                die_units=units,
                floor_chroma=_floor_chroma(image, prof.polygon_array()),
            )
        notes.append("the camera or tray moved since calibration; found the tray again")
        floor = find_floor(
            image, seeds_xy=centres, seed_radius_px=1.6 * median_size, lab_hint=prof.floor_lab
        )
    else:
        floor = find_floor(image, seeds_xy=centres, seed_radius_px=1.6 * median_size)
    if floor is not None and median_size > 2:
        refined = _refined(image, floor, dice, median_size)
        # The refit is not believed when it alone leaves most dice outside the floor (a side
        # pulled into a black floor's shade): the floor found by its colour held them.
        if _most_dice_outside(floor, dice) or not _most_dice_outside(refined, dice):
            floor = refined
    if floor is not None and not _holds_dice(floor.polygon, median_size):
        # Too small or too thin to throw dice into: a cable, a patch of the table.
        floor = None
    if floor is not None and _most_dice_outside(floor, dice):
        # Dice are thrown into the tray: a "floor" that most of them miss is something
        # else (a mat, a book); better no tray than every die called off the tray.
        floor = None
    pose = None
    units = None
    if floor is not None and floor.shape == "rect":
        solved = pose_from_quad(floor.polygon, (w, h))
        # A tilt well beyond the supported 20 degrees means the outline's corners are off
        # (a wall's shadow cut a side); the dice give a better camera then.
        if solved is not None and solved[0].tilt_deg <= MAX_TILT_DEG:
            pose = solved[0]
            units = die_units_from_sizes(pose, centres, sizes) if dice else None
    if pose is None:
        pose, units = _pose_from_dice(image, dice, floor)
    return _Scene(
        floor=floor,
        polygon=floor.polygon if floor is not None else None,
        floor_lab=floor.lab_mean if floor is not None else None,
        floor_tol=_tol(floor.lab_std) if floor is not None else 12.0,
        pose=pose,
        die_units=units,
        floor_chroma=np.array(floor.chroma, np.float32) if floor is not None else None,
    )


def _refined(
    image: Image, floor: FloorFit, dice: Sequence[DieReading], median_size: float
) -> FloorFit:
    """The floor with its outline fitted again at full resolution (see :mod:`vision._tray`).

    The floor was found on a small copy from its lit colour: its outline may stop short of
    the walls in their shadow or take in a wall of a colour near the floor's.
    """
    dice_xys = np.array([(*d.center, d.size_px) for d in dice], np.float64).reshape(-1, 3)
    polygon = refine_outline(
        image, floor.polygon, floor.shape, median_size, floor.lab_mean, dice_xy=dice_xys
    )
    return replace(floor, polygon=polygon)


def outline_refiner(
    dice: Sequence[DieReading],
) -> Callable[[Image, FloatArray, str, float, tuple[float, float, float]], FloatArray]:
    """A refiner for :func:`calibration.profile.calibrate`: it fits the floor outline found
    on a small copy again to the photo at full resolution, leaving ``dice`` (read in that
    photo) out of the floor's samples, as reading does."""
    dice_xys = np.array([(*d.center, d.size_px) for d in dice], np.float64).reshape(-1, 3)

    def refine(
        image: Image,
        polygon: FloatArray,
        shape: str,
        die_px: float,
        floor_lab: tuple[float, float, float],
    ) -> FloatArray:
        return refine_outline(image, polygon, shape, die_px, floor_lab, dice_xy=dice_xys)

    return refine


def _holds_dice(polygon: FloatArray, die_px: float) -> bool:
    """True when a floor outline (N, 2) pixels is wide and large enough for dice of side
    ``die_px`` pixels to be thrown into (no dice known: any outline)."""
    if die_px <= 2:
        return True
    (_cx, _cy), (a, b), _ang = cv2.minAreaRect(polygon.astype(np.float32))
    area = float(cv2.contourArea(polygon.astype(np.float32)))
    return min(a, b) >= MIN_FLOOR_WIDTH * die_px and area >= MIN_FLOOR_AREA * die_px * die_px


def _most_dice_outside(floor: FloorFit, dice: Sequence[DieReading]) -> bool:
    """True when a floor cut by the photo's frame has most dice a die width or more
    outside it and hardly any inside.

    Dice are thrown into the tray, so a "floor" that the dice miss is likely something
    else: a shaded corner of a board or a table, a patch between a cable and the frame.
    A floor seen whole, clear of the frame, is a tray: dice beside it are off it (two of
    three dice thrown out, or a reader that found only those). A quarter of the dice well
    inside is enough to keep any floor (a reader's false finds on a patterned table count
    here too).
    """
    if not dice:
        return False
    polygon = floor.polygon
    w, h = floor.image_size
    gap = 0.01 * min(w, h)
    xs, ys = polygon[:, 0], polygon[:, 1]
    clear = (
        floor.frame_share == 0.0
        and float(xs.min()) > gap
        and float(ys.min()) > gap
        and float(xs.max()) < w - 1 - gap
        and float(ys.max()) < h - 1 - gap
    )
    if clear:
        return False
    poly = polygon.astype(np.float32).reshape(-1, 1, 2)
    depth = [
        cv2.pointPolygonTest(poly, (float(d.center[0]), float(d.center[1])), True)
        / max(1.0, d.size_px)
        for d in dice
    ]
    outside = sum(v < -1.0 for v in depth)
    inside = sum(v > 0.5 for v in depth)
    return outside * 2 > len(dice) and inside * 4 < len(dice)


def _floor_chroma(image: Image, polygon: FloatArray) -> npt.NDArray[np.float32] | None:
    """Median chromaticity (see calibration.floor.chromaticity) of the lit or shaded floor."""
    small, scale = work_copy(image, 200)
    mask = np.zeros(small.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(polygon * scale).astype(np.int32)], 1)
    mask = np.asarray(cv2.erode(mask, np.ones((5, 5), np.uint8)))
    if mask.sum() < 20:
        return None
    # The chromaticity of the floor's pixels alone: per pixel the same numbers as of the
    # whole copy's, at a fraction of the work.
    on_floor = pixels_at(smoothed_for_chroma(small), mask > 0)
    return np.asarray(column_medians(chroma_of_smoothed(on_floor)), np.float32)


def _tol(std: Sequence[float]) -> float:
    return float(np.clip(3.0 * math.hypot(0.5 * std[0], std[1], std[2]), 10.0, 24.0))


def _pose_from_dice(
    image: Image, dice: Sequence[DieReading], floor: FloorFit | None
) -> tuple[CameraPose | None, float | None]:
    """A camera whose nadir the dice vote for (each flat die's silhouette points at it).

    Without at least three dice the camera is taken to look straight down.
    """
    h, w = image.shape[:2]
    centre = ((w - 1) / 2.0, (h - 1) / 2.0)
    if not dice:
        return None, None
    base = pose_from_nadir(centre, (w, h))
    votes = []
    if 3 <= len(dice) <= MAX_MEASURED_DICE:
        f = float(base.k[0, 0])
        lab_floor = floor.lab_mean if floor is not None else None
        for d in dice[:8]:
            c = _silhouette_centre(image, d, dice, lab_floor)
            if c is None:
                continue
            # A flat die's silhouette centre lies half a die height towards the nadir:
            # offset ~= (nadir - T) * side / (2 f).
            k = d.size_px / (2.0 * f)
            votes.append(
                (d.center[0] + (c[0] - d.center[0]) / k, d.center[1] + (c[1] - d.center[1]) / k)
            )
    pose = base
    if len(votes) >= 3:
        v = column_medians(np.array(votes))
        diag = math.hypot(w, h)
        off = np.array([v[0] - centre[0], v[1] - centre[1]])
        # A tilt of more than ~25 degrees is outside what the reader supports.
        lim = 0.45 * float(base.k[0, 0])
        if np.linalg.norm(off) > lim:
            off *= lim / np.linalg.norm(off)
        if diag > 0:
            pose = pose_from_nadir((centre[0] + off[0], centre[1] + off[1]), (w, h))
    units = die_units_from_sizes(pose, [d.center for d in dice], [d.size_px for d in dice])
    return pose, units


def _silhouette_centre(
    image: Image,
    die: DieReading,
    dice: Sequence[DieReading],
    floor_lab: tuple[float, float, float] | None,
) -> tuple[float, float] | None:
    """Centre of the die's pixels near it (no prediction; used to vote for the camera)."""
    s = die.size_px
    m = _measure_window(image, die, [d for d in dice if d is not die], floor_lab, 12.0, s * 1.1)
    if m is None:
        return None
    mask, x0, y0, scale, _floor_share = m
    ys, xs = np.nonzero(mask)
    if xs.size < 10:
        return None
    return (float(xs.mean()) / scale + x0, float(ys.mean()) / scale + y0)


# -- per die --------------------------------------------------------------------------------


@dataclass
class _Look:
    """What one die's neighbourhood shows: position, supports and the measured silhouette.

    ``inside`` is the footprint's depth inside the floor (die sides, negative outside);
    ``supports`` the image directions (unit vectors) to walls and dice it could lean on,
    with their names; ``shift`` the measured minus the predicted flat silhouette centre in
    die sides (None when not measured) and ``overlap`` their IoU.
    """

    die: DieReading
    inside: float
    supports: list[tuple[FloatArray, str]]
    floor_share: float | None
    has_polygon: bool
    shift: FloatArray | None = None
    overlap: float = 0.0
    leans: list[LeanScore | None] = field(default_factory=list)
    floor_between: bool = True


def _look(
    image: Image, die: DieReading, others: list[DieReading], scene: _Scene, *, for_common: bool
) -> _Look:
    """Measure one die (see :class:`_Look`); the costly silhouette only where it can matter:
    near the floor's edge, next to a support, or (``for_common``) to learn the common shift.
    """
    s_px = die.size_px
    if s_px <= 2:
        return _Look(die, math.inf, [], None, False)
    t, a, inside = _footprint(die, scene)
    look = _Look(die, inside, [], None, scene.polygon is not None)
    if inside < -FAR_OUTSIDE:
        return look
    look.supports = _supports(die, others, scene, t, a)
    can_lean = scene.pose is not None and scene.die_units is not None
    wanted = can_lean and (bool(look.supports) or for_common)
    if inside >= -OFF_TRAY_MARGIN and not wanted:
        # Its position already decides: on the floor, and its silhouette is not needed,
        # so the silhouette (the costly part) is not measured.
        return look
    m = _measure_window(
        image,
        die,
        others,
        scene.floor_lab,
        scene.floor_tol,
        s_px * (0.9 + float(np.hypot(*a)) / s_px),
        polygon=scene.polygon,
        floor_chroma=scene.floor_chroma,
        die_centre=t + 0.5 * a,
    )
    look.floor_share = m[4] if m is not None else 0.0
    if (
        inside < -CLEAR_OUTSIDE
        and look.floor_share >= FLOOR_AROUND
        and scene.polygon is not None
        and scene.floor_lab is not None
    ):
        look.floor_between = _floor_between(image, scene, t + a, [die, *others], s_px)
    if m is None or not can_lean:
        return look
    mask, x0, y0, scale, _share = m
    measured = _lean_shift(die, scene, mask, x0, y0, scale)
    if measured is not None:
        look.shift, look.overlap = measured
    return look


def _add_lean_scores(image: Image, look: _Look, scene: _Scene, common: FloatArray) -> None:
    """Edge evidence (see :mod:`vision._lean`) for the die leaning on each support, into
    ``look.leans``; only for a die whose silhouette reaches towards a support at all (the
    evidence counts only then, see :func:`_judge`), so other dice cost nothing."""
    if (
        not look.supports
        or look.shift is None
        or look.overlap < LEAN_OVERLAP
        or scene.pose is None
        or scene.die_units is None
    ):
        return
    v = look.shift - common
    if not any(float(np.dot(v, w)) > EDGE_SHIFT for w, _what in look.supports):
        return
    look.leans = list(_edge_scores(image, look, scene))


def _edge_scores(image: Image, look: _Look, scene: _Scene) -> tuple[LeanScore, ...]:
    """:func:`vision._lean.lean_score` of the die towards each of its supports (none without
    a camera and scale)."""
    die, pose = look.die, scene.pose
    side = _own_side(die, scene)
    if pose is None or side is None or not look.supports:
        return ()
    t = np.array(die.center, np.float64)
    edges = EdgeField(image, die.center, 1.8 * die.size_px)
    return tuple(lean_score(edges, pose, side, t, w, die.size_px) for w, _ in look.supports)


@dataclass(frozen=True)
class LeanEvidence:
    """The measures the leaning rule (:func:`apply_flags`) weighs for one die, taken whether
    or not the rule would look at them, to study how well each tells leaning dice from flat.

    ``supports`` counts the walls and dice it could lean on; ``reach`` is how far (die sides)
    its measured silhouette reaches towards the best of them beyond the photo's common shift
    (compared with :data:`LEAN_SHIFT` and :data:`EDGE_SHIFT`; None when not measured, when
    its overlap with a flat die's is below :data:`LEAN_OVERLAP`, or with nothing to lean on)
    and ``overlap`` that silhouette's IoU with a flat die's;
    ``edge_gain`` the best edge gain over its supports (compared with :data:`EDGE_GAIN`);
    ``face_tilt_deg`` its top face's tilt as its pips' grid shows it (faces of four pips or
    more).
    """

    supports: int
    reach: float | None
    overlap: float
    edge_gain: float | None
    face_tilt_deg: float | None


def lean_evidence(
    image_bgr: Image, dice: Sequence[DieReading], *, profile: TrayProfile | None = None
) -> tuple[LeanEvidence, ...]:
    """:class:`LeanEvidence` for each of ``dice`` (in ``image_bgr``'s pixels, as for
    :func:`apply_flags`), measured as :func:`apply_flags` measures it."""
    scene, looks, common = _measured(image_bgr, dice, profile, [])
    out = []
    for die, look in zip(dice, looks, strict=True):
        tilt = _face_tilt(die, scene)
        if look is None:
            out.append(LeanEvidence(0, None, 0.0, None, tilt[0] if tilt else None))
            continue
        reach = None
        # As the rule: a silhouette unlike a flat die's in most of its pixels was not
        # measured (LEAN_OVERLAP).
        if look.shift is not None and look.supports and look.overlap >= LEAN_OVERLAP:
            v = look.shift - common
            reach = max(float(np.dot(v, w)) for w, _ in look.supports)
        gains = [sc.gain for sc in _edge_scores(image_bgr, look, scene)]
        out.append(
            LeanEvidence(
                supports=len(look.supports),
                reach=reach,
                overlap=look.overlap,
                edge_gain=max(gains) if gains else None,
                face_tilt_deg=tilt[0] if tilt else None,
            )
        )
    return tuple(out)


def _looks(image: Image, dice: Sequence[DieReading], scene: _Scene) -> list[_Look]:
    """:func:`_look` at every die. Dice with nothing to lean on are measured only when some
    die could lean, and only until :data:`COMMON_DICE` silhouettes are known for the
    common shift (the cost per photo)."""
    others = [[d for j, d in enumerate(dice) if j != i] for i in range(len(dice))]
    looks = [_look(image, d, others[i], scene, for_common=False) for i, d in enumerate(dice)]
    if not any(lk.supports and lk.shift is not None for lk in looks):
        return looks
    measured = sum(lk.shift is not None for lk in looks)
    for i, lk in enumerate(looks):
        if measured >= COMMON_DICE:
            break
        if lk.shift is None and not lk.supports and lk.inside >= -OFF_TRAY_MARGIN:
            looks[i] = _look(image, dice[i], others[i], scene, for_common=True)
            measured += looks[i].shift is not None
    return looks


def _supports(
    die: DieReading, others: list[DieReading], scene: _Scene, t: FloatArray, a: FloatArray
) -> list[tuple[FloatArray, str]]:
    """Unit image directions from the die to what it could lean on: dice and walls nearby."""
    s_px = die.size_px
    out: list[tuple[FloatArray, str]] = []
    for o in others:
        d = np.array(o.center) - t
        dist = float(np.hypot(*d))
        if not 1e-6 < dist < _TOUCH * (s_px + o.size_px):
            continue
        # The top faces only for dice that touch: most dice touch none.
        side, top = _own_side(die, scene), _top_centre(die, scene)
        o_side, o_top = _own_side(o, scene), _top_centre(o, scene)
        if top is not None and side is not None and o_top is not None and o_side:
            # A die leaning on another holds its top face off the other's by about
            # sin(tilt) die sides; flat dice side by side hold theirs a die apart (the
            # mean of their two sides: dice of several sizes may share a photo).
            apart = float(np.hypot(*(o_top[:2] - top[:2])))
            if apart / (0.5 * (side + o_side)) - 1.0 < MIN_LEAN_GAP:
                continue
        out.append((d / dist, "die"))
    if scene.polygon is not None:
        foot = t + a
        poly = scene.polygon
        centre = poly.mean(axis=0)
        n_pts = len(poly)
        for i in _sides_in_reach(poly, centre, foot, 1.3 * s_px):
            p, q = poly[i], poly[(i + 1) % n_pts]
            e = q - p
            length = float(np.hypot(*e))
            if length < 1e-6:
                continue
            n = np.array([-e[1], e[0]]) / length
            if float(np.dot(n, centre - p)) < 0:
                n = -n
            along = float(np.dot(foot - p, e)) / (length * length)
            if float(np.dot(n, foot - p)) < 1.3 * s_px and -0.05 < along < 1.05:
                out.append((-n, "wall"))
    return out


def _sides_in_reach(
    poly: FloatArray, centre: FloatArray, foot: FloatArray, reach: float
) -> list[int]:
    """The sides of ``poly`` (N, 2) that :func:`_supports` must look at one by one: all but
    those that, by a test of every side at once, clearly lie beyond ``reach`` of ``foot``
    (on the floor's side of them) or beside it.

    A round floor has 48 sides and a die only one or two walls near it. The test here works
    on whole arrays, whose sums may round differently from the one-by-one test's dot
    products, so it keeps every side within a margin (far above any rounding) of passing;
    the one-by-one test then decides exactly as before.
    """
    e = np.roll(poly, -1, axis=0) - poly
    length = np.hypot(e[:, 0], e[:, 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.stack([-e[:, 1], e[:, 0]], axis=1) / length[:, None]
        to_centre = (n * (centre - poly)).sum(axis=1)
        to_foot = (n * (foot - poly)).sum(axis=1)
        along = ((foot - poly) * e).sum(axis=1) / (length * length)
    to_foot = np.where(to_centre < 0, -to_foot, to_foot)
    margin = 1e-6 * (1.0 + np.abs(foot - poly).sum(axis=1))
    clear = (
        (np.abs(to_centre) > margin)
        & ((to_foot >= reach + margin) | (along <= -0.05 - 1e-6) | (along >= 1.05 + 1e-6))
        & np.isfinite(to_foot)
        & np.isfinite(along)
    )
    return np.flatnonzero(~clear).tolist()


def _common_shift(looks: Sequence[_Look | None]) -> FloatArray:
    """The shift all well-measured dice of the photo share (median; zero for under 3 dice).

    Flat dice share it: an error of the camera model or the light's direction moves every
    die's measured silhouette the same way; a leaning die's own shift stands out from it.
    """
    shifts = [
        lk.shift for lk in looks if lk is not None and lk.shift is not None and lk.overlap >= 0.5
    ]
    if len(shifts) < 3:
        return np.zeros(2)
    return np.asarray(column_medians(np.array(shifts)), np.float64)


def _judge(look: _Look, common: FloatArray) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    inside = look.inside
    if inside < -FAR_OUTSIDE:
        return [_off_tray(inside)]
    # Far outside: on the table whatever the colours say. Just outside: the die is off the
    # tray unless it stands among floor on most of its surroundings (the outline missed a
    # strip of floor there). A die on the rim sees the wall's top, its face and the table;
    # a grey wall can pass for a grey floor's colour, so only a clear majority counts.
    if (
        look.has_polygon
        and look.floor_share is not None
        and inside < -OFF_TRAY_MARGIN
        and (
            look.floor_share < FLOOR_AROUND or (inside < -CLEAR_OUTSIDE and not look.floor_between)
        )
    ):
        return [_off_tray(inside, past_wall=look.floor_share >= FLOOR_AROUND)]
    shifted = look.shift is not None and look.overlap >= LEAN_OVERLAP
    v = look.shift - common if look.shift is not None else np.zeros(2)
    cos_lim = math.cos(math.radians(SUPPORT_ANGLE_DEG))
    best: tuple[float, str] | None = None
    for w, what in look.supports:
        along = float(np.dot(v, w))
        pointed = shifted and along > LEAN_SHIFT and along >= cos_lim * float(np.hypot(*v))
        if pointed and (best is None or along > best[0]):
            best = (along, what)
    if best is not None:
        found.append(
            (
                "leaning",
                f"visible side face: its silhouette reaches {best[0]:.2f} die widths further "
                f"towards the {best[1]} it touches than a flat die's would",
            )
        )
        return found
    edge_best: tuple[float, LeanScore, str] | None = None
    for (w, what), sc in zip(look.supports, look.leans, strict=False):
        if sc is None:
            continue
        towards = shifted and float(np.dot(v, w)) > EDGE_SHIFT
        if towards and sc.gain > EDGE_GAIN and (edge_best is None or sc.gain > edge_best[0]):
            edge_best = (sc.gain, sc, what)
    if edge_best is not None:
        _g, sc, what = edge_best
        found.append(
            (
                "leaning",
                f"visible side face: its edges fit a die leaning about {sc.tilt_deg:.0f} "
                f"degrees on the {what} better than a flat die; its side face towards the "
                f"{what} shows {max(0.0, sc.extra_px):.0f} px wider than a flat die's would",
            )
        )
    return found


def _leans(verdict: list[tuple[str, str]]) -> bool:
    """Whether a die's verdict (flag, evidence) pairs hold ``leaning``."""
    return any(f == "leaning" for f, _ in verdict)


def _without_lean(verdict: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A die's verdict without its ``leaning`` flag."""
    return [(f, why) for f, why in verdict if f != "leaning"]


def _touching(a: DieReading, b: DieReading) -> bool:
    """Whether two dice touch, or nearly (see :data:`_TOUCH`)."""
    return 0 < math.dist(a.center, b.center) < _TOUCH * (a.size_px + b.size_px)


def _one_of_each_pair(
    verdicts: list[list[tuple[str, str]]], looks: Sequence[_Look | None], common: FloatArray
) -> None:
    """Of two touching dice flagged leaning on each other, keep the flag on the one whose
    silhouette reaches further towards the other (in place).

    A die leaning on another shows its side face between the two top faces; those pixels
    are as near to the other die, whose silhouette may then reach towards the leaning die
    as well. Two dice cannot each lean on the other, so the weaker claim goes.
    """

    def reach(i: int, j: int) -> float:
        a, b = looks[i], looks[j]
        if a is None or b is None or a.shift is None:
            return -math.inf
        d = np.array(b.die.center) - np.array(a.die.center)
        return float(np.dot(a.shift - common, d / max(1e-9, float(np.hypot(*d)))))

    leaning = [i for i, v in enumerate(verdicts) if _leans(v)]
    drops = set()
    for k, i in enumerate(leaning):
        for j in leaning[k + 1 :]:
            a, b = looks[i], looks[j]
            if a is None or b is None:
                continue
            if not _touching(a.die, b.die):
                continue
            rij, rji = reach(i, j), reach(j, i)
            if rij > EDGE_SHIFT and rji > EDGE_SHIFT:
                drops.add(j if rij >= rji else i)
    for i in drops:
        verdicts[i] = _without_lean(verdicts[i])


def _face_tilt(die: DieReading, scene: _Scene) -> tuple[float, FloatArray] | None:
    """How far a die's top face is tilted from the floor's plane, as its pips' grid shows it
    (faces of four pips or more): the angle in degrees, and the image direction (unit) its
    face is foreshortened along. The grid is carried onto the plane of the top faces through
    the camera: a flat die's face is square there, a tilted one's is shortened by the
    cosine of its tilt across its axis of tilt. None without the grid or a camera."""
    pose, units = scene.pose, scene.die_units
    if die.face_axes is None or pose is None or units is None:
        return None
    c = np.array(die.center, np.float64)
    a1, a2 = (np.array(v, np.float64) for v in die.face_axes)
    top = pose.back_project(np.array([c, c + a1, c + a2]), z=units)
    grid = np.array([top[1, :2] - top[0, :2], top[2, :2] - top[0, :2]])
    _u, sv, vt = np.linalg.svd(grid)
    if not sv[0] > 0:
        return None
    short = vt[-1] * 0.1 * units
    ends = pose.project(
        np.array(
            [[top[0, 0], top[0, 1], units], [top[0, 0] + short[0], top[0, 1] + short[1], units]]
        )
    )
    along = ends[1] - ends[0]
    norm = float(np.hypot(*along))
    if not norm > 0:
        return None
    return math.degrees(math.acos(min(1.0, float(sv[-1] / sv[0])))), along / norm


def _lean_of_tilted_face(
    verdicts: list[list[tuple[str, str]]], dice: Sequence[DieReading], scene: _Scene
) -> None:
    """A die flagged leaning that touches a die whose top face its pips show tilted
    towards the flagged die by :data:`FACE_TILT_DEG` or more (and more than the flagged
    die's own): the lean is that die's, and the flag moves to it (in place). The touching
    die is the support the flagged die was judged to lean on, or beside it.

    A die leaning on another shows its side face between the two; the pixels of that face
    make the other die's silhouette reach towards it, so the die leant on may be the one
    flagged. The top faces tell them apart: the leaning die's is tilted.
    """
    if not any(_leans(v) for v in verdicts):
        return
    tilts = [_face_tilt(d, scene) for d in dice]
    aim = math.cos(math.radians(FACE_AIM_DEG))
    for i, die in enumerate(dice):
        if not _leans(verdicts[i]):
            continue
        for j, other in enumerate(dice):
            tilt = tilts[j]
            if j == i or tilt is None or tilt[0] < FACE_TILT_DEG:
                continue
            if _leans(verdicts[j]) or not _touching(die, other):
                continue
            gap = np.array(die.center, np.float64) - np.array(other.center, np.float64)
            dist = float(np.hypot(*gap))
            own = tilts[i]
            if abs(float(gap @ tilt[1])) < aim * dist or (own is not None and own[0] >= tilt[0]):
                continue
            verdicts[i] = _without_lean(verdicts[i])
            verdicts[j] = [
                *verdicts[j],
                (
                    "leaning",
                    f"top-face shape: its pips show its face tilted about {tilt[0]:.0f} "
                    "degrees towards the die beside it, which its side face made look leaning",
                ),
            ]
            break


def _longest_run(flags: npt.NDArray[np.bool_]) -> int:
    """Length of the longest run of True in a 1-D boolean array."""
    best = run = 0
    for f in flags.tolist():
        run = run + 1 if f else 0
        best = max(best, run)
    return best


def _floor_between(
    image: Image, scene: _Scene, foot: FloatArray, dice: Sequence[DieReading], side_px: float
) -> bool:
    """True when floor colour runs from beside ``foot`` (x, y) to half a die inside the outline.

    Paths fanned around the way to the nearest point of the outline are sampled one per
    pixel, leaving out the pixels of ``dice`` (this die's own and its neighbours'); a sample
    is floor when its colour is near the floor's, or has the floor's chromaticity at a
    lightness between SHADE_DEPTH of the lit floor's and the lit floor's (floor in a wall's
    shadow). One path without a stretch of something else (FLOOR_GAP) is enough.
    """
    assert scene.polygon is not None and scene.floor_lab is not None
    poly = scene.polygon
    best: tuple[float, FloatArray] | None = None
    for i in range(len(poly)):
        p, q = poly[i], poly[(i + 1) % len(poly)]
        e = q - p
        k = float(np.clip(np.dot(foot - p, e) / max(1e-9, float(np.dot(e, e))), 0.0, 1.0))
        closest = p + k * e
        gap = float(np.hypot(*(closest - foot)))
        if best is None or gap < best[0]:
            best = (gap, closest)
    if best is None or best[0] < 1.0:
        return True
    dist, near = best
    length = dist + 0.5 * side_px
    n = max(2, round(length))
    h, w = image.shape[:2]
    c_ref = (
        scene.floor_chroma
        if scene.floor_chroma is not None
        else _chromaticity_of_lab(scene.floor_lab)
    )
    base = (near - foot) / dist
    for turn in FLOOR_PATH_TURNS_DEG:
        c, sn = math.cos(math.radians(turn)), math.sin(math.radians(turn))
        way = np.array([c * base[0] - sn * base[1], sn * base[0] + c * base[1]])
        # Straight on to the outline, whatever the turn: the path ends inside the floor.
        reach = (dist / max(0.3, c)) + 0.5 * side_px
        pts = foot[None, :] + np.linspace(0.0, reach, n)[:, None] * way[None, :]
        keep = np.ones(n, bool)
        for other in dice:
            r = np.hypot(pts[:, 0] - other.center[0], pts[:, 1] - other.center[1])
            keep &= r > 0.8 * other.size_px
        keep &= (pts[:, 0] >= 1) & (pts[:, 0] <= w - 2) & (pts[:, 1] >= 1) & (pts[:, 1] <= h - 2)
        if keep.sum() < 0.3 * n:
            continue
        pts = pts[keep]
        xs = np.round(pts[:, 0]).astype(int)
        ys = np.round(pts[:, 1]).astype(int)
        # A 3x3 mean per sample: felt and sensor noise would make single pixels wander.
        patch = np.zeros((len(xs), 3), np.float32)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                patch += image[ys + dy, xs + dx].astype(np.float32)
        px = np.clip(patch / 9.0, 0, 255).astype(np.uint8).reshape(-1, 1, 3)
        lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB).astype(np.float32)
        alike = colour_distance(lab, scene.floor_lab).ravel() < 1.5 * scene.floor_tol
        chroma = chroma_of_smoothed(px.reshape(-1, 3))
        # A wall's shadow darkens the floor by half at most; a black wall next to a grey
        # floor has its chromaticity too, but not its lightness.
        light = lab[:, 0, 0]
        shaded = (
            (np.hypot(*(chroma - c_ref).T) < 0.035)
            & (light <= scene.floor_lab[0] + 10)
            & (light >= SHADE_DEPTH * scene.floor_lab[0])
        )
        if _longest_run(~(alike | shaded)) < max(3.0, FLOOR_GAP * side_px):
            return True
    return False


def _footprint(die: DieReading, scene: _Scene) -> tuple[FloatArray, FloatArray, float]:
    """The top-face centre ``t``, the offset ``a`` from it down to the die's footprint (zero
    without a camera), and how deep the footprint lies inside the floor in die sides
    (negative outside; infinite without a floor)."""
    t = np.array(die.center, np.float64)
    a = np.zeros(2)
    if scene.pose is not None and scene.die_units is not None:
        a = _bottom_offset(scene.pose, scene.die_units, t)
    if scene.polygon is None:
        return t, a, math.inf
    return t, a, _depth_inside(scene.polygon, t + a) / die.size_px


def _off_tray(inside: float, past_wall: bool = False) -> tuple[str, str]:
    where = f"its footprint lies {-inside:.1f} die widths outside the tray floor"
    if past_wall:
        where += ", past something unlike the floor (a wall)"
    return ("off_tray", f"position: {where}")


def _far_outside(die: DieReading, scene: _Scene) -> list[tuple[str, str]]:
    """The off-tray flag when the die's footprint is far outside the floor (position only)."""
    if die.size_px <= 2:
        return []
    _t, _a, inside = _footprint(die, scene)
    return [_off_tray(inside)] if inside < -FAR_OUTSIDE else []


def _depth_inside(polygon: FloatArray, point: FloatArray) -> float:
    """Signed distance (pixels, positive inside) of ``point`` from the floor's edge.

    For a box floor (4 corners) the distance is to the nearest side's line: the found
    corners are often cut off by shadow, and a die in a corner must not count as outside
    by its distance to a cut corner.
    """
    if len(polygon) == 4:
        c = polygon.mean(axis=0)
        best = math.inf
        for i in range(4):
            p, q = polygon[i], polygon[(i + 1) % 4]
            d = q - p
            n = np.array([-d[1], d[0]]) / max(1e-9, float(np.hypot(*d)))
            if float(np.dot(n, c - p)) < 0:
                n = -n
            best = min(best, float(np.dot(n, point - p)))
        return best
    poly = polygon.astype(np.float32).reshape(-1, 1, 2)
    return float(cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), True))


def _own_side(die: DieReading, scene: _Scene) -> float | None:
    """The die's own side in floor units, from its size in pixels where it lies (dice of
    several sizes may share a photo); None without a camera and scale."""
    pose, units = scene.pose, scene.die_units
    if pose is None or units is None:
        return None
    probe = scene.top_side_px.get(die.center)
    if probe is None:
        probe = scene.top_side_px[die.center] = die_top_side_px(pose, units, die.center)
    return units * die.size_px / probe if probe > 0 else units


def _top_centre(die: DieReading, scene: _Scene) -> FloatArray | None:
    """The centre (3,) of the die's top face in the floor frame, at the height of its own
    side (see :func:`_own_side`); None without a camera and scale."""
    side = _own_side(die, scene)
    if scene.pose is None or side is None:
        return None
    key = (die.center, side)
    top = scene.top_centres.get(key)
    if top is None:
        centre = np.array([die.center], np.float64)
        top = scene.top_centres[key] = scene.pose.back_project(centre, z=side)[0]
    return top


def _bottom_offset(pose: CameraPose, die_units: float, t: FloatArray) -> FloatArray:
    """Image vector from a flat die's top face centre to its bottom face centre."""
    top = pose.back_project(t[None, :], z=die_units)[0]
    bottom = pose.project(np.array([[top[0], top[1], 0.0]]))[0]
    return np.asarray(bottom - t, np.float64)


def _measure_window(
    image: Image,
    die: DieReading,
    others: Sequence[DieReading],
    floor_lab: tuple[float, float, float] | None,
    tol: float,
    reach: float,
    *,
    polygon: FloatArray | None = None,
    floor_chroma: npt.NDArray[np.float32] | None = None,
    die_centre: FloatArray | None = None,
) -> tuple[npt.NDArray[np.bool_], int, int, float, float] | None:
    """Die pixels around ``die`` in a crop: ``(mask, x0, y0, scale, floor_share)``.

    Crop pixel (i, j) is photo pixel ``(x0 + j / scale, y0 + i / scale)``. The mask keeps
    only pixels that can belong to this die (inside the floor outline or near the top face,
    and nearer to it than to any other die); ``floor_share`` is the share of floor colour on
    a ring just outside the die.
    """
    h, w = image.shape[:2]
    s = die.size_px
    cx, cy = die.center
    half = math.ceil(reach + 0.6 * s) + 2
    x0, y0 = max(0, int(cx) - half), max(0, int(cy) - half)
    x1, y1 = min(w, int(cx) + half + 1), min(h, int(cy) + half + 1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    crop: Image = image[y0:y1, x0:x1]
    scale = min(1.0, _MEASURE_SIDE / s)
    if scale < 1.0:
        crop = np.asarray(
            cv2.resize(
                crop,
                (max(4, round(crop.shape[1] * scale)), max(4, round(crop.shape[0] * scale))),
                interpolation=cv2.INTER_AREA,
            ),
            np.uint8,
        )
    ch, cw = crop.shape[:2]
    sx, sy = cw / (x1 - x0), ch / (y1 - y0)
    scale = 0.5 * (sx + sy)
    blurred = np.asarray(cv2.GaussianBlur(crop, (3, 3), 0), np.uint8)
    lab = cv2.cvtColor(blurred, cv2.COLOR_BGR2LAB).astype(np.float32)
    # Pixel coordinates as a row and a column, broadcast: the same numbers as full grids at
    # a fraction of the work.
    yy = np.arange(ch, dtype=np.float32)[:, None]
    xx = np.arange(cw, dtype=np.float32)[None, :]
    px = xx / scale + x0
    py = yy / scale + y0
    r = np.hypot(px - cx, py - cy)
    ring = (r > reach + 0.15 * s) & (r < reach + 0.55 * s)
    # Nearest-die ownership: a pixel nearer (in die sides) to another die is not ours.
    own = np.ones((ch, cw), bool)
    # Other dice's pixels (their flat silhouettes, roughly): never background.
    covered = np.zeros((ch, cw), bool)
    for o in others:
        if (
            abs(o.center[0] - cx) > 3 * s + 2 * o.size_px
            or abs(o.center[1] - cy) > 3 * s + 2 * o.size_px
        ):
            continue
        ro = np.hypot(px - o.center[0], py - o.center[1]) / max(1.0, o.size_px)
        covered |= ro < OTHER_COVER
        # Another die's pixels: its top face (within OWN_CORE of its centre) and what is
        # clearly nearer to it. Between two top faces the pixels stay ours, for a side face
        # there belongs to the die that leans, which may be this one.
        own &= (ro >= OWN_CORE) & (r / s <= OWN_FACTOR * ro)
    ring &= own
    if floor_lab is not None:
        d_global = colour_distance(lab, floor_lab)
        floor_ring = ring & (d_global < 1.5 * tol)
        local = (
            column_medians(pixels_at(lab, floor_ring))
            if floor_ring.sum() >= 8
            else np.array(floor_lab)
        )
    else:
        if ring.sum() < 8:
            return None
        local = column_medians(pixels_at(lab, ring))
    dist = colour_distance(lab, tuple(float(v) for v in local), _DIE_L_WEIGHT)
    floor_share = 0.0
    smoothed = smoothed_for_chroma(crop)
    if ring.sum() and floor_lab is not None:
        # Floor in a wall's shadow is still floor: compare chromaticity, and lightness
        # only upwards (nothing brighter than the lit floor is floor).
        c_ref = floor_chroma if floor_chroma is not None else _chromaticity_of_lab(floor_lab)
        c_sq = chroma_of_smoothed(pixels_at(smoothed, ring)) - c_ref
        c_sq *= c_sq
        c_d = np.sqrt(c_sq[:, 0] + c_sq[:, 1])
        lit = (
            float(median(lab[..., 0][ring & (d_global < tol)]))
            if (ring & (d_global < tol)).sum() >= 4
            else float(floor_lab[0])
        )
        brighter = lab[..., 0][ring] > lit + 25.0
        floor_share = float(((c_d < 0.035) & ~brighter).mean())
    floor_px = ring & (dist < tol)
    if die_centre is not None:
        die_px = _unlike_surroundings(blurred, lab, px, py, die_centre, s, ring, covered)
    else:
        die_px = _unlike_floor(chroma_of_smoothed(smoothed), lab, ring, floor_px, local)
    if floor_px.sum() >= 8:
        # Floor in a shadow is still floor (the chromaticity test calls dark floor
        # grey, and a shadow is unlike the lit floor filled in behind the die, so a wall's
        # or a die's own shadow would join the die and pull its silhouette away from
        # where it leans). A die of the floor's colour loses its shaded side faces here;
        # its silhouette then overlaps the prediction too little to be trusted, which
        # costs a leaning flag, never adds one.
        die_px &= ~_in_floor_shade(blurred, floor_px)
    valid = own & (r < reach + 0.1 * s)
    if polygon is not None:
        canvas = np.zeros((ch, cw), np.uint8)
        pts = (polygon - np.array([x0, y0])) * scale
        cv2.fillPoly(canvas, [np.round(pts).astype(np.int32)], 1)
        inside = np.asarray(cv2.dilate(canvas, np.ones((3, 3), np.uint8))) > 0
        valid &= inside | (r < 0.5 * s)
    mask = (die_px & valid).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    if n <= 1:
        return None
    ci = int(np.clip(round((cy - y0) * scale), 0, ch - 1))
    cj = int(np.clip(round((cx - x0) * scale), 0, cw - 1))
    lab_id = labels[ci, cj]
    if lab_id == 0:
        # The centre pixel may be a pip: take the component nearest the centre.
        d2 = np.broadcast_to((yy - ci) ** 2 + (xx - cj) ** 2, (ch, cw)).copy()
        d2[labels == 0] = np.inf
        lab_id = labels.flat[int(np.argmin(d2))]
    comp = labels == lab_id
    # Pips and glare inside the die are holes of the mask: fill them.
    filled = comp.astype(np.uint8)
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, contours, -1, 1, -1)
    k_open = round(MASK_OPEN * s * scale)
    if k_open >= 3:
        # A die's silhouette is convex and at least a die wide: what a disc of a fraction
        # of a die cannot sweep is a leak into a shadow or a neighbour, not the die.
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k_open, k_open))
        opened = np.asarray(cv2.morphologyEx(filled, cv2.MORPH_OPEN, kernel), np.uint8)
        n2, labels2 = cv2.connectedComponents(opened, connectivity=8)
        if n2 > 1:
            keep = labels2[ci, cj]
            if keep == 0:
                counts = np.bincount(labels2.ravel(), minlength=n2)
                counts[0] = 0
                keep = int(np.argmax(counts))
            filled = (labels2 == keep).astype(np.uint8)
    return filled > 0, x0, y0, scale, floor_share


def _unlike_floor(
    chroma: npt.NDArray[np.float32],
    lab: npt.NDArray[np.float32],
    ring: npt.NDArray[np.bool_],
    floor_px: npt.NDArray[np.bool_],
    local: npt.NDArray[np.float32],
) -> npt.NDArray[np.bool_]:
    """Pixels of a crop unlike the floor around the die: the die's pixels where no
    silhouette centre is predicted (see :func:`_silhouette_centre`).

    ``chroma`` (H, W, 2) and ``lab`` (H, W, 3) float32 are the crop's chromaticity and
    8-bit Lab; ``ring`` and ``floor_px`` (H, W) bool the ring around the die and its floor
    pixels; ``local`` the floor's Lab colour there. Die pixels are told from floor pixels by
    chromaticity (colour with the brightness divided out), because the die's own shadow
    darkens the floor without changing its chromaticity, while a die's shaded side faces
    keep the die's. Pixels brighter than the floor can be no shadow, so lightness counts
    upwards.
    """
    if floor_px.sum() >= 8:
        on_floor = pixels_at(chroma, floor_px)
        c_floor = column_medians(on_floor)
        c_spread = float(median(np.abs(on_floor - c_floor).ravel())) * 1.48
        l_spread = float(np.std(lab[..., 0][floor_px]))
    else:
        c_floor = column_medians(pixels_at(chroma, ring)) if ring.sum() else np.zeros(2, np.float32)
        c_spread, l_spread = 0.01, 12.0
    c_tol = max(0.035, 4.0 * c_spread)
    l_tol = float(np.clip(2.5 * l_spread, 18.0, 45.0))
    # OpenCV's per-channel arithmetic: numpy's numbers, faster on a whole crop.
    c_diff = cv2.subtract(chroma, (float(c_floor[0]), float(c_floor[1]), 0.0, 0.0))  # type: ignore[call-overload]
    c_dist = cv2.sqrt(cv2.transform(cv2.multiply(c_diff, c_diff), np.ones((1, 2), np.float32)))
    return np.asarray((c_dist >= c_tol) | (lab[..., 0] - float(local[0]) >= l_tol), bool)


def _unlike_surroundings(
    blurred: Image,
    lab: npt.NDArray[np.float32],
    px: npt.NDArray[np.float32],
    py: npt.NDArray[np.float32],
    centre: FloatArray,
    s: float,
    ring: npt.NDArray[np.bool_],
    covered: npt.NDArray[np.bool_],
) -> npt.NDArray[np.bool_]:
    """Pixels of a crop that differ from the background filled in behind the die.

    ``blurred`` (H, W, 3) uint8 BGR and ``lab`` (H, W, 3) float32 its 8-bit Lab; ``px``,
    ``py`` the photo coordinates of the crop's columns (1, W) and rows (H, 1); ``centre``
    the die's predicted silhouette centre and ``s`` its side (photo pixels); ``ring`` the
    pixels sampled as surroundings; ``covered`` (H, W) bool other dice's pixels, filled in
    too (a neighbour carried in as background would hide the side face next to it). The
    background (floor, shadows, a wall's face and its edge) is carried into a disc around
    the die from outside it, so whatever the floor's colour or texture, a pixel counts as
    die when it is unlike what would be there without the die.
    """
    radius = (0.72 + BACKGROUND_MARGIN) * s
    rc = np.hypot(px - float(centre[0]), py - float(centre[1]))
    hole = ((rc < radius) | covered).astype(np.uint8)
    # A one-pixel neighbourhood: four times faster than three and as good on the renders.
    filled = cv2.inpaint(blurred, hole, 1, cv2.INPAINT_TELEA)
    back = cv2.cvtColor(cv2.GaussianBlur(filled, (5, 5), 0), cv2.COLOR_BGR2LAB)
    diff = lab - back.astype(np.float32)
    # Lightness counts a quarter: a shadow changes it most and the hue least.
    sq = diff * diff
    # The weighted sum channel by channel: the numbers of ``(sq * w).sum(axis=2)`` (the same
    # additions in the same order), without NumPy's slow reduction over a short last axis.
    dist = np.sqrt(sq[..., 0] * np.float32(0.25) + sq[..., 1] + sq[..., 2])
    around = ring & (rc >= radius) & ~covered
    base = float(median(dist[around])) if around.sum() >= 8 else 3.0
    return np.asarray(dist > max(MIN_CONTRAST, BACKGROUND_CONTRAST * base), bool)


def _in_floor_shade(blurred: Image, floor_px: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Pixels that are the floor's colour at a lower brightness: floor in shade, not die.

    ``blurred`` (H, W, 3) uint8 BGR (a smoothed crop), ``floor_px`` (H, W) bool the floor
    pixels sampled around the die. A shadow scales the floor's B, G and R together, so a
    shaded floor pixel lies on the line from black through the lit floor colour, within
    the floor's own noise. Pixels too dark for their colour to be known are left to the
    other tests.
    """
    px = blurred.astype(np.float32)
    f = column_medians(pixels_at(px, floor_px))
    norm = float(np.linalg.norm(f))
    if norm < 30.0:
        return np.zeros(blurred.shape[:2], bool)
    fn = (f / norm).astype(np.float32)
    # Along the floor colour (proj) and off it (perp), with OpenCV's per-pixel transforms.
    proj = cv2.transform(px, fn.reshape(1, 3))
    sq = cv2.transform(cv2.multiply(px, px), np.ones((1, 3), np.float32))
    perp = np.sqrt(np.maximum(sq - proj * proj, 0.0))
    noise = float(percentile(perp[floor_px], 90))
    return np.asarray(
        (perp <= SHADE_NOISE * noise + 0.05 * proj) & (proj <= 1.05 * norm) & (sq >= 625.0),
        bool,
    )


def _chromaticity_of_lab(lab: tuple[float, float, float]) -> npt.NDArray[np.float32]:
    """The chromaticity (see calibration.floor.chromaticity) of one 8-bit Lab colour."""
    px = np.array([[lab]], np.float32).clip(0, 255).astype(np.uint8)
    return chroma_of_smoothed(np.asarray(cv2.cvtColor(px, cv2.COLOR_LAB2BGR), np.uint8)[0, 0])


def _lean_shift(
    die: DieReading,
    scene: _Scene,
    mask: npt.NDArray[np.bool_],
    x0: int,
    y0: int,
    scale: float,
) -> tuple[FloatArray, float] | None:
    """``(shift, overlap)``: measured minus predicted flat silhouette centre (x, y) in die
    sides, and their IoU, for the die's turn that fits best.

    The prediction is whole, not cut where the measured pixels could not be the die's (a
    neighbour's, beyond the floor outline): a die leaning on a wall or a die shows its side
    face exactly there, and a prediction cut the same way would hide that side face's shift.
    """
    side = _own_side(die, scene)
    assert scene.pose is not None and side is not None
    pose, s = scene.pose, side
    t = np.array(die.center, np.float64)
    top = pose.back_project(t[None, :], z=s)[0]
    yaw = _yaw(die, pose, s)
    best: tuple[FloatArray, float] | None = None
    ys, xs = np.nonzero(mask)
    if xs.size < 6:
        return None
    cm = np.array([xs.mean(), ys.mean()])
    n_mask = float(xs.size)
    for dyaw in (0.0,) if yaw is not None else tuple(np.deg2rad(np.arange(0, 90, 15))):
        ang = (yaw or 0.0) + dyaw
        corners = _cube_corners(top, s, ang)
        px = (pose.project(corners) - np.array([x0, y0])) * scale
        hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
        pred = np.zeros(mask.shape, np.uint8)
        cv2.fillPoly(pred, [np.round(hull).astype(np.int32)], 1)
        pv = pred > 0
        py_, px_ = np.nonzero(pv)
        if px_.size < 6:
            continue
        cp = np.array([px_.mean(), py_.mean()])
        inter = float(np.count_nonzero(pv & mask))
        union = float(px_.size) + n_mask - inter
        iou = inter / union if union else 0.0
        if best is None or iou > best[1]:
            best = (np.asarray((cm - cp) / (die.size_px * scale), np.float64), iou)
    return best


def _yaw(die: DieReading, pose: CameraPose, s: float) -> float | None:
    """The die's turn on the floor (radians) from its outline, or None without one."""
    if len(die.outline) < 4:
        return None
    pts = pose.back_project(np.array(die.outline[:4], np.float64), z=s)
    e = pts[1] - pts[0]
    return float(math.atan2(e[1], e[0]))


def _cube_corners(top: FloatArray, s: float, yaw: float) -> FloatArray:
    """The 8 corners (8, 3) of a flat cube of side ``s`` whose top face centre is ``top``."""
    c, sn = math.cos(yaw), math.sin(yaw)
    h = 0.5 * s
    pts = []
    for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h)):
        x = top[0] + dx * c - dy * sn
        y = top[1] + dx * sn + dy * c
        pts.append((x, y, s))
        pts.append((x, y, 0.0))
    return np.array(pts, np.float64)
