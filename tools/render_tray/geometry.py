"""Die geometry: pip layout, rounded-cube mesh, rotations, support functions and 2D footprints.

World frame: millimetres, z up, the tray floor is the plane z = 0. A die's local frame has its
centre at the origin and its faces perpendicular to the local axes.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# Face value for each outward local normal. Opposite faces sum to 7 and the arrangement is
# right-handed: det[n1, n2, n3] = +1, so 1-2-3 run counter-clockwise seen from their corner.
FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0.0, 0.0, 1.0),
    6: (0.0, 0.0, -1.0),
    2: (1.0, 0.0, 0.0),
    5: (-1.0, 0.0, 0.0),
    3: (0.0, 1.0, 0.0),
    4: (0.0, -1.0, 0.0),
}

# Pip centres on a face in units of the die edge length, (u, v) in the face's tangent frame.
_D = 0.26
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-_D, -_D), (_D, _D)),
    3: ((-_D, -_D), (0.0, 0.0), (_D, _D)),
    4: ((-_D, -_D), (_D, -_D), (-_D, _D), (_D, _D)),
    5: ((-_D, -_D), (_D, -_D), (0.0, 0.0), (-_D, _D), (_D, _D)),
    6: ((-_D, -_D), (-_D, 0.0), (-_D, _D), (_D, -_D), (_D, 0.0), (_D, _D)),
}
PIP_RADIUS = 0.085  # in edge lengths; real pips are ~2.5-3 mm across on a 16 mm die
UP = np.array([0.0, 0.0, 1.0])


def face_frame(value: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return (normal, u, v) unit vectors of a face in die-local coordinates; u x v = normal."""
    n = np.array(FACE_NORMALS[value], dtype=float)
    helper = np.array([0.0, 0.0, 1.0]) if abs(n[2]) < 0.5 else np.array([0.0, 1.0, 0.0])
    u = np.cross(helper, n)
    u /= np.linalg.norm(u)
    v = np.cross(n, u)
    return n, u, v


def pip_centres(value: int, size_mm: float, spacing: float = _D) -> FloatArray:
    """Pip centres of one face in die-local mm, shape (value, 3), on the face plane.

    `spacing` is the offset of the corner pips from the face centre, in edge lengths.
    """
    n, u, v = face_frame(value)
    k = spacing / _D
    pts = [n * size_mm / 2 + (a * u + b * v) * k * size_mm for a, b in PIP_LAYOUT[value]]
    return np.array(pts)


def rot_x(deg: float) -> FloatArray:
    """Rotation matrix (3x3) about the x axis, right-handed, degrees."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=float)


def rot_y(deg: float) -> FloatArray:
    """Rotation matrix (3x3) about the y axis, right-handed, degrees."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], dtype=float)


def rot_z(deg: float) -> FloatArray:
    """Rotation matrix (3x3) about the z axis, right-handed, degrees."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=float)


def rot_axis(axis: FloatArray, deg: float) -> FloatArray:
    """Rotation matrix (3x3) about a unit axis (Rodrigues), degrees."""
    a = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    t = math.radians(deg)
    out: FloatArray = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)
    return out


def face_up_rotation(value: int) -> FloatArray:
    """A rotation that turns the face with this value to point along world +z."""
    n = np.array(FACE_NORMALS[value], dtype=float)
    if n[2] > 0.5:
        return np.eye(3)
    if n[2] < -0.5:
        return rot_x(180.0)
    axis = np.cross(n, UP)
    return rot_axis(axis, 90.0)


def top_face(rotation: FloatArray) -> int:
    """Value of the face whose world normal is closest to world up, for a die-to-world rotation."""
    best, best_z = 1, -2.0
    for value, n in FACE_NORMALS.items():
        z = float((rotation @ np.array(n))[2])
        if z > best_z:
            best, best_z = value, z
    return best


def tilt_deg(rotation: FloatArray) -> float:
    """Angle in degrees between the top face's world normal and world up."""
    n = rotation @ np.array(FACE_NORMALS[top_face(rotation)])
    return math.degrees(math.acos(max(-1.0, min(1.0, float(n[2])))))


def support(rotation: FloatArray, half: float, radius: float, direction: FloatArray) -> float:
    """Support function h(d) = max over the rounded box of d.x (centre at origin), in mm.

    The rounded box is an inner box of half size `half - radius` dilated by a ball of `radius`.
    """
    d = np.asarray(direction, dtype=float)
    d = d / np.linalg.norm(d)
    local = rotation.T @ d
    return float((half - radius) * np.abs(local).sum() + radius)


def support_point(
    rotation: FloatArray, half: float, radius: float, direction: FloatArray
) -> FloatArray:
    """A point of the rounded box extreme along `direction` (middle of the extreme edge/face)."""
    d = np.asarray(direction, dtype=float)
    d = d / np.linalg.norm(d)
    local = rotation.T @ d
    sign = np.where(np.abs(local) < 1e-6, 0.0, np.sign(local))
    out: FloatArray = rotation @ (sign * (half - radius)) + radius * d
    return out


def convex_hull(points: FloatArray) -> FloatArray:
    """Convex hull of 2D points (N, 2) as a counter-clockwise polygon (M, 2) (monotone chain)."""
    pts = np.unique(np.asarray(points, dtype=float), axis=0)
    if len(pts) <= 2:
        return pts
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    pts = pts[order]

    def cross(o: FloatArray, a: FloatArray, b: FloatArray) -> float:
        return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))

    lower: list[FloatArray] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[FloatArray] = []
    for p in pts[::-1]:
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def footprint(
    rotation: FloatArray, centre: FloatArray, half: float, radius: float, n_circle: int = 24
) -> FloatArray:
    """Top-down (x, y) outline of a rounded-box die in mm, convex polygon (M, 2)."""
    inner = half - radius
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    pts = (corners * inner) @ rotation.T + centre
    ang = np.linspace(0, 2 * math.pi, n_circle, endpoint=False)
    # Circumscribe the disc so the polygon never underestimates the real outline.
    ring = np.stack([np.cos(ang), np.sin(ang)], axis=1) * radius / math.cos(math.pi / n_circle)
    allpts = (pts[:, None, :2] + ring[None, :, :]).reshape(-1, 2)
    return convex_hull(allpts)


def polygons_overlap(a: FloatArray, b: FloatArray, gap: float = 0.0) -> bool:
    """True when two convex polygons come closer than `gap` mm (separating axis test)."""
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)
        lengths = np.linalg.norm(normals, axis=1)
        for nrm, length in zip(normals, lengths, strict=True):
            if length < 1e-12:
                continue
            nn = nrm / length
            pa, pb = a @ nn, b @ nn
            if pa.max() + gap <= pb.min() or pb.max() + gap <= pa.min():
                return False
    return True


def rounded_cube_mesh(
    size: float, radius: float, flat_segments: int = 4, band_segments: int = 7
) -> tuple[FloatArray, FloatArray, NDArray[np.int32]]:
    """Triangle mesh of a cube with rounded edges and corners, centred at the origin.

    Returns (vertices (V, 3) mm, unit vertex normals (V, 3), faces (F, 3) int32). Each face is a
    grid on the cube surface projected onto the rounded box, denser in the rounded bands.
    """
    half = size / 2
    inner = half - radius
    frac = inner / half
    band = np.linspace(0.0, 1.0, band_segments + 1)
    flat = np.linspace(-frac, frac, flat_segments + 1)
    ts = np.concatenate([-1 + (1 - frac) * band[:-1], flat, frac + (1 - frac) * band[1:]])
    verts: list[FloatArray] = []
    norms: list[FloatArray] = []
    faces: list[NDArray[np.int32]] = []
    n_t = len(ts)
    for value in FACE_NORMALS:
        n, u, v = face_frame(value)
        uu, vv = np.meshgrid(ts, ts, indexing="ij")
        p = (n[None, None, :] + uu[..., None] * u + vv[..., None] * v) * half
        p = p.reshape(-1, 3)
        q = np.clip(p, -inner, inner)
        d = p - q
        dn = d / np.linalg.norm(d, axis=1, keepdims=True)
        base = sum(len(x) for x in verts)
        verts.append(q + radius * dn)
        norms.append(dn)
        idx = np.arange(n_t * n_t).reshape(n_t, n_t) + base
        a = idx[:-1, :-1].ravel()
        b = idx[1:, :-1].ravel()
        c = idx[1:, 1:].ravel()
        e = idx[:-1, 1:].ravel()
        # u x v = n, so (a, b, c) runs counter-clockwise seen from outside.
        faces.append(np.stack([a, b, c], axis=1).astype(np.int32))
        faces.append(np.stack([a, c, e], axis=1).astype(np.int32))
    return np.concatenate(verts), np.concatenate(norms), np.concatenate(faces)


def pip_mesh(
    size: float,
    lift: float,
    dent_depth: float,
    *,
    spacing: float = _D,
    pip_radius: float = PIP_RADIUS,
    one_scale: float = 1.0,
    rings: int = 3,
    segments: int = 20,
) -> tuple[FloatArray, FloatArray, NDArray[np.int32]]:
    """All 21 pips of a die as flat discs lifted `lift` mm above their faces, die-local mm.

    Vertex normals follow a spherical dent of depth `dent_depth` so the pips shade like
    drilled, painted dents. `pip_radius` is in edge lengths; the single pip of the 1 face is
    `one_scale` times larger (many dice have a big 1). Returns (vertices, normals, faces) like
    `rounded_cube_mesh`.
    """
    verts: list[FloatArray] = []
    norms: list[FloatArray] = []
    faces: list[NDArray[np.int32]] = []
    ang = np.linspace(0, 2 * math.pi, segments, endpoint=False)
    for value in FACE_NORMALS:
        n, u, v = face_frame(value)
        rp = pip_radius * size * (one_scale if value == 1 else 1.0)
        depth = min(dent_depth, 0.8 * rp)
        sphere_r = (rp * rp + depth * depth) / (2 * depth)
        for c in pip_centres(value, size, spacing):
            base = sum(len(x) for x in verts)
            pts = [c + n * lift]
            nrm = [n]
            for k in range(1, rings + 1):
                rho = rp * k / rings
                for a in ang:
                    radial = math.cos(a) * u + math.sin(a) * v
                    pts.append(c + n * lift + rho * radial)
                    vec = -rho * radial + math.sqrt(sphere_r**2 - rho**2) * n
                    nrm.append(vec / np.linalg.norm(vec))
            verts.append(np.array(pts))
            norms.append(np.array(nrm))
            tri: list[tuple[int, int, int]] = []
            for j in range(segments):
                tri.append((base, base + 1 + j, base + 1 + (j + 1) % segments))
            for k in range(1, rings):
                r0 = base + 1 + (k - 1) * segments
                r1 = base + 1 + k * segments
                for j in range(segments):
                    j1 = (j + 1) % segments
                    tri.append((r0 + j, r1 + j, r1 + j1))
                    tri.append((r0 + j, r1 + j1, r0 + j1))
            faces.append(np.array(tri, dtype=np.int32))
    return np.concatenate(verts), np.concatenate(norms), np.concatenate(faces)
