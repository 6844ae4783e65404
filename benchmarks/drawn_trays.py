"""How the reader reads drawn trays of many looks: dice colours, floors, sizes, light, blur.

Usage: ``python benchmarks/drawn_trays.py [--trays N] [--specks N]``

Tray ``k`` (seeded by ``k``) holds 3-10 dice of one colour scheme (the schemes in turn: dark
pips on light dice, light on dark, coloured pips) lying apart, on one of seven floors, each
die 28-110 px wide at a random turn, on a 640x480 photo (1024x768 for dice wider than 70 px);
the light falls off across the photo by up to a quarter, and the photo is blurred by up to
1.2 px, given sensor grain and saved as a JPEG of quality 70-95. The dice are drawn by the
tests' helpers (``tests/vision/conftest.py``); touching dice are ``touching_dice.py``'s
part. A Markdown row per scheme gives the dice read right, found (a reading within 0.45
sides of the die's centre), misread (a wrong value, not an uncertain one) and readings of
no die. With ``--specks N`` the floor is speckled first, as felt with lint or a granite
table is: N specks per 640x480 of floor, 2.4-4.4 px wide, each 14-26 grey levels lighter
or darker than the floor (the least pip contrast the reader looks for is 14).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "vision"))
from conftest import draw_die  # the tests' drawing helpers
from touching_dice import tally  # same folder

from vision.reader import read_bytes

#: Body and pip colours (BGR) of each scheme.
SCHEMES = {
    "white/black": ((235, 235, 235), (20, 20, 20)),
    "ivory/black": ((200, 225, 235), (25, 25, 25)),
    "black/white": ((30, 30, 30), (235, 235, 235)),
    "red/white": ((40, 40, 200), (240, 240, 240)),
    "blue/white": ((160, 80, 30), (240, 240, 240)),
    "green/white": ((60, 140, 40), (240, 240, 240)),
    "yellow/black": ((40, 200, 230), (20, 20, 20)),
    "white/red": ((235, 235, 235), (40, 40, 200)),
    "pink/white": ((170, 120, 230), (245, 245, 245)),
    "purple/gold": ((120, 40, 90), (60, 190, 230)),
    "orange/black": ((30, 120, 240), (20, 20, 20)),
    "teal/white": ((140, 140, 20), (245, 245, 245)),
}
#: Floors (BGR): green felt, black, light grey, purple, brown wood, beige, dark red.
FLOORS = (
    (60, 120, 50),
    (40, 40, 40),
    (200, 200, 200),
    (90, 60, 140),
    (120, 80, 40),
    (150, 180, 200),
    (30, 30, 110),
)
#: Dice centres lie at least this many sides apart (apart at any turns: 1.42 across corners).
APART = 1.45


def tray(
    seed: int, specks: int = 0
) -> tuple[str, float, bytes, list[tuple[tuple[float, float], int]]]:
    """Tray ``seed``: its scheme, die side, JPEG and dice ``(centre, value)``; its floor
    speckled by ``specks`` specks per 640x480 (see the module's docstring)."""
    rng = np.random.default_rng(1000 + seed)
    name = list(SCHEMES)[seed % len(SCHEMES)]
    body, pip = SCHEMES[name]
    floor = FLOORS[int(rng.integers(len(FLOORS)))]
    side = float(rng.uniform(28, 110))
    w, h = (1024, 768) if side > 70 else (640, 480)
    img = np.empty((h, w, 3), np.float32)
    img[:] = floor
    gx = np.linspace(-1, 1, w)[None, :, None]
    gy = np.linspace(-1, 1, h)[:, None, None]
    img *= 1 + 0.25 * (rng.uniform(-1, 1) * gx + rng.uniform(-1, 1) * gy)
    if specks:
        speckle(img, specks, np.random.default_rng(5000 + seed))
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    dice: list[tuple[tuple[float, float], int]] = []
    count = int(rng.integers(3, 11))
    for _try in range(400):
        if len(dice) == count:
            break
        c = (float(rng.uniform(side, w - side)), float(rng.uniform(side, h - side)))
        if all(np.hypot(c[0] - x, c[1] - y) >= APART * side for (x, y), _v in dice):
            dice.append((c, int(rng.integers(1, 7))))
    for c, value in dice:
        draw_die(img, c, side, value, angle_deg=float(rng.uniform(0, 90)), body=body, pip=pip)
    blur = float(rng.uniform(0, 1.2))
    if blur > 0.3:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), blur), np.float32)
    grain = rng.normal(0, float(rng.uniform(0, 5)), img.shape)
    img = np.clip(img.astype(np.float32) + grain, 0, 255).astype(np.uint8)
    quality = int(rng.integers(70, 96))
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return name, side, data.tobytes(), dice


def speckle(img: np.ndarray, per_vga: int, rng: np.random.Generator) -> None:
    """Scatter specks over the float image ``img`` of a floor (in place), ``per_vga`` per
    640x480, each a disc 1.2-2.2 px in radius 14-26 grey levels off the floor's colour."""
    h, w = img.shape[:2]
    for _ in range(round(per_vga * w * h / (640 * 480))):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(1.2, 2.2)
        off = rng.uniform(14, 26) * rng.choice([-1.0, 1.0])
        # The floor's colour where the speck lies (the light falls off across it), lightened
        # or darkened.
        colour = tuple(float(v) + off for v in img[int(y), int(x)])
        cv2.circle(img, (round(x * 16), round(y * 16)), round(r * 16), colour, -1, cv2.LINE_AA, 4)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trays", type=int, default=240, help="trays, the schemes in turn")
    parser.add_argument(
        "--specks", type=int, default=0, help="specks on the floor per 640x480 (0: a plain floor)"
    )
    args = parser.parse_args(argv)
    rows = {name: [0, 0, 0, 0, 0] for name in SCHEMES}
    for seed in range(args.trays):
        name, side, data, dice = tray(seed, args.specks)
        row = tally(read_bytes(data).dice, dice, side)
        rows[name] = [a + b for a, b in zip(rows[name], row, strict=True)]
    print("| dice | right | found | misread | readings of no die |")
    print("|---|---|---|---|---|")
    total = [0, 0, 0, 0, 0]
    for name, row in rows.items():
        total = [a + b for a, b in zip(total, row, strict=True)]
        print(f"| {name} | {row[1]}/{row[0]} | {row[2]} | {row[3]} | {row[4]} |")
    print(f"| all | {total[1]}/{total[0]} | {total[2]} | {total[3]} | {total[4]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
