"""Ground-truth JSON for a rendered scene, and a validator for that format.

Pixel coordinates follow OpenCV: x right, y down, the centre of the top-left pixel at (0, 0).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .geometry import FACE_NORMALS, convex_hull, rounded_cube_mesh, tilt_deg
from .scene import DieSpec, SceneSpec

STATES = ("flat", "leaning", "off_tray")
SUPPORTS = ("floor", "wall", "die", "rim", "table")


def _r(x: float, nd: int = 2) -> float:
    return round(float(x), nd)


def die_top_centre(die: DieSpec) -> np.ndarray:
    """World position (3,) of the centre of the die's top face (mm)."""
    n = np.array(FACE_NORMALS[die.value], dtype=float)
    return np.asarray(die.rotation @ (n * die.half) + die.centre)


def die_silhouette(spec: SceneSpec, die: DieSpec) -> np.ndarray:
    """Convex hull (M, 2) in pixels of the projected die mesh."""
    verts, _, _ = rounded_cube_mesh(die.size_mm, die.radius_mm, flat_segments=1, band_segments=4)
    world = verts @ die.rotation.T + die.centre
    return convex_hull(spec.camera.project(world))


def camera_json(spec: SceneSpec) -> dict[str, Any]:
    """Camera intrinsics and pose; R, t map world mm to the OpenCV camera frame."""
    cam = spec.camera
    rot, t = cam.world_to_camera()
    k = cam.intrinsics()
    fwd = cam.axes()[2]
    yaw = math.degrees(math.atan2(-fwd[1], -fwd[0])) if math.hypot(fwd[0], fwd[1]) > 1e-9 else 0.0
    return {
        "model": "pinhole",
        "convention": "opencv: x right, y down, pixel centres at integers",
        "fx": _r(k[0, 0], 4),
        "fy": _r(k[1, 1], 4),
        "cx": _r(k[0, 2], 4),
        "cy": _r(k[1, 2], 4),
        "K": [[_r(v, 4) for v in row] for row in k],
        "fov_x_deg": _r(cam.fov_x_deg, 4),
        "R_world_to_cam": [[_r(v, 8) for v in row] for row in rot],
        "t_world_to_cam_mm": [_r(v, 4) for v in t],
        "origin_mm": [_r(v, 3) for v in cam.origin],
        "target_mm": [_r(v, 3) for v in cam.target],
        "up": [_r(v, 6) for v in cam.up],
        "height_cm": _r(cam.height_above(0.0) / 10, 3),
        "tilt_deg": _r(cam.tilt_deg, 3),
        "yaw_deg": _r(yaw, 3),
    }


def build_truth(
    spec: SceneSpec, image_name: str, top_visible: list[float] | None = None
) -> dict[str, Any]:
    """The ground-truth dictionary for one scene (see the module docstring for conventions)."""
    cam = spec.camera
    tray = spec.tray
    floor_px = cam.project(tray.floor_outline())
    outer = tray.outer_outline()
    rim_px = cam.project(outer + np.array([0.0, 0.0, tray.base_mm + tray.wall_height_mm]))
    dice = []
    for i, die in enumerate(spec.dice):
        centre_px = cam.project(die_top_centre(die)[None, :])[0]
        entry: dict[str, Any] = {
            "value": die.value,
            "center": [_r(centre_px[0]), _r(centre_px[1])],
            "silhouette": [[_r(x, 1), _r(y, 1)] for x, y in die_silhouette(spec, die)],
            "size_mm": _r(die.size_mm),
            "tilt_deg": _r(tilt_deg(die.rotation)),
            "state": die.state,
            "support": die.support,
            "placement": die.placement,
            "colour": die.scheme,
            "position_mm": [_r(v) for v in die.centre],
        }
        if top_visible is not None:
            entry["top_visible"] = _r(top_visible[i])
        dice.append(entry)
    return {
        "image": image_name,
        "width": cam.width,
        "height": cam.height,
        "seed": spec.seed,
        "case": spec.case,
        "units": "pixels (OpenCV convention); world in mm, z up, tray floor at z = 0",
        "camera": camera_json(spec),
        "tray": {
            "shape": tray.shape,
            "floor_polygon": [[_r(x, 1), _r(y, 1)] for x, y in floor_px],
            "rim_outer_polygon": [[_r(x, 1), _r(y, 1)] for x, y in rim_px],
            "inner_size_mm": [_r(tray.width_mm), _r(tray.depth_mm)],
            "wall_height_mm": _r(tray.wall_height_mm),
            "wall_thickness_mm": _r(tray.wall_thickness_mm),
            "floor": tray.floor,
            "wall": tray.wall,
            "table": spec.table,
        },
        "dice": dice,
    }


def _is_point(p: Any) -> bool:
    return (
        isinstance(p, list)
        and len(p) == 2
        and all(isinstance(v, (int, float)) and math.isfinite(v) for v in p)
    )


def validate_truth(doc: Any) -> list[str]:
    """Problems found in a ground-truth document; an empty list means it is well formed."""
    errors: list[str] = []
    if not isinstance(doc, dict):
        return ["document is not a JSON object"]
    for key, kind in (("image", str), ("width", int), ("height", int), ("seed", int)):
        if not isinstance(doc.get(key), kind):
            errors.append(f"{key!r} missing or not {kind.__name__}")
    cam = doc.get("camera")
    if not isinstance(cam, dict):
        errors.append("'camera' missing")
    else:
        for key in ("fx", "fy", "cx", "cy", "height_cm", "tilt_deg"):
            if not isinstance(cam.get(key), (int, float)):
                errors.append(f"camera.{key} missing")
        if isinstance(cam.get("height_cm"), (int, float)) and not 20 <= cam["height_cm"] <= 80:
            errors.append(f"camera.height_cm out of range: {cam['height_cm']}")
    tray = doc.get("tray")
    if not isinstance(tray, dict) or tray.get("shape") not in ("rect", "round"):
        errors.append("tray.shape must be 'rect' or 'round'")
    elif not (
        isinstance(tray.get("floor_polygon"), list)
        and len(tray["floor_polygon"]) >= 4
        and all(_is_point(p) for p in tray["floor_polygon"])
    ):
        errors.append("tray.floor_polygon must be a list of >= 4 [x, y] points")
    dice = doc.get("dice")
    if not isinstance(dice, list) or not dice:
        errors.append("'dice' must be a non-empty list")
        return errors
    w, h = doc.get("width", 0), doc.get("height", 0)
    for i, d in enumerate(dice):
        if not isinstance(d, dict):
            errors.append(f"dice[{i}] is not an object")
            continue
        if d.get("value") not in range(1, 7):
            errors.append(f"dice[{i}].value must be 1..6, got {d.get('value')!r}")
        if not _is_point(d.get("center")):
            errors.append(f"dice[{i}].center must be [x, y]")
        elif not (0 <= d["center"][0] < w and 0 <= d["center"][1] < h):
            errors.append(f"dice[{i}].center outside the image: {d['center']}")
        sil = d.get("silhouette")
        if not (isinstance(sil, list) and len(sil) >= 3 and all(_is_point(p) for p in sil)):
            errors.append(f"dice[{i}].silhouette must be >= 3 [x, y] points")
        if d.get("state") not in STATES:
            errors.append(f"dice[{i}].state must be one of {STATES}, got {d.get('state')!r}")
        if d.get("support") not in SUPPORTS:
            errors.append(f"dice[{i}].support must be one of {SUPPORTS}")
        size = d.get("size_mm")
        if not isinstance(size, (int, float)) or not 8 <= size <= 30:
            errors.append(f"dice[{i}].size_mm out of range: {size!r}")
        tilt = d.get("tilt_deg")
        if not isinstance(tilt, (int, float)) or not 0 <= tilt <= 45:
            errors.append(f"dice[{i}].tilt_deg out of range: {tilt!r}")
        elif d.get("state") == "leaning" and tilt < 5:
            errors.append(f"dice[{i}] is leaning but tilted only {tilt} degrees")
        elif d.get("state") == "flat" and tilt > 1:
            errors.append(f"dice[{i}] is flat but tilted {tilt} degrees")
    return errors
