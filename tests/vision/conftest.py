"""Drawing synthetic dice for the reader's tests, and the shared-datasets fixture."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import numpy.typing as npt
import pytest

Image = npt.NDArray[np.uint8]

#: Pip places (gx, gy) in grid steps for each face.
PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def background(
    width: int, height: int, colour: tuple[int, int, int] = (70, 120, 60), seed: int = 0
) -> Image:
    """A floor of one colour (BGR) with a little sensor noise."""
    rng = np.random.default_rng(seed)
    img = np.empty((height, width, 3), np.float32)
    img[:] = colour
    img += rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_die(
    img: Image,
    center: tuple[float, float],
    side: float,
    value: int,
    *,
    angle_deg: float = 0.0,
    body: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (20, 20, 20),
    shadow: bool = True,
    spread: float = 0.27,
) -> None:
    """Draw a die seen from above (in place): a rounded square face with its pips, BGR colours;
    the pips ``spread`` die sides apart on the grid (0.27 for the common layout)."""
    cx, cy = center
    s = 16  # draw with sub-pixel precision
    if shadow:
        box = cv2.boxPoints(((cx + side * 0.08, cy + side * 0.08), (side, side), angle_deg))
        shade = img.copy()
        cv2.fillConvexPoly(shade, np.round(box * s).astype(np.int32), (0, 0, 0), cv2.LINE_AA, 4)
        cv2.addWeighted(img, 0.6, shade, 0.4, 0, dst=img)
    box = cv2.boxPoints(((cx, cy), (side, side), angle_deg))
    cv2.fillConvexPoly(img, np.round(box * s).astype(np.int32), body, cv2.LINE_AA, 4)
    edge = tuple(int(c * 0.7) for c in body)
    cv2.polylines(img, [np.round(box * s).astype(np.int32)], True, edge, 1, cv2.LINE_AA, 4)
    for px, py in pip_places(center, side, value, angle_deg=angle_deg, spread=spread):
        cv2.circle(
            img, (round(px * s), round(py * s)), round(0.095 * side * s), pip, -1, cv2.LINE_AA, 4
        )


def pip_places(
    center: tuple[float, float],
    side: float,
    value: int,
    *,
    angle_deg: float = 0.0,
    spread: float = 0.27,
) -> list[tuple[float, float]]:
    """Where :func:`draw_die` puts the pips of a die with this centre, side, value and turn."""
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    places = [rot @ np.array([gx, gy]) * spread * side + np.array(center) for gx, gy in PIPS[value]]
    return [(float(x), float(y)) for x, y in places]


def shared_datasets() -> Path | None:
    """The shared labelled photo sets (beside the checkout or in ``DICE_SHARED_DIR``), or None."""
    env = os.environ.get("DICE_SHARED_DIR")
    root = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared"
    path = root / "datasets"
    return path if path.is_dir() else None


@pytest.fixture
def datasets_dir() -> Path:
    path = shared_datasets()
    if path is None:
        pytest.skip("../shared/datasets is not available")
    return path


@pytest.fixture
def art() -> SimpleNamespace:
    """The drawing helpers: ``art.background(w, h, colour)``, ``art.draw_die(img, ...)``,
    ``art.pip_places(centre, side, value, ...)`` (where ``draw_die`` puts the pips), and
    ``art.PIPS``, the pip places of each face in units of a pip step, and
    ``art.candidates(xy, ...)``, pip candidates made up for the reader's checks."""
    return SimpleNamespace(
        background=background,
        draw_die=draw_die,
        pip_places=pip_places,
        PIPS=PIPS,
        candidates=candidates,
    )


def candidates(
    xy: list[tuple[float, float]],
    *,
    diam: float | list[float] = 5.0,
    contrast: float | list[float] = 100.0,
    face_bgr: tuple[float, float, float] | list[tuple[float, float, float]] = (64, 64, 64),
    roundness: float | list[float] = 0.85,
    minor: float | list[float] = 0.0,
    polarity: float | list[float] = 1.0,
    channel: int | list[int] = 0,
) -> object:
    """Pip candidates (``vision._pips.PipCandidates``) at ``xy``: by default bright pips
    on the grey plane, each column one value for all or one per candidate (``minor``: the
    direction of a pip's shortest width, radians; ``polarity`` -1 for dark pips; ``channel``
    the plane, 0 grey); the face's grey is its colour's mean, the ring all face."""
    from vision._pips import PipCandidates

    n = len(xy)

    def column(v: object, shape: tuple[int, ...] = ()) -> npt.NDArray[np.float32]:
        return np.broadcast_to(np.asarray(v, np.float32), (n, *shape)).copy()

    face = column(face_bgr, (3,))
    return PipCandidates(
        np.asarray(xy, np.float32).reshape(n, 2),
        column(diam),
        column(polarity),
        column(contrast),
        face,
        face.mean(axis=1),
        column(1.0),
        column(roundness),
        np.broadcast_to(np.asarray(channel, np.intp), (n,)).copy(),
        column(minor),
    )
