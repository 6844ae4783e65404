"""How the reader reads a die with a flash's highlight on its face: the glare a phone's flash
or a lamp overhead leaves on a glossy die.

Usage: ``python benchmarks/glare.py [--values 2,3,4,5,6]``

Each die (dark pips; an orange, a white and a red body; 80 and 48 px) is drawn by the tests'
helpers (``tests/vision/conftest.py``) in the middle of a 320x240 photo of green felt, with a
blown-out white ellipse (turned 30 degrees) at five places on its face (the middle, just off
it, towards a corner, towards an edge's middle) and four sizes (10 to 32 px across on the 80
px die, in proportion on the 48 px one): 120 photos a value. The highlight may cover pips:
then no reader can count them, and the die must be asked about (uncertain), never read as
another face. A Markdown row per value gives the dice read right, asked about, not found and
misread (a wrong value: the silent error, mostly a "one" read on the highlight itself, or the
face the highlight leaves). Session 40's run over all five values: 338 of 600 read right,
13 asked about, 113 not found and 136 misread before its glare rules (`c3549dc`'s parent);
322, 109, 112 and 57 with them (105 asked about and 116 not found before the rule for
faces washed out all over).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "vision"))
from conftest import background, draw_die  # the tests' drawing helpers
from lone_dice import print_outcomes  # same folder

#: Where the highlight's centre lies, in pixels of an 80 px die from its face's centre ...
PLACES = ((0, 0), (6, -4), (-10, 8), (16, 0), (0, 16))
#: ... and its half-axes, in the same pixels.
SIZES = ((5, 5), (8, 6), (12, 8), (16, 10))
BODIES = {"orange": (200, 120, 40), "white": (230, 230, 230), "red": (40, 40, 170)}
SIDES = (80, 48)
CENTRE = (160, 120)


def photo(
    value: int,
    place: tuple[int, int],
    axes: tuple[int, int],
    body: tuple[int, int, int],
    side: int,
    seed: int,
) -> bytes:
    """The JPEG of one die with a highlight on its face."""
    img = background(320, 240, seed=seed)
    draw_die(img, CENTRE, side, value, body=body, pip=(20, 20, 20))
    k = side / 80
    ellipse = (
        (CENTRE[0] + place[0] * k, CENTRE[1] + place[1] * k),
        (2 * axes[0] * k, 2 * axes[1] * k),
        30,
    )
    cv2.ellipse(img, ellipse, (255, 255, 255), -1, cv2.LINE_AA)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return bytes(np.asarray(data).tobytes())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", default="2,3,4,5,6", help="faces, comma-separated")
    args = parser.parse_args(argv)

    def photos(value: int) -> Iterator[tuple[bytes, int]]:
        cases = itertools.product(PLACES, SIZES, BODIES.values(), SIDES)
        for seed, (place, axes, body, side) in enumerate(cases):
            yield photo(value, place, axes, body, side, 1000 * value + seed), side

    print_outcomes([int(v) for v in args.values.split(",")], photos)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
