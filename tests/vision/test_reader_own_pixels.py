"""A die asked about is counted again on a window twice as fine as the photo it was read in
(vision.reader._own_pixels_opinion): the photo's own pixels when it was decoded reduced,
else the photo enlarged; only a sure count of three pips or more is taken."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision import _doubts as doubts
from vision.reader import _Die, _own_pixels_opinion

#: Where the die asked about and the die read (which gives the photo's dice size) lie in the
#: full-size drawing; the reduced photo halves every coordinate.
ASKED, READ = (200.0, 300.0), (560.0, 300.0)
SIDE = 40.0


def _full(art: SimpleNamespace, value: int) -> np.ndarray:
    """An 800x600 photo of two white dice 40 px wide on green felt: ``value`` on the left, a
    four on the right."""
    img = art.background(800, 600)
    art.draw_die(img, ASKED, SIDE, value, angle_deg=12.0)
    art.draw_die(img, READ, SIDE, 4, angle_deg=-8.0)
    return img


def _dice(scale: float, doubt: str) -> list[tuple[float, _Die]]:
    """The two dice as a reading of the photo at ``scale`` of the drawing leaves them: the
    right one read, the left one asked about (``doubt``), its pips fitted as a three."""
    side = SIDE * scale
    read = _Die(4, (READ[0] * scale, READ[1] * scale), side, 0.95, ())
    asked = _Die(None, (ASKED[0] * scale, ASKED[1] * scale), side, 0.5, (), layout=3, doubt=doubt)
    return [(0.19 * side, asked), (0.19 * side, read)]


@pytest.mark.parametrize("seed", [0, 1])
def test_a_die_asked_about_is_counted_on_the_photos_own_pixels(
    art: SimpleNamespace, seed: int
) -> None:
    # A 1600x1200 photo of dice 48 px wide, decoded at a quarter of its size as a phone's
    # photo is: dice 12 px wide there, pips 2 px, too few pixels to count even enlarged.
    full = art.background(1600, 1200, seed=seed)
    art.draw_die(full, (400.0, 600.0), 48.0, 6, angle_deg=12.0)
    art.draw_die(full, (1120.0, 600.0), 48.0, 4, angle_deg=-8.0)
    half = cv2.resize(full, (800, 600), interpolation=cv2.INTER_AREA)
    reduced = cv2.resize(full, (400, 300), interpolation=cv2.INTER_AREA)
    read = _Die(4, (280.0, 150.0), 12.0, 0.95, ())
    asked = _Die(None, (100.0, 150.0), 12.0, 0.5, (), layout=3, doubt=doubts.TURNED)
    dice = [(2.3, asked), (2.3, read)]

    def finer(factor: float) -> np.ndarray | None:
        # The JPEG decoded again at the least reduction giving ``factor`` times as much.
        return None if factor <= 1.0 else half if factor <= 2.0 else full

    again = _own_pixels_opinion(reduced, dice, 1.0, 1.0, finer)
    assert again[0][1].value == 6
    assert again[0][1].doubt == ""
    assert 0.6 <= again[0][1].confidence <= 0.75  # as sure as two counters agreeing
    assert again[1][1] == read  # the die read is left as it was
    # Without the photo's own pixels, the reduced decode enlarged shows no six.
    assert _own_pixels_opinion(reduced, dice, 1.0, 1.0, None)[0][1].value is None


def test_a_photo_decoded_at_full_size_is_counted_on_its_window_enlarged(
    art: SimpleNamespace,
) -> None:
    full = _full(art, 5)
    dice = _own_pixels_opinion(full, _dice(1.0, doubts.TURNED), 1.0, 1.0, None)
    assert dice[0][1].value == 5


@pytest.mark.parametrize(
    ("value", "doubt"),
    [
        (2, doubts.TURNED),  # a two: a speck or a shadow is a pip as often as not
        (1, doubts.loose(1)),  # a one, likewise
        (6, doubts.GLARE),  # glare hides a pip from any pixels
        (6, doubts.BODY_ONLY),  # its body's window was counted already
        (4, doubts.SIX_CORNERS),  # "a 4 or a 6": a count of four is the question itself
    ],
)
def test_what_the_finer_count_cannot_settle_stays_asked_about(
    art: SimpleNamespace, value: int, doubt: str
) -> None:
    full = _full(art, value)
    dice = _own_pixels_opinion(full, _dice(1.0, doubt), 1.0, 1.0, None)
    assert dice[0][1].value is None
    assert dice[0][1].doubt == doubt


def test_a_six_asked_about_as_a_four_or_a_six_is_read_a_six(art: SimpleNamespace) -> None:
    full = _full(art, 6)
    dice = _own_pixels_opinion(full, _dice(1.0, doubts.SIX_CORNERS), 1.0, 1.0, None)
    assert dice[0][1].value == 6
