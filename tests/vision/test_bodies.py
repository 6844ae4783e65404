"""Dice found by their bodies (vision._bodies), on drawn trays."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest

from vision import _bodies
from vision import _doubts as doubts
from vision._bodies import edge_turn, find_body_dice, find_dice_anywhere
from vision.params import DEFAULTS
from vision.reader import read_array

SIDE = 40


def _tray(art: SimpleNamespace) -> tuple[np.ndarray, list[tuple[tuple[int, int], int]]]:
    img = art.background(480, 360, colour=(200, 205, 210))
    layout = [((90, 90), 5), ((240, 90), 3), ((390, 90), 6), ((90, 260), 4), ((390, 260), 2)]
    for i, (centre, value) in enumerate(layout):
        art.draw_die(img, centre, SIDE, value, angle_deg=11.0 * i, body=(40, 40, 160))
    return img, layout


def _tray_without_last(
    art: SimpleNamespace, half: int = 30
) -> tuple[np.ndarray, list[tuple[tuple[int, int], int]], tuple[int, int]]:
    """The tray with its last die's place (a square reaching ``half`` px round its centre)
    painted over in the floor's grey, and that centre: room to draw another die there."""
    img, layout = _tray(art)
    (x, y), _v = layout[-1]
    img[y - half : y + half, x - half : x + half] = (200, 205, 210)
    return img, layout, (x, y)


def test_a_die_not_yet_read_is_found_by_its_body_and_counted(art: SimpleNamespace) -> None:
    img, layout = _tray(art)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout[:-1]]
    found = find_body_dice(img, 0.75 * SIDE, taken).dice
    assert [b.value for b in found] == [layout[-1][1]]
    (x, y), _v = layout[-1]
    assert np.hypot(found[0].center[0] - x, found[0].center[1] - y) < 0.2 * SIDE
    assert 0.8 * SIDE < found[0].size < 1.5 * SIDE


def test_a_die_whose_empty_pip_places_look_like_pips_is_found_uncertain(
    art: SimpleNamespace,
) -> None:
    # A four whose other diagonal's pips are smeared: the counter refuses the two its round
    # pips fit, and the body pass reports the die at a coin toss's confidence (uncertain)
    # rather than leaving it out.
    img, layout, (x, y) = _tray_without_last(art)
    art.draw_die(img, (x, y), SIDE, 2, body=(40, 40, 160))
    two = art.pip_places((x, y), SIDE, 2)
    for px, py in art.pip_places((x, y), SIDE, 4):
        if min(np.hypot(px - qx, py - qy) for qx, qy in two) > 3:
            cv2.ellipse(
                img, (round(px), round(py)), (5, 2), 30, 0, 360, (20, 20, 20), -1, cv2.LINE_AA
            )
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout[:-1]]
    least = DEFAULTS.body_min_confidence  # as the reader asks
    found = find_body_dice(img, 0.75 * SIDE, taken, min_confidence=least).dice
    assert [b.value for b in found] == [2]
    assert found[0].confidence <= _bodies.DOUBTED < DEFAULTS.min_confidence


def test_dice_already_read_are_not_read_again(art: SimpleNamespace) -> None:
    img, layout = _tray(art)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout]
    assert find_body_dice(img, 0.75 * SIDE, taken).dice == []


def test_blobs_without_pips_add_nothing(art: SimpleNamespace) -> None:
    img, layout = _tray(art)
    # A coin and a die-sized blank square: the size of a die, no pip layout.
    cv2.circle(img, (240, 260), 20, (90, 140, 180), -1, cv2.LINE_AA)
    cv2.rectangle(img, (200, 180), (236, 216), (60, 60, 60), -1)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout]
    assert find_body_dice(img, 0.75 * SIDE, taken).dice == []


def test_a_die_whose_face_is_washed_out_by_glare_is_asked_about(art: SimpleNamespace) -> None:
    # A flash mirrored in a glossy red die's face: the face blown out white, pips and all,
    # inside its red bevel. Before session 40 no count saw pips there and the die was left out.
    img, layout, (x, y) = _tray_without_last(art)
    art.draw_die(img, (x, y), SIDE, 2, body=(40, 40, 160))
    inner = round(0.42 * SIDE)
    img[y - inner : y + inner, x - inner : x + inner] = 255
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout[:-1]]
    found = find_body_dice(img, 0.75 * SIDE, taken, min_confidence=DEFAULTS.body_min_confidence)
    assert found.dice == []
    (unsure,) = found.unsure
    assert np.hypot(unsure.center[0] - x, unsure.center[1] - y) < 0.2 * SIDE
    assert unsure.doubt == doubts.WASHED_OUT
    # The reader asks about it, saying why; a grey square as big is no die (the test above).
    (asked,) = [d for d in read_array(img) if d.value is None]
    assert asked.evidence == (doubts.WASHED_OUT,)


def test_a_die_touching_a_read_die_is_found(art: SimpleNamespace) -> None:
    img = art.background(480, 360, colour=(200, 205, 210))
    dice = [((120, 120), 5), ((360, 120), 2), ((120, 260), 3), ((161, 262), 6)]
    for centre, value in dice:
        art.draw_die(img, centre, SIDE, value, body=(40, 40, 160))
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in dice[:3]]
    found = find_body_dice(img, 0.75 * SIDE, taken).dice
    assert [b.value for b in found] == [6]
    assert np.hypot(found[0].center[0] - 161, found[0].center[1] - 262) < 0.25 * SIDE


def test_a_die_beside_a_read_die_is_found_where_lone_dice_cast_long_shadows(
    art: SimpleNamespace,
) -> None:
    # Lit from aside, a lone die's blob holds its long shadow; two dice side by side shade
    # each other, so their blob has less than twice a lone die's area, but is not square.
    img = art.background(480, 360, colour=(200, 205, 210))
    lone = [((90, 90), 5), ((390, 90), 2), ((90, 270), 4)]
    pair = [((240, 240), 3), ((281, 240), 6)]
    for (x, y), _v in lone:
        cv2.rectangle(img, (x - 20, y - 20), (x + 30, y + 30), (60, 60, 60), -1)
    for centre, value in lone + pair:
        art.draw_die(img, centre, SIDE, value, body=(40, 40, 160), shadow=False)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in [*lone, pair[0]]]
    found = find_body_dice(img, 0.75 * SIDE, taken).dice
    assert [b.value for b in found] == [6]
    assert np.hypot(found[0].center[0] - 281, found[0].center[1] - 240) < 0.25 * SIDE


@pytest.mark.parametrize("value", [3, 4, 5, 6])
def test_a_die_hemmed_in_by_read_dice_is_found(art: SimpleNamespace, value: int) -> None:
    # Read dice left, right and above it: with their bodies cut out of the blob, what is
    # left of it has no peak of its own; a window on the grid over it reads it.
    img = art.background(480, 360, colour=(200, 205, 210))
    lone = [((60, 60), 3), ((420, 60), 2), ((60, 320), 4), ((420, 320), 1)]
    around = [((150, 180), 5), ((232, 180), 4), ((191, 139), 2)]
    for centre, v in [*lone, *around, ((191, 180), value)]:
        art.draw_die(img, centre, SIDE, v, body=(40, 40, 160))
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in [*lone, *around]]
    found = find_body_dice(img, 0.75 * SIDE, taken).dice
    assert [b.value for b in found] == [value]
    assert np.hypot(found[0].center[0] - 191, found[0].center[1] - 180) < 0.25 * SIDE


def test_a_lone_die_seen_aslant_is_not_split_into_two(art: SimpleNamespace) -> None:
    # Its top face and, below it, its front face make one long blob; with no other lone die
    # to say how long a die's blob is in this photo, the front face is not another die.
    img = art.background(400, 300, colour=(200, 205, 210))
    art.draw_die(img, (200, 110), SIDE, 3, body=(40, 40, 160), shadow=False)
    face = art.background(80, 80, colour=(200, 205, 210))
    art.draw_die(face, (40, 40), SIDE, 4, body=(40, 40, 160), shadow=False)
    front = cv2.resize(face[20:60, 20:60], (SIDE, round(0.7 * SIDE)))
    img[130 : 130 + front.shape[0], 180:220] = (0.85 * front).astype(np.uint8)
    taken = [(200.0, 110.0, 0.75 * SIDE)]
    assert find_body_dice(img, 0.75 * SIDE, taken).dice == []


def test_the_reader_adds_body_dice_only_when_asked(art: SimpleNamespace) -> None:

    img = art.background(480, 360, colour=(200, 205, 210))
    layout = [((90, 90), 5), ((240, 90), 3), ((390, 90), 6), ((90, 260), 4), ((390, 260), 2)]
    for centre, value in layout[:-1]:
        art.draw_die(img, centre, SIDE, value, body=(40, 40, 160), pip=(240, 240, 240))
    # Pips barely darker than their face: the pip search leaves this die out.
    art.draw_die(img, layout[-1][0], SIDE, layout[-1][1], body=(40, 40, 160), pip=(10, 10, 70))
    with_bodies = read_array(img)
    without = read_array(img, params=DEFAULTS._replace(body_dice=False))
    assert sorted(d.value or 0 for d in with_bodies) == sorted(v for _c, v in layout)
    assert len(without) <= len(with_bodies)


def test_a_die_against_a_wall_beside_a_read_die_is_found(
    art: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Dice against a tray wall merge with it into one blob far bigger than a few dice: it
    # is searched, but beside the dice read in it only.
    import vision._bodies as bodies

    img = art.background(520, 400, colour=(200, 205, 210))
    cv2.rectangle(img, (10, 10), (510, 180), (40, 60, 140), -1)
    dice = [((120, 320), 5), ((380, 320), 2), ((150, 201), 4), ((191, 201), 3)]
    for centre, value in dice:
        art.draw_die(img, centre, SIDE, value, body=(40, 40, 160), shadow=False)
    searched: list[bool] = []
    real = bodies._read_cluster

    def spy(*args: Any, beside_taken: bool = False, **kwargs: Any) -> list[bodies.BodyDie]:
        searched.append(beside_taken)
        return real(*args, beside_taken=beside_taken, **kwargs)

    monkeypatch.setattr(bodies, "_read_cluster", spy)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in dice[:3]]
    found = find_body_dice(img, 0.75 * SIDE, taken).dice
    assert searched == [True]
    assert [b.value for b in found] == [3]
    assert np.hypot(found[0].center[0] - 191, found[0].center[1] - 201) < 0.25 * SIDE


@pytest.mark.parametrize("value", [3, 5, 6])
def test_a_die_near_a_wall_and_far_from_the_dice_read_is_found(
    art: SimpleNamespace, value: int
) -> None:
    # Half a die from a wall, it merges with the band along the wall's edge where a floor
    # model over three dice is off; a model over fewer dice parts it from the wall.
    img = art.background(520, 400, colour=(200, 205, 210))
    cv2.rectangle(img, (10, 10), (510, 180), (40, 60, 140), -1)
    read = [((120, 320), 5), ((250, 320), 4), ((380, 320), 2)]
    for centre, v in [*read, ((300, 221), value)]:
        art.draw_die(img, centre, SIDE, v, body=(40, 40, 160), shadow=False)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in read]
    found = find_body_dice(img, 0.75 * SIDE, taken).dice
    assert [b.value for b in found] == [value]
    assert np.hypot(found[0].center[0] - 300, found[0].center[1] - 221) < 0.25 * SIDE


def test_a_heap_of_dice_touching_only_each_other_is_found(art: SimpleNamespace) -> None:
    img = art.background(480, 360, colour=(200, 205, 210))
    read = [((90, 90), 5), ((390, 90), 2), ((90, 270), 4)]
    heap = [((260, 230), 3), ((301, 232), 6)]
    for centre, value in read + heap:
        art.draw_die(img, centre, SIDE, value, body=(40, 40, 160))
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in read]
    found = find_body_dice(img, 0.75 * SIDE, taken).dice
    assert sorted(b.value for b in found) == [3, 6]
    for (x, y), value in heap:
        (die,) = [b for b in found if b.value == value]
        assert np.hypot(die.center[0] - x, die.center[1] - y) < 0.25 * SIDE


def test_a_long_streak_is_not_read_as_a_heap_of_dice(art: SimpleNamespace) -> None:
    img, layout = _tray(art)
    # A dark bar (a wall's shadow) as long as five dice, with spots like pips on it.
    cv2.rectangle(img, (130, 170), (350, 206), (40, 40, 160), -1)
    for x in range(145, 350, 22):
        cv2.circle(img, (x, 188), 4, (235, 235, 235), -1, cv2.LINE_AA)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout]
    assert find_body_dice(img, 0.75 * SIDE, taken).dice == []


def test_the_turn_of_each_lone_read_die_comes_back(art: SimpleNamespace) -> None:
    img = art.background(480, 360, colour=(200, 205, 210))
    layout = [((90, 90), 5, 20.0), ((390, 90), 3, 65.0), ((240, 270), 2, 0.0), ((281, 272), 4, 0.0)]
    for centre, value, angle in layout:
        art.draw_die(img, centre, SIDE, value, angle_deg=angle, body=(40, 40, 160))
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v, _a in layout]
    turns = [None if b is None else b.turn for b in find_body_dice(img, 0.75 * SIDE, taken).lone]
    assert turns[0] is not None and abs(turns[0] - 20.0) < 6.0
    assert turns[1] is not None and abs(turns[1] - 65.0) < 6.0
    # Two dice touching share one body: its turn says nothing about either.
    assert turns[2:] == [None, None]


def test_dice_whose_pips_the_pip_search_misses_everywhere_are_found_by_their_bodies(
    art: SimpleNamespace,
) -> None:

    img = art.background(640, 480, colour=(200, 205, 210))
    layout = [((120, 120), 5), ((320, 140), 3), ((520, 110), 6), ((200, 350), 4), ((450, 340), 2)]
    for i, (centre, value) in enumerate(layout):
        # Pips barely darker than their face, on every die: no face is read by its pips.
        art.draw_die(
            img, centre, SIDE, value, angle_deg=9.0 * i, body=(40, 40, 160), pip=(10, 10, 70)
        )
    assert [d for d in read_array(img, params=DEFAULTS._replace(body_dice=False)) if d.value] == []
    dice = read_array(img)
    assert sorted(d.value or 0 for d in dice) == sorted(v for _c, v in layout)
    for (x, y), value in layout:
        (die,) = [d for d in dice if d.value == value]
        assert np.hypot(die.center[0] - x, die.center[1] - y) < 0.25 * SIDE


def _faint_four(art: SimpleNamespace) -> np.ndarray:
    """A light floor with four dice (a five, a three, a six and a four) whose pips are barely
    darker than their faces: no face is read by its pips, the dice are found by their bodies."""
    img = art.background(640, 480, colour=(200, 205, 210))
    layout = [((120, 120), 5), ((320, 140), 3), ((520, 110), 6), ((200, 350), 4)]
    for i, (centre, value) in enumerate(layout):
        art.draw_die(
            img, centre, SIDE, value, angle_deg=9.0 * i, body=(40, 40, 160), pip=(10, 10, 70)
        )
    return img


def test_where_no_face_is_read_by_its_pips_a_die_no_count_reads_is_asked_about(
    art: SimpleNamespace,
) -> None:
    # As above (faint pips everywhere), with a sixth die whose smudges fit no face: the body
    # search over the whole photo reports it uncertain, and a flat grey disc nothing.
    img = _faint_four(art)
    x, y = 450, 340
    art.draw_die(img, (x, y), SIDE, 1, angle_deg=20.0, body=(40, 40, 160), pip=(40, 40, 160))
    # Faint streaks: no face of the pip search there either.
    for dx, dy, ax, turn in ((-9, -7, 6, 20), (7, -9, 4, 70), (-4, 8, 7, 135), (9, 6, 3, 0)):
        cv2.ellipse(img, (x + dx, y + dy), (ax, 2), turn, 0, 360, (80, 70, 190), -1)
    cv2.circle(img, (560, 400), 19, (120, 122, 124), -1, cv2.LINE_AA)
    dice = read_array(img)
    assert sorted(d.value for d in dice if d.value is not None) == [3, 4, 5, 6]
    (unsure,) = [d for d in dice if d.value is None]
    assert np.hypot(unsure.center[0] - x, unsure.center[1] - y) < 0.25 * SIDE
    # The player is told why it is asked about.
    assert unsure.evidence == (doubts.BODY_ONLY,)


def test_a_face_asked_about_far_bigger_than_the_dice_read_by_their_bodies_is_dropped(
    art: SimpleNamespace,
) -> None:
    # Where no face is read by its pips the bodies are searched for over the whole photo. A
    # "one" asked about ten dice wide (in a flash render, the colour grown from a washed-out
    # face over the felt) is none of them: kept, it hid two washed-out dice asked about.
    from vision.reader import _anywhere, _Die

    img = _faint_four(art)
    giant = _Die(None, (450.0, 300.0), 10.0 * SIDE, 0.5, ())
    small = _Die(None, (600.0, 420.0), SIDE, 0.5, ())
    dice, _unread, _unsure = _anywhere(img, [(8.0, giant), (8.0, small)], DEFAULTS)
    assert sorted(d.value for _diam, d in dice if d.value is not None) == [3, 4, 5, 6]
    assert giant not in [d for _diam, d in dice] and small in [d for _diam, d in dice]


def test_a_webcam_frame_320_wide_is_searched_for_bodies_too(art: SimpleNamespace) -> None:
    # The search looks at a copy 320 px on its short side; a frame already smaller (a
    # 320x240 webcam's) was not searched at all, and is now looked at as it is.
    img = art.background(320, 240, colour=(200, 205, 210))
    layout = [((80, 80), 5), ((220, 90), 3), ((150, 170), 4)]
    for i, (centre, value) in enumerate(layout):
        art.draw_die(img, centre, 34, value, angle_deg=12.0 * i, body=(40, 40, 160))
    found = find_dice_anywhere(img, min_confidence=0.6).dice
    assert sorted(d.value for d in found) == [3, 4, 5]


def test_a_photo_without_dice_gives_no_body_dice(art: SimpleNamespace) -> None:
    img = art.background(640, 480, colour=(200, 205, 210))
    # Die-sized things without a pip layout: a coin, a blank square, a ring.
    cv2.circle(img, (160, 200), 20, (90, 140, 180), -1, cv2.LINE_AA)
    cv2.rectangle(img, (380, 180), (416, 216), (60, 60, 60), -1)
    cv2.circle(img, (300, 360), 18, (40, 40, 40), 4, cv2.LINE_AA)
    assert find_dice_anywhere(img, min_confidence=0.6).dice == []
    assert read_array(img) == ()


def test_a_face_read_short_of_its_pips_is_read_again_on_its_body(art: SimpleNamespace) -> None:
    from vision._bodies import LoneBody
    from vision.reader import _Die, _more_pips

    img = art.background(240, 240, colour=(200, 205, 210))
    art.draw_die(img, (120, 120), SIDE, 5, body=(40, 40, 160), shadow=False)
    step = 0.27 * SIDE
    # A five's corner and centre pips fitted as a two: a face half its die's size.
    two = _Die(2, (120 - step / 2, 120 - step / 2), 3.6 * step / 2, 0.9, ())
    again = _more_pips(img, two, LoneBody(0.0, SIDE, (120.0, 120.0)))
    assert again.value == 5
    assert np.hypot(again.center[0] - 120, again.center[1] - 120) < 0.15 * SIDE
    # A face fitted as big as its body is not read again, and neither is a fuller reading.
    assert _more_pips(img, two._replace(size=SIDE), LoneBody(0.0, SIDE, (120.0, 120.0))).value == 2
    six = two._replace(value=6)
    assert _more_pips(img, six, LoneBody(0.0, SIDE, (120.0, 120.0))).value == 6
    # A "body" 4.5 times the face is no die's: a tray floor standing out around one die
    # read on it. The counter would read the five there too, but the face is left as read.
    floor = LoneBody(0.0, 4.5 * two.size, (120.0, 120.0))
    assert _more_pips(img, two, floor) == two


def test_a_face_left_uncertain_is_read_by_a_sure_count_of_its_body(art: SimpleNamespace) -> None:
    from vision._bodies import LoneBody
    from vision.reader import _Die, _more_pips

    img = art.background(240, 240, colour=(200, 205, 210))
    art.draw_die(img, (120, 120), SIDE, 4, body=(40, 40, 160), shadow=False)
    body = LoneBody(0.0, SIDE, (120.0, 120.0))
    # The pip reader doubted the face's grid (its whole size, the four's layout).
    unsure = _Die(None, (121.0, 119.0), 0.9 * SIDE, 0.55, (), layout=4)
    read = _more_pips(img, unsure, body)
    assert read.value == 4
    assert 0.6 <= read.confidence <= 0.75
    assert np.hypot(read.center[0] - 120, read.center[1] - 120) < 0.15 * SIDE
    # Pips counted off the face (the body's count belongs to a die beside it) leave it.
    far = unsure._replace(center=(120.0 + 0.5 * SIDE, 120.0))
    assert _more_pips(img, far, body).value is None
    # A blank body counts nothing sure: the face stays uncertain.
    blank = art.background(240, 240, colour=(200, 205, 210))
    cv2.rectangle(blank, (100, 100), (140, 140), (40, 40, 160), -1)
    assert _more_pips(blank, unsure, body).value is None


def test_a_face_whose_pips_sit_close_together_is_read_at_its_bodys_size(
    art: SimpleNamespace,
) -> None:
    # A small two whose pips sit nearer the middle of its face than the common layout's
    # (some makes set them so): fitted to that layout its face is little more than half its
    # die, far smaller than the dice beside it, and was left unread; the single-face
    # counter reads the same two in the middle of a die-sized body.
    side = 26
    img = art.background(640, 480, colour=(200, 205, 210))
    layout = [((120, 120), 5), ((320, 120), 3), ((520, 120), 6), ((120, 360), 4), ((520, 360), 2)]
    for i, (centre, value) in enumerate(layout):
        art.draw_die(img, centre, side, value, angle_deg=11.0 * i, body=(40, 40, 160))
    art.draw_die(img, (320, 360), side, 2, body=(40, 40, 160), spread=0.17)
    dice = read_array(img)
    close = [d for d in dice if np.hypot(d.center[0] - 320, d.center[1] - 360) < 0.3 * side]
    assert len(close) == 1
    assert close[0].value == 2
    assert 0.8 * side < close[0].size_px < 1.3 * side
    assert sorted(d.value for d in dice) == sorted([v for _c, v in layout] + [2])


def test_a_close_set_face_beside_its_bodys_middle_still_takes_the_bodys_size(
    art: SimpleNamespace,
) -> None:
    from vision._bodies import LoneBody
    from vision.reader import _Die, _more_pips

    # A lone die's blob holds its shadow and the side faces the camera sees, so its middle
    # lies off the top face's: on nell's photos the faces the counter confirmed lay up to
    # 0.15 of the body's side from it. A face that far off still takes the body's side; one
    # half a side off does not (the counter read another die's pips there).
    img = art.background(240, 240, colour=(200, 205, 210))
    art.draw_die(img, (120, 120), SIDE, 2, body=(40, 40, 160), shadow=False, spread=0.17)
    two = _Die(2, (120.0, 120.0), 3.6 * 0.17 * SIDE, 0.9, ())
    for off, side in ((0.0, 1.0), (0.15, 1.0), (0.5, 0.0)):
        body = LoneBody(0.0, SIDE, (120.0 + off * SIDE, 120.0))
        assert _more_pips(img, two, body).body_side == side * SIDE, off


@pytest.mark.parametrize(("value", "cut_to"), [(4, 2), (6, 3)])
def test_a_die_its_blobs_window_cuts_is_counted_again_around_its_pips(
    art: SimpleNamespace, value: int, cut_to: int
) -> None:
    # A blob of two touching dice split in two halves (a heap): the first half's middle lies
    # 15 px left of the die's, so its window cuts off the die's right column of pips. What is
    # left reads as a sure two (of a four) or three (of a six).
    img = art.background(400, 300, colour=(45, 45, 45))
    art.draw_die(img, (200, 150), SIDE, value, body=(60, 60, 200), pip=(240, 240, 240))
    labels = np.zeros(img.shape[:2], np.int32)
    x0 = 200 - 15 - 25
    labels[128:172, x0 : x0 + 100] = 1
    stat = np.array([x0, 128, 100, 44, 100 * 44])
    left_half = _bodies._read_cluster(img, labels, stat, 1, float(SIDE), 1.0, [], 0.5, heap=2)
    assert [b.value for b in left_half] == [value], f"the cut face read as {cut_to}"
    assert np.hypot(left_half[0].center[0] - 200, left_half[0].center[1] - 150) < 2.0


def test_a_two_or_three_on_a_die_touching_another_is_counted_again(art: SimpleNamespace) -> None:
    from vision.reader import _Die, _recount

    img = art.background(320, 240, colour=(200, 205, 210))
    art.draw_die(img, (120, 120), SIDE, 6, body=(40, 40, 160), shadow=False)
    art.draw_die(img, (120 + SIDE + 1, 122), SIDE, 5, body=(40, 40, 160), shadow=False)
    art.draw_die(img, (260, 60), SIDE, 4, body=(40, 40, 160), shadow=False)
    step = 0.27 * SIDE
    # The six's left column fitted as a three turned 45 degrees, its face a third of the die.
    three = _Die(3, (120 - step, 120), 3.6 * step / np.sqrt(8), 0.9, ())
    five = _Die(5, (121.0 + SIDE, 122.0), 3.6 * step, 0.9, ())
    side = 3.6 * step  # the photo's median die side (the five's and the four's)
    again = _recount(img, three, side)
    assert again.value == 6
    assert np.hypot(again.center[0] - 120, again.center[1] - 120) < 0.15 * SIDE
    # A three asked about for its turn against the die's edges (the drawn trays' orange
    # six, session 42) is counted again as well.
    turned = three._replace(value=None, confidence=0.5, layout=3, doubt=doubts.TURNED)
    assert _recount(img, turned, side).value == 6
    # Not counted again: a four, five or six, a one (a camera looking aslant shows the pips
    # of a lone pip's side faces), a face as big as the photo's dice, and a face the
    # counter reads no more pips on.
    assert _recount(img, five, side) == five
    one = three._replace(value=1)
    assert _recount(img, one, side) == one
    full = three._replace(size=3.6 * step)
    assert _recount(img, full, side) == full
    plain = art.background(320, 240, colour=(200, 205, 210))
    art.draw_die(plain, (120, 120), SIDE, 3, body=(40, 40, 160), shadow=False)
    on_a_three = three._replace(center=(120.0, 120.0))
    assert _recount(plain, on_a_three, side) == on_a_three


@pytest.mark.parametrize("side", [SIDE, 18])
def test_a_six_fitted_as_two_threes_is_counted_again_as_one_six(
    art: SimpleNamespace, side: int
) -> None:
    from vision.reader import _Die, _recounted

    img = art.background(320, 240, colour=(200, 205, 210))
    art.draw_die(img, (120, 120), side, 6, body=(40, 40, 160), shadow=False)
    art.draw_die(img, (250, 60), side, 4, body=(40, 40, 160), shadow=False)
    art.draw_die(img, (250, 180), side, 5, body=(40, 40, 160), shadow=False)
    art.draw_die(img, (60, 200), side, 1, body=(40, 40, 160), shadow=False)
    step = 0.27 * side
    # Each column of the six fitted as a three, its face a third of the die (a die 18 px
    # wide is as small as nell_byler_d6's dice).
    left = _Die(3, (120 - step, 120), 3.6 * step / np.sqrt(8), 0.9, ())
    right = left._replace(center=(120 + step, 120))
    four = _Die(4, (250.0, 60.0), 3.6 * step, 0.9, ())
    five = _Die(5, (250.0, 180.0), 3.6 * step, 0.9, ())
    one = _Die(1, (60.0, 200.0), 3.6 * step, 0.9, ())
    again = _recounted(img, [(4.0, left), (4.0, four), (4.0, right), (4.0, five), (4.0, one)])
    assert [d.value for _p, d in again] == [6, 4, 5, 1]
    assert np.hypot(again[0][1].center[0] - 120, again[0][1].center[1] - 120) < 0.15 * side


@pytest.mark.parametrize("angle", [0.0, 17.0, 38.0, 62.0, 81.0])
def test_a_dies_edges_give_its_turn(art: SimpleNamespace, angle: float) -> None:
    img = art.background(160, 160, colour=(200, 205, 210))
    art.draw_die(img, (80, 80), 44, 2, angle_deg=angle, body=(40, 40, 160), shadow=False)
    turn, order = edge_turn(img, (80.0, 80.0), 40.0)
    off = abs((turn - angle + 45.0) % 90.0 - 45.0)
    assert off < 3.0
    assert order > 0.5


def test_round_pips_alone_agree_on_no_turn(art: SimpleNamespace) -> None:
    # Close windows on a big face's whole pips, the die's edges out of them: the pips' round
    # edges point every way.
    for value, half in ((1, 30.0), (6, 63.0)):
        img = art.background(200, 200, colour=(200, 205, 210))
        art.draw_die(img, (100, 100), 150, value, angle_deg=20.0, shadow=False)
        assert edge_turn(img, (100.0, 100.0), half)[1] < 0.05
    # Nor do a bare floor's grain and a flat grey.
    assert edge_turn(art.background(80, 80), (40.0, 40.0), 30.0)[1] < 0.05
    assert edge_turn(np.full((40, 40, 3), 128, np.uint8), (20.0, 20.0), 10.0) == (0.0, 0.0)


def _smudge(art: SimpleNamespace, img: np.ndarray, centre: tuple[int, int]) -> None:
    """A die whose pips are smudged into streaks that fit no face (a marbled body's swirls
    over faint pips), drawn in place."""
    x, y = centre
    art.draw_die(img, (x, y), SIDE, 1, body=(40, 40, 160), pip=(40, 40, 160))
    for dx, dy, ax, turn in ((-9, -7, 6, 20), (7, -9, 4, 70), (-4, 8, 7, 135), (9, 6, 3, 0)):
        cv2.ellipse(img, (x + dx, y + dy), (ax, 2), turn, 0, 360, (150, 120, 200), -1)


def _smudged(art: SimpleNamespace) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    """The tray with its last die's pips smudged into streaks that fit no face (a marbled
    body's swirls over faint pips), a flat grey disc (a punched hole in a board) and a flat
    die-sized square of the floor's own grey."""
    img, layout, (x, y) = _tray_without_last(art)
    _smudge(art, img, (x, y))
    cv2.circle(img, (240, 260), 19, (120, 122, 124), -1, cv2.LINE_AA)
    cv2.rectangle(img, (222, 170), (258, 206), (150, 152, 154), -1)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout[:-1]]
    return img, taken


def test_a_textured_die_whose_pips_fit_no_face_is_reported_unsure(art: SimpleNamespace) -> None:
    img, taken = _smudged(art)
    found = find_body_dice(img, 0.75 * SIDE, taken, min_confidence=DEFAULTS.body_min_confidence)
    assert found.dice == []
    assert len(found.unsure) == 1
    unsure = found.unsure[0]
    (x, y), side, outline = unsure.center, unsure.size, unsure.outline
    assert np.hypot(x - 390, y - 260) < 0.25 * SIDE
    assert 0.8 * SIDE < side < 1.5 * SIDE
    corners = np.array(outline)
    assert corners.shape == (4, 2)
    assert np.allclose(corners.mean(axis=0), (x, y), atol=1.0)
    # The disc and the flat square are die-sized blobs the counter could not read either.
    assert len(found.unread) == 3


def test_a_die_whose_pips_fit_no_face_touching_a_die_read_is_reported_unsure(
    art: SimpleNamespace,
) -> None:
    # Touching a die read, the smudged die shares its blob: the blob is searched with the
    # die read cut out, and the die-sized rest whose pips the counter cannot fit is a die
    # asked about, as it is when it lies alone.
    img, layout = _tray(art)
    (x, y), _v = layout[-1]
    _smudge(art, img, (x - SIDE - 2, y))
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout]
    found = find_body_dice(img, 0.75 * SIDE, taken, min_confidence=DEFAULTS.body_min_confidence)
    assert found.dice == []
    assert len(found.unsure) == 1
    (ux, uy), side = found.unsure[0].center, found.unsure[0].size
    assert np.hypot(ux - (x - SIDE - 2), uy - y) < 0.3 * SIDE
    assert 0.8 * SIDE < side < 1.6 * SIDE
    # A flat square of a die's colour touching the same die holds no pip-like blobs: no die.
    img, layout = _tray(art)
    half = SIDE // 2
    cv2.rectangle(img, (x - SIDE - 2 - half, y - half), (x - 2 - half, y + half), (40, 40, 160), -1)
    assert find_body_dice(img, 0.75 * SIDE, taken).unsure == []


def test_a_die_nearer_the_camera_than_those_read_is_not_taken_for_two(
    art: SimpleNamespace,
) -> None:
    # A die half again as wide as the dice read has a blob twice theirs, as two touching
    # dice would; but it is one filled square, and when no two dice can be read in it, it
    # is read as one die.
    img, layout, (x, y) = _tray_without_last(art, half=40)
    big = round(1.45 * SIDE)
    art.draw_die(img, (x, y), big, 5, angle_deg=20.0, body=(40, 40, 160))
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in layout[:-1]]
    found = find_body_dice(img, 0.75 * SIDE, taken, min_confidence=DEFAULTS.body_min_confidence)
    assert [b.value for b in found.dice] == [5]
    assert np.hypot(found.dice[0].center[0] - x, found.dice[0].center[1] - y) < 0.2 * big


def test_the_reader_asks_about_a_die_whose_pips_no_reading_counts(art: SimpleNamespace) -> None:
    img = art.background(480, 360, colour=(60, 90, 50))
    read = [((80, 80), 5), ((250, 70), 3), ((400, 150), 6), ((120, 280), 4)]
    for i, (centre, value) in enumerate(read):
        art.draw_die(img, centre, SIDE, value, angle_deg=13.0 * i)
    x, y = 330, 290
    body = (235, 235, 235)
    art.draw_die(img, (x, y), SIDE, 1, angle_deg=8.0, pip=body)
    for dx, dy, ax, turn in ((-9, -7, 6, 20), (7, -9, 4, 70), (-4, 8, 7, 135), (9, 6, 3, 0)):
        cv2.ellipse(img, (x + dx, y + dy), (ax, 2), turn, 0, 360, (150, 150, 170), -1)
    dice = read_array(img)
    assert sorted(d.value for d in dice if d.value is not None) == [3, 4, 5, 6]
    unsure = [d for d in dice if d.value is None]
    assert len(unsure) == 1
    assert unsure[0].flags == ("uncertain",)
    assert np.hypot(unsure[0].center[0] - x, unsure[0].center[1] - y) < 0.25 * SIDE


def test_a_body_right_below_a_face_read_across_the_table_is_its_front_face() -> None:
    from vision._bodies import UnsureBody
    from vision.reader import _Die, _with_unsure_bodies

    read = _Die(1, (200.0, 100.0), 36.0, 0.96, ())
    square = ((190.0, 132.0), (214.0, 132.0), (214.0, 156.0), (190.0, 156.0))
    below = UnsureBody((202.0, 144.0), 29.0, square)
    # Seen from above, a textured die-sized body 44 px below a die read is another die ...
    (_one, (_diam, asked)) = _with_unsure_bodies([(7.0, read)], [below], upright=False)
    assert asked.value is None and asked.center == below.center
    assert asked.outline == square
    # ... seen across the table, it is the front face of the die read above it.
    assert _with_unsure_bodies([(7.0, read)], [below], upright=True) == [(7.0, read)]


def _against_tan_wall(art: SimpleNamespace, value: int) -> list[_bodies.BodyDie]:
    """The dice a body pass finds on a red floor with a tan wall (its dark crease along the
    floor) when three dice are read and a white die of ``value`` touches the crease."""
    img = art.background(900, 400, colour=(60, 50, 170))
    cv2.rectangle(img, (0, 0), (900, 180), (140, 185, 215), -1)
    cv2.rectangle(img, (0, 178), (900, 183), (40, 40, 50), -1)
    read = [((120, 320), 5), ((250, 320), 4), ((380, 320), 2)]
    for centre, v in [*read, ((300, 201), value)]:
        art.draw_die(img, centre, SIDE, v, shadow=False)
    taken = [(float(c[0]), float(c[1]), 0.75 * SIDE) for c, _v in read]
    return find_body_dice(img, 0.75 * SIDE, taken).dice


@pytest.mark.parametrize("value", [4, 5, 6])
def test_a_die_against_a_wall_of_another_colour_is_parted_from_it_by_colour(
    art: SimpleNamespace, value: int
) -> None:
    # The die, the crease and the band of tan beside it where a floor model over three dice
    # (or fewer) is off make one blob with the wall; the wall modelled from its own pixels
    # (those unlike the floor where the dice read lie) parts the die from it.
    found = _against_tan_wall(art, value)
    assert [b.value for b in found] == [value]
    assert found[0].confidence >= DEFAULTS.min_confidence
    assert np.hypot(found[0].center[0] - 300, found[0].center[1] - 201) < 0.25 * SIDE


@pytest.mark.parametrize("value", [2, 3])
def test_a_two_or_three_parted_from_a_wall_is_asked_about(art: SimpleNamespace, value: int) -> None:
    # A 4's, 5's or 6's corner pips in the wall's shade leave a diagonal: a 2 or a 3.
    (die,) = _against_tan_wall(art, value)
    assert die.value == value
    assert die.confidence < DEFAULTS.min_confidence
    assert die.doubt == doubts.against_wall(value)
