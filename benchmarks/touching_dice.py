"""How the reader reads dice of one colour touching each other, on drawn trays.

Usage: ``python benchmarks/touching_dice.py [--trays N] [--clump]``

Each tray (green felt, sensor noise, JPEG quality 90) holds a row of three dice touching side
to side and a pair touching, each group at its own random turn, with random faces, drawn by
the tests' helpers (``tests/vision/conftest.py``). With ``--clump`` it holds instead the ten
dice of a ten-dice throw pushed together: two rows of five, every die touching its
neighbours, at one random turn. For each colour scheme and die size a Markdown row gives the
dice read right, found (a reading within 0.45 sides of the die's centre), misread (a wrong
value, not an uncertain one) and readings of no die, over ``N`` trays (5 or 10 dice each).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "vision"))
from conftest import background, draw_die  # the tests' drawing helpers

from vision.reader import read_bytes
from vision.result import DieReading

#: Body and pip colours (BGR) of each scheme.
SCHEMES = {
    "white": ((235, 235, 235), (20, 20, 20)),
    "black": ((30, 30, 30), (235, 235, 235)),
    "red": ((40, 40, 200), (240, 240, 240)),
    "blue": ((160, 80, 30), (240, 240, 240)),
}
SIDES = (40, 60, 80, 100)
#: Centre-to-centre distance of touching dice, in sides.
GAP = 1.02


def tray(
    side: int,
    seed: int,
    body: tuple[int, int, int],
    pip: tuple[int, int, int],
    *,
    clump: bool = False,
) -> tuple[bytes, list[tuple[tuple[float, float], int]]]:
    """A JPEG of one tray and its dice ``(centre, value)``: the row of three in the upper
    half, the pair in the lower, apart whatever their turns; or, with ``clump``, two rows of
    five touching in the middle."""
    rng = np.random.default_rng(seed * 100 + side)
    w = h = 8 * side
    img = background(w, h, (60, 120, 50), seed=seed)
    dice = []
    # Each group is drawn at its own random turn: its rows of touching dice, as (count, middle,
    # offset across the row in rows' widths).
    if clump:
        groups = [[(5, (w / 2, h / 2), -0.5), (5, (w / 2, h / 2), 0.5)]]
    else:
        groups = [[(3, (w / 2, 2.0 * side), 0.0)], [(2, (w / 2, 6.0 * side), 0.0)]]
    for rows in groups:
        turn = float(rng.uniform(0, 90))
        a = np.deg2rad(turn)
        step = GAP * side
        for count, (mx, my), offset in rows:
            mx, my = mx - offset * step * np.sin(a), my + offset * step * np.cos(a)
            for k in np.arange(count) - (count - 1) / 2:
                centre = (mx + k * step * np.cos(a), my + k * step * np.sin(a))
                value = int(rng.integers(1, 7))
                draw_die(img, centre, side, value, angle_deg=turn, body=body, pip=pip)
                dice.append(((float(centre[0]), float(centre[1])), value))
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes(), dice


def tally(
    read: Sequence[DieReading], dice: Sequence[tuple[tuple[float, float], int]], side: float
) -> list[int]:
    """``[dice, right, found, misread, readings of no die]`` of one photo: each die (centre,
    value) matched to the nearest reading not matched yet within 0.45 of its side."""
    out = [len(dice), 0, 0, 0, 0]
    used: set[int] = set()
    for (x, y), value in dice:
        near = [
            (float(np.hypot(d.center[0] - x, d.center[1] - y)), j)
            for j, d in enumerate(read)
            if j not in used
        ]
        near = [t for t in near if t[0] < 0.45 * side]
        if not near:
            continue
        j = min(near)[1]
        used.add(j)
        out[2] += 1
        out[1] += int(read[j].value == value)
        out[3] += int(read[j].value is not None and read[j].value != value)
    out[4] = len(read) - len(used)
    return out


def score(
    side: int,
    trays: int,
    body: tuple[int, int, int],
    pip: tuple[int, int, int],
    *,
    clump: bool = False,
) -> list[int]:
    """``[dice, right, found, misread, readings of no die]`` over ``trays`` trays."""
    out = [0, 0, 0, 0, 0]
    for seed in range(trays):
        data, dice = tray(side, seed, body, pip, clump=clump)
        row = tally(read_bytes(data).dice, dice, side)
        out = [a + b for a, b in zip(out, row, strict=True)]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trays", type=int, default=4, help="trays per colour and size")
    parser.add_argument(
        "--clump", action="store_true", help="ten dice in two rows of five, all touching"
    )
    args = parser.parse_args(argv)
    print("| dice | side (px) | right | found | misread | readings of no die |")
    print("|---|---|---|---|---|---|")
    total = [0, 0, 0, 0, 0]
    for name, (body, pip) in SCHEMES.items():
        for side in SIDES:
            row = score(side, args.trays, body, pip, clump=args.clump)
            total = [a + b for a, b in zip(total, row, strict=True)]
            print(f"| {name} | {side} | {row[1]}/{row[0]} | {row[2]} | {row[3]} | {row[4]} |")
    print(f"| all | | {total[1]}/{total[0]} | {total[2]} | {total[3]} | {total[4]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
