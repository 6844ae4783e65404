"""How the reader reads one die alone on dark felt, the photo of a single die rolled again.

Usage: ``python benchmarks/lone_dice.py [--values 1,2,3,4,5,6]``

Each die is drawn by the tests' helpers (``tests/vision/conftest.py``) in the middle of a
320x240 photo of dark green felt, in each of four colour schemes (white with black pips,
teal, black and red with white pips), six sizes (18-44 px), four blurs (none to 2 px, out of
focus) and four turns, with a little sensor grain (seeded by the die), and saved as a JPEG of
quality 90: 384 photos a value. A Markdown row per value gives the dice read right, asked
about (uncertain), not found and misread (a wrong value: the silent error). With no other die
in the photo the reader cannot tell the dice's size from their neighbours, and the whole
photo is a dark floor with one small light thing on it.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "vision"))
from conftest import draw_die  # the tests' drawing helpers
from drawn_trays import SCHEMES as TRAY_SCHEMES  # same folder
from touching_dice import tally

from vision.reader import read_bytes

#: The schemes of ``drawn_trays.py`` a lone die is drawn in: dark pips on a light die,
#: light pips on a mid-tone, a dark and a red die.
SCHEMES = {
    name: TRAY_SCHEMES[name] for name in ("white/black", "teal/white", "black/white", "red/white")
}
FELT = (60, 110, 50)
SIDES = (18, 22, 26, 30, 36, 44)
BLURS = (0.0, 0.8, 1.4, 2.0)
TURNS = (0.0, 20.0, 45.0, 70.0)
CENTRE = (160.3, 120.7)


def photo(value: int, scheme: str, side: int, blur: float, turn: float, seed: int) -> bytes:
    """The JPEG of one die alone on the felt."""
    body, pip = SCHEMES[scheme]
    img = np.full((240, 320, 3), FELT, np.uint8)
    draw_die(img, CENTRE, side, value, angle_deg=turn, body=body, pip=pip)
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    grain = np.random.default_rng(seed).normal(0, 2, img.shape)
    img = np.clip(img + grain, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


def outcome(value: int, data: bytes, side: int) -> str:
    """``right``, ``asked``, ``missed`` or ``misread``: the die matched as ``tally`` matches
    (the nearest reading within 0.45 of its side)."""
    _dice, right, found, misread, _extra = tally(read_bytes(data).dice, [(CENTRE, value)], side)
    if not found:
        return "missed"
    if right:
        return "right"
    return "misread" if misread else "asked"


def print_outcomes(
    values: Sequence[int], photos: Callable[[int], Iterable[tuple[bytes, int]]]
) -> None:
    """Print a Markdown row per value of the outcomes (:func:`outcome`) of the photos
    ``photos(value)`` gives, ``(JPEG bytes, die side)`` pairs of one die of that value, and
    an ``all`` row."""
    print("| value | right | asked about | not found | misread |")
    print("|---|---|---|---|---|")
    total = {"right": 0, "asked": 0, "missed": 0, "misread": 0}
    for value in values:
        row = dict.fromkeys(total, 0)
        for data, side in photos(value):
            row[outcome(value, data, side)] += 1
        n = sum(row.values())
        print(
            f"| {value} | {row['right']}/{n} | {row['asked']} | {row['missed']} | "
            f"{row['misread']} |"
        )
        total = {k: total[k] + row[k] for k in total}
    n = sum(total.values())
    print(
        f"| all | {total['right']}/{n} | {total['asked']} | {total['missed']} | "
        f"{total['misread']} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", default="1,2,3,4,5,6", help="faces, comma-separated")
    args = parser.parse_args(argv)

    def photos(value: int) -> Iterator[tuple[bytes, int]]:
        cases = itertools.product(SCHEMES, SIDES, BLURS, TURNS)
        for seed, (scheme, side, blur, turn) in enumerate(cases, start=1):
            yield photo(value, scheme, side, blur, turn, 1000 * value + seed), side

    print_outcomes([int(v) for v in args.values.split(",")], photos)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
