"""Turn a `SceneSpec` into a Mitsuba 3 scene, render it and save an 8-bit sRGB image.

Mitsuba is imported lazily: sampling scenes and computing ground truth never need it. Only the
`scalar_rgb` variant is used because the LLVM variants crash on the project's machines.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import textures
from .geometry import FACE_NORMALS, FloatArray, face_frame, pip_mesh, rounded_cube_mesh
from .scene import SCHEMES, DieSpec, SceneSpec

_MI: Any = None


def mitsuba() -> Any:
    """Import Mitsuba once and select the `scalar_rgb` variant."""
    global _MI
    if _MI is None:
        import mitsuba as mi

        mi.set_variant("scalar_rgb")
        _MI = mi
    return _MI


def write_ply(
    path: Path,
    vertices: FloatArray,
    normals: FloatArray,
    faces: NDArray[np.int32],
    uv: FloatArray | None = None,
) -> None:
    """Write a binary little-endian PLY with per-vertex normals (and optional UVs)."""
    cols = [vertices, normals] + ([uv] if uv is not None else [])
    data = np.concatenate(cols, axis=1).astype("<f4")
    header = [
        "ply",
        "format binary_little_endian 1.0",
        f"element vertex {len(vertices)}",
        "property float x",
        "property float y",
        "property float z",
        "property float nx",
        "property float ny",
        "property float nz",
    ]
    if uv is not None:
        header += ["property float u", "property float v"]
    header += [f"element face {len(faces)}", "property list uchar int vertex_indices", "end_header"]
    face_rec = np.zeros(len(faces), dtype=[("n", "u1"), ("i", "<i4", (3,))])
    face_rec["n"] = 3
    face_rec["i"] = faces
    with path.open("wb") as fh:
        fh.write(("\n".join(header) + "\n").encode("ascii"))
        fh.write(data.tobytes())
        fh.write(face_rec.tobytes())


def _box_mesh(
    lo: FloatArray, hi: FloatArray
) -> tuple[FloatArray, FloatArray, NDArray[np.int32], FloatArray]:
    """Axis-aligned box with flat-shaded faces and UVs scaled to mm / 300."""
    verts: list[FloatArray] = []
    norms: list[FloatArray] = []
    uvs: list[list[float]] = []
    faces: list[list[int]] = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            n = np.zeros(3)
            n[axis] = sign
            a1, a2 = (axis + 1) % 3, (axis + 2) % 3
            if sign < 0:
                a1, a2 = a2, a1
            base = len(verts)
            for s1, s2 in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = np.where(n > 0, hi, lo).astype(float)
                if sign < 0:
                    p[axis] = lo[axis]
                p[a1] = hi[a1] if s1 else lo[a1]
                p[a2] = hi[a2] if s2 else lo[a2]
                verts.append(p)
                norms.append(n)
                uvs.append([p[a1] / 300.0, p[a2] / 300.0])
            faces += [[base, base + 1, base + 2], [base, base + 2, base + 3]]
    return np.array(verts), np.array(norms), np.array(faces, dtype=np.int32), np.array(uvs)


def _ring_mesh(
    r_in: float, r_out: float, z0: float, z1: float, segments: int = 160
) -> tuple[FloatArray, FloatArray, NDArray[np.int32], FloatArray]:
    """A round wall: inner and outer cylinders plus the flat top annulus (smooth normals)."""
    a = np.linspace(0, 2 * math.pi, segments + 1)
    c, s = np.cos(a), np.sin(a)
    verts: list[FloatArray] = []
    norms: list[FloatArray] = []
    uvs: list[FloatArray] = []
    faces: list[list[int]] = []

    def strip(p0: FloatArray, p1: FloatArray, n0: FloatArray, n1: FloatArray, flip: bool) -> None:
        base = sum(len(v) for v in verts)
        verts.extend([p0, p1])
        norms.extend([n0, n1])
        u = a[:, None] * r_out / 300.0
        uvs.extend(
            [np.concatenate([u, np.zeros_like(u)], 1), np.concatenate([u, np.full_like(u, 0.1)], 1)]
        )
        m = segments + 1
        for k in range(segments):
            i0, i1, j0, j1 = base + k, base + k + 1, base + m + k, base + m + k + 1
            faces.extend([[i0, j1, i1], [i0, j0, j1]] if flip else [[i0, i1, j1], [i0, j1, j0]])

    zeros = np.zeros_like(a)

    def ring(r: float, z: float) -> FloatArray:
        out: FloatArray = np.stack([r * c, r * s, np.full_like(a, z)], 1)
        return out

    radial = np.stack([c, s, zeros], 1)
    up = np.stack([zeros, zeros, np.ones_like(a)], 1)
    strip(ring(r_out, z0), ring(r_out, z1), radial, radial, False)
    strip(ring(r_in, z0), ring(r_in, z1), -radial, -radial, True)
    strip(ring(r_in, z1), ring(r_out, z1), up, up, False)
    return (
        np.concatenate(verts),
        np.concatenate(norms),
        np.array(faces, dtype=np.int32),
        np.concatenate(uvs),
    )


def _disc_mesh(
    radius: float, segments: int = 160
) -> tuple[FloatArray, FloatArray, NDArray[np.int32], FloatArray]:
    """A flat disc at z = 0 facing up with planar UVs (mm / 300)."""
    a = np.linspace(0, 2 * math.pi, segments, endpoint=False)
    verts = np.concatenate(
        [[[0.0, 0.0, 0.0]], np.stack([radius * np.cos(a), radius * np.sin(a), 0 * a], 1)]
    )
    norms = np.tile([0.0, 0.0, 1.0], (len(verts), 1))
    faces = np.array([[0, 1 + k, 1 + (k + 1) % segments] for k in range(segments)], dtype=np.int32)
    return verts, norms, faces, verts[:, :2] / 300.0


def _matrix(rotation: FloatArray, centre: FloatArray) -> list[list[float]]:
    m = np.eye(4)
    m[:3, :3] = rotation
    m[:3, 3] = centre
    return [[float(x) for x in row] for row in m]


def _bitmap_tex(mi: Any, img: NDArray[np.float32], scale: float = 1.0) -> dict[str, Any]:
    return {
        "type": "bitmap",
        "bitmap": mi.Bitmap(np.ascontiguousarray(img)),
        "raw": True,
        "filter_type": "bilinear",
        "to_uv": mi.ScalarTransform4f().scale([scale, scale, 1.0]),
    }


def _die_bsdfs(die: DieSpec) -> tuple[dict[str, Any], dict[str, Any]]:
    body, pip, gloss, translucent = SCHEMES[die.scheme]
    body_bsdf: dict[str, Any] = {
        "type": "roughplastic",
        "distribution": "ggx",
        "alpha": 0.28 - 0.2 * gloss,
        "int_ior": 1.5,
        "nonlinear": translucent,
        "diffuse_reflectance": {"type": "rgb", "value": list(body)},
    }
    pip_bsdf: dict[str, Any] = {
        "type": "roughplastic",
        "distribution": "ggx",
        "alpha": 0.3,
        "int_ior": 1.5,
        "diffuse_reflectance": {"type": "rgb", "value": list(pip)},
    }
    return body_bsdf, pip_bsdf


def build_scene_dict(spec: SceneSpec, workdir: Path, spp: int) -> dict[str, Any]:
    """Mitsuba scene dictionary for `spec`; meshes are written as PLY files into `workdir`."""
    mi = mitsuba()
    rng = np.random.default_rng(spec.seed + 7_000_003)
    cam = spec.camera
    tray = spec.tray
    scene: dict[str, Any] = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 6},
        "sensor": {
            "type": "perspective",
            "fov": cam.fov_x_deg,
            "fov_axis": "x",
            "near_clip": 10.0,
            "far_clip": 20000.0,
            "to_world": mi.ScalarTransform4f().look_at(
                origin=list(cam.origin), target=list(cam.target), up=list(cam.up)
            ),
            "film": {
                "type": "hdrfilm",
                "width": cam.width,
                "height": cam.height,
                "rfilter": {"type": "gaussian"},
                "pixel_format": "rgb",
            },
            "sampler": {"type": "independent", "sample_count": spp},
        },
    }
    # Lights.
    lt = spec.light
    cx, cy, cz = lt.area_centre
    scene["lamp"] = {
        "type": "rectangle",
        "to_world": mi.ScalarTransform4f()
        .look_at(origin=[cx, cy, cz], target=[0.0, 0.0, 0.0], up=[0.0, 1.0, 0.0])
        .scale([lt.area_size_mm[0] / 2, lt.area_size_mm[1] / 2, 1.0]),
        "emitter": {
            "type": "area",
            "radiance": {"type": "rgb", "value": [lt.area_radiance * c for c in lt.area_rgb]},
        },
    }
    env = textures.environment(rng, lt.env_level, lt.env_rgb, lt.window_dir, lt.window_level)
    scene["env"] = {
        "type": "envmap",
        "bitmap": mi.Bitmap(env),
        "to_world": mi.ScalarTransform4f().rotate([1.0, 0.0, 0.0], 90.0),
    }
    # Table.
    if "wood" in spec.table:
        table_img = textures.wood(
            rng, spec.table_rgb, 2048, planks=int(rng.integers(0, 12)), cycles=350.0
        )
    else:
        table_img = textures.plain(rng, spec.table_rgb, 1024)
    table_yaw = float(rng.uniform(0, 360))
    scene["table"] = {
        "type": "rectangle",
        "to_world": mi.ScalarTransform4f()
        .translate([0.0, 0.0, -tray.base_mm])
        .rotate([0.0, 0.0, 1.0], table_yaw)
        .scale([1100.0, 1100.0, 1.0]),
        "bsdf": {
            "type": "roughplastic",
            "alpha": float(rng.uniform(0.15, 0.5)),
            "diffuse_reflectance": _bitmap_tex(mi, table_img),
        },
    }
    # Tray floor.
    if tray.floor == "wood":
        floor_img = textures.wood(rng, tray.floor_rgb, 1024, cycles=60.0)
        floor_bsdf: dict[str, Any] = {
            "type": "roughplastic",
            "alpha": 0.3,
            "diffuse_reflectance": _bitmap_tex(mi, floor_img, 300.0 / 400.0),
        }
    else:
        floor_img = textures.felt(rng, tray.floor_rgb, 1024)
        floor_bsdf = {"type": "diffuse", "reflectance": _bitmap_tex(mi, floor_img, 300.0 / 350.0)}
    if tray.wall == "wood":
        wall_bsdf: dict[str, Any] = {
            "type": "roughplastic",
            "alpha": 0.25,
            "diffuse_reflectance": _bitmap_tex(
                mi, textures.wood(rng, tray.wall_rgb, 512, cycles=40.0), 1.0
            ),
        }
    else:
        wall_bsdf = {
            "type": "roughplastic",
            "alpha": 0.35 if "leather" in tray.wall else 0.15,
            "diffuse_reflectance": {"type": "rgb", "value": list(tray.wall_rgb)},
        }
    t, h, b = tray.wall_thickness_mm, tray.wall_height_mm, tray.base_mm
    if tray.shape == "rect":
        w, d = tray.width_mm / 2, tray.depth_mm / 2
        floor_mesh = _box_mesh(np.array([-w - 1, -d - 1, -b]), np.array([w + 1, d + 1, 0.0]))
        walls = [
            ((-w - t, -d - t, -b), (w + t, -d, h)),
            ((-w - t, d, -b), (w + t, d + t, h)),
            ((-w - t, -d, -b), (-w, d, h)),
            ((w, -d, -b), (w + t, d, h)),
        ]
        for i, (lo, hi) in enumerate(walls):
            path = workdir / f"wall{i}.ply"
            write_ply(path, *_box_mesh(np.array(lo, float), np.array(hi, float)))
            scene[f"wall{i}"] = {"type": "ply", "filename": str(path), "bsdf": wall_bsdf}
    else:
        r = tray.radius_mm
        floor_mesh = _disc_mesh(r + 1.0)
        path = workdir / "ring.ply"
        write_ply(path, *_ring_mesh(r, r + t, -b, h))
        scene["wall0"] = {"type": "ply", "filename": str(path), "bsdf": wall_bsdf}
    path = workdir / "floor.ply"
    write_ply(path, *floor_mesh)
    scene["floor"] = {"type": "ply", "filename": str(path), "bsdf": floor_bsdf}
    # Dice: one body and one pip mesh per distinct (size, radius), placed with to_world.
    cache: dict[tuple[float, ...], tuple[Path, Path]] = {}
    for i, die in enumerate(spec.dice):
        key = (
            round(die.size_mm, 4),
            round(die.radius_mm, 4),
            round(die.pip_spacing, 4),
            round(die.pip_radius, 4),
            round(die.one_scale, 4),
        )
        if key not in cache:
            body_path = workdir / f"body{len(cache)}.ply"
            pip_path = workdir / f"pips{len(cache)}.ply"
            write_ply(body_path, *rounded_cube_mesh(die.size_mm, die.radius_mm))
            pips = pip_mesh(
                die.size_mm,
                0.04,
                0.03 * die.size_mm,
                spacing=die.pip_spacing,
                pip_radius=die.pip_radius,
                one_scale=die.one_scale,
            )
            write_ply(pip_path, *pips)
            cache[key] = (body_path, pip_path)
        body_path, pip_path = cache[key]
        to_world = mi.ScalarTransform4f(_matrix(die.rotation, die.centre))
        body_bsdf, pip_bsdf = _die_bsdfs(die)
        scene[f"die{i}"] = {
            "type": "ply",
            "filename": str(body_path),
            "to_world": to_world,
            "bsdf": body_bsdf,
        }
        scene[f"pips{i}"] = {
            "type": "ply",
            "filename": str(pip_path),
            "to_world": to_world,
            "bsdf": pip_bsdf,
        }
    return scene


def tonemap(
    linear: NDArray[np.float32], exposure: float, rng: np.random.Generator
) -> NDArray[np.uint8]:
    """Auto-expose, vignette, add mild sensor noise, encode linear RGB (H, W, 3) as 8-bit sRGB."""
    h, w = linear.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    linear = linear * (1 - float(rng.uniform(0.1, 0.3)) * r2)[..., None]
    lum = linear @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)
    ref = float(np.percentile(lum, 97)) + 1e-6
    img = linear * (0.75 * exposure / ref)
    # Soft shoulder so highlights roll off like a phone's tone curve instead of clipping.
    img = img / (1 + 0.25 * img)
    img = img * 1.25
    img = img + rng.normal(0, 0.004, img.shape).astype(np.float32) * np.sqrt(
        np.clip(img, 0, 1) + 0.02
    )
    img = np.clip(img, 0, 1)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(img, 1 / 2.4) - 0.055)
    out: NDArray[np.uint8] = np.clip(srgb * 255 + 0.5, 0, 255).astype(np.uint8)
    return out


def render_scene(
    spec: SceneSpec, spp: int = 32, *, visibility: bool = False
) -> tuple[NDArray[np.uint8], list[float] | None]:
    """Render `spec` to an 8-bit sRGB image (H, W, 3), RGB order.

    With `visibility`, also returns per die the fraction of its top face the camera sees
    (ray casts in the same loaded scene); otherwise the second item is None.
    """
    mi = mitsuba()
    with tempfile.TemporaryDirectory(prefix="render_tray_") as tmp:
        scene = mi.load_dict(build_scene_dict(spec, Path(tmp), spp))
        linear = np.array(mi.render(scene, seed=spec.seed % (2**31), spp=spp), dtype=np.float32)
        vis = top_face_visibility(scene, spec) if visibility else None
    rng = np.random.default_rng(spec.seed + 11)
    return tonemap(linear[..., :3], spec.exposure, rng), vis


def top_face_visibility(scene: Any, spec: SceneSpec, grid_size: int = 3) -> list[float]:
    """Fraction of a grid of points on each die's top face that the camera sees unoccluded."""
    mi = mitsuba()
    o = np.array(spec.camera.origin)
    grid = np.linspace(-0.3, 0.3, grid_size)
    fractions: list[float] = []
    for die in spec.dice:
        _, u, v = face_frame(die.value)
        normal = np.array(FACE_NORMALS[die.value], dtype=float)
        seen = 0
        for a in grid:
            for b in grid:
                local = normal * die.half + (a * u + b * v) * die.size_mm
                p = die.rotation @ local + die.centre
                d = p - o
                dist = float(np.linalg.norm(d))
                ray = mi.Ray3f(mi.ScalarPoint3f(*o), mi.ScalarVector3f(*(d / dist)))
                si = scene.ray_intersect(ray)
                # Mitsuba merges meshes that share a BSDF, so judge by the hit distance:
                # anything hit more than 0.3 mm before the face point occludes it.
                if si.is_valid() and float(si.t) > dist - 0.3:
                    seen += 1
        fractions.append(seen / grid_size**2)
    return fractions
