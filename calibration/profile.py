"""The tray profile: what one calibration photo says about the tray and the camera.

A profile holds the floor outline (pixels of the calibration photo), the floor colour, the
camera pose relative to the floor when it can be measured (box trays), the die size, and
the homography to a top-down view. It is saved as JSON and read back by ``read``; photos of
another size (a reduced decode) use it through :meth:`TrayProfile.scaled_to`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraPose, default_pose, order_quad, pose_from_quad
from calibration.errors import CalibrationError
from calibration.floor import FloorFit, colour_distance, find_floor, lab_image, work_copy
from calibration.stats import median

FloatArray = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]

PROFILE_VERSION = 1
#: Default die side in millimetres (the common 16 mm die).
DEFAULT_DIE_MM = 16.0


@dataclass(frozen=True)
class TrayProfile:
    """A calibrated tray; every position is in pixels of an image of ``image_size``.

    ``polygon`` ((x, y), ...) is the floor outline; ``shape`` "rect" or "round";
    ``floor_lab`` / ``floor_lab_std`` the floor colour in OpenCV 8-bit Lab;
    ``homography`` (3x3 rows) maps image pixels to top-down floor millimetres (box trays
    only; the floor's own aspect when its size was not given); ``camera`` the pinhole model
    (``k``, ``r``, ``t`` in floor units, see :class:`calibration.camera.CameraPose`) or None;
    ``die_units`` the die side in the same floor units; ``tilt_deg`` the camera tilt when
    known. ``die_mm`` and ``tray_mm`` are what the user gave.
    """

    image_size: tuple[int, int]
    polygon: tuple[tuple[float, float], ...]
    shape: str
    floor_lab: tuple[float, float, float]
    floor_lab_std: tuple[float, float, float]
    die_mm: float = DEFAULT_DIE_MM
    tray_mm: tuple[float, float] | None = None
    homography: tuple[tuple[float, ...], ...] | None = None
    camera_k: tuple[tuple[float, ...], ...] | None = None
    camera_r: tuple[tuple[float, ...], ...] | None = None
    camera_t: tuple[float, ...] | None = None
    die_units: float | None = None
    tilt_deg: float | None = None
    focal_known: bool = False
    #: Share of floor-coloured pixels just outside the outline in the calibration photo
    #: (high when the tray's walls are the floor's colour); None when not measured.
    outside_floor_share: float | None = None

    # -- geometry -------------------------------------------------------------------------
    def pose(self) -> CameraPose | None:
        """The camera pose, or None when the calibration could not measure it."""
        if self.camera_k is None or self.camera_r is None or self.camera_t is None:
            return None
        k = np.array(self.camera_k, np.float64)
        r = np.array(self.camera_r, np.float64)
        t = np.array(self.camera_t, np.float64)
        c = -r.T @ t
        return CameraPose(
            k=k,
            r=r,
            t=t,
            height=float(c[2]),
            tilt_deg=float(self.tilt_deg or 0.0),
            focal_known=self.focal_known,
        )

    def polygon_array(self) -> FloatArray:
        return np.array(self.polygon, np.float64)

    def expected_die_px(self, x: float, y: float) -> float | None:
        """Expected side in pixels of a flat die's top face whose centre is at ``(x, y)``."""
        pose = self.pose()
        if pose is None or self.die_units is None:
            return None
        return die_top_side_px(pose, self.die_units, (x, y))

    def scaled_to(self, width: int, height: int) -> TrayProfile:
        """The same profile for an image of ``width`` x ``height`` (same view, other size)."""
        w0, h0 = self.image_size
        if (w0, h0) == (width, height):
            return self
        sx, sy = width / w0, height / h0
        poly = tuple((x * sx, y * sy) for x, y in self.polygon)
        k = None
        if self.camera_k is not None:
            km = np.array(self.camera_k, np.float64)
            km = np.diag([sx, sy, 1.0]) @ km
            # Principal point stays the image centre in the new pixel grid.
            km[0, 2], km[1, 2] = (width - 1) / 2.0, (height - 1) / 2.0
            k = _rows(km)
        hom = None
        if self.homography is not None:
            hm = np.array(self.homography, np.float64) @ np.diag([1 / sx, 1 / sy, 1.0])
            hom = _rows(hm / hm[2, 2])
        return replace(self, image_size=(width, height), polygon=poly, camera_k=k, homography=hom)

    # -- JSON -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "version": PROFILE_VERSION,
            "image_size": list(self.image_size),
            "shape": self.shape,
            "polygon": [[round(x, 2), round(y, 2)] for x, y in self.polygon],
            "floor_lab": [round(v, 2) for v in self.floor_lab],
            "floor_lab_std": [round(v, 2) for v in self.floor_lab_std],
            "die_mm": self.die_mm,
            "tray_mm": list(self.tray_mm) if self.tray_mm else None,
            "homography": [list(r) for r in self.homography] if self.homography else None,
            "camera": None,
            "outside_floor_share": self.outside_floor_share,
        }
        if self.camera_k is not None and self.camera_r is not None and self.camera_t is not None:
            doc["camera"] = {
                "K": [list(r) for r in self.camera_k],
                "R_floor_to_cam": [list(r) for r in self.camera_r],
                "t_floor_to_cam": list(self.camera_t),
                "die_units": self.die_units,
                "tilt_deg": self.tilt_deg,
                "focal_known": self.focal_known,
            }
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> TrayProfile:
        """Read a profile written by :meth:`to_json`; CalibrationError when it is not one."""
        try:
            if doc.get("version") != PROFILE_VERSION:
                raise CalibrationError(
                    f"unsupported tray profile version {doc.get('version')!r}; "
                    f"expected {PROFILE_VERSION}"
                )
            cam = doc.get("camera")
            w, h = doc["image_size"]
            return cls(
                image_size=(int(w), int(h)),
                polygon=tuple((float(x), float(y)) for x, y in doc["polygon"]),
                shape=str(doc["shape"]),
                floor_lab=_triple(doc["floor_lab"]),
                floor_lab_std=_triple(doc["floor_lab_std"]),
                die_mm=float(doc.get("die_mm", DEFAULT_DIE_MM)),
                tray_mm=_pair(doc["tray_mm"]) if doc.get("tray_mm") else None,
                homography=_matrix(doc["homography"]) if doc.get("homography") else None,
                camera_k=_matrix(cam["K"]) if cam else None,
                camera_r=_matrix(cam["R_floor_to_cam"]) if cam else None,
                camera_t=tuple(float(v) for v in cam["t_floor_to_cam"]) if cam else None,
                die_units=float(cam["die_units"]) if cam and cam.get("die_units") else None,
                tilt_deg=float(cam["tilt_deg"])
                if cam and cam.get("tilt_deg") is not None
                else None,
                focal_known=bool(cam.get("focal_known", False)) if cam else False,
                outside_floor_share=float(doc["outside_floor_share"])
                if doc.get("outside_floor_share") is not None
                else None,
            )
        except CalibrationError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"not a tray profile: {exc}") from exc

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> TrayProfile:
        """Read a profile file; CalibrationError when it is missing or not a profile."""
        p = Path(path)
        try:
            doc = json.loads(p.read_text())
        except FileNotFoundError as exc:
            raise CalibrationError(f"{p}: no such tray profile") from exc
        except (OSError, ValueError) as exc:
            raise CalibrationError(f"{p}: not a tray profile ({exc})") from exc
        if not isinstance(doc, dict):
            raise CalibrationError(f"{p}: not a tray profile (not a JSON object)")
        return cls.from_json(doc)


def _rows(m: FloatArray) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(v) for v in row) for row in m)


def _matrix(rows: Sequence[Sequence[float]]) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(v) for v in row) for row in rows)


def _triple(v: Sequence[float]) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))


def _pair(v: Sequence[float]) -> tuple[float, float]:
    return (float(v[0]), float(v[1]))


def die_top_side_px(pose: CameraPose, die_units: float, xy: tuple[float, float]) -> float:
    """Side in pixels (square root of the area) of a flat die's top face centred at ``xy``."""
    s = die_units
    centre = pose.back_project(np.array([xy], np.float64), z=s)[0]
    h = 0.5 * s
    sq = np.array(
        [[centre[0] + dx, centre[1] + dy, s] for dx, dy in ((-h, -h), (h, -h), (h, h), (-h, h))]
    )
    px = pose.project(sq).astype(np.float32)
    return float(math.sqrt(abs(cv2.contourArea(px))))


def die_units_from_sizes(
    pose: CameraPose, centres: Sequence[tuple[float, float]], sizes_px: Sequence[float]
) -> float | None:
    """The die side in floor units that best explains dice seen with these top-face sizes."""
    est = []
    for (x, y), side in zip(centres, sizes_px, strict=True):
        if side <= 0:
            continue
        # Side scales with 1/depth; start from the unit die and correct once.
        probe = die_top_side_px(pose, 1e-3 * pose.height, (x, y))
        if probe <= 0:
            continue
        est.append(1e-3 * pose.height * side / probe)
    if not est:
        return None
    return float(median(np.array(est, np.float64)))


#: Fits a floor outline to the photo at full resolution: ``(image_bgr, polygon (N, 2),
#: shape, die_px, floor_lab) -> polygon`` (vision's ``refine_outline`` is one; calibration
#: may not import vision, so the caller passes it in).
OutlineRefiner = Callable[[Image, FloatArray, str, float, tuple[float, float, float]], FloatArray]


def calibrate(
    image_bgr: Image,
    *,
    tray_mm: tuple[float, float] | None = None,
    die_mm: float = DEFAULT_DIE_MM,
    dice: Sequence[tuple[tuple[float, float], float]] = (),
    refine: OutlineRefiner | None = None,
) -> TrayProfile:
    """Calibrate from a photo of the tray, empty or with dice; CalibrationError if no tray.

    ``image_bgr`` (H, W, 3) uint8 BGR from where the camera will stay; ``tray_mm`` the
    floor's inner ``(width, depth)`` in mm when known; ``dice`` ``((x, y), side_px)`` of dice
    read in the photo (they seed the floor colour and give the scale without ``tray_mm``).
    ``refine``, when given, fits the outline found on a small copy again to the photo (the
    die size it is given: the dice's, or a twelfth of the floor's size without dice).
    """
    _h, _w = image_bgr.shape[:2]
    fit = find_floor(
        image_bgr,
        seeds_xy=[c for c, _ in dice],
        seed_radius_px=float(np.median([s for _, s in dice])) if dice else 0.0,
    )
    if fit is None:
        raise CalibrationError(
            "no tray floor found: the photo needs the whole tray floor in view, on a table "
            "of another colour"
        )
    if refine is not None:
        die_px = (
            float(np.median([s for _, s in dice]))
            if dice
            else math.sqrt(float(cv2.contourArea(fit.polygon.astype(np.float32)))) / 12.0
        )
        fit = replace(fit, polygon=refine(image_bgr, fit.polygon, fit.shape, die_px, fit.lab_mean))
    return with_outside_share(
        profile_from_fit(fit, tray_mm=tray_mm, die_mm=die_mm, dice=dice), image_bgr
    )


def with_outside_share(profile: TrayProfile, image_bgr: Image) -> TrayProfile:
    """``profile`` with the share of floor-coloured pixels just outside its outline in
    ``image_bgr``, the photo it was made from (see :attr:`TrayProfile.outside_floor_share`)."""
    shares = _band_shares(profile, image_bgr)
    if shares is None:
        return profile
    return replace(profile, outside_floor_share=shares[1])


def profile_from_fit(
    fit: FloorFit,
    *,
    tray_mm: tuple[float, float] | None = None,
    die_mm: float = DEFAULT_DIE_MM,
    dice: Sequence[tuple[tuple[float, float], float]] = (),
) -> TrayProfile:
    """A profile from a found floor (pose, homography and die scale where measurable)."""
    w, h = fit.image_size
    pose = None
    homography = None
    die_units = None
    size_used = None
    if fit.shape == "rect":
        solved = pose_from_quad(fit.polygon, (w, h), size=tray_mm)
        if solved is not None:
            pose, size_used = solved
            if tray_mm is not None:
                die_units = die_mm
    if pose is None and dice:
        pose = default_pose((w, h))
    if pose is not None and die_units is None:
        if dice:
            die_units = die_units_from_sizes(pose, [c for c, _ in dice], [s for _, s in dice])
        elif size_used is not None:
            # Floor units are the floor's depth; without dice assume a common tray depth.
            die_units = die_mm / 220.0 * size_used[1]
    if fit.shape == "rect" and size_used is not None:
        q = order_quad(fit.polygon)
        sx = tray_mm is not None
        wmm, dmm = size_used if sx else (size_used[0] / size_used[1] * 220.0, 220.0)
        dst = np.array([[0, 0], [wmm, 0], [wmm, dmm], [0, dmm]], np.float32)
        hm = cv2.getPerspectiveTransform(q.astype(np.float32), dst).astype(np.float64)
        homography = _rows(hm / hm[2, 2])
    return TrayProfile(
        image_size=(w, h),
        polygon=tuple((float(x), float(y)) for x, y in fit.polygon),
        shape=fit.shape,
        floor_lab=fit.lab_mean,
        floor_lab_std=fit.lab_std,
        die_mm=die_mm,
        tray_mm=tray_mm,
        homography=homography,
        camera_k=_rows(pose.k) if pose is not None else None,
        camera_r=_rows(pose.r) if pose is not None else None,
        camera_t=tuple(float(v) for v in pose.t) if pose is not None else None,
        die_units=die_units,
        tilt_deg=pose.tilt_deg if pose is not None and pose.focal_known else None,
        focal_known=bool(pose.focal_known) if pose is not None else False,
    )


def has_moved(profile: TrayProfile, image_bgr: Image) -> bool:
    """True when ``image_bgr`` no longer shows the floor where the profile has it.

    Cheap: on a small copy, the floor colour must cover most of a band just inside the
    outline, and no more of a band just outside it than in the calibration photo (a tray
    whose walls have the floor's colour shows much of it there). Dice cover some of the
    inner band, so the test allows for them. ``image_bgr`` may have any size with the
    profile's aspect ratio.
    """
    h, w = image_bgr.shape[:2]
    if abs(w / h - profile.image_size[0] / profile.image_size[1]) > 0.02:
        return True
    shares = _band_shares(profile, image_bgr)
    if shares is None:
        return True
    inside_share, outside_share = shares
    recorded = profile.outside_floor_share
    outside_limit = 0.6 if recorded is None else max(0.6, recorded + 0.2)
    return inside_share < 0.55 or outside_share > outside_limit


def _band_shares(profile: TrayProfile, image_bgr: Image) -> tuple[float, float] | None:
    """Floor-coloured shares of the bands just inside and just outside the outline, on a
    160 px copy; None when the outline leaves no inner band."""
    small, _scale = work_copy(image_bgr, 160)
    sh, sw = small.shape[:2]
    prof = profile.scaled_to(sw, sh)
    dist = colour_distance(lab_image(small), prof.floor_lab)
    tol = max(10.0, 3.0 * float(np.hypot(prof.floor_lab_std[1], prof.floor_lab_std[2])))
    floor_like = dist < tol
    inner, outer = _bands(prof.polygon_array(), (sw, sh))
    if inner.sum() < 10:
        return None
    outside = float(floor_like[outer].mean()) if outer.sum() else 0.0
    return float(floor_like[inner].mean()), outside


def _bands(
    poly: FloatArray, size: tuple[int, int]
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Masks of a band just inside and just outside the polygon (about 4% of its size)."""
    sw, sh = size
    mask = np.zeros((sh, sw), np.uint8)
    cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 255)
    extent = max(float(np.ptp(poly[:, 0])), float(np.ptp(poly[:, 1])))
    k = max(3, round(0.05 * extent) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    eroded = cv2.erode(mask, kernel)
    inner = cv2.erode(eroded, kernel)
    inner_band = (eroded > 0) & ~(inner > 0)
    dil = cv2.dilate(mask, kernel)
    outer_band = (cv2.dilate(dil, kernel) > 0) & ~(dil > 0)
    return inner_band, outer_band
