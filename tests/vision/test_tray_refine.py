"""The floor outline fitted again at full resolution (vision._tray) on drawn trays."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision._tray import refine_quad, refine_round
from vision.flags import apply_flags
from vision.result import DieReading

Image = npt.NDArray[np.uint8]
TABLE = (170, 175, 180)
WALL_TOP = (60, 110, 200)
FLOOR = (60, 120, 40)
SIDE = 30.0


def _lab(bgr: tuple[int, int, int]) -> tuple[float, float, float]:
    lab = cv2.cvtColor(np.array([[bgr]], np.uint8), cv2.COLOR_BGR2LAB)[0, 0]
    return (float(lab[0]), float(lab[1]), float(lab[2]))


def _noisy(img: Image, seed: int = 5) -> Image:
    rng = np.random.default_rng(seed)
    return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def _box(*, shade_top: bool = False, face_top: tuple[int, int, int] | None = None) -> Image:
    """A box tray seen from above: floor 180..620 x 130..470 inside a wall 30 px thick.

    ``shade_top``: the floor along the top wall lies in the wall's shadow, fading over
    20 px into deep shade 40 px wide. ``face_top``: a wall face of that colour is seen
    between y = 130 and 150, over what the floor would be there.
    """
    img = np.empty((600, 800, 3), np.float32)
    img[:] = TABLE
    cv2.rectangle(img, (150, 100), (650, 500), WALL_TOP, -1)
    cv2.rectangle(img, (180, 130), (620, 470), FLOOR, -1)
    if shade_top:
        for y in range(130, 190):
            # Deep shade next to the wall (darkest in the corner), then a 20 px penumbra.
            k = 0.12 + 0.03 * (y - 130) / 40 if y < 170 else 0.15 + 0.85 * (y - 170) / 20
            img[y, 180:621] = np.array(FLOOR, np.float32) * k
    if face_top is not None:
        cv2.rectangle(img, (180, 130), (620, 149), face_top, -1)
    return _noisy(np.clip(img, 0, 255).astype(np.uint8))


def _die(img: Image, x: float, y: float) -> DieReading:
    """A white die seen from straight above, and its reading."""
    h = SIDE / 2
    cv2.rectangle(img, (round(x - h), round(y - h)), (round(x + h), round(y + h)), (235,) * 3, -1)
    cv2.circle(img, (round(x), round(y)), 3, (20, 20, 20), -1)
    return DieReading(value=1, center=(x, y), size_px=SIDE, confidence=1.0)


def test_a_side_is_followed_through_a_penumbra_into_deep_shade_up_to_the_wall() -> None:
    img = _box(shade_top=True)
    # The floor found from its lit colour stops where the shadow begins.
    found = np.array([[180, 180], [620, 180], [620, 470], [180, 470]], np.float64)
    refined = refine_quad(img, found, SIDE, _lab(FLOOR))
    assert abs(min(refined[:, 1]) - 130) <= 5
    assert abs(max(refined[:, 1]) - 470) <= 4


@pytest.mark.parametrize(
    "brightness",
    [
        0.7,  # a pale floor, the wall's face in its colour in the wall's shade
        1.35,  # felt on the wall as on the floor, the wall's face turned to the light
    ],
)
def test_a_wall_face_in_the_floors_colour_is_not_floor(brightness: float) -> None:
    face = tuple(round(brightness * c) for c in FLOOR)
    img = _box(face_top=(face[0], face[1], face[2]))
    found = np.array([[180, 130], [620, 130], [620, 470], [180, 470]], np.float64)
    refined = refine_quad(img, found, SIDE, _lab(FLOOR))
    assert abs(min(refined[:, 1]) - 150) <= 4


def test_dice_against_a_wall_do_not_pull_its_side() -> None:
    img = _box()
    dice = [_die(img, x, 130 + SIDE / 2 + 1) for x in (260.0, 330.0, 400.0, 470.0)]
    found = np.array([[180, 175], [620, 175], [620, 470], [180, 470]], np.float64)
    xy = np.array([(*d.center, d.size_px) for d in dice])
    refined = refine_quad(img, found, SIDE, _lab(FLOOR), dice_xy=xy)
    assert abs(min(refined[:, 1]) - 130) <= 4


def test_a_round_floor_is_fitted_again_as_its_ellipse() -> None:
    img = np.empty((600, 800, 3), np.uint8)
    img[:] = TABLE
    cv2.ellipse(img, (400, 300), (250, 210), 0, 0, 360, WALL_TOP, -1)
    cv2.ellipse(img, (400, 300), (220, 180), 0, 0, 360, FLOOR, -1)
    img = _noisy(img)
    t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    # Found too small and off centre, as a floor region cut by shade would be.
    found = np.stack([410 + 195 * np.cos(t), 310 + 160 * np.sin(t)], axis=1)
    refined = refine_round(img, found, SIDE, _lab(FLOOR))
    r = np.hypot((refined[:, 0] - 400) / 220, (refined[:, 1] - 300) / 180)
    assert np.abs(r - 1).max() < 0.03


def test_dice_beside_a_tray_seen_whole_are_off_it() -> None:
    img = _box()
    # Only the dice thrown out onto the table were found: the tray is still the tray.
    dice = [_die(img, 700, 300), _die(img, 720, 450)]
    result = apply_flags(img, dice)
    assert result.tray is not None
    assert [d.flags for d in result.dice] == [("off_tray",), ("off_tray",)]


def test_dice_beside_a_floor_cut_by_the_frame_keep_no_flags() -> None:
    # A shaded patch of a board at the photo's edge is no tray floor for dice that miss it.
    img = np.empty((600, 800, 3), np.uint8)
    img[:] = TABLE
    cv2.rectangle(img, (0, 0), (330, 600), FLOOR, -1)
    img = _noisy(img)
    dice = [_die(img, 500, 200), _die(img, 560, 380), _die(img, 650, 300)]
    result = apply_flags(img, dice)
    assert all("off_tray" not in d.flags for d in result.dice)


def test_calibration_fits_the_outline_again_when_given_the_refiner() -> None:
    from calibration.profile import calibrate
    from vision._tray import refine_outline

    img = _box(shade_top=True)
    plain = calibrate(img)
    fitted = calibrate(img, refine=refine_outline)
    # The floor found from its lit colour stops at the shadow; the refit reaches the wall.
    assert min(y for _x, y in plain.polygon) > 150
    assert abs(min(y for _x, y in fitted.polygon) - 130) <= 5


def test_the_calibrate_command_s_refiner_leaves_the_dice_out() -> None:
    from calibration.profile import calibrate
    from vision.flags import outline_refiner

    img = _box(shade_top=True)
    # Dice against the shaded top wall: the floor's samples must pass them by.
    dice = [_die(img, x, 150) for x in (300.0, 420.0, 540.0)]
    fitted = calibrate(
        img, dice=[(d.center, d.size_px) for d in dice], refine=outline_refiner(dice)
    )
    assert abs(min(y for _x, y in fitted.polygon) - 130) <= 5


def test_a_grey_floor_in_a_grey_tray_on_a_grey_table_ends_at_the_brightness_step() -> None:
    # Chromaticity cannot end a grey floor here (the wall top and the table are grey too);
    # the wall top's darker grey still does.
    img = np.empty((600, 800, 3), np.float32)
    img[:] = (95, 95, 95)
    cv2.rectangle(img, (150, 100), (650, 500), (105, 105, 105), -1)
    cv2.rectangle(img, (180, 130), (620, 470), (160, 160, 160), -1)
    photo = _noisy(img.astype(np.uint8))
    start = np.array([[195, 145], [605, 145], [605, 455], [195, 455]], np.float64)
    fitted = refine_quad(photo, start, 16.0, _lab((160, 160, 160)))
    truth = np.array([[180, 130], [620, 130], [620, 470], [180, 470]], np.float64)
    assert np.abs(fitted - truth).max() < 4.0


@pytest.mark.parametrize("n", range(1, 14))
def test_the_sorting_network_sorts_every_zero_one_input(n: int) -> None:
    # By the zero-one principle a comparator network that sorts every input of zeros and
    # ones sorts every input.
    from vision._tray import _sorting_network

    bits = (np.arange(1 << n)[:, None] >> np.arange(n)[None, :]) & 1
    cols = [bits[:, i].copy() for i in range(n)]
    for a, b in _sorting_network(n):
        cols[a], cols[b] = np.minimum(cols[a], cols[b]), np.maximum(cols[a], cols[b])
    out = np.stack(cols, axis=1)
    assert np.array_equal(out, np.sort(bits, axis=1))


def test_masked_median_is_the_lower_middle_of_the_usable_samples() -> None:
    from vision._tray import _masked_median

    rng = np.random.default_rng(2)
    samples = rng.integers(0, 256, (11, 500, 3)).astype(np.uint8)
    samples[:, :50] = 255  # ties with the value unusable samples are set to
    usable = rng.random((11, 500)) < 0.8
    usable[:, 7] = False
    got = _masked_median(samples, usable, usable.sum(axis=0, dtype=np.int32))
    for j in range(500):
        vals = np.sort(samples[usable[:, j], j].astype(np.float64), axis=0)
        want = vals[(len(vals) - 1) // 2] if len(vals) else np.zeros(3)
        assert np.array_equal(got[j], want), j
