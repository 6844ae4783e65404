"""Random tray scenes as plain data: tray, table, dice poses, camera and lights.

Everything is sampled from one `numpy.random.Generator`, so a seed fixes the scene. Units are
millimetres, world z is up and the tray floor is the plane z = 0; the tray is centred on the
origin and the table top lies `base_mm` below the floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .camera import Camera
from .geometry import (
    FloatArray,
    face_up_rotation,
    footprint,
    polygons_overlap,
    rot_axis,
    rot_z,
    support,
    support_point,
    top_face,
)

CASES = (
    "flat",
    "touching",
    "corner",
    "frame_edge",
    "leaning",
    "leaning_wall",
    "leaning_die",
    "off_tray",
    "table",
    "rim",
    "mixed",
    "clean",
    "flash",
)

# name -> (body linear RGB, pip linear RGB, glossiness 0..1, translucent-looking)
SCHEMES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float], float, bool]] = {
    "white": ((0.80, 0.80, 0.77), (0.015, 0.015, 0.015), 0.5, False),
    "black": ((0.015, 0.015, 0.016), (0.80, 0.80, 0.78), 0.6, False),
    "red": ((0.42, 0.012, 0.015), (0.85, 0.85, 0.85), 0.9, True),
    "blue": ((0.015, 0.05, 0.38), (0.82, 0.82, 0.82), 0.7, False),
    "green": ((0.02, 0.26, 0.05), (0.82, 0.82, 0.82), 0.7, False),
    "ivory": ((0.75, 0.62, 0.42), (0.02, 0.015, 0.01), 0.4, False),
    "yellow": ((0.80, 0.55, 0.02), (0.012, 0.012, 0.012), 0.6, False),
}

FELTS: dict[str, tuple[float, float, float]] = {
    "green_felt": (0.035, 0.16, 0.055),
    "blue_felt": (0.03, 0.06, 0.22),
    "red_felt": (0.22, 0.025, 0.03),
    "black_felt": (0.018, 0.018, 0.02),
    "grey_felt": (0.12, 0.12, 0.12),
    "purple_felt": (0.10, 0.03, 0.16),
    "tan_felt": (0.35, 0.25, 0.14),
}
TABLES: dict[str, tuple[float, float, float]] = {
    "light_wood": (0.50, 0.33, 0.17),
    "dark_wood": (0.16, 0.08, 0.035),
    "white": (0.70, 0.70, 0.68),
    "grey": (0.30, 0.30, 0.31),
    "slate": (0.05, 0.055, 0.06),
    "beige": (0.55, 0.47, 0.36),
}
WALLS: dict[str, tuple[float, float, float]] = {
    "wood": (0.35, 0.20, 0.09),
    "black_leather": (0.02, 0.02, 0.02),
    "brown_leather": (0.12, 0.05, 0.02),
    "white_plastic": (0.65, 0.65, 0.63),
    "red_plastic": (0.35, 0.02, 0.02),
}


@dataclass
class DieSpec:
    """One die: pose (die-to-world rotation, centre in mm), look and ground-truth labels."""

    size_mm: float
    radius_mm: float
    scheme: str
    rotation: FloatArray
    centre: FloatArray
    state: str  # flat | leaning | off_tray
    support: str  # floor | wall | die | rim | table
    placement: str  # how it was placed: free, wall, corner, touching, edge, lean_wall, ...
    pip_spacing: float = 0.26  # corner pip offset from the face centre, in edge lengths
    pip_radius: float = 0.085  # in edge lengths
    one_scale: float = 1.0  # size of the 1 face's pip relative to the others

    @property
    def half(self) -> float:
        return self.size_mm / 2

    @property
    def value(self) -> int:
        return top_face(self.rotation)

    def footprint(self) -> FloatArray:
        return footprint(self.rotation, self.centre, self.half, self.radius_mm)


@dataclass
class TraySpec:
    """Tray: `rect` (inner width x depth) or `round` (inner radius), walls, floor and rim looks."""

    shape: str
    width_mm: float  # rect: inner size along x; round: inner diameter
    depth_mm: float  # rect: inner size along y; round: inner diameter
    wall_height_mm: float
    wall_thickness_mm: float
    base_mm: float
    floor: str  # key of FELTS or "wood"
    floor_rgb: tuple[float, float, float]
    wall: str
    wall_rgb: tuple[float, float, float]

    @property
    def radius_mm(self) -> float:
        return self.width_mm / 2

    def floor_outline(self, n: int = 96) -> FloatArray:
        """Inner floor outline (N, 3) at z = 0, counter-clockwise seen from above."""
        if self.shape == "rect":
            w, d = self.width_mm / 2, self.depth_mm / 2
            return np.array([[-w, -d, 0], [w, -d, 0], [w, d, 0], [-w, d, 0]], dtype=float)
        a = np.linspace(0, 2 * math.pi, n, endpoint=False)
        r = self.radius_mm
        return np.stack([r * np.cos(a), r * np.sin(a), np.zeros_like(a)], axis=1)

    def outer_outline(self, n: int = 96) -> FloatArray:
        """Outer outline of the walls (N, 3) at table height."""
        t = self.wall_thickness_mm
        if self.shape == "rect":
            w, d = self.width_mm / 2 + t, self.depth_mm / 2 + t
            pts = [[-w, -d], [w, -d], [w, d], [-w, d]]
            return np.array([[x, y, -self.base_mm] for x, y in pts], dtype=float)
        a = np.linspace(0, 2 * math.pi, n, endpoint=False)
        r = self.radius_mm + t
        return np.stack([r * np.cos(a), r * np.sin(a), np.full_like(a, -self.base_mm)], axis=1)

    def inside_floor(self, pts: FloatArray, margin: float = 0.0) -> bool:
        """True when all 2D points (N, 2) lie on the floor at least `margin` mm from the walls."""
        if self.shape == "rect":
            return bool(
                np.all(np.abs(pts[:, 0]) <= self.width_mm / 2 - margin)
                and np.all(np.abs(pts[:, 1]) <= self.depth_mm / 2 - margin)
            )
        return bool(np.all(np.hypot(pts[:, 0], pts[:, 1]) <= self.radius_mm - margin))

    def outside_tray(self, pts: FloatArray, margin: float = 0.0) -> bool:
        """True when all 2D points (N, 2) lie on the table, clear of the outer walls."""
        t = self.wall_thickness_mm
        if self.shape == "rect":
            w, d = self.width_mm / 2 + t + margin, self.depth_mm / 2 + t + margin
            inside = (np.abs(pts[:, 0]) < w) & (np.abs(pts[:, 1]) < d)
            return not bool(np.any(inside))
        return bool(np.all(np.hypot(pts[:, 0], pts[:, 1]) >= self.radius_mm + t + margin))


@dataclass
class LightSpec:
    """A rectangular area light plus an environment map description."""

    area_centre: tuple[float, float, float]
    area_size_mm: tuple[float, float]
    area_radiance: float
    area_rgb: tuple[float, float, float]
    env_level: float
    env_rgb: tuple[float, float, float]
    window_dir: tuple[float, float, float]
    window_level: float


@dataclass
class SceneSpec:
    """A whole scene; `render.py` turns it into a Mitsuba scene and `truth.py` into JSON."""

    seed: int
    case: str
    tray: TraySpec
    table: str
    table_rgb: tuple[float, float, float]
    camera: Camera
    light: LightSpec
    dice: list[DieSpec] = field(default_factory=list)
    exposure: float = 1.0


class PlacementError(RuntimeError):
    """No valid pose was found for a die after many tries."""


def _choice(rng: np.random.Generator, items: list[str] | tuple[str, ...]) -> str:
    return str(items[int(rng.integers(len(items)))])


def sample_tray(rng: np.random.Generator) -> TraySpec:
    """Sample a rectangular box tray or a round bowl / felt ring."""
    shape = "rect" if rng.random() < 0.65 else "round"
    if shape == "rect":
        w = float(rng.uniform(220, 330))
        d = float(rng.uniform(160, min(250, w)))
        height = float(rng.uniform(28, 50))
        thick = float(rng.uniform(12, 24))
    else:
        w = d = float(rng.uniform(210, 300))
        height = float(rng.uniform(18, 40))
        thick = float(rng.uniform(14, 26))
    floor = "wood" if rng.random() < 0.1 else _choice(rng, list(FELTS))
    floor_rgb = (0.45, 0.30, 0.16) if floor == "wood" else FELTS[floor]
    floor_rgb = tuple(float(c * rng.uniform(0.85, 1.15)) for c in floor_rgb)  # type: ignore[assignment]
    wall = _choice(rng, list(WALLS))
    if floor == "wood" and wall == "wood":
        wall = "black_leather"
    return TraySpec(
        shape=shape,
        width_mm=w,
        depth_mm=d,
        wall_height_mm=height,
        wall_thickness_mm=thick,
        base_mm=float(rng.uniform(3, 8)),
        floor=floor,
        floor_rgb=floor_rgb,
        wall=wall,
        wall_rgb=WALLS[wall],
    )


def sample_table(
    rng: np.random.Generator, tray: TraySpec
) -> tuple[str, tuple[float, float, float]]:
    """Pick a table look that differs clearly from the tray floor."""
    for _ in range(20):
        name = _choice(rng, list(TABLES))
        rgb = TABLES[name]
        if np.abs(np.array(rgb) - np.array(tray.floor_rgb)).sum() > 0.15:
            break
    return name, rgb


def sample_camera(
    rng: np.random.Generator,
    tray: TraySpec,
    width: int,
    height: int,
    *,
    height_range: tuple[float, float] = (350.0, 600.0),
    tilt_range: tuple[float, float] = (0.0, 20.0),
    target_spread: float = 0.3,
) -> Camera:
    """Sample a phone- or webcam-like camera above the tray (height above floor, tilt, yaw)."""
    h = float(rng.uniform(*height_range))
    tilt = float(rng.uniform(*tilt_range))
    yaw = float(rng.uniform(0, 360))
    # Phone main cameras are ~26 mm equivalent (about 80 degrees diagonal), webcams 65-80.
    diag_fov = float(rng.uniform(66, 80))
    aspect_diag = math.hypot(width, height)
    fov_x = 2 * math.degrees(math.atan(math.tan(math.radians(diag_fov) / 2) * width / aspect_diag))
    tx = float(rng.uniform(-1, 1)) * target_spread * tray.width_mm / 2
    ty = float(rng.uniform(-1, 1)) * target_spread * tray.depth_mm / 2
    target = np.array([tx, ty, 0.0])
    t = math.radians(tilt)
    y = math.radians(yaw)
    offset = np.array([math.sin(t) * math.cos(y), math.sin(t) * math.sin(y), math.cos(t)])
    origin = target + offset * h / math.cos(t)
    roll = math.radians(float(rng.uniform(-8, 8)))
    up = np.array([-math.cos(y + roll), -math.sin(y + roll), 0.0])
    return Camera(
        origin=(float(origin[0]), float(origin[1]), float(origin[2])),
        target=(float(target[0]), float(target[1]), float(target[2])),
        up=(float(up[0]), float(up[1]), float(up[2])),
        fov_x_deg=fov_x,
        width=width,
        height=height,
    )


def sample_light(rng: np.random.Generator, *, clean: bool = False) -> LightSpec:
    """Sample an area light (ceiling lamp or window-like panel) and an environment."""
    if clean:
        # Off to one side so glossy top faces do not mirror the lamp into the camera.
        r = float(rng.uniform(450, 650))
        a = float(rng.uniform(0, 2 * math.pi))
        centre = (r * math.cos(a), r * math.sin(a), float(rng.uniform(900, 1200)))
        size = (float(rng.uniform(300, 450)), float(rng.uniform(300, 450)))
        env = float(rng.uniform(0.5, 0.7))
    else:
        r = float(rng.uniform(0, 700))
        a = float(rng.uniform(0, 2 * math.pi))
        centre = (r * math.cos(a), r * math.sin(a), float(rng.uniform(700, 1600)))
        size = (float(rng.uniform(150, 900)), float(rng.uniform(150, 900)))
        env = float(rng.uniform(0.15, 0.45))
    warm = float(rng.uniform(-1, 1))
    rgb = (1.0 + 0.12 * warm, 1.0, 1.0 - 0.15 * warm)
    wa = float(rng.uniform(0, 2 * math.pi))
    we = math.radians(float(rng.uniform(15, 60)))
    window = (math.cos(wa) * math.cos(we), math.sin(wa) * math.cos(we), math.sin(we))
    area = size[0] * size[1]
    # Keep the irradiance at the tray roughly constant whatever the lamp size and distance.
    radiance = 1.6e6 * (centre[2] / 1000.0) ** 2 / (area / 1e4) / 100.0
    return LightSpec(
        area_centre=centre,
        area_size_mm=size,
        area_radiance=radiance * float(rng.uniform(0.6, 1.4)),
        area_rgb=rgb,
        env_level=env,
        env_rgb=(1.0 - 0.08 * warm, 1.0, 1.0 + 0.1 * warm),
        window_dir=window,
        window_level=0.0 if clean else float(rng.uniform(0.0, 6.0)),
    )


#: A phone's flash as an area light: its side (mm) and how much brighter than the room's
#: lamp it leaves the tray.
FLASH_SIDE_MM = 12.0
FLASH_GAIN = 1.5


def flash_light(cam: Camera, room: LightSpec) -> LightSpec:
    """``room`` with its lamp replaced by a small bright panel at the camera, facing the
    tray, as a phone's flash: glossy top faces mirror it straight back into the camera (a
    blown-out highlight on a face), and the room's light is dimmed to a fill."""
    x, y, z = cam.origin
    area = FLASH_SIDE_MM * FLASH_SIDE_MM
    # The same irradiance rule as sample_light's lamp, at the camera's distance.
    distance = math.sqrt(x * x + y * y + z * z)
    radiance = 1.6e6 * (distance / 1000.0) ** 2 / (area / 1e4) / 100.0 * FLASH_GAIN
    return LightSpec(
        area_centre=(float(x), float(y), float(z)),
        area_size_mm=(FLASH_SIDE_MM, FLASH_SIDE_MM),
        area_radiance=radiance,
        area_rgb=(1.0, 1.0, 1.0),
        env_level=0.3 * room.env_level,
        env_rgb=room.env_rgb,
        window_dir=room.window_dir,
        window_level=0.0,
    )


class Placer:
    """Places dice one by one without interpenetration (2D rejection sampling of footprints)."""

    def __init__(self, rng: np.random.Generator, tray: TraySpec, camera: Camera) -> None:
        self.rng = rng
        self.tray = tray
        self.camera = camera
        self.dice: list[DieSpec] = []
        self.min_gap = 0.05

    # -- checks ---------------------------------------------------------------------------
    def _in_frame(self, die: DieSpec) -> bool:
        corners = np.array(
            [[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float
        )
        pts = corners * die.half @ die.rotation.T + die.centre
        if np.any(self.camera.depth(pts) <= 10):
            return False
        px = self.camera.project(pts)
        w, h = self.camera.width, self.camera.height
        margin_px = 0.004 * w
        return bool(
            np.all(px[:, 0] >= margin_px)
            and np.all(px[:, 0] <= w - 1 - margin_px)
            and np.all(px[:, 1] >= margin_px)
            and np.all(px[:, 1] <= h - 1 - margin_px)
        )

    def _clear_of_dice(self, die: DieSpec, gap: float, ignore: DieSpec | None = None) -> bool:
        fp = die.footprint()
        for other in self.dice:
            if other is ignore:
                continue
            if polygons_overlap(fp, other.footprint(), gap):
                return False
        return True

    def _accept(
        self, die: DieSpec, gap: float | None = None, ignore: DieSpec | None = None
    ) -> bool:
        g = self.min_gap if gap is None else gap
        if not self._in_frame(die):
            return False
        if die.support in ("floor", "wall", "die") and not self.tray.inside_floor(
            die.footprint(), margin=-0.01
        ):
            return False
        if die.support == "table" and not self.tray.outside_tray(die.footprint(), margin=2.0):
            return False
        return self._clear_of_dice(die, g, ignore)

    # -- poses ----------------------------------------------------------------------------
    def _base_rotation(self, yaw_deg: float) -> FloatArray:
        value = int(self.rng.integers(1, 7))
        spin = 90.0 * int(self.rng.integers(4))
        return rot_z(yaw_deg) @ rot_z(spin) @ face_up_rotation(value)

    def _new_die(self, size: float, radius: float, scheme: str) -> DieSpec:
        return DieSpec(size, radius, scheme, np.eye(3), np.zeros(3), "flat", "floor", "free")

    def _flat_on(self, die: DieSpec, xy: FloatArray, z: float, yaw: float) -> None:
        die.rotation = self._base_rotation(yaw)
        die.centre = np.array([xy[0], xy[1], z + die.half])

    def _random_floor_xy(self, die: DieSpec, margin: float) -> FloatArray:
        if self.tray.shape == "rect":
            w = self.tray.width_mm / 2 - margin
            d = self.tray.depth_mm / 2 - margin
            return np.array([self.rng.uniform(-w, w), self.rng.uniform(-d, d)])
        r = (self.tray.radius_mm - margin) * math.sqrt(float(self.rng.random()))
        a = float(self.rng.uniform(0, 2 * math.pi))
        return np.array([r * math.cos(a), r * math.sin(a)])

    def _wall_frame(self, die: DieSpec) -> tuple[FloatArray, float, FloatArray, float]:
        """Pick a wall spot: inward normal n (2D), plane offset c (n.x = c), tangent, wall yaw."""
        if self.tray.shape == "rect":
            side = int(self.rng.integers(4))
            w, d = self.tray.width_mm / 2, self.tray.depth_mm / 2
            if side == 0:
                n, c = np.array([1.0, 0.0]), -w
            elif side == 1:
                n, c = np.array([-1.0, 0.0]), -w
            elif side == 2:
                n, c = np.array([0.0, 1.0]), -d
            else:
                n, c = np.array([0.0, -1.0]), -d
        else:
            a = float(self.rng.uniform(0, 2 * math.pi))
            n = -np.array([math.cos(a), math.sin(a)])
            c = -self.tray.radius_mm
        tangent = np.array([-n[1], n[0]])
        return n, c, tangent, math.degrees(math.atan2(n[1], n[0]))

    def _curvature_gap(self, die: DieSpec) -> float:
        if self.tray.shape == "rect":
            return 0.1
        return die.size_mm**2 / (2 * self.tray.radius_mm) + 0.15

    def place_free(self, die: DieSpec, margin: float = 1.0, gap: float | None = None) -> bool:
        for _ in range(300):
            xy = self._random_floor_xy(die, die.size_mm * 0.72 + margin)
            self._flat_on(die, xy, 0.0, float(self.rng.uniform(0, 360)))
            die.state, die.support, die.placement = "flat", "floor", "free"
            if self._accept(die, gap):
                return True
        return False

    def place_wall(self, die: DieSpec) -> bool:
        for _ in range(300):
            n, c, tangent, wall_yaw = self._wall_frame(die)
            aligned = self.rng.random() < 0.6
            yaw = wall_yaw + (
                float(self.rng.uniform(-4, 4)) if aligned else float(self.rng.uniform(0, 90))
            )
            self._flat_on(die, np.zeros(2), 0.0, yaw)
            n3 = np.array([n[0], n[1], 0.0])
            dist = (
                c + support(die.rotation, die.half, die.radius_mm, -n3) + self._curvature_gap(die)
            )
            along = self._along_wall(tangent, die)
            xy = n * dist + tangent * along
            die.centre = np.array([xy[0], xy[1], die.half])
            die.state, die.support, die.placement = "flat", "floor", "wall"
            if self._accept(die):
                return True
        return False

    def _along_wall(self, tangent: FloatArray, die: DieSpec) -> float:
        if self.tray.shape == "round":
            return 0.0
        length = self.tray.width_mm if abs(tangent[0]) > 0.5 else self.tray.depth_mm
        lim = length / 2 - die.size_mm
        return float(self.rng.uniform(-lim, lim))

    def place_corner(self, die: DieSpec) -> bool:
        if self.tray.shape != "rect":
            return self.place_wall(die)
        for _ in range(100):
            sx = 1.0 if self.rng.random() < 0.5 else -1.0
            sy = 1.0 if self.rng.random() < 0.5 else -1.0
            yaw = (
                float(self.rng.uniform(-5, 5))
                if self.rng.random() < 0.7
                else float(self.rng.uniform(0, 90))
            )
            self._flat_on(die, np.zeros(2), 0.0, yaw)
            hx = support(die.rotation, die.half, die.radius_mm, np.array([sx, 0.0, 0.0]))
            hy = support(die.rotation, die.half, die.radius_mm, np.array([0.0, sy, 0.0]))
            x = sx * (self.tray.width_mm / 2 - hx - 0.1)
            y = sy * (self.tray.depth_mm / 2 - hy - 0.1)
            die.centre = np.array([x, y, die.half])
            die.state, die.support, die.placement = "flat", "floor", "corner"
            if self._accept(die):
                return True
        return False

    def place_touching(self, die: DieSpec) -> bool:
        floor_dice = [d for d in self.dice if d.support == "floor" and d.state == "flat"]
        if not floor_dice:
            return self.place_free(die)
        for _ in range(200):
            other = floor_dice[int(self.rng.integers(len(floor_dice)))]
            face_to_face = self.rng.random() < 0.6
            other_yaw = math.degrees(math.atan2(other.rotation[1, 0], other.rotation[0, 0]))
            if face_to_face:
                yaw = other_yaw + float(self.rng.uniform(-3, 3))
                ang = math.radians(other_yaw + 90 * int(self.rng.integers(4)))
                ang += math.radians(float(self.rng.uniform(-20, 20)))
            else:
                yaw = float(self.rng.uniform(0, 360))
                ang = float(self.rng.uniform(0, 2 * math.pi))
            direction = np.array([math.cos(ang), math.sin(ang)])
            self._flat_on(die, np.zeros(2), 0.0, yaw)
            # Bisect the distance at which the two footprints just stop overlapping.
            lo, hi = 0.0, (die.size_mm + other.size_mm) * 1.5
            ofp = other.footprint()
            for _ in range(30):
                mid = (lo + hi) / 2
                die.centre = np.array([*(other.centre[:2] + direction * mid), die.half])
                if polygons_overlap(die.footprint(), ofp, 0.0):
                    lo = mid
                else:
                    hi = mid
            die.centre = np.array([*(other.centre[:2] + direction * (hi + 0.12)), die.half])
            die.state, die.support, die.placement = "flat", "floor", "touching"
            if self._accept(die):
                return True
        return False

    def place_edge(self, die: DieSpec) -> bool:
        """A flat die whose image lies within a few pixels of a frame edge."""
        w, h = self.camera.width, self.camera.height
        for _ in range(600):
            xy = self._random_floor_xy(die, die.size_mm * 0.72)
            self._flat_on(die, xy, 0.0, float(self.rng.uniform(0, 360)))
            die.state, die.support, die.placement = "flat", "floor", "edge"
            px = self.camera.project(die.centre[None, :])[0]
            border = min(px[0], w - 1 - px[0], px[1], h - 1 - px[1])
            if border < 0.06 * w and self._accept(die):
                return True
        return False

    def _lean_rotation(
        self, die: DieSpec, yaw: float, axis: FloatArray, n3: FloatArray
    ) -> tuple[FloatArray, float]:
        """A tilted rotation whose floor contact lies on the far side from the support."""
        # Weight the hard 8-15 degree band: it is where a reader's leaning flag is tested.
        tilt = float(
            self.rng.uniform(8, 15) if self.rng.random() < 0.4 else self.rng.uniform(15, 40)
        )
        base = self._base_rotation(yaw)
        for sign in (1.0, -1.0):
            rot = rot_axis(axis, sign * tilt) @ base
            contact = support_point(rot, die.half, die.radius_mm, np.array([0.0, 0.0, -1.0]))
            if float(contact @ n3) > 0:
                return rot, tilt
        return rot_axis(axis, tilt) @ base, tilt

    def place_lean_wall(self, die: DieSpec) -> bool:
        for _ in range(300):
            n, c, tangent, wall_yaw = self._wall_frame(die)
            n3 = np.array([n[0], n[1], 0.0])
            axis = np.array([tangent[0], tangent[1], 0.0])
            yaw = wall_yaw + float(self.rng.uniform(-2, 2))
            die.rotation, _ = self._lean_rotation(die, yaw, axis, n3)
            z = support(die.rotation, die.half, die.radius_mm, np.array([0.0, 0.0, -1.0]))
            dist = (
                c + support(die.rotation, die.half, die.radius_mm, -n3) + self._curvature_gap(die)
            )
            xy = n * dist + tangent * self._along_wall(tangent, die)
            die.centre = np.array([xy[0], xy[1], z])
            die.state, die.support, die.placement = "leaning", "wall", "lean_wall"
            # The contact must be on the wall, below its top.
            touch = die.centre + support_point(die.rotation, die.half, die.radius_mm, -n3)
            if touch[2] > self.tray.wall_height_mm - 2:
                continue
            if self._accept(die):
                return True
        return False

    def place_lean_die(self, die: DieSpec) -> bool:
        props = [d for d in self.dice if d.support == "floor" and d.state == "flat"]
        if not props:
            return False
        for _ in range(300):
            other = props[int(self.rng.integers(len(props)))]
            k = int(self.rng.integers(4))
            other_yaw = math.degrees(math.atan2(other.rotation[1, 0], other.rotation[0, 0]))
            ang = math.radians(other_yaw + 90 * k)
            out = np.array([math.cos(ang), math.sin(ang), 0.0])  # B's outward face normal
            tangent = np.array([-out[1], out[0], 0.0])
            plane = float(out @ other.centre) + support(
                other.rotation, other.half, other.radius_mm, out
            )
            yaw = math.degrees(ang) + float(self.rng.uniform(-2, 2))
            die.rotation, _ = self._lean_rotation(die, yaw, tangent, out)
            z = support(die.rotation, die.half, die.radius_mm, np.array([0.0, 0.0, -1.0]))
            dist = plane + support(die.rotation, die.half, die.radius_mm, -out) + 0.12
            lateral = float(self.rng.uniform(-0.22, 0.22)) * min(die.size_mm, other.size_mm)
            base_xy = other.centre[:2] + tangent[:2] * lateral
            along = float(base_xy @ out[:2])
            xy = base_xy + out[:2] * (dist - along)
            die.centre = np.array([xy[0], xy[1], z])
            die.state, die.support, die.placement = "leaning", "die", "lean_die"
            touch = die.centre + support_point(die.rotation, die.half, die.radius_mm, -out)
            # The contact must land on the prop's flat side face, not above its top edge.
            if touch[2] > other.size_mm - other.radius_mm - 0.3:
                continue
            if self._accept(die, ignore=None, gap=0.02):
                return True
        return False

    def place_table(self, die: DieSpec) -> bool:
        z = -self.tray.base_mm
        rot, _t = self.camera.world_to_camera()
        cam_o = np.array(self.camera.origin)
        k_inv = np.linalg.inv(self.camera.intrinsics())
        for _ in range(400):
            # Normalised coordinates keep the scene the same at any resolution of one aspect.
            px = np.array(
                [
                    self.rng.uniform(0, 1) * self.camera.width - 0.5,
                    self.rng.uniform(0, 1) * self.camera.height - 0.5,
                    1.0,
                ]
            )
            ray = rot.T @ (k_inv @ px)
            if ray[2] >= -1e-6:
                continue
            s = (z + die.half - cam_o[2]) / ray[2]
            xy = (cam_o + s * ray)[:2]
            self._flat_on(die, xy, z, float(self.rng.uniform(0, 360)))
            die.state, die.support, die.placement = "off_tray", "table", "table"
            if self._accept(die, gap=0.5):
                return True
        return False

    def place_rim(self, die: DieSpec) -> bool:
        tr = self.tray
        z = tr.wall_height_mm
        for _ in range(300):
            n, c, tangent, wall_yaw = self._wall_frame(die)
            mid = c - tr.wall_thickness_mm / 2  # wall centre line, n.x = mid
            shift = float(self.rng.uniform(-0.15, 0.15)) * min(tr.wall_thickness_mm, die.size_mm)
            xy = n * (mid + shift) + tangent * self._along_wall(tangent, die)
            yaw = wall_yaw + float(self.rng.uniform(-12, 12))
            self._flat_on(die, xy, z, yaw)
            die.state, die.support, die.placement = "off_tray", "rim", "rim"
            if self._accept(die, gap=0.5):
                return True
        return False


PLACERS = {
    "free": Placer.place_free,
    "wall": Placer.place_wall,
    "corner": Placer.place_corner,
    "touching": Placer.place_touching,
    "edge": Placer.place_edge,
    "lean_wall": Placer.place_lean_wall,
    "lean_die": Placer.place_lean_die,
    "table": Placer.place_table,
    "rim": Placer.place_rim,
}
FLAT_MIX = (("free", 0.45), ("wall", 0.2), ("corner", 0.1), ("touching", 0.25))


def _pick(rng: np.random.Generator, weights: tuple[tuple[str, float], ...]) -> str:
    names = [n for n, _ in weights]
    p = np.array([w for _, w in weights])
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def plan_placements(rng: np.random.Generator, case: str, count: int) -> list[str]:
    """Decide how each die of a scene is placed (props before the dice leaning on them)."""
    flat = [_pick(rng, FLAT_MIX) for _ in range(count)]
    n_special = min(count, 1 if count <= 3 or rng.random() < 0.5 else 2)
    special: list[str] = []
    if case == "flat":
        return flat
    if case in ("clean", "flash"):
        return ["free"] * count
    if case == "touching":
        return ["free"] + ["touching" if rng.random() < 0.8 else "free" for _ in range(count - 1)]
    if case == "corner":
        special = ["corner"] * n_special
    elif case == "frame_edge":
        special = ["edge"] * n_special
    elif case == "leaning_wall":
        special = ["lean_wall"] * n_special
    elif case == "leaning_die":
        special = ["lean_die"] * min(n_special, max(1, count - 1))
    elif case == "leaning":
        special = [_choice(rng, ["lean_wall", "lean_die"]) for _ in range(n_special)]
    elif case == "table":
        special = ["table"] * n_special
    elif case == "rim":
        special = ["rim"] * n_special
    elif case == "off_tray":
        special = [_choice(rng, ["table", "rim"]) for _ in range(n_special)]
    elif case == "mixed":
        special = []
        for _ in range(count):
            r = rng.random()
            if r < 0.12:
                special.append(_choice(rng, ["lean_wall", "lean_die"]))
            elif r < 0.24:
                special.append(_choice(rng, ["table", "rim"]))
        special = special[: max(0, count - 1)]
    else:
        raise ValueError(f"unsupported case: {case!r}; expected one of {', '.join(CASES)}")
    if "lean_die" in special and count - len(special) < 1:
        special = special[: count - 1]
    plan = flat[: count - len(special)] + special
    # Put the placements that need company (touching, leaning on a die) after plain ones.
    order = {"lean_die": 3, "touching": 2, "edge": 1}
    return sorted(plan, key=lambda p: order.get(p, 0))


def _style_pips(seed: int, dice: list[DieSpec], matched: bool) -> None:
    """Give the dice a pip style (size, spacing, big 1) from a stream separate from the poses."""
    rng = np.random.default_rng(seed + 9_999_991)

    def draw() -> tuple[float, float, float]:
        one = 1.0 if rng.random() < 0.7 else float(rng.uniform(1.3, 1.8))
        return float(rng.uniform(0.07, 0.098)), float(rng.uniform(0.23, 0.28)), one

    style = draw()
    for die in dice:
        radius, spacing, one = style if matched else draw()
        # Keep every pip on the flat part of the face, clear of the rounded edge.
        spacing = min(spacing, 0.49 - die.radius_mm / die.size_mm - radius)
        die.pip_radius, die.pip_spacing, die.one_scale = radius, spacing, one


def sample_scene(
    seed: int,
    *,
    case: str = "mixed",
    dice: int | None = None,
    width: int = 1024,
    height: int = 768,
) -> SceneSpec:
    """Sample a complete scene deterministically from `seed`."""
    if case not in CASES:
        raise ValueError(f"unsupported case: {case!r}; expected one of {', '.join(CASES)}")
    rng = np.random.default_rng(seed)
    if dice is None:
        dice = int(rng.choice([1, 2, 3, 5, 10], p=[0.05, 0.05, 0.3, 0.35, 0.25]))
    if dice < 1:
        raise ValueError(f"dice must be >= 1, got {dice}")
    clean = case == "clean"
    for attempt in range(40):
        tray = sample_tray(rng)
        table, table_rgb = sample_table(rng, tray)
        if clean or case == "flash":
            # Close and straight down (a flash photo is taken so too).
            cam = sample_camera(
                rng,
                tray,
                width,
                height,
                height_range=(350, 430),
                tilt_range=(0, 4),
                target_spread=0.1,
            )
        elif case == "frame_edge":
            cam = sample_camera(
                rng, tray, width, height, height_range=(350, 420), target_spread=0.8
            )
        else:
            # Later attempts back the camera off so crowded scenes still fit.
            lo = 350.0 + min(attempt, 10) * 15
            cam = sample_camera(rng, tray, width, height, height_range=(lo, 600.0))
        light = sample_light(rng, clean=clean)
        if case == "flash":
            light = flash_light(cam, light)
        schemes = list(SCHEMES)
        if clean:
            # Clean scenes are for reading faces: keep dice bodies well apart from the floor.
            floor = np.array(tray.floor_rgb)
            schemes = [n for n in schemes if np.abs(np.array(SCHEMES[n][0]) - floor).sum() > 0.3]
        matched = rng.random() < 0.7
        scheme = _choice(rng, schemes)
        size = float(rng.uniform(14, 19)) if clean else float(rng.uniform(12, 19))
        placer = Placer(rng, tray, cam)
        ok = True
        for kind in plan_placements(rng, case, dice):
            s = size if matched else float(rng.uniform(12, 19))
            sc = scheme if matched else _choice(rng, schemes)
            radius = s * float(rng.uniform(0.08, 0.14))
            die = placer._new_die(s, radius, sc)
            place = PLACERS[kind]
            if clean:
                placed = placer.place_free(die, margin=4.0, gap=5.0)
            else:
                placed = place(placer, die)
                # A case's special placement must happen; give up on plain fallbacks
                # only after many fresh scenes have failed.
                special = kind in ("corner", "edge", "lean_wall", "lean_die", "table", "rim")
                if not placed and (not special or attempt >= 30):
                    placed = placer.place_free(die)
            if not placed:
                ok = False
                break
            placer.dice.append(die)
        if ok:
            _style_pips(seed, placer.dice, matched)
            return SceneSpec(
                seed=seed,
                case=case,
                tray=tray,
                table=table,
                table_rgb=table_rgb,
                camera=cam,
                light=light,
                dice=placer.dice,
                exposure=float(rng.uniform(0.85, 1.1)) if not clean else 1.0,
            )
    raise PlacementError(f"could not place {dice} dice for seed {seed} (case {case})")
